# pyright: reportUnusedFunction=false
"""Sync tools run in worker threads: they see the caller's context, reach the loop with anyio, and StopIteration."""

import contextvars
import threading

import anyio.from_thread
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel

request_id = contextvars.ContextVar('request_id', default='unset')
agent = Agent(TestModel())


@agent.tool_plain
def lookup() -> str:
    async def on_the_loop() -> str:
        return 'from the loop'

    on_main = threading.current_thread() is threading.main_thread()
    return f'{anyio.from_thread.run(on_the_loop)}, {request_id.get()}, main thread: {on_main}'


request_id.set('req-7')
print(agent.run_sync('x').output)

exhausted = Agent(TestModel())


@exhausted.tool_plain
def empty() -> int:
    return next(iter([]))


try:
    exhausted.run_sync('x')
except Exception as e:
    print(type(e).__name__, e, type(e.__cause__).__name__)
