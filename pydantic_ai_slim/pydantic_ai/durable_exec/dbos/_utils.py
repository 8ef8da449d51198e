"""Step options and the parallel execution mode, shared by the DBOS wrappers."""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from typing_extensions import TypedDict

__all__ = ('DBOSParallelExecutionMode', 'StepConfig', 'step_options')

DBOSParallelExecutionMode: TypeAlias = Literal['sequential', 'parallel_ordered_events']
"""How a response's tool calls run in a workflow: one after another, or concurrently (steps are numbered in the
order the calls start, which is the order of the response's calls)."""


class StepConfig(TypedDict, total=False):
    """Retry options of a DBOS step (`DBOS.step`'s keywords of the same names)."""

    retries_allowed: bool
    """Whether a step that raised is tried again."""
    interval_seconds: float
    """The wait before the first retry."""
    max_attempts: int
    """The most attempts, the first included."""
    backoff_rate: float
    """The factor the wait grows by after each retry."""


def step_options(config: StepConfig | None) -> dict[str, Any]:
    """The keywords for `DBOS.step` from a `StepConfig` (none given means DBOS's defaults)."""
    return dict(config or {})
