from __future__ import annotations

import functools
import threading
from datetime import UTC, datetime
from typing import Any

import pytest
from dirty_equals import IsNow
from inline_snapshot import snapshot
from pydantic_ai.messages import (
    BinaryContent,
    CachePoint,
    ImageUrl,
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ModelResponsePart,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.function import (
    AgentInfo,
    DeltaThinkingPart,
    DeltaToolCall,
    FunctionModel,
)
from pydantic_ai.output import OutputObjectDefinition
from pydantic_ai.profiles import ModelProfile
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import RequestUsage

pytestmark = pytest.mark.anyio

PROMPT = ModelRequest(parts=[UserPromptPart('hello world')])
# Typed `Any` so it can stand in for the timestamp it matches inside message constructors.
IS_NOW: Any = IsNow(tz=UTC)


class Recorder:
    """A model function that records what it was called with and answers with fixed parts."""

    def __init__(self, *parts: ModelResponsePart) -> None:
        self.__name__ = 'recorder'
        self.parts = list(parts) or [TextPart('a b c')]
        self.info: AgentInfo | None = None
        self.messages: list[ModelMessage] | None = None
        self.thread: int | None = None

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.messages, self.info, self.thread = messages, info, threading.get_ident()
        return ModelResponse(parts=self.parts)

    @property
    def instructions(self) -> str | None:
        assert self.info is not None
        return self.info.instructions


def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart('hi')])


async def stream(messages: list[ModelMessage], info: AgentInfo):
    yield 'hi'


def test_model_names():
    assert FunctionModel(respond).model_name == 'function:respond:'
    assert FunctionModel(stream_function=stream).model_name == 'function::stream'
    assert FunctionModel(respond, stream_function=stream).model_name == 'function:respond:stream'
    assert FunctionModel(respond, model_name='custom').model_name == 'custom'
    assert FunctionModel(lambda messages, info: respond(messages, info)).model_name == 'function:<lambda>:'
    model = FunctionModel(respond)
    assert (model.system, model.base_url, model.settings) == ('function', None, None)


def test_repr_and_equality():
    assert repr(FunctionModel(respond)) == snapshot(f'FunctionModel(function={respond!r}, stream_function=None)')
    assert FunctionModel(respond) == FunctionModel(respond)
    assert FunctionModel(respond) != FunctionModel(respond, model_name='other')


def test_a_function_is_required():
    with pytest.raises(TypeError, match='Either `function` or `stream_function` must be provided'):
        FunctionModel()


def test_a_callable_without_a_name_needs_a_model_name():
    with pytest.raises(AttributeError, match='__name__'):
        FunctionModel(functools.partial(respond))
    assert FunctionModel(functools.partial(respond), model_name='partial').model_name == 'partial'


def test_profile_supports_structured_output():
    assert FunctionModel(respond).profile == ModelProfile(
        supports_json_schema_output=True, supports_json_object_output=True
    )
    profile = ModelProfile()
    assert FunctionModel(respond, profile=profile).profile is profile


def test_delta_types():
    assert repr(DeltaToolCall()) == snapshot('DeltaToolCall(name=None, json_args=None, tool_call_id=None)')
    assert repr(DeltaToolCall('get', '{"a":', tool_call_id='call-1')) == snapshot(
        "DeltaToolCall(name='get', json_args='{\"a\":', tool_call_id='call-1')"
    )
    assert repr(DeltaThinkingPart(content='hmm')) == snapshot("DeltaThinkingPart(content='hmm', signature=None)")


async def test_sync_function_gets_messages_and_agent_info_in_a_worker_thread():
    recorder = Recorder()
    model = FunctionModel(recorder, settings={'temperature': 0.1, 'max_tokens': 5})
    tool = ToolDefinition(name='add')
    output_tool = ToolDefinition(name='final_result', kind='output')
    params = ModelRequestParameters(
        function_tools=[tool], output_mode='tool', output_tools=[output_tool], allow_text_output=False
    )
    messages: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart('hello world')], instructions='Be brief.')]

    response = await model.request(messages, {'temperature': 0.5}, params)

    assert response == snapshot(
        ModelResponse(
            parts=[TextPart('a b c')],
            usage=RequestUsage(input_tokens=52, output_tokens=3),
            model_name='function:recorder:',
            timestamp=IS_NOW,
        )
    )
    assert recorder.info == AgentInfo(
        function_tools=[tool],
        allow_text_output=False,
        output_tools=[output_tool],
        model_settings={'temperature': 0.5, 'max_tokens': 5},
        model_request_parameters=params,
        instructions='Be brief.',
    )
    assert recorder.info is not None and recorder.info.model_request_parameters == params
    assert recorder.messages is messages
    assert recorder.thread != threading.get_ident()


