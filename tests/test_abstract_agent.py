"""`AbstractAgent` and `WrapperAgent`, the `name` property and its inference, run metadata, unknown arguments."""

# pyright: reportUnusedFunction=false
# Tools registered by decorator are only used through the agent, which pyright cannot see.

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, Literal

import anyio
import pytest
from inline_snapshot import snapshot
from pydantic_ai import (
    Agent,
    AgentRunResult,
    DeferredToolRequests,
    DeferredToolResults,
    RunContext,
    ToolApproved,
    UserError,
)
from pydantic_ai.agent import AbstractAgent, AgentRun, ParallelExecutionMode, WrapperAgent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.test import TestModel
from pydantic_ai.output import OutputSpec
from pydantic_ai.run import AgentRunResultEvent
from pydantic_ai.tools import DeferredToolHandler
from typing_extensions import TypeIs

pytestmark = pytest.mark.anyio

Method = Literal['run', 'run_sync', 'run_stream', 'run_stream_sync', 'run_stream_events', 'iter']
METHODS: list[Method] = ['run', 'run_sync', 'run_stream', 'run_stream_sync', 'run_stream_events', 'iter']


async def run_with(agent: AbstractAgent[Any, Any], method: Method, prompt: str, **kwargs: Any) -> Any:
    """Run `agent` with `method` and return the output."""
    if method == 'run':
        return (await agent.run(prompt, **kwargs)).output
    if method == 'run_sync':
        return await anyio.to_thread.run_sync(lambda: agent.run_sync(prompt, **kwargs).output)
    if method == 'run_stream':
        async with agent.run_stream(prompt, **kwargs) as stream:
            return await stream.get_output()
    if method == 'run_stream_sync':
        return await anyio.to_thread.run_sync(lambda: agent.run_stream_sync(prompt, **kwargs).get_output())
    if method == 'run_stream_events':
        outputs = [e.result.output async for e in agent.run_stream_events(prompt, **kwargs) if _is_result(e)]
        return outputs[0]
    async with agent.iter(prompt, **kwargs) as run:
        async for _ in run:
            pass
    assert run.result is not None
    return run.result.output


def _is_result(event: Any) -> TypeIs[AgentRunResultEvent[Any]]:
    return isinstance(event, AgentRunResultEvent)


def approval_agent(handler: DeferredToolHandler[None] | None = None) -> Agent[None, str | DeferredToolRequests]:
    agent = Agent[None, str | DeferredToolRequests](
        TestModel(), output_type=[str, DeferredToolRequests], deferred_tool_handler=handler
    )

    @agent.tool_plain(requires_approval=True)
    def delete(path: str) -> str:
        return f'deleted {path}'

    return agent


