"""Tests of streaming: `run_stream`, `run_stream_sync`, event stream handlers, node streams and model streams."""

# pyright: reportUnusedFunction=false
# Tools registered by decorator are only used through the agent, which pyright cannot see.

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterable, AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import anyio
import pytest
from dirty_equals import AnyThing, IsNow, IsStr
from inline_snapshot import snapshot
from pydantic import BaseModel, ValidationError
from pydantic_ai import (
    Agent,
    AgentStreamEvent,
    CallToolsNode,
    DeferredToolRequests,
    ExternalToolset,
    FinalResultEvent,
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    ModelMessage,
    ModelRequest,
    ModelRequestNode,
    ModelResponse,
    ModelRetry,
    NativeOutput,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    RequestUsage,
    RetryPromptPart,
    RunContext,
    RunUsage,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
    ToolDefinition,
    ToolOutput,
    ToolReturn,
    ToolReturnPart,
    UnexpectedModelBehavior,
    UsageLimitExceeded,
    UsageLimits,
    UserError,
    UserPromptPart,
)
from pydantic_ai._errors import ToolRetryError
from pydantic_ai._parts_manager import ModelResponsePartsManager
from pydantic_ai.agent import EventStreamHandler
from pydantic_ai.agent.abstract import _HeldRun
from pydantic_ai.messages import ModelResponseStreamEvent
from pydantic_ai.models import Model, ModelRequestParameters, StreamedResponse
from pydantic_ai.models.function import AgentInfo, DeltaThinkingPart, DeltaToolCall, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.result import AgentStream, StreamedRunResult, StreamedRunResultSync
from pydantic_graph import End

pytestmark = pytest.mark.anyio

# Typed as `Any` so the matchers can stand in for datetimes and strings in message constructors.
IS_NOW: Any = IsNow(tz=UTC)
IS_STR: Any = IsStr()
ANYTHING: Any = AnyThing


class Point(BaseModel):
    x: int
    label: str


