"""AnthropicModel streaming over HTTP: part events with thinking, text and tool input, the requests, and errors."""

import asyncio
import gc
import json
import os
import re
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))

from _anthropic_server import message_stream, text, thinking, tool_use, usage
from _openai_server import chat_server
from anthropic import AsyncAnthropic
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.models import infer_model
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.providers.anthropic import AnthropicProvider

# SDK clients left to the garbage collector warn about their sockets at random points; that is noise here, and
# collecting them before exit keeps the warning under this filter.
warnings.filterwarnings('ignore', category=ResourceWarning)


def out(value: object) -> None:
    print(re.sub(r'127\.0\.0\.1:\d+', '127.0.0.1:PORT', str(value)))


with chat_server() as server:
    client = AsyncAnthropic(base_url=server.base_url.removesuffix('/v1'), api_key='k', max_retries=0)
    model = AnthropicModel('claude-sonnet-4-5', provider=AnthropicProvider(anthropic_client=client))
    agent = Agent(model)

    @agent.tool_plain
    def weather(city: str) -> dict[str, str]:
        return {'city': city, 'sky': 'sunny'}

    server.add_sse(
        message_stream(
            thinking('Hmm.', 'sig-z'),
            text('Let me check.'),
            tool_use('weather', {'city': 'Oslo'}, 'toolu_9'),
            stop_reason='tool_use',
            input_usage=usage(10, 1, cache_read_input_tokens=4),
        )
    )
    server.add_sse(message_stream(text('It is sunny.'), output_tokens=7))

    async def main() -> None:
        settings = {
            'anthropic_cache_instructions': True,
            'anthropic_cache_tool_definitions': True,
            'anthropic_metadata': {'user_id': 'u1'},
        }
        async with agent.iter('Oslo?', model_settings=settings) as run:  # type: ignore[arg-type]
            async for node in run:
                if type(node).__name__ == 'ModelRequestNode':
                    async with node.stream(run.ctx) as stream:  # pyright: ignore
                        async for event in stream:  # pyright: ignore
                            out(repr(event))  # pyright: ignore
        assert run.result is not None
        for m in run.result.all_messages():
            out(repr(m))
        out(run.result.usage())

    asyncio.run(main())
    for r in server.requests:
        out(r.path)
        out({k: v for k, v in r.headers.items() if k in ('user-agent', 'anthropic-beta', 'anthropic-version')})
        out(json.dumps(r.body, sort_keys=True))
    server.requests.clear()

    server.add_json({'type': 'error', 'error': {'type': 'invalid_request_error', 'message': 'bad'}}, status=400)
    try:
        agent.run_sync('x')
    except ModelHTTPError as e:
        out(f'{e!r} {e.status_code} {e.model_name} {e.body}')

os.environ['ANTHROPIC_API_KEY'] = 'x'
os.environ['OPENAI_API_KEY'] = 'x'
for name in ['anthropic:claude-sonnet-4-5', 'claude-3-5-haiku-latest', 'gpt-4o', 'o3-mini', 'o1', 'claude']:
    m = infer_model(name)
    out(f'{name} {type(m).__name__} {m.model_name} {m.system}')
for name in ['chatgpt-4o-latest', 'o4-mini', 'foo:bar']:
    try:
        infer_model(name)
    except Exception as e:
        out(f'{name} {type(e).__name__} {e}')

gc.collect()
