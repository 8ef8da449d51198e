"""`OpenAIChatModel` and `OpenAIProvider`, through the real `openai` SDK against a scripted server on 127.0.0.1."""

# pyright: reportUnusedFunction=false
# Tools registered by decorator are only used through the agent, which pyright cannot see.

from __future__ import annotations

import importlib
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, cast

import httpx
import pytest
from dirty_equals import IsNow, IsStr
from inline_snapshot import snapshot
from openai import AsyncOpenAI
from pydantic import BaseModel
from pydantic_ai import Agent, ModelRetry, NativeOutput, PromptedOutput, ToolOutput
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
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserContent,
    UserPromptPart,
    VideoUrl,
)
from pydantic_ai.models import ModelRequestParameters, infer_model
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIChatModelSettings, OpenAIModel
from pydantic_ai.profiles import ModelProfile
from pydantic_ai.profiles.openai import OpenAIModelProfile
from pydantic_ai.providers import Provider, infer_provider, infer_provider_class
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import RequestUsage, RunUsage

from ._openai_server import (
    ChatServer,
    ScriptedResponse,
    chat_server,
    completion,
    tool_call,
    usage,
)

pytestmark = pytest.mark.anyio

CREATED = datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)
IS_NOW: Any = IsNow(tz=UTC)
IS_STR: Any = IsStr()
SERVER_URL: Any = IsStr(regex=r'http://127\.0\.0\.1:\d+/v1/')


@pytest.fixture
def model(client: AsyncOpenAI) -> OpenAIChatModel:
    return OpenAIChatModel('gpt-4o', provider=OpenAIProvider(openai_client=client))


class City(BaseModel):
    """A city."""

    name: str
    population: int | None = None


async def _request(
    model: OpenAIChatModel,
    messages: list[ModelMessage],
    settings: OpenAIChatModelSettings | None = None,
    params: ModelRequestParameters | None = None,
) -> ModelResponse:
    return await model.request(messages, settings, params or ModelRequestParameters())


def _user(*content: UserContent) -> list[ModelMessage]:
    prompt = content[0] if len(content) == 1 and isinstance(content[0], str) else list(content)
    return [ModelRequest(parts=[UserPromptPart(prompt)])]


# Plain text, tools and structured output through an agent.


async def test_text_response(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_json(completion('Hello!', usage=usage(12, 4, cached_tokens=3, reasoning_tokens=2)))
    agent = Agent(model, system_prompt='Be brief.', instructions='Answer in English.')

    result = await agent.run('Hi')

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
                    input_tokens=12, cache_read_tokens=3, output_tokens=4, details={'reasoning_tokens': 2}
                ),
                model_name='gpt-4o-2024-08-06',
                timestamp=IS_NOW,
                provider_name='openai',
                provider_url=SERVER_URL,
                provider_details={
                    'finish_reason': 'stop',
                    'timestamp': CREATED,
                },
                provider_response_id='chatcmpl-1',
                finish_reason='stop',
                run_id=IS_STR,
            ),
        ]
    )
    assert result.usage() == snapshot(
        RunUsage(input_tokens=12, cache_read_tokens=3, output_tokens=4, details={'reasoning_tokens': 2}, requests=1)
    )
    assert server.bodies() == snapshot(
        [
            {
                'model': 'gpt-4o',
                'stream': False,
                'messages': [
                    {'role': 'system', 'content': 'Be brief.'},
                    {'role': 'system', 'content': 'Answer in English.'},
                    {'role': 'user', 'content': 'Hi'},
                ],
            }
        ]
    )
    assert server.requests[0].path == '/v1/chat/completions'
    assert server.requests[0].headers['authorization'] == 'Bearer test-key'


