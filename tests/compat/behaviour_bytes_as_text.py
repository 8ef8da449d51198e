"""TestModel shows tool results as plain JSON: bytes as UTF-8 text (bytes that are not UTF-8 fail), as upstream."""

import asyncio
from collections.abc import Callable
from datetime import date

from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel


class M(BaseModel):
    x: int


def giver(value: object) -> Callable[[], object]:
    def give() -> object:
        return value

    return give


async def stream(agent: Agent[None, str]) -> None:
    async with agent.run_stream('go') as result:
        print('stream', repr(await result.get_output()))


for value in (b'hello', b'\xff\x00', {'k': b'v', 'd': date(2024, 1, 2)}, M(x=1), [1, 'a', None], 'plain'):
    agent = Agent(TestModel(), tools=[giver(value)])
    try:
        print(repr(agent.run_sync('go').output))
    except Exception as e:
        print(type(e).__name__, str(e)[:80])
    try:
        asyncio.run(stream(agent))
    except Exception as e:
        print('stream', type(e).__name__, str(e)[:80])
