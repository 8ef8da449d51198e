"""`WrapperToolset`: a toolset that hands everything to another toolset, for subclasses to change one part."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Self

from .._run_context import AgentDepsT, RunContext
from .abstract import AbstractToolset, ToolsetTool

__all__ = ('WrapperToolset',)


@dataclass
class WrapperToolset(AbstractToolset[AgentDepsT]):
    """A toolset that delegates listing, calling, entering and visiting to the toolset it wraps.

    On its own it changes nothing; subclasses override `get_tools` or `call_tool` to change what the model sees
    or how calls run, and inherit the rest.
    """

    wrapped: AbstractToolset[AgentDepsT]
    """The toolset being wrapped."""

    @property
    def id(self) -> str | None:
        """Wrappers have no id of their own."""
        return None

    @property
    def label(self) -> str:
        """The wrapper's class name around the wrapped toolset's label."""
        return f'{self.__class__.__name__}({self.wrapped.label})'

    async def __aenter__(self) -> Self:
        await self.wrapped.__aenter__()
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        return await self.wrapped.__aexit__(*args)

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The wrapped toolset's tools."""
        return await self.wrapped.get_tools(ctx)

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Call the tool on the wrapped toolset."""
        return await self.wrapped.call_tool(name, tool_args, ctx, tool)

    def apply(self, visitor: Callable[[AbstractToolset[AgentDepsT]], None]) -> None:
        """Visit the toolsets inside the wrapped one; the wrapper itself is not visited."""
        self.wrapped.apply(visitor)

    def visit_and_replace(
        self, visitor: Callable[[AbstractToolset[AgentDepsT]], AbstractToolset[AgentDepsT]]
    ) -> AbstractToolset[AgentDepsT]:
        """A copy of this wrapper around the wrapped toolset with its leaves replaced."""
        return replace(self, wrapped=self.wrapped.visit_and_replace(visitor))
