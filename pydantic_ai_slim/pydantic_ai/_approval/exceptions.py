"""Exceptions for approval failures that should end the run instead of being told to the model.

By default a denied or blocked call is not an error: the model gets the denial as the tool's result and
carries on. These exceptions are for callers who want a denial to stop everything (`raise_on_deny=True`),
and for the toolset's last line of defence when something approves a blocked call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .handler import ApprovalDecision

__all__ = ('ApprovalBlocked', 'ApprovalDenied', 'ApprovalError')


class ApprovalError(PermissionError):
    """Base class of approval failures; a `PermissionError`, so generic handlers catch it too."""


class ApprovalDenied(ApprovalError):
    """A person denied a tool call (raised only when the handler is built with `raise_on_deny=True`)."""

    tool_name: str
    """The denied tool."""
    decision: ApprovalDecision
    """The decision, with the person's note."""

    def __init__(self, tool_name: str, decision: ApprovalDecision):
        self.tool_name = tool_name
        self.decision = decision
        note = f': {decision.note}' if decision.note else '.'
        super().__init__(f'The call of `{tool_name}` was denied{note}')


class ApprovalBlocked(ApprovalError):
    """A tool call is blocked by policy.

    Raised by the handler when built with `raise_on_deny=True`, and by `ApprovalToolset` when a blocked
    call comes back approved (a handler that ignored `approval_policy='blocked'`).
    """

    tool_name: str
    """The blocked tool."""
    reason: str
    """Why the policy blocks it."""

    def __init__(self, tool_name: str, reason: str):
        self.tool_name = tool_name
        self.reason = reason
        super().__init__(f'The call of `{tool_name}` is blocked by policy: {reason}')
