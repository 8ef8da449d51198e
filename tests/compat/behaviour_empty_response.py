"""An empty response ends with the text of the latest response that had some, even from an earlier run."""

from pydantic_ai import Agent, capture_run_messages
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel


def f(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    n = sum(isinstance(m, ModelResponse) for m in messages)
    if n == 1:
        return ModelResponse(parts=[ToolCallPart('t', {}, 't1')])
    return ModelResponse(parts=[])


agent = Agent(FunctionModel(f), output_retries=2)


@agent.tool_plain
def t() -> int:
    return 1


h = [ModelRequest(parts=[UserPromptPart('hi')]), ModelResponse(parts=[TextPart('old answer')])]
with capture_run_messages() as msgs:
    try:
        print(agent.run_sync('go', message_history=h).output)
    except UnexpectedModelBehavior as e:
        print(e)
print(len(msgs))


def g(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    n = sum(isinstance(m, ModelResponse) for m in messages)
    if n == 1:
        return ModelResponse(parts=[TextPart('mid'), ToolCallPart('t', {}, 't1')])
    if n == 2:
        return ModelResponse(parts=[ToolCallPart('t', {}, 't2')])
    return ModelResponse(parts=[])


agent2 = Agent(FunctionModel(g), output_retries=2, tools=[t])
with capture_run_messages() as msgs:
    try:
        print(agent2.run_sync('go', message_history=h[:1]).output)
    except UnexpectedModelBehavior as e:
        print(e)
print(len(msgs))
