"""`AnthropicModel` and `AnthropicProvider`, through the real `anthropic` SDK against a scripted server on 127.0.0.1."""

# pyright: reportUnusedFunction=false
# Tools registered by decorator are only used through the agent, which pyright cannot see.

from __future__ import annotations

import gc
import importlib
import io
import sys
from collections.abc import AsyncIterator
from datetime import UTC
from typing import Any

import httpx
import pytest
from anthropic import AsyncAnthropic
from dirty_equals import IsNow, IsStr
from inline_snapshot import snapshot
from pydantic import BaseModel, Field
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
    ToolOutput,
)
from pydantic_ai.exceptions import ModelAPIError, ModelHTTPError, UnexpectedModelBehavior, UserError
from pydantic_ai.messages import (
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
    VideoUrl,
)
from pydantic_ai.models import ModelRequestParameters, infer_model
from pydantic_ai.models.anthropic import AnthropicModel, AnthropicModelSettings
from pydantic_ai.profiles import ModelProfile
from pydantic_ai.profiles.anthropic import anthropic_model_profile
from pydantic_ai.providers import infer_provider_class
from pydantic_ai.providers.anthropic import AnthropicJsonSchemaTransformer, AnthropicProvider
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import ExternalToolset
from pydantic_ai.usage import RequestUsage

from ._anthropic_server import message, message_stream, text, thinking, tool_use, usage
from ._openai_server import ChatServer, ScriptedResponse

pytestmark = pytest.mark.anyio

IS_NOW: Any = IsNow(tz=UTC)
IS_STR: Any = IsStr()
SERVER_URL: Any = IsStr(regex=r'http://127\.0\.0\.1:\d+')


@pytest.fixture
async def client(server: ChatServer) -> AsyncIterator[AsyncAnthropic]:
    # No SDK retries, so each scripted error is seen once.
    client = AsyncAnthropic(base_url=server.base_url.removesuffix('/v1'), api_key='test-key', max_retries=0)
    yield client
    await client.close()


@pytest.fixture
def model(client: AsyncAnthropic) -> AnthropicModel:
    return AnthropicModel('claude-sonnet-4-5', provider=AnthropicProvider(anthropic_client=client))


class City(BaseModel):
    """A city."""

    name: str = Field(min_length=1)
    population: int


def weather_agent(model: AnthropicModel, **kwargs: Any) -> Agent[None, Any]:
    agent: Agent[None, Any] = Agent(model, **kwargs)

    @agent.tool_plain
    def weather(city: str) -> str:
        """The weather in a city."""
        if city == 'Atlantis':
            raise ModelRetry('No such city.')
        return f'Sunny in {city}'

    return agent


# Plain text, tools and structured output through an agent.


async def test_text_response(server: ChatServer, model: AnthropicModel) -> None:
    server.add_json(
        message(text('Hello!'), usage=usage(12, 4, cache_read_input_tokens=3, cache_creation_input_tokens=2))
    )
    agent = Agent(model, system_prompt='Be brief.', instructions='Answer in English.')
    settings: AnthropicModelSettings = {'max_tokens': 100, 'temperature': 0.5, 'top_p': 0.9, 'stop_sequences': ['x']}

    result = await agent.run('Hi', model_settings=settings)

    assert result.output == 'Hello!'
    assert result.all_messages() == snapshot(
        [
            ModelRequest(
                parts=[
                    SystemPromptPart(
                        content='Be brief.',
                        timestamp=IS_NOW,
                    ),
                    UserPromptPart(
                        content='Hi',
                        timestamp=IS_NOW,
                    ),
                ],
                timestamp=IS_NOW,
                instructions='Answer in English.',
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[TextPart(content='Hello!')],
                usage=RequestUsage(
                    input_tokens=17,
                    cache_write_tokens=2,
                    cache_read_tokens=3,
                    output_tokens=4,
                    details={
                        'cache_creation_input_tokens': 2,
                        'cache_read_input_tokens': 3,
                        'input_tokens': 12,
                        'output_tokens': 4,
                    },
                ),
                model_name='claude-sonnet-4-5-20250929',
                timestamp=IS_NOW,
                provider_name='anthropic',
                provider_url=SERVER_URL,
                provider_details={'finish_reason': 'end_turn'},
                provider_response_id='msg_1',
                finish_reason='stop',
                run_id=IS_STR,
            ),
        ]
    )
    assert server.bodies() == snapshot(
        [
            {
                'max_tokens': 100,
                'messages': [{'role': 'user', 'content': [{'type': 'text', 'text': 'Hi'}]}],
                'model': 'claude-sonnet-4-5',
                'stop_sequences': ['x'],
                'stream': False,
                'system': """\
Be brief.

Answer in English.\
""",
                'temperature': 0.5,
                'top_p': 0.9,
            }
        ]
    )
    request = server.requests[0]
    assert request.path == '/v1/messages?beta=true'
    assert request.headers['user-agent'] == 'pydantic-ai/1.51.0'
    assert 'anthropic-beta' not in request.headers


