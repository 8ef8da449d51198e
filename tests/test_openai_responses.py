"""`OpenAIResponsesModel`, through the real `openai` SDK against a scripted Responses API server on 127.0.0.1."""

# pyright: reportUnusedFunction=false
# Tools registered by decorator are only used through the agent, which pyright cannot see.

from __future__ import annotations

import gc
import io
from datetime import UTC, datetime
from typing import Any

import pytest
from dirty_equals import IsNow, IsStr
from inline_snapshot import snapshot
from openai import AsyncOpenAI
from pydantic import BaseModel
from pydantic_ai import (
    Agent,
    DeferredToolRequests,
    DeferredToolResults,
    ModelRetry,
    NativeOutput,
    PromptedOutput,
    RunContext,
    Tool,
    ToolDenied,
)
from pydantic_ai.exceptions import ModelAPIError, ModelHTTPError, UnexpectedModelBehavior, UserError
from pydantic_ai.messages import (
    AudioUrl,
    BinaryContent,
    CachePoint,
    DocumentUrl,
    ImageUrl,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    PartDeltaEvent,
    PartStartEvent,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestParameters, infer_model
from pydantic_ai.models.openai import OpenAIResponsesModel, OpenAIResponsesModelSettings
from pydantic_ai.profiles.openai import OpenAIModelProfile
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import ExternalToolset
from pydantic_ai.usage import RequestUsage

from ._openai_server import ChatServer, ScriptedResponse
from ._responses_server import function_call, message, reasoning, response, response_stream, usage

pytestmark = pytest.mark.anyio

IS_NOW: Any = IsNow(tz=UTC)
CREATED = datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)
IS_STR: Any = IsStr()
SERVER_URL: Any = IsStr(regex=r'http://127\.0\.0\.1:\d+/v1/')


@pytest.fixture
def model(client: AsyncOpenAI) -> OpenAIResponsesModel:
    return OpenAIResponsesModel('gpt-5', provider=OpenAIProvider(openai_client=client))


@pytest.fixture
def chat_model(client: AsyncOpenAI) -> OpenAIResponsesModel:
    """A model that does not reason, so sampling settings pass."""
    return OpenAIResponsesModel('gpt-4o', provider=OpenAIProvider(openai_client=client))


class City(BaseModel):
    """A city."""

    name: str
    population: int


def weather_agent(model: OpenAIResponsesModel, **kwargs: Any) -> Agent[None, Any]:
    agent: Agent[None, Any] = Agent(model, **kwargs)

    @agent.tool_plain
    def weather(city: str) -> str:
        """The weather in a city."""
        if city == 'Atlantis':
            raise ModelRetry('No such city.')
        return f'Sunny in {city}'

    return agent


async def _request(
    model: OpenAIResponsesModel,
    messages: list[ModelMessage],
    settings: OpenAIResponsesModelSettings | None = None,
    params: ModelRequestParameters | None = None,
) -> ModelResponse:
    return await model.request(messages, settings, params or ModelRequestParameters())


# Plain text, tools and structured output through an agent.


async def test_text_response(server: ChatServer, model: OpenAIResponsesModel) -> None:
    server.add_json(response(message('Hello!'), usage=usage(12, 4, cached=3, reasoning=2)))
    agent = Agent(model, system_prompt='Be brief.', instructions='Answer in English.')

    with pytest.warns(UserWarning, match=r"^Sampling parameters \['temperature'\] are not supported"):
        result = await agent.run('Hi', model_settings={'max_tokens': 100, 'temperature': 0.5})

    assert result.output == 'Hello!'
    assert result.all_messages() == snapshot(
        [
            ModelRequest(
                parts=[
                    SystemPromptPart(content='Be brief.', timestamp=IS_NOW),
                    UserPromptPart(content='Hi', timestamp=IS_NOW),
                ],
                timestamp=IS_NOW,
                instructions='Answer in English.',
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[TextPart(content='Hello!', id='msg_1', provider_name='openai')],
                usage=RequestUsage(
                    input_tokens=12, cache_read_tokens=3, output_tokens=4, details={'reasoning_tokens': 2}
                ),
                model_name='gpt-5-2025-08-07',
                timestamp=IS_NOW,
                provider_name='openai',
                provider_url=SERVER_URL,
                provider_details={'finish_reason': 'completed', 'timestamp': CREATED},
                provider_response_id='resp_1',
                finish_reason='stop',
                run_id=IS_STR,
            ),
        ]
    )
    assert server.bodies() == snapshot(
        [
            {
                'include': ['reasoning.encrypted_content'],
                'input': [{'role': 'system', 'content': 'Be brief.'}, {'role': 'user', 'content': 'Hi'}],
                'instructions': 'Answer in English.',
                'max_output_tokens': 100,
                'model': 'gpt-5',
                'stream': False,
            }
        ]
    )
    request = server.requests[0]
    assert request.path == '/v1/responses'
    assert request.headers['user-agent'] == 'pydantic-ai/1.51.0'


