"""Durable waiting for deferred tool results: the run's side (a handler) and the people's side (a client).

The handler publishes the calls it waits on as a DBOS event of the workflow (key `EVENT_KEY`) and waits for
the answer with DBOS's durable `recv` (topic `TOPIC`), whose deadline is stored with the workflow, so a wait
survives restarts and continues on whichever process recovers the workflow. Everything it publishes or
receives is plain JSON (pydantic's JSON form of `DeferredToolRequests` and `DeferredToolResults`), so any
process that can reach the system database can answer, with `DBOSApprovalClient` or DBOS's own client.

Each wait has a request id, made in a step (so it is the same when the workflow is replayed); an answer names
it. An answer that does not name the pending request, or does not answer exactly its calls, is refused: the
reason goes onto the published event and the wait goes on. Only the deadline ends a wait without an answer.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import time
import uuid
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, cast

from dbos import DBOS, DBOSClient, run_dbos_database_migrations
from pydantic import TypeAdapter, ValidationError

from ..._deferred import check_answers
from ..._run_context import RunContext
from ...exceptions import ModelRetry, UserError
from ...tools import DeferredToolHandler, DeferredToolRequests, DeferredToolResults, ToolDenied
from .. import DeferredToolResultsTimeout, PendingDeferredToolRequests

__all__ = ('EVENT_KEY', 'TOPIC', 'DBOSApprovalClient', 'DurableDeferredToolWait', 'wait_for_deferred_tool_results')

EVENT_KEY = 'pydantic_ai.deferred_tool_requests'
"""The workflow event that holds the pending requests (JSON), or `None` when the run is not waiting."""
TOPIC = 'pydantic_ai.deferred_tool_results'
"""The message topic answers are sent on."""

DEFAULT_DENY_MESSAGE = 'Nobody answered before the deadline, so the tool call was not run.'

# DBOS wants a finite timeout; a wait without a deadline is given one far beyond any deploy's lifetime.
_FOREVER_SECONDS = 100 * 365 * 24 * 3600.0

_requests_adapter = TypeAdapter(DeferredToolRequests)
_results_adapter = TypeAdapter(DeferredToolResults)


@DBOS.step(name='pydantic_ai.deferred_tool_requests.open')
async def _open_request(timeout_seconds: float | None) -> tuple[str, float | None]:
    """A new request id and the deadline (epoch seconds), recorded so that replays and restarts see the same."""
    deadline = None if timeout_seconds is None else time.time() + timeout_seconds
    return uuid.uuid4().hex, deadline


@DBOS.step(name='pydantic_ai.deferred_tool_requests.policy')
async def _ask_policy(
    policy: DeferredToolHandler[Any], ctx: RunContext[Any], requests: DeferredToolRequests
) -> dict[str, Any]:
    """The policy's answers as JSON, recorded, so that a replay does not ask the policy again."""
    results = policy(ctx, requests)
    if inspect.isawaitable(results):
        results = await results
    return _results_adapter.dump_python(results, mode='json')


@dataclass
class DurableDeferredToolWait:
    """A deferred tool handler that waits durably for the answers, inside a DBOS workflow.

    Made by `wait_for_deferred_tool_results`; see there.
    """

    timeout_seconds: float | None = None
    """How long to wait for an answer, or `None` for no deadline."""
    on_timeout: Literal['deny', 'error'] = 'deny'
    """What the deadline does: deny every call (`'deny'`), or end the run with `DeferredToolResultsTimeout`."""
    deny_message: str = DEFAULT_DENY_MESSAGE
    """The message the model sees for each call denied at the deadline."""
    policy: DeferredToolHandler[Any] | None = None
    """A handler that answers what it can before anyone is asked; it may leave calls out."""

    async def __call__(self, ctx: RunContext[Any], requests: DeferredToolRequests) -> DeferredToolResults:
        """Answer the calls: the policy's answers, then a person's for the rest (or the deadline's)."""
        workflow_id = DBOS.workflow_id
        if workflow_id is None:
            raise UserError(
                '`wait_for_deferred_tool_results` waits inside a DBOS workflow: run the agent with '
                '`DBOSAgent.run`, `run_sync` or `start` (or from your own `@DBOS.workflow`).'
            )
        answered = DeferredToolResults()
        if self.policy is not None:
            answered = _results_adapter.validate_python(await _ask_policy(self.policy, ctx, requests))
            check_answers(_subset(requests, {*answered.calls, *answered.approvals}), answered)
            requests = _subset(requests, _ids(requests) - {*answered.calls, *answered.approvals})
            if not _ids(requests):
                return answered
        request_id, deadline = await _open_request(self.timeout_seconds)
        pending = PendingDeferredToolRequests(workflow_id, request_id, requests, deadline=_datetime(deadline))
        results = await _wait(pending, deadline)
        if results is None:
            results = self._at_deadline(pending)
        return _merge(answered, results)

    def _at_deadline(self, pending: PendingDeferredToolRequests) -> DeferredToolResults:
        requests = pending.requests
        if self.on_timeout == 'error':
            ids = sorted(_ids(requests))
            raise DeferredToolResultsTimeout(
                f'No answer to the deferred tool calls {ids} (request {pending.request_id!r}) arrived before '
                f'the deadline {pending.deadline}; the run ends.'
            )
        return DeferredToolResults(
            calls={call.tool_call_id: ModelRetry(self.deny_message) for call in requests.calls},
            approvals={call.tool_call_id: ToolDenied(self.deny_message) for call in requests.approvals},
        )


