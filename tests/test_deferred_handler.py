"""`deferred_tool_handler`: deferred tool calls resolved within the run, in every run method."""

# pyright: reportUnusedFunction=false
# Tools registered by decorator are only used through the agent, which pyright cannot see.

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterable, AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any, Literal

import anyio
import pytest
from dirty_equals import IsInt, IsNow, IsStr
from inline_snapshot import snapshot
from pydantic import TypeAdapter
from pydantic_ai import (
    Agent,
    AgentStreamEvent,
    ApprovalRequired,
    CallDeferred,
    CallToolsNode,
    DeferredToolHandler,
    DeferredToolRequests,
    DeferredToolRequestsEvent,
    DeferredToolResults,
    DeferredToolResultsEvent,
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    ModelRetry,
    RequestUsage,
    RetryPromptPart,
    RunContext,
    TextPart,
    ToolApproved,
    ToolCallPart,
    ToolDenied,
    ToolReturn,
    ToolReturnPart,
    UsageLimitExceeded,
    UsageLimits,
    UserError,
    UserPromptPart,
)
from pydantic_ai.messages import HandleResponseEvent, ModelResponsePart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.tools import DeferredToolHandler as ToolsDeferredToolHandler

pytestmark = pytest.mark.anyio

IS_NOW: Any = IsNow(tz=UTC)
IS_STR: Any = IsStr()
IS_INT: Any = IsInt()

Method = Literal['run', 'run_sync', 'run_stream', 'run_stream_sync', 'iter']
METHODS: list[Method] = ['run', 'run_sync', 'run_stream', 'run_stream_sync', 'iter']


# A scripted model and an agent with one tool of each kind.


def scripted(*responses: Sequence[ModelResponsePart]) -> FunctionModel:
    """A model that answers the n-th request of a conversation with the n-th response, streamed or not.

    Past the script, it answers with the contents of the tool results it was last sent, joined by ` | `.
    """

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = sum(isinstance(m, ModelResponse) for m in messages)
        if done < len(responses):
            return ModelResponse(parts=list(responses[done]))
        returns = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart | RetryPromptPart)]
        return ModelResponse(parts=[TextPart(' | '.join(str(p.content) for p in returns) or 'done')])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        for index, part in enumerate(respond(messages, info).parts):
            if isinstance(part, TextPart):
                yield part.content
            else:
                assert isinstance(part, ToolCallPart)
                delta = DeltaToolCall(part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id)
                yield {index: delta}

    return FunctionModel(respond, stream_function=stream)


def call(tool_name: str, call_id: str, **args: Any) -> ToolCallPart:
    return ToolCallPart(tool_name, args, call_id)


@dataclass
class Log:
    """What the tools and the handler did, in order."""

    entries: list[str] = field(default_factory=list[str])
    metadata: dict[str, Any] = field(default_factory=dict[str, Any])
    """`ctx.tool_call_metadata` by call id, for tools that take the context."""

    def add(self, entry: str) -> None:
        self.entries.append(entry)


def make_agent(*responses: Sequence[ModelResponsePart], **kwargs: Any) -> tuple[Agent[None, Any], Log]:
    """An agent following the script, with tools that log what they do.

    - `plain(x)`: an ordinary tool;
    - `delete(path)`: needs approval by definition;
    - `write(path)`: raises `ApprovalRequired` (with metadata) unless approved;
    - `fetch(url)`: raises `CallDeferred` (with metadata): its result comes from outside.
    """
    log = Log()
    agent = Agent(scripted(*responses), **kwargs)

    @agent.tool_plain
    def plain(x: int) -> str:
        log.add(f'plain {x}')
        return f'plain {x}'

    @agent.tool_plain(requires_approval=True)
    def delete(path: str) -> str:
        log.add(f'delete {path}')
        return f'deleted {path}'

    @agent.tool
    def write(ctx: RunContext, path: str) -> str:
        if not ctx.tool_call_approved:
            raise ApprovalRequired(metadata={'approval_description': f'write to {path}'})
        assert ctx.tool_call_id is not None
        log.metadata[ctx.tool_call_id] = ctx.tool_call_metadata
        log.add(f'write {path}')
        return f'wrote {path}'

    @agent.tool_plain
    def fetch(url: str) -> str:
        raise CallDeferred(metadata={'url': url})

    return agent, log


def approve_all(ctx: RunContext[Any], requests: DeferredToolRequests) -> DeferredToolResults:
    results = DeferredToolResults()
    for c in requests.approvals:
        results.approvals[c.tool_call_id] = True
    for c in requests.calls:
        results.calls[c.tool_call_id] = f'fetched {c.args_as_dict()["url"]}'
    return results


@dataclass
class Outcome:
    output: Any
    messages: list[ModelMessage]