async def test_tool_loop_with_reasoning(server: ChatServer, model: OpenAIResponsesModel) -> None:
    server.add_json(
        response(
            reasoning('Thinking about it.', 'More.', encrypted_content='enc-1'),
            message('Checking.'),
            function_call('weather', '{"city": "Paris"}', 'call_1'),
            function_call('weather', '{"city": "Atlantis"}', 'call_2'),
        )
    )
    server.add_json(response(message('Paris is sunny.', id='msg_2'), id='resp_2'))
    settings: OpenAIResponsesModelSettings = {
        'openai_reasoning_effort': 'low',
        'openai_reasoning_summary': 'detailed',
        'parallel_tool_calls': True,
    }

    result = await weather_agent(model).run('Weather?', model_settings=settings)

    assert result.output == 'Paris is sunny.'
    assert result.all_messages()[1] == snapshot(
        ModelResponse(
            parts=[
                ThinkingPart(content='Thinking about it.', id='rs_1', signature='enc-1', provider_name='openai'),
                ThinkingPart(content='More.', id='rs_1', provider_name='openai'),
                TextPart(content='Checking.', id='msg_1', provider_name='openai'),
                ToolCallPart(
                    tool_name='weather',
                    args='{"city": "Paris"}',
                    tool_call_id='call_1',
                    id='fc_call_1',
                    provider_name='openai',
                ),
                ToolCallPart(
                    tool_name='weather',
                    args='{"city": "Atlantis"}',
                    tool_call_id='call_2',
                    id='fc_call_2',
                    provider_name='openai',
                ),
            ],
            usage=RequestUsage(input_tokens=10, output_tokens=5, details={'reasoning_tokens': 0}),
            model_name='gpt-5-2025-08-07',
            timestamp=IS_NOW,
            provider_name='openai',
            provider_url=SERVER_URL,
            provider_details={'finish_reason': 'completed', 'timestamp': CREATED},
            provider_response_id='resp_1',
            finish_reason='stop',
            run_id=IS_STR,
        )
    )
    assert server.bodies()[1] == snapshot(
        {
            'include': ['reasoning.encrypted_content'],
            'input': [
                {'role': 'user', 'content': 'Weather?'},
                {
                    'type': 'reasoning',
                    'summary': [
                        {'type': 'summary_text', 'text': 'Thinking about it.'},
                        {'type': 'summary_text', 'text': 'More.'},
                    ],
                    'id': 'rs_1',
                    'encrypted_content': 'enc-1',
                },
                {
                    'type': 'message',
                    'role': 'assistant',
                    'id': 'msg_1',
                    'status': 'completed',
                    'content': [{'type': 'output_text', 'text': 'Checking.', 'annotations': []}],
                },
                {
                    'type': 'function_call',
                    'name': 'weather',
                    'arguments': '{"city": "Paris"}',
                    'call_id': 'call_1',
                    'id': 'fc_call_1',
                },
                {
                    'type': 'function_call',
                    'name': 'weather',
                    'arguments': '{"city": "Atlantis"}',
                    'call_id': 'call_2',
                    'id': 'fc_call_2',
                },
                {'type': 'function_call_output', 'call_id': 'call_1', 'output': 'Sunny in Paris'},
                {
                    'type': 'function_call_output',
                    'call_id': 'call_2',
                    'output': """\
No such city.

Fix the errors and try again.\
""",
                },
            ],
            'model': 'gpt-5',
            'parallel_tool_calls': True,
            'reasoning': {'effort': 'low', 'summary': 'detailed'},
            'stream': False,
            'tool_choice': 'auto',
            'tools': [
                {
                    'type': 'function',
                    'name': 'weather',
                    'description': 'The weather in a city.',
                    'parameters': {
                        'additionalProperties': False,
                        'properties': {'city': {'type': 'string'}},
                        'required': ['city'],
                        'type': 'object',
                    },
                    'strict': True,
                }
            ],
        }
    )


async def test_tool_output(server: ChatServer, model: OpenAIResponsesModel) -> None:
    server.add_json(response(function_call('final_result', '{"name": "Paris", "population": 2}', 'call_3')))

    result = await Agent(model, output_type=City).run('A city')

    assert result.output == City(name='Paris', population=2)
    assert server.bodies()[0]['tool_choice'] == 'required'