async def test_async_function_runs_on_the_event_loop():
    thread: list[int] = []

    async def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        thread.append(threading.get_ident())
        return ModelResponse(parts=[ToolCallPart('add', {'a': 1}, tool_call_id='call-1')])

    response = await FunctionModel(answer).request([PROMPT], None, ModelRequestParameters())
    assert response == snapshot(
        ModelResponse(
            parts=[ToolCallPart('add', {'a': 1}, tool_call_id='call-1')],
            usage=RequestUsage(input_tokens=52, output_tokens=4),
            model_name='function:answer:',
            timestamp=IS_NOW,
        )
    )
    assert thread == [threading.get_ident()]


async def test_response_fields_and_usage_are_kept():
    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(
            parts=[TextPart('hi')],
            usage=RequestUsage(cache_read_tokens=3),
            model_name='ignored',
            timestamp=datetime(2020, 1, 1, tzinfo=UTC),
            provider_name='provider',
            finish_reason='stop',
        )

    response = await FunctionModel(answer).request([PROMPT], None, ModelRequestParameters())
    assert response == snapshot(
        ModelResponse(
            parts=[TextPart('hi')],
            usage=RequestUsage(cache_read_tokens=3),
            model_name='function:answer:',
            timestamp=datetime(2020, 1, 1, tzinfo=UTC),
            provider_name='provider',
            finish_reason='stop',
        )
    )


async def test_function_must_return_a_model_response():
    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return 'text'  # pyright: ignore[reportReturnType] -- the misuse under test

    with pytest.raises(AssertionError, match='text'):
        await FunctionModel(answer).request([PROMPT], None, ModelRequestParameters())


async def test_stream_function_only_cannot_answer_a_plain_request():
    model = FunctionModel(stream_function=stream)
    with pytest.raises(
        AssertionError, match='FunctionModel must receive a `function` to support non-streamed requests'
    ):
        await model.request([PROMPT], None, ModelRequestParameters())


def req(*parts: ModelRequestPart, instructions: str | None = None) -> ModelRequest:
    return ModelRequest(parts=list(parts), instructions=instructions)


CALL = ModelResponse(parts=[ToolCallPart('t', {})])
USER = UserPromptPart('q')
RESULT = ToolReturnPart('t', 1)
RETRY = RetryPromptPart('again', tool_name='t')


@pytest.mark.parametrize(
    ('messages', 'expected'),
    [
        pytest.param([req(USER, instructions='ins')], 'ins', id='last request'),
        pytest.param([req(USER, instructions='')], '', id='empty instructions kept'),
        pytest.param([req(USER, instructions='ins'), CALL, req(RESULT)], 'ins', id='tool results continue the turn'),
        pytest.param([req(USER, instructions='ins'), CALL, req(RETRY, RESULT)], 'ins', id='retries continue the turn'),
        pytest.param([req(USER, instructions='ins'), CALL], 'ins', id='last message a response'),
        pytest.param([req(USER, instructions='ins'), CALL, req(RESULT, instructions='new')], 'new', id='own wins'),
        pytest.param([req(USER, instructions='ins'), CALL, req(USER)], None, id='new user prompt'),
        pytest.param([req(USER, instructions='ins'), CALL, req(RESULT, SystemPromptPart('s'))], None, id='mixed parts'),
        pytest.param([req(USER, instructions='ins'), CALL, req(RESULT), CALL, req(RESULT)], None, id='one step back'),
        pytest.param([CALL, req(RESULT)], None, id='no earlier request'),
        pytest.param([], None, id='no messages'),
    ],
)
async def test_instructions(messages: list[ModelMessage], expected: str | None):
    recorder = Recorder()
    await FunctionModel(recorder).request(messages, None, ModelRequestParameters())
    assert recorder.instructions == expected


SCHEMA = {'type': 'object', 'properties': {'a': {'type': 'integer'}}, 'title': 'Original'}


async def test_prompted_output_instructions_use_the_profile_template():
    recorder = Recorder()
    params = ModelRequestParameters(
        output_mode='prompted', output_object=OutputObjectDefinition(json_schema=SCHEMA, name='Foo', description='A é')
    )
    await FunctionModel(recorder, profile=ModelProfile(prompted_output_template='Schema: {schema}')).request(
        [req(USER, instructions='Be brief.')], None, params
    )
    assert recorder.instructions == snapshot(
        'Be brief.\n\nSchema: {"type": "object", "properties": {"a": {"type": "integer"}}, "title": "Foo", "description": "A \\u00e9"}'
    )


