"""`PrefixedToolset`: a toolset whose tool names all start with a prefix."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .._run_context import AgentDepsT, RunContext
from .abstract import ToolsetTool
from .wrapper import WrapperToolset

__all__ = ('PrefixedToolset',)


@dataclass
class PrefixedToolset(WrapperToolset[AgentDepsT]):
    """A toolset offering the wrapped toolset's tools as `'{prefix}_{name}'`.

    Useful to combine toolsets whose tool names clash. The wrapped toolset is still called with the
    original names.
    """

    prefix: str
    """Put before each tool name, joined with an underscore."""

    @property
    def tool_name_conflict_hint(self) -> str:
        """Advice to pick another prefix."""
        return 'Change the `prefix` attribute to avoid name conflicts.'

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The wrapped toolset's tools under their prefixed names."""
        tools: dict[str, ToolsetTool[AgentDepsT]] = {}
        for name, tool in (await super().get_tools(ctx)).items():
            new_name = f'{self.prefix}_{name}'
            tools[new_name] = replace(tool, toolset=self, tool_def=replace(tool.tool_def, name=new_name))
        return tools

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Call the tool on the wrapped toolset by its original name (also in `ctx.tool_name`)."""
        original_name = name.removeprefix(f'{self.prefix}_')
        ctx = replace(ctx, tool_name=original_name)
        tool = replace(tool, tool_def=replace(tool.tool_def, name=original_name))
        return await super().call_tool(original_name, tool_args, ctx, tool)
