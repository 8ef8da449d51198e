"""Nothing run that was not approved: cancellation while a handler waits, and bad handler answers."""

# pyright: reportUnusedFunction=false
# Tools registered by decorator are only used through the agent, which pyright cannot see.

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any, Literal

import anyio
import pytest
from pydantic_ai import (
    Agent,
    CallDeferred,
    DeferredToolRequests,
    DeferredToolResults,
    ModelMessage,
    ModelResponse,
    RunContext,
    TextPart,
    ToolCallPart,
    ToolDenied,
    UserError,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

from benchmarks.reliability import CALLS_PER_RUN, RUNS, concurrent_runs

pytestmark = pytest.mark.anyio

AsyncMethod = Literal['run', 'run_stream', 'iter']
ASYNC_METHODS: list[AsyncMethod] = ['run', 'run_stream', 'iter']


def two_step_model(*calls: ToolCallPart) -> FunctionModel:
    """A model that makes `calls` in its first response and answers 'done' after that."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if sum(isinstance(m, ModelResponse) for m in messages) == 0:
            return ModelResponse(parts=list(calls))
        return ModelResponse(parts=[TextPart('done')])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        for index, part in enumerate(respond(messages, info).parts):
            if isinstance(part, TextPart):
                yield part.content
            else:
                assert isinstance(part, ToolCallPart)
                yield {index: DeltaToolCall(part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id)}

    return FunctionModel(respond, stream_function=stream)


GUARDED_CALLS = (ToolCallPart('wipe', {'disk': 'a'}, 'w1'), ToolCallPart('wipe_sync', {'disk': 'b'}, 'w2'))


def guarded_agent(
    started: list[str], calls: tuple[ToolCallPart, ...] = GUARDED_CALLS, **kwargs: Any
) -> Agent[None, Any]:
    """An agent whose first response makes `calls` (by default, to two tools that need approval).

    Every tool logs in `started` when it starts; `fetch` is an external call (it raises `CallDeferred`).
    """
    agent = Agent(two_step_model(*calls), **kwargs)

    @agent.tool_plain(requires_approval=True)
    async def wipe(disk: str) -> str:
        started.append(f'wipe {disk}')
        return 'wiped'

    @agent.tool_plain(requires_approval=True)
    def wipe_sync(disk: str) -> str:
        started.append(f'wipe_sync {disk}')
        return 'wiped'

    @agent.tool_plain
    def fetch(url: str) -> str:
        started.append(f'fetch {url}')
        raise CallDeferred

    return agent


class BlockingHandler:
    """A sync handler that approves everything once released, as a user answering `input()` late would."""

    def __init__(self) -> None:
        self.entered = anyio.Event()
        self.release = threading.Event()
        self.returned = threading.Event()

    def __call__(self, ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        anyio.from_thread.run_sync(self.entered.set)
        self.release.wait(timeout=10)
        self.returned.set()
        return DeferredToolResults(approvals={c.tool_call_id: True for c in requests.approvals})


async def run_with(method: AsyncMethod, agent: Agent[None, Any], **kwargs: Any) -> Any:
    if method == 'run':
        return (await agent.run('go', **kwargs)).output
    if method == 'run_stream':
        async with agent.run_stream('go', **kwargs) as streamed:
            return await streamed.get_output()
    async with agent.iter('go', **kwargs) as agent_run:
        async for _ in agent_run:
            pass
    return agent_run.result


async def release_later(handler: BlockingHandler) -> None:
    """Release the handler once the run has been cancelled, then wait until its thread has returned."""
    await anyio.sleep(0.05)
    handler.release.set()
    await anyio.to_thread.run_sync(handler.returned.wait)


@pytest.mark.parametrize('method', ASYNC_METHODS)
async def test_move_on_after_while_a_sync_handler_waits_runs_no_tool(method: AsyncMethod):
    started: list[str] = []
    handler = BlockingHandler()
    agent = guarded_agent(started, deferred_tool_handler=handler)
    scope = anyio.CancelScope()
    async with anyio.create_task_group() as tg:
        with scope:

            async def cancel_when_asked() -> None:
                await handler.entered.wait()
                scope.cancel()
                await release_later(handler)

            tg.start_soon(cancel_when_asked)
            await run_with(method, agent)
    assert scope.cancelled_caught
    await anyio.sleep(0.05)
    assert started == []


@pytest.mark.parametrize('method', ASYNC_METHODS)
@pytest.mark.parametrize('how', ['task.cancel', 'wait_for'])
async def test_asyncio_cancellation_while_a_sync_handler_waits_runs_no_tool(
    method: AsyncMethod, how: Literal['task.cancel', 'wait_for']
):
    started: list[str] = []
    handler = BlockingHandler()
    agent = guarded_agent(started, deferred_tool_handler=handler)
    if how == 'task.cancel':
        task = asyncio.create_task(run_with(method, agent))
        await handler.entered.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    else:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(run_with(method, agent), timeout=0.5)
        assert handler.entered.is_set()
    # A native asyncio cancellation does not wait for the thread: the answer it gives later is dropped.
    await release_later(handler)
    await anyio.sleep(0.05)
    assert started == []


@pytest.mark.parametrize('method', ASYNC_METHODS)
async def test_cancelling_an_async_handler_surfaces_at_once_and_runs_no_tool(method: AsyncMethod):
    started: list[str] = []
    entered = anyio.Event()

    async def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        entered.set()
        await anyio.sleep_forever()
        raise AssertionError('unreachable')

    agent = guarded_agent(started, deferred_tool_handler=handler)
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:

            async def cancel_when_asked() -> None:
                await entered.wait()
                tg.cancel_scope.cancel()

            tg.start_soon(cancel_when_asked)
            await run_with(method, agent)
    assert started == []


@pytest.mark.parametrize('method', ['run_sync', 'run_stream_sync'])
def test_ctrl_c_while_the_handler_of_a_sync_run_method_waits_runs_no_tool(method: str):
    """Ctrl-C cancels the event loop's main task, and `run_sync` raises `KeyboardInterrupt`, as `asyncio.run` does.

    The run is not left pending on the thread's event loop either: the next run on it does not carry it on.
    """
    assert threading.current_thread() is threading.main_thread(), 'SIGINT is handled on the main thread'
    started: list[str] = []
    release = threading.Event()
    returned = threading.Event()

    def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        os.kill(os.getpid(), signal.SIGINT)
        release.wait(timeout=10)
        returned.set()
        return DeferredToolResults(approvals={c.tool_call_id: True for c in requests.approvals})

    agent = guarded_agent(started, deferred_tool_handler=handler)
    with pytest.raises(KeyboardInterrupt):
        if method == 'run_sync':
            agent.run_sync('go')
        else:
            agent.run_stream_sync('go').get_output()
    # The interrupt came at once, not when the handler's thread gave up waiting (the signal wakes the event loop
    # even if it lands just as the loop goes to sleep).
    assert not returned.is_set()
    release.set()
    assert Agent(two_step_model()).run_sync('go').output == 'done'
    assert started == []


async def test_cancelled_resume_starts_no_further_tool():
    """A sequential batch of approved calls, resumed: a cancellation during the first (sync) call stops the rest."""
    started: list[str] = []
    calls = [ToolCallPart('step_sync', {'n': 0}, 's0'), *(ToolCallPart('step', {'n': n}, f's{n}') for n in (1, 2))]
    agent = Agent(two_step_model(*calls), output_type=[str, DeferredToolRequests])
    in_first = threading.Event()
    release = threading.Event()

    @agent.tool_plain(requires_approval=True, sequential=True)
    def step_sync(n: int) -> str:
        started.append(f'step {n}')
        in_first.set()
        release.wait(timeout=10)
        return f'step {n}'

    @agent.tool_plain(requires_approval=True, sequential=True)
    async def step(n: int) -> str:
        started.append(f'step {n}')
        return f'step {n}'

    first = await agent.run('go')
    assert isinstance(first.output, DeferredToolRequests)
    results = DeferredToolResults(approvals={f's{n}': True for n in range(3)})
    scope = anyio.CancelScope()
    async with anyio.create_task_group() as tg:
        with scope:

            async def cancel_in_first() -> None:
                await anyio.to_thread.run_sync(in_first.wait)
                scope.cancel()
                release.set()

            tg.start_soon(cancel_in_first)
            await agent.run(message_history=first.all_messages(), deferred_tool_results=results)
    assert scope.cancelled_caught
    assert started == ['step 0']


# Bad handler answers: a clear error before any call of the batch runs.


def external_and_guarded_agent(started: list[str], **kwargs: Any) -> Agent[None, Any]:
    """An agent whose first response makes a call that needs approval and an external call."""
    calls = (ToolCallPart('wipe', {'disk': 'a'}, 'w1'), ToolCallPart('fetch', {'url': 'u'}, 'f1'))
    return guarded_agent(started, calls, **kwargs)


@pytest.mark.parametrize('bad', ['yes', None, 1, 0.0, {'approved': True}])
async def test_an_approval_that_is_not_a_bool_or_approval_object_is_a_user_error(bad: Any):
    started: list[str] = []

    def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        return DeferredToolResults(approvals={'w1': bad}, calls={'f1': 'page'})

    agent = external_and_guarded_agent(started, deferred_tool_handler=handler)
    with pytest.raises(UserError) as exc_info:
        await agent.run('go')
    assert str(exc_info.value) == (
        f"The approval for tool call 'w1' must be `True`, `False`, `ToolApproved(...)` or `ToolDenied(...)`, "
        f"not {bad!r}: set `DeferredToolResults.approvals['w1']` to one of those."
    )
    assert started == ['fetch u']


@pytest.mark.parametrize('bad', ['yes', None, 1])
async def test_a_bad_approval_value_in_the_resume_flow_is_a_user_error(bad: Any):
    started: list[str] = []
    agent = external_and_guarded_agent(started, output_type=[str, DeferredToolRequests])
    first = await agent.run('go')
    history = first.all_messages()
    with pytest.raises(UserError, match=r"^The approval for tool call 'w1' must be `True`, `False`"):
        await agent.run(
            message_history=history, deferred_tool_results=DeferredToolResults(approvals={'w1': bad}, calls={'f1': 1})
        )
    assert started == ['fetch u']
    assert history == first.all_messages()


@pytest.mark.parametrize(
    'answer',
    [
        DeferredToolResults(approvals={'w1': True, 'f1': True}, calls={'f1': 'page'}),
        DeferredToolResults(approvals={'w1': True, 'f1': ToolDenied('no')}, calls={'f1': 'page'}),
    ],
)
async def test_a_handler_that_approves_an_external_call_and_gives_its_result_is_a_user_error(
    answer: DeferredToolResults,
):
    started: list[str] = []

    def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        return answer

    agent = external_and_guarded_agent(started, deferred_tool_handler=handler)
    with pytest.raises(UserError) as exc_info:
        await agent.run('go')
    assert str(exc_info.value) == (
        "Tool call 'f1' is an external call, which cannot be approved or denied: remove it from "
        '`DeferredToolResults.approvals` and give only its result, in `DeferredToolResults.calls`.'
    )
    assert started == ['fetch u']


HANDLER_TYPE_ERROR = (
    r'^`deferred_tool_handler` must be a function taking `\(ctx, requests\)` and returning `DeferredToolResults` '
    r'\(sync or async\), or `None`; got 42\.$'
)


def test_a_handler_that_is_not_callable_is_refused_by_the_agent():
    with pytest.raises(TypeError, match=HANDLER_TYPE_ERROR):
        Agent('test', deferred_tool_handler=42)  # pyright: ignore[reportArgumentType] -- the wrong type under test


RunCall = Callable[[Agent[None, Any]], Any]


@pytest.mark.parametrize(
    'method',
    ['run', 'run_sync', 'run_stream', 'run_stream_sync', 'iter'],
)
def test_a_handler_that_is_not_callable_is_refused_by_every_run_method(method: str):
    started: list[str] = []
    agent = guarded_agent(started)
    bad: Any = 42

    async def run_async() -> None:
        if method == 'run':
            await agent.run('go', deferred_tool_handler=bad)
        elif method == 'run_stream':
            async with agent.run_stream('go', deferred_tool_handler=bad):
                pass
        else:
            async with agent.iter('go', deferred_tool_handler=bad):
                pass

    with pytest.raises(TypeError, match=HANDLER_TYPE_ERROR):
        if method == 'run_sync':
            agent.run_sync('go', deferred_tool_handler=bad)
        elif method == 'run_stream_sync':
            agent.run_stream_sync('go', deferred_tool_handler=bad)
        else:
            anyio.run(run_async)
    assert started == []


# Load: many runs at once, each with its own handler answers.


async def test_200_concurrent_runs_with_a_handler_cross_no_result():
    outputs = await concurrent_runs(RUNS)
    assert outputs == {i: ' '.join(f'{i}:{n}' for n in range(CALLS_PER_RUN)) for i in range(RUNS)}
