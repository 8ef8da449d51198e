"""`CombinedToolset`: several toolsets offered to the model as one."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field, replace
from typing import Any, Self

from .._run_context import AgentDepsT, RunContext
from ..exceptions import UserError
from .abstract import AbstractToolset, ToolsetTool

__all__ = ('CombinedToolset',)


@dataclass(kw_only=True)
class _CombinedToolsetTool(ToolsetTool[AgentDepsT]):
    """A tool of a combined toolset, remembering which member offered it so calls go back there."""

    source_toolset: AbstractToolset[AgentDepsT]
    """The member toolset the tool came from."""
    source_tool: ToolsetTool[AgentDepsT]
    """The tool as that member offered it."""


@dataclass
class CombinedToolset(AbstractToolset[AgentDepsT]):
    """Several toolsets offered as one; tool names must be unique across them.

    Entering it enters every member; it may be entered again while entered (e.g. by concurrent runs of one
    agent), and the members are only left when the last of those exits.
    """

    toolsets: Sequence[AbstractToolset[AgentDepsT]]
    """The member toolsets, in the order their tools are listed."""

    # The lock makes concurrent enters and exits agree on the count; it is left out of equality because two
    # locks are never equal.
    _enter_lock: asyncio.Lock = field(compare=False, init=False, default_factory=asyncio.Lock)
    _entered_count: int = field(init=False, default=0)
    _exit_stack: AsyncExitStack | None = field(init=False, default=None)

    @property
    def id(self) -> str | None:
        """A combination has no id of its own."""
        return None

    @property
    def label(self) -> str:
        """The class name around the labels of the members."""
        return f'{self.__class__.__name__}({", ".join(toolset.label for toolset in self.toolsets)})'

    async def __aenter__(self) -> Self:
        async with self._enter_lock:
            if self._entered_count == 0:
                # If a member fails to enter, the stack leaves the members entered before it.
                async with AsyncExitStack() as exit_stack:
                    for toolset in self.toolsets:
                        await exit_stack.enter_async_context(toolset)
                    self._exit_stack = exit_stack.pop_all()
            self._entered_count += 1
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        async with self._enter_lock:
            self._entered_count -= 1
            if self._entered_count == 0:
                # The count only rises from zero by entering the members, which sets the stack.
                exit_stack, self._exit_stack = self._exit_stack, None
                assert exit_stack is not None
                await exit_stack.aclose()
        return None

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The tools of all members.

        Raises:
            UserError: If two members offer tools with the same name.
        """
        if len(self.toolsets) == 1:
            # The usual case (an agent's own tools): no task to gather, no trip round the event loop.
            members_tools = [await self.toolsets[0].get_tools(ctx)]
        else:
            members_tools = await asyncio.gather(*(toolset.get_tools(ctx) for toolset in self.toolsets))
        all_tools: dict[str, ToolsetTool[AgentDepsT]] = {}
        for toolset, tools in zip(self.toolsets, members_tools, strict=True):
            for name, tool in tools.items():
                if (existing := all_tools.get(name)) is not None:
                    label = tool.toolset.label
                    raise UserError(
                        f'{label[:1].upper()}{label[1:]} defines a tool whose name conflicts with existing tool from '
                        f'{existing.toolset.label}: {name!r}. {toolset.tool_name_conflict_hint}'
                    )
                all_tools[name] = _CombinedToolsetTool(
                    toolset=tool.toolset,
                    tool_def=tool.tool_def,
                    max_retries=tool.max_retries,
                    args_validator=tool.args_validator,
                    source_toolset=toolset,
                    source_tool=tool,
                )
        return all_tools

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Call the tool on the member that offered it; `tool` must come from this toolset's `get_tools`."""
        assert isinstance(tool, _CombinedToolsetTool)
        return await tool.source_toolset.call_tool(name, tool_args, ctx, tool.source_tool)

    def apply(self, visitor: Callable[[AbstractToolset[AgentDepsT]], None]) -> None:
        """Visit the toolsets inside every member; the combination itself is not visited."""
        for toolset in self.toolsets:
            toolset.apply(visitor)

    def visit_and_replace(
        self, visitor: Callable[[AbstractToolset[AgentDepsT]], AbstractToolset[AgentDepsT]]
    ) -> AbstractToolset[AgentDepsT]:
        """A new combination of the members with their leaves replaced."""
        return replace(self, toolsets=[toolset.visit_and_replace(visitor) for toolset in self.toolsets])