async def test_tool_call_loop(server: ChatServer, model: OpenAIChatModel) -> None:
    agent = Agent(model)

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """Get the weather in a city."""
        return f'Sunny in {city}'

    @agent.tool_plain
    def flaky(n: int) -> int:
        raise ModelRetry('Use a bigger number.')

    server.add_json(
        completion(
            None,
            tool_calls=[
                tool_call('get_weather', '{"city": "Paris"}', 'call_1'),
                tool_call('flaky', '{"n": 1}', 'call_2'),
                tool_call('get_weather', '{"town": "Lyon"}', 'call_3'),
                tool_call('missing', '{}', 'call_4'),
            ],
            finish_reason='tool_calls',
            usage=usage(20, 10),
        )
    )
    server.add_json(completion('It is sunny in Paris.', usage=usage(40, 8)))

    result = await agent.run('Weather in Paris?')

    assert result.output == 'It is sunny in Paris.'
    assert result.all_messages() == snapshot(
        [
            ModelRequest(
                parts=[
                    UserPromptPart(
                        content='Weather in Paris?',
                        timestamp=IS_NOW,
                    )
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[
                    ToolCallPart(tool_name='get_weather', args='{"city": "Paris"}', tool_call_id='call_1'),
                    ToolCallPart(tool_name='flaky', args='{"n": 1}', tool_call_id='call_2'),
                    ToolCallPart(tool_name='get_weather', args='{"town": "Lyon"}', tool_call_id='call_3'),
                    ToolCallPart(tool_name='missing', args='{}', tool_call_id='call_4'),
                ],
                usage=RequestUsage(input_tokens=20, output_tokens=10),
                model_name='gpt-4o-2024-08-06',
                timestamp=IS_NOW,
                provider_name='openai',
                provider_url=SERVER_URL,
                provider_details={
                    'finish_reason': 'tool_calls',
                    'timestamp': CREATED,
                },
                provider_response_id='chatcmpl-1',
                finish_reason='tool_call',
                run_id=IS_STR,
            ),
            ModelRequest(
                parts=[
                    ToolReturnPart(
                        tool_name='get_weather',
                        content='Sunny in Paris',
                        tool_call_id='call_1',
                        timestamp=IS_NOW,
                    ),
                    RetryPromptPart(
                        content='Use a bigger number.',
                        tool_name='flaky',
                        tool_call_id='call_2',
                        timestamp=IS_NOW,
                    ),
                    RetryPromptPart(
                        content=[
                            {'type': 'missing', 'loc': ('city',), 'msg': 'Field required', 'input': {'town': 'Lyon'}},
                            {
                                'type': 'extra_forbidden',
                                'loc': ('town',),
                                'msg': 'Extra inputs are not permitted',
                                'input': 'Lyon',
                            },
                        ],
                        tool_name='get_weather',
                        tool_call_id='call_3',
                        timestamp=IS_NOW,
                    ),
                    RetryPromptPart(
                        content="Unknown tool name: 'missing'. Available tools: 'get_weather', 'flaky'",
                        tool_name='missing',
                        tool_call_id='call_4',
                        timestamp=IS_NOW,
                    ),
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[TextPart(content='It is sunny in Paris.')],
                usage=RequestUsage(input_tokens=40, output_tokens=8),
                model_name='gpt-4o-2024-08-06',
                timestamp=IS_NOW,
                provider_name='openai',
                provider_url=SERVER_URL,
                provider_details={
                    'finish_reason': 'stop',
                    'timestamp': CREATED,
                },
                provider_response_id='chatcmpl-1',
                finish_reason='stop',
                run_id=IS_STR,
            ),
        ]
    )
    assert result.usage() == snapshot(RunUsage(input_tokens=60, output_tokens=18, requests=2, tool_calls=1))
    first, second = server.bodies()
    assert first == snapshot(
        {
            'model': 'gpt-4o',
            'stream': False,
            'messages': [{'role': 'user', 'content': 'Weather in Paris?'}],
            'tool_choice': 'auto',
            'tools': [
                {
                    'type': 'function',
                    'function': {
                        'name': 'get_weather',
                        'description': 'Get the weather in a city.',
                        'parameters': {
                            'additionalProperties': False,
                            'properties': {'city': {'type': 'string'}},
                            'required': ['city'],
                            'type': 'object',
                        },
                        'strict': True,
                    },
                },
                {
                    'type': 'function',
                    'function': {
                        'name': 'flaky',
                        'description': '',
                        'parameters': {
                            'additionalProperties': False,
                            'properties': {'n': {'type': 'integer'}},
                            'required': ['n'],
                            'type': 'object',
                        },
                        'strict': True,
                    },
                },
            ],
        }
    )
    assert second['messages'][1:] == snapshot(
        [
            {
                'role': 'assistant',
                'content': None,
                'tool_calls': [
                    {
                        'id': 'call_1',
                        'type': 'function',
                        'function': {'name': 'get_weather', 'arguments': '{"city": "Paris"}'},
                    },
                    {'id': 'call_2', 'type': 'function', 'function': {'name': 'flaky', 'arguments': '{"n": 1}'}},
                    {
                        'id': 'call_3',
                        'type': 'function',
                        'function': {'name': 'get_weather', 'arguments': '{"town": "Lyon"}'},
                    },
                    {'id': 'call_4', 'type': 'function', 'function': {'name': 'missing', 'arguments': '{}'}},
                ],
            },
            {'role': 'tool', 'tool_call_id': 'call_1', 'content': 'Sunny in Paris'},
            {
                'role': 'tool',
                'tool_call_id': 'call_2',
                'content': """\
Use a bigger number.

Fix the errors and try again.\
""",
            },
            {
                'role': 'tool',
                'tool_call_id': 'call_3',
                'content': """\
2 validation errors:
```json
[
  {
    "type": "missing",
    "loc": [
      "city"
    ],
    "msg": "Field required",
    "input": {
      "town": "Lyon"
    }
  },
  {
    "type": "extra_forbidden",
    "loc": [
      "town"
    ],
    "msg": "Extra inputs are not permitted",
    "input": "Lyon"
  }
]
```

Fix the errors and try again.\
""",
            },
            {
                'role': 'tool',
                'tool_call_id': 'call_4',
                'content': """\
Unknown tool name: 'missing'. Available tools: 'get_weather', 'flaky'

Fix the errors and try again.\
""",
            },
        ]
    )
    assert second['tools'] == first['tools']


async def test_parallel_tool_calls(server: ChatServer, model: OpenAIChatModel) -> None:
    agent = Agent(model, model_settings={'parallel_tool_calls': True})
    calls: list[str] = []

    @agent.tool_plain
    def lookup(key: str) -> str:
        calls.append(key)
        return key.upper()

    server.add_json(
        completion(
            None,
            tool_calls=[tool_call('lookup', '{"key": "a"}', 'c1'), tool_call('lookup', '{"key": "b"}', 'c2')],
            finish_reason='tool_calls',
        )
    )
    server.add_json(completion('A and B'))

    result = await agent.run('Look up a and b')

    assert result.output == 'A and B'
    assert sorted(calls) == ['a', 'b']
    assert server.bodies()[0]['parallel_tool_calls'] is True
    assert server.bodies()[1]['messages'][1:] == snapshot(
        [
            {
                'role': 'assistant',
                'content': None,
                'tool_calls': [
                    {'id': 'c1', 'type': 'function', 'function': {'name': 'lookup', 'arguments': '{"key": "a"}'}},
                    {'id': 'c2', 'type': 'function', 'function': {'name': 'lookup', 'arguments': '{"key": "b"}'}},
                ],
            },
            {'role': 'tool', 'tool_call_id': 'c1', 'content': 'A'},
            {'role': 'tool', 'tool_call_id': 'c2', 'content': 'B'},
        ]
    )


async def test_structured_output_tool(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_json(
        completion(
            None, tool_calls=[tool_call('final_result', '{"name": "Paris"}', 'out_1')], finish_reason='tool_calls'
        )
    )
    agent = Agent(model, output_type=City)

    result = await agent.run('A city?')

    assert result.output == City(name='Paris')
    assert server.bodies() == snapshot(
        [
            {
                'model': 'gpt-4o',
                'stream': False,
                'messages': [{'role': 'user', 'content': 'A city?'}],
                'tool_choice': 'required',
                'tools': [
                    {
                        'type': 'function',
                        'function': {
                            'name': 'final_result',
                            'description': 'A city.',
                            'parameters': {
                                'properties': {
                                    'name': {'type': 'string'},
                                    'population': {'anyOf': [{'type': 'integer'}, {'type': 'null'}], 'default': None},
                                },
                                'required': ['name'],
                                'type': 'object',
                                'additionalProperties': False,
                            },
                        },
                    }
                ],
            }
        ]
    )


async def test_structured_output_strict_tool(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_json(completion('just text'))
    agent = Agent(model, output_type=[ToolOutput(City, strict=True), str])

    result = await agent.run('A city?')

    assert result.output == 'just text'
    assert server.bodies()[0]['tools'] == snapshot(
        [
            {
                'type': 'function',
                'function': {
                    'name': 'final_result',
                    'description': 'A city.',
                    'parameters': {
                        'properties': {
                            'name': {'type': 'string'},
                            'population': {'anyOf': [{'type': 'integer'}, {'type': 'null'}]},
                        },
                        'required': ['name', 'population'],
                        'type': 'object',
                        'additionalProperties': False,
                    },
                    'strict': True,
                },
            }
        ]
    )
    assert server.bodies()[0]['tool_choice'] == 'auto'


async def test_native_output(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_json(completion('{"name": "Paris", "population": 2100000}'))
    agent = Agent(model, output_type=NativeOutput(City))

    result = await agent.run('A city?')

    assert result.output == City(name='Paris', population=2100000)
    assert server.bodies() == snapshot(
        [
            {
                'model': 'gpt-4o',
                'stream': False,
                'messages': [{'role': 'user', 'content': 'A city?'}],
                'response_format': {
                    'type': 'json_schema',
                    'json_schema': {
                        'name': 'City',
                        'schema': {
                            'properties': {
                                'name': {'type': 'string'},
                                'population': {'anyOf': [{'type': 'integer'}, {'type': 'null'}], 'default': None},
                            },
                            'required': ['name'],
                            'type': 'object',
                            'additionalProperties': False,
                        },
                        'description': 'A city.',
                        'strict': False,
                    },
                },
            }
        ]
    )


async def test_native_output_strict_and_named(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_json(completion('{"name": "Paris", "population": null}'))
    agent = Agent(model, output_type=NativeOutput(City, name='city', description='Pick one', strict=True))

    await agent.run('A city?')

    assert server.bodies()[0]['response_format'] == snapshot(
        {
            'type': 'json_schema',
            'json_schema': {
                'name': 'city',
                'schema': {
                    'properties': {
                        'name': {'type': 'string'},
                        'population': {'anyOf': [{'type': 'integer'}, {'type': 'null'}]},
                    },
                    'required': ['name', 'population'],
                    'type': 'object',
                    'additionalProperties': False,
                },
                'description': 'Pick one. A city.',
                'strict': True,
            },
        }
    )


async def test_native_output_union_has_default_name(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_json(completion('{"result": {"kind": "int", "data": {"response": 3}}}'))
    agent = Agent(model, output_type=NativeOutput([City, int]))

    result = await agent.run('A city or a number?')

    assert result.output == 3
    assert server.bodies()[0]['response_format']['json_schema']['name'] == 'final_result'


async def test_prompted_output(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_json(completion('{"name": "Paris"}'))
    agent = Agent(model, output_type=PromptedOutput(City))

    result = await agent.run('A city?')

    assert result.output == City(name='Paris')
    assert server.bodies() == snapshot(
        [
            {
                'model': 'gpt-4o',
                'stream': False,
                'messages': [
                    {
                        'role': 'system',
                        'content': """\

Always respond with a JSON object that's compatible with this schema:

{"properties": {"name": {"type": "string"}, "population": {"default": null, "anyOf": [{"type": "integer"}, {"type": "null"}]}}, "required": ["name"], "type": "object", "additionalProperties": false, "title": "City", "description": "A city."}

Don't include any text or Markdown fencing before or after.
""",
                    },
                    {'role': 'user', 'content': 'A city?'},
                ],
                'response_format': {'type': 'json_object'},
            }
        ]
    )


# Settings.


async def test_model_settings(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_json(completion('ok'))
    settings: OpenAIChatModelSettings = {
        'max_tokens': 100,
        'temperature': 0.5,
        'top_p': 0.9,
        'seed': 7,
        'presence_penalty': 0.1,
        'frequency_penalty': 0.2,
        'logit_bias': {'42': 1},
        'parallel_tool_calls': False,
        'stop_sequences': ['END'],
        'timeout': 5,
        'extra_headers': {'X-Trace': 'abc'},
        'extra_body': {'top_k': 3},
        'openai_user': 'user-1',
        'openai_logprobs': True,
        'openai_top_logprobs': 2,
        'openai_service_tier': 'flex',
        'openai_prediction': {'type': 'content', 'content': 'ok'},
        'openai_prompt_cache_key': 'key',
        'openai_prompt_cache_retention': '24h',
        'openai_reasoning_effort': 'low',
    }

    await _request(model, _user('Hi'), settings)

    assert server.bodies() == snapshot(
        [
            {
                'model': 'gpt-4o',
                'stream': False,
                'service_tier': 'flex',
                'messages': [{'role': 'user', 'content': 'Hi'}],
                'frequency_penalty': 0.2,
                'logit_bias': {'42': 1},
                'logprobs': True,
                'max_completion_tokens': 100,
                'parallel_tool_calls': False,
                'prediction': {'type': 'content', 'content': 'ok'},
                'presence_penalty': 0.1,
                'prompt_cache_key': 'key',
                'prompt_cache_retention': '24h',
                'reasoning_effort': 'low',
                'seed': 7,
                'stop': ['END'],
                'temperature': 0.5,
                'top_logprobs': 2,
                'top_p': 0.9,
                'user': 'user-1',
                'top_k': 3,
            }
        ]
    )
    assert server.requests[0].headers['x-trace'] == 'abc'


async def test_reasoning_model_drops_sampling_settings(server: ChatServer, client: AsyncOpenAI) -> None:
    model = OpenAIChatModel('o3-mini', provider=OpenAIProvider(openai_client=client))
    server.add_json(completion('ok'))

    with pytest.warns(UserWarning, match=r"Sampling parameters \['temperature', 'top_p'\] are not supported"):
        await _request(model, _user('Hi'), {'temperature': 0.1, 'top_p': 0.5, 'openai_reasoning_effort': 'high'})

    assert server.bodies()[0] == snapshot(
        {
            'model': 'o3-mini',
            'stream': False,
            'messages': [{'role': 'user', 'content': 'Hi'}],
            'reasoning_effort': 'high',
        }
    )


async def test_reasoning_model_roles_and_plain_settings(server: ChatServer, client: AsyncOpenAI) -> None:
    model = OpenAIChatModel('o1-mini', provider=OpenAIProvider(openai_client=client))
    server.add_json(completion('ok'))
    messages: list[ModelMessage] = [ModelRequest(parts=[SystemPromptPart('Be brief.'), UserPromptPart('Hi')])]

    await _request(model, messages, {'max_tokens': 10})

    assert server.bodies()[0] == snapshot(
        {
            'model': 'o1-mini',
            'stream': False,
            'messages': [{'role': 'user', 'content': 'Be brief.'}, {'role': 'user', 'content': 'Hi'}],
            'max_completion_tokens': 10,
        }
    )


async def test_reasoning_effort_none_keeps_sampling_settings(server: ChatServer, client: AsyncOpenAI) -> None:
    model = OpenAIChatModel('gpt-5.1', provider=OpenAIProvider(openai_client=client))
    server.add_json(completion('ok'))
    server.add_json(completion('ok'))

    await _request(model, _user('Hi'), {'temperature': 0.1})
    await _request(model, _user('Hi'), {'temperature': 0.1, 'openai_reasoning_effort': 'none'})

    assert [body.get('temperature') for body in server.bodies()] == [0.1, 0.1]


async def test_profile_options(server: ChatServer, client: AsyncOpenAI) -> None:
    profile = OpenAIModelProfile(
        openai_unsupported_model_settings=('temperature',),
        openai_supports_tool_choice_required=False,
        openai_system_prompt_role='developer',
        openai_supports_strict_tool_definition=False,
    )
    model = OpenAIChatModel('my-model', provider=OpenAIProvider(openai_client=client), profile=profile)
    server.add_json(completion('ok'))
    output_tool = {'type': 'object', 'properties': {'a': {'type': 'integer'}}, 'required': ['a']}
    params = ModelRequestParameters(
        output_mode='tool',
        allow_text_output=False,
        output_tools=[ToolDefinition(name='final_result', parameters_json_schema=output_tool, strict=True)],
    )
    messages: list[ModelMessage] = [ModelRequest(parts=[SystemPromptPart('Be brief.'), UserPromptPart('Hi')])]

    await _request(model, messages, {'temperature': 0.3, 'seed': 1}, params)

    assert server.bodies() == snapshot(
        [
            {
                'model': 'my-model',
                'stream': False,
                'messages': [{'role': 'developer', 'content': 'Be brief.'}, {'role': 'user', 'content': 'Hi'}],
                'seed': 1,
                'tool_choice': 'auto',
                'tools': [
                    {
                        'type': 'function',
                        'function': {
                            'name': 'final_result',
                            'description': '',
                            'parameters': {
                                'type': 'object',
                                'properties': {'a': {'type': 'integer'}},
                                'required': ['a'],
                            },
                        },
                    }
                ],
            }
        ]
    )


async def test_deprecated_sampling_profile_flag(server: ChatServer, client: AsyncOpenAI) -> None:
    profile = OpenAIModelProfile(openai_supports_sampling_settings=False)
    model = OpenAIChatModel('my-model', provider=OpenAIProvider(openai_client=client), profile=profile)
    server.add_json(completion('ok'))

    with pytest.warns(DeprecationWarning, match='`openai_supports_sampling_settings` has no effect'):
        await _request(model, _user('Hi'), {'temperature': 0.3})

    assert server.bodies()[0]['temperature'] == 0.3


# Mapping messages to the wire format.


async def test_history_mapping(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_json(completion('ok'))
    messages: list[ModelMessage] = [
        ModelRequest(parts=[SystemPromptPart('System one.'), UserPromptPart('First')]),
        ModelResponse(
            parts=[
                ThinkingPart('Let me think.'),
                TextPart('Calling tools.'),
                TextPart('Twice.'),
                ToolCallPart('lookup', {'key': 'a'}, 'c1'),
                ToolCallPart('ping', None, 'c2'),
            ]
        ),
        ModelRequest(
            parts=[
                ToolReturnPart('lookup', {'value': [1, 2]}, 'c1'),
                RetryPromptPart('Wrong tool arguments.', tool_name='ping', tool_call_id='c2'),
                RetryPromptPart('The output was not valid.'),
            ]
        ),
        ModelResponse(parts=[]),
        ModelRequest(parts=[SystemPromptPart('System two.'), UserPromptPart('Second')], instructions='Be kind.'),
    ]

    await _request(model, messages)

    assert server.bodies()[0]['messages'] == snapshot(
        [
            {'role': 'system', 'content': 'System one.'},
            {'role': 'user', 'content': 'First'},
            {'role': 'system', 'content': 'Be kind.'},
            {
                'role': 'assistant',
                'content': """\
<think>
Let me think.
</think>

Calling tools.

Twice.\
""",
                'tool_calls': [
                    {'id': 'c1', 'type': 'function', 'function': {'name': 'lookup', 'arguments': '{"key":"a"}'}},
                    {'id': 'c2', 'type': 'function', 'function': {'name': 'ping', 'arguments': '{}'}},
                ],
            },
            {'role': 'tool', 'tool_call_id': 'c1', 'content': '{"value":[1,2]}'},
            {
                'role': 'tool',
                'tool_call_id': 'c2',
                'content': """\
Wrong tool arguments.

Fix the errors and try again.\
""",
            },
            {
                'role': 'user',
                'content': """\
Validation feedback:
The output was not valid.

Fix the errors and try again.\
""",
            },
            {'role': 'assistant', 'content': None},
            {'role': 'system', 'content': 'System two.'},
            {'role': 'user', 'content': 'Second'},
        ]
    )


async def test_thinking_sent_back_in_a_field(server: ChatServer, client: AsyncOpenAI) -> None:
    profile = OpenAIModelProfile(
        openai_chat_send_back_thinking_parts='field', openai_chat_thinking_field='reasoning_content'
    )
    model = OpenAIChatModel('my-model', provider=OpenAIProvider(openai_client=client), profile=profile)
    server.add_json(completion('ok'))
    server.add_json(completion('ok'))
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('Hi')]),
        ModelResponse(parts=[ThinkingPart('One.'), ThinkingPart('Two.'), TextPart('Hello')]),
        ModelRequest(parts=[UserPromptPart('Again')]),
    ]

    await _request(model, history)
    no_thinking = OpenAIModelProfile(openai_chat_send_back_thinking_parts=False)
    await _request(OpenAIChatModel('m', provider=OpenAIProvider(openai_client=client), profile=no_thinking), history)

    assert [body['messages'][1] for body in server.bodies()] == snapshot(
        [
            {
                'role': 'assistant',
                'content': 'Hello',
                'reasoning_content': """\
One.

Two.\
""",
            },
            {'role': 'assistant', 'content': 'Hello'},
        ]
    )


async def test_user_content(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_json(completion('ok'))
    content: list[UserContent] = [
        'Look at these.',
        ImageUrl('https://example.com/cat.png'),
        ImageUrl('https://example.com/dog.jpg', vendor_metadata={'detail': 'high'}),
        BinaryContent(b'\x89PNG', media_type='image/png'),
        CachePoint(),
        BinaryContent(b'RIFF', media_type='audio/wav'),
        BinaryContent(b'%PDF', media_type='application/pdf'),
        BinaryContent(b'a,b\n1,2', media_type='text/csv', identifier='table'),
    ]

    await _request(model, _user(*content))

    assert server.bodies()[0]['messages'] == snapshot(
        [
            {
                'role': 'user',
                'content': [
                    {'type': 'text', 'text': 'Look at these.'},
                    {'type': 'image_url', 'image_url': {'url': 'https://example.com/cat.png'}},
                    {'type': 'image_url', 'image_url': {'url': 'https://example.com/dog.jpg', 'detail': 'high'}},
                    {'type': 'image_url', 'image_url': {'url': 'data:image/png;base64,iVBORw=='}},
                    {'type': 'input_audio', 'input_audio': {'data': 'UklGRg==', 'format': 'wav'}},
                    {
                        'type': 'file',
                        'file': {'file_data': 'data:application/pdf;base64,JVBERg==', 'filename': 'filename.pdf'},
                    },
                    {
                        'type': 'text',
                        'text': """\
-----BEGIN FILE id="table" type="text/csv"-----
a,b
1,2
-----END FILE id="table"-----\
""",
                    },
                ],
            }
        ]
    )


async def test_user_content_downloads(server: ChatServer, model: OpenAIChatModel) -> None:
    image = server.add_file('/cat.png', b'\x89PNG', 'image/png')
    audio = server.add_file('/song.mp3', b'ID3', 'audio/mpeg')
    pdf = server.add_file('/paper.pdf', b'%PDF', 'application/pdf')
    text = server.add_file('/notes.txt', b'Some notes.', 'text/plain; charset=utf-8')
    server.add_json(completion('ok'))
    content: list[UserContent] = [
        ImageUrl(image, force_download=True),
        AudioUrl(audio),
        DocumentUrl(pdf),
        DocumentUrl(text, identifier='notes'),
    ]

    await _request(model, _user(*content))

    assert [r.path for r in server.requests] == [
        '/cat.png',
        '/song.mp3',
        '/paper.pdf',
        '/notes.txt',
        '/v1/chat/completions',
    ]
    assert server.bodies()[-1]['messages'] == snapshot(
        [
            {
                'role': 'user',
                'content': [
                    {'type': 'image_url', 'image_url': {'url': 'data:image/png;base64,iVBORw=='}},
                    {'type': 'input_audio', 'input_audio': {'data': 'SUQz', 'format': 'mp3'}},
                    {
                        'type': 'file',
                        'file': {'file_data': 'data:application/pdf;base64,JVBERg==', 'filename': 'filename.pdf'},
                    },
                    {
                        'type': 'text',
                        'text': """\
-----BEGIN FILE id="notes" type="text/plain"-----
Some notes.
-----END FILE id="notes"-----\
""",
                    },
                ],
            }
        ]
    )


async def test_user_content_uri_options(server: ChatServer, client: AsyncOpenAI) -> None:
    profile = OpenAIModelProfile(openai_chat_audio_input_encoding='uri', openai_chat_supports_file_urls=True)
    model = OpenAIChatModel('my-model', provider=OpenAIProvider(openai_client=client), profile=profile)
    server.add_json(completion('ok'))

    await _request(
        model, _user(BinaryContent(b'ID3', media_type='audio/mpeg'), DocumentUrl('https://example.com/paper.pdf'))
    )

    assert server.bodies()[0]['messages'] == snapshot(
        [
            {
                'role': 'user',
                'content': [
                    {'type': 'input_audio', 'input_audio': {'data': 'data:audio/mpeg;base64,SUQz', 'format': 'mp3'}},
                    {
                        'type': 'file',
                        'file': {'file_data': 'https://example.com/paper.pdf', 'filename': 'filename.pdf'},
                    },
                ],
            }
        ]
    )


async def test_unsupported_user_content(server: ChatServer, model: OpenAIChatModel) -> None:
    with pytest.raises(NotImplementedError, match='VideoUrl is not supported for OpenAI'):
        await _request(model, _user(VideoUrl('https://example.com/clip.mp4')))
    with pytest.raises(UserError, match='Unsupported binary content type: video/mp4'):
        await _request(model, _user(BinaryContent(b'...', media_type='video/mp4')))
    assert server.requests == []


async def test_failed_download(server: ChatServer, model: OpenAIChatModel) -> None:
    missing = server.base_url.removesuffix('/v1') + '/missing.pdf'

    with pytest.raises(httpx.HTTPStatusError, match='404 Not Found'):
        await _request(model, _user(DocumentUrl(missing)))


# Reading responses.


async def test_thinking_in_responses(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_json(completion('<think>Hmm.</think>The answer <think>Sure?</think>is 4.'))
    server.add_json(completion('Four.', reasoning_content='Two plus two.'))
    server.add_json(completion('<think>never closed'))
    server.add_json(completion('Just thought.<think>Done.</think>'))

    responses = [await _request(model, _user('2+2?')) for _ in range(4)]

    assert [r.parts for r in responses] == snapshot(
        [
            [
                ThinkingPart(content='Hmm.', id='content', provider_name='openai'),
                TextPart(content='The answer '),
                ThinkingPart(content='Sure?', id='content', provider_name='openai'),
                TextPart(content='is 4.'),
            ],
            [
                ThinkingPart(content='Two plus two.', id='reasoning_content', provider_name='openai'),
                TextPart(content='Four.'),
            ],
            [TextPart(content='never closed')],
            [TextPart(content='Just thought.'), ThinkingPart(content='Done.', id='content', provider_name='openai')],
        ]
    )


async def test_response_details(server: ChatServer, model: OpenAIChatModel) -> None:
    body = completion(
        'ok',
        finish_reason='length',
        usage=usage(
            100,
            50,
            cached_tokens=30,
            audio_tokens=7,
            reasoning_tokens=20,
            accepted_prediction_tokens=3,
            output_audio_tokens=9,
        ),
    )
    body['choices'][0]['logprobs'] = {
        'content': [{'token': 'ok', 'logprob': -0.1, 'bytes': [111, 107], 'top_logprobs': []}],
        'refusal': None,
    }
    body['usage']['server_extra'] = 5
    server.add_json(body)

    response = await _request(model, _user('Hi'))

    assert response == snapshot(
        ModelResponse(
            parts=[TextPart(content='ok')],
            usage=RequestUsage(
                input_tokens=100,
                cache_read_tokens=30,
                output_tokens=50,
                input_audio_tokens=7,
                output_audio_tokens=9,
                details={'server_extra': 5, 'accepted_prediction_tokens': 3, 'audio_tokens': 9, 'reasoning_tokens': 20},
            ),
            model_name='gpt-4o-2024-08-06',
            timestamp=IS_NOW,
            provider_name='openai',
            provider_url=SERVER_URL,
            provider_details={
                'logprobs': [{'token': 'ok', 'bytes': [111, 107], 'logprob': -0.1, 'top_logprobs': []}],
                'finish_reason': 'length',
                'timestamp': CREATED,
            },
            provider_response_id='chatcmpl-1',
            finish_reason='length',
        )
    )


@pytest.mark.parametrize(
    ('raw', 'expected'),
    [
        ('stop', 'stop'),
        ('length', 'length'),
        ('tool_calls', 'tool_call'),
        ('content_filter', 'content_filter'),
        ('function_call', 'tool_call'),
    ],
)
async def test_finish_reasons(server: ChatServer, model: OpenAIChatModel, raw: str, expected: str) -> None:
    server.add_json(completion('x', finish_reason=raw))

    response = await _request(model, _user('Hi'))

    assert response.finish_reason == expected
    assert response.provider_details == {'finish_reason': raw, 'timestamp': CREATED}


# Errors.


async def test_http_errors(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_json({'error': {'message': 'Invalid key', 'code': 'invalid_api_key'}}, status=401)
    server.add_json({'error': {'message': 'Overloaded'}}, status=503)
    server.add_raw(b'<html>Bad gateway</html>', status=502, content_type='text/html')

    errors: list[ModelHTTPError] = []
    for _ in range(3):
        with pytest.raises(ModelHTTPError) as exc_info:
            await _request(model, _user('Hi'))
        errors.append(exc_info.value)

    assert [(e.status_code, e.model_name, e.body) for e in errors] == snapshot(
        [
            (401, 'gpt-4o', {'message': 'Invalid key', 'code': 'invalid_api_key'}),
            (503, 'gpt-4o', {'message': 'Overloaded'}),
            (502, 'gpt-4o', '<html>Bad gateway</html>'),
        ]
    )
    assert str(errors[0]) == snapshot(
        "status_code: 401, model_name: gpt-4o, body: {'message': 'Invalid key', 'code': 'invalid_api_key'}"
    )


async def test_http_error_in_agent_run(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_json({'error': {'message': 'Rate limited'}}, status=429)

    with pytest.raises(ModelHTTPError, match='status_code: 429, model_name: gpt-4o'):
        await Agent(model).run('Hi')


async def test_timeout(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add(ScriptedResponse(body=b'{}', delay=5))

    with pytest.raises(ModelAPIError, match=r'^Request timed out\.$') as exc_info:
        await _request(model, _user('Hi'), {'timeout': 0.2})

    assert exc_info.value.model_name == 'gpt-4o'
    assert not isinstance(exc_info.value, ModelHTTPError)


async def test_connection_error() -> None:
    with chat_server() as stopped:
        base_url = stopped.base_url
    async with AsyncOpenAI(base_url=base_url, api_key='k', max_retries=0) as client:
        model = OpenAIChatModel('gpt-4o', provider=OpenAIProvider(openai_client=client))

        with pytest.raises(ModelAPIError, match=r'^Connection error\.$'):
            await _request(model, _user('Hi'))


@pytest.mark.parametrize(
    ('raw', 'message'),
    [
        (b'this is not json', 'Invalid response from openai chat completions endpoint, expected JSON data, body:\n'),
        (b'', 'Invalid response from openai chat completions endpoint, expected JSON data$'),
        (b'[1, 2]', 'Invalid response from openai chat completions endpoint, expected JSON data, body:\n'),
        (b'{"id": "x"}', 'Invalid response from openai chat completions endpoint: 4 validation errors for'),
        (
            b'{"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": []}',
            'Invalid response from openai chat completions endpoint: no choices',
        ),
    ],
)
async def test_malformed_responses(server: ChatServer, model: OpenAIChatModel, raw: bytes, message: str) -> None:
    server.add_raw(raw)

    with pytest.raises(UnexpectedModelBehavior, match=message):
        await _request(model, _user('Hi'))


async def test_custom_tool_call(server: ChatServer, model: OpenAIChatModel) -> None:
    custom_call = {'id': 'x1', 'type': 'custom', 'custom': {'name': 'grammar', 'input': 'text'}}
    server.add_json(completion(None, tool_calls=[custom_call]))

    with pytest.raises(UnexpectedModelBehavior, match=r'^Custom tool calls are not supported$'):
        await _request(model, _user('Hi'))


async def test_invalid_finish_reason(server: ChatServer, model: OpenAIChatModel) -> None:
    server.add_json(completion('x', finish_reason='weird'))

    with pytest.raises(UnexpectedModelBehavior, match=r"choices\.0\.finish_reason\n  Input should be 'stop'"):
        await _request(model, _user('Hi'))


async def test_default_client_retries_server_errors(server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv('OPENAI_API_KEY', raising=False)
    provider = OpenAIProvider(base_url=server.base_url)
    # `retry-after-ms` keeps the SDK's backoff short.
    server.add_json({'error': {'message': 'busy'}}, status=503, headers={'retry-after-ms': '10'})
    server.add_json(completion('ok'))

    response = await _request(OpenAIChatModel('gpt-4o', provider=provider), _user('Hi'))
    await provider.client.close()

    assert response.parts == [TextPart('ok')]
    assert len(server.requests) == 2
    assert server.requests[0].headers['authorization'] == 'Bearer api-key-not-set'


# Providers and model resolution.


async def test_provider_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('OPENAI_API_KEY', 'env-key')
    monkeypatch.setenv('OPENAI_BASE_URL', 'http://127.0.0.1:9/v1')

    provider = OpenAIProvider()

    assert provider.client.api_key == 'env-key'
    assert provider.base_url == 'http://127.0.0.1:9/v1/'
    assert repr(provider) == 'OpenAIProvider(name=openai, base_url=http://127.0.0.1:9/v1/)'
    await provider.client.close()


async def test_missing_api_key_is_reported_at_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv('OPENAI_API_KEY', raising=False)
    monkeypatch.delenv('OPENAI_BASE_URL', raising=False)
    agent = Agent('openai:gpt-4o')
    assert isinstance(agent.model, OpenAIChatModel)
    assert agent.model.base_url == 'https://api.openai.com/v1/'

    with pytest.raises(UserError, match=r'^Set the `OPENAI_API_KEY` environment variable or pass it via'):
        await agent.run('Hi')


async def test_agent_model_string_uses_environment(server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('OPENAI_API_KEY', 'env-key')
    monkeypatch.setenv('OPENAI_BASE_URL', server.base_url)
    server.add_json(completion('From the environment.'))
    model = infer_model('openai-chat:my-local-model')
    assert isinstance(model, OpenAIChatModel)

    result = await Agent(model).run('Hi')

    assert result.output == 'From the environment.'
    assert server.bodies()[0]['model'] == 'my-local-model'
    assert server.requests[0].headers['authorization'] == 'Bearer env-key'
    await model.client.close()


async def test_provider_arguments(server: ChatServer, client: AsyncOpenAI) -> None:
    with pytest.raises(UserError, match='Cannot provide both `openai_client` and `base_url`'):
        OpenAIProvider(openai_client=client, base_url='http://x')
    with pytest.raises(UserError, match='Cannot provide both `openai_client` and `api_key`'):
        OpenAIProvider(openai_client=client, api_key='k')
    async with httpx.AsyncClient() as unused:
        with pytest.raises(UserError, match='Cannot provide both `openai_client` and `http_client`'):
            OpenAIProvider(openai_client=client, http_client=unused)

    async with httpx.AsyncClient(headers={'X-From-Http-Client': 'yes'}) as http_client:
        provider = OpenAIProvider(base_url=server.base_url, api_key='k', http_client=http_client)
        server.add_json(completion('ok'))
        await _request(OpenAIChatModel('m', provider=provider), _user('Hi'))

    assert server.requests[0].headers['x-from-http-client'] == 'yes'
    assert OpenAIProvider(openai_client=client).client is client


async def test_model_properties(client: AsyncOpenAI) -> None:
    model = OpenAIChatModel('gpt-4o-mini', provider=OpenAIProvider(openai_client=client), settings={'seed': 1})

    assert repr(model) == 'OpenAIChatModel()'
    assert (model.model_name, model.system, model.label, model.settings) == snapshot(
        ('gpt-4o-mini', 'openai', 'GPT 4o Mini', {'seed': 1})
    )
    assert model.base_url == str(client.base_url)
    assert model.client is client
    with pytest.warns(DeprecationWarning, match='Set the `system_prompt_role` in the `OpenAIModelProfile` instead.'):
        assert model.system_prompt_role is None
    assert isinstance(model.profile, OpenAIModelProfile)
    assert model.profile.supports_json_schema_output


async def test_custom_provider(client: AsyncOpenAI) -> None:
    class MyProvider(Provider[AsyncOpenAI]):
        @property
        def name(self) -> str:
            return 'mine'

        @property
        def base_url(self) -> str:
            return 'http://mine/'

        @property
        def client(self) -> AsyncOpenAI:
            return client

    model = OpenAIChatModel('m', provider=MyProvider())

    assert (model.system, model.base_url, repr(MyProvider())) == snapshot(
        ('mine', 'http://mine/', 'MyProvider(name=mine, base_url=http://mine/)')
    )
    # The default profile, narrowed to the builtin tools the chat model can send (none).
    assert model.profile == replace(ModelProfile(), supported_builtin_tools=frozenset())
    assert MyProvider().model_profile('m') is None


async def test_profile_function_and_deprecations(client: AsyncOpenAI) -> None:
    model = OpenAIChatModel('m', provider=OpenAIProvider(openai_client=client), profile=lambda name: None)
    assert model.profile == replace(ModelProfile(), supported_builtin_tools=frozenset())

    model = OpenAIChatModel('m', provider=OpenAIProvider(openai_client=client), system_prompt_role='developer')
    # The role is written into the profile; reading it from the model is what is deprecated.
    assert isinstance(model.profile, OpenAIModelProfile)
    assert model.profile.openai_system_prompt_role == 'developer'
    with pytest.warns(DeprecationWarning, match='Set the `system_prompt_role` in the `OpenAIModelProfile` instead.'):
        assert model.system_prompt_role == 'developer'
    tagged = OpenAIChatModel(
        'm',
        provider=OpenAIProvider(openai_client=client),
        profile=ModelProfile(thinking_tags=('<a>', '</a>')),
        system_prompt_role='user',
    )
    assert tagged.profile.thinking_tags == ('<a>', '</a>')

    with pytest.warns(DeprecationWarning, match='`OpenAIModel` was renamed to `OpenAIChatModel`'):
        old = OpenAIModel('m', provider=OpenAIProvider(openai_client=client))
    assert isinstance(old, OpenAIChatModel)


def test_infer_provider() -> None:
    assert infer_provider_class('openai') is OpenAIProvider
    assert infer_provider_class('openai-chat') is OpenAIProvider
    with pytest.raises(ValueError, match=r'^Unknown provider: nope$'):
        infer_provider('nope')
    with pytest.raises(ValueError, match=r'^Unknown provider: nope$'):
        OpenAIChatModel('m', provider='nope')  # pyright: ignore[reportArgumentType] -- an invalid name on purpose


def test_missing_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, 'openai', None)
    for name in ('pydantic_ai.models.openai', 'pydantic_ai.providers.openai'):
        monkeypatch.delitem(sys.modules, name)

    with pytest.raises(ImportError, match=r'^Please install `openai` to use the OpenAI model, you can use the'):
        importlib.import_module('pydantic_ai.models.openai')
    with pytest.raises(ImportError, match=r'^Please install the `openai` package to use the OpenAI provider'):
        importlib.import_module('pydantic_ai.providers.openai')
    with pytest.raises(ImportError, match=r'^Please install the `openai` package to use the OpenAI provider'):
        Agent('openai:gpt-4o')


def test_import_pydantic_ai_does_not_import_the_sdk() -> None:
    code = 'import sys, pydantic_ai, pydantic_ai.models; assert "openai" not in sys.modules'

    subprocess.run([sys.executable, '-c', code], check=True)


async def test_count_tokens_and_builtin_tools(model: OpenAIChatModel) -> None:
    assert OpenAIChatModel.supported_builtin_tools() == frozenset()
    with pytest.raises(
        NotImplementedError, match=r'^Token counting ahead of the request is not supported by OpenAIChatModel$'
    ):
        await model.count_tokens([], None, ModelRequestParameters())


async def test_user_agent_and_wrapped_client(server: ChatServer, client: AsyncOpenAI) -> None:
    calls: list[bool] = []
    completions = client.chat.completions

    class Wrapped:
        async def create(self, **kwargs: Any) -> Any:
            calls.append(kwargs['stream'])
            return await cast(Any, completions).create(**kwargs)

    # A stand-in for the SDK's resource, as instrumentation libraries put in place.
    client.chat.completions = Wrapped()  # type: ignore[assignment]
    model = OpenAIChatModel('gpt-4o', provider=OpenAIProvider(openai_client=client))
    server.add_json(completion('Hi!'))

    assert (await Agent(model).run('Hi')).output == 'Hi!'
    assert calls == [False]
    assert server.requests[0].headers['user-agent'] == 'pydantic-ai/1.51.0'