def execute(method: Method, agent: Agent[None, Any], prompt: str = 'go', **kwargs: Any) -> Outcome:
    """Run the agent with one of the five run methods, from sync code, to the end of its output."""
    if method == 'run_sync':
        result = agent.run_sync(prompt, **kwargs)
        return Outcome(result.output, result.all_messages())
    if method == 'run_stream_sync':
        streamed = agent.run_stream_sync(prompt, **kwargs)
        return Outcome(streamed.get_output(), streamed.all_messages())
    return anyio.run(execute_async, method, agent, prompt, kwargs)


async def execute_async(method: Method, agent: Agent[None, Any], prompt: str, kwargs: dict[str, Any]) -> Outcome:
    if method == 'run':
        result = await agent.run(prompt, **kwargs)
        return Outcome(result.output, result.all_messages())
    if method == 'run_stream':
        async with agent.run_stream(prompt, **kwargs) as streamed:
            output = await streamed.get_output()
        return Outcome(output, streamed.all_messages())
    assert method == 'iter'
    async with agent.iter(prompt, **kwargs) as agent_run:
        async for _ in agent_run:
            pass
    assert agent_run.result is not None
    return Outcome(agent_run.result.output, agent_run.result.all_messages())


def summary(messages: Sequence[ModelMessage]) -> list[list[Any]]:
    """The messages as the same lists for every run method (streamed responses differ in usage and arg types)."""
    return [[m.kind, *(_part_summary(p) for p in m.parts)] for m in messages]


def _part_summary(part: Any) -> tuple[Any, ...]:
    if isinstance(part, ToolCallPart):
        return ('call', part.tool_name, part.args_as_dict(), part.tool_call_id)
    if isinstance(part, ToolReturnPart | RetryPromptPart):
        return (part.part_kind, part.tool_name, part.content, part.tool_call_id)
    assert isinstance(part, UserPromptPart | TextPart)
    return (part.part_kind, part.content)


# Core behaviour, in every run method.

TWO_STEPS = (
    [
        call('plain', 'p1', x=1),
        call('delete', 'd1', path='a'),
        call('write', 'w1', path='b'),
        call('fetch', 'f1', url='u'),
    ],
    [call('write', 'w2', path='c')],
)


@pytest.mark.parametrize('method', METHODS)
def test_handler_resolves_each_response_inline(method: Method):
    agent, log = make_agent(*TWO_STEPS)
    seen: list[DeferredToolRequests] = []

    def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        log.add('handler')
        seen.append(requests)
        return approve_all(ctx, requests)

    outcome = execute(method, agent, deferred_tool_handler=handler)
    assert outcome.output == snapshot('wrote c')
    # The response's other tools ran first; the handler saw all its deferred calls before any of them ran.
    # (The approved calls of a response run concurrently, in no fixed order.)
    entries = log.entries
    assert [*entries[:2], sorted(entries[2:4]), *entries[4:]] == snapshot(
        ['plain 1', 'handler', ['delete a', 'write b'], 'handler', 'write c']
    )
    # Calls that raised come first, then the tools deferred by definition.
    assert seen == snapshot(
        [
            DeferredToolRequests(
                calls=[ToolCallPart(tool_name='fetch', args=args_like({'url': 'u'}), tool_call_id='f1')],
                approvals=[
                    ToolCallPart(tool_name='write', args=args_like({'path': 'b'}), tool_call_id='w1'),
                    ToolCallPart(tool_name='delete', args=args_like({'path': 'a'}), tool_call_id='d1'),
                ],
                metadata={'w1': {'approval_description': 'write to b'}, 'f1': {'url': 'u'}},
            ),
            DeferredToolRequests(
                approvals=[ToolCallPart(tool_name='write', args=args_like({'path': 'c'}), tool_call_id='w2')],
                metadata={'w2': {'approval_description': 'write to c'}},
            ),
        ]
    )
    # One result per call, the resolved ones after the response's other results, in call order.
    assert summary(outcome.messages) == snapshot(
        [
            ['request', ('user-prompt', 'go')],
            [
                'response',
                ('call', 'plain', {'x': 1}, 'p1'),
                ('call', 'delete', {'path': 'a'}, 'd1'),
                ('call', 'write', {'path': 'b'}, 'w1'),
                ('call', 'fetch', {'url': 'u'}, 'f1'),
            ],
            [
                'request',
                ('tool-return', 'plain', 'plain 1', 'p1'),
                ('tool-return', 'delete', 'deleted a', 'd1'),
                ('tool-return', 'write', 'wrote b', 'w1'),
                ('tool-return', 'fetch', 'fetched u', 'f1'),
            ],
            ['response', ('call', 'write', {'path': 'c'}, 'w2')],
            ['request', ('tool-return', 'write', 'wrote c', 'w2')],
            ['response', ('text', 'wrote c')],
        ]
    )