def approve_all(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
    return DeferredToolResults(approvals={call.tool_call_id: ToolApproved() for call in requests.approvals})


@pytest.mark.parametrize('method', METHODS)
async def test_wrapper_forwards_run_handler(method: Method):
    wrapper = WrapperAgent(approval_agent())
    output = await run_with(wrapper, method, 'delete it', deferred_tool_handler=approve_all)
    assert output == snapshot('{"delete":"deleted a"}')


@pytest.mark.parametrize('method', METHODS)
async def test_wrapper_uses_wrapped_agents_handler(method: Method):
    wrapper = WrapperAgent(approval_agent(approve_all))
    assert await run_with(wrapper, method, 'delete it') == snapshot('{"delete":"deleted a"}')
    # Without any handler the run ends with the requests.
    output = await run_with(WrapperAgent(approval_agent()), method, 'delete it')
    assert isinstance(output, DeferredToolRequests)


class CountingAgent(WrapperAgent[Any, Any]):
    """A wrapper that counts the runs it starts and the metadata they were given."""

    def __init__(self, wrapped: AbstractAgent[Any, Any]):
        super().__init__(wrapped)
        self.started: list[Any] = []

    @asynccontextmanager
    async def iter(
        self,
        user_prompt: str | Sequence[Any] | None = None,
        *,
        output_type: OutputSpec[Any] | None = None,
        message_history: Sequence[ModelMessage] | None = None,
        metadata: Any = None,
        **kwargs: Any,
    ) -> AsyncIterator[AgentRun[Any, Any]]:
        self.started.append(metadata)
        async with super().iter(
            user_prompt, output_type=output_type, message_history=message_history, metadata=metadata, **kwargs
        ) as run:
            yield run


@pytest.mark.parametrize('method', METHODS)
async def test_every_run_method_goes_through_iter(method: Method):
    agent = CountingAgent(Agent(TestModel()))
    assert await run_with(agent, method, 'hi', metadata={'m': method}) == 'success (no tool calls)'
    assert agent.started == [{'m': method}]


async def test_wrapper_forwards_properties_override_and_context():
    inner = Agent(TestModel(), deps_type=int, output_type=str, name='inner')
    wrapper = WrapperAgent(inner)
    assert (wrapper.model, wrapper.deps_type, wrapper.output_type) == (inner.model, int, str)
    assert (wrapper.event_stream_handler, wrapper.toolsets) == (None, inner.toolsets)
    wrapper.name = 'renamed'
    assert inner.name == 'renamed'
    with wrapper.override(name='over', metadata={'o': 1}, instructions='Be brief.'):
        assert wrapper.name == 'over'
        result = await wrapper.run('x', deps=1)
    assert result.metadata == {'o': 1}
    assert wrapper.name == 'renamed'
    async with wrapper as entered:
        assert entered is inner


def test_abstract_agent_members():
    assert issubclass(Agent, AbstractAgent)
    assert sorted(AbstractAgent.__abstractmethods__) == snapshot(
        [
            '__aenter__',
            '__aexit__',
            'deps_type',
            'event_stream_handler',
            'iter',
            'model',
            'name',
            'output_type',
            'override',
            'toolsets',
        ]
    )


@pytest.mark.parametrize('method', METHODS)
async def test_name_inferred_by_every_run_method(method: Method):
    my_agent = Agent(TestModel())
    await run_with(my_agent, method, 'x')
    # Called from `run_with` (or a lambda in it), where the agent is the local `agent`.
    assert my_agent.name == 'agent'


def test_name_inference_from_the_callers_scope():
    sync_agent = Agent(TestModel())
    sync_agent.run_sync('x')
    assert sync_agent.name == 'sync_agent'
    stream_agent = Agent(TestModel())
    assert stream_agent.run_stream_sync('x').get_output() == 'success (no tool calls)'
    assert stream_agent.name == 'stream_agent'
    not_inferred = Agent(TestModel())
    not_inferred.run_sync('x', infer_name=False)
    assert not_inferred.name is None
    named = Agent(TestModel(), name='given')
    named.run_sync('x')
    assert named.name == 'given'


async def test_name_inference_in_async_methods():
    run_agent = Agent(TestModel())
    await run_agent.run('x')
    stream_agent = Agent(TestModel())
    async with stream_agent.run_stream('x') as stream:
        await stream.get_output()
    events_agent = Agent(TestModel())
    async for _ in events_agent.run_stream_events('x'):
        pass
    iter_agent = Agent(TestModel())
    async with iter_agent.iter('x') as run:
        async for _ in run:
            pass
    wrapper_agent = WrapperAgent(Agent(TestModel()))
    async with wrapper_agent.iter('x') as run:
        pass
    names = [a.name for a in (run_agent, stream_agent, events_agent, iter_agent, wrapper_agent)]
    assert names == ['run_agent', 'stream_agent', 'events_agent', 'iter_agent', 'wrapper_agent']


def agent_metadata(ctx: RunContext[None]) -> dict[str, Any]:
    return {'prompt': ctx.prompt, 'requests': ctx.usage.requests, 'shared': 'agent'}


async def test_metadata_merged_and_recomputed_at_the_end():
    seen: list[Any] = []
    agent = Agent(TestModel(), metadata=agent_metadata)

    @agent.tool
    def peek(ctx: RunContext[None]) -> str:
        seen.append(ctx.metadata)
        return 'ok'

    result = await agent.run('hello', metadata={'shared': 'run', 'extra': 1})
    assert seen == snapshot([{'prompt': 'hello', 'requests': 0, 'shared': 'run', 'extra': 1}])
    assert result.metadata == snapshot({'prompt': 'hello', 'requests': 2, 'shared': 'run', 'extra': 1})
    async with agent.iter('iter', metadata=lambda ctx: {'run': ctx.prompt}) as run:
        assert run.metadata == snapshot({'prompt': 'iter', 'requests': 0, 'shared': 'agent', 'run': 'iter'})
        async for _ in run:
            pass
    assert run.metadata == snapshot({'prompt': 'iter', 'requests': 2, 'shared': 'agent', 'run': 'iter'})


async def test_metadata_override_replaces_the_rest():
    agent = Agent(TestModel(), metadata={'agent': 1})
    assert (await agent.run('x')).metadata == {'agent': 1}
    assert (await Agent(TestModel()).run('x')).metadata is None
    assert (await Agent(TestModel()).run('x', metadata={'run': 1})).metadata == {'run': 1}
    with agent.override(metadata=lambda ctx: {'over': ctx.prompt}):
        assert (await agent.run('y', metadata={'run': 1})).metadata == {'over': 'y'}
    async with agent.run_stream('s', metadata={'s': 1}) as stream:
        assert stream.metadata == {'agent': 1, 's': 1}


def test_model_setter():
    agent = Agent('test', defer_model_check=True)
    assert agent.model == 'test'
    agent.model = TestModel(custom_output_text='from setter')
    assert agent.run_sync('x').output == 'from setter'


def test_unknown_keyword_arguments():
    with pytest.raises(UserError, match=r'^Unknown keyword arguments: `result_type`$'):
        Agent(TestModel(), result_type=int)
    with pytest.raises(UserError, match=r'^Unknown keyword arguments: `foo`, `bar`$'):
        Agent(TestModel(), foo=1, bar=2)


@pytest.mark.parametrize('method', ['run', 'run_sync', 'run_stream', 'run_stream_sync', 'run_stream_events', 'iter'])
def test_run_method_signatures_list_their_parameters(method: str):
    params = list(inspect.signature(getattr(Agent, method)).parameters)
    common = ['self', 'user_prompt', 'output_type', 'message_history', 'deferred_tool_results', 'model']
    assert params[: len(common)] == common
    assert {'metadata', 'infer_name', 'toolsets', 'builtin_tools', 'deferred_tool_handler'} <= set(params)
    assert all(
        p.kind is not inspect.Parameter.VAR_KEYWORD
        for p in inspect.signature(getattr(Agent, method)).parameters.values()
    )


def test_node_predicates():
    agent = Agent(TestModel())
    kinds: list[tuple[bool, bool, bool, bool]] = []

    async def drive() -> None:
        async with agent.iter('x') as run:
            async for node in run:
                kinds.append(
                    (
                        Agent.is_user_prompt_node(node),
                        Agent.is_model_request_node(node),
                        Agent.is_call_tools_node(node),
                        Agent.is_end_node(node),
                    )
                )

    anyio.run(drive)
    assert kinds == [
        (True, False, False, False),
        (False, True, False, False),
        (False, False, True, False),
        (False, False, False, True),
    ]


@pytest.mark.parametrize('mode', ['sequential', 'parallel'])
async def test_tool_call_execution_mode(mode: ParallelExecutionMode):
    events: list[str] = []
    agent = Agent(TestModel())

    @agent.tool_plain
    async def first() -> str:
        events.append('first start')
        await anyio.sleep(0.01)
        events.append('first end')
        return 'a'

    @agent.tool_plain
    async def second() -> str:
        events.append('second start')
        await anyio.sleep(0.01)
        events.append('second end')
        return 'b'

    with Agent.parallel_tool_call_execution_mode(mode):
        await agent.run('x')
    if mode == 'sequential':
        assert events == ['first start', 'first end', 'second start', 'second end']
    else:
        assert events == ['first start', 'second start', 'first end', 'second end']
    events.clear()
    with Agent.sequential_tool_calls():
        result: AgentRunResult[str] = await agent.run('x')
    assert events == ['first start', 'first end', 'second start', 'second end']
    assert result.output == snapshot('{"first":"a","second":"b"}')
