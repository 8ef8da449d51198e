"""`DBOSMCPServer`: an MCP server whose tool listings and tool calls are DBOS steps.

A recovered workflow takes the listings and the results of completed calls from the database instead of asking
the server again, so a tool call that completed before a crash is not sent twice. Control-flow signals a call
raises (`ModelRetry` for a call the server reports as failed, `ApprovalRequired`, `CallDeferred`) are recorded
as what the step returned, so they are not retried and are raised again, the same, on replay.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeGuard

from dbos import DBOS

from ..._run_context import AgentDepsT, RunContext
from ...exceptions import ApprovalRequired, CallDeferred, ModelRetry
from ...tools import ToolDefinition
from ...toolsets.abstract import AbstractToolset, ToolsetTool
from ...toolsets.wrapper import WrapperToolset
from ._utils import StepConfig, step_options

if TYPE_CHECKING:
    # Imported only to type: the `dbos` extra does not need the `mcp` one.
    from ...mcp import MCPServer

__all__ = ('DBOSMCPServer', 'is_mcp_server')


def is_mcp_server(toolset: AbstractToolset[Any]) -> TypeGuard[MCPServer]:
    """Whether `toolset` is an MCP server (never, if the `mcp` extra is not installed)."""
    try:
        from ...mcp import MCPServer
    except ImportError:  # pragma: no cover
        return False
    return isinstance(toolset, MCPServer)


@dataclass
class _Raised:
    """A control-flow signal the call raised, as the step's recorded outcome."""

    signal: ModelRetry | ApprovalRequired | CallDeferred


@dataclass(init=False)
class DBOSMCPServer(WrapperToolset[AgentDepsT]):
    """Wraps an MCP server so that listing its tools and calling one are DBOS steps.

    The steps are named `'{step_name_prefix}__mcp_server__{id}.get_tools'` and `'...call_tool'` (without
    `'__{id}'` for a server without an `id`). Outside a workflow the steps are plain calls. `DBOSAgent` wraps
    the agent's MCP servers in these itself, with its `mcp_step_config`.
    """

    def __init__(self, wrapped: MCPServer, *, step_name_prefix: str, step_config: StepConfig):
        """Wrap `wrapped`; `step_name_prefix` is the agent's name, `step_config` sets the steps' retries."""
        super().__init__(wrapped)
        self._server = wrapped
        server_id = f'__{wrapped.id}' if wrapped.id else ''
        prefix = f'{step_name_prefix}__mcp_server{server_id}'
        options = step_options(step_config)

        @DBOS.step(name=f'{prefix}.get_tools', **options)
        async def get_tools_step(ctx: RunContext[Any]) -> dict[str, ToolDefinition]:
            return {tool_name: tool.tool_def for tool_name, tool in (await self.wrapped.get_tools(ctx)).items()}

        @DBOS.step(name=f'{prefix}.call_tool', **options)
        async def call_tool_step(
            name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
        ) -> Any:
            try:
                return await self.wrapped.call_tool(name, tool_args, ctx, tool)
            except (ModelRetry, ApprovalRequired, CallDeferred) as e:
                return _Raised(e)

        self._get_tools_step: Callable[[RunContext[Any]], Awaitable[dict[str, ToolDefinition]]] = get_tools_step
        self._call_tool_step: Callable[[str, dict[str, Any], RunContext[Any], ToolsetTool[Any]], Awaitable[Any]] = (
            call_tool_step
        )

    @property
    def id(self) -> str | None:
        """The wrapped server's id."""
        return self._server.id

    def visit_and_replace(
        self, visitor: Callable[[AbstractToolset[AgentDepsT]], AbstractToolset[AgentDepsT]]
    ) -> AbstractToolset[AgentDepsT]:
        """The visitor's replacement of this wrapper, a leaf: its steps stay bound to the server it wraps."""
        return visitor(self)

    def tool_for_tool_def(self, tool_def: ToolDefinition) -> ToolsetTool[AgentDepsT]:
        """The toolset tool for a definition the listing step returned, with the server's retries."""
        tool = self._server.tool_for_tool_def(tool_def)
        return ToolsetTool[AgentDepsT](
            toolset=self, tool_def=tool.tool_def, max_retries=tool.max_retries, args_validator=tool.args_validator
        )

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """List the server's tools in a step (outside a workflow: list them)."""
        tool_defs = await self._get_tools_step(ctx)
        return {name: self.tool_for_tool_def(tool_def) for name, tool_def in tool_defs.items()}

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Call the tool in a step (outside a workflow: call it)."""
        outcome = await self._call_tool_step(name, tool_args, ctx, tool)
        if isinstance(outcome, _Raised):
            raise outcome.signal
        return outcome
