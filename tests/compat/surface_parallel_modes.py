# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
"""`Agent.parallel_tool_call_execution_mode` and `sequential_tool_calls`: execution order and event order."""

import asyncio

from pydantic_ai import Agent
from pydantic_ai.messages import FunctionToolCallEvent, FunctionToolResultEvent
from pydantic_ai.models.test import TestModel

log: list[str] = []
agent = Agent(TestModel())


@agent.tool_plain
async def slow() -> str:
    log.append('slow start')
    await asyncio.sleep(0.05)
    log.append('slow end')
    return 'slow'


@agent.tool_plain
async def fast() -> str:
    log.append('fast start')
    await asyncio.sleep(0.01)
    log.append('fast end')
    return 'fast'


async def main() -> None:
    for mode in ('parallel', 'sequential', 'parallel_ordered_events'):
        log.clear()
        events = []
        with Agent.parallel_tool_call_execution_mode(mode):
            async for event in agent.run_stream_events('x'):
                if isinstance(event, FunctionToolCallEvent):
                    events.append(f'call {event.part.tool_name}')
                elif isinstance(event, FunctionToolResultEvent):
                    events.append(f'result {event.result.tool_name}')
        print(mode, log, events)
    log.clear()
    with Agent.sequential_tool_calls():
        await agent.run('x')
    print('sequential_tool_calls', log)


asyncio.run(main())