async def test_native_output(server: ChatServer, model: OpenAIResponsesModel) -> None:
    server.add_json(response(message('{"name": "Rome", "population": 3}')))

    result = await Agent(model, output_type=NativeOutput(City, description='A city.')).run('A city')

    assert result.output == City(name='Rome', population=3)
    assert server.bodies()[0]['text'] == snapshot(
        {
            'format': {
                'type': 'json_schema',
                'name': 'City',
                'schema': {
                    'properties': {'name': {'type': 'string'}, 'population': {'type': 'integer'}},
                    'required': ['name', 'population'],
                    'type': 'object',
                    'additionalProperties': False,
                },
                'strict': True,
                'description': 'A city.. A city.',
            }
        }
    )


async def test_prompted_output(server: ChatServer, model: OpenAIResponsesModel) -> None:
    server.add_json(response(message('{"name": "Rome", "population": 3}')))

    result = await Agent(model, output_type=PromptedOutput(City), system_prompt='Sys.').run('A city')

    assert result.output == City(name='Rome', population=3)
    assert server.bodies()[0] == snapshot(
        {
            'include': ['reasoning.encrypted_content'],
            'input': [
                {'role': 'system', 'content': 'Sys.'},
                {
                    'role': 'system',
                    'content': """\

Always respond with a JSON object that's compatible with this schema:

{"properties": {"name": {"type": "string"}, "population": {"type": "integer"}}, "required": ["name", "population"], "type": "object", "additionalProperties": false, "title": "City", "description": "A city."}

Don't include any text or Markdown fencing before or after.
""",
                },
                {'role': 'user', 'content': 'A city'},
            ],
            'model': 'gpt-5',
            'stream': False,
            'text': {'format': {'type': 'json_object'}},
        }
    )


async def test_previous_response_id(server: ChatServer, model: OpenAIResponsesModel) -> None:
    server.add_json(response(function_call('weather', '{"city": "Oslo"}', 'call_4'), id='resp_a'))
    server.add_json(response(message('Cold.'), id='resp_b'))
    server.add_json(response(message('Still cold.'), id='resp_c'))
    server.add_json(response(message('Fresh.'), id='resp_d'))
    agent = weather_agent(model)
    auto: OpenAIResponsesModelSettings = {'openai_previous_response_id': 'auto'}

    first = await agent.run('Oslo?', model_settings=auto)
    await agent.run('And now?', message_history=first.all_messages(), model_settings=auto)
    explicit: OpenAIResponsesModelSettings = {'openai_previous_response_id': 'resp_x'}
    await agent.run('Hi', model_settings=explicit)

    inputs = [(body.get('previous_response_id'), body['input']) for body in server.bodies()]
    assert inputs == snapshot(
        [
            (None, [{'role': 'user', 'content': 'Oslo?'}]),
            ('resp_a', [{'type': 'function_call_output', 'call_id': 'call_4', 'output': 'Sunny in Oslo'}]),
            ('resp_b', [{'role': 'user', 'content': 'And now?'}]),
            ('resp_x', [{'role': 'user', 'content': 'Hi'}]),
        ]
    )


async def test_settings(server: ChatServer, chat_model: OpenAIResponsesModel) -> None:
    server.add_json(response(message('Ok.')))
    settings: OpenAIResponsesModelSettings = {
        'temperature': 0.2,
        'top_p': 0.9,
        'openai_text_verbosity': 'low',
        'openai_truncation': 'auto',
        'openai_service_tier': 'flex',
        'openai_user': 'u1',
        'openai_logprobs': True,
        'openai_top_logprobs': 2,
        'openai_include_code_execution_outputs': True,
        'openai_include_web_search_sources': True,
        'openai_include_file_search_results': True,
        'openai_builtin_tools': [{'type': 'web_search'}],
        'extra_headers': {'x-trace': 't1'},
    }

    with pytest.warns(DeprecationWarning, match='`openai_reasoning_generate_summary` is deprecated'):
        await _request(
            chat_model,
            [ModelRequest.user_text_prompt('x')],
            {**settings, 'openai_reasoning_generate_summary': 'concise'},
        )

    assert server.bodies()[0] == snapshot(
        {
            'include': [
                'code_interpreter_call.outputs',
                'web_search_call.action.sources',
                'file_search_call.results',
                'message.output_text.logprobs',
            ],
            'input': [{'role': 'user', 'content': 'x'}],
            'model': 'gpt-4o',
            'reasoning': {'summary': 'concise'},
            'service_tier': 'flex',
            'stream': False,
            'temperature': 0.2,
            'text': {'verbosity': 'low'},
            'tool_choice': 'auto',
            'tools': [{'type': 'web_search'}],
            'top_logprobs': 2,
            'top_p': 0.9,
            'truncation': 'auto',
            'user': 'u1',
        }
    )
    assert server.requests[0].headers['x-trace'] == 't1'