class _ArgsLike:
    """Tool call args equal to a dict, whether given as the dict or as its JSON (as streamed calls have them)."""

    def __init__(self, expected: dict[str, Any]) -> None:
        self.expected = expected

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _ArgsLike):
            return self.expected == other.expected
        return (json.loads(other) if isinstance(other, str) else other) == self.expected

    def __repr__(self) -> str:
        return f'args_like({self.expected!r})'


def args_like(expected: dict[str, Any]) -> Any:
    return _ArgsLike(expected)


async def test_approved_calls_run_concurrently():
    agent = Agent(scripted([call('slow', 's1'), call('slow', 's2')]))
    arrived = 0
    both = anyio.Event()

    @agent.tool_plain(requires_approval=True)
    async def slow() -> str:
        # Each call waits for the other: run one after the other, they would never finish.
        nonlocal arrived
        arrived += 1
        if arrived == 2:
            both.set()
        with anyio.fail_after(2):
            await both.wait()
        return 'ok'

    result = await agent.run('go', deferred_tool_handler=approve_all)
    assert result.output == snapshot('ok | ok')


async def test_approvals_denials_and_override_args():
    agent, log = make_agent(
        [
            call('delete', 'd1', path='a'),
            call('delete', 'd2', path='b'),
            call('delete', 'd3', path='c'),
            call('write', 'w1', path='d'),
            call('write', 'w2', path='f'),
            call('write', 'w3', path='g'),
        ]
    )

    def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        return DeferredToolResults(
            approvals={
                'd1': True,
                'd2': False,
                'd3': ToolDenied('User denied: too risky'),
                'w1': ToolApproved(override_args={'path': 'e'}),
                'w2': ToolApproved(),
                'w3': ToolDenied(),
            }
        )

    result = await agent.run('go', deferred_tool_handler=handler)
    # A denied tool never runs; an approval with other arguments runs with those.
    assert sorted(log.entries) == snapshot(['delete a', 'write e', 'write f'])
    # The model sees the denial message verbatim as the tool's result.
    assert result.new_messages()[2:] == snapshot(
        [
            ModelRequest(
                parts=[
                    ToolReturnPart(tool_name='delete', content='deleted a', tool_call_id='d1', timestamp=IS_NOW),
                    ToolReturnPart(
                        tool_name='delete', content='The tool call was denied.', tool_call_id='d2', timestamp=IS_NOW
                    ),
                    ToolReturnPart(
                        tool_name='delete', content='User denied: too risky', tool_call_id='d3', timestamp=IS_NOW
                    ),
                    ToolReturnPart(tool_name='write', content='wrote e', tool_call_id='w1', timestamp=IS_NOW),
                    ToolReturnPart(tool_name='write', content='wrote f', tool_call_id='w2', timestamp=IS_NOW),
                    ToolReturnPart(
                        tool_name='write', content='The tool call was denied.', tool_call_id='w3', timestamp=IS_NOW
                    ),
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[
                    TextPart(
                        content='deleted a | The tool call was denied. | User denied: too risky | wrote e | wrote f | '
                        'The tool call was denied.'
                    )
                ],
                usage=RequestUsage(input_tokens=IS_INT, output_tokens=IS_INT),
                model_name='function:respond:stream',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
        ]
    )


async def test_external_results():
    agent, _ = make_agent(
        [
            call('fetch', 'f1', url='a'),
            call('fetch', 'f2', url='b'),
            call('fetch', 'f3', url='c'),
            call('fetch', 'f4', url='d'),
        ]
    )

    def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        return DeferredToolResults(
            calls={
                'f1': {'status': 200},
                'f2': ToolReturn('page b', content='a screenshot of b', metadata={'size': 1}),
                'f3': ModelRetry('c is down, try another'),
                'f4': RetryPromptPart('d needs a login'),
            }
        )

    result = await agent.run('go', deferred_tool_handler=handler)
    assert result.new_messages()[2] == snapshot(
        ModelRequest(
            parts=[
                ToolReturnPart(tool_name='fetch', content={'status': 200}, tool_call_id='f1', timestamp=IS_NOW),
                ToolReturnPart(
                    tool_name='fetch', content='page b', tool_call_id='f2', metadata={'size': 1}, timestamp=IS_NOW
                ),
                RetryPromptPart(
                    content='c is down, try another', tool_name='fetch', tool_call_id='f3', timestamp=IS_NOW
                ),
                RetryPromptPart(content='d needs a login', tool_name='fetch', tool_call_id='f4', timestamp=IS_NOW),
                UserPromptPart(content='a screenshot of b', timestamp=IS_NOW),
            ],
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )


INCOMPLETE = {
    'missing': (
        DeferredToolResults(approvals={'d1': True}),
        r"Tool call results need to be provided for all deferred tool calls\. Expected: \{.*\}, got: \{'d1'\}",
    ),
    'unknown': (
        DeferredToolResults(approvals={'d1': True, 'w1': True, 'x9': True}, calls={'f1': 1}),
        r"Tool call results need to be provided for all deferred tool calls\. Expected: .*, got: .*'x9'",
    ),
    'approval for an external call': (
        DeferredToolResults(approvals={'d1': True, 'w1': True, 'f1': True}),
        r"Tool call 'f1' is an external call: give its result in `DeferredToolResults\.calls`, not an approval\.",
    ),
    'result for an approval': (
        DeferredToolResults(approvals={'d1': True}, calls={'w1': 'done', 'f1': 1}),
        r"Tool call 'w1' needs approval: answer it in `DeferredToolResults\.approvals`, not with a result\.",
    ),
}


@pytest.mark.parametrize('case', INCOMPLETE)
@pytest.mark.parametrize('method', METHODS)
def test_incomplete_results_fail_before_any_deferred_call_runs(method: Method, case: str):
    agent, log = make_agent(TWO_STEPS[0])
    results, message = INCOMPLETE[case]

    def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        return results

    with pytest.raises(UserError, match=message):
        execute(method, agent, deferred_tool_handler=handler)
    assert log.entries == ['plain 1']


def stubborn_agent(**kwargs: Any) -> tuple[Agent[None, Any], Log]:
    """The standard agent plus `stubborn`, a tool that asks for approval again even once approved."""
    agent, log = make_agent(
        [call('plain', 'p1', x=1), call('stubborn', 's1'), call('delete', 'd1', path='a')], **kwargs
    )

    @agent.tool
    def stubborn(ctx: RunContext) -> str:
        if ctx.tool_call_metadata is not None:
            return 'finally'
        raise ApprovalRequired(metadata={'round': 2 if ctx.tool_call_approved else 1})

    return agent, log


@pytest.mark.parametrize('method', METHODS)
def test_redeferral_ends_the_run_with_new_requests(method: Method):
    agent, log = stubborn_agent(output_type=[str, DeferredToolRequests])
    outcome = execute(method, agent, deferred_tool_handler=approve_all)
    assert outcome.output == snapshot(
        DeferredToolRequests(
            approvals=[ToolCallPart(tool_name='stubborn', args=args_like({}), tool_call_id='s1')],
            metadata={'s1': {'round': 2}},
        )
    )
    # What ran stays run; the call deferred again has no result yet.
    assert log.entries == ['plain 1', 'delete a']
    assert summary(outcome.messages[2:]) == snapshot(
        [
            [
                'request',
                ('tool-return', 'plain', 'plain 1', 'p1'),
                ('tool-return', 'delete', 'deleted a', 'd1'),
            ]
        ]
    )
    # The run can be resumed from there, and then every call has exactly one result.
    resumed = agent.run_sync(
        message_history=outcome.messages,
        deferred_tool_results=DeferredToolResults(approvals={'s1': True}, metadata={'s1': {'ok': True}}),
    )
    assert resumed.output == snapshot('plain 1 | deleted a | finally')
    assert summary(resumed.all_messages()[2:]) == snapshot(
        [
            ['request', ('tool-return', 'plain', 'plain 1', 'p1'), ('tool-return', 'delete', 'deleted a', 'd1')],
            ['request', ('tool-return', 'stubborn', 'finally', 's1')],
            ['response', ('text', 'plain 1 | deleted a | finally')],
        ]
    )


@pytest.mark.parametrize('method', METHODS)
def test_redeferral_needs_deferred_tool_requests_in_the_output_type(method: Method):
    agent, log = stubborn_agent()
    with pytest.raises(UserError, match='A deferred tool call was present, but `DeferredToolRequests` is not among'):
        execute(method, agent, deferred_tool_handler=approve_all)
    assert log.entries == ['plain 1', 'delete a']


async def test_no_metadata_pass_through():
    agent, log = make_agent([call('write', 'w1', path='a')], [call('write', 'w2', path='b')])
    handler_saw: list[dict[str, Any]] = []

    def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        handler_saw.append(requests.metadata)
        (pending,) = requests.approvals
        results = DeferredToolResults(approvals={pending.tool_call_id: True})
        if pending.tool_call_id == 'w2':
            # Copied explicitly, request metadata does reach the tool.
            results.metadata['w2'] = {**requests.metadata['w2'], 'approved_by': 'alice'}
        return results

    await agent.run('go', deferred_tool_handler=handler)
    assert handler_saw == snapshot(
        [{'w1': {'approval_description': 'write to a'}}, {'w2': {'approval_description': 'write to b'}}]
    )
    assert log.metadata == snapshot({'w1': None, 'w2': {'approval_description': 'write to b', 'approved_by': 'alice'}})


async def test_sync_handler_runs_in_a_worker_thread():
    agent, _ = make_agent([call('delete', 'd1', path='a')])
    loop_thread = threading.get_ident()
    released = threading.Event()
    started = anyio.Event()
    handler_threads: list[int] = []

    def blocking_handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        handler_threads.append(threading.get_ident())
        anyio.from_thread.run_sync(started.set)
        # Like `input()`: it blocks until something else happens. Only a running event loop can release it.
        assert released.wait(timeout=5)
        return approve_all(ctx, requests)

    async def release_soon() -> None:
        await started.wait()
        released.set()

    outputs: list[str] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(release_soon)
        outputs.append((await agent.run('go', deferred_tool_handler=blocking_handler)).output)
    assert outputs == ['deleted a']
    assert handler_threads != [loop_thread]


async def test_async_handler_is_awaited_on_the_loop():
    agent, _ = make_agent([call('delete', 'd1', path='a')])
    threads: list[int] = []

    async def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        threads.append(threading.get_ident())
        await anyio.lowlevel.checkpoint()
        return approve_all(ctx, requests)

    result = await agent.run('go', deferred_tool_handler=handler)
    assert result.output == 'deleted a'
    assert threads == [threading.get_ident()]


class HandlerFailed(Exception):
    pass


@pytest.mark.parametrize('method', METHODS)
@pytest.mark.parametrize('is_async', [False, True], ids=['sync', 'async'])
def test_handler_exceptions_propagate_unchanged(method: Method, is_async: bool):
    agent, log = make_agent(TWO_STEPS[0])
    error = HandlerFailed('no UI available')

    def sync_handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        raise error

    async def async_handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        raise error

    with pytest.raises(HandlerFailed) as info:
        execute(method, agent, deferred_tool_handler=async_handler if is_async else sync_handler)
    assert info.value is error
    assert log.entries == ['plain 1']


async def test_handler_must_return_deferred_tool_results():
    agent, _ = make_agent([call('delete', 'd1', path='a')])
    with pytest.raises(UserError, match="The deferred tool handler must return a `DeferredToolResults`, not 'dict'"):
        await agent.run('go', deferred_tool_handler=lambda ctx, requests: {'d1': True})  # pyright: ignore[reportArgumentType]


async def test_tool_calls_limit_counts_the_approved_calls():
    agent, log = make_agent([call('plain', 'p1', x=1), call('delete', 'd1', path='a'), call('delete', 'd2', path='b')])
    with pytest.raises(
        UsageLimitExceeded, match=r'The next tool call\(s\) would exceed the tool_calls_limit of 2 \(tool_calls=3\)\.'
    ):
        await agent.run('go', deferred_tool_handler=approve_all, usage_limits=UsageLimits(tool_calls_limit=2))
    assert log.entries == ['plain 1']
    result = await agent.run('go', deferred_tool_handler=approve_all, usage_limits=UsageLimits(tool_calls_limit=3))
    assert result.usage().tool_calls == 3


# Nested deferred calls: a tool that runs a sub-agent gets the sub-agent's calls answered within the run.


def delegating_agent(**kwargs: Any) -> Agent[None, Any]:
    """An agent whose `delegate` tool runs a sub-agent that needs an approval and an external result."""
    sub_agent = Agent(
        scripted([call('drop_table', 'c1', name='old'), call('lookup', 'l1', key='owner')]),
        output_type=[str, DeferredToolRequests],
    )

    @sub_agent.tool_plain(requires_approval=True)
    def drop_table(name: str) -> str:
        return f'dropped {name}'

    @sub_agent.tool_plain
    def lookup(key: str) -> str:
        raise CallDeferred(metadata={'asks': key})

    agent = Agent(scripted([call('delegate', 'd1', task='clean up')]), **kwargs)

    @agent.tool
    async def delegate(ctx: RunContext, task: str) -> str:
        saved = ctx.tool_call_context
        history = None if saved is None else ModelMessagesTypeAdapter.validate_python(saved)
        result = await sub_agent.run(
            task if history is None else None, message_history=history, deferred_tool_results=ctx.deferred_tool_results
        )
        if isinstance(result.output, DeferredToolRequests):
            raise CallDeferred(deferred_tool_requests=result.output, context=result.all_messages())
        return f'{task}: {result.output}'

    return agent


@pytest.mark.parametrize('method', METHODS)
def test_nested_calls_are_answered_inline(method: Method):
    seen: list[DeferredToolRequests] = []

    def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        seen.append(requests)
        return DeferredToolResults(calls={'d1::l1': 'alice'}, approvals={'d1::c1': True})

    outcome = execute(method, delegating_agent(), deferred_tool_handler=handler)
    assert outcome.output == snapshot('clean up: alice | dropped old')
    assert [(c.tool_call_id, c.tool_name) for r in seen for c in [*r.calls, *r.approvals]] == snapshot(
        [('d1::l1', 'lookup'), ('d1::c1', 'drop_table')]
    )
    assert seen[0].metadata == snapshot({'d1::l1': {'asks': 'owner'}})
    assert summary(outcome.messages[2:]) == snapshot(
        [
            ['request', ('tool-return', 'delegate', 'clean up: alice | dropped old', 'd1')],
            ['response', ('text', 'clean up: alice | dropped old')],
        ]
    )


# Streaming.


async def test_run_stream_streams_the_output_of_a_later_response():
    agent, log = make_agent([call('delete', 'd1', path='a')], [TextPart('all '), TextPart('done')])
    async with agent.run_stream('go', deferred_tool_handler=approve_all) as streamed:
        texts = [text async for text in streamed.stream_text(delta=True, debounce_by=None)]
    assert texts == snapshot(['all ', 'done'])
    assert log.entries == ['delete a']
    assert summary(streamed.new_messages()) == snapshot(
        [
            ['request', ('user-prompt', 'go')],
            ['response', ('call', 'delete', {'path': 'a'}, 'd1')],
            ['request', ('tool-return', 'delete', 'deleted a', 'd1')],
            ['response', ('text', 'all done')],
        ]
    )


@pytest.mark.parametrize('method', ['run_stream', 'run_stream_sync'])
def test_streamed_final_output_skips_the_deferred_calls(method: Method):
    agent, log = make_agent([TextPart('final answer'), call('delete', 'd1', path='a'), call('fetch', 'f1', url='u')])
    calls: list[DeferredToolRequests] = []

    def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        calls.append(requests)  # pragma: no cover
        return approve_all(ctx, requests)  # pragma: no cover

    outcome = execute(method, agent, deferred_tool_handler=handler)
    assert outcome.output == 'final answer'
    assert calls == []
    assert log.entries == []
    assert summary(outcome.messages[1:]) == snapshot(
        [
            [
                'response',
                ('text', 'final answer'),
                ('call', 'delete', {'path': 'a'}, 'd1'),
                ('call', 'fetch', {'url': 'u'}, 'f1'),
            ],
            [
                'request',
                ('tool-return', 'fetch', 'Tool not executed - a final result was already processed.', 'f1'),
                ('tool-return', 'delete', 'Tool not executed - a final result was already processed.', 'd1'),
            ],
        ]
    )


async def test_deferred_call_before_text_in_a_streamed_response():
    # With a handler a deferred call does not start the final result: the text after it does.
    agent, _ = make_agent([call('delete', 'd1', path='a'), TextPart('final answer')])
    async with agent.run_stream('go', deferred_tool_handler=approve_all) as streamed:
        assert await streamed.get_output() == 'final answer'
    # Without one, the deferred call ends the run.
    agent, _ = make_agent(
        [call('delete', 'd1', path='a'), TextPart('final answer')], output_type=[str, DeferredToolRequests]
    )
    async with agent.run_stream('go') as streamed:
        output = await streamed.get_output()
    assert output == snapshot(
        DeferredToolRequests(approvals=[ToolCallPart(tool_name='delete', args='{"path":"a"}', tool_call_id='d1')])
    )


async def test_output_tool_result_skips_the_deferred_calls():
    agent, log = make_agent(
        [call('final_result', 'o1', response=1), call('delete', 'd1', path='a'), call('plain', 'p1', x=1)],
        output_type=int,
        end_strategy='exhaustive',
    )

    def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        raise AssertionError('not called')  # pragma: no cover

    result = await agent.run('go', deferred_tool_handler=handler)
    assert result.output == 1
    assert log.entries == ['plain 1']
    assert summary(result.new_messages()[2:]) == snapshot(
        [
            [
                'request',
                ('tool-return', 'final_result', 'Final result processed.', 'o1'),
                ('tool-return', 'plain', 'plain 1', 'p1'),
                ('tool-return', 'delete', 'Tool not executed - a final result was already processed.', 'd1'),
            ]
        ]
    )


# Events.


def tool_stage(events: Sequence[AgentStreamEvent]) -> list[str]:
    """The events of the tool-call stages, briefly."""
    brief: list[str] = []
    for event in events:
        if isinstance(event, FunctionToolCallEvent):
            brief.append(f'call {event.tool_call_id}')
        elif isinstance(event, FunctionToolResultEvent):
            brief.append(f'result {event.tool_call_id}: {event.result.content}')
        elif isinstance(event, DeferredToolRequestsEvent):
            ids = [c.tool_call_id for c in [*event.requests.calls, *event.requests.approvals]]
            brief.append(f'requests {ids}')
        elif isinstance(event, DeferredToolResultsEvent):
            brief.append(f'results {sorted([*event.results.calls, *event.results.approvals])}')
    return brief


EVENTS_OF_TWO_STEPS = [
    'call p1',
    'call w1',
    'call f1',
    'result p1: plain 1',
    'call d1',
    "requests ['f1', 'w1', 'd1']",
    "results ['d1', 'f1', 'w1']",
    'result f1: fetched u',
    'result d1: deleted a',
    'result w1: wrote b',
    'call w2',
    "requests ['w2']",
    "results ['w2']",
    'result w2: wrote c',
]


def collector(events: list[AgentStreamEvent]) -> Callable[[RunContext[None], AsyncIterable[AgentStreamEvent]], Any]:
    async def handler(ctx: RunContext[None], stream: AsyncIterable[AgentStreamEvent]) -> None:
        async for event in stream:
            events.append(event)

    return handler


@pytest.mark.parametrize('method', ['run', 'run_sync', 'run_stream', 'run_stream_sync'])
def test_events_with_an_event_stream_handler(method: Method):
    agent, _ = make_agent(*TWO_STEPS)
    events: list[AgentStreamEvent] = []
    execute(method, agent, deferred_tool_handler=approve_all, event_stream_handler=collector(events))
    brief = tool_stage(events)
    # The approved calls finish in no fixed order.
    assert brief[:7] == EVENTS_OF_TWO_STEPS[:7]
    assert sorted(brief[7:10]) == sorted(EVENTS_OF_TWO_STEPS[7:10])
    assert brief[10:] == EVENTS_OF_TWO_STEPS[10:]
    requests_event = next(e for e in events if isinstance(e, DeferredToolRequestsEvent))
    assert requests_event.requests.metadata == snapshot(
        {'w1': {'approval_description': 'write to b'}, 'f1': {'url': 'u'}}
    )


async def test_events_of_call_tools_node_stream():
    agent, _ = make_agent([call('delete', 'd1', path='a'), call('fetch', 'f1', url='u')])
    events: list[HandleResponseEvent] = []
    async with agent.iter('go', deferred_tool_handler=approve_all) as agent_run:
        node = agent_run.next_node
        while not isinstance(node, CallToolsNode):
            node = await agent_run.next(node)  # pyright: ignore[reportArgumentType]
        async with node.stream(agent_run.ctx) as stream:
            events.extend([event async for event in stream])
    assert events == snapshot(
        [
            FunctionToolCallEvent(part=ToolCallPart(tool_name='fetch', args={'url': 'u'}, tool_call_id='f1')),
            FunctionToolCallEvent(part=ToolCallPart(tool_name='delete', args={'path': 'a'}, tool_call_id='d1')),
            DeferredToolRequestsEvent(
                requests=DeferredToolRequests(
                    calls=[ToolCallPart(tool_name='fetch', args={'url': 'u'}, tool_call_id='f1')],
                    approvals=[ToolCallPart(tool_name='delete', args={'path': 'a'}, tool_call_id='d1')],
                    metadata={'f1': {'url': 'u'}},
                )
            ),
            DeferredToolResultsEvent(results=DeferredToolResults(calls={'f1': 'fetched u'}, approvals={'d1': True})),
            FunctionToolResultEvent(
                result=ToolReturnPart(tool_name='fetch', content='fetched u', tool_call_id='f1', timestamp=IS_NOW)
            ),
            FunctionToolResultEvent(
                result=ToolReturnPart(tool_name='delete', content='deleted a', tool_call_id='d1', timestamp=IS_NOW)
            ),
        ]
    )


def test_event_reprs_and_json_round_trip():
    requests = DeferredToolRequests(approvals=[call('delete', 'd1', path='a')], metadata={'d1': {'k': 1}})
    results = DeferredToolResults(approvals={'d1': ToolDenied('no')})
    events: list[AgentStreamEvent] = [DeferredToolRequestsEvent(requests), DeferredToolResultsEvent(results)]
    assert [repr(e) for e in events] == snapshot(
        [
            "DeferredToolRequestsEvent(requests=DeferredToolRequests(calls=[], approvals=[ToolCallPart(tool_name='delete', args={'path': 'a'}, tool_call_id='d1')], metadata={'d1': {'k': 1}}, context={}))",
            "DeferredToolResultsEvent(results=DeferredToolResults(calls={}, approvals={'d1': ToolDenied(message='no', kind='tool-denied')}, metadata={}, context={}))",
        ]
    )
    adapter: TypeAdapter[list[AgentStreamEvent]] = TypeAdapter(list[AgentStreamEvent])
    assert adapter.validate_json(adapter.dump_json(events)) == events
    assert [e.event_kind for e in events] == ['deferred_tool_requests', 'deferred_tool_results']


async def test_resume_flow_emits_tool_events():
    agent, _ = make_agent(
        [call('delete', 'd1', path='a'), call('fetch', 'f1', url='u')], output_type=[str, DeferredToolRequests]
    )
    first = await agent.run('go')
    events: list[AgentStreamEvent] = []
    results = DeferredToolResults(approvals={'d1': ToolDenied('not today')}, calls={'f1': 'fetched'})
    await agent.run(
        message_history=first.all_messages(), deferred_tool_results=results, event_stream_handler=collector(events)
    )
    # As upstream: each call is announced, then the results come, without deferred-handler events.
    assert tool_stage(events) == snapshot(['call f1', 'call d1', 'result f1: fetched', 'result d1: not today'])


# Without a handler, and which handler applies.


@pytest.mark.parametrize('method', METHODS)
def test_without_a_handler_the_run_ends_with_requests(method: Method):
    agent, log = make_agent(TWO_STEPS[0], output_type=[str, DeferredToolRequests])
    outcome = execute(method, agent)
    assert outcome.output == (
        DeferredToolRequests(
            calls=[ToolCallPart(tool_name='fetch', args=args_like({'url': 'u'}), tool_call_id='f1')],
            approvals=[
                ToolCallPart(tool_name='write', args=args_like({'path': 'b'}), tool_call_id='w1'),
                ToolCallPart(tool_name='delete', args=args_like({'path': 'a'}), tool_call_id='d1'),
            ],
            metadata={'w1': {'approval_description': 'write to b'}, 'f1': {'url': 'u'}},
        )
        if method not in ('run_stream', 'run_stream_sync')
        # A streamed run ends as soon as a response starts with a call that must wait: the calls it lists are
        # those of the tools deferred by definition.
        else DeferredToolRequests(
            approvals=[ToolCallPart(tool_name='delete', args=args_like({'path': 'a'}), tool_call_id='d1')],
        )
    )
    # There, as the final result, it also skips the response's other tools.
    assert log.entries == ([] if method in ('run_stream', 'run_stream_sync') else ['plain 1'])


def test_without_a_handler_there_are_no_handler_events():
    agent, _ = make_agent(TWO_STEPS[0], output_type=[str, DeferredToolRequests])
    events: list[AgentStreamEvent] = []
    agent.run_sync('go', event_stream_handler=collector(events))
    assert tool_stage(events) == snapshot(['call p1', 'call w1', 'call f1', 'result p1: plain 1', 'call d1'])


def deny_with(message: str) -> DeferredToolHandler[None]:
    def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        return DeferredToolResults(approvals={c.tool_call_id: ToolDenied(message) for c in requests.approvals})

    return handler


@pytest.mark.parametrize('method', METHODS)
def test_the_runs_handler_overrides_the_agents(method: Method):
    agent, _ = make_agent([call('delete', 'd1', path='a')], deferred_tool_handler=deny_with('agent says no'))
    assert execute(method, agent).output == 'agent says no'
    assert execute(method, agent, deferred_tool_handler=deny_with('run says no')).output == 'run says no'
    # `None` means "not given": the agent's handler applies.
    assert execute(method, agent, deferred_tool_handler=None).output == 'agent says no'


def test_handler_type_is_exported_and_checked():
    assert DeferredToolHandler is ToolsDeferredToolHandler
    agent = Agent(scripted([call('delete', 'd1', path='a')]), deps_type=str)

    @agent.tool_plain(requires_approval=True)
    def delete() -> str:
        return 'deleted'  # pragma: no cover

    def int_handler(ctx: RunContext[int], requests: DeferredToolRequests) -> DeferredToolResults:
        return DeferredToolResults()  # pragma: no cover

    def str_handler(ctx: RunContext[str], requests: DeferredToolRequests) -> DeferredToolResults:
        return DeferredToolResults(approvals={'d1': ToolDenied(f'{ctx.deps} says no')})

    assert agent.run_sync('go', deps='bob', deferred_tool_handler=str_handler).output == 'bob says no'
    # pyright checks the handler's deps type against the agent's: if it stopped doing so, these ignores would be
    # reported as unnecessary (`reportUnnecessaryTypeIgnoreComment`), failing the type check.
    with pytest.raises(UserError):
        agent.run_sync('go', deps='bob', deferred_tool_handler=int_handler)  # pyright: ignore[reportArgumentType]
    Agent('test', deps_type=str, deferred_tool_handler=int_handler)  # pyright: ignore[reportArgumentType]


async def test_parent_run_again_with_nested_answers_is_approved():
    approved: list[bool] = []
    agent = Agent(scripted([call('parent', 'p1')]))

    @agent.tool
    def parent(ctx: RunContext) -> str:
        approved.append(ctx.tool_call_approved)
        if ctx.deferred_tool_results is None:
            nested = DeferredToolRequests(approvals=[ToolCallPart('child', {}, tool_call_id='c1')])
            raise CallDeferred(deferred_tool_requests=nested)
        return 'child answered'

    def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        return DeferredToolResults(approvals={'p1::c1': True})

    result = await agent.run('go', deferred_tool_handler=handler)
    assert result.output == snapshot('child answered')
    assert approved == [False, True]
