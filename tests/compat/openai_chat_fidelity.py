# pyright: reportUnusedFunction=false
"""OpenAIChatModel over HTTP: headers, streamed usage, the system prompt role, errors, and a wrapped client."""

import asyncio
import gc
import json
import re
import sys
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent.parent))

from _openai_server import ChatServer, chat_server, chunk, completion, usage
from openai import AsyncOpenAI, NotGiven, Omit
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

# SDK clients left to the garbage collector warn about their sockets at random points; that is noise here.
warnings.filterwarnings('ignore', category=ResourceWarning)


def out(value: object) -> None:
    print(re.sub(r'127\.0\.0\.1:\d+', '127.0.0.1:PORT', str(value)))


class Recording:
    """A wrapper around the SDK's `chat.completions`, as a user's instrumentation might add."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: list[dict[str, Any]] = []

    async def create(self, **kwargs: Any) -> Any:
        # Arguments left out are passed by upstream as the SDK's "omitted" markers; only the given ones are shown.
        given = {k: v for k, v in kwargs.items() if v is not None and not isinstance(v, Omit | NotGiven)}
        self.calls.append({k: v for k, v in given.items() if k not in ('messages', 'extra_headers')})
        return await self.inner.create(**kwargs)


async def main(server: ChatServer) -> None:
    async with AsyncOpenAI(base_url=server.base_url, api_key='k', max_retries=0) as client:
        model = OpenAIChatModel('gpt-4o', provider=OpenAIProvider(openai_client=client))
        out(f'{model!r} {type(model).supported_builtin_tools().__class__.__name__}')

        server.add_json(completion('Hello!', usage=usage(12, 4, cached_tokens=3, reasoning_tokens=2)))
        result = await Agent(model).run('Hi')
        out(result.all_messages()[-1])
        request = server.requests[-1]
        out({k: v for k, v in request.headers.items() if k in ('user-agent',)})

        server.add_stream(
            [
                chunk('Hel', usage=usage(5, 1)),
                chunk('lo', usage=usage(5, 2)),
                chunk(finish_reason='stop'),
                chunk(choices=False, usage=usage(12, 4, cached_tokens=3)),
            ]
        )
        async with Agent(model).run_stream('Hi') as streamed:
            out(await streamed.get_output())
        out(streamed.all_messages()[-1])
        out(json.dumps(server.requests[-1].body, sort_keys=True))
        out({k: v for k, v in server.requests[-1].headers.items() if k in ('user-agent',)})

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            roles = OpenAIChatModel('gpt-4o', provider=OpenAIProvider(openai_client=client), system_prompt_role='user')
        out([str(w.message) for w in caught])
        out(roles.profile)
        out(roles.system_prompt_role)
        server.add_json(completion('Ok'))
        await Agent(roles, system_prompt='Be brief.').run('Hi')
        out(json.dumps(server.requests[-1].body['messages']))

        server.add_json({'error': {'message': 'bad', 'type': 'invalid_request_error'}}, status=400)
        try:
            await Agent(model).run('x')
        except ModelHTTPError as e:
            out(f'{e!r} {e.status_code} {e.model_name} {e.body}')

        wrapped = Recording(client.chat.completions)
        client.chat.completions = wrapped  # type: ignore[assignment]
        server.add_json(completion('Wrapped.'))
        out((await Agent(model).run('Hi')).output)
        server.add_stream([chunk('Wrapped '), chunk('stream.'), chunk(finish_reason='stop')])
        async with Agent(model).run_stream('Hi') as streamed:
            out(await streamed.get_output())
        out(wrapped.calls)


with chat_server() as server:
    asyncio.run(main(server))
gc.collect()