async def test_history_sent_back(server: ChatServer, model: OpenAIResponsesModel) -> None:
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('Hi')]),
        ModelResponse(
            parts=[
                ThinkingPart('Hmm.', id='rs_1', signature='enc', provider_name='openai'),
                ThinkingPart('', id='rs_2', provider_name='openai'),
                ThinkingPart('foreign'),
                TextPart('Hello', id='msg_1', provider_name='openai'),
                ToolCallPart('weather', {'city': 'Oslo'}, tool_call_id='call_1', id='fc_1', provider_name='openai'),
            ],
            provider_name='openai',
        ),
        ModelRequest(parts=[ToolReturnPart('weather', 'Sunny', tool_call_id='call_1')]),
        ModelResponse(parts=[TextPart('From elsewhere.'), ToolCallPart('weather', {'city': 'Rome'}, 'call_2')]),
        ModelRequest(parts=[RetryPromptPart('Say more.')]),
    ]
    server.add_json(response(message('More.')))

    await _request(model, history, {'openai_send_reasoning_ids': False})

    assert server.bodies()[0]['input'] == snapshot(
        [
            {'role': 'user', 'content': 'Hi'},
            {
                'role': 'assistant',
                'content': """\
<think>
Hmm.
</think>\
""",
            },
            {
                'role': 'assistant',
                'content': """\
<think>

</think>\
""",
            },
            {
                'role': 'assistant',
                'content': """\
<think>
foreign
</think>\
""",
            },
            {'role': 'assistant', 'content': 'Hello'},
            {'type': 'function_call', 'name': 'weather', 'arguments': '{"city":"Oslo"}', 'call_id': 'call_1'},
            {'type': 'function_call_output', 'call_id': 'call_1', 'output': 'Sunny'},
            {'role': 'assistant', 'content': 'From elsewhere.'},
            {'type': 'function_call', 'name': 'weather', 'arguments': '{"city":"Rome"}', 'call_id': 'call_2'},
            {
                'role': 'user',
                'content': [
                    {
                        'type': 'input_text',
                        'text': """\
Validation feedback:
Say more.

Fix the errors and try again.\
""",
                    }
                ],
            },
        ]
    )


async def test_user_content(server: ChatServer, model: OpenAIResponsesModel) -> None:
    server.add_json(response(message('Seen.')))
    prompt = [
        'look',
        ImageUrl('https://example.com/a.png'),
        BinaryContent(b'\x89PNG', media_type='image/png'),
        DocumentUrl('https://example.com/a.pdf'),
        BinaryContent(b'%PDF', media_type='application/pdf'),
        CachePoint(),
    ]

    await Agent(model).run(prompt)

    assert server.bodies()[0]['input'] == snapshot(
        [
            {
                'role': 'user',
                'content': [
                    {'type': 'input_text', 'text': 'look'},
                    {'type': 'input_image', 'image_url': 'https://example.com/a.png', 'detail': 'auto'},
                    {'type': 'input_image', 'image_url': 'data:image/png;base64,iVBORw==', 'detail': 'auto'},
                    {'type': 'input_file', 'file_url': 'https://example.com/a.pdf'},
                    {
                        'type': 'input_file',
                        'file_data': 'data:application/pdf;base64,JVBERg==',
                        'filename': 'filename.pdf',
                    },
                ],
            }
        ]
    )


async def test_unsupported_user_content(model: OpenAIResponsesModel) -> None:
    with pytest.raises(UserError, match=r'^Unsupported content for the OpenAI Responses API: AudioUrl$'):
        await Agent(model).run([AudioUrl('https://example.com/a.mp3')])


@pytest.mark.parametrize(
    ('status', 'reason', 'finish_reason'),
    [
        ('incomplete', 'max_output_tokens', 'length'),
        ('incomplete', 'content_filter', 'content_filter'),
        ('failed', None, 'error'),
        ('in_progress', None, None),
    ],
)
async def test_finish_reasons(
    server: ChatServer, model: OpenAIResponsesModel, status: str, reason: str | None, finish_reason: str | None
) -> None:
    server.add_json(response(message('cut'), status=status, incomplete_reason=reason))

    result = await _request(model, [ModelRequest.user_text_prompt('x')])

    assert result.finish_reason == finish_reason
    assert result.provider_details is not None
    assert result.provider_details['finish_reason'] == status


async def test_response_without_usage(server: ChatServer, model: OpenAIResponsesModel) -> None:
    body = response(message('x'))
    body['usage'] = None
    server.add_json(body)

    result = await _request(model, [ModelRequest.user_text_prompt('x')])

    assert result.usage.input_tokens == 0


# Streaming.


