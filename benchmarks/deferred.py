"""Measure the resumed run of a response whose 20 calls were all approved, each call sleeping 50 ms.

The calls run concurrently, so the resumed run should take about one call's time (~50 ms), not twenty
(~1 s). Both kinds of tool are measured: async functions (awaited on the event loop) and sync functions
(run in worker threads). Only the resumed run is timed: the first run, which ends with the approvals, is
set-up. Timings are printed, never asserted.
"""

from __future__ import annotations

import asyncio
import statistics
import time

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

__all__ = ('resumed_20_approved_ms',)

CALLS = 20
SLEEP_SECONDS = 0.05


def _make_agent(sync_tool: bool) -> Agent[None, str | DeferredToolRequests]:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        # Reporting usage skips the token estimate over the history, which is the fake model's cost.
        usage = RequestUsage(input_tokens=1, output_tokens=1)
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart('slow', {'n': n}, f'call_{n}') for n in range(CALLS)], usage=usage)
        return ModelResponse(parts=[TextPart('done')], usage=usage)

    agent = Agent(FunctionModel(respond), output_type=[str, DeferredToolRequests])
    if sync_tool:

        def slow(n: int) -> int:
            time.sleep(SLEEP_SECONDS)
            return n

        agent.tool_plain(requires_approval=True)(slow)
    else:

        async def slow_async(n: int) -> int:
            await asyncio.sleep(SLEEP_SECONDS)
            return n

        agent.tool_plain(requires_approval=True, name='slow')(slow_async)
    return agent


def resumed_20_approved_ms(sync_tool: bool = False, samples: int = 5) -> float:
    """Median wall time in ms of resuming a run with 20 approved calls that each sleep 50 ms.

    Args:
        sync_tool: Measure a sync tool (`time.sleep` in worker threads) instead of an async one.
        samples: How many resumed runs to time.
    """
    agent = _make_agent(sync_tool)
    first = agent.run_sync('go')
    assert isinstance(first.output, DeferredToolRequests)
    history = first.all_messages()
    results = DeferredToolResults(approvals={call.tool_call_id: True for call in first.output.approvals})
    times: list[float] = []
    for _ in range(samples):
        start = time.perf_counter()
        resumed = agent.run_sync(message_history=history, deferred_tool_results=results)
        times.append((time.perf_counter() - start) * 1e3)
        assert resumed.output == 'done' and resumed.usage().tool_calls == CALLS
    return statistics.median(times)


def main() -> None:
    print(f'resumed run, {CALLS} approved calls sleeping {SLEEP_SECONDS * 1e3:.0f} ms each (median of 5):')
    print(f'  async tool: {resumed_20_approved_ms():6.1f} ms (one after another: {CALLS * SLEEP_SECONDS * 1e3:.0f} ms)')
    print(f'  sync tool:  {resumed_20_approved_ms(sync_tool=True):6.1f} ms (in worker threads)')


if __name__ == '__main__':
    main()