@pytest.mark.parametrize(
    ('mode', 'template', 'instructions', 'expected'),
    [
        pytest.param(
            'prompted',
            'Reply with {schema}, {{ and nothing else',
            None,
            'Reply with {"type": "object", "properties": {"a": {"type": "integer"}}, "title": "Original"}, { and nothing else',
            id='template',
        ),
        pytest.param(
            'prompted',
            'Reply in JSON.',
            '',
            'Reply in JSON.\n\n{"type": "object", "properties": {"a": {"type": "integer"}}, "title": "Original"}',
            id='template without placeholder',
        ),
        pytest.param(
            'native',
            'JSON: {schema}',
            'ins',
            'ins\n\nJSON: {"type": "object", "properties": {"a": {"type": "integer"}}, "title": "Original"}',
            id='native with a template',
        ),
        pytest.param('native', None, 'ins', 'ins', id='native without a template'),
        pytest.param('tool', 'JSON: {schema}', 'ins', 'ins', id='other modes'),
    ],
)
async def test_structured_output_instructions(mode: str, template: str | None, instructions: str | None, expected: str):
    recorder = Recorder()
    params = ModelRequestParameters(
        output_mode='native' if mode == 'native' else 'prompted' if mode == 'prompted' else 'tool',
        output_object=OutputObjectDefinition(json_schema=SCHEMA),
        prompted_output_template=template,
    )
    await FunctionModel(recorder).request([req(USER, instructions=instructions)], None, params)
    assert recorder.instructions == expected


async def test_prompted_output_without_an_output_object():
    recorder = Recorder()
    params = ModelRequestParameters(output_mode='prompted', prompted_output_template='JSON: {schema}')
    await FunctionModel(recorder).request([req(USER, instructions='ins')], None, params)
    assert recorder.instructions == 'ins'


async def estimate(messages: list[ModelMessage], *parts: ModelResponsePart) -> RequestUsage:
    response = await FunctionModel(Recorder(*parts)).request(messages, None, ModelRequestParameters())
    return response.usage


@pytest.mark.parametrize(
    ('parts', 'expected'),
    [
        pytest.param([TextPart('')], RequestUsage(input_tokens=52), id='empty text'),
        pytest.param([TextPart('  ')], RequestUsage(input_tokens=52, output_tokens=1), id='blank text'),
        pytest.param(
            [TextPart('one. two, three: "four"\tfive\nsix')], RequestUsage(input_tokens=52, output_tokens=6), id='words'
        ),
        pytest.param([ThinkingPart('x y')], RequestUsage(input_tokens=52, output_tokens=2), id='thinking'),
        pytest.param(
            [ToolCallPart('t', {'a': 'x y z', 'b': [1, 2]})],
            RequestUsage(input_tokens=52, output_tokens=9),
            id='dict args',
        ),
        pytest.param(
            [ToolCallPart('t', 'not json , x')], RequestUsage(input_tokens=52, output_tokens=4), id='string args'
        ),
        pytest.param([ToolCallPart('t', None)], RequestUsage(input_tokens=52, output_tokens=2), id='no args'),
    ],
)
async def test_usage_estimate_of_response_parts(parts: list[ModelResponsePart], expected: RequestUsage):
    assert await estimate([PROMPT], *parts) == expected


async def test_usage_estimate_of_request_parts():
    messages: list[ModelMessage] = [
        ModelRequest(
            parts=[
                SystemPromptPart('sys prompt'),
                SystemPromptPart(''),
                UserPromptPart(
                    [
                        'a b',
                        '',
                        BinaryContent(b'12345', media_type='image/png'),
                        ImageUrl('http://x/y.png'),
                        CachePoint(),
                    ]
                ),
                UserPromptPart(''),
                ToolReturnPart('t', {'x': [1, 2]}),
                ToolReturnPart('t', None),
                RetryPromptPart('bad thing', tool_name='t'),
                RetryPromptPart('bad thing'),
            ],
            instructions='instructions are not counted',
        )
    ]
    assert await estimate(messages) == snapshot(RequestUsage(input_tokens=85, output_tokens=3))


async def test_usage_estimate_counts_the_whole_conversation():
    messages: list[ModelMessage] = [
        PROMPT,
        ModelResponse(
            parts=[ToolCallPart('a', {'x': 1}), ThinkingPart('hmm ok')], usage=RequestUsage(output_tokens=1000)
        ),
        ModelRequest(parts=[ToolReturnPart('a', 'result value')]),
    ]
    assert await estimate(messages, TextPart('done')) == snapshot(RequestUsage(input_tokens=54, output_tokens=7))
