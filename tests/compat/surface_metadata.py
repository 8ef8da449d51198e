# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
"""Run metadata: agent-level (dict or callable), run-level, override, and where they are visible."""

import asyncio

from pydantic_ai import Agent, RunContext
from pydantic_ai.models.test import TestModel

calls: list[str] = []


def agent_meta(ctx: RunContext[None]) -> dict[str, object]:
    calls.append(f'agent_meta requests={ctx.usage.requests} messages={len(ctx.messages)}')
    return {'prompt': ctx.prompt, 'shared': 'agent', 'requests': ctx.usage.requests}


agent = Agent(TestModel(), metadata=agent_meta)


@agent.tool
def peek(ctx: RunContext[None]) -> str:
    calls.append(f'tool sees {ctx.metadata}')
    return 'ok'


result = agent.run_sync('hello', metadata={'shared': 'run', 'extra': 1})
print('result.metadata', result.metadata)
print(calls)
calls.clear()

plain = Agent(TestModel(call_tools=[]))
print('no metadata', plain.run_sync('x').metadata)
print('run only', plain.run_sync('x', metadata={'a': 1}).metadata)
print('callable run', plain.run_sync('x', metadata=lambda ctx: {'p': ctx.prompt}).metadata)
with plain.override(metadata={'o': 1}):
    print('override', plain.run_sync('x', metadata={'a': 1}).metadata)
with plain.override(metadata=lambda ctx: {'op': ctx.prompt}):
    print('override callable', plain.run_sync('y').metadata)


async def main() -> None:
    async with agent.iter('iter', metadata={'k': 2}) as run:
        print('iter start', run.metadata)
        async for _ in run:
            pass
        print('iter end', run.metadata)
        assert run.result is not None
        print('result', run.result.metadata)
    print(calls)
    async with plain.run_stream('s', metadata={'s': 1}) as stream:
        await stream.get_output()
        print('stream', getattr(stream, 'metadata', 'n/a'))
    async for event in plain.run_stream_events('e', metadata={'e': 1}):
        if event.event_kind == 'agent_run_result':
            print('events', event.result.metadata)


asyncio.run(main())
sync_stream = plain.run_stream_sync('ss', metadata={'ss': 1})
print('sync stream', sync_stream.get_output(), sync_stream.metadata)