async def test_streamed_reasoning_text_and_tool_calls(server: ChatServer, model: OpenAIResponsesModel) -> None:
    server.add_sse(
        response_stream(
            reasoning('Thinking.', encrypted_content='enc-1'),
            reasoning(id='rs_2', encrypted_content='enc-2'),
            reasoning(id='rs_3'),
            message('Let me check.'),
            function_call('weather', '{"city": "Oslo"}', 'call_1'),
            usage=usage(20, 8, cached=4, reasoning=3),
        )
    )
    server.add_sse(response_stream(message('Sunny.', id='msg_2'), id='resp_s2'))
    agent = weather_agent(model)
    events: list[Any] = []

    async with agent.iter('Weather?') as run:
        async for node in run:
            if type(node).__name__ == 'ModelRequestNode':
                async with node.stream(run.ctx) as stream:  # pyright: ignore[reportAttributeAccessIssue,reportUnknownMemberType,reportUnknownVariableType]
                    events.extend([e async for e in stream])  # pyright: ignore[reportUnknownVariableType]
    assert run.result is not None

    assert [e for e in events if isinstance(e, PartStartEvent | PartDeltaEvent)] == snapshot(
        [
            PartStartEvent(index=0, part=ThinkingPart(content='', id='rs_1', provider_name='openai')),
            PartDeltaEvent(index=0, delta=ThinkingPartDelta(content_delta='Think')),
            PartDeltaEvent(index=0, delta=ThinkingPartDelta(content_delta='ing.')),
            PartDeltaEvent(index=0, delta=ThinkingPartDelta(signature_delta='enc-1')),
            PartStartEvent(
                index=1,
                part=ThinkingPart(content='', id='rs_2', signature='enc-2', provider_name='openai'),
                previous_part_kind='thinking',
            ),
            PartStartEvent(
                index=2,
                part=TextPart(content='Let me ', id='msg_1', provider_name='openai'),
                previous_part_kind='thinking',
            ),
            PartDeltaEvent(index=2, delta=TextPartDelta(content_delta='check.')),
            PartStartEvent(
                index=3,
                part=ToolCallPart(
                    tool_name='weather', args='', tool_call_id='call_1', id='fc_call_1', provider_name='openai'
                ),
                previous_part_kind='text',
            ),
            PartDeltaEvent(index=3, delta=ToolCallPartDelta(args_delta='{"city":', tool_call_id='call_1')),
            PartDeltaEvent(index=3, delta=ToolCallPartDelta(args_delta=' "Oslo"}', tool_call_id='call_1')),
            PartStartEvent(index=0, part=TextPart(content='Sun', id='msg_2', provider_name='openai')),
            PartDeltaEvent(index=0, delta=TextPartDelta(content_delta='ny.')),
        ]
    )
    assert run.result.all_messages()[1] == snapshot(
        ModelResponse(
            parts=[
                ThinkingPart(content='Thinking.', id='rs_1', signature='enc-1', provider_name='openai'),
                ThinkingPart(content='', id='rs_2', signature='enc-2', provider_name='openai'),
                TextPart(content='Let me check.', id='msg_1', provider_name='openai'),
                ToolCallPart(
                    tool_name='weather',
                    args='{"city": "Oslo"}',
                    tool_call_id='call_1',
                    id='fc_call_1',
                    provider_name='openai',
                ),
            ],
            usage=RequestUsage(input_tokens=20, cache_read_tokens=4, output_tokens=8, details={'reasoning_tokens': 3}),
            model_name='gpt-5-2025-08-07',
            timestamp=IS_NOW,
            provider_name='openai',
            provider_url=SERVER_URL,
            provider_details={'timestamp': CREATED, 'finish_reason': 'completed'},
            provider_response_id='resp_s1',
            finish_reason='stop',
            run_id=IS_STR,
        )
    )
    assert server.bodies()[1]['input'][1:4] == snapshot(
        [
            {
                'type': 'reasoning',
                'summary': [{'type': 'summary_text', 'text': 'Thinking.'}],
                'id': 'rs_1',
                'encrypted_content': 'enc-1',
            },
            {'type': 'reasoning', 'summary': [], 'id': 'rs_2', 'encrypted_content': 'enc-2'},
            {
                'type': 'message',
                'role': 'assistant',
                'id': 'msg_1',
                'status': 'completed',
                'content': [{'type': 'output_text', 'text': 'Let me check.', 'annotations': []}],
            },
        ]
    )


async def test_run_stream_text(server: ChatServer, model: OpenAIResponsesModel) -> None:
    server.add_sse(response_stream(message('Hello there, friend.'), pieces=3))

    async with Agent(model).run_stream('Hi') as result:
        chunks = [c async for c in result.stream_text(delta=True, debounce_by=None)]

    assert chunks == snapshot(['Hello t', 'here, f', 'riend.'])
    assert result.usage().output_tokens == 5


async def test_stream_without_events(server: ChatServer, model: OpenAIResponsesModel) -> None:
    server.add_sse([])

    with pytest.raises(UnexpectedModelBehavior, match=r'^Streamed response ended without content or tool calls$'):
        async with Agent(model).run_stream('Hi') as result:
            await result.get_output()  # pragma: no cover


