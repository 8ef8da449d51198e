"""`ApprovalToolset`: a wrapper that applies an approval policy to every call of the toolset it wraps.

It never asks anyone itself. A call that needs a decision raises `ApprovalRequired` with metadata following
the deferred-tool-handler conventions, so the call reaches the run's deferred tool handler (or the run's
`DeferredToolRequests` output) like any other deferred approval:

- `approval_policy`: `'needs_approval'`, or `'blocked'` for calls the handler must deny without asking;
- `approval_description`: what the call does, in words;
- `approval_reason`: why it needs approval or is blocked (when known);
- `toolset_id`, `worker`: where the call comes from, for multi-agent UIs (when set).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from .. import ApprovalRequired, RunContext
from .._otel import record_approval_policy
from ..tools import AgentDepsT
from ..toolsets import ToolsetTool, WrapperToolset
from .exceptions import ApprovalBlocked
from .policy import (
    ApprovalConfig,
    ApprovalResult,
    SupportsApprovalDescription,
    SupportsNeedsApproval,
    ToolApprovalConfig,
    needs_approval_from_config,
)

__all__ = ('ApprovalToolset', 'default_description')


def default_description(name: str, tool_args: Mapping[str, Any]) -> str:
    """Describe a call as it would be written in Python, e.g. `kill_process(pid=4242, signal='TERM')`."""
    args = ', '.join(f'{key}={value!r}' for key, value in tool_args.items())
    return f'{name}({args})'


@dataclass
class ApprovalToolset(WrapperToolset[AgentDepsT]):
    """Wraps a toolset so each call is pre-approved, deferred for approval, or blocked.

    If the wrapped toolset implements `SupportsNeedsApproval`, it decides per call (and gets `config`);
    otherwise `config` decides per tool, and a tool it does not list needs approval. A blocked call is
    deferred too, marked `approval_policy='blocked'`, so the handler can deny it without asking and the
    model learns why. Once a call comes back approved (`ctx.tool_call_approved`) it runs, unless the policy
    blocks it: then `ApprovalBlocked` is raised, because whoever approved it ignored the policy.
    """

    _: KW_ONLY
    config: ApprovalConfig = field(default_factory=dict[str, ToolApprovalConfig])
    """Per-tool config by tool name: `pre_approved`, `blocked`, `reason`."""
    worker: str | None = None
    """The name of the agent (worker) whose tools these are, added to the metadata for the approver."""
    toolset_id: str | None = None
    """An id for the approver's display; the wrapped toolset's `id` when not set."""

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Run the call if the policy allows it now, else raise `ApprovalRequired` with the approval metadata.

        Raises:
            ApprovalRequired: If the call needs approval or is blocked, and has not been approved yet.
            ApprovalBlocked: If a blocked call was approved anyway.
        """
        verdict = await self.check(name, tool_args, ctx)
        if verdict.is_blocked and ctx.tool_call_approved:
            raise ApprovalBlocked(name, verdict.reason or '')
        if verdict.is_pre_approved:
            record_approval_policy(name, ctx.tool_call_id, 'pre-approved')
        if verdict.is_pre_approved or ctx.tool_call_approved:
            return await super().call_tool(name, tool_args, ctx, tool)
        raise ApprovalRequired(metadata=await self._metadata(name, tool_args, ctx, verdict))

    async def check(self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT]) -> ApprovalResult:
        """The policy's verdict on one call: the wrapped toolset's `needs_approval` if it has one, else the config."""
        if isinstance(self.wrapped, SupportsNeedsApproval):
            verdict = self.wrapped.needs_approval(name, tool_args, ctx, self.config)
            return await verdict if inspect.isawaitable(verdict) else verdict
        return needs_approval_from_config(name, self.config)

    async def describe(self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT]) -> str:
        """The call in words: the wrapped toolset's `get_approval_description` if it has one."""
        if isinstance(self.wrapped, SupportsApprovalDescription):
            description = self.wrapped.get_approval_description(name, tool_args, ctx)
            return await description if inspect.isawaitable(description) else description
        return default_description(name, tool_args)

    async def _metadata(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], verdict: ApprovalResult
    ) -> dict[str, Any]:
        metadata: dict[str, Any] = {
            'approval_policy': verdict.status,
            'approval_description': await self.describe(name, tool_args, ctx),
        }
        # Keys without a value are left out, so the approver can tell "unknown" from an empty string.
        optional = {'approval_reason': verdict.reason, 'toolset_id': self.toolset_id or self.wrapped.id}
        optional['worker'] = self.worker
        metadata.update({key: value for key, value in optional.items() if value is not None})
        return metadata
