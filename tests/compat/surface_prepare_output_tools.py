# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
"""`prepare_output_tools=`: changing or hiding the output tools before each request."""

from dataclasses import replace

from pydantic import BaseModel
from pydantic_ai import Agent, RunContext, ToolOutput
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import ToolDefinition


class A(BaseModel):
    a: int


class B(BaseModel):
    b: str


def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    print('output tools', [(t.name, t.description, t.strict) for t in info.model_request_parameters.output_tools])
    print('function tools', [t.name for t in info.model_request_parameters.function_tools])
    name = info.model_request_parameters.output_tools[0].name if info.model_request_parameters.output_tools else None
    if name is None:
        return ModelResponse(parts=[TextPart('no output tool')])
    return ModelResponse(parts=[ToolCallPart(name, {'a': 1} if name.endswith('A') else {'b': 'x'})])


async def prepare(ctx: RunContext[int], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
    print('prepare sees', [(t.name, t.kind) for t in tool_defs], 'deps', ctx.deps, 'step', ctx.run_step)
    return [replace(t, description=f'step {ctx.run_step}') for t in tool_defs if ctx.deps or t.name != 'final_result_A']


async def prepare_functions(ctx: RunContext[int], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
    print('prepare_tools sees', [(t.name, t.kind) for t in tool_defs])
    return tool_defs


agent = Agent(
    FunctionModel(model),
    deps_type=int,
    output_type=[A, B],
    prepare_output_tools=prepare,
    prepare_tools=prepare_functions,
)


@agent.tool_plain
def helper() -> str:
    return 'h'


print(agent.run_sync('x', deps=1).output)
print(agent.run_sync('x', deps=0).output)


async def none_prepare(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> None:
    return None


try:
    print(
        Agent(FunctionModel(model), output_type=ToolOutput(A), prepare_output_tools=none_prepare).run_sync('x').output
    )
except Exception as e:
    print(type(e).__name__, e)
