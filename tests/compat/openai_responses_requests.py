# pyright: reportUnusedFunction=false
"""OpenAIResponsesModel over HTTP: the request bodies sent and the histories read, for text, tools and outputs."""

import asyncio
import gc
import json
import re
import sys
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent.parent))

from _openai_server import ChatServer, chat_server
from _responses_server import function_call, message, reasoning, response, usage
from openai import AsyncOpenAI
from pydantic import BaseModel
from pydantic_ai import Agent, AgentRunResult, ModelRetry, NativeOutput, PromptedOutput
from pydantic_ai.models.openai import OpenAIResponsesModel, OpenAIResponsesModelSettings
from pydantic_ai.providers.openai import OpenAIProvider

# SDK clients left to the garbage collector warn about their sockets at random points; that is noise here, and
# collecting them before exit keeps the warning under this filter.
warnings.filterwarnings('ignore', category=ResourceWarning)


class City(BaseModel):
    name: str
    population: int


def out(value: object) -> None:
    print(re.sub(r'127\.0\.0\.1:\d+', '127.0.0.1:PORT', str(value)))


def show(server: ChatServer, result: AgentRunResult[Any]) -> None:
    for r in server.requests:
        out(r.path)
        out(json.dumps(r.body, sort_keys=True))
    server.requests.clear()
    out(repr(result.output))
    for m in result.all_messages():
        out(repr(m))
    out(result.usage())


async def main(server: ChatServer) -> None:
    async with AsyncOpenAI(base_url=server.base_url, api_key='k', max_retries=0) as client:
        model = OpenAIResponsesModel('gpt-5', provider=OpenAIProvider(openai_client=client))
        out(f'{model!r} {model.system} {model.base_url} {model.model_name} {model.label}')

        # Plain text with system prompt, instructions and settings.
        server.add_json(response(message('Hello!'), usage=usage(12, 4, cached=3, reasoning=2)))
        agent = Agent(model, system_prompt='Be brief.', instructions='Answer in English.')
        settings: OpenAIResponsesModelSettings = {'max_tokens': 100, 'temperature': 0.5, 'top_p': 0.9}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            show(server, await agent.run('Hi', model_settings=settings))
        out([str(w.message) for w in caught])

        # A tool loop with parallel calls and a retry, with reasoning.
        agent = Agent(model)

        @agent.tool_plain
        def weather(city: str) -> str:
            """The weather in a city."""
            if city == 'Nowhere':
                raise ModelRetry('No such city.')
            return f'Sunny in {city}'

        server.add_json(
            response(
                reasoning('Thinking about it.', 'More.', encrypted_content='enc-1'),
                message('Checking.'),
                function_call('weather', '{"city": "Paris"}', 'call_1'),
                function_call('weather', '{"city": "Nowhere"}', 'call_2'),
            )
        )
        server.add_json(response(message('Paris is sunny.', id='msg_2'), id='resp_2'))
        reasoning_settings: OpenAIResponsesModelSettings = {
            'openai_reasoning_effort': 'low',
            'openai_reasoning_summary': 'detailed',
            'parallel_tool_calls': True,
        }
        show(server, await agent.run('Weather?', model_settings=reasoning_settings))

        # Tool output, native output, prompted output.
        server.add_json(response(function_call('final_result', '{"name": "Paris", "population": 2}', 'call_3')))
        show(server, await Agent(model, output_type=City).run('A city'))
        server.add_json(response(message('{"name": "Rome", "population": 3}')))
        show(server, await Agent(model, output_type=PromptedOutput(City)).run('A city'))
        server.add_json(response(message('{"name": "Rome", "population": 3}')))
        show(server, await Agent(model, output_type=NativeOutput(City)).run('A city'))

        # previous_response_id: the history before the last response is left to the server.
        server.add_json(response(function_call('weather', '{"city": "Oslo"}', 'call_4'), id='resp_a'))
        server.add_json(response(message('Cold.'), id='resp_b'))
        auto: OpenAIResponsesModelSettings = {'openai_previous_response_id': 'auto'}
        first = await agent.run('Oslo?', model_settings=auto)
        show(server, first)
        server.add_json(response(message('Still cold.'), id='resp_c'))
        show(server, await agent.run('And now?', message_history=first.all_messages(), model_settings=auto))
        explicit: OpenAIResponsesModelSettings = {'openai_previous_response_id': 'resp_x'}
        server.add_json(response(message('Ok.'), id='resp_d'))
        show(server, await agent.run('Again?', model_settings=explicit))


with chat_server() as server:
    asyncio.run(main(server))

gc.collect()