async def test_stream_error_event(server: ChatServer, model: OpenAIResponsesModel) -> None:
    events = response_stream(message('Hi'))[:1]
    events.append(
        ('error', {'type': 'error', 'sequence_number': 1, 'code': 'server_error', 'message': 'Boom', 'param': None})
    )
    server.add_sse(events)

    with pytest.raises(ModelAPIError) as exc_info:
        async with Agent(model).run_stream('Hi') as result:
            await result.get_output()
    assert repr(exc_info.value) == snapshot("ModelAPIError('The streamed response reported an error: Boom')")


async def test_stream_with_a_bad_event(server: ChatServer, model: OpenAIResponsesModel) -> None:
    server.add(ScriptedResponse(events=['event: response.created\ndata: {"type": "response.created", "response": ']))

    with pytest.raises(UnexpectedModelBehavior) as exc_info:
        async with Agent(model).run_stream('Hi') as result:
            await result.get_output()  # pragma: no cover
    assert str(exc_info.value) == snapshot("""\
Invalid response from openai responses endpoint, expected JSON data, body:
{"type": "response.created", "response": \
""")


async def test_stream_with_an_invalid_event(server: ChatServer, model: OpenAIResponsesModel) -> None:
    server.add_sse([('response.created', {'type': 'response.created', 'sequence_number': 0})])

    with pytest.raises(UnexpectedModelBehavior) as exc_info:
        async with Agent(model).run_stream('Hi') as result:
            await result.get_output()  # pragma: no cover
    assert str(exc_info.value) == snapshot("""\
Invalid response from openai responses endpoint: 'NoneType' object has no attribute 'model', body:
{
  "sequence_number": 0,
  "type": "response.created"
}\
""")


async def test_stream_http_error(server: ChatServer, model: OpenAIResponsesModel) -> None:
    server.add_json({'error': {'message': 'bad', 'type': 'invalid_request_error'}}, status=400)

    with pytest.raises(ModelHTTPError) as exc_info:
        async with Agent(model).run_stream('Hi'):
            pass  # pragma: no cover
    assert exc_info.value.status_code == 400


# Errors.


async def test_http_error(server: ChatServer, model: OpenAIResponsesModel) -> None:
    server.add_json({'error': {'message': 'bad', 'type': 'invalid_request_error'}}, status=400)

    with pytest.raises(ModelHTTPError) as exc_info:
        await Agent(model).run('x')

    assert repr(exc_info.value) == snapshot(
        "ModelHTTPError(\"status_code: 400, model_name: gpt-5, body: {'message': 'bad', 'type': 'invalid_request_error'}\")"
    )


async def test_connection_error() -> None:
    client = AsyncOpenAI(base_url='http://127.0.0.1:1/v1', api_key='k', max_retries=0)
    model = OpenAIResponsesModel('gpt-5', provider=OpenAIProvider(openai_client=client))

    with pytest.raises(ModelAPIError, match=r'^Connection error\.$'):
        await Agent(model).run('x')
    await client.close()


async def test_body_that_is_not_json(server: ChatServer, model: OpenAIResponsesModel) -> None:
    server.add_raw(b'not json')

    with pytest.raises(UnexpectedModelBehavior) as exc_info:
        await Agent(model).run('x')

    assert str(exc_info.value) == snapshot("""\
Invalid response from openai responses endpoint, expected JSON data, body:
not json\
""")


async def test_body_that_is_not_a_response(server: ChatServer, model: OpenAIResponsesModel) -> None:
    server.add_json({'id': 'x'})

    with pytest.raises(UnexpectedModelBehavior) as exc_info:
        await Agent(model).run('x')

    assert str(exc_info.value) == snapshot("""\
Invalid response from openai responses endpoint: 'NoneType' object is not iterable, body:
{
  "id": "x"
}\
""")


def test_missing_api_key_is_reported_at_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv('OPENAI_API_KEY', raising=False)
    monkeypatch.delenv('OPENAI_BASE_URL', raising=False)
    agent = Agent('openai-responses:gpt-5')

    with pytest.raises(UserError, match=r'^Set the `OPENAI_API_KEY` environment variable'):
        agent.run_sync('x')


# The model.


async def test_model_properties(model: OpenAIResponsesModel, client: AsyncOpenAI) -> None:
    assert repr(model) == 'OpenAIResponsesModel()'
    assert (model.model_name, model.system, model.label) == ('gpt-5', 'openai', 'GPT 5')
    assert model.base_url == SERVER_URL
    assert model.client is client
    assert OpenAIResponsesModel.supported_builtin_tools() == frozenset()
    with pytest.raises(NotImplementedError, match=r'^Token counting ahead of the request is not supported'):
        await model.count_tokens([], None, ModelRequestParameters())