def wait_for_deferred_tool_results(
    timeout: timedelta | float | None = None,
    *,
    on_timeout: Literal['deny', 'error'] = 'deny',
    deny_message: str = DEFAULT_DENY_MESSAGE,
    policy: DeferredToolHandler[Any] | None = None,
) -> DurableDeferredToolWait:
    """A deferred tool handler that waits for people durably: for days, across restarts and deploys.

    Use it as the `deferred_tool_handler` of an agent run by a `DBOSAgent` (or in your own DBOS workflow).
    For each model response with deferred calls it publishes them (see `DBOSApprovalClient.pending`), waits
    for an answer sent with `DBOSApprovalClient.submit`, checks that it answers exactly the pending calls,
    and returns it. A wrong answer is refused and the wait goes on.

    Args:
        timeout: How long to wait (a `timedelta` or seconds); the deadline is stored with the workflow, so
            time spent while no worker runs counts. `None` waits for ever.
        on_timeout: At the deadline, `'deny'` denies every approval with `deny_message` (and gives external
            calls a retry prompt with it), so the model carries on; `'error'` ends the run with
            `DeferredToolResultsTimeout`.
        deny_message: What the model is told about calls denied at the deadline.
        policy: An ordinary deferred tool handler that answers what it can first (say, denying calls an
            approval policy blocked); the calls it leaves out wait for a person. Its answers are recorded
            in a step, so a replay does not ask it again.
    """
    seconds = timeout.total_seconds() if isinstance(timeout, timedelta) else timeout
    if seconds is not None and seconds < 0:
        raise UserError(f'`timeout` must not be negative, got {timeout!r}.')
    if on_timeout not in ('deny', 'error'):
        raise UserError(f"`on_timeout` must be 'deny' or 'error', got {on_timeout!r}.")
    return DurableDeferredToolWait(seconds, on_timeout, deny_message, policy)


async def _wait(pending: PendingDeferredToolRequests, deadline: float | None) -> DeferredToolResults | None:
    """Publish the request and wait for a correct answer; `None` if the deadline passed first."""
    await DBOS.set_event_async(EVENT_KEY, _dump_pending(pending))
    while True:
        # On recovery the `recv` in progress keeps the wake-up time it recorded, so this is only its first value.
        remaining = _FOREVER_SECONDS if deadline is None else max(0.0, deadline - time.time())
        message = await DBOS.recv_async(TOPIC, timeout_seconds=remaining)
        if message is None:
            await DBOS.set_event_async(EVENT_KEY, None)
            return None
        try:
            results = _accept(message, pending)
        except UserError as e:
            pending = replace(pending, rejection=str(e))
            await DBOS.set_event_async(EVENT_KEY, _dump_pending(pending))
            continue
        await DBOS.set_event_async(EVENT_KEY, None)
        return results


def _accept(message: Any, pending: PendingDeferredToolRequests) -> DeferredToolResults:
    """The answer in a received message, if it answers the pending request correctly.

    Raises:
        UserError: Why the answer is refused.
    """
    if not isinstance(message, dict) or set(cast(dict[str, Any], message)) != {'request_id', 'results'}:
        raise UserError('The answer is not a message sent by `DBOSApprovalClient.submit`; it was ignored.')
    message = cast(dict[str, Any], message)
    if message['request_id'] != pending.request_id:
        raise UserError(
            f'The answer is for request {message["request_id"]!r}, but the pending request is '
            f'{pending.request_id!r}: answer the pending request.'
        )
    try:
        results = _results_adapter.validate_python(message['results'])
    except ValidationError as e:
        raise UserError(f'The answer is not a valid `DeferredToolResults`: {e}') from e
    check_answers(pending.requests, results)
    return results


