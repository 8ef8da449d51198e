"""AnthropicModel over HTTP: the request bodies sent and the histories read, for text, tools and output modes."""

import gc
import json
import re
import sys
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent.parent))

from _anthropic_server import message, text, thinking, tool_use, usage
from _openai_server import ChatServer, chat_server
from anthropic import AsyncAnthropic
from pydantic import BaseModel
from pydantic_ai import Agent, AgentRunResult, NativeOutput, PromptedOutput
from pydantic_ai.models.anthropic import AnthropicModel, AnthropicModelSettings
from pydantic_ai.providers.anthropic import AnthropicProvider

# SDK clients left to the garbage collector warn about their sockets at random points; that is noise here, and
# collecting them before exit keeps the warning under this filter.
warnings.filterwarnings('ignore', category=ResourceWarning)


class City(BaseModel):
    name: str
    population: int


def out(text: object) -> None:
    print(re.sub(r'127\.0\.0\.1:\d+', '127.0.0.1:PORT', str(text)))


def show(server: ChatServer, result: AgentRunResult[Any]) -> None:
    for body in server.bodies():
        out(json.dumps(body, sort_keys=True))
    server.requests.clear()
    out(repr(result.output))
    for m in result.all_messages():
        out(repr(m))
    out(result.usage())


with chat_server() as server:
    client = AsyncAnthropic(base_url=server.base_url.removesuffix('/v1'), api_key='k', max_retries=0)
    model = AnthropicModel('claude-sonnet-4-5', provider=AnthropicProvider(anthropic_client=client))
    out(f'{model!r} {model.system} {model.base_url} {model.model_name} {model.label}')
    out(model.profile.thinking_tags)
    out(model.profile.supports_json_schema_output)
    out(model.profile.json_schema_transformer)

    # Plain text with system prompt, instructions and settings.
    server.add_json(
        message(text('Hello!'), usage=usage(12, 4, cache_read_input_tokens=3, cache_creation_input_tokens=2))
    )
    agent = Agent(model, system_prompt='Be brief.', instructions='Answer in English.')
    settings: AnthropicModelSettings = {'max_tokens': 100, 'temperature': 0.5, 'top_p': 0.9, 'stop_sequences': ['x']}
    show(server, agent.run_sync('Hi', model_settings=settings))

    # A tool loop with parallel calls and a retry.
    agent = Agent(model)
    calls: list[str] = []

    @agent.tool_plain
    def weather(city: str) -> str:
        """The weather in a city."""
        calls.append(city)
        if city == 'Nowhere':
            from pydantic_ai import ModelRetry

            raise ModelRetry('No such city.')
        return f'Sunny in {city}'

    server.add_json(
        message(
            text('Checking.'),
            tool_use('weather', {'city': 'Paris'}, 'toolu_1'),
            tool_use('weather', {'city': 'Nowhere'}, 'toolu_2'),
            stop_reason='tool_use',
        )
    )
    server.add_json(message(text('Paris is sunny.')))
    show(server, agent.run_sync('Weather?'))

    # Tool output, native output, prompted output.
    server.add_json(
        message(tool_use('final_result', {'name': 'Paris', 'population': 2}, 'toolu_3'), stop_reason='tool_use')
    )
    show(server, Agent(model, output_type=City).run_sync('A city'))
    server.add_json(message(text('{"name": "Rome", "population": 3}')))
    show(server, Agent(model, output_type=PromptedOutput(City)).run_sync('A city'))
    try:
        server.add_json(message(text('{"name": "Rome", "population": 3}')))
        show(server, Agent(model, output_type=NativeOutput(City)).run_sync('A city'))
    except Exception as e:
        print(type(e).__name__, e)
        server.requests.clear()

    # Thinking with a signature round-trips into the next request.
    server.add_json(
        message(
            thinking('Let me think.', 'sig-abc'),
            tool_use('weather', {'city': 'Oslo'}, 'toolu_4'),
            stop_reason='tool_use',
        )
    )
    server.add_json(message(thinking('Done.', 'sig-def'), text('Cold.')))
    thinking_settings: AnthropicModelSettings = {'anthropic_thinking': {'type': 'enabled', 'budget_tokens': 1024}}
    show(server, agent.run_sync('Oslo?', model_settings=thinking_settings))

gc.collect()
