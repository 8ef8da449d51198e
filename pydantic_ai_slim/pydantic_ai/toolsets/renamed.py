"""`RenamedToolset`: a toolset with some of its tools renamed."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .._run_context import AgentDepsT, RunContext
from .abstract import ToolsetTool
from .wrapper import WrapperToolset

__all__ = ('RenamedToolset',)


@dataclass
class RenamedToolset(WrapperToolset[AgentDepsT]):
    """A toolset offering the wrapped toolset's tools with the names in `name_map` changed.

    Tools not in the map keep their names. The wrapped toolset is still called with the original names.
    """

    name_map: dict[str, str]
    """New tool name to original tool name."""

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The wrapped toolset's tools, under their new names where the map gives one."""
        new_names = {original: new for new, original in self.name_map.items()}
        tools: dict[str, ToolsetTool[AgentDepsT]] = {}
        for name, tool in (await super().get_tools(ctx)).items():
            if new_name := new_names.get(name):
                tools[new_name] = replace(tool, toolset=self, tool_def=replace(tool.tool_def, name=new_name))
            else:
                tools[name] = tool
        return tools

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Call the tool on the wrapped toolset by its original name (also in `ctx.tool_name`)."""
        original_name = self.name_map.get(name, name)
        ctx = replace(ctx, tool_name=original_name)
        tool = replace(tool, tool_def=replace(tool.tool_def, name=original_name))
        return await super().call_tool(original_name, tool_args, ctx, tool)
