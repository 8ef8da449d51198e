"""Measure `deferred_tool_handler`: how long approved calls take to resolve within a run, and what it adds.

- `handler_20_approved_ms`: one run whose response has 20 calls needing approval, each sleeping 50 ms once
  approved. The handler approves them all and they run concurrently, so the whole run should take about one
  call's time (~50 ms), not twenty (~1 s).
- `handler_overhead_us_per_call`: the handler's own cost per deferred call. The same 200 trivial calls are
  run once as plain tools and once as tools that need approval, approved by a handler; the difference in wall
  time divided by 200 is what deferring and resolving a call adds.

The fake model reports its own usage, so no token estimate over the history is made. Timings are printed,
never asserted.
"""

from __future__ import annotations

import asyncio
import statistics
import time

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

__all__ = ('handler_20_approved_ms', 'handler_overhead_us_per_call')

SLOW_CALLS = 20
SLEEP_SECONDS = 0.05
TRIVIAL_CALLS = 200


def _model(calls: int) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        usage = RequestUsage(input_tokens=1, output_tokens=1)
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart('tool', {'n': n}, f'call_{n}') for n in range(calls)], usage=usage)
        return ModelResponse(parts=[TextPart('done')], usage=usage)

    return FunctionModel(respond)


async def _approve_all(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
    return DeferredToolResults(approvals={call.tool_call_id: True for call in requests.approvals})


def _slow_agent() -> Agent[None, str]:
    agent = Agent(_model(SLOW_CALLS), deferred_tool_handler=_approve_all)

    async def slow(n: int) -> int:
        await asyncio.sleep(SLEEP_SECONDS)
        return n

    agent.tool_plain(requires_approval=True, name='tool')(slow)
    return agent


def _trivial_agent(deferred: bool) -> Agent[None, str]:
    agent = Agent(_model(TRIVIAL_CALLS), deferred_tool_handler=_approve_all)

    async def trivial(n: int) -> int:
        return n

    agent.tool_plain(requires_approval=deferred, name='tool')(trivial)
    return agent


def _median_seconds(agent: Agent[None, str], samples: int) -> float:
    agent.run_sync('warm up')
    timings: list[float] = []
    for _ in range(samples):
        start = time.perf_counter()
        agent.run_sync('go')
        timings.append(time.perf_counter() - start)
    return statistics.median(timings)


def handler_20_approved_ms(samples: int = 5) -> float:
    """Median wall time in ms of a run whose 20 approved calls (50 ms each) the handler resolves."""
    return _median_seconds(_slow_agent(), samples) * 1000


def handler_overhead_us_per_call(samples: int = 15) -> float:
    """Median extra wall time in µs per call of deferring and resolving 200 trivial calls with a handler."""
    plain = _median_seconds(_trivial_agent(deferred=False), samples)
    handled = _median_seconds(_trivial_agent(deferred=True), samples)
    return (handled - plain) / TRIVIAL_CALLS * 1_000_000


if __name__ == '__main__':
    print(f'handler, 20 approved calls of 50 ms: {handler_20_approved_ms():.1f} ms')
    print(f'handler overhead per deferred call: {handler_overhead_us_per_call():.1f} µs')
