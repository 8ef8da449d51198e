"""Measure the reliability scenarios of `docs/reliability.md`: many concurrent runs, and cancellation latency.

- `concurrent_runs_ms`: 200 runs at once on one event loop, each with a deferred tool handler that approves the
  5 calls of its first response (half the runs with a sync handler, half with an async one). Every run checks
  that it got its own results back, so the figure is of runs that did not cross.
- `cancellation_latency_ms`: how long a run takes to stop once cancelled while its handler waits. An async
  handler is interrupted at once. A sync handler runs in a worker thread that cannot be interrupted: an anyio
  cancellation (`move_on_after`, a cancelled task group, a closed HTTP request) takes effect as soon as the
  thread returns, which is measured from the moment it is released.

Timings are printed, never asserted.
"""

from __future__ import annotations

import statistics
import threading
import time
from typing import Any

import anyio
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

__all__ = ('cancellation_latency_ms', 'concurrent_runs', 'concurrent_runs_ms')

RUNS = 200
CALLS_PER_RUN = 5


def _respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    usage = RequestUsage(input_tokens=1, output_tokens=1)
    if len(messages) == 1:
        calls = [ToolCallPart('stamp', {'n': n}, f'call_{n}') for n in range(CALLS_PER_RUN)]
        return ModelResponse(parts=calls, usage=usage)
    returns = [p.content for p in messages[-1].parts if isinstance(p, ToolReturnPart)]
    return ModelResponse(parts=[TextPart(' '.join(str(r) for r in returns))], usage=usage)


async def _respond_async(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return _respond(messages, info)


def _approve(ctx: RunContext[int], requests: DeferredToolRequests) -> DeferredToolResults:
    return DeferredToolResults(approvals={c.tool_call_id: True for c in requests.approvals})


async def _approve_async(ctx: RunContext[int], requests: DeferredToolRequests) -> DeferredToolResults:
    await anyio.sleep(0.001 * (ctx.deps % 7))
    return _approve(ctx, requests)


def _agent() -> Agent[int, str]:
    agent = Agent(FunctionModel(_respond_async), deps_type=int)

    @agent.tool(requires_approval=True)
    async def stamp(ctx: RunContext[int], n: int) -> str:  # pyright: ignore[reportUnusedFunction] -- registered
        await anyio.sleep(0.001 * ((ctx.deps + n) % 5))
        return f'{ctx.deps}:{n}'

    return agent


async def concurrent_runs(runs: int = RUNS) -> dict[int, str]:
    """Start `runs` runs at once; return each run's output by its deps (the run's number)."""
    agent = _agent()
    outputs: dict[int, str] = {}

    async def one(i: int) -> None:
        handler = _approve if i % 2 else _approve_async
        result = await agent.run('go', deps=i, deferred_tool_handler=handler)
        outputs[i] = result.output

    async with anyio.create_task_group() as tg:
        for i in range(runs):
            tg.start_soon(one, i)
    return outputs


def concurrent_runs_ms(samples: int = 3) -> float:
    """The median wall time of `RUNS` concurrent runs, checking that no result crossed between runs."""
    times: list[float] = []
    for _ in range(samples):
        start = time.perf_counter()
        outputs = anyio.run(concurrent_runs)
        times.append((time.perf_counter() - start) * 1e3)
        expected = {i: ' '.join(f'{i}:{n}' for n in range(CALLS_PER_RUN)) for i in range(RUNS)}
        assert outputs == expected, 'a result crossed between runs'
    return statistics.median(times)


def _waiting_agent(handler: Any) -> Agent[int, str]:
    agent = Agent(FunctionModel(_respond_async), deps_type=int, deferred_tool_handler=handler)

    @agent.tool(requires_approval=True)
    async def stamp(ctx: RunContext[int], n: int) -> str:  # pyright: ignore[reportUnusedFunction] -- registered
        raise AssertionError('a cancelled batch must not run')

    return agent


async def _async_latency() -> float:
    entered = anyio.Event()

    async def handler(ctx: RunContext[int], requests: DeferredToolRequests) -> DeferredToolResults:
        entered.set()
        await anyio.sleep_forever()
        raise AssertionError('unreachable')

    agent = _waiting_agent(handler)
    cancelled_at = 0.0
    async with anyio.create_task_group() as tg:

        async def cancel() -> None:
            nonlocal cancelled_at
            await entered.wait()
            cancelled_at = time.perf_counter()
            tg.cancel_scope.cancel()

        tg.start_soon(cancel)
        await agent.run('go', deps=0)
    return time.perf_counter() - cancelled_at


async def _sync_latency() -> float:
    entered = threading.Event()
    release = threading.Event()
    released_at: list[float] = []

    def handler(ctx: RunContext[int], requests: DeferredToolRequests) -> DeferredToolResults:
        entered.set()
        release.wait()
        released_at.append(time.perf_counter())
        return _approve(ctx, requests)

    agent = _waiting_agent(handler)
    scope = anyio.CancelScope()
    stopped_at = 0.0
    async with anyio.create_task_group() as tg:

        async def cancel_then_release() -> None:
            await anyio.to_thread.run_sync(entered.wait)
            scope.cancel()
            await anyio.sleep(0.01)  # The user answers after the cancellation.
            release.set()

        tg.start_soon(cancel_then_release)
        with scope:
            await agent.run('go', deps=0)
        stopped_at = time.perf_counter()
    return stopped_at - released_at[0]


def cancellation_latency_ms(sync: bool, samples: int = 20) -> float:
    """The median time from the cancellation (async handler) or the thread's return (sync handler) to the stop."""
    measure = _sync_latency if sync else _async_latency
    return statistics.median(anyio.run(measure) for _ in range(samples)) * 1e3
