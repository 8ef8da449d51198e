"""Results of runs: the final result marker of the graph, and (with streaming) streamed run results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic

from typing_extensions import TypeVar

from . import _utils

__all__ = ('FinalResult',)

OutputDataT = TypeVar('OutputDataT', default=str, covariant=True)


@dataclass(repr=False)
class FinalResult(Generic[OutputDataT]):
    """The output of a run, and the output tool call that gave it, if any."""

    output: OutputDataT
    """The output."""
    tool_name: str | None = None
    """The name of the output tool that gave the output, if any."""
    tool_call_id: str | None = None
    """The id of that tool call, if any."""

    __repr__ = _utils.dataclasses_no_defaults_repr
