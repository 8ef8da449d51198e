# pyright: reportUnusedFunction=false
"""OpenAIResponsesModel streaming over HTTP: part events with reasoning, text and function calls, and errors."""

import asyncio
import gc
import json
import os
import re
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))

from _openai_server import ChatServer, chat_server
from _responses_server import function_call, message, reasoning, response_stream, usage
from openai import AsyncOpenAI
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.models import infer_model
from pydantic_ai.models.openai import OpenAIResponsesModel, OpenAIResponsesModelSettings
from pydantic_ai.providers.openai import OpenAIProvider

# SDK clients left to the garbage collector warn about their sockets at random points; that is noise here.
warnings.filterwarnings('ignore', category=ResourceWarning)


def out(value: object) -> None:
    print(re.sub(r'127\.0\.0\.1:\d+', '127.0.0.1:PORT', str(value)))


async def main(server: ChatServer) -> None:
    async with AsyncOpenAI(base_url=server.base_url, api_key='k', max_retries=0) as client:
        model = OpenAIResponsesModel('gpt-5', provider=OpenAIProvider(openai_client=client))
        agent = Agent(model)

        @agent.tool_plain
        def weather(city: str) -> str:
            return f'Sunny in {city}'

        server.add_sse(
            response_stream(
                reasoning('Thinking.', 'Still thinking.', encrypted_content='enc-1'),
                message('Let me check.'),
                function_call('weather', '{"city": "Oslo"}', 'call_1'),
                function_call('weather', '{"city": "Rome"}', 'call_2'),
                usage=usage(20, 8, cached=4, reasoning=3),
            )
        )
        server.add_sse(response_stream(message('Sunny in both.', id='msg_2'), id='resp_s2'))
        settings: OpenAIResponsesModelSettings = {'openai_reasoning_summary': 'auto'}
        async with agent.iter('Weather?', model_settings=settings) as run:
            async for node in run:
                if type(node).__name__ == 'ModelRequestNode':
                    async with node.stream(run.ctx) as stream:  # pyright: ignore
                        async for event in stream:  # pyright: ignore
                            out(repr(event))  # pyright: ignore
        assert run.result is not None
        for m in run.result.all_messages():
            out(repr(m))
        out(run.result.usage())
        for r in server.requests:
            out(r.path)
            out(json.dumps(r.body, sort_keys=True))
        server.requests.clear()

        server.add_sse(response_stream(message('Hello there.'), id='resp_s3'))
        async with agent.run_stream('Hi') as result:
            server.requests.clear()
            out(await result.get_output())
        server.add_json({'error': {'message': 'bad', 'type': 'invalid_request_error'}}, status=400)
        try:
            await agent.run('x')
        except ModelHTTPError as e:
            out(f'{e!r} {e.status_code} {e.model_name} {e.body}')


with chat_server() as server:
    asyncio.run(main(server))

os.environ['OPENAI_API_KEY'] = 'x'
for name in ['openai-responses:gpt-5', 'openai-chat:gpt-4o', 'openai:o3']:
    m = infer_model(name)
    out(f'{name} {type(m).__name__} {m.model_name} {m.system}')
gc.collect()
