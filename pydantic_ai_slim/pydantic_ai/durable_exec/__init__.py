"""Durable execution: agent runs that survive restarts, and approvals that wait for people across them.

The engines live in submodules (`pydantic_ai.durable_exec.dbos`), each behind its own optional extra. This
module holds what is the same whatever the engine: how a run's pending deferred tool calls look to the people
who answer them, and the error that ends a run nobody answered in time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..exceptions import AgentRunError
from ..tools import DeferredToolRequests

__all__ = ('DeferredToolResultsTimeout', 'PendingDeferredToolRequests')


@dataclass
class PendingDeferredToolRequests:
    """Deferred tool calls a durable run is waiting on, as published for the people (or programs) that answer.

    A run publishes one of these each time its waiting handler starts to wait, and replaces it (with
    `rejection` set) when an answer is refused. Answer it by `request_id`.
    """

    workflow_id: str
    """The id of the workflow (the durable run) that waits."""
    request_id: str
    """The id of this wait; an answer must name it, so that an answer to an earlier wait is not taken for this one."""
    requests: DeferredToolRequests
    """The calls to answer: approvals and external calls, with their metadata."""
    deadline: datetime | None = None
    """When the run stops waiting (UTC), or `None` if it waits for ever."""
    rejection: str | None = None
    """Why the last answer to this request was refused, if one was; the run keeps waiting for a correct one."""


class DeferredToolResultsTimeout(AgentRunError):
    """Ends a durable run whose deferred tool calls were not answered before the deadline (`on_timeout='error'`)."""