def test_infer_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('OPENAI_API_KEY', 'x')
    model = infer_model('openai-responses:gpt-5')
    assert isinstance(model, OpenAIResponsesModel)
    assert model.model_name == 'gpt-5'
    assert OpenAIResponsesModel('gpt-5', provider='openai').system == 'openai'


# Deferred calls answered by a handler, end to end.


def files_agent(model: OpenAIResponsesModel, deleted: list[str]) -> Agent[None, str]:
    def list_files() -> list[str]:
        """List the files."""
        return ['a.tmp', 'keep.txt']

    def delete_file(path: str) -> str:
        """Delete a file."""
        deleted.append(path)
        return f'deleted {path}'

    ask_user = ToolDefinition(
        name='ask_user',
        parameters_json_schema={'type': 'object', 'properties': {'question': {'type': 'string'}}},
        description='Ask the user.',
    )
    tools = [list_files, Tool(delete_file, requires_approval=True)]
    return Agent(model, tools=tools, toolsets=[ExternalToolset([ask_user])])


def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
    results = DeferredToolResults()
    for call in requests.approvals:
        path = call.args_as_dict()['path']
        results.approvals[call.tool_call_id] = path.endswith('.tmp') or ToolDenied(f'Keep {path}: it is not temporary.')
    for call in requests.calls:
        results.calls[call.tool_call_id] = 'Yes, go ahead.'
    return results


DELETE_CALLS = [
    function_call('list_files', '{}', 'call_list'),
    function_call('delete_file', '{"path": "a.tmp"}', 'call_a'),
    function_call('delete_file', '{"path": "keep.txt"}', 'call_keep'),
    function_call('ask_user', '{"question": "Proceed?"}', 'call_ask'),
]

EXPECTED_OUTPUTS = [
    ('call_list', '["a.tmp","keep.txt"]'),
    ('call_a', 'deleted a.tmp'),
    ('call_keep', 'Keep keep.txt: it is not temporary.'),
    ('call_ask', 'Yes, go ahead.'),
]


def call_outputs(body: Any) -> list[tuple[str, str]]:
    return [(item['call_id'], item['output']) for item in body['input'] if item.get('type') == 'function_call_output']


async def test_handler_run(server: ChatServer, model: OpenAIResponsesModel) -> None:
    deleted: list[str] = []
    server.add_json(response(*DELETE_CALLS))
    server.add_json(response(message('Deleted a.tmp.'), id='resp_2'))

    result = await files_agent(model, deleted).run('Clean up.', deferred_tool_handler=handler)

    assert result.output == 'Deleted a.tmp.'
    assert deleted == ['a.tmp']
    assert call_outputs(server.bodies()[1]) == EXPECTED_OUTPUTS


async def test_handler_run_stream(server: ChatServer, model: OpenAIResponsesModel) -> None:
    deleted: list[str] = []
    server.add_sse(response_stream(*DELETE_CALLS))
    server.add_sse(response_stream(message('Deleted a.tmp.'), id='resp_s2'))

    async with files_agent(model, deleted).run_stream('Clean up.', deferred_tool_handler=handler) as stream:
        output = await stream.get_output()

    assert output == 'Deleted a.tmp.'
    assert deleted == ['a.tmp']
    assert call_outputs(server.bodies()[1]) == EXPECTED_OUTPUTS


async def test_handler_iter(server: ChatServer, model: OpenAIResponsesModel) -> None:
    deleted: list[str] = []
    server.add_json(response(*DELETE_CALLS))
    server.add_json(response(message('Deleted a.tmp.'), id='resp_2'))

    async with files_agent(model, deleted).iter('Clean up.', deferred_tool_handler=handler) as run:
        async for _ in run:
            pass
    assert run.result is not None

    assert run.result.output == 'Deleted a.tmp.'
    assert deleted == ['a.tmp']
    assert call_outputs(server.bodies()[1]) == EXPECTED_OUTPUTS


