"""`FilteredToolset`: a toolset offering only the tools a function lets through."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .._run_context import AgentDepsT, RunContext
from ..tools import ToolDefinition
from .abstract import ToolsetTool
from .wrapper import WrapperToolset

__all__ = ('FilteredToolset',)


@dataclass
class FilteredToolset(WrapperToolset[AgentDepsT]):
    """A toolset offering only the wrapped toolset's tools for which `filter_func` returns true.

    The filter runs at every step, so it can decide by the run context (its deps, the step number, ...).
    """

    filter_func: Callable[[RunContext[AgentDepsT], ToolDefinition], bool]
    """Decides, for the run context and a tool's definition, whether the model is offered the tool."""

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The wrapped toolset's tools that pass the filter."""
        tools = await super().get_tools(ctx)
        return {name: tool for name, tool in tools.items() if self.filter_func(ctx, tool.tool_def)}
