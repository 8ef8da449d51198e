# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
"""Dynamic toolsets: `@agent.toolset` and functions in `toolsets=`, per run step or once per run."""

import asyncio

from pydantic_ai import Agent, FunctionToolset, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

calls: list[str] = []


def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    names = [t.name for t in info.function_tools]
    print('tools', names)
    responses = [m for m in messages if isinstance(m, ModelResponse)]
    if len(responses) < 2 and names:
        return ModelResponse(parts=[ToolCallPart(names[-1], {})])
    return ModelResponse(parts=[TextPart('done')])


def make_toolset(label: str) -> FunctionToolset[str]:
    toolset = FunctionToolset[str]()
    toolset.add_function(lambda: label, name=f'{label}_tool')
    return toolset


agent = Agent(FunctionModel(model), deps_type=str)


@agent.toolset
def per_step(ctx: RunContext[str]) -> FunctionToolset[str]:
    calls.append(f'per_step step={ctx.run_step}')
    return make_toolset(f'{ctx.deps}{ctx.run_step}')


@agent.toolset(per_run_step=False, id='once')
async def once(ctx: RunContext[str]) -> FunctionToolset[str] | None:
    calls.append(f'once step={ctx.run_step}')
    return make_toolset('once') if ctx.deps == 'a' else None


print(agent.run_sync('x', deps='a').output)
print(calls)
calls.clear()
print(agent.run_sync('x', deps='b').output)
print(calls)
print([type(t).__name__ for t in agent.toolsets[1:]], isinstance(agent.toolsets[0], FunctionToolset))
print([getattr(t, 'id', None) for t in agent.toolsets])


def from_init(ctx: RunContext[None]) -> FunctionToolset[None]:
    toolset = FunctionToolset[None]()
    toolset.add_function(lambda: 'i', name='init_tool')
    return toolset


agent2 = Agent(FunctionModel(model), toolsets=[from_init])
print(agent2.run_sync('x').output)
print([type(t).__name__ for t in agent2.toolsets[1:]])


async def main() -> None:
    async with agent:
        print((await agent.run('y', deps='a')).output)


asyncio.run(main())
