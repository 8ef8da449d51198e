# pyright: reportUnusedFunction=false
"""A sync tool still running when its run is cancelled and the program ends: the interpreter waits for it."""

import asyncio
import atexit
import threading
import time

from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel

agent = Agent(TestModel())
done: list[str] = []


@agent.tool_plain
def slow() -> str:
    time.sleep(0.6)
    done.append('finished')
    return 'x'


async def main() -> None:
    task = asyncio.create_task(agent.run('go'))
    await asyncio.sleep(0.1)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        print('cancelled')


asyncio.run(main())
print('daemon workers:', sorted({t.daemon for t in threading.enumerate() if t is not threading.main_thread()}))
atexit.register(lambda: print('tool finished before exit:', done == ['finished']))
