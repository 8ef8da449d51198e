"""Streamed `OpenAIChatModel` requests, through the real `openai` SDK against a scripted server on 127.0.0.1."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from dirty_equals import IsNow, IsStr
from inline_snapshot import snapshot
from openai import AsyncOpenAI
from pydantic_ai.exceptions import ModelAPIError, ModelHTTPError, UnexpectedModelBehavior
from pydantic_ai.messages import (
    FinalResultEvent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelResponseStreamEvent,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ToolCallPart,
    ToolCallPartDelta,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIChatModelSettings
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import RequestUsage

from ._openai_server import ChatServer, chunk, tool_call_delta, usage

pytestmark = pytest.mark.anyio

CREATED = datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)
IS_NOW: Any = IsNow(tz=UTC)
IS_STR: Any = IsStr()
SERVER_URL: Any = IsStr(regex=r'http://127\.0\.0\.1:\d+/v1/')


@pytest.fixture
def model(client: AsyncOpenAI) -> OpenAIChatModel:
    return OpenAIChatModel('gpt-4o', provider=OpenAIProvider(openai_client=client))


def _user(prompt: str) -> list[ModelMessage]:
    return [ModelRequest(parts=[UserPromptPart(prompt)])]


async def _stream(
    model: OpenAIChatModel,
    messages: list[ModelMessage],
    settings: OpenAIChatModelSettings | None = None,
    params: ModelRequestParameters | None = None,
) -> tuple[list[ModelResponseStreamEvent], ModelResponse]:
    async with model.request_stream(messages, settings, params or ModelRequestParameters()) as stream:
        events = [event async for event in stream]
    return events, stream.get()


async def test_stream_text(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_stream(
        [
            chunk('', role='assistant'),
            chunk('Hel'),
            chunk('lo!'),
            chunk(finish_reason='stop'),
            chunk(choices=False, usage=usage(9, 2, reasoning_tokens=1)),
        ]
    )

    events, response = await _stream(model, _user('Hi'))

    assert events == snapshot(
        [
            PartStartEvent(index=0, part=TextPart(content='Hel')),
            FinalResultEvent(tool_name=None, tool_call_id=None),
            PartDeltaEvent(index=0, delta=TextPartDelta(content_delta='lo!')),
            PartEndEvent(index=0, part=TextPart(content='Hello!')),
        ]
    )
    assert response == snapshot(
        ModelResponse(
            parts=[TextPart(content='Hello!')],
            usage=RequestUsage(input_tokens=9, output_tokens=2, details={'reasoning_tokens': 1}),
            model_name='gpt-4o-2024-08-06',
            timestamp=IS_NOW,
            provider_name='openai',
            provider_url=SERVER_URL,
            provider_details={
                'timestamp': CREATED,
                'finish_reason': 'stop',
            },
            provider_response_id='chatcmpl-s1',
            finish_reason='stop',
        )
    )
    assert server.bodies() == snapshot(
        [
            {
                'model': 'gpt-4o',
                'stream': True,
                'messages': [{'role': 'user', 'content': 'Hi'}],
                'stream_options': {'include_usage': True},
            }
        ]
    )


async def test_stream_parallel_tool_calls(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_stream(
        [
            chunk(role='assistant', content=None),
            chunk(tool_calls=[tool_call_delta(0, id='c1', name='lookup', arguments='')]),
            chunk(tool_calls=[tool_call_delta(1, id='c2', name='lookup', arguments='{"key"')]),
            chunk(tool_calls=[tool_call_delta(0, arguments='{"key": "a"}')]),
            chunk(tool_calls=[tool_call_delta(1, arguments=': "b"}')]),
            chunk(tool_calls=[tool_call_delta(2, id='c3', arguments='{}')]),
            chunk(tool_calls=[tool_call_delta(2, name='lookup')]),
            chunk(finish_reason='tool_calls'),
            chunk(choices=False, usage=usage(20, 12)),
        ]
    )
    params = ModelRequestParameters(function_tools=[ToolDefinition(name='lookup')])

    events, response = await _stream(model, _user('Look up a and b'), params=params)

    assert events == snapshot(
        [
            PartStartEvent(index=0, part=ToolCallPart(tool_name='lookup', args='', tool_call_id='c1')),
            PartEndEvent(
                index=0, part=ToolCallPart(tool_name='lookup', args='', tool_call_id='c1'), next_part_kind='tool-call'
            ),
            PartStartEvent(
                index=1,
                part=ToolCallPart(tool_name='lookup', args='{"key"', tool_call_id='c2'),
                previous_part_kind='tool-call',
            ),
            PartDeltaEvent(index=0, delta=ToolCallPartDelta(args_delta='{"key": "a"}', tool_call_id='c1')),
            PartDeltaEvent(index=1, delta=ToolCallPartDelta(args_delta=': "b"}', tool_call_id='c2')),
            PartEndEvent(
                index=1,
                part=ToolCallPart(tool_name='lookup', args='{"key": "b"}', tool_call_id='c2'),
                next_part_kind='tool-call',
            ),
            PartStartEvent(
                index=2,
                part=ToolCallPart(tool_name='lookup', args='{}', tool_call_id='c3'),
                previous_part_kind='tool-call',
            ),
            PartEndEvent(index=2, part=ToolCallPart(tool_name='lookup', args='{}', tool_call_id='c3')),
        ]
    )
    assert response.parts == snapshot(
        [
            ToolCallPart(tool_name='lookup', args='{"key": "a"}', tool_call_id='c1'),
            ToolCallPart(tool_name='lookup', args='{"key": "b"}', tool_call_id='c2'),
            ToolCallPart(tool_name='lookup', args='{}', tool_call_id='c3'),
        ]
    )
    assert (response.finish_reason, response.usage) == snapshot(
        ('tool_call', RequestUsage(input_tokens=20, output_tokens=12))
    )


async def test_stream_thinking(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_stream(
        [
            chunk(reasoning_content='Adding '),
            chunk(reasoning_content='numbers.'),
            chunk('<think>'),
            chunk('Sure?'),
            chunk('</think>'),
            chunk('Four.'),
        ]
    )

    _, response = await _stream(model, _user('2+2?'))

    assert response.parts == snapshot(
        [
            ThinkingPart(content='Adding numbers.', id='reasoning_content', provider_name='openai'),
            ThinkingPart(content='Sure?', id='content', provider_name='openai'),
            TextPart(content='Four.'),
        ]
    )


async def test_stream_output_tool(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_stream(
        [chunk(tool_calls=[tool_call_delta(0, id='o1', name='final_result', arguments='{"name": "Paris"}')])]
    )
    output_tool = ToolDefinition(name='final_result', kind='output')
    params = ModelRequestParameters(output_mode='tool', allow_text_output=False, output_tools=[output_tool])

    events, _ = await _stream(model, _user('A city?'), params=params)

    assert [type(event).__name__ for event in events] == ['PartStartEvent', 'FinalResultEvent', 'PartEndEvent']
    assert server.bodies()[0]['tool_choice'] == 'required'


async def test_stream_continuous_usage(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_stream([chunk('a', usage=usage(5, 1)), chunk('b', usage=usage(5, 2))], done=False)

    _, response = await _stream(model, _user('Hi'), {'openai_continuous_usage_stats': True})

    assert response.usage == RequestUsage(input_tokens=5, output_tokens=2)
    assert response.parts == [TextPart('ab')]
    assert server.bodies()[0]['stream_options'] == {'include_usage': True, 'continuous_usage_stats': True}


async def test_stream_event_framing(server: ChatServer, model: OpenAIChatModel) -> None:
    first = json.dumps(chunk('Hello'))
    last = json.dumps(chunk(' there'))
    body = f': keep-alive\n\nevent: message\ndata: {first}\n\n\n\ndata: {last}'
    server.add_raw(body.encode(), content_type='text/event-stream')

    _, response = await _stream(model, _user('Hi'))

    # Comments, event names and extra blank lines are skipped; an event the stream ends in without its blank line
    # is dropped by the SDK, as upstream's streams drop it.
    assert response.parts == [TextPart('Hello')]


async def test_stream_left_early(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_stream([chunk('one '), chunk('two '), chunk('three')])

    async with model.request_stream(_user('Count'), None, ModelRequestParameters()) as stream:
        async for event in stream:
            assert isinstance(event, PartStartEvent)
            break

    assert stream.get().parts == [TextPart('one ')]


async def test_stream_http_error(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_json({'error': {'message': 'Bad request'}}, status=400)

    with pytest.raises(ModelHTTPError) as exc_info:
        await _stream(model, _user('Hi'))

    assert (exc_info.value.status_code, exc_info.value.body) == (400, {'message': 'Bad request'})


@pytest.mark.parametrize(
    ('chunks', 'error', 'message'),
    [
        ([], UnexpectedModelBehavior, r'^Streamed response ended without content or tool calls$'),
        (['not json'], UnexpectedModelBehavior, 'expected JSON data, body:\nnot json'),
        ([{'id': 'x'}], UnexpectedModelBehavior, 'Invalid response from openai chat completions endpoint: 4 valid'),
        ([{'error': {'message': 'overloaded'}}], ModelAPIError, '^overloaded$'),
    ],
)
async def test_stream_malformed(
    server: ChatServer, model: OpenAIChatModel, chunks: list[Any], error: type[Exception], message: str
) -> None:
    server.add_stream(chunks)

    with pytest.raises(error, match=message):
        await _stream(model, _user('Hi'))


async def test_stream_malformed_later_chunk(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_stream([chunk('Hello'), 'garbage'])

    with pytest.raises(UnexpectedModelBehavior, match='expected JSON data, body:\ngarbage'):
        await _stream(model, _user('Hi'))


async def test_stream_timeout_mid_stream(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_stream([chunk('Hello'), chunk(' world')], stall=5)

    with pytest.raises(ModelAPIError, match=r'^Request timed out\.$'):
        await _stream(model, _user('Hi'), {'timeout': 0.3})


async def test_stream_connection_dropped(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_stream([chunk('Hello')], done=False, truncate=True)

    with pytest.raises(ModelAPIError, match=r'^Connection error\.$'):
        await _stream(model, _user('Hi'))
