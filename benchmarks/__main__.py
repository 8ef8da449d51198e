"""Measure the loop's own cost per step, and the cold import time of `pydantic_ai`.

Each step is one model request answered by a `FunctionModel` that calls a trivial tool, so what is measured
is the agent's own work: building the request, the graph nodes, argument validation, the tool call and the
history bookkeeping. The model function reports its own usage, so no token estimate over the history is
made (that estimate is the fake model's cost, not the loop's). Timings are printed, never asserted.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from . import compare, deferred, handler, import_parts, mcp, otel_off, reliability, streaming

STEP_COUNTS = (20, 200, 2000)
TOTAL_STEPS_PER_SAMPLE = 2000


def make_agent(steps: int) -> Agent[None, str]:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        # Count requests by the number of responses so far (the history grows by two messages per step).
        done = (len(messages) - 1) // 2
        usage = RequestUsage(input_tokens=1, output_tokens=1)
        if done + 1 >= steps:
            return ModelResponse(parts=[TextPart('done')], usage=usage)
        return ModelResponse(parts=[ToolCallPart('step', {'n': done}, f'call_{done}')], usage=usage)

    agent = Agent(FunctionModel(respond))

    @agent.tool_plain
    def step(n: int) -> int:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        return n + 1

    return agent


def per_step_us(steps: int, samples: int = 5) -> float:
    agent = make_agent(steps)
    limits = UsageLimits(request_limit=None)
    runs = max(1, TOTAL_STEPS_PER_SAMPLE // steps)
    agent.run_sync('go', usage_limits=limits)  # warm up
    results: list[float] = []
    for _ in range(samples):
        start = time.perf_counter()
        for _ in range(runs):
            result = agent.run_sync('go', usage_limits=limits)
            assert result.usage().requests == steps
        results.append((time.perf_counter() - start) / (runs * steps) * 1e6)
    return statistics.median(results)


def cold_import_ms(samples: int = 7) -> tuple[float, float]:
    def timed(code: str) -> float:
        best = float('inf')
        for _ in range(samples):
            start = time.perf_counter()
            subprocess.run([sys.executable, '-c', code], check=True)
            best = min(best, time.perf_counter() - start)
        return best * 1e3

    return timed('import pydantic_ai'), timed('pass')


def main() -> None:
    print('agent loop, FunctionModel + trivial tool (median of 5 samples):')
    numbers = {steps: per_step_us(steps) for steps in STEP_COUNTS}
    for steps, us in numbers.items():
        print(f'  {steps:>5} steps: {us:8.1f} us/step')
    ratio = numbers[STEP_COUNTS[-1]] / numbers[STEP_COUNTS[0]]
    print(f'  ratio {STEP_COUNTS[-1]} / {STEP_COUNTS[0]} steps: {ratio:.2f}x (target <= 1.5x)')
    otel_off.main()
    with_pkg, bare = cold_import_ms()
    print(f'cold `import pydantic_ai`: {with_pkg:.0f} ms (interpreter start alone: {bare:.0f} ms)')
    import_parts.main()
    print(f'streaming, 2,000 text deltas through run_stream: {streaming.stream_per_delta_us():.1f} us/delta')
    print('deferred_tool_handler, in one run:')
    print(f'  20 approved calls sleeping 50 ms each: {handler.handler_20_approved_ms():.0f} ms')
    print(
        f'  overhead per deferred call (trivial tools): {handler.handler_overhead_us_per_call():.1f} us (target < 50)'
    )
    print('resumed run, 20 approved calls sleeping 50 ms each (1000 ms if run one after another):')
    print(f'  async tools: {deferred.resumed_20_approved_ms():.0f} ms')
    print(f'  sync tools (worker threads): {deferred.resumed_20_approved_ms(sync_tool=True):.0f} ms')
    print(f'{reliability.RUNS} concurrent runs, a handler approving {reliability.CALLS_PER_RUN} calls each:')
    print(f'  {reliability.concurrent_runs_ms():.0f} ms (no result crossed)')
    print('cancellation latency while the handler waits (median of 20):')
    print(f'  async handler, from the cancellation: {reliability.cancellation_latency_ms(sync=False):.2f} ms')
    print(f'  sync handler, from its thread returning: {reliability.cancellation_latency_ms(sync=True):.2f} ms')
    mcp.main()
    print()
    compare.main([])


if __name__ == '__main__':
    main()
