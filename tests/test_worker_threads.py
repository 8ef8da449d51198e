"""Sync tools run in the package's own worker threads: what a tool can see of them, and their limits."""

# pyright: reportUnusedFunction=false

from __future__ import annotations

import asyncio
import contextvars
import gc
import multiprocessing
import os
import signal
import socket
import threading
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread
import pytest
from pydantic_ai import Agent, RunContext
from pydantic_ai._worker_threads import MAX_WORKERS
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from ._messages import request_parts

pytestmark = pytest.mark.anyio

request_id: contextvars.ContextVar[str] = contextvars.ContextVar('request_id', default='unset')


def calls_then_done(count: int, tool: str = 'work') -> FunctionModel:
    """A model that calls `tool` `count` times in its first response, then answers 'done'."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart(tool, {'i': i}, f'call_{i}') for i in range(count)])
        return ModelResponse(parts=[TextPart('done')])

    return FunctionModel(respond)


def tool_returns(messages: list[ModelMessage]) -> list[Any]:
    return [part.content for part in request_parts(messages, ToolReturnPart)]


def agent_using_threads(count: int) -> tuple[Agent[None, str], set[threading.Thread]]:
    """An agent whose model makes `count` sync tool calls at once, and the threads they ran in.

    Each call waits at a barrier for the others, so each holds a worker thread of its own.
    """
    agent = Agent(calls_then_done(count))
    gate = threading.Barrier(count, timeout=10)
    used: set[threading.Thread] = set()

    @agent.tool_plain
    def work(i: int) -> int:
        used.add(threading.current_thread())
        gate.wait()
        return i

    return agent, used


def worker_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == 'pydantic-ai-worker'}


async def test_a_sync_tool_can_call_back_into_the_event_loop():
    agent = Agent(calls_then_done(1, 'lookup'))
    seen: list[Any] = []

    async def on_the_loop() -> str:
        return request_id.get()

    @agent.tool_plain
    def lookup(i: int) -> str:
        anyio.from_thread.check_cancelled()
        seen.append(threading.current_thread() is threading.main_thread())
        return anyio.from_thread.run(on_the_loop)

    request_id.set('req-7')
    result = await agent.run('go')
    assert result.output == 'done'
    assert seen == [False]
    assert tool_returns(result.all_messages()) == ['req-7']


async def test_a_sync_tool_sees_the_callers_context_and_its_changes_stay_in_the_call():
    agent = Agent(calls_then_done(2, 'read'))
    seen: list[str] = []

    @agent.tool
    def read(ctx: RunContext[None], i: int) -> str:
        seen.append(request_id.get())
        request_id.set(f'changed by {ctx.tool_call_id}')
        return 'ok'

    request_id.set('outer')
    await agent.run('go')
    assert seen == ['outer', 'outer']
    assert request_id.get() == 'outer'


async def test_at_most_max_workers_sync_calls_run_at_once():
    count = MAX_WORKERS + 5
    agent = Agent(calls_then_done(count))
    release = threading.Event()
    all_running = anyio.Event()
    lock = threading.Lock()
    started: list[int] = []
    running = peak = 0

    @agent.tool_plain
    def work(i: int) -> int:
        nonlocal running, peak
        with lock:
            started.append(i)
            running += 1
            peak = max(peak, running)
            if running == MAX_WORKERS:
                anyio.from_thread.run_sync(all_running.set)
        release.wait(10)
        with lock:
            running -= 1
        return i

    async def release_when_full() -> None:
        await all_running.wait()
        # Time for a call beyond the limit to start, if it could.
        await anyio.sleep(0.05)
        assert sorted(started) == list(range(MAX_WORKERS))
        release.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(release_when_full)
        result = await agent.run('go')
        assert result.output == 'done'
    assert peak == MAX_WORKERS
    # The calls beyond the limit waited their turn, and started when slots were given back.
    assert sorted(started[MAX_WORKERS:]) == list(range(MAX_WORKERS, count))


async def test_a_call_cancelled_while_it_waits_for_a_worker_never_starts_and_frees_its_turn():
    agent = Agent(calls_then_done(MAX_WORKERS + 1))
    release = threading.Event()
    all_started = anyio.Event()
    started: list[int] = []
    lock = threading.Lock()

    @agent.tool_plain
    def work(i: int) -> int:
        with lock:
            started.append(i)
            if len(started) == MAX_WORKERS:
                anyio.from_thread.run_sync(all_started.set)
        release.wait(10)
        return i

    async def release_when_all_started() -> None:
        await all_started.wait()
        # One more call is waiting for a worker; the cancellation reaches it while it waits, and the running
        # ones when they return.
        scope.cancel()
        await anyio.sleep(0.05)
        release.set()

    scope = anyio.CancelScope()
    async with anyio.create_task_group() as tg:
        tg.start_soon(release_when_all_started)
        with scope:
            await agent.run('go')
    assert scope.cancelled_caught
    assert sorted(started) == list(range(MAX_WORKERS))

    # Every turn was given back: MAX_WORKERS calls can run at once again.
    barrier = threading.Barrier(MAX_WORKERS, timeout=10)
    again = Agent(calls_then_done(MAX_WORKERS, 'work_again'))

    @again.tool_plain
    def work_again(i: int) -> int:
        barrier.wait()
        return i

    result = await again.run('go')
    assert result.output == 'done'


async def test_idle_worker_threads_end(monkeypatch: pytest.MonkeyPatch):
    from pydantic_ai import _worker_threads

    monkeypatch.setattr(_worker_threads, 'IDLE_SECONDS', 0.05)
    agent, used = agent_using_threads(3)

    await agent.run('go')
    assert len(used) == 3
    assert used <= worker_threads()
    for thread in used:
        await anyio.to_thread.run_sync(thread.join, 5)
    assert not any(t.is_alive() for t in used)

    # Later calls find or start threads as before.
    assert (await agent.run('go')).output == 'done'


def _run_in_child(conn: Any) -> None:
    agent = Agent(calls_then_done(2))

    @agent.tool_plain
    def work(i: int) -> int:
        return i * 10

    result = agent.run_sync('go')
    conn.send([result.output, tool_returns(result.all_messages())])


def test_a_forked_child_runs_sync_tools():
    # The parent's workers don't exist in a forked child; the child starts its own.
    agent = Agent(calls_then_done(4))

    @agent.tool_plain
    def work(i: int) -> int:
        return i

    agent.run_sync('go')
    context = multiprocessing.get_context('fork')
    parent_end, child_end = context.Pipe()
    child = context.Process(target=_run_in_child, args=(child_end,))
    child.start()
    assert parent_end.poll(20)
    assert parent_end.recv() == ['done', [0, 10]]
    child.join(10)
    assert child.exitcode == 0


async def test_stop_iteration_from_a_sync_tool_is_an_error_not_a_hang():
    agent = Agent(calls_then_done(1, 'exhausted'))

    @agent.tool_plain
    def exhausted(i: int) -> int:
        return next(iter([]))

    with pytest.raises(RuntimeError, match='coroutine raised StopIteration') as exc_info:
        await agent.run('go')
    assert isinstance(exc_info.value.__cause__, StopIteration)


def test_run_sync_leaves_a_wakeup_fd_set_by_the_program_alone():
    # A program (or asyncio's own signal handling) that set a wakeup fd keeps it through and after a run.
    read, write = socket.socketpair()
    write.setblocking(False)
    previous = signal.set_wakeup_fd(write.fileno())
    try:
        assert Agent(TestModel()).run_sync('go').output == 'success (no tool calls)'
        assert signal.set_wakeup_fd(write.fileno()) == write.fileno()
    finally:
        signal.set_wakeup_fd(previous)
        read.close()
        write.close()


def test_run_sync_off_the_main_thread_sets_no_wakeup_fd():
    outputs: list[str] = []
    thread = threading.Thread(target=lambda: outputs.append(Agent(TestModel()).run_sync('go').output))
    thread.start()
    thread.join(10)
    assert outputs == ['success (no tool calls)']
    assert signal.set_wakeup_fd(-1) == -1


async def test_at_exit_idle_workers_end_and_later_calls_are_refused(monkeypatch: pytest.MonkeyPatch):
    # What the interpreter's exit does to the pool (the program itself is checked against upstream in
    # tests/compat/behaviour_sync_tool_at_exit.py): a fresh pool here, so the tests after this one keep theirs.
    from pydantic_ai import _worker_threads

    pool = _worker_threads._Pool()
    monkeypatch.setattr(_worker_threads, '_pool', pool)
    agent, used = agent_using_threads(2)
    assert (await agent.run('go')).output == 'done'
    assert len(used) == 2
    pool.close()
    for thread in used:
        await anyio.to_thread.run_sync(thread.join, 5)
    assert not any(t.is_alive() for t in used)

    with pytest.raises(RuntimeError, match='Cannot run a sync function in a worker thread after interpreter shutdown'):
        await agent.run('go')
    # The refused call gave its slot back.
    assert pool.running == 0


def test_a_wakeup_fd_set_during_a_run_stays_after_it():
    read, write = socket.socketpair()
    write.setblocking(False)
    agent = Agent(TestModel())

    @agent.system_prompt
    async def set_own_wakeup_fd() -> str:
        # As `loop.add_signal_handler` does, from inside the run.
        signal.set_wakeup_fd(write.fileno())
        return 'Be brief.'

    try:
        assert agent.run_sync('go').output == 'success (no tool calls)'
        assert signal.set_wakeup_fd(-1) == write.fileno()
    finally:
        read.close()
        write.close()


def test_a_native_cancellation_stops_waiting_for_a_sync_tool_at_once():
    """Outside any anyio cancel scope the wait for a worker is not shielded: `task.cancel()` ends it, as in anyio."""
    started, release = threading.Event(), threading.Event()
    agent = Agent(calls_then_done(1))

    @agent.tool_plain
    def work(i: int) -> int:
        started.set()
        release.wait(5)
        return i

    async def main() -> bool:
        task = asyncio.create_task(agent.run('go'))
        await asyncio.to_thread(started.wait, 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return release.is_set()

    try:
        assert asyncio.run(main()) is False, 'the cancellation reached the run before the tool returned'
    finally:
        release.set()


async def test_an_anyio_cancellation_waits_for_the_sync_tool_to_return():
    finished: list[str] = []
    started = threading.Event()
    agent = Agent(calls_then_done(1))

    @agent.tool_plain
    def work(i: int) -> int:
        started.set()
        threading.Event().wait(0.2)
        finished.append('tool')
        return i

    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as tg:
            tg.start_soon(agent.run, 'go')
            await anyio.to_thread.run_sync(started.wait, 5)
            scope.cancel()
    assert finished == ['tool']


class _LoopWithoutReaders(asyncio.SelectorEventLoop):
    """A loop that can't watch file descriptors (as asyncio's proactor loop on Windows)."""

    def add_reader(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError


def test_a_loop_that_cant_watch_descriptors_still_gets_sync_tool_results():
    agent = Agent(calls_then_done(3))

    @agent.tool_plain
    def work(i: int) -> int:
        return i * 10

    with asyncio.Runner(loop_factory=_LoopWithoutReaders) as runner:
        result = runner.run(agent.run('go'))
        again = runner.run(agent.run('again'))
    assert result.output == again.output == 'done'
    assert tool_returns(result.all_messages()) == [0, 10, 20]


def test_each_event_loop_gets_sync_tool_results_and_closing_loops_frees_their_descriptors():
    agent = Agent(calls_then_done(2))

    @agent.tool_plain
    def work(i: int) -> int:
        return i

    def open_descriptors() -> int:
        return len(os.listdir('/proc/self/fd'))

    asyncio.run(agent.run('warm up'))
    gc.collect()
    before = open_descriptors()
    for _ in range(20):
        assert tool_returns(asyncio.run(agent.run('go')).all_messages()) == [0, 1]
    gc.collect()
    assert open_descriptors() <= before + 1
