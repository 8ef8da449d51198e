"""Vercel AI: an exception raised by `on_complete` becomes an error chunk."""

import asyncio
from collections.abc import AsyncIterator

from pydantic_ai import Agent, AgentRunResult, ModelMessage
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.ui.vercel_ai import VercelAIAdapter
from pydantic_ai.ui.vercel_ai.request_types import SubmitMessage


async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    yield 'hello'


async def on_complete(result: AgentRunResult[str]) -> None:
    raise RuntimeError(f'could not save {result.output!r}')


async def main() -> None:
    body = {
        'trigger': 'submit-message',
        'id': 'chat',
        'messages': [{'id': 'u1', 'role': 'user', 'parts': [{'type': 'text', 'text': 'hi'}]}],
    }
    adapter = VercelAIAdapter(
        agent=Agent(FunctionModel(stream_function=stream)), run_input=SubmitMessage.model_validate(body)
    )
    async for chunk in adapter.run_stream(on_complete=on_complete):
        print(chunk.model_dump(by_alias=True, exclude_none=True))


asyncio.run(main())
