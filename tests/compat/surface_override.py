# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
"""`Agent.override`: which of the agent's, the run's and the override's values a run uses."""

from pydantic_ai import Agent, FunctionToolset, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel


def describe(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    tools = sorted(t.name for t in info.function_tools)
    instructions = info.instructions
    return ModelResponse(parts=[TextPart(f'model={info.model_settings} tools={tools} instructions={instructions!r}')])


def other(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart('other model')])


def agent_tool() -> str:
    return 'a'


def run_tool() -> str:
    return 'r'


def override_tool() -> str:
    return 'o'


agent = Agent(
    FunctionModel(describe),
    deps_type=str,
    instructions='agent instructions',
    toolsets=[FunctionToolset([agent_tool])],
    name='original',
)


@agent.instructions
def from_deps(ctx: RunContext[str]) -> str:
    return f'deps={ctx.deps}'


print(agent.run_sync('x', deps='run', toolsets=[FunctionToolset([run_tool])], instructions='run instructions').output)
with agent.override(toolsets=[FunctionToolset([override_tool])]):
    print(agent.run_sync('x', deps='run', toolsets=[FunctionToolset([run_tool])]).output)
with agent.override(tools=[override_tool]):
    print(agent.run_sync('x', deps='run').output)
with agent.override(deps='override'):
    print(agent.run_sync('x', deps='run').output)
with agent.override(instructions='override instructions'):
    print(agent.run_sync('x', deps='run', instructions='run instructions').output)
with agent.override(model=FunctionModel(other)):
    print(agent.run_sync('x', deps='run', model=FunctionModel(describe)).output)
with agent.override(name='overridden'), agent.override(deps='inner'):
    print(agent.name, agent.run_sync('x', deps='run').output)
print(agent.name)
