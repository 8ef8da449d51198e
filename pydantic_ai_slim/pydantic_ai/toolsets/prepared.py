"""`PreparedToolset`: a toolset whose tool definitions pass through a function at every step."""

from __future__ import annotations

from dataclasses import dataclass, replace

from .._run_context import AgentDepsT, RunContext
from ..exceptions import UserError
from ..tools import ToolsPrepareFunc
from .abstract import ToolsetTool
from .wrapper import WrapperToolset

__all__ = ('PreparedToolset',)


@dataclass
class PreparedToolset(WrapperToolset[AgentDepsT]):
    """A toolset whose tool definitions `prepare_func` may change, reorder or drop at every step.

    The function may not add tools or change their names: use `RenamedToolset` to rename.
    """

    prepare_func: ToolsPrepareFunc[AgentDepsT]
    """Given the run context and the definitions, returns the definitions to offer (or `None` for none)."""

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The wrapped toolset's tools with the definitions `prepare_func` returned, in its order.

        Raises:
            UserError: If `prepare_func` returned a definition whose name is not one of the wrapped tools.
        """
        original_tools = await super().get_tools(ctx)
        prepared_defs = await self.prepare_func(ctx, [tool.tool_def for tool in original_tools.values()]) or []
        defs_by_name = {tool_def.name: tool_def for tool_def in prepared_defs}
        if defs_by_name.keys() - original_tools.keys():
            raise UserError(
                'Prepare function cannot add or rename tools. '
                'Use `FunctionToolset.add_function()` or `RenamedToolset` instead.'
            )
        return {name: replace(original_tools[name], tool_def=tool_def) for name, tool_def in defs_by_name.items()}
