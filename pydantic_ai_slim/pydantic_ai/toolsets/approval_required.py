"""`ApprovalRequiredToolset`: a toolset whose calls may need human approval first."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._run_context import AgentDepsT, RunContext
from ..exceptions import ApprovalRequired
from ..tools import ToolDefinition
from .abstract import ToolsetTool
from .wrapper import WrapperToolset

__all__ = ('ApprovalRequiredToolset',)


@dataclass
class ApprovalRequiredToolset(WrapperToolset[AgentDepsT]):
    """A toolset that asks for approval before a call when `approval_required_func` says so.

    The call is deferred with `ApprovalRequired` unless it has already been approved (`ctx.tool_call_approved`),
    so it ends up in `DeferredToolRequests.approvals` or is given to the deferred tool handler.
    """

    approval_required_func: Callable[[RunContext[AgentDepsT], ToolDefinition, dict[str, Any]], bool] = (
        lambda ctx, tool_def, tool_args: True
    )
    """Given the run context, the tool's definition and the validated arguments, whether the call needs
    approval. By default every call does."""

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Call the tool on the wrapped toolset, or raise `ApprovalRequired` if it needs approval first.

        Raises:
            ApprovalRequired: If the call is not approved yet and `approval_required_func` returns true.
        """
        # An approved call skips the predicate, so it is not asked about a call it has already let through.
        if not ctx.tool_call_approved and self.approval_required_func(ctx, tool.tool_def, tool_args):
            raise ApprovalRequired
        return await super().call_tool(name, tool_args, ctx, tool)