async def test_tool_loop_with_parallel_calls_and_a_retry(server: ChatServer, model: AnthropicModel) -> None:
    server.add_json(
        message(
            text('Checking.'),
            tool_use('weather', {'city': 'Paris'}, 'toolu_1'),
            tool_use('weather', {'city': 'Atlantis'}, 'toolu_2'),
            stop_reason='tool_use',
        )
    )
    server.add_json(message(text('Paris is sunny.')))

    result = await weather_agent(model).run('Weather?', model_settings={'parallel_tool_calls': False})

    assert result.output == 'Paris is sunny.'
    assert result.all_messages() == snapshot(
        [
            ModelRequest(
                parts=[
                    UserPromptPart(
                        content='Weather?',
                        timestamp=IS_NOW,
                    )
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[
                    TextPart(content='Checking.'),
                    ToolCallPart(tool_name='weather', args={'city': 'Paris'}, tool_call_id='toolu_1'),
                    ToolCallPart(tool_name='weather', args={'city': 'Atlantis'}, tool_call_id='toolu_2'),
                ],
                usage=RequestUsage(input_tokens=10, output_tokens=5, details={'input_tokens': 10, 'output_tokens': 5}),
                model_name='claude-sonnet-4-5-20250929',
                timestamp=IS_NOW,
                provider_name='anthropic',
                provider_url=SERVER_URL,
                provider_details={'finish_reason': 'tool_use'},
                provider_response_id='msg_1',
                finish_reason='tool_call',
                run_id=IS_STR,
            ),
            ModelRequest(
                parts=[
                    ToolReturnPart(
                        tool_name='weather',
                        content='Sunny in Paris',
                        tool_call_id='toolu_1',
                        timestamp=IS_NOW,
                    ),
                    RetryPromptPart(
                        content='No such city.',
                        tool_name='weather',
                        tool_call_id='toolu_2',
                        timestamp=IS_NOW,
                    ),
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[TextPart(content='Paris is sunny.')],
                usage=RequestUsage(input_tokens=10, output_tokens=5, details={'input_tokens': 10, 'output_tokens': 5}),
                model_name='claude-sonnet-4-5-20250929',
                timestamp=IS_NOW,
                provider_name='anthropic',
                provider_url=SERVER_URL,
                provider_details={'finish_reason': 'end_turn'},
                provider_response_id='msg_1',
                finish_reason='stop',
                run_id=IS_STR,
            ),
        ]
    )
    assert server.bodies()[1] == snapshot(
        {
            'max_tokens': 4096,
            'messages': [
                {'role': 'user', 'content': [{'type': 'text', 'text': 'Weather?'}]},
                {
                    'role': 'assistant',
                    'content': [
                        {'type': 'text', 'text': 'Checking.'},
                        {'type': 'tool_use', 'id': 'toolu_1', 'name': 'weather', 'input': {'city': 'Paris'}},
                        {'type': 'tool_use', 'id': 'toolu_2', 'name': 'weather', 'input': {'city': 'Atlantis'}},
                    ],
                },
                {
                    'role': 'user',
                    'content': [
                        {
                            'tool_use_id': 'toolu_1',
                            'type': 'tool_result',
                            'content': 'Sunny in Paris',
                            'is_error': False,
                        },
                        {
                            'tool_use_id': 'toolu_2',
                            'type': 'tool_result',
                            'content': """\
No such city.

Fix the errors and try again.\
""",
                            'is_error': True,
                        },
                    ],
                },
            ],
            'model': 'claude-sonnet-4-5',
            'stream': False,
            'tool_choice': {'type': 'auto', 'disable_parallel_tool_use': True},
            'tools': [
                {
                    'name': 'weather',
                    'description': 'The weather in a city.',
                    'input_schema': {
                        'additionalProperties': False,
                        'properties': {'city': {'type': 'string'}},
                        'required': ['city'],
                        'type': 'object',
                    },
                }
            ],
        }
    )


async def test_tool_output(server: ChatServer, model: AnthropicModel) -> None:
    server.add_json(
        message(tool_use('final_result', {'name': 'Paris', 'population': 2}, 'toolu_3'), stop_reason='tool_use')
    )

    result = await Agent(model, output_type=ToolOutput(City, strict=True)).run('A city')

    assert result.output == City(name='Paris', population=2)
    assert server.bodies() == snapshot(
        [
            {
                'max_tokens': 4096,
                'messages': [{'role': 'user', 'content': [{'type': 'text', 'text': 'A city'}]}],
                'model': 'claude-sonnet-4-5',
                'stream': False,
                'tool_choice': {'type': 'any'},
                'tools': [
                    {
                        'name': 'final_result',
                        'description': 'A city.',
                        'input_schema': {
                            'type': 'object',
                            'properties': {
                                'name': {'type': 'string', 'description': '{minLength: 1}'},
                                'population': {'type': 'integer'},
                            },
                            'additionalProperties': False,
                            'required': ['name', 'population'],
                        },
                        'strict': True,
                    }
                ],
            }
        ]
    )
    assert server.requests[0].headers['anthropic-beta'] == 'structured-outputs-2025-11-13'


async def test_native_output(server: ChatServer, model: AnthropicModel) -> None:
    server.add_json(message(text('{"name": "Rome", "population": 3}')))

    result = await Agent(model, output_type=NativeOutput(City)).run('A city')

    assert result.output == City(name='Rome', population=3)
    assert server.bodies() == snapshot(
        [
            {
                'max_tokens': 4096,
                'messages': [{'role': 'user', 'content': [{'type': 'text', 'text': 'A city'}]}],
                'model': 'claude-sonnet-4-5',
                'output_config': {
                    'format': {
                        'type': 'json_schema',
                        'schema': {
                            'type': 'object',
                            'properties': {
                                'name': {'type': 'string', 'description': '{minLength: 1}'},
                                'population': {'type': 'integer'},
                            },
                            'additionalProperties': False,
                            'required': ['name', 'population'],
                        },
                    }
                },
                'stream': False,
            }
        ]
    )
    assert server.requests[0].headers['anthropic-beta'] == 'structured-outputs-2025-11-13'


async def test_native_output_cannot_be_non_strict(model: AnthropicModel) -> None:
    with pytest.raises(UserError, match=r'^Setting `strict=False` on `output_type=NativeOutput\(...\)` is not allowed'):
        await Agent(model, output_type=NativeOutput(City, strict=False)).run('A city')


async def test_prompted_output(server: ChatServer, model: AnthropicModel) -> None:
    server.add_json(message(text('{"name": "Rome", "population": 3}')))

    result = await Agent(model, output_type=PromptedOutput(City)).run('A city')

    assert result.output == City(name='Rome', population=3)
    assert server.bodies() == snapshot(
        [
            {
                'max_tokens': 4096,
                'messages': [{'role': 'user', 'content': [{'type': 'text', 'text': 'A city'}]}],
                'model': 'claude-sonnet-4-5',
                'stream': False,
                'system': """\

Always respond with a JSON object that's compatible with this schema:

{"properties": {"name": {"minLength": 1, "type": "string"}, "population": {"type": "integer"}}, "required": ["name", "population"], "type": "object", "title": "City", "description": "A city."}

Don't include any text or Markdown fencing before or after.
""",
            }
        ]
    )


async def test_strict_tools_on_a_model_without_structured_outputs(server: ChatServer, client: AsyncAnthropic) -> None:
    model = AnthropicModel('claude-custom', provider=AnthropicProvider(anthropic_client=client))
    server.add_json(message(tool_use('final_result', {'name': 'Oslo', 'population': 1}, 'toolu_1')))

    await Agent(model, output_type=ToolOutput(City, strict=True)).run('A city')

    # The schema is still made strict, but the API is not told so.
    assert server.bodies()[0]['tools'] == snapshot(
        [
            {
                'name': 'final_result',
                'description': 'A city.',
                'input_schema': {
                    'type': 'object',
                    'properties': {
                        'name': {'type': 'string', 'description': '{minLength: 1}'},
                        'population': {'type': 'integer'},
                    },
                    'additionalProperties': False,
                    'required': ['name', 'population'],
                },
            }
        ]
    )
    assert 'anthropic-beta' not in server.requests[0].headers


async def test_thinking_round_trips_with_its_signature(server: ChatServer, model: AnthropicModel) -> None:
    server.add_json(
        message(
            thinking('Let me think.', 'sig-abc'),
            {'type': 'redacted_thinking', 'data': 'secret'},
            tool_use('weather', {'city': 'Oslo'}, 'toolu_4'),
            stop_reason='tool_use',
        )
    )
    server.add_json(message(thinking('Done.', 'sig-def'), text('Cold.')))
    settings: AnthropicModelSettings = {'anthropic_thinking': {'type': 'enabled', 'budget_tokens': 1024}}

    result = await weather_agent(model).run('Oslo?', model_settings=settings)

    assert result.all_messages()[1] == snapshot(
        ModelResponse(
            parts=[
                ThinkingPart(content='Let me think.', signature='sig-abc', provider_name='anthropic'),
                ThinkingPart(content='', id='redacted_thinking', signature='secret', provider_name='anthropic'),
                ToolCallPart(tool_name='weather', args={'city': 'Oslo'}, tool_call_id='toolu_4'),
            ],
            usage=RequestUsage(input_tokens=10, output_tokens=5, details={'input_tokens': 10, 'output_tokens': 5}),
            model_name='claude-sonnet-4-5-20250929',
            timestamp=IS_NOW,
            provider_name='anthropic',
            provider_url=SERVER_URL,
            provider_details={'finish_reason': 'tool_use'},
            provider_response_id='msg_1',
            finish_reason='tool_call',
            run_id=IS_STR,
        )
    )
    assert server.bodies()[1] == snapshot(
        {
            'max_tokens': 4096,
            'messages': [
                {'role': 'user', 'content': [{'type': 'text', 'text': 'Oslo?'}]},
                {
                    'role': 'assistant',
                    'content': [
                        {'type': 'thinking', 'thinking': 'Let me think.', 'signature': 'sig-abc'},
                        {'type': 'redacted_thinking', 'data': 'secret'},
                        {'type': 'tool_use', 'id': 'toolu_4', 'name': 'weather', 'input': {'city': 'Oslo'}},
                    ],
                },
                {
                    'role': 'user',
                    'content': [
                        {'tool_use_id': 'toolu_4', 'type': 'tool_result', 'content': 'Sunny in Oslo', 'is_error': False}
                    ],
                },
            ],
            'model': 'claude-sonnet-4-5',
            'stream': False,
            'thinking': {'type': 'enabled', 'budget_tokens': 1024},
            'tool_choice': {'type': 'auto'},
            'tools': [
                {
                    'name': 'weather',
                    'description': 'The weather in a city.',
                    'input_schema': {
                        'additionalProperties': False,
                        'properties': {'city': {'type': 'string'}},
                        'required': ['city'],
                        'type': 'object',
                    },
                }
            ],
        }
    )


async def test_history_from_other_providers(server: ChatServer, model: AnthropicModel) -> None:
    history: list[ModelMessage] = [
        ModelRequest(parts=[SystemPromptPart('Be kind.'), UserPromptPart('Hi')]),
        ModelResponse(parts=[ThinkingPart('pondering'), ThinkingPart(''), TextPart(''), TextPart('Hello')]),
        ModelRequest(parts=[RetryPromptPart('Say more.')]),
        ModelRequest(parts=[UserPromptPart('And?')]),
    ]
    server.add_json(message(text('More.')))

    await Agent(model).run(message_history=history)

    assert server.bodies()[0] == snapshot(
        {
            'max_tokens': 4096,
            'messages': [
                {'role': 'user', 'content': [{'type': 'text', 'text': 'Hi'}]},
                {
                    'role': 'assistant',
                    'content': [
                        {
                            'type': 'text',
                            'text': """\
<thinking>
pondering
</thinking>\
""",
                        },
                        {'type': 'text', 'text': 'Hello'},
                    ],
                },
                {
                    'role': 'user',
                    'content': [
                        {
                            'type': 'text',
                            'text': """\
Validation feedback:
Say more.

Fix the errors and try again.\
""",
                        },
                        {'type': 'text', 'text': 'And?'},
                    ],
                },
            ],
            'model': 'claude-sonnet-4-5',
            'stream': False,
            'system': 'Be kind.',
        }
    )


async def test_user_content_and_cache_settings(server: ChatServer, model: AnthropicModel) -> None:
    server.add_json(message(text('Seen.')))
    settings: AnthropicModelSettings = {
        'anthropic_cache_instructions': '1h',
        'anthropic_cache_messages': True,
        'anthropic_cache_tool_definitions': True,
        'anthropic_metadata': {'user_id': 'u1'},
        'anthropic_container': {'id': 'container_1'},
        'extra_headers': {'x-trace': 't1'},
    }
    prompt = [
        'look',
        BinaryContent(b'\x89PNG', media_type='image/png'),
        ImageUrl('https://example.com/a.png'),
        DocumentUrl('https://example.com/a.pdf'),
        BinaryContent(b'%PDF', media_type='application/pdf'),
        BinaryContent(b'hello', media_type='text/plain'),
        CachePoint(),
        'after',
    ]

    await weather_agent(model, instructions='Be brief.').run(prompt, model_settings=settings)

    assert server.bodies()[0] == snapshot(
        {
            'max_tokens': 4096,
            'messages': [
                {
                    'role': 'user',
                    'content': [
                        {'type': 'text', 'text': 'look'},
                        {'type': 'image', 'source': {'type': 'base64', 'media_type': 'image/png', 'data': 'iVBORw=='}},
                        {'type': 'image', 'source': {'type': 'url', 'url': 'https://example.com/a.png'}},
                        {'type': 'document', 'source': {'type': 'url', 'url': 'https://example.com/a.pdf'}},
                        {
                            'type': 'document',
                            'source': {'type': 'base64', 'media_type': 'application/pdf', 'data': 'JVBERg=='},
                        },
                        {
                            'type': 'document',
                            'source': {'type': 'text', 'media_type': 'text/plain', 'data': 'hello'},
                            'cache_control': {'type': 'ephemeral', 'ttl': '5m'},
                        },
                        {'type': 'text', 'text': 'after', 'cache_control': {'type': 'ephemeral', 'ttl': '5m'}},
                    ],
                }
            ],
            'model': 'claude-sonnet-4-5',
            'container': {'id': 'container_1'},
            'metadata': {'user_id': 'u1'},
            'stream': False,
            'system': [{'type': 'text', 'text': 'Be brief.', 'cache_control': {'type': 'ephemeral', 'ttl': '1h'}}],
            'tool_choice': {'type': 'auto'},
            'tools': [
                {
                    'name': 'weather',
                    'description': 'The weather in a city.',
                    'input_schema': {
                        'additionalProperties': False,
                        'properties': {'city': {'type': 'string'}},
                        'required': ['city'],
                        'type': 'object',
                    },
                    'cache_control': {'type': 'ephemeral', 'ttl': '5m'},
                }
            ],
        }
    )
    assert server.requests[0].headers['x-trace'] == 't1'


@pytest.mark.parametrize(
    ('content', 'error'),
    [
        ([CachePoint(), 'x'], UserError),
        ([BinaryContent(b'x', media_type='audio/wav')], UserError),
        ([VideoUrl('https://example.com/v.mp4')], NotImplementedError),
    ],
)
async def test_unsupported_user_content(model: AnthropicModel, content: list[Any], error: type[Exception]) -> None:
    with pytest.raises(error, match=r'Anthropic|CachePoint'):
        await Agent(model).run(content)


# Streaming.


async def test_streamed_text_thinking_and_tool_input(server: ChatServer, model: AnthropicModel) -> None:
    server.add_sse(
        message_stream(
            thinking('Hmm.', 'sig-z'),
            {'type': 'redacted_thinking', 'data': 'secret'},
            text('Let me check.'),
            tool_use('weather', {'city': 'Oslo'}, 'toolu_9'),
            stop_reason='tool_use',
            input_usage=usage(10, 1, cache_read_input_tokens=4),
        )
    )
    server.add_sse(message_stream(text('It is sunny.'), output_tokens=7))
    agent = weather_agent(model)
    events: list[Any] = []

    async with agent.iter('Oslo?') as run:
        async for node in run:
            if type(node).__name__ == 'ModelRequestNode':
                async with node.stream(run.ctx) as stream:  # pyright: ignore[reportAttributeAccessIssue,reportUnknownMemberType,reportUnknownVariableType]
                    events.extend([e async for e in stream])  # pyright: ignore[reportUnknownVariableType]
    assert run.result is not None

    assert [e for e in events if isinstance(e, PartStartEvent | PartDeltaEvent)] == snapshot(
        [
            PartStartEvent(index=0, part=ThinkingPart(content='', signature='', provider_name='anthropic')),
            PartDeltaEvent(index=0, delta=ThinkingPartDelta(content_delta='Hm')),
            PartDeltaEvent(index=0, delta=ThinkingPartDelta(content_delta='m.')),
            PartDeltaEvent(index=0, delta=ThinkingPartDelta(signature_delta='sig-z')),
            PartStartEvent(
                index=1,
                part=ThinkingPart(content='', id='redacted_thinking', signature='secret', provider_name='anthropic'),
                previous_part_kind='thinking',
            ),
            PartStartEvent(index=2, part=TextPart(content='Let me '), previous_part_kind='thinking'),
            PartDeltaEvent(index=2, delta=TextPartDelta(content_delta='check.')),
            PartStartEvent(
                index=3, part=ToolCallPart(tool_name='weather', tool_call_id='toolu_9'), previous_part_kind='text'
            ),
            PartDeltaEvent(index=3, delta=ToolCallPartDelta(args_delta='{"city":', tool_call_id='toolu_9')),
            PartDeltaEvent(index=3, delta=ToolCallPartDelta(args_delta=' "Oslo"}', tool_call_id='toolu_9')),
            PartStartEvent(index=0, part=TextPart(content='It is ')),
            PartDeltaEvent(index=0, delta=TextPartDelta(content_delta='sunny.')),
        ]
    )
    assert run.result.all_messages() == snapshot(
        [
            ModelRequest(
                parts=[UserPromptPart(content='Oslo?', timestamp=IS_NOW)],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[
                    ThinkingPart(content='Hmm.', signature='sig-z', provider_name='anthropic'),
                    ThinkingPart(content='', id='redacted_thinking', signature='secret', provider_name='anthropic'),
                    TextPart(content='Let me check.'),
                    ToolCallPart(tool_name='weather', args='{"city": "Oslo"}', tool_call_id='toolu_9'),
                ],
                usage=RequestUsage(
                    input_tokens=14,
                    cache_read_tokens=4,
                    output_tokens=5,
                    details={'cache_read_input_tokens': 4, 'input_tokens': 10, 'output_tokens': 5},
                ),
                model_name='claude-sonnet-4-5-20250929',
                timestamp=IS_NOW,
                provider_name='anthropic',
                provider_url=SERVER_URL,
                provider_details={'finish_reason': 'tool_use'},
                provider_response_id='msg_s1',
                finish_reason='tool_call',
                run_id=IS_STR,
            ),
            ModelRequest(
                parts=[
                    ToolReturnPart(
                        tool_name='weather', content='Sunny in Oslo', tool_call_id='toolu_9', timestamp=IS_NOW
                    )
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[TextPart(content='It is sunny.')],
                usage=RequestUsage(input_tokens=10, output_tokens=7, details={'input_tokens': 10, 'output_tokens': 7}),
                model_name='claude-sonnet-4-5-20250929',
                timestamp=IS_NOW,
                provider_name='anthropic',
                provider_url=SERVER_URL,
                provider_details={'finish_reason': 'end_turn'},
                provider_response_id='msg_s1',
                finish_reason='stop',
                run_id=IS_STR,
            ),
        ]
    )
    assert server.bodies()[0]['stream'] is True


async def test_run_stream_text(server: ChatServer, model: AnthropicModel) -> None:
    server.add_sse(message_stream(text('Hello there, friend.'), pieces=3))

    async with Agent(model).run_stream('Hi') as result:
        chunks = [c async for c in result.stream_text(delta=True, debounce_by=None)]

    assert chunks == snapshot(['Hello t', 'here, f', 'riend.'])
    assert result.usage().output_tokens == 5


async def test_stream_without_events(server: ChatServer, model: AnthropicModel) -> None:
    server.add_sse([])

    with pytest.raises(UnexpectedModelBehavior, match=r'^Streamed response ended without content or tool calls$'):
        async with Agent(model).run_stream('Hi') as result:
            await result.get_output()  # pragma: no cover


async def test_stream_with_a_bad_event(server: ChatServer, model: AnthropicModel) -> None:
    server.add(ScriptedResponse(events=['event: message_start\ndata: {"type": "message_start", "message": ']))

    with pytest.raises(UnexpectedModelBehavior) as exc_info:
        async with Agent(model).run_stream('Hi') as result:
            await result.get_output()  # pragma: no cover
    assert str(exc_info.value) == snapshot("""\
Invalid response from anthropic messages endpoint, expected JSON data, body:
{"type": "message_start", "message": \
""")


async def test_stream_with_an_invalid_event(server: ChatServer, model: AnthropicModel) -> None:
    server.add_sse([('message_start', {'type': 'message_start'})])

    with pytest.raises(UnexpectedModelBehavior) as exc_info:
        async with Agent(model).run_stream('Hi') as result:
            await result.get_output()  # pragma: no cover
    assert str(exc_info.value) == snapshot("""\
Invalid response from anthropic messages endpoint: 'NoneType' object has no attribute 'model', body:
{
  "type": "message_start"
}\
""")


async def test_stream_with_an_error_event(server: ChatServer, model: AnthropicModel) -> None:
    events = message_stream(text('Hi'))[:2]
    events.append(('error', {'type': 'error', 'error': {'type': 'overloaded_error', 'message': 'Overloaded'}}))
    server.add_sse(events)

    with pytest.raises(ModelAPIError) as exc_info:
        async with Agent(model).run_stream('Hi') as result:
            await result.get_output()
    assert repr(exc_info.value) == snapshot(
        "ModelHTTPError(\"status_code: 200, model_name: claude-sonnet-4-5, body: {'type': 'error', 'error': {'type': 'overloaded_error', 'message': 'Overloaded'}}\")"
    )


async def test_stream_http_error(server: ChatServer, model: AnthropicModel) -> None:
    server.add_json({'type': 'error', 'error': {'type': 'invalid_request_error', 'message': 'bad'}}, status=400)

    with pytest.raises(ModelHTTPError) as exc_info:
        async with Agent(model).run_stream('Hi'):
            pass  # pragma: no cover
    assert exc_info.value.status_code == 400


# Errors.


async def test_http_error(server: ChatServer, model: AnthropicModel) -> None:
    server.add_json({'type': 'error', 'error': {'type': 'invalid_request_error', 'message': 'bad'}}, status=400)

    with pytest.raises(ModelHTTPError) as exc_info:
        await Agent(model).run('x')

    assert repr(exc_info.value) == snapshot(
        "ModelHTTPError(\"status_code: 400, model_name: claude-sonnet-4-5, body: {'type': 'error', 'error': {'type': 'invalid_request_error', 'message': 'bad'}}\")"
    )
    assert exc_info.value.body == snapshot(
        {'type': 'error', 'error': {'type': 'invalid_request_error', 'message': 'bad'}}
    )


async def test_connection_error() -> None:
    client = AsyncAnthropic(base_url='http://127.0.0.1:1', api_key='k', max_retries=0)
    model = AnthropicModel('claude-sonnet-4-5', provider=AnthropicProvider(anthropic_client=client))

    with pytest.raises(ModelAPIError, match=r'^Connection error\.$'):
        await Agent(model).run('x')
    await client.close()


async def test_body_that_is_not_json(server: ChatServer, model: AnthropicModel) -> None:
    server.add_raw(b'not json')

    with pytest.raises(UnexpectedModelBehavior) as exc_info:
        await Agent(model).run('x')

    assert str(exc_info.value) == snapshot("""\
Invalid response from anthropic messages endpoint, expected JSON data, body:
not json\
""")


async def test_body_that_is_not_a_message(server: ChatServer, model: AnthropicModel) -> None:
    server.add_json({'id': 'x'})

    with pytest.raises(UnexpectedModelBehavior) as exc_info:
        await Agent(model).run('x')

    assert str(exc_info.value) == snapshot("""\
Invalid response from anthropic messages endpoint: 'NoneType' object is not iterable, body:
{
  "id": "x"
}\
""")


async def test_finish_reasons(server: ChatServer, model: AnthropicModel) -> None:
    server.add_json(message(text('cut'), stop_reason='max_tokens'))
    server.add_json(message(text('paused'), stop_reason='pause_turn'))

    first = await model.request([ModelRequest.user_text_prompt('x')], None, ModelRequestParameters())
    second = await model.request([ModelRequest.user_text_prompt('x')], None, ModelRequestParameters())

    assert (first.finish_reason, second.finish_reason) == ('length', 'stop')


def test_missing_api_key_is_reported_at_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv('ANTHROPIC_API_KEY', raising=False)
    agent = Agent('anthropic:claude-sonnet-4-5')

    with pytest.raises(UserError) as exc_info:
        agent.run_sync('x')

    assert str(exc_info.value) == snapshot(
        'Set the `ANTHROPIC_API_KEY` environment variable or pass it via `AnthropicProvider(api_key=...)`to use the Anthropic provider.'
    )


# The model, the provider and the profile.


async def test_model_properties(model: AnthropicModel, client: AsyncAnthropic) -> None:
    assert repr(model) == 'AnthropicModel()'
    assert (model.model_name, model.system, model.label) == ('claude-sonnet-4-5', 'anthropic', 'Claude Sonnet 4.5')
    assert model.base_url == SERVER_URL
    assert model.client is client
    assert model.profile.thinking_tags == ('<thinking>', '</thinking>')
    assert model.profile.json_schema_transformer is AnthropicJsonSchemaTransformer


def test_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv('ANTHROPIC_BASE_URL', raising=False)
    provider = AnthropicProvider(api_key='abc')
    assert repr(provider) == 'AnthropicProvider(name=anthropic, base_url=https://api.anthropic.com)'
    assert isinstance(provider.client, AsyncAnthropic)
    assert provider.client.api_key == 'abc'

    http_client = httpx.AsyncClient()
    provider = AnthropicProvider(api_key='abc', base_url='http://localhost:9/', http_client=http_client)
    assert provider.base_url == 'http://localhost:9/'

    monkeypatch.delenv('ANTHROPIC_API_KEY', raising=False)
    assert AnthropicProvider(base_url='http://localhost:9').base_url == 'http://localhost:9'
    client = AsyncAnthropic(api_key='x')
    with pytest.raises(UserError, match=r'^Cannot provide both `anthropic_client` and `http_client`$'):
        AnthropicProvider(anthropic_client=client, http_client=http_client)
    with pytest.raises(UserError, match=r'^Cannot provide both `anthropic_client` and `api_key`$'):
        AnthropicProvider(anthropic_client=client, api_key='x')
    assert infer_provider_class('anthropic') is AnthropicProvider


def test_profiles() -> None:
    supported = {
        name: anthropic_model_profile(name).supports_json_schema_output  # pyright: ignore[reportOptionalMemberAccess]
        for name in ('claude-sonnet-4-5-20250929', 'claude-opus-4-1', 'claude-haiku-4-5', 'claude-sonnet-4', 'foo')
    }
    assert supported == snapshot(
        {
            'claude-sonnet-4-5-20250929': True,
            'claude-opus-4-1': True,
            'claude-haiku-4-5': True,
            'claude-sonnet-4': False,
            'foo': False,
        }
    )


def test_json_schema_transformer() -> None:
    schema = {
        'type': 'object',
        'title': 'Root',
        'properties': {'title': {'type': 'string', 'title': 'Title', 'minLength': 1}, 'any': {}},
        'required': ['title'],
    }
    loose = AnthropicJsonSchemaTransformer({'type': 'object', 'properties': {'title': {'type': 'string'}}})
    assert loose.walk() == snapshot({'type': 'object', 'properties': {'title': {'type': 'string'}}})
    assert loose.is_strict_compatible is False
    closed = AnthropicJsonSchemaTransformer({'type': 'object', 'properties': {}, 'additionalProperties': False})
    closed.walk()
    assert closed.is_strict_compatible is True
    unknown = AnthropicJsonSchemaTransformer(schema)
    assert unknown.walk() == snapshot(
        {
            'type': 'object',
            'properties': {'title': {'type': 'string', 'minLength': 1}, 'any': {}},
            'required': ['title'],
        }
    )
    assert unknown.is_strict_compatible is False
    title = {'type': 'string', 'title': 'Title', 'minLength': 1}
    strict = AnthropicJsonSchemaTransformer({**schema, 'properties': {'title': title}}, strict=True)
    assert strict.walk() == snapshot(
        {
            'type': 'object',
            'properties': {'title': {'type': 'string', 'description': '{minLength: 1}'}},
            'additionalProperties': False,
            'required': ['title'],
        }
    )


def test_infer_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('ANTHROPIC_API_KEY', 'x')
    model = infer_model('anthropic:claude-sonnet-4-5')
    assert isinstance(model, AnthropicModel)
    assert model.model_name == 'claude-sonnet-4-5'
    with pytest.warns(
        DeprecationWarning, match="Instead of 'claude-3-5-haiku-latest', use 'anthropic:claude-3-5-haiku-latest'"
    ):
        bare = infer_model('claude-3-5-haiku-latest')
    assert isinstance(bare, AnthropicModel)
    with pytest.raises(UserError, match=r'^Unknown model: mistral-large$'):
        infer_model('mistral-large')
    with pytest.warns(DeprecationWarning), pytest.raises(UserError, match=r'`google` optional dependencies'):
        infer_model('gemini-2.5-pro')


def test_missing_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, 'anthropic', None)
    for name in ('pydantic_ai.models.anthropic', 'pydantic_ai.providers.anthropic'):
        monkeypatch.delitem(sys.modules, name)

    with pytest.raises(ImportError, match=r'^Please install `anthropic` to use the Anthropic model'):
        importlib.import_module('pydantic_ai.models.anthropic')
    with pytest.raises(ImportError, match=r'^Please install the `anthropic` package to use the Anthropic provider'):
        Agent('anthropic:claude-sonnet-4-5')
    # The same error is a `UserError` too, naming the extra to install.
    with pytest.raises(UserError, match=r'`pip install "pydantic-ai-slim\[anthropic\]"`'):
        infer_model('anthropic:claude-sonnet-4-5')


# Deferred calls answered by a handler, end to end.


def files_agent(model: AnthropicModel, deleted: list[str]) -> Agent[None, str]:
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
    tool_use('list_files', {}, 'toolu_list'),
    tool_use('delete_file', {'path': 'a.tmp'}, 'toolu_a'),
    tool_use('delete_file', {'path': 'keep.txt'}, 'toolu_keep'),
    tool_use('ask_user', {'question': 'Proceed?'}, 'toolu_ask'),
]


def tool_results(body: Any) -> list[tuple[str, str, bool]]:
    last = body['messages'][-1]
    return [(b['tool_use_id'], b['content'], b['is_error']) for b in last['content'] if b['type'] == 'tool_result']


EXPECTED_RESULTS = [
    ('toolu_list', '["a.tmp","keep.txt"]', False),
    ('toolu_a', 'deleted a.tmp', False),
    ('toolu_keep', 'Keep keep.txt: it is not temporary.', False),
    ('toolu_ask', 'Yes, go ahead.', False),
]


async def test_handler_run(server: ChatServer, model: AnthropicModel) -> None:
    deleted: list[str] = []
    server.add_json(message(*DELETE_CALLS, stop_reason='tool_use'))
    server.add_json(message(text('Deleted a.tmp.')))

    result = await files_agent(model, deleted).run('Clean up.', deferred_tool_handler=handler)

    assert result.output == 'Deleted a.tmp.'
    assert deleted == ['a.tmp']
    assert tool_results(server.bodies()[1]) == EXPECTED_RESULTS


async def test_handler_run_stream(server: ChatServer, model: AnthropicModel) -> None:
    deleted: list[str] = []
    server.add_sse(message_stream(*DELETE_CALLS, stop_reason='tool_use'))
    server.add_sse(message_stream(text('Deleted a.tmp.')))

    async with files_agent(model, deleted).run_stream('Clean up.', deferred_tool_handler=handler) as stream:
        output = await stream.get_output()

    assert output == 'Deleted a.tmp.'
    assert deleted == ['a.tmp']
    assert tool_results(server.bodies()[1]) == EXPECTED_RESULTS


async def test_handler_iter(server: ChatServer, model: AnthropicModel) -> None:
    deleted: list[str] = []
    server.add_json(message(*DELETE_CALLS, stop_reason='tool_use'))
    server.add_json(message(text('Deleted a.tmp.')))

    async with files_agent(model, deleted).iter('Clean up.', deferred_tool_handler=handler) as run:
        async for _ in run:
            pass
    assert run.result is not None

    assert run.result.output == 'Deleted a.tmp.'
    assert deleted == ['a.tmp']
    assert tool_results(server.bodies()[1]) == EXPECTED_RESULTS
    assert [type(m).__name__ for m in run.result.all_messages()] == snapshot(
        ['ModelRequest', 'ModelResponse', 'ModelRequest', 'ModelResponse']
    )


# The approval demo, on the scripted server.


@pytest.mark.filterwarnings('ignore::pytest.PytestUnraisableExceptionWarning')
def test_approval_demo_on_anthropic(server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from pydantic_ai_examples.approval.cli import main

    monkeypatch.setenv('ANTHROPIC_BASE_URL', server.base_url.removesuffix('/v1'))
    monkeypatch.setenv('ANTHROPIC_API_KEY', 'test-key')
    server.add_json(
        message(tool_use('kill_process', {'pid': 4242, 'signal': 'TERM'}, 'toolu_kill'), stop_reason='tool_use')
    )
    server.add_json(message(text('Port 8080 is free.')))
    out = io.StringIO()

    assert main(['--model', 'anthropic:claude-sonnet-4-5', '--delay', '0', '--answers', 'y'], out=out) == 0

    transcript = out.getvalue()
    assert 'Approve kill_process? [y/n/s/a] y' in transcript
    assert 'Port 8080 is free.' in transcript
    assert tool_results(server.bodies()[1]) == snapshot(
        [('toolu_kill', '{"pid":4242,"signal":"TERM","exited":false,"state":"draining connections"}', False)]
    )
    gc.collect()


async def test_request_usage_mapping(server: ChatServer, model: AnthropicModel) -> None:
    server.add_json(message(text('x'), usage=usage(5, 2, cache_creation_input_tokens=0, cache_read_input_tokens=7)))

    response = await model.request([ModelRequest.user_text_prompt('x')], None, ModelRequestParameters())

    assert response.usage == RequestUsage(
        input_tokens=12,
        cache_read_tokens=7,
        output_tokens=2,
        details={'input_tokens': 5, 'output_tokens': 2, 'cache_creation_input_tokens': 0, 'cache_read_input_tokens': 7},
    )
    assert response.timestamp == IS_NOW
    assert response.provider_response_id == IS_STR


async def test_count_tokens(server: ChatServer, model: AnthropicModel) -> None:
    server.add_json({'input_tokens': 42})
    params = ModelRequestParameters(function_tools=[ToolDefinition(name='t')], output_mode='native')

    usage = await model.count_tokens([ModelRequest.user_text_prompt('hi')], {'max_tokens': 5}, params)

    assert usage == RequestUsage(input_tokens=42)
    assert server.requests[0].path == '/v1/messages/count_tokens?beta=true'
    assert server.requests[0].headers['anthropic-beta'] == 'token-counting-2024-11-01'
    assert server.bodies() == snapshot(
        [
            {
                'messages': [{'role': 'user', 'content': [{'type': 'text', 'text': 'hi'}]}],
                'model': 'claude-sonnet-4-5',
                'tool_choice': {'type': 'auto'},
                'tools': [{'name': 't', 'description': '', 'input_schema': {'type': 'object', 'properties': {}}}],
            }
        ]
    )
    assert AnthropicModel.supported_builtin_tools() == frozenset()


async def test_count_tokens_http_error(server: ChatServer, model: AnthropicModel) -> None:
    server.add_json({'type': 'error', 'error': {'type': 'invalid_request_error', 'message': 'bad'}}, status=400)

    with pytest.raises(ModelHTTPError):
        await model.count_tokens([ModelRequest.user_text_prompt('hi')], None, ModelRequestParameters())


async def test_profile_without_schema_transformer(server: ChatServer, client: AsyncAnthropic) -> None:
    profile = ModelProfile(supports_json_schema_output=True)
    model = AnthropicModel('claude-sonnet-4-5', provider=AnthropicProvider(anthropic_client=client), profile=profile)
    server.add_json(message(text('{"name": "Rome", "population": 3}')))

    await Agent(model, output_type=NativeOutput(City)).run('A city')

    # Without Anthropic's transformer, the schema goes as pydantic made it.
    assert server.bodies()[0]['output_config'] == snapshot(
        {
            'format': {
                'type': 'json_schema',
                'schema': {
                    'properties': {'name': {'minLength': 1, 'type': 'string'}, 'population': {'type': 'integer'}},
                    'required': ['name', 'population'],
                    'title': 'City',
                    'type': 'object',
                },
            }
        }
    )


def test_model_from_provider_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('ANTHROPIC_API_KEY', 'x')

    assert AnthropicModel('claude-sonnet-4-5', provider='anthropic').system == 'anthropic'


async def test_odd_messages_and_blocks(server: ChatServer, model: AnthropicModel) -> None:
    server.add_json(message({'type': 'container_upload', 'file_id': 'f1'}, text('Hi.')))
    messages: list[ModelMessage] = [
        ModelRequest(parts=[SystemPromptPart('Only a system prompt.')]),
        ModelRequest(parts=[UserPromptPart('One.')]),
        ModelRequest(parts=[UserPromptPart('Two.')]),
        ModelResponse(parts=[TextPart('')]),
    ]

    response = await model.request(messages, None, ModelRequestParameters())

    assert response.parts == [TextPart('Hi.')]
    # Consecutive user turns are merged, as the API wants the roles to alternate.
    assert server.bodies()[0]['messages'] == snapshot(
        [{'role': 'user', 'content': [{'type': 'text', 'text': 'One.'}, {'type': 'text', 'text': 'Two.'}]}]
    )


async def test_stream_odd_events(server: ChatServer, model: AnthropicModel) -> None:
    events = message_stream(text('Hi'))
    start = ('content_block_start', {'type': 'content_block_start', 'index': 1, 'content_block': text('Started ')})
    orphan = {'type': 'input_json_delta', 'partial_json': '{}'}
    extra: list[tuple[str, Any]] = [
        start,
        ('content_block_delta', {'type': 'content_block_delta', 'index': 7, 'delta': orphan}),
        ('message_delta', {'type': 'message_delta', 'delta': {'stop_reason': None}, 'usage': {'output_tokens': 2}}),
    ]
    server.add_sse([*events[:-2], *extra, *events[-2:]])

    async with Agent(model).run_stream('Hi') as result:
        output = await result.get_output()

    assert output == 'HiStarted '
    assert result.all_messages()[-1].parts == snapshot([TextPart(content='Hi'), TextPart(content='Started ')])


async def test_body_that_is_a_list(server: ChatServer, model: AnthropicModel) -> None:
    server.add_json([1, 2])

    with pytest.raises(UnexpectedModelBehavior) as exc_info:
        await Agent(model).run('x')

    assert str(exc_info.value) == snapshot("""\
Invalid response from anthropic messages endpoint: 'list' object has no attribute 'content', body:
[
  1,
  2
]\
""")


async def test_stream_timeout_and_dropped_connection(server: ChatServer, model: AnthropicModel) -> None:
    server.add_sse(message_stream(text('Hello world')), stall=5)
    server.add_sse(message_stream(text('Hello world'))[:3], truncate=True)

    with pytest.raises(ModelAPIError, match=r'^Request timed out\.$'):
        async with Agent(model).run_stream('Hi', model_settings={'timeout': 0.3}) as result:
            await result.get_output()
    with pytest.raises(ModelAPIError, match=r'^Connection error\.$'):
        async with Agent(model).run_stream('Hi') as result:
            await result.get_output()
