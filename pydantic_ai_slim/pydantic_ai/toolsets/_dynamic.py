"""`DynamicToolset`: a toolset made by a function of the run context, remade at each step."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any, Self, TypeAlias, cast

from .._run_context import AgentDepsT, RunContext
from .abstract import AbstractToolset, ToolsetTool

__all__ = ('DynamicToolset', 'ToolsetFunc')

ToolsetFunc: TypeAlias = Callable[
    [RunContext[AgentDepsT]],
    AbstractToolset[AgentDepsT] | None | Awaitable[AbstractToolset[AgentDepsT] | None],
]
"""A sync or async function that makes the toolset for a run step, or returns `None` for no tools."""


class DynamicToolset(AbstractToolset[AgentDepsT]):
    """A toolset made by `toolset_func` when tools are first listed, and remade at each run step if asked.

    The toolset it makes is entered when made and left when replaced or when this toolset exits.
    """

    toolset_func: ToolsetFunc[AgentDepsT]
    """Makes the toolset from the run context."""
    per_run_step: bool
    """Whether to remake the toolset at every run step, rather than once per run."""

    def __init__(self, toolset_func: ToolsetFunc[AgentDepsT], *, per_run_step: bool = True, id: str | None = None):
        """Wrap a toolset function.

        Args:
            toolset_func: Makes the toolset from the run context.
            per_run_step: Whether to remake the toolset at every run step.
            id: An id for the toolset, unique among the agent's toolsets.
        """
        self.toolset_func = toolset_func
        self.per_run_step = per_run_step
        self._id = id
        self._toolset: AbstractToolset[AgentDepsT] | None = None
        self._run_step: int | None = None

    @property
    def id(self) -> str | None:
        """The id given to the constructor."""
        return self._id

    def __eq__(self, other: object) -> bool:
        # Two of them are equal when they would make the same toolsets, whatever they have made so far.
        if not isinstance(other, DynamicToolset):
            return False
        other_dynamic = cast('DynamicToolset[Any]', other)
        return (
            self.toolset_func == other_dynamic.toolset_func
            and self.per_run_step == other_dynamic.per_run_step
            and self._id == other_dynamic._id
        )

    __hash__ = None  # pyright: ignore[reportAssignmentType] -- mutable and compared by value, like a dataclass

    def copy(self) -> DynamicToolset[AgentDepsT]:
        """A fresh toolset with the same function and settings that has not made a toolset yet."""
        return DynamicToolset(self.toolset_func, per_run_step=self.per_run_step, id=self._id)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        try:
            if self._toolset is None:
                return None
            return await self._toolset.__aexit__(*args)
        finally:
            self._toolset = None
            self._run_step = None

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The tools of the made toolset, making it first if there is none yet or the step changed."""
        if self._toolset is None or (self.per_run_step and ctx.run_step != self._run_step):
            await self._replace_toolset(ctx)
        if self._toolset is None:
            return {}
        return await self._toolset.get_tools(ctx)

    async def _replace_toolset(self, ctx: RunContext[AgentDepsT]) -> None:
        if self._toolset is not None:
            await self._toolset.__aexit__()
        made = self.toolset_func(ctx)
        toolset = await made if inspect.isawaitable(made) else made
        if toolset is not None:
            await toolset.__aenter__()
        self._toolset = toolset
        self._run_step = ctx.run_step

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Call the tool on the made toolset; tools must have been listed first."""
        assert self._toolset is not None
        return await self._toolset.call_tool(name, tool_args, ctx, tool)

    def apply(self, visitor: Callable[[AbstractToolset[AgentDepsT]], None]) -> None:
        """Visit the made toolset's leaves, or this toolset if none is made yet."""
        if self._toolset is None:
            super().apply(visitor)
        else:
            self._toolset.apply(visitor)

    def visit_and_replace(
        self, visitor: Callable[[AbstractToolset[AgentDepsT]], AbstractToolset[AgentDepsT]]
    ) -> AbstractToolset[AgentDepsT]:
        """Replace this toolset if none is made yet, else a copy holding the made toolset with leaves replaced."""
        if self._toolset is None:
            return super().visit_and_replace(visitor)
        replaced = self.copy()
        replaced._toolset = self._toolset.visit_and_replace(visitor)
        replaced._run_step = self._run_step
        return replaced