async def words(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    for word in ['one ', 'two ', 'three ', 'four']:
        yield word


def responses_by_step(*steps: list[Any]):
    """A stream function yielding the items of `steps[n]` for the n-th request of a run."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        step = sum(isinstance(message, ModelResponse) for message in messages)
        for item in steps[min(step, len(steps) - 1)]:
            yield item

    return stream


def call(index: int, name: str, args: str = '{"a": 1}', call_id: str | None = None) -> dict[int, DeltaToolCall]:
    return {index: DeltaToolCall(name, args, tool_call_id=call_id or f'{name}_{index}')}


def tool_agent(*steps: list[Any], **kwargs: Any) -> Agent[None, Any]:
    agent = Agent(FunctionModel(stream_function=responses_by_step(*steps)), **kwargs)

    @agent.tool_plain
    async def add_one(a: int) -> int:
        return a + 1

    return agent


def collecting_handler(events: list[AgentStreamEvent]) -> EventStreamHandler[Any]:
    async def handler(ctx: RunContext[Any], stream: AsyncIterable[AgentStreamEvent]) -> None:
        async for event in stream:
            events.append(event)

    return handler


# `run_stream`: text.


async def test_stream_text() -> None:
    agent = Agent(FunctionModel(stream_function=words))
    async with agent.run_stream('Count.') as result:
        assert not result.is_complete
        assert [text async for text in result.stream_text(debounce_by=None)] == snapshot(
            ['one ', 'one two ', 'one two three ', 'one two three four']
        )
        assert result.is_complete
        assert await result.get_output() == 'one two three four'
        assert result.usage() == snapshot(RunUsage(input_tokens=50, output_tokens=4, requests=1))
        assert result.timestamp() == IS_NOW
    assert result.all_messages() == snapshot(
        [
            ModelRequest(parts=[UserPromptPart(content='Count.', timestamp=IS_NOW)], timestamp=IS_NOW, run_id=IS_STR),
            ModelResponse(
                parts=[TextPart(content='one two three four')],
                usage=RequestUsage(input_tokens=50, output_tokens=4),
                model_name='function::words',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
        ]
    )
    assert result.new_messages() == result.all_messages()
    assert result.new_messages_json().startswith(b'[{"parts":[{"content":"Count."')


async def test_stream_text_delta() -> None:
    agent = Agent(FunctionModel(stream_function=responses_by_step(['a', '', '', 'b'])))
    async with agent.run_stream('Go.') as result:
        assert [text async for text in result.stream_text(delta=True, debounce_by=None)] == ['a', 'b']
    async with agent.run_stream('Go.') as result:
        # Pieces that change nothing are not repeated.
        assert [text async for text in result.stream_text(debounce_by=None)] == ['a', 'ab']


async def test_stream_text_debounced() -> None:
    async def two_bursts(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield 'one '
        yield 'two '
        await anyio.sleep(0.3)
        yield 'three '
        yield 'four'

    agent = Agent(FunctionModel(stream_function=two_bursts))
    async with agent.run_stream('Go.') as result:
        # Pieces within a window are grouped; a pause longer than the window starts a new group.
        assert [text async for text in result.stream_text(delta=True, debounce_by=0.05)] == ['one two ', 'three four']
    async with agent.run_stream('Go.') as result:
        assert [text async for text in result.stream_text(debounce_by=0.05)] == ['one two ', 'one two three four']
    async with Agent(FunctionModel(stream_function=words)).run_stream('Go.') as result:
        # A stream that arrives within one window is one group.
        assert [text async for text in result.stream_text(debounce_by=5)] == ['one two three four']
    async with Agent(FunctionModel(stream_function=words)).run_stream('Go.') as result:
        # The default window is 0.1 seconds.
        assert [text async for text in result.stream_text()][-1] == 'one two three four'

    async def pause_then_end(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield 'one'
        await anyio.sleep(0.3)

    async with Agent(FunctionModel(stream_function=pause_then_end)).run_stream('Go.') as result:
        assert [text async for text in result.stream_text(delta=True, debounce_by=0.05)] == ['one']


async def test_stream_text_validators_see_partial_text() -> None:
    calls: list[tuple[bool, str]] = []
    agent = Agent(FunctionModel(stream_function=words))

    @agent.output_validator
    def check(ctx: RunContext[None], output: str) -> str:
        calls.append((ctx.partial_output, output))
        return output.upper()

    async with agent.run_stream('Go.') as result:
        assert [text async for text in result.stream_text(debounce_by=None)][-1] == 'ONE TWO THREE FOUR'
        assert await result.get_output() == 'ONE TWO THREE FOUR'
        # Once complete, the text is given as it is, without validating it again.
        assert [text async for text in result.stream_text(debounce_by=None)] == ['one two three four']
    assert calls == snapshot(
        [
            (True, 'one '),
            (True, 'one two '),
            (True, 'one two three '),
            (True, 'one two three four'),
            (False, 'one two three four'),
        ]
    )


async def test_stream_text_of_structured_output_is_an_error() -> None:
    agent = Agent(FunctionModel(stream_function=responses_by_step([call(0, 'final_result', '{"x": 1, "label": "a"}')])))
    async with agent.run_stream('Go.', output_type=Point) as result:
        with pytest.raises(UserError, match=r'stream_text\(\) can only be used with text responses'):
            async for _ in result.stream_text():
                pass


async def test_stream_output_text() -> None:
    agent = Agent(FunctionModel(stream_function=responses_by_step(['a', '', 'b'])))
    async with agent.run_stream('Go.') as result:
        # Unchanged snapshots give no output; the final output comes last.
        assert [output async for output in result.stream_output(debounce_by=None)] == ['a', 'ab', 'ab']
        assert result.is_complete


async def test_stream_responses() -> None:
    agent = Agent(FunctionModel(stream_function=responses_by_step(['a', 'b'])))
    async with agent.run_stream('Go.') as result:
        items = [item async for item in result.stream_responses(debounce_by=None)]
    # The last snapshot is the response recorded in the history.
    assert items[-1][0] is result.all_messages()[-1]
    assert [(response.parts, last) for response, last in items] == snapshot(
        [
            ([TextPart(content='a')], False),
            ([TextPart(content='ab')], False),
            ([TextPart(content='ab')], False),
            ([TextPart(content='ab')], True),
        ]
    )


async def test_get_output_without_streaming() -> None:
    agent = Agent(FunctionModel(stream_function=words))
    async with agent.run_stream('Go.') as result:
        assert await result.get_output() == 'one two three four'
        assert await result.get_output() == 'one two three four'
        assert result.is_complete
        assert result.response.parts == [TextPart('one two three four')]
        assert result.run_id == result.all_messages()[0].run_id


async def test_messages_during_the_stream() -> None:
    agent = Agent(FunctionModel(stream_function=words), metadata={'trace': 'x'})
    async with agent.run_stream('Go.') as result:
        # The response being streamed joins the history once it is complete.
        assert [message.kind for message in result.all_messages()] == ['request']
        assert result.usage() == snapshot(RunUsage(input_tokens=50, output_tokens=1, requests=1))
        assert result.response.parts == [TextPart('one ')]
        assert result.metadata == {'trace': 'x'}
        await result.get_output()
        assert [message.kind for message in result.all_messages()] == ['request', 'response']


async def test_output_tool_return_content_is_not_supported() -> None:
    agent = Agent(FunctionModel(stream_function=words))
    async with agent.run_stream('Go.') as result:
        await result.get_output()
        for method in (result.all_messages, result.all_messages_json, result.new_messages, result.new_messages_json):
            with pytest.raises(NotImplementedError, match='Setting output tool return content is not supported'):
                method(output_tool_return_content='done')


# `run_stream`: structured output.


async def test_stream_output_structured() -> None:
    stream = responses_by_step(
        [
            call(0, 'final_result', '{"x": 4', 'out'),
            {0: DeltaToolCall(json_args='2, "label": "he')},
            {0: DeltaToolCall(json_args='llo')},
            {0: DeltaToolCall(json_args='"}')},
        ]
    )
    agent = Agent(FunctionModel(stream_function=stream), output_type=Point)
    async with agent.run_stream('Go.') as result:
        # A snapshot that does not validate yet is skipped; the others are validated partial objects.
        assert [output async for output in result.stream_output(debounce_by=None)] == snapshot(
            [
                Point(x=42, label='he'),
                Point(x=42, label='hello'),
                Point(x=42, label='hello'),
                Point(x=42, label='hello'),
            ]
        )
        assert result.usage() == snapshot(RunUsage(input_tokens=50, output_tokens=9, requests=1))
    assert result.new_messages() == snapshot(
        [
            ModelRequest(parts=[UserPromptPart(content='Go.', timestamp=IS_NOW)], timestamp=IS_NOW, run_id=IS_STR),
            ModelResponse(
                parts=[ToolCallPart(tool_name='final_result', args='{"x": 42, "label": "hello"}', tool_call_id='out')],
                usage=RequestUsage(input_tokens=50, output_tokens=9),
                model_name='function::stream',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelRequest(
                parts=[
                    ToolReturnPart(
                        tool_name='final_result',
                        content='Final result processed.',
                        tool_call_id='out',
                        timestamp=IS_NOW,
                    )
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
        ]
    )


async def test_stream_native_output() -> None:
    agent = Agent(
        FunctionModel(stream_function=responses_by_step(['{"x": 1', ', "label": "a', 'b"}'])),
        output_type=NativeOutput(Point),
    )
    async with agent.run_stream('Go.') as result:
        assert [output async for output in result.stream_output(debounce_by=None)] == snapshot(
            [Point(x=1, label='a'), Point(x=1, label='ab'), Point(x=1, label='ab')]
        )


async def test_invalid_final_output_raises_the_validation_error() -> None:
    stream = responses_by_step([call(0, 'final_result', '{"x": "nope", "label": "a"}')])
    agent = Agent(FunctionModel(stream_function=stream), output_type=Point)
    async with agent.run_stream('Go.') as result:
        with pytest.raises(ValidationError, match='Input should be a valid integer'):
            await result.get_output()
        assert not result.is_complete


async def test_validator_retry_at_the_end_of_a_stream_is_raised() -> None:
    agent = Agent(FunctionModel(stream_function=words))

    @agent.output_validator
    def check(ctx: RunContext[None], output: str) -> str:
        if not ctx.partial_output:
            raise ModelRetry('Not good enough.')
        return output

    async with agent.run_stream('Go.') as result:
        with pytest.raises(ToolRetryError, match='Not good enough'):
            await result.get_output()


async def test_structured_output_from_the_tool_stage() -> None:
    # Tool output mode: JSON text is not a final result while streaming, so the run ends in the tool stage and
    # the result holds the finished run.
    stream = responses_by_step(['{"x": 1', ', "label": "a"}'])
    agent = Agent(FunctionModel(stream_function=stream), output_type=Point)
    async with agent.run_stream('Go.') as result:
        assert not result.is_complete
        assert result.response.parts == [TextPart('{"x": 1, "label": "a"}')]
        assert result.usage() == snapshot(RunUsage(input_tokens=50, output_tokens=7, requests=1))
        assert result.timestamp() == IS_NOW
        assert result.metadata is None
        with pytest.raises(UserError, match='can only be used with text responses'):
            async for _ in result.stream_text():
                pass
        assert [output async for output in result.stream_output()] == [Point(x=1, label='a')]
        assert result.is_complete
        assert await result.get_output() == Point(x=1, label='a')
        assert [last async for _, last in result.stream_responses()] == [True]
        assert result.run_id == result.all_messages()[0].run_id


# `run_stream`: tool calls.


async def test_tool_calls_before_the_final_response() -> None:
    agent = tool_agent([call(0, 'add_one', '{"a": 1}', 'c1')], ['the answer ', 'is 2'])
    async with agent.run_stream('Go.') as result:
        assert [text async for text in result.stream_text(debounce_by=None)] == ['the answer ', 'the answer is 2']
        assert result.usage() == snapshot(RunUsage(input_tokens=100, output_tokens=7, requests=2, tool_calls=1))
    assert result.all_messages() == snapshot(
        [
            ModelRequest(parts=[UserPromptPart(content='Go.', timestamp=IS_NOW)], timestamp=IS_NOW, run_id=IS_STR),
            ModelResponse(
                parts=[ToolCallPart(tool_name='add_one', args='{"a": 1}', tool_call_id='c1')],
                usage=RequestUsage(input_tokens=50, output_tokens=3),
                model_name='function::stream',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelRequest(
                parts=[ToolReturnPart(tool_name='add_one', content=2, tool_call_id='c1', timestamp=IS_NOW)],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[TextPart(content='the answer is 2')],
                usage=RequestUsage(input_tokens=50, output_tokens=4),
                model_name='function::stream',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
        ]
    )


@pytest.mark.parametrize(
    ('end_strategy', 'tool_result'),
    [('early', 'Tool not executed - a final result was already processed.'), ('exhaustive', 2)],
)
async def test_tool_call_and_text_in_the_final_response(end_strategy: Any, tool_result: Any) -> None:
    # Text is a final result as soon as it starts, so the response's tool calls follow the end strategy.
    agent = tool_agent([call(0, 'add_one', '{"a": 1}', 'c1'), 'the answer'], end_strategy=end_strategy)
    async with agent.run_stream('Go.') as result:
        assert await result.get_output() == 'the answer'
    assert result.all_messages()[-1] == ModelRequest(
        parts=[ToolReturnPart('add_one', tool_result, 'c1', timestamp=IS_NOW)], timestamp=IS_NOW, run_id=IS_STR
    )


async def test_text_then_tool_call_in_the_final_response() -> None:
    agent = tool_agent(['Let me see. ', call(1, 'add_one', '{"a": 1}', 'c1'), call(2, 'missing', '{}', 'c2')])
    async with agent.run_stream('Go.') as result:
        assert [text async for text in result.stream_text(debounce_by=None)] == ['Let me see. ']
    assert result.all_messages()[-1] == snapshot(
        ModelRequest(
            parts=[
                ToolReturnPart(
                    tool_name='add_one',
                    content='Tool not executed - a final result was already processed.',
                    tool_call_id='c1',
                    timestamp=IS_NOW,
                ),
                RetryPromptPart(
                    content="Unknown tool name: 'missing'. Available tools: 'add_one'",
                    tool_name='missing',
                    tool_call_id='c2',
                    timestamp=IS_NOW,
                ),
            ],
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )


@pytest.mark.parametrize(
    ('end_strategy', 'second'),
    [
        ('early', 'Output tool not used - a final result was already processed.'),
        ('exhaustive', 'Final result processed.'),
    ],
)
async def test_two_output_calls_in_the_final_response(end_strategy: Any, second: str) -> None:
    stream = responses_by_step(
        [call(0, 'final_result', '{"x": 1, "label": "a"}', 'o1'), call(1, 'final_result', '{"x": 2, "label": "b"}')]
    )
    agent = Agent(FunctionModel(stream_function=stream), output_type=Point, end_strategy=end_strategy)
    async with agent.run_stream('Go.') as result:
        assert await result.get_output() == Point(x=1, label='a')
    returns = [part.content for part in result.all_messages()[-1].parts if isinstance(part, ToolReturnPart)]
    assert returns == ['Final result processed.', second]


async def test_deferred_calls_end_the_stream() -> None:
    stream = responses_by_step(['I will ask. ', call(1, 'ask_user', '{"q": 1}', 'e1'), call(2, 'add_one', '{}', 'c1')])
    agent = Agent(
        FunctionModel(stream_function=stream),
        output_type=[str, DeferredToolRequests],
        toolsets=[ExternalToolset([ToolDefinition(name='ask_user')])],
    )

    @agent.tool_plain
    def add_one(a: int) -> int:
        return a + 1  # pragma: no cover

    async with agent.run_stream('Go.') as result:
        outputs = [output async for output in result.stream_output(debounce_by=None)]
    assert outputs[0] == 'I will ask. '
    assert outputs[-1] == DeferredToolRequests(calls=[ToolCallPart('ask_user', '{"q": 1}', 'e1')])
    # The deferred calls are the output; the others are not executed.
    assert result.all_messages()[-1].parts == [
        ToolReturnPart('add_one', 'Tool not executed - a final result was already processed.', 'c1', timestamp=IS_NOW)
    ]


async def test_deferred_calls_need_deferred_tool_requests_output() -> None:
    agent = Agent(
        FunctionModel(stream_function=responses_by_step([call(0, 'ask_user', '{}')])),
        toolsets=[ExternalToolset([ToolDefinition(name='ask_user', kind='unapproved')])],
    )
    async with agent.run_stream('Go.') as result:
        with pytest.raises(UserError, match='`DeferredToolRequests` is not among output types'):
            await result.get_output()


async def test_approval_calls_are_listed_as_approvals() -> None:
    agent = Agent(
        FunctionModel(stream_function=responses_by_step([call(0, 'delete', '{}', 'a1')])),
        output_type=[str, DeferredToolRequests],
    )

    @agent.tool_plain(requires_approval=True)
    def delete() -> None:
        pass  # pragma: no cover

    async with agent.run_stream('Go.') as result:
        assert await result.get_output() == DeferredToolRequests(approvals=[ToolCallPart('delete', '{}', 'a1')])


# Thinking, usage, limits and errors.


async def test_thinking_parts() -> None:
    stream = responses_by_step(
        [
            {0: DeltaThinkingPart(content='Let me ')},
            {0: DeltaThinkingPart(content='think.', signature='sig')},
            'Done.',
        ]
    )
    events: list[AgentStreamEvent] = []
    agent = Agent(FunctionModel(stream_function=stream))
    result = await agent.run('Go.', event_stream_handler=collecting_handler(events))
    assert events == snapshot(
        [
            PartStartEvent(index=0, part=ThinkingPart(content='Let me ')),
            PartDeltaEvent(
                index=0,
                delta=ThinkingPartDelta(content_delta='think.', signature_delta='sig', provider_name='function'),
            ),
            PartEndEvent(
                index=0,
                part=ThinkingPart(content='Let me think.', signature='sig', provider_name='function'),
                next_part_kind='text',
            ),
            PartStartEvent(index=1, part=TextPart(content='Done.'), previous_part_kind='thinking'),
            FinalResultEvent(tool_name=None, tool_call_id=None),
            PartEndEvent(index=1, part=TextPart(content='Done.')),
        ]
    )
    assert result.all_messages()[-1] == snapshot(
        ModelResponse(
            parts=[
                ThinkingPart(content='Let me think.', signature='sig', provider_name='function'),
                TextPart(content='Done.'),
            ],
            usage=RequestUsage(input_tokens=50, output_tokens=6),
            model_name='function::stream',
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )


async def test_function_model_stream_usage_counts_each_piece() -> None:
    stream = responses_by_step(
        [
            'a b',
            {1: DeltaToolCall('add_one', '{"a"')},
            {1: DeltaToolCall(json_args=': 1}')},
            {2: DeltaThinkingPart(content='x y z', signature='s')},
        ],
        ['done'],
    )
    agent = Agent(FunctionModel(stream_function=stream))
    result = await agent.run('Go.', event_stream_handler=collecting_handler([]))
    # 2 words of text, 3 and 2 for the argument pieces, 3 of thinking; tool names and signatures are not counted.
    response = result.all_messages()[1]
    assert isinstance(response, ModelResponse)
    assert response.usage == RequestUsage(input_tokens=50, output_tokens=10)


async def test_test_model_stream() -> None:
    agent = Agent(TestModel())

    @agent.tool_plain
    def lookup(a: int) -> str:
        return 'found it here'

    async with agent.run_stream('Find it.') as result:
        assert [text async for text in result.stream_text(delta=True, debounce_by=None)] == snapshot(
            ['{"lookup":"found ', 'it ', 'here"}']
        )
        assert result.usage() == snapshot(RunUsage(input_tokens=109, output_tokens=10, requests=2, tool_calls=1))
    assert result.all_messages()[1:] == snapshot(
        [
            ModelResponse(
                parts=[ToolCallPart(tool_name='lookup', args={'a': 0}, tool_call_id='pyd_ai_tool_call_id__lookup')],
                usage=RequestUsage(input_tokens=53),
                model_name='test',
                timestamp=IS_NOW,
                provider_name='test',
                run_id=IS_STR,
            ),
            ModelRequest(
                parts=[
                    ToolReturnPart(
                        tool_name='lookup',
                        content='found it here',
                        tool_call_id='pyd_ai_tool_call_id__lookup',
                        timestamp=IS_NOW,
                    )
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[TextPart(content='{"lookup":"found it here"}')],
                usage=RequestUsage(input_tokens=56, output_tokens=10),
                model_name='test',
                timestamp=IS_NOW,
                provider_name='test',
                run_id=IS_STR,
            ),
        ]
    )


async def test_test_model_streams_words_and_tool_calls() -> None:
    model = TestModel(custom_output_text='a  b\nc ')
    params = ModelRequestParameters(function_tools=[ToolDefinition(name='f')])
    async with model.request_stream([ModelRequest.user_text_prompt('Hi there.')], None, params) as stream:
        events = [event async for event in stream]
        assert stream.get() == snapshot(
            ModelResponse(
                parts=[ToolCallPart(tool_name='f', args={}, tool_call_id='pyd_ai_tool_call_id__f')],
                usage=RequestUsage(input_tokens=53),
                model_name='test',
                timestamp=IS_NOW,
                provider_name='test',
            )
        )
    assert len(events) == 2
    params = ModelRequestParameters()
    async with model.request_stream([ModelRequest.user_text_prompt('Hi there.')], None, params) as stream:
        deltas = [event.delta for event in [event async for event in stream] if isinstance(event, PartDeltaEvent)]
        assert [d.content_delta for d in deltas if isinstance(d, TextPartDelta)] == ['a ', ' ', 'b\nc ', '']
        assert stream.usage() == RequestUsage(input_tokens=53, output_tokens=4)
        assert (stream.model_name, stream.provider_name, stream.provider_url) == ('test', 'test', None)


async def test_usage_limits_while_streaming() -> None:
    agent = Agent(FunctionModel(stream_function=words))
    async with agent.run_stream('Go.', usage_limits=UsageLimits(output_tokens_limit=2)) as result:
        with pytest.raises(UsageLimitExceeded, match=r'Exceeded the output_tokens_limit of 2 \(output_tokens=3\)'):
            async for _ in result.stream_output(debounce_by=None):
                pass
    with pytest.raises(UsageLimitExceeded, match=r'Exceeded the input_tokens_limit of 49 \(input_tokens=50\)'):
        async with agent.run_stream('Go.', usage_limits=UsageLimits(input_tokens_limit=49)):
            pass  # pragma: no cover
    async with agent.run_stream('Go.', usage_limits=UsageLimits(total_tokens_limit=53)) as result:
        # Text is streamed without checks; the limit is checked when the response is complete.
        with pytest.raises(UsageLimitExceeded, match=r'Exceeded the total_tokens_limit of 53 \(total_tokens=54\)'):
            async for _ in result.stream_text(debounce_by=None):
                pass


async def test_stream_function_must_yield() -> None:
    async def nothing(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        return
        yield  # pragma: no cover

    with pytest.raises(ValueError, match='Stream function must return at least one item'):
        async with Agent(FunctionModel(stream_function=nothing)).run_stream('Go.'):
            pass  # pragma: no cover


async def test_models_that_cannot_stream() -> None:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart('hi')])  # pragma: no cover

    with pytest.raises(AssertionError, match='FunctionModel must receive a `stream_function`'):
        async with Agent(FunctionModel(respond)).run_stream('Go.'):
            pass  # pragma: no cover

    class PlainModel(Model):
        async def request(
            self,
            messages: list[ModelMessage],
            model_settings: Any,
            model_request_parameters: ModelRequestParameters,
        ) -> ModelResponse:
            raise NotImplementedError

        @property
        def model_name(self) -> str:
            return 'plain'

        @property
        def system(self) -> str:
            return 'plain'

    with pytest.raises(NotImplementedError, match='Streamed requests not supported by this PlainModel'):
        async with Agent(PlainModel()).run_stream('Go.'):
            pass  # pragma: no cover


# Leaving early and cancelling.


@dataclass
class _Recorder:
    log: list[str] = field(default_factory=list[str])

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        try:
            for word in ['one ', 'two ', 'three ']:
                self.log.append(word)
                yield word
                await anyio.lowlevel.checkpoint()
        finally:
            self.log.append('closed')


async def test_leaving_early_closes_the_stream() -> None:
    recorder = _Recorder()
    agent = Agent(FunctionModel(stream_function=recorder.stream))
    async with agent.run_stream('Go.') as result:
        async for text in result.stream_text(debounce_by=None):
            assert text == 'one '
            break
    assert recorder.log == ['one ', 'closed']
    # Only complete messages are kept.
    assert [message.kind for message in result.all_messages()] == ['request']
    assert not result.is_complete
    with pytest.raises(UserError, match='The stream was closed before it completed'):
        await result.get_output()


async def test_leaving_a_debounced_stream_early_leaves_no_task() -> None:
    recorder = _Recorder()
    agent = Agent(FunctionModel(stream_function=recorder.stream))
    tasks = len(asyncio.all_tasks())
    async with agent.run_stream('Go.') as result:
        async for _ in result.stream_text(debounce_by=10):
            break  # pragma: no cover
        async for _ in result.stream_responses(debounce_by=10):
            break
    assert recorder.log[-1] == 'closed'
    assert len(asyncio.all_tasks()) == tasks


async def test_cancelling_closes_the_stream() -> None:
    recorder = _Recorder()
    agent = Agent(FunctionModel(stream_function=recorder.stream))
    started = anyio.Event()

    async def consume() -> None:
        async with agent.run_stream('Go.') as result:
            async for _ in result.stream_text(debounce_by=None):
                started.set()
                await anyio.sleep(10)

    tasks = len(asyncio.all_tasks())
    async with anyio.create_task_group() as tg:
        tg.start_soon(consume)
        await started.wait()
        tg.cancel_scope.cancel()
    assert recorder.log == ['one ', 'closed']
    assert len(asyncio.all_tasks()) == tasks


async def test_errors_in_the_block_propagate() -> None:
    recorder = _Recorder()
    agent = Agent(FunctionModel(stream_function=recorder.stream))
    with pytest.raises(KeyError):
        async with agent.run_stream('Go.'):
            raise KeyError('boom')
    assert recorder.log == ['one ', 'closed']


# `run_stream_sync`.


def test_run_stream_sync() -> None:
    agent = Agent(FunctionModel(stream_function=words))
    result = agent.run_stream_sync('Count.')
    assert isinstance(result, StreamedRunResultSync)
    assert not result.is_complete
    assert list(result.stream_text(debounce_by=None)) == ['one ', 'one two ', 'one two three ', 'one two three four']
    assert result.is_complete
    assert result.get_output() == 'one two three four'
    assert result.usage() == RunUsage(input_tokens=50, output_tokens=4, requests=1)
    assert result.timestamp() == IS_NOW
    assert result.response.parts == [TextPart('one two three four')]
    assert result.run_id == result.all_messages()[0].run_id
    assert result.metadata is None
    assert [message.kind for message in result.new_messages()] == ['request', 'response']
    assert result.all_messages_json() == result.new_messages_json()
    assert repr(result) == snapshot(
        'StreamedRunResultSync(StreamedRunResult(is_complete=True, usage=RunUsage(input_tokens=50, output_tokens=4, requests=1)))'
    )


def test_run_stream_sync_methods() -> None:
    agent = Agent(FunctionModel(stream_function=words))
    assert list(agent.run_stream_sync('Go.').stream_text(delta=True, debounce_by=None)) == [
        'one ',
        'two ',
        'three ',
        'four',
    ]
    assert list(agent.run_stream_sync('Go.').stream_output(debounce_by=None))[-1] == 'one two three four'
    assert [last for _, last in agent.run_stream_sync('Go.').stream_responses(debounce_by=None)][-1]
    assert agent.run_stream_sync('Go.').get_output() == 'one two three four'
    result = agent.run_stream_sync('Go.')
    assert result.validate_response_output(result.response, allow_partial=True) == 'one '
    structured = Agent(
        FunctionModel(stream_function=responses_by_step([call(0, 'final_result', '{"x": 1, "label": "a"}')])),
        output_type=Point,
    )
    assert list(structured.run_stream_sync('Go.').stream_output(debounce_by=None)) == [Point(x=1, label='a')] * 2


async def test_run_stream_sync_needs_no_running_loop() -> None:
    agent = Agent(FunctionModel(stream_function=words))
    with pytest.raises(RuntimeError, match='This event loop is already running'):
        agent.run_stream_sync('Go.')


def test_run_stream_sync_infers_the_agent_name() -> None:
    counting_agent = Agent(FunctionModel(stream_function=words))
    assert counting_agent.run_stream_sync('Go.').get_output() == 'one two three four'
    assert counting_agent.name == 'counting_agent'


async def test_run_stream_infers_the_agent_name() -> None:
    streaming_agent = Agent(FunctionModel(stream_function=words))
    async with streaming_agent.run_stream('Go.') as result:
        await result.get_output()
    assert streaming_agent.name == 'streaming_agent'


# Event stream handlers.


async def test_event_stream_handler_on_run() -> None:
    agent = tool_agent(
        [
            'Checking. ',
            call(1, 'add_one', '{"a": 1}', 'c1'),
            call(2, 'missing', '{}', 'c2'),
        ],
        [call(0, 'final_result', '{"x": 2, "label": "two"}', 'o1')],
        output_type=Point,
    )
    events: list[AgentStreamEvent] = []
    contexts: list[int] = []

    async def handler(ctx: RunContext[None], stream: AsyncIterable[AgentStreamEvent]) -> None:
        contexts.append(ctx.run_step)
        async for event in stream:
            events.append(event)

    result = await agent.run('Go.', event_stream_handler=handler)
    assert result.output == Point(x=2, label='two')
    # One call per model request and per tool-call stage.
    assert contexts == [1, 1, 2, 2]
    assert events == snapshot(
        [
            PartStartEvent(index=0, part=TextPart(content='Checking. ')),
            PartEndEvent(index=0, part=TextPart(content='Checking. '), next_part_kind='tool-call'),
            PartStartEvent(
                index=1,
                part=ToolCallPart(tool_name='add_one', args='{"a": 1}', tool_call_id='c1'),
                previous_part_kind='text',
            ),
            PartEndEvent(
                index=1,
                part=ToolCallPart(tool_name='add_one', args='{"a": 1}', tool_call_id='c1'),
                next_part_kind='tool-call',
            ),
            PartStartEvent(
                index=2,
                part=ToolCallPart(tool_name='missing', args='{}', tool_call_id='c2'),
                previous_part_kind='tool-call',
            ),
            PartEndEvent(index=2, part=ToolCallPart(tool_name='missing', args='{}', tool_call_id='c2')),
            FunctionToolCallEvent(part=ToolCallPart(tool_name='add_one', args='{"a": 1}', tool_call_id='c1')),
            FunctionToolCallEvent(part=ToolCallPart(tool_name='missing', args='{}', tool_call_id='c2')),
            FunctionToolResultEvent(
                result=RetryPromptPart(
                    content="Unknown tool name: 'missing'. Available tools: 'final_result', 'add_one'",
                    tool_name='missing',
                    tool_call_id='c2',
                    timestamp=IS_NOW,
                )
            ),
            FunctionToolResultEvent(
                result=ToolReturnPart(tool_name='add_one', content=2, tool_call_id='c1', timestamp=IS_NOW)
            ),
            PartStartEvent(
                index=0,
                part=ToolCallPart(tool_name='final_result', args='{"x": 2, "label": "two"}', tool_call_id='o1'),
            ),
            FinalResultEvent(tool_name='final_result', tool_call_id='o1'),
            PartEndEvent(
                index=0,
                part=ToolCallPart(tool_name='final_result', args='{"x": 2, "label": "two"}', tool_call_id='o1'),
            ),
        ]
    )


async def test_tool_stage_events() -> None:
    agent = tool_agent(
        [call(0, 'final_result', '{"x": "bad"}', 'o1'), call(1, 'returns', '{}', 'c1'), call(2, 'retries', '{}', 'c2')],
        [call(0, 'final_result', '{"x": 1, "label": "a"}', 'o2'), call(1, 'final_result', '{}', 'o3')],
        output_type=Point,
    )

    # Async tools finish in the order they start; sync ones run in threads and could finish in any order.
    @agent.tool_plain
    async def returns() -> ToolReturn:
        return ToolReturn('value', content='more for the model')

    @agent.tool_plain
    async def retries() -> int:
        raise ModelRetry('Try again.')

    events: list[AgentStreamEvent] = []
    await agent.run('Go.', event_stream_handler=collecting_handler(events))
    tool_events = [e for e in events if isinstance(e, FunctionToolCallEvent | FunctionToolResultEvent)]
    assert [(type(e).__name__, e.tool_call_id) for e in tool_events] == snapshot(
        [
            ('FunctionToolCallEvent', 'o1'),
            ('FunctionToolResultEvent', 'o1'),
            ('FunctionToolCallEvent', 'c1'),
            ('FunctionToolCallEvent', 'c2'),
            ('FunctionToolResultEvent', 'c1'),
            ('FunctionToolResultEvent', 'c2'),
            ('FunctionToolCallEvent', 'o3'),
            ('FunctionToolResultEvent', 'o3'),
        ]
    )
    returned = tool_events[4]
    assert isinstance(returned, FunctionToolResultEvent)
    assert returned.content == 'more for the model'


async def test_deferred_tool_calls_get_call_events() -> None:
    agent = tool_agent(
        [call(0, 'add_one', '{"a": 1}', 'c1'), call(1, 'ask_user', '{}', 'e1')],
        output_type=[str, DeferredToolRequests],
        toolsets=[ExternalToolset([ToolDefinition(name='ask_user')])],
    )
    events: list[AgentStreamEvent] = []
    result = await agent.run('Go.', event_stream_handler=collecting_handler(events))
    assert isinstance(result.output, DeferredToolRequests)
    tool_events = [e for e in events if isinstance(e, FunctionToolCallEvent | FunctionToolResultEvent)]
    assert [(type(e).__name__, e.tool_call_id) for e in tool_events] == [
        ('FunctionToolCallEvent', 'c1'),
        ('FunctionToolResultEvent', 'c1'),
        ('FunctionToolCallEvent', 'e1'),
    ]


def test_event_stream_handler_on_run_sync_and_the_agent() -> None:
    events: list[AgentStreamEvent] = []
    agent = Agent(FunctionModel(stream_function=words), event_stream_handler=collecting_handler(events))
    assert agent.event_stream_handler is not None
    assert agent.run_sync('Go.').output == 'one two three four'
    assert [type(event).__name__ for event in events] == snapshot(
        [
            'PartStartEvent',
            'FinalResultEvent',
            'PartDeltaEvent',
            'PartDeltaEvent',
            'PartDeltaEvent',
            'PartEndEvent',
        ]
    )
    other: list[AgentStreamEvent] = []
    agent.run_sync('Go.', event_stream_handler=collecting_handler(other))
    # A run's own handler replaces the agent's.
    assert len(events) == 6
    assert len(other) == 6


async def test_event_stream_handler_on_run_stream() -> None:
    agent = tool_agent([call(0, 'add_one', '{"a": 1}', 'c1')], ['the ', 'answer'])
    events: list[AgentStreamEvent] = []
    async with agent.run_stream('Go.', event_stream_handler=collecting_handler(events)) as result:
        # The handler gets the final response's events up to the final result event; the rest are streamed.
        assert events[-2:] == [
            PartStartEvent(index=0, part=TextPart('the ')),
            FinalResultEvent(tool_name=None, tool_call_id=None),
        ]
        assert [text async for text in result.stream_text(delta=True, debounce_by=None)] == ['the ', 'answer']
    assert [type(event).__name__ for event in events] == snapshot(
        [
            'PartStartEvent',
            'PartEndEvent',
            'FunctionToolCallEvent',
            'FunctionToolResultEvent',
            'PartStartEvent',
            'FinalResultEvent',
        ]
    )


async def test_event_stream_handler_that_stops_reading() -> None:
    agent = tool_agent([call(0, 'add_one', '{"a": 1}', 'c1')], ['done'])
    seen: list[str] = []

    async def first_only(ctx: RunContext[None], stream: AsyncIterable[AgentStreamEvent]) -> None:
        async for event in stream:
            seen.append(type(event).__name__)
            break

    async with agent.run_stream('Go.', event_stream_handler=first_only) as result:
        assert await result.get_output() == 'done'
    assert (await agent.run('Go.', event_stream_handler=first_only)).output == 'done'
    assert seen == ['PartStartEvent', 'FunctionToolCallEvent', 'PartStartEvent'] * 2


async def test_event_stream_handler_errors_propagate() -> None:
    agent = tool_agent([call(0, 'add_one', '{"a": 1}', 'c1')], ['done'])

    async def failing(ctx: RunContext[None], stream: AsyncIterable[AgentStreamEvent]) -> None:
        async for event in stream:
            if isinstance(event, FunctionToolCallEvent):
                raise KeyError('handler failed')

    with pytest.raises(KeyError, match='handler failed'):
        await agent.run('Go.', event_stream_handler=failing)


async def test_tool_errors_propagate_from_a_streamed_tool_stage() -> None:
    agent = tool_agent([call(0, 'explode', '{}', 'c1')], ['done'])

    @agent.tool_plain
    def explode() -> int:
        raise RuntimeError('tool failed')

    with pytest.raises(RuntimeError, match='tool failed'):
        await agent.run('Go.', event_stream_handler=collecting_handler([]))


# Node streams in `iter`.


async def test_node_streams_in_iter() -> None:
    agent = tool_agent([call(0, 'add_one', '{"a": 1}', 'c1')], ['done'])
    seen: list[str] = []
    async with agent.iter('Go.') as run:
        node = run.next_node
        while not isinstance(node, End):
            if isinstance(node, ModelRequestNode):
                async with node.stream(run.ctx) as stream:
                    assert isinstance(stream, AgentStream)
                    seen.extend([type(event).__name__ async for event in stream])
            elif isinstance(node, CallToolsNode):
                async with node.stream(run.ctx) as tool_events:
                    seen.extend([type(event).__name__ async for event in tool_events])
                async with node.stream(run.ctx) as tool_events:
                    # The stage ran already: there is nothing more to stream.
                    assert [event async for event in tool_events] == []
            node = await run.next(node)
    assert run.result is not None
    assert run.result.output == 'done'
    assert seen == snapshot(
        [
            'PartStartEvent',
            'PartEndEvent',
            'FunctionToolCallEvent',
            'FunctionToolResultEvent',
            'PartStartEvent',
            'FinalResultEvent',
            'PartEndEvent',
        ]
    )


async def test_agent_stream_in_iter() -> None:
    agent = Agent(FunctionModel(stream_function=words))
    async with agent.iter('Go.') as run:
        node = await run.next(_started(run.next_node))
        assert isinstance(node, ModelRequestNode)
        async with node.stream(run.ctx) as stream:
            assert [output async for output in stream.stream_output(debounce_by=None)][-1] == 'one two three four'
            assert [text async for text in stream.stream_text(debounce_by=None)] == ['one two three four']
            assert [r.parts async for r in stream.stream_responses(debounce_by=None)] == [
                [TextPart('one two three four')]
            ]
            assert await stream.get_output() == 'one two three four'
            assert stream.usage() == RunUsage(input_tokens=50, output_tokens=4, requests=1)
            assert stream.timestamp() == IS_NOW
            assert stream.run_id == run.run_id
            assert stream.metadata is None
        with pytest.raises(AssertionError, match=r'stream\(\) should only be called once per node'):
            async with node.stream(run.ctx):
                pass  # pragma: no cover


async def test_agent_stream_without_a_final_result() -> None:
    agent = tool_agent([call(0, 'add_one', '{"a": 1}', 'c1')], ['done'])
    async with agent.iter('Go.') as run:
        node = await run.next(_started(run.next_node))
        assert isinstance(node, ModelRequestNode)
        async with node.stream(run.ctx) as stream:
            assert [output async for output in stream.stream_output(debounce_by=None)] == []
            with pytest.raises(UnexpectedModelBehavior, match='Invalid response, unable to find output'):
                await stream.get_output()


async def test_leaving_a_node_stream_early_reads_the_rest() -> None:
    agent = Agent(FunctionModel(stream_function=words))
    async with agent.iter('Go.') as run:
        node = await run.next(_started(run.next_node))
        assert isinstance(node, ModelRequestNode)
        async with node.stream(run.ctx) as stream:
            async for _ in stream.stream_text(debounce_by=10):
                break  # pragma: no cover
        after = await run.next(node)
        assert isinstance(after, CallToolsNode)
        assert after.model_response.parts == [TextPart('one two three four')]


async def test_event_stream_handler_on_iter() -> None:
    events: list[AgentStreamEvent] = []
    agent = tool_agent([call(0, 'add_one', '{"a": 1}', 'c1')], ['done'])
    async with agent.iter('Go.', event_stream_handler=collecting_handler(events)) as run:
        async for _ in run:
            pass
    assert run.result is not None
    assert run.result.output == 'done'
    assert len([e for e in events if isinstance(e, FunctionToolResultEvent)]) == 1


def _started(node: Any) -> Any:
    assert not isinstance(node, End)
    return node


# The parts manager.


def test_parts_manager_text() -> None:
    manager = ModelResponsePartsManager()
    events = [
        *manager.handle_text_delta(vendor_part_id=None, content='a'),
        *manager.handle_text_delta(vendor_part_id=None, content='b'),
        *manager.handle_text_delta(vendor_part_id='x', content='', id='t1'),
        *manager.handle_text_delta(vendor_part_id='x', content='y', provider_name='p', provider_details={'k': 1}),
        *manager.handle_text_delta(vendor_part_id='x', content='z', provider_name='p'),
    ]
    assert events == snapshot(
        [
            PartStartEvent(index=0, part=TextPart(content='a')),
            PartDeltaEvent(index=0, delta=TextPartDelta(content_delta='b')),
            PartStartEvent(index=1, part=TextPart(content='', id='t1')),
            PartDeltaEvent(
                index=1, delta=TextPartDelta(content_delta='y', provider_name='p', provider_details={'k': 1})
            ),
            PartDeltaEvent(index=1, delta=TextPartDelta(content_delta='z')),
        ]
    )
    assert manager.get_parts() == [
        TextPart('ab'),
        TextPart('yz', id='t1', provider_name='p', provider_details={'k': 1}),
    ]
    assert manager.get_part_by_vendor_id('x') == TextPart('yz', id='t1', provider_name='p', provider_details={'k': 1})
    assert manager.get_part_by_vendor_id('nope') is None
    assert repr(manager) == snapshot(
        "ModelResponsePartsManager(_parts=[TextPart(content='ab'), TextPart(content='yz', id='t1', provider_name='p', provider_details={'k': 1})], _vendor_id_to_part_index={'x': 1})"
    )


def test_parts_manager_thinking_tags() -> None:
    manager = ModelResponsePartsManager()
    tags = ('<think>', '</think>')
    events = [
        event
        for chunk in ['hi', '<think>', 'hm', '</think>', '\n\n', 'answer']
        for event in manager.handle_text_delta(
            vendor_part_id='c', content=chunk, thinking_tags=tags, ignore_leading_whitespace=True
        )
    ]
    assert events == snapshot(
        [
            PartStartEvent(index=0, part=TextPart(content='hi')),
            PartStartEvent(index=1, part=ThinkingPart(content='')),
            PartDeltaEvent(index=1, delta=ThinkingPartDelta(content_delta='hm')),
            PartStartEvent(index=2, part=TextPart(content='answer')),
        ]
    )
    assert manager.get_parts() == [TextPart('hi'), ThinkingPart('hm'), TextPart('answer')]


def test_parts_manager_thinking() -> None:
    manager = ModelResponsePartsManager()
    events = [
        *manager.handle_thinking_delta(vendor_part_id='t', content='a', id='th', signature='s'),
        *manager.handle_thinking_delta(vendor_part_id='t'),
        *manager.handle_thinking_delta(vendor_part_id=None, content='b', provider_name='p'),
        *manager.handle_thinking_delta(vendor_part_id='t', provider_details=lambda details: {'d': 1}),
        *manager.handle_thinking_delta(vendor_part_id='u', signature='only'),
        *manager.handle_thinking_delta(vendor_part_id='v', content='c', provider_details=lambda details: {'e': 2}),
    ]
    assert events == snapshot(
        [
            PartStartEvent(index=0, part=ThinkingPart(content='a', id='th', signature='s')),
            PartDeltaEvent(index=0, delta=ThinkingPartDelta(content_delta='b', provider_name='p')),
            PartDeltaEvent(index=0, delta=ThinkingPartDelta(provider_details=ANYTHING)),
            PartStartEvent(index=1, part=ThinkingPart(content='', signature='only')),
            PartStartEvent(index=2, part=ThinkingPart(content='c', provider_details={'e': 2})),
        ]
    )
    assert manager.get_parts()[0] == ThinkingPart(
        'ab', id='th', signature='s', provider_name='p', provider_details={'d': 1}
    )
    with pytest.raises(UnexpectedModelBehavior, match='Cannot create a ThinkingPart with no content'):
        list(manager.handle_thinking_delta(vendor_part_id='w', provider_name='p'))


def test_parts_manager_tool_calls() -> None:
    manager = ModelResponsePartsManager()
    assert manager.handle_tool_call_delta(vendor_part_id=1, args='{"a"', tool_call_id='c1') is None
    assert manager.handle_tool_call_delta(vendor_part_id=1, args=': 1}') is None
    assert manager.get_parts() == []
    events = [
        manager.handle_tool_call_delta(vendor_part_id=1, tool_name='f'),
        manager.handle_tool_call_delta(vendor_part_id=1, tool_call_id='c2', provider_name='p'),
        manager.handle_tool_call_delta(vendor_part_id=None, tool_name='g', args='{'),
        manager.handle_tool_call_delta(vendor_part_id=None, args='}'),
        manager.handle_tool_call_part(vendor_part_id=2, tool_name='h', args={'b': 2}, tool_call_id='c3', id='i'),
        manager.handle_tool_call_part(vendor_part_id=2, tool_name='h2', args=None, tool_call_id='c4'),
        manager.handle_part(vendor_part_id=None, part=TextPart('t')),
        manager.handle_part(vendor_part_id=2, part=TextPart('not a call')),
    ]
    assert events == snapshot(
        [
            PartStartEvent(index=0, part=ToolCallPart(tool_name='f', args='{"a": 1}', tool_call_id='c1')),
            PartDeltaEvent(index=0, delta=ToolCallPartDelta(tool_call_id='c2', provider_name='p')),
            PartStartEvent(index=1, part=ToolCallPart(tool_name='g', args='{', tool_call_id=IS_STR)),
            PartDeltaEvent(index=1, delta=ToolCallPartDelta(args_delta='}', tool_call_id=IS_STR)),
            PartStartEvent(index=2, part=ToolCallPart(tool_name='h', args={'b': 2}, tool_call_id='c3', id='i')),
            PartStartEvent(index=2, part=ToolCallPart(tool_name='h2', tool_call_id='c4')),
            PartStartEvent(index=3, part=TextPart(content='t')),
            PartStartEvent(index=4, part=TextPart(content='not a call')),
        ]
    )
    assert [part.part_kind for part in manager.get_parts()] == ['tool-call', 'tool-call', 'tool-call', 'text', 'text']
    # A piece without an id or a name, after a part that is not a call, waits for its name.
    assert manager.handle_tool_call_delta(vendor_part_id=None, args='{}') is None
    assert len(manager.get_parts()) == 5


def test_parts_manager_errors() -> None:
    manager = ModelResponsePartsManager()
    list(manager.handle_text_delta(vendor_part_id='text', content='a'))
    manager.handle_tool_call_part(vendor_part_id='call', tool_name='f', args={'a': 1})
    list(manager.handle_thinking_delta(vendor_part_id='think', content='t'))
    with pytest.raises(
        UnexpectedModelBehavior, match=r"Cannot apply a thinking delta to existing_part=TextPart\(content='a'\)"
    ):
        list(manager.handle_thinking_delta(vendor_part_id='text', content='x'))
    with pytest.raises(UnexpectedModelBehavior, match='Cannot apply a text delta to existing_part=ToolCallPart'):
        list(manager.handle_text_delta(vendor_part_id='call', content='x'))
    with pytest.raises(UnexpectedModelBehavior, match='Cannot apply a text delta to existing_part=ThinkingPart'):
        list(manager.handle_text_delta(vendor_part_id='think', content='x'))
    with pytest.raises(
        UnexpectedModelBehavior, match=r"Cannot apply a tool call delta to existing_part=TextPart\(content='a'\)"
    ):
        manager.handle_tool_call_delta(vendor_part_id='text', args='x')
    with pytest.raises(UnexpectedModelBehavior, match='Cannot apply JSON deltas to non-JSON tool arguments'):
        manager.handle_tool_call_delta(vendor_part_id='call', args='x')


# Model streams.


@dataclass(kw_only=True)
class ScriptedStreamedResponse(StreamedResponse):
    """A streamed response that plays back events made with its parts manager."""

    script: list[tuple[str, dict[str, Any]]]

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        manager = self._parts_manager
        for kind, kwargs in self.script:
            if kind == 'text':
                for event in manager.handle_text_delta(**kwargs):
                    yield event
            elif kind == 'part':
                yield manager.handle_part(**kwargs)
            else:
                self.provider_response_id = 'resp-1'
                self.finish_reason = 'stop'
                self.provider_details = {'served_by': 'x'}
                self._usage = RequestUsage(input_tokens=3, output_tokens=4)

    @property
    def model_name(self) -> str:
        return 'scripted'

    @property
    def provider_name(self) -> str:
        return 'script'

    @property
    def provider_url(self) -> str:
        return 'http://localhost'

    @property
    def timestamp(self) -> datetime:
        return datetime(2024, 1, 1, tzinfo=UTC)


async def test_streamed_response_part_end_events() -> None:
    stream = ScriptedStreamedResponse(
        ModelRequestParameters(allow_text_output=False),
        script=[
            ('text', {'vendor_part_id': 'a', 'content': 'x'}),
            ('part', {'vendor_part_id': 'a', 'part': TextPart('y')}),
            ('text', {'vendor_part_id': 'b', 'content': 'z'}),
            ('text', {'vendor_part_id': 'a', 'content': '!'}),
            ('meta', {}),
        ],
    )
    assert [event async for event in stream] == snapshot(
        [
            PartStartEvent(index=0, part=TextPart(content='x')),
            PartEndEvent(index=0, part=TextPart(content='y'), next_part_kind='text'),
            PartStartEvent(index=0, part=TextPart(content='y'), previous_part_kind='text'),
            PartEndEvent(index=0, part=TextPart(content='y'), next_part_kind='text'),
            PartStartEvent(index=1, part=TextPart(content='z'), previous_part_kind='text'),
            PartDeltaEvent(index=0, delta=TextPartDelta(content_delta='!')),
            PartEndEvent(index=1, part=TextPart(content='z')),
        ]
    )
    assert stream.final_result_event is None
    assert stream.get() == snapshot(
        ModelResponse(
            parts=[TextPart(content='y!'), TextPart(content='z')],
            usage=RequestUsage(input_tokens=3, output_tokens=4),
            model_name='scripted',
            timestamp=datetime(2024, 1, 1, tzinfo=UTC),
            provider_name='script',
            provider_url='http://localhost',
            provider_details={'served_by': 'x'},
            provider_response_id='resp-1',
            finish_reason='stop',
        )
    )


@pytest.mark.parametrize(
    ('params', 'part', 'final'),
    [
        (ModelRequestParameters(), TextPart(''), FinalResultEvent(tool_name=None, tool_call_id=None)),
        (ModelRequestParameters(allow_text_output=False), TextPart('a'), None),
        (ModelRequestParameters(output_mode='auto'), TextPart('a'), None),
        (
            ModelRequestParameters(output_mode='tool', output_tools=[ToolDefinition(name='out', kind='output')]),
            ToolCallPart('out', '{}', 'o1'),
            FinalResultEvent(tool_name='out', tool_call_id='o1'),
        ),
        (
            ModelRequestParameters(output_tools=[ToolDefinition(name='out', kind='output')]),
            ToolCallPart('out', '{}'),
            None,
        ),
        (
            ModelRequestParameters(function_tools=[ToolDefinition(name='ext', kind='external')]),
            ToolCallPart('ext', '{}'),
            FinalResultEvent(tool_name=None, tool_call_id=None),
        ),
        (ModelRequestParameters(function_tools=[ToolDefinition(name='f')]), ToolCallPart('f', '{}'), None),
        (ModelRequestParameters(), ToolCallPart('unknown', '{}'), None),
        (ModelRequestParameters(), ThinkingPart('hm'), None),
    ],
)
async def test_final_result_detection(
    params: ModelRequestParameters, part: Any, final: FinalResultEvent | None
) -> None:
    stream = ScriptedStreamedResponse(params, script=[('part', {'vendor_part_id': None, 'part': part})])
    events = [event async for event in stream]
    assert stream.final_result_event == final
    assert (final in events) if final is not None else not any(isinstance(e, FinalResultEvent) for e in events)


class ScriptedModel(Model):
    def __init__(self, script: list[tuple[str, dict[str, Any]]]) -> None:
        super().__init__()
        self.script = script

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: Any,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        raise NotImplementedError  # pragma: no cover

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: Any,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        yield ScriptedStreamedResponse(model_request_parameters, script=self.script)

    @property
    def model_name(self) -> str:
        return 'scripted'

    @property
    def system(self) -> str:
        return 'script'


async def test_text_in_several_parts() -> None:
    model = ScriptedModel(
        [
            ('text', {'vendor_part_id': 1, 'content': 'a'}),
            ('part', {'vendor_part_id': None, 'part': ThinkingPart('hm')}),
            ('text', {'vendor_part_id': 3, 'content': 'b'}),
            ('text', {'vendor_part_id': 1, 'content': 'c'}),
        ]
    )
    agent = Agent(model)
    async with agent.run_stream('Go.') as result:
        # The streamed text follows the pieces as they come; the output joins the text parts in order.
        assert [text async for text in result.stream_text(debounce_by=None)] == ['a', 'ab', 'abc']
        assert await result.get_output() == 'acb'


async def test_streamed_run_result_type() -> None:
    async with Agent(FunctionModel(stream_function=words)).run_stream('Go.') as result:
        assert isinstance(result, StreamedRunResult)
        assert repr(result) == snapshot(
            'StreamedRunResult(is_complete=False, usage=RunUsage(input_tokens=50, output_tokens=1, requests=1))'
        )
        # The deprecated names still work, with upstream's warnings.
        with pytest.warns(DeprecationWarning, match='`StreamedRunResult.stream` is deprecated, use `stream_output`'):
            outputs = result.stream(debounce_by=None)  # pyright: ignore[reportDeprecated] -- tested on purpose
        assert [o async for o in outputs][-1] == 'one two three four'
        with pytest.warns(DeprecationWarning, match='`StreamedRunResult.stream_structured` is deprecated'):
            responses = result.stream_structured(debounce_by=None)  # pyright: ignore[reportDeprecated] -- as above
        assert [r async for r, _ in responses][-1].parts == [TextPart('one two three four')]
        with pytest.warns(DeprecationWarning, match='`validate_structured_output` is deprecated'):
            validated = result.validate_structured_output(result.response)  # pyright: ignore[reportDeprecated] -- as above
        assert await validated == 'one two three four'


async def test_output_call_that_cannot_be_found() -> None:
    # The call's name and id both changed after it started the final result.
    stream = responses_by_step(
        [call(0, 'final_result', '{"x": 1', 'a'), {0: DeltaToolCall('_x', '}', tool_call_id='b')}]
    )
    agent = Agent(FunctionModel(stream_function=stream), output_type=Point)
    async with agent.run_stream('Go.') as result:
        with pytest.raises(
            UnexpectedModelBehavior, match="Invalid response, unable to find tool call for 'final_result'"
        ):
            await result.get_output()


async def test_text_from_the_tool_stage() -> None:
    # The output tool's name arrives in pieces, so no final result starts while streaming.
    stream = responses_by_step(
        [{0: DeltaToolCall('final_', tool_call_id='o1')}, {0: DeltaToolCall('result', '{"response": "hi"}')}]
    )
    agent = Agent(FunctionModel(stream_function=stream), output_type=ToolOutput(str))
    async with agent.run_stream('Go.') as result:
        assert [text async for text in result.stream_text()] == ['hi']
        assert result.is_complete


async def test_stream_text_after_completion() -> None:
    agent = Agent(FunctionModel(stream_function=responses_by_step([''])))
    async with agent.run_stream('Go.') as result:
        assert await result.get_output() == ''
        assert [text async for text in result.stream_text()] == ['']
    structured = Agent(
        FunctionModel(stream_function=responses_by_step([call(0, 'final_result', '{"x": 1, "label": "a"}')])),
        output_type=Point,
    )
    async with structured.run_stream('Go.') as result:
        await result.get_output()
        with pytest.raises(UserError, match='can only be used with text responses'):
            async for _ in result.stream_text():
                pass


async def test_errors_in_a_node_stream_block() -> None:
    recorder = _Recorder()
    agent = Agent(FunctionModel(stream_function=recorder.stream))
    async with agent.iter('Go.') as run:
        node = await run.next(_started(run.next_node))
        assert isinstance(node, ModelRequestNode)
        with pytest.raises(KeyError):
            async with node.stream(run.ctx):
                raise KeyError('boom')
    assert recorder.log == ['one ', 'closed']


async def test_closing_a_debounced_stream_waiting_for_the_model() -> None:
    more = anyio.Event()
    log: list[str] = []

    async def slow(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        try:
            yield 'one '
            await more.wait()
            yield 'two'  # pragma: no cover
        finally:
            log.append('closed')

    agent = Agent(FunctionModel(stream_function=slow))
    tasks = len(asyncio.all_tasks())
    async with agent.run_stream('Go.') as result:
        async for text in result.stream_text(debounce_by=0.01):
            # The window closed while the model was still streaming: its next piece is being waited for.
            assert text == 'one '
            break
    assert log == ['closed']
    assert len(asyncio.all_tasks()) == tasks


@dataclass
class _EventsWithoutClose:
    """An async iterator of events that is not a generator (so has no `aclose`)."""

    events: list[ModelResponseStreamEvent]

    def __aiter__(self) -> _EventsWithoutClose:
        return self

    async def __anext__(self) -> ModelResponseStreamEvent:
        if not self.events:
            raise StopAsyncIteration
        return self.events.pop(0)


@dataclass(kw_only=True)
class _PlainIteratorResponse(ScriptedStreamedResponse):
    def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        return _EventsWithoutClose([self._parts_manager.handle_part(vendor_part_id=None, part=TextPart('x'))])


async def test_streamed_response_edge_cases() -> None:
    empty = ScriptedStreamedResponse(ModelRequestParameters(), script=[('meta', {})])
    assert [event async for event in empty] == []
    assert empty.get().parts == []
    plain = _PlainIteratorResponse(ModelRequestParameters(), script=[])
    assert len([event async for event in plain]) == 3
    await plain._close()
    unused = ScriptedStreamedResponse(ModelRequestParameters(), script=[])
    await unused._close()


async def test_function_model_ignores_unknown_pieces() -> None:
    async def odd(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        yield 1
        yield {0: 'not a delta'}
        yield {1: DeltaToolCall(json_args='{}')}
        yield 'text'

    agent = Agent(FunctionModel(stream_function=odd))
    async with agent.run_stream('Go.') as result:
        assert await result.get_output() == 'text'
        assert result.response.parts == [TextPart('text')]


async def test_stream_function_that_is_not_a_generator() -> None:
    @dataclass
    class Pieces:
        pieces: list[str]

        def __aiter__(self) -> Pieces:
            return self

        async def __anext__(self) -> str:
            if not self.pieces:
                raise StopAsyncIteration
            return self.pieces.pop(0)

    def pieces(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        return Pieces(['a', 'b'])

    async with Agent(FunctionModel(stream_function=pieces)).run_stream('Go.') as result:
        assert await result.get_output() == 'ab'


def test_run_stream_sync_errors() -> None:
    async def nothing(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        return
        yield  # pragma: no cover

    with pytest.raises(ValueError, match='Stream function must return at least one item'):
        Agent(FunctionModel(stream_function=nothing)).run_stream_sync('Go.', infer_name=False)

    class FailingExit(ScriptedModel):
        @asynccontextmanager
        async def request_stream(
            self,
            messages: list[ModelMessage],
            model_settings: Any,
            model_request_parameters: ModelRequestParameters,
            run_context: RunContext[Any] | None = None,
        ) -> AsyncIterator[StreamedResponse]:
            yield ScriptedStreamedResponse(model_request_parameters, script=self.script)
            raise KeyError('closing failed')

    result = Agent(FailingExit([('text', {'vendor_part_id': 1, 'content': 'a'})])).run_stream_sync('Go.')
    with pytest.raises(KeyError, match='closing failed'):
        result.get_output()


def test_dropped_sync_result_closes_its_run() -> None:
    recorder = _Recorder()
    agent = Agent(FunctionModel(stream_function=recorder.stream))
    result = agent.run_stream_sync('Go.')
    assert next(iter(result.stream_text(debounce_by=None))) == 'one '
    del result
    gc.collect()
    # The run is closed the next time the thread's event loop runs.
    agent.run_stream_sync('Go.').get_output()
    assert recorder.log[:2] == ['one ', 'closed']


def test_releasing_a_run_after_its_loop_closed() -> None:
    loop = asyncio.new_event_loop()
    loop.close()
    held: Any = _HeldRun(loop, asyncio.Event(), None)  # pyright: ignore[reportArgumentType] -- no task needed
    held.release_soon()


async def test_invalid_second_output_call_with_the_exhaustive_strategy() -> None:
    stream = responses_by_step(
        [call(0, 'final_result', '{"x": 1, "label": "a"}', 'o1'), call(1, 'final_result', '{"x": "no"}', 'o2')]
    )
    agent = Agent(FunctionModel(stream_function=stream), output_type=Point, end_strategy='exhaustive')
    async with agent.run_stream('Go.') as result:
        assert await result.get_output() == Point(x=1, label='a')
    last = result.all_messages()[-1]
    assert isinstance(last, ModelRequest)
    assert [part.part_kind for part in last.parts] == ['tool-return', 'retry-prompt']
