"""What OpenTelemetry costs the loop when it is off: the loop as it is, against the loop with its tracing hooks cut out.

The hooks the loop calls per step and per tool call (`run_context_fields`, `tools_span`, `call_tool`) each start
with a check for "no instrumentation". Here they are replaced, in-process, by the bare minimum a loop without any
tracing code would do, and the two are timed alternately; the ratio is what being able to trace costs a run that
does not. `python -m benchmarks.otel_off` prints it; nothing is asserted.
"""

from __future__ import annotations

import statistics
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any, TypeVar

from pydantic_ai import _otel

from .__main__ import per_step_us

T = TypeVar('T')

_NO_FIELDS: dict[str, Any] = {}


async def _bare_call_tool(settings: Any, call: Any, run: Awaitable[T]) -> T:
    return await run


@contextmanager
def hooks_cut_out() -> Iterator[None]:
    """Within the block, the loop's tracing hooks do nothing at all, not even their checks."""
    saved = _otel.run_context_fields, _otel.tools_span, _otel.call_tool
    _otel.run_context_fields = lambda settings: _NO_FIELDS
    _otel.tools_span = lambda settings, calls: nullcontext()
    _otel.call_tool = _bare_call_tool
    try:
        yield
    finally:
        _otel.run_context_fields, _otel.tools_span, _otel.call_tool = saved


def off_vs_cut_out(steps: int = 200, rounds: int = 5) -> tuple[float, float]:
    """Median µs per step with instrumentation off, and with the hooks cut out, taken alternately."""
    off: list[float] = []
    cut: list[float] = []
    for _ in range(rounds):
        off.append(per_step_us(steps, samples=3))
        with hooks_cut_out():
            cut.append(per_step_us(steps, samples=3))
    return statistics.median(off), statistics.median(cut)


def main() -> None:
    """Print the two figures and their ratio."""
    off, cut = off_vs_cut_out()
    print('OpenTelemetry off vs tracing hooks cut out (200 steps, median of 5 alternating rounds):')
    print(f'  off: {off:.1f} us/step, cut out: {cut:.1f} us/step, ratio {off / cut:.3f}')


if __name__ == '__main__':
    main()
