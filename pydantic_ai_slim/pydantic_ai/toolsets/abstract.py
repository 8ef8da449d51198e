"""`AbstractToolset`: a source of tools the agent can list and call."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, Self

from pydantic_core import SchemaValidator

from .._run_context import AgentDepsT, RunContext
from ..tools import ToolDefinition, ToolsPrepareFunc

if TYPE_CHECKING:
    from .approval_required import ApprovalRequiredToolset
    from .filtered import FilteredToolset
    from .prefixed import PrefixedToolset
    from .prepared import PreparedToolset
    from .renamed import RenamedToolset

__all__ = ('AbstractToolset', 'SchemaValidatorProt', 'ToolsetTool')


class SchemaValidatorProt(Protocol):
    """What the agent needs of an argument validator: pydantic-core's `SchemaValidator` fits."""

    def validate_json(self, input: str | bytes, *, allow_partial: bool | str = False, **kwargs: Any) -> Any:
        """Validate JSON text."""
        ...

    def validate_python(self, input: Any, *, allow_partial: bool | str = False, **kwargs: Any) -> Any:
        """Validate a Python object."""
        ...


@dataclass(kw_only=True)
class ToolsetTool(Generic[AgentDepsT]):
    """A tool as a toolset offers it for one step: its definition, retries and argument validator."""

    toolset: AbstractToolset[AgentDepsT]
    """The toolset that offers the tool (and calls it)."""
    tool_def: ToolDefinition
    """The definition sent to the model."""
    max_retries: int
    """How many retries the tool is allowed."""
    args_validator: SchemaValidator | SchemaValidatorProt
    """Validates the model's arguments into the dict passed to `call_tool`."""


def _always_true(ctx: RunContext[Any], tool_def: ToolDefinition, tool_args: dict[str, Any]) -> bool:
    return True


class AbstractToolset(ABC, Generic[AgentDepsT]):
    """A collection of tools: lists them for each step and calls them.

    Toolsets are entered (`async with`) for the duration of a run, so they can hold resources.
    """

    @property
    def id(self) -> str | None:
        """An id that is unique among the agent's toolsets, for toolsets that need one."""
        return None

    @property
    def label(self) -> str:
        """A name for the toolset in error messages."""
        label = self.__class__.__name__
        if self.id:  # pragma: no branch
            label += f' {self.id!r}'
        return label

    @property
    def tool_name_conflict_hint(self) -> str:
        """How to resolve a name conflict with a tool of another toolset."""
        return 'Rename the tool or wrap the toolset in a `PrefixedToolset` to avoid name conflicts.'

    async def __aenter__(self) -> Self:
        """Enter the toolset, e.g. to open a connection; the agent does this for each run."""
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        """Leave the toolset."""
        return None

    @abstractmethod
    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The tools available in this step, by name."""
        raise NotImplementedError

    @abstractmethod
    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Call a tool with validated arguments and return its result."""
        raise NotImplementedError

    def apply(self, visitor: Callable[[AbstractToolset[AgentDepsT]], None]) -> None:
        """Call `visitor` on this toolset and every toolset it wraps or combines."""
        visitor(self)

    def visit_and_replace(
        self, visitor: Callable[[AbstractToolset[AgentDepsT]], AbstractToolset[AgentDepsT]]
    ) -> AbstractToolset[AgentDepsT]:
        """Rebuild the toolset tree with each leaf replaced by `visitor(leaf)`."""
        return visitor(self)

    def filtered(
        self, filter_func: Callable[[RunContext[AgentDepsT], ToolDefinition], bool]
    ) -> FilteredToolset[AgentDepsT]:
        """This toolset, offering only the tools for which `filter_func` returns true."""
        from .filtered import FilteredToolset

        return FilteredToolset(self, filter_func)

    def prefixed(self, prefix: str) -> PrefixedToolset[AgentDepsT]:
        """This toolset, with every tool name prefixed by `'{prefix}_'`."""
        from .prefixed import PrefixedToolset

        return PrefixedToolset(self, prefix)

    def prepared(self, prepare_func: ToolsPrepareFunc[AgentDepsT]) -> PreparedToolset[AgentDepsT]:
        """This toolset, with its tool definitions passed through `prepare_func` each step."""
        from .prepared import PreparedToolset

        return PreparedToolset(self, prepare_func)

    def renamed(self, name_map: dict[str, str]) -> RenamedToolset[AgentDepsT]:
        """This toolset, with tools renamed by `name_map` (new name to original name)."""
        from .renamed import RenamedToolset

        return RenamedToolset(self, name_map)

    def approval_required(
        self,
        approval_required_func: Callable[[RunContext[AgentDepsT], ToolDefinition, dict[str, Any]], bool] = _always_true,
    ) -> ApprovalRequiredToolset[AgentDepsT]:
        """This toolset, asking for approval before calls for which the predicate returns true."""
        from .approval_required import ApprovalRequiredToolset

        return ApprovalRequiredToolset(self, approval_required_func)
