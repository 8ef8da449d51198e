"""Callable instances taking `RunContext` as instructions, system prompts, output validators, output functions and prepare functions."""

from pydantic_ai import Agent, RunContext, ToolOutput
from pydantic_ai.models.test import TestModel
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import FunctionToolset


class Ins:
    def __call__(self, ctx: RunContext[None]) -> str:
        return f'ins step {ctx.run_step}'


class Sys:
    async def __call__(self, ctx: RunContext[None]) -> str:
        return f'sys {ctx.prompt}'


class Val:
    def __call__(self, ctx: RunContext[None], out: str) -> str:
        return out + f' validated {ctx.run_step}'


class Val2:
    def __call__(self, out: str) -> str:
        return out + ' v2'


agent = Agent(TestModel(), instructions=Ins(), system_prompt=())
agent.system_prompt(Sys())
agent.output_validator(Val())
agent.output_validator(Val2())
r = agent.run_sync('go')
print(r.output)
for m in r.all_messages():
    print(repr(m))


class Out:
    def __call__(self, ctx: RunContext[None], x: int) -> str:
        return f'out {x} {ctx.run_step}'


class Prep:
    async def __call__(self, ctx: RunContext[None], td: ToolDefinition) -> ToolDefinition:
        print('prep called', ctx.run_step)
        return td


class PrepAll:
    async def __call__(self, ctx: RunContext[None], tds: list[ToolDefinition]) -> list[ToolDefinition]:
        print('prep all called', ctx.run_step)
        return tds


def tool_fn(ctx: RunContext[None], a: int) -> int:
    return a


for ot in (Out(), ToolOutput(Out(), name='o')):
    try:
        agent = Agent(TestModel(), output_type=ot, prepare_tools=PrepAll())
        agent.tool(prepare=Prep())(tool_fn)
        print(agent.run_sync('go').output)
    except Exception as e:
        print(type(e).__name__, e)


class Tl:
    def __call__(self, ctx: RunContext[None], a: int) -> int:
        return a


try:
    ts = FunctionToolset()
    ts.add_function(Tl(), name='tl')
    print(ts.tools['tl'].takes_ctx)
except Exception as e:
    print(type(e).__name__, e)
