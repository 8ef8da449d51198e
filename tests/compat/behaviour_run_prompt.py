"""`ctx.prompt` in tools and instructions: the new prompt, or the user prompt of the request a history ends with."""

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel


def model_fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    n = sum(isinstance(m, ModelResponse) for m in messages)
    if n == 0:
        return ModelResponse(
            parts=[ToolCallPart('show', {}, tool_call_id='s1'), ToolCallPart('ok', {}, tool_call_id='o1')]
        )
    if n == 1:
        return ModelResponse(parts=[ToolCallPart('show', {}, tool_call_id='s2')])
    return ModelResponse(parts=[TextPart('done')])


agent = Agent(FunctionModel(model_fn), output_type=[str, DeferredToolRequests])


@agent.tool
def show(ctx: RunContext[None]) -> str:
    print('show ctx.prompt =', repr(ctx.prompt))
    return 'ok'


@agent.tool(requires_approval=True)
def ok(ctx: RunContext[None]) -> str:
    print('ok ctx.prompt =', repr(ctx.prompt))
    return 'ok'


@agent.instructions
def ins(ctx: RunContext[None]) -> str:
    print('ins ctx.prompt =', repr(ctx.prompt))
    return 'i'


r = agent.run_sync('go')
print('--- resume no prompt')
r2 = agent.run_sync(message_history=r.all_messages(), deferred_tool_results=DeferredToolResults(approvals={'o1': True}))
print('--- resume with prompt')
r2 = agent.run_sync(
    'p2', message_history=r.all_messages(), deferred_tool_results=DeferredToolResults(approvals={'o1': True})
)
print('--- multi-content prompt history, no prompt')
h = [ModelRequest(parts=[UserPromptPart('first'), UserPromptPart(['a', 'b'])])]
r3 = agent.run_sync(message_history=h, deferred_tool_results=None)
print('--- history with tool return last, no prompt')
h = [
    ModelRequest(parts=[UserPromptPart('hi')]),
    ModelResponse(parts=[TextPart('x')]),
    ModelRequest(parts=[ToolReturnPart('show', 'ok', 'zz')]),
]
r3 = agent.run_sync(message_history=h)
print('--- one prompt part with a list, no prompt')
r3 = agent.run_sync(message_history=[ModelRequest(parts=[UserPromptPart(['x', 'y'])])])
print('--- a system prompt and a prompt part, no prompt')
r3 = agent.run_sync(message_history=[ModelRequest(parts=[UserPromptPart('only')])])
