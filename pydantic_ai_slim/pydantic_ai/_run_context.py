"""`RunContext`: what tools, prompts and validators are told about the run they are part of."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import field
from functools import cache
from typing import TYPE_CHECKING, Any, Generic, cast

from typing_extensions import TypeVar

from . import _utils
from .usage import RunUsage

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer

    # Only annotations: importing `messages` here would close an import cycle (messages -> tools ->
    # _function_schema -> _run_context) that then depends on which module happens to be imported first.
    from .messages import ModelMessage, UserContent
    from .models import Model
    from .tools import DeferredToolResults

__all__ = ('AgentDepsT', 'RunContext')

AgentDepsT = TypeVar('AgentDepsT', default=None, contravariant=True)
"""The type of the dependencies an agent's functions receive."""


def _no_messages() -> list[ModelMessage]:
    return []


@cache
def _no_op_tracer() -> Tracer:
    # One shared no-op tracer: a run context is made per step and per tool call, and the tracer holds no state.
    # Imported on first use, so that `import pydantic_ai` does not load OpenTelemetry; it is optional.
    try:
        from opentelemetry.trace import NoOpTracer
    except ImportError:  # pragma: no cover - only without opentelemetry-api installed
        return cast('Tracer', None)
    return NoOpTracer()


@dataclasses.dataclass(repr=False, kw_only=True)
class RunContext(Generic[AgentDepsT]):
    """Information about the current run, passed to tools, prompts, validators and handlers."""

    deps: AgentDepsT
    """The dependencies of the run."""
    model: Model
    """The model used in the run."""
    usage: RunUsage
    """What the run has used so far."""
    prompt: str | Sequence[UserContent] | None = None
    """The user prompt of the run."""
    messages: list[ModelMessage] = field(default_factory=_no_messages)
    """The messages of the run so far."""
    validation_context: Any = None
    """The pydantic validation context for tool arguments and outputs."""
    tracer: Tracer = field(default_factory=_no_op_tracer)
    """The OpenTelemetry tracer of the run; a no-op tracer unless the run is instrumented."""
    trace_include_content: bool = False
    """Whether an instrumented run records content (prompts, arguments, results) in its spans."""
    instrumentation_version: int = 2
    """The instrumentation version of an instrumented run."""
    retries: dict[str, int] = field(default_factory=dict[str, int])
    """How many times each tool has been retried in this run."""
    tool_call_id: str | None = None
    """The id of the current tool call, inside a tool."""
    tool_name: str | None = None
    """The name of the current tool, inside a tool."""
    retry: int = 0
    """How many times the current tool or output has been retried."""
    max_retries: int = 0
    """How many retries the current tool or output is allowed."""
    run_step: int = 0
    """The number of the current step (model request) of the run."""
    tool_call_approved: bool = False
    """Whether the current tool call was approved (through deferred tool results or a handler)."""
    tool_call_metadata: Any = None
    """Metadata for the current tool call from `DeferredToolResults.metadata`, if any."""
    partial_output: bool = False
    """Whether the output being validated is a partial one from a stream."""
    run_id: str | None = None
    """The id of the run."""
    metadata: dict[str, Any] | None = None
    """Metadata given to the run."""
    tool_call_context: Any = None
    """The opaque state the current tool call saved with `ApprovalRequired(context=...)` or
    `CallDeferred(context=...)`, as given back in `DeferredToolResults.context`; `None` otherwise."""
    deferred_tool_results: DeferredToolResults | None = None
    """When a tool that raised `CallDeferred(deferred_tool_requests=...)` is called again: the answers to its
    nested calls, under the ids it gave them. `None` otherwise."""

    @property
    def last_attempt(self) -> bool:
        """Whether this is the last attempt before retries run out."""
        return self.retry == self.max_retries

    __repr__ = _utils.dataclasses_no_defaults_repr


_FIELD_NAMES = frozenset(f.name for f in dataclasses.fields(RunContext))


def evolve(ctx: RunContext[AgentDepsT], **changes: Any) -> RunContext[AgentDepsT]:
    """A copy of `ctx` with `changes`, as `dataclasses.replace` makes but without calling `__init__` again.

    A run context is copied for every step, tool listing and tool call; going through `__init__` field by field
    made that copy a noticeable part of a short step.
    """
    assert changes.keys() <= _FIELD_NAMES, f'not fields of RunContext: {sorted(changes.keys() - _FIELD_NAMES)}'
    copy = object.__new__(type(ctx))
    copy.__dict__.update(ctx.__dict__, **changes)
    return copy
