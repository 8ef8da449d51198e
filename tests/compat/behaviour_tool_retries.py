"""`Tool.max_retries` taken from `Agent(retries=)`, and calls of unknown tools counted against both limits."""

from pydantic_ai import Agent, ModelRetry, RunContext, Tool, capture_run_messages
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel


def always_retry(ctx: RunContext[None]) -> str:
    print('always_retry', ctx.retry, ctx.max_retries, dict(ctx.retries))
    raise ModelRetry('again')


def model_fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart('always_retry', {})])


t = Tool(always_retry)
print('Tool.max_retries before:', t.max_retries)
agent = Agent(FunctionModel(model_fn), retries=3, tools=[t])
print('Tool.max_retries after:', t.max_retries)
try:
    agent.run_sync('go')
except UnexpectedModelBehavior as e:
    print('error:', e)

agent2 = Agent(FunctionModel(model_fn), retries=2)


@agent2.tool
def always_retry2(ctx: RunContext[None]) -> str:
    raise ModelRetry('x')


try:
    agent2.run_sync('go')
except UnexpectedModelBehavior as e:
    print('error:', e)

print('=== unknown tool')


def unknown(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart('nope', {}, tool_call_id='u' + str(len(messages)))])


for retries, output_retries in [(2, None), (3, 1), (1, 4)]:
    a = Agent(FunctionModel(unknown), retries=retries, output_retries=output_retries)

    @a.tool_plain
    def real() -> int:
        return 1

    with capture_run_messages() as msgs:
        try:
            a.run_sync('go')
        except UnexpectedModelBehavior as e:
            print(retries, output_retries, 'error:', e, len(msgs))
    print(repr(msgs[2]))

print('=== unknown then text')


def unknown_then(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) < 5:
        return ModelResponse(parts=[ToolCallPart('nope', {}, tool_call_id='u' + str(len(messages)))])
    return ModelResponse(parts=[TextPart('fine')])


a = Agent(FunctionModel(unknown_then), retries=1, output_retries=5)
try:
    r = a.run_sync('go')
except UnexpectedModelBehavior as e:
    print('error:', e)