@pytest.mark.filterwarnings('ignore::pytest.PytestUnraisableExceptionWarning')
def test_approval_demo_on_the_responses_api(server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from pydantic_ai_examples.approval.cli import main

    monkeypatch.setenv('OPENAI_BASE_URL', server.base_url)
    monkeypatch.setenv('OPENAI_API_KEY', 'test-key')
    server.add_json(response(function_call('kill_process', '{"pid": 4242, "signal": "TERM"}', 'call_kill')))
    server.add_json(response(message('Port 8080 is free.'), id='resp_2'))
    out = io.StringIO()

    assert main(['--model', 'openai-responses:gpt-5', '--delay', '0', '--answers', 'y'], out=out) == 0

    transcript = out.getvalue()
    assert 'Approve kill_process? [y/n/s/a] y' in transcript
    assert 'Port 8080 is free.' in transcript
    assert call_outputs(server.bodies()[1]) == snapshot(
        [('call_kill', '{"pid":4242,"signal":"TERM","exited":false,"state":"draining connections"}')]
    )
    gc.collect()


async def test_odd_output_items_and_profiles(server: ChatServer, client: AsyncOpenAI) -> None:
    profile = OpenAIModelProfile(openai_unsupported_model_settings=('temperature',), supports_json_schema_output=True)
    model = OpenAIResponsesModel('gpt-4o', provider=OpenAIProvider(openai_client=client), profile=profile)
    refusal = {
        'type': 'message',
        'id': 'msg_r',
        'status': 'completed',
        'role': 'assistant',
        'content': [{'type': 'refusal', 'refusal': 'No.'}],
    }
    search = {
        'type': 'web_search_call',
        'id': 'ws_1',
        'status': 'completed',
        'action': {'type': 'search', 'query': 'q'},
    }
    server.add_json(response(refusal, search, message('Yes.')))
    server.add_json(response(message('{"name": "Rome", "population": 3}')))

    result = await _request(model, [ModelRequest.user_text_prompt('x')], {'temperature': 0.3})
    await Agent(model, output_type=NativeOutput(City)).run('A city')

    assert result.parts == snapshot([TextPart(content='Yes.', id='msg_1', provider_name='openai')])
    # Without a JSON schema transformer in the profile, schemas go as pydantic made them.
    assert server.bodies() == snapshot(
        [
            {'input': [{'role': 'user', 'content': 'x'}], 'model': 'gpt-4o', 'stream': False},
            {
                'input': [{'role': 'user', 'content': 'A city'}],
                'model': 'gpt-4o',
                'stream': False,
                'text': {
                    'format': {
                        'type': 'json_schema',
                        'name': 'City',
                        'schema': {
                            'properties': {'name': {'type': 'string'}, 'population': {'type': 'integer'}},
                            'required': ['name', 'population'],
                            'title': 'City',
                            'type': 'object',
                        },
                        'strict': None,
                        'description': 'A city.',
                    }
                },
            },
        ]
    )


async def test_own_history_with_ids(server: ChatServer, model: OpenAIResponsesModel) -> None:
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('Hi')]),
        ModelResponse(
            parts=[
                ThinkingPart('', id='rs_0', provider_name='openai'),
                ThinkingPart('Hmm.', id='rs_1', provider_name='openai'),
                ThinkingPart('', id='rs_1', signature='enc', provider_name='openai'),
                TextPart('Hello', id='msg_1', provider_name='openai'),
            ],
            provider_name='openai',
        ),
        ModelRequest(parts=[UserPromptPart('More?')]),
    ]
    server.add_json(response(message('More.')))

    await _request(model, history)

    assert server.bodies()[0]['input'] == snapshot(
        [
            {'role': 'user', 'content': 'Hi'},
            {
                'type': 'reasoning',
                'id': 'rs_1',
                'summary': [{'type': 'summary_text', 'text': 'Hmm.'}],
                'encrypted_content': 'enc',
            },
            {
                'type': 'message',
                'role': 'assistant',
                'id': 'msg_1',
                'status': 'completed',
                'content': [{'type': 'output_text', 'text': 'Hello', 'annotations': []}],
            },
            {'role': 'user', 'content': 'More?'},
        ]
    )


async def test_stream_api_error_event(server: ChatServer, model: OpenAIResponsesModel) -> None:
    events = response_stream(message('Hi'))[:1]
    events.append(('error', {'error': {'message': 'Overloaded', 'type': 'server_error'}}))
    server.add_sse(events)

    with pytest.raises(ModelAPIError) as exc_info:
        async with Agent(model).run_stream('Hi') as result:
            await result.get_output()
    assert repr(exc_info.value) == snapshot("ModelAPIError('Overloaded')")


async def test_stream_odd_events(server: ChatServer, model: OpenAIResponsesModel) -> None:
    events = response_stream(message('Hi'))
    orphan = {
        'type': 'response.function_call_arguments.delta',
        'sequence_number': 90,
        'item_id': 'fc_x',
        'output_index': 5,
        'delta': '{}',
    }
    server.add_sse([*events[:-1], ('response.function_call_arguments.delta', orphan), events[-1]])

    async with Agent(model).run_stream('Hi') as result:
        output = await result.get_output()

    assert output == 'Hi'


async def test_stream_timeout_and_dropped_connection(server: ChatServer, model: OpenAIResponsesModel) -> None:
    server.add_sse(response_stream(message('Hello world')), stall=5)
    server.add_sse(response_stream(message('Hello world'))[:3], truncate=True)

    with pytest.raises(ModelAPIError, match=r'^Request timed out\.$'):
        async with Agent(model).run_stream('Hi', model_settings={'timeout': 0.3}) as result:
            await result.get_output()
    with pytest.raises(ModelAPIError, match=r'^Connection error\.$'):
        async with Agent(model).run_stream('Hi') as result:
            await result.get_output()
