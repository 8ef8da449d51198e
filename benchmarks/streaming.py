"""Measure the cost per text delta of streaming a response through `Agent.run_stream`.

A `FunctionModel` stream function yields short text pieces as fast as it can, and the run is read with
`stream_text(delta=True, debounce_by=None)`, so what is measured is the path of one piece: the parts manager,
the part events, the usage count, the final-result stream and the text delta. The whole run is timed (request,
stream, completion) and divided by the number of pieces. Timings are printed, never asserted.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import AsyncIterator

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, FunctionModel

DELTAS = 2000
DELTA_COUNTS = (200, 2000, 20000)


def make_agent(deltas: int) -> Agent[None, str]:
    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for _ in range(deltas):
            yield 'word '

    return Agent(FunctionModel(stream_function=stream))


async def _stream_once(agent: Agent[None, str]) -> int:
    pieces = 0
    async with agent.run_stream('go') as result:
        async for _ in result.stream_text(delta=True, debounce_by=None):
            pieces += 1
    return pieces


async def _per_delta_us(deltas: int, samples: int) -> float:
    agent = make_agent(deltas)
    await _stream_once(agent)  # warm up
    results: list[float] = []
    for _ in range(samples):
        start = time.perf_counter()
        pieces = await _stream_once(agent)
        results.append((time.perf_counter() - start) / pieces * 1e6)
        assert pieces == deltas
    return statistics.median(results)


def stream_per_delta_us(deltas: int = DELTAS, samples: int = 5) -> float:
    """Median microseconds per text delta, streaming `deltas` pieces through `run_stream` and `stream_text`."""
    return asyncio.run(_per_delta_us(deltas, samples))


def main() -> None:
    print('run_stream + stream_text(delta=True, debounce_by=None), FunctionModel (median of 5 samples):')
    numbers = {deltas: stream_per_delta_us(deltas) for deltas in DELTA_COUNTS}
    for deltas, us in numbers.items():
        print(f'  {deltas:>6} deltas: {us:6.1f} us/delta')
    # A cost per delta that grew with the text so far would show here as a ratio far above 1.
    ratio = numbers[DELTA_COUNTS[-1]] / numbers[DELTA_COUNTS[0]]
    print(f'  ratio {DELTA_COUNTS[-1]} / {DELTA_COUNTS[0]} deltas: {ratio:.2f}x')


if __name__ == '__main__':
    main()
