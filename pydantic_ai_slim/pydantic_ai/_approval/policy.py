"""Approval policy: per-tool config, per-call decisions, and the protocols an inner toolset may implement.

A policy answers one question per tool call before it runs: may it run now (pre-approved), must a person
decide (needs approval), or may it never run (blocked)? The config covers the common case per tool name;
an inner toolset implementing `SupportsNeedsApproval` can decide per call from the arguments.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeAlias, TypedDict, runtime_checkable

from .. import RunContext

__all__ = (
    'ApprovalConfig',
    'ApprovalResult',
    'ApprovalStatus',
    'SupportsApprovalDescription',
    'SupportsNeedsApproval',
    'ToolApprovalConfig',
    'needs_approval_from_config',
)

ApprovalStatus: TypeAlias = Literal['pre_approved', 'needs_approval', 'blocked']
"""The three outcomes of a policy check."""


class ToolApprovalConfig(TypedDict, total=False):
    """How one tool is treated. A tool missing from the config needs approval (secure by default)."""

    pre_approved: bool
    """Run without asking."""
    blocked: bool
    """Never run; the handler denies the call without asking. Takes precedence over `pre_approved`."""
    reason: str
    """Why the tool is blocked or needs approval, shown to the person deciding (and to the model if blocked)."""


ApprovalConfig: TypeAlias = Mapping[str, ToolApprovalConfig]
"""Per-tool approval config, by tool name."""


@dataclass(frozen=True)
class ApprovalResult:
    """The policy's verdict on one call: build it with `pre_approved()`, `needs_approval()` or `blocked()`."""

    status: ApprovalStatus
    """Whether the call runs, waits for a decision, or never runs."""
    reason: str | None = None
    """Why the call is blocked or needs approval, if the policy says."""

    @classmethod
    def pre_approved(cls) -> ApprovalResult:
        """The call runs without asking."""
        return cls('pre_approved')

    @classmethod
    def needs_approval(cls, reason: str | None = None) -> ApprovalResult:
        """A person decides before the call runs; `reason` tells them why they are asked."""
        return cls('needs_approval', reason)

    @classmethod
    def blocked(cls, reason: str) -> ApprovalResult:
        """The call never runs; `reason` is shown to the person and sent to the model."""
        return cls('blocked', reason)

    @property
    def is_pre_approved(self) -> bool:
        """Whether the call runs without asking."""
        return self.status == 'pre_approved'

    @property
    def is_needs_approval(self) -> bool:
        """Whether a person must decide."""
        return self.status == 'needs_approval'

    @property
    def is_blocked(self) -> bool:
        """Whether the call is refused by policy."""
        return self.status == 'blocked'


def needs_approval_from_config(name: str, config: ApprovalConfig) -> ApprovalResult:
    """The verdict the config gives for tool `name`: blocked, pre-approved, or (by default) needs approval."""
    entry = config.get(name, ToolApprovalConfig())
    reason = entry.get('reason')
    if entry.get('blocked', False):
        return ApprovalResult.blocked(reason or f'The tool `{name}` is blocked by policy.')
    if entry.get('pre_approved', False):
        return ApprovalResult.pre_approved()
    return ApprovalResult.needs_approval(reason)


@runtime_checkable
class SupportsNeedsApproval(Protocol):
    """An inner toolset that decides per call whether it needs approval.

    `ApprovalToolset` detects it and asks it instead of reading the config itself; the config is passed
    along so the toolset can start from `needs_approval_from_config`.
    """

    def needs_approval(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], config: ApprovalConfig
    ) -> ApprovalResult | Awaitable[ApprovalResult]:
        """The verdict for calling tool `name` with `tool_args` (sync or async)."""
        ...


@runtime_checkable
class SupportsApprovalDescription(Protocol):
    """An inner toolset that describes its calls in words for the person approving them."""

    def get_approval_description(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any]
    ) -> str | Awaitable[str]:
        """A one-line, human-readable description of the call (sync or async)."""
        ...
