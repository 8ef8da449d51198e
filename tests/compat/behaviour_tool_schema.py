"""What `prepare` functions see, parameter descriptions from attribute docstrings, and callable instances as tools."""

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic_ai import Agent, ModelRetry, RunContext, Tool
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.tools import ToolDefinition


def model_fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    n = sum(isinstance(m, ModelResponse) for m in messages)
    if n < 3:
        return ModelResponse(parts=[ToolCallPart('flaky', {'x': n}, tool_call_id=f'f{n}')])
    return ModelResponse(parts=[TextPart('done')])


async def prep(ctx: RunContext[None], tool_def: ToolDefinition) -> ToolDefinition:
    print(
        'prepare:',
        ctx.tool_name,
        'retry',
        ctx.retry,
        'max',
        ctx.max_retries,
        'retries',
        dict(ctx.retries),
        'step',
        ctx.run_step,
        'messages',
        [type(m).__name__ for m in ctx.messages],
        'id',
        ctx.tool_call_id,
    )
    return tool_def


async def prep_all(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
    print('prepare_tools:', 'retries', dict(ctx.retries), 'step', ctx.run_step, 'messages', len(ctx.messages))
    return tool_defs


agent = Agent(FunctionModel(model_fn), retries=3, prepare_tools=prep_all)


@agent.tool(prepare=prep)
def flaky(ctx: RunContext[None], x: int) -> int:
    print('tool: retry', ctx.retry, 'max', ctx.max_retries, 'retries', dict(ctx.retries))
    if x < 2:
        raise ModelRetry('again')
    return x


agent.run_sync('go')


class Location(BaseModel):
    city: str
    """The city name."""
    country: str = Field(description='The country code.')
    zip: str | None = None
    """Postal code, if known."""


class Plain(BaseModel):
    """A plain model."""

    a: int
    """First."""


def find(loc: Location) -> str:
    """Find a place."""
    return loc.city


def find_ctx(ctx: RunContext[None], loc: Location) -> str:
    return loc.city


def two(loc: Location, n: int) -> str:
    """Two params.

    Args:
        loc: Where.
        n: How many.
    """
    return loc.city


def plain(p: Plain) -> int:
    return p.a


for fn in (find, find_ctx, two, plain):
    tool = Tool(fn)
    print(fn.__name__, tool.tool_def.description, tool.tool_def.parameters_json_schema)


class Counter:
    def __call__(self, ctx: RunContext[None], step: int) -> int:
        return step + ctx.run_step


class NoCtx:
    def __call__(self, step: int) -> int:
        return step


class AsyncCounter:
    async def __call__(self, ctx: RunContext[None], step: int) -> int:
        return step


for instance in (Counter(), NoCtx(), AsyncCounter()):
    try:
        tool: Tool[Any] = Tool(instance, name=type(instance).__name__.lower())
        print(type(instance).__name__, tool.takes_ctx, tool.tool_def.parameters_json_schema)
    except Exception as e:
        print(type(instance).__name__, f'{type(e).__name__}: {e}')


class DocumentedLoc(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)
    city: str
    """The city name."""


def find_documented(loc: DocumentedLoc) -> str:
    return loc.city


print(Tool(find_documented).tool_def.parameters_json_schema)

steps_agent = Agent(TestModel())


@steps_agent.instructions
def instructions(ctx: RunContext[None]) -> str:
    print('instructions: messages', [type(m).__name__ for m in ctx.messages], 'step', ctx.run_step, ctx.prompt)
    return 'x'


@steps_agent.tool_plain
def t() -> int:
    return 1


result = steps_agent.run_sync('go')
print([getattr(m, 'instructions', '-') for m in result.all_messages()])
