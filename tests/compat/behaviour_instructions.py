"""Instructions are made when a request is built: before system prompts, and visible on `ModelRequestNode.request`."""

import asyncio

from pydantic_ai import Agent, ModelRequestNode, RunContext
from pydantic_ai.models.test import TestModel

agent = Agent(TestModel(), instructions='static')


@agent.instructions
def ins(ctx: RunContext[None]) -> str:
    print('ins called', ctx.run_step)
    return 'dyn'


@agent.system_prompt
def sp(ctx: RunContext[None]) -> str:
    print('sp called', ctx.run_step)
    return 'sys'


@agent.tool_plain
def t() -> int:
    return 1


async def main():
    async with agent.iter('go') as run:
        async for node in run:
            if isinstance(node, ModelRequestNode):
                print(
                    'node request instructions:',
                    node.request.instructions,
                    [type(p).__name__ for p in node.request.parts],
                )


asyncio.run(main())
