"""The resume flow: `ctx.tool_call_approved` of the calls it runs, and where `ToolReturn` content goes."""

from pydantic_ai import (
    Agent,
    ApprovalRequired,
    CallDeferred,
    DeferredToolRequests,
    DeferredToolResults,
    RunContext,
    ToolReturn,
)
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import ExternalToolset

seen: list[str] = []


def model_fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    n = sum(isinstance(m, ModelResponse) for m in messages)
    if n == 0:
        return ModelResponse(
            parts=[
                ToolCallPart('gated', {}, tool_call_id='g1'),
                ToolCallPart('rich', {}, tool_call_id='r1'),
                ToolCallPart('ext', {}, tool_call_id='e1'),
                ToolCallPart('plain', {}, tool_call_id='p1'),
                ToolCallPart('deferrer', {}, tool_call_id='d1'),
            ]
        )
    if n == 1:
        return ModelResponse(parts=[ToolCallPart('plain', {}, tool_call_id='p2')])
    return ModelResponse(parts=[TextPart('done')])


async def prep(ctx: RunContext[None], td: ToolDefinition) -> ToolDefinition:
    print('prepare', td.name, 'approved=', ctx.tool_call_approved, 'step=', ctx.run_step)
    return td


agent = Agent(FunctionModel(model_fn), output_type=[str, DeferredToolRequests])


@agent.tool(prepare=prep)
def gated(ctx: RunContext[None]) -> str:
    seen.append(' '.join(map(str, ['gated approved=', ctx.tool_call_approved])))
    if not ctx.tool_call_approved:
        raise ApprovalRequired()
    return 'g'


@agent.tool(requires_approval=True)
def rich(ctx: RunContext[None]) -> ToolReturn:
    seen.append(' '.join(map(str, ['rich approved=', ctx.tool_call_approved])))
    return ToolReturn('r', content=['extra from rich'])


@agent.tool
def plain(ctx: RunContext[None]) -> ToolReturn:
    seen.append(' '.join(map(str, ['plain approved=', ctx.tool_call_approved, ctx.tool_call_id])))
    return ToolReturn('p', content=['extra from plain ' + str(ctx.tool_call_id)])


@agent.tool
def deferrer(ctx: RunContext[None]) -> str:
    seen.append(' '.join(map(str, ['deferrer approved=', ctx.tool_call_approved])))
    raise CallDeferred()


ts = ExternalToolset([ToolDefinition(name='ext')])
r = agent.run_sync('go', toolsets=[ts])
print(sorted(seen))
seen.clear()
for m in r.all_messages():
    print(repr(m))
assert isinstance(r.output, DeferredToolRequests)
print(r.output.calls, r.output.approvals)
print('--- resume')
r2 = agent.run_sync(
    'newp',
    message_history=r.all_messages(),
    toolsets=[ts],
    deferred_tool_results=DeferredToolResults(
        approvals={'g1': True, 'r1': True},
        calls={'e1': ToolReturn('e', content='extra from ext'), 'd1': ToolReturn('d', content='extra from d')},
    ),
)
print(sorted(seen))
for m in r2.new_messages():
    print(repr(m))
