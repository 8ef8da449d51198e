"""Benchmark workloads that run unchanged under our package and under upstream pydantic-ai.

`python benchmarks/workloads.py NAME` runs one workload in a fresh interpreter and prints one JSON object with
its figure. `benchmarks/compare.py` runs each of them under both packages, interleaved, and prints the ratios.
Only the public API the two packages share is used; where upstream has no `deferred_tool_handler`, the
approved calls are resolved with its resume flow (a second run with `deferred_tool_results`).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import resource
import statistics
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCalls, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

USAGE = RequestUsage(input_tokens=1, output_tokens=1)
NO_LIMITS = UsageLimits(request_limit=None)


def _stepping_agent(steps: int) -> Agent[None, str]:
    """An agent whose model calls one sync tool per step, `steps` model requests in all."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = (len(messages) - 1) // 2
        if done + 1 >= steps:
            return ModelResponse(parts=[TextPart('done')], usage=USAGE)
        return ModelResponse(parts=[ToolCallPart('step', {'n': done}, f'call_{done}')], usage=USAGE)

    agent = Agent(FunctionModel(respond))

    @agent.tool_plain
    def step(n: int) -> int:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        return n + 1

    return agent


def _median_run_seconds(agent: Agent[None, Any], runs: int, samples: int = 5) -> float:
    agent.run_sync('warm up', usage_limits=NO_LIMITS)
    timings: list[float] = []
    for _ in range(samples):
        start = time.perf_counter()
        for _ in range(runs):
            agent.run_sync('go', usage_limits=NO_LIMITS)
        timings.append((time.perf_counter() - start) / runs)
    return statistics.median(timings)


def loop(steps: str) -> dict[str, float]:
    """The loop's own cost per step, in µs, for a run of `steps` model requests with a sync tool each."""
    n = int(steps)
    seconds = _median_run_seconds(_stepping_agent(n), runs=max(1, 2000 // n))
    return {'us_per_step': seconds / n * 1e6}


def fanout(calls: str = '200') -> dict[str, float]:
    """Cost per sync tool call, in µs, when one response holds `calls` calls."""
    n = int(calls)

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart('tool', {'n': i}, f'call_{i}') for i in range(n)], usage=USAGE)
        return ModelResponse(parts=[TextPart('done')], usage=USAGE)

    agent = Agent(FunctionModel(respond))

    @agent.tool_plain
    def tool(n: int) -> int:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        return n

    return {'us_per_call': _median_run_seconds(agent, runs=5) / n * 1e6}


def _peak_rss_mb() -> float:
    # `VmHWM` is this program's own peak. `ru_maxrss` survives `exec` on Linux, so in a process started by a large
    # parent (e.g. `make bench`, which has loaded MCP and DBOS by then) it reports the parent's size instead.
    try:
        with open('/proc/self/status') as status:
            for line in status:
                if line.startswith('VmHWM:'):
                    return int(line.split()[1]) / 1024
    except OSError:  # pragma: no cover - not Linux
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # pragma: no cover - not Linux


def rss(steps: str = '2000') -> dict[str, float]:
    """Peak resident memory, in MB, of a process that imports the package and makes one run of `steps` steps."""
    _stepping_agent(int(steps)).run_sync('go', usage_limits=NO_LIMITS)
    return {'peak_rss_mb': _peak_rss_mb()}


def stream(deltas: str = '2000') -> dict[str, float]:
    """Cost per streamed text delta, in µs, through `run_stream` and `stream_text(delta=True)`."""
    n = int(deltas)

    async def stream_function(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        for _ in range(n):
            yield 'a'

    agent = Agent(FunctionModel(stream_function=stream_function))

    async def once() -> float:
        start = time.perf_counter()
        async with agent.run_stream('go') as result:
            async for _ in result.stream_text(delta=True, debounce_by=None):
                pass
        return time.perf_counter() - start

    async def main() -> float:
        await once()
        return statistics.median([await once() for _ in range(5)])

    return {'us_per_delta': asyncio.run(main()) / n * 1e6}


def approved(calls: str = '20') -> dict[str, float]:
    """Wall time, in s, of a run whose `calls` calls each need approval and then sleep 50 ms."""
    n = int(calls)

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart('slow', {'i': i}, f'call_{i}') for i in range(n)], usage=USAGE)
        return ModelResponse(parts=[TextPart('done')], usage=USAGE)

    async def approve_all(ctx: Any, requests: DeferredToolRequests) -> DeferredToolResults:
        return DeferredToolResults(approvals={call.tool_call_id: True for call in requests.approvals})

    has_handler = 'deferred_tool_handler' in inspect.signature(Agent.__init__).parameters
    kwargs: dict[str, Any] = {'deferred_tool_handler': approve_all} if has_handler else {}
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(respond), output_type=[str, DeferredToolRequests], **kwargs
    )

    @agent.tool_plain(requires_approval=True)
    async def slow(i: int) -> int:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        await asyncio.sleep(0.05)
        return i

    async def once() -> float:
        start = time.perf_counter()
        result = await agent.run('go')
        if isinstance(result.output, DeferredToolRequests):
            results = DeferredToolResults(approvals={call.tool_call_id: True for call in result.output.approvals})
            result = await agent.run(message_history=result.all_messages(), deferred_tool_results=results)
        assert result.output == 'done'
        return time.perf_counter() - start

    async def main() -> float:
        await once()
        return statistics.median([await once() for _ in range(5)])

    return {'seconds': asyncio.run(main())}


WORKLOADS = {'loop': loop, 'fanout': fanout, 'rss': rss, 'stream': stream, 'approved': approved}

if __name__ == '__main__':
    name, *args = sys.argv[1:]
    print(json.dumps(WORKLOADS[name](*args)))
