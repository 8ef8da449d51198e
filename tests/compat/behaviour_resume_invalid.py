"""Resuming approvals when the tool is gone (prepare hides it) or its arguments do not validate."""

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext, ToolApproved
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import ToolDefinition

hidden = False


async def prep(ctx: RunContext[None], td: ToolDefinition) -> ToolDefinition | None:
    return None if hidden else td


def model_fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart('gated', {'n': 1}, 'g1'), ToolCallPart('gated2', {'n': 'x'}, 'g2')])
    return ModelResponse(parts=[TextPart('done')])


agent = Agent(FunctionModel(model_fn), output_type=[str, DeferredToolRequests])


@agent.tool_plain(requires_approval=True, prepare=prep)
def gated(n: int) -> int:
    return n


@agent.tool_plain(requires_approval=True)
def gated2(n: int) -> int:
    return n


r = agent.run_sync('go')
assert isinstance(r.output, DeferredToolRequests)
print(r.output.approvals)
hidden = True
try:
    r2 = agent.run_sync(
        message_history=r.all_messages(), deferred_tool_results=DeferredToolResults(approvals={'g1': True, 'g2': True})
    )
    for m in r2.new_messages():
        print(repr(m))
except Exception as e:
    print(type(e).__name__, e)
hidden = False
r3 = agent.run_sync(
    message_history=r.all_messages(),
    deferred_tool_results=DeferredToolResults(approvals={'g1': ToolApproved(override_args={'n': 'bad'}), 'g2': False}),
)
for m in r3.new_messages():
    print(repr(m))