def _ids(requests: DeferredToolRequests) -> set[str]:
    return {call.tool_call_id for call in [*requests.calls, *requests.approvals]}


def _subset(requests: DeferredToolRequests, ids: set[str]) -> DeferredToolRequests:
    """The requests for the calls with these ids only."""
    return DeferredToolRequests(
        calls=[call for call in requests.calls if call.tool_call_id in ids],
        approvals=[call for call in requests.approvals if call.tool_call_id in ids],
        metadata={key: value for key, value in requests.metadata.items() if key in ids},
        context={key: value for key, value in requests.context.items() if key in ids},
    )


def _merge(first: DeferredToolResults, second: DeferredToolResults) -> DeferredToolResults:
    return DeferredToolResults(
        calls={**first.calls, **second.calls},
        approvals={**first.approvals, **second.approvals},
        metadata={**first.metadata, **second.metadata},
        context={**first.context, **second.context},
    )


def _datetime(epoch: float | None) -> datetime | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, UTC)


def _dump_pending(pending: PendingDeferredToolRequests) -> dict[str, Any]:
    return {
        'request_id': pending.request_id,
        'requests': _requests_adapter.dump_python(pending.requests, mode='json'),
        'deadline': None if pending.deadline is None else pending.deadline.isoformat(),
        'rejection': pending.rejection,
    }


def _load_pending(workflow_id: str, value: dict[str, Any]) -> PendingDeferredToolRequests:
    deadline = value['deadline']
    return PendingDeferredToolRequests(
        workflow_id,
        value['request_id'],
        _requests_adapter.validate_python(value['requests']),
        deadline=None if deadline is None else datetime.fromisoformat(deadline),
        rejection=value['rejection'],
    )


class DBOSApprovalClient:
    """The people's side of durable approvals: see what runs wait on, and answer them, from any process.

    It talks to the DBOS system database directly (with `dbos.DBOSClient`), so it needs neither `DBOS.launch()`
    nor the agent's code, and works while no worker runs: an answer sent then is taken up on recovery.
    """

    def __init__(self, system_database_url: str):
        """Connect to the DBOS system database at `system_database_url` (a SQLite or PostgreSQL URL).

        The database's tables are made if they do not exist yet, so the client may start before any worker.
        """
        run_dbos_database_migrations(system_database_url)
        self._client = DBOSClient(system_database_url=system_database_url)

    async def pending(self, workflow_id: str) -> PendingDeferredToolRequests | None:
        """What the workflow waits on, or `None` if it is not waiting (or has ended)."""
        status = await self._client.list_workflows_async(
            workflow_ids=[workflow_id], load_input=False, load_output=False
        )
        if not status or status[0].status != 'PENDING':
            return None
        return await self._pending(workflow_id)

    async def submit(self, workflow_id: str, results: DeferredToolResults, *, request_id: str) -> None:
        """Send the answer to the workflow's pending request `request_id`.

        The run checks it when it receives it (at once if a worker runs, on recovery otherwise). An answer
        that is refused is reported in `pending(...).rejection` and does not use up the request: send a
        corrected one with the same `request_id`. The same answer sent twice is delivered once.
        """
        message = {'request_id': request_id, 'results': _results_adapter.dump_python(results, mode='json')}
        digest = hashlib.sha256(json.dumps(message, sort_keys=True).encode()).hexdigest()
        key = f'{workflow_id}:{request_id}:{digest}'
        await self._client.send_async(workflow_id, message, TOPIC, idempotency_key=key)

    async def list_pending(self) -> list[PendingDeferredToolRequests]:
        """Every pending request of every running workflow, oldest workflow first: the inbox."""
        workflows = await self._client.list_workflows_async(status='PENDING', load_input=False, load_output=False)
        found = [await self._pending(workflow.workflow_id) for workflow in workflows]
        return [pending for pending in found if pending is not None]

    def close(self) -> None:
        """Close the connections to the system database."""
        self._client.destroy()

    async def _pending(self, workflow_id: str) -> PendingDeferredToolRequests | None:
        value = await self._client.get_event_async(workflow_id, EVENT_KEY, timeout_seconds=0)
        return None if value is None else _load_pending(workflow_id, cast(dict[str, Any], value))
