"""Given histories: consecutive responses merged, a history ending in a response or a request continued."""

from pydantic_ai import Agent, RunContext
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

seen: list[list[str]] = []


def model_fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    seen.append([type(m).__name__ + str(len(m.parts)) for m in messages])
    if not any(isinstance(p, ToolReturnPart) for m in messages for p in m.parts) and info.function_tools:
        return ModelResponse(parts=[ToolCallPart('show', {}, tool_call_id='s1')])
    return ModelResponse(parts=[TextPart('done')])


agent = Agent(FunctionModel(model_fn))


@agent.tool
def show(ctx: RunContext[None]) -> str:
    print('ctx.prompt =', repr(ctx.prompt))
    return 'ok'


@agent.system_prompt
def sp(ctx: RunContext[None]) -> str:
    print('sp prompt =', repr(ctx.prompt))
    return 'sys'


print('== consecutive responses in history')
h = [
    ModelRequest(parts=[UserPromptPart('hi')]),
    ModelResponse(parts=[TextPart('a')]),
    ModelResponse(parts=[TextPart('b')]),
]
r = agent.run_sync('next', message_history=h)
print(seen[-1])
for m in r.all_messages():
    print(repr(m))
print('== history ending in text response, no prompt')
h = [ModelRequest(parts=[UserPromptPart('hi')]), ModelResponse(parts=[TextPart('answer')])]
try:
    r = agent.run_sync(message_history=h)
    print(repr(r.output), seen[-1])
    for m in r.all_messages():
        print(repr(m))
except Exception as e:
    print(type(e).__name__, e)
print('== history ending in tool call response, no prompt')
h = [ModelRequest(parts=[UserPromptPart('hi')]), ModelResponse(parts=[ToolCallPart('show', {}, tool_call_id='x1')])]
try:
    r = agent.run_sync(message_history=h)
    print(repr(r.output), seen[-1])
    for m in r.all_messages():
        print(repr(m))
except Exception as e:
    print(type(e).__name__, e)
print('== history ending in request, no prompt')
h = [
    ModelRequest(parts=[UserPromptPart('hi')]),
    ModelResponse(parts=[TextPart('a')]),
    ModelRequest(parts=[UserPromptPart('second')]),
]
r = agent.run_sync(message_history=h)
print(repr(r.output), seen[-1])
for m in r.all_messages():
    print(repr(m))
print('== history ending in request, with prompt')
r = agent.run_sync('third', message_history=h)
print(repr(r.output), seen[-1])
for m in r.all_messages():
    print(repr(m))
print('== empty-part response at end, no prompt')
h = [ModelRequest(parts=[UserPromptPart('hi')]), ModelResponse(parts=[])]
try:
    r = agent.run_sync(message_history=h)
    print(repr(r.output), seen[-1])
    for m in r.all_messages():
        print(repr(m))
except Exception as e:
    print(type(e).__name__, e)
