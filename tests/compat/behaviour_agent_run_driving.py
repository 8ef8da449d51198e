"""Driving a run by hand: `next_node`, `next(node)`, iterating after a manual step and past the end, running a node twice."""

import asyncio

from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel
from pydantic_graph import End

agent = Agent(TestModel(), name='driver')


@agent.tool_plain
def add(a: int, b: int) -> int:
    return a + b


async def main() -> None:
    async with agent.iter('hi') as run:
        print(type(run.next_node).__name__, run.result)
        print(type(run.ctx).__name__, type(run.ctx.state).__name__, type(run.ctx.deps).__name__)
        first = run.next_node
        assert not isinstance(first, End)
        node = await run.next(first)
        print(type(node).__name__)
        kinds: list[str] = []
        async for n in run:
            kinds.append(type(n).__name__)
        print(kinds)
        print(type(run.next_node).__name__, run.result)
        try:
            await run.__anext__()
        except StopAsyncIteration:
            print('StopAsyncIteration')

    # Replaying a node already run (same object) runs it again.
    async with agent.iter('again') as run:
        start = run.next_node
        assert not isinstance(start, End)
        await run.next(start)
        again = await run.next(start)
        print('replayed', type(again).__name__, len(run.all_messages()))
        print(run)

    # Iterating: the first item is the start node itself.
    async with agent.iter('walk') as run:
        seen = [type(n).__name__ async for n in run]
        print(seen, run.result is not None and run.result.output)


asyncio.run(main())
