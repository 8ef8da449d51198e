"""Resume flows: unknown tools, denials, overridden arguments, retries and ToolReturn results, with their events."""

import asyncio
from collections.abc import AsyncIterable, AsyncIterator

from pydantic_ai import (
    Agent,
    AgentStreamEvent,
    DeferredToolRequests,
    DeferredToolResults,
    ModelRetry,
    RunContext,
    ToolApproved,
    ToolDenied,
    ToolReturn,
)
from pydantic_ai.messages import (
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import ExternalToolset


def model_fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(
            parts=[
                ToolCallPart('ext', {'q': 1}, tool_call_id='e1'),
                ToolCallPart('nope', {}, tool_call_id='u1'),
                ToolCallPart('gated', {'n': 1}, tool_call_id='g1'),
                ToolCallPart('gated', {'n': 2}, tool_call_id='g2'),
                ToolCallPart('gated', {'n': 3}, tool_call_id='g3'),
                ToolCallPart('ext', {'q': 2}, tool_call_id='e2'),
                ToolCallPart('ext', {'q': 3}, tool_call_id='e3'),
                ToolCallPart('ext', {'q': 4}, tool_call_id='e4'),
            ]
        )
    return ModelResponse(parts=[TextPart('done')])


async def stream_fn(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    yield 'done'


agent = Agent(
    FunctionModel(model_fn, stream_function=stream_fn),
    output_type=[str, DeferredToolRequests],
    toolsets=[ExternalToolset([ToolDefinition(name='ext', parameters_json_schema={'type': 'object'})])],
)


@agent.tool(requires_approval=True)
def gated(ctx: RunContext[None], n: int) -> str:
    return f'gated {n} approved={ctx.tool_call_approved} meta={ctx.tool_call_metadata}'


EVENTS: list[str] = []


async def handler(ctx: RunContext[None], events: AsyncIterable[AgentStreamEvent]) -> None:
    async for event in events:
        if isinstance(event, FunctionToolCallEvent):
            EVENTS.append(f'call {event.part.tool_call_id}')
        elif isinstance(event, FunctionToolResultEvent):
            # Results come in as their calls finish, so their order is not fixed: they are printed sorted.
            EVENTS.append(f'result {event.result.tool_call_id} {event.result!r} {event.content!r}')


async def main() -> None:
    first = await agent.run('go')
    output = first.output
    assert isinstance(output, DeferredToolRequests)
    print('calls:', [c.tool_call_id for c in output.calls], 'approvals:', [c.tool_call_id for c in output.approvals])
    for m in first.all_messages()[2:]:
        print(repr(m))
    results = DeferredToolResults(
        calls={
            'e1': ModelRetry('try again'),
            'e2': ToolReturn('value', content='extra', metadata={'k': 1}),
            'e3': RetryPromptPart('custom retry'),
            'e4': {'a': 1},
        },
        approvals={'g1': ToolApproved(override_args={'n': 10}), 'g2': ToolDenied(), 'g3': ToolDenied('nope!')},
        metadata={'g1': {'why': 'ok'}},
    )
    second = await agent.run(
        'and now', message_history=first.all_messages(), deferred_tool_results=results, event_stream_handler=handler
    )
    calls = [e for e in EVENTS if e.startswith('call')]
    print('\n'.join(calls + sorted(e for e in EVENTS if e.startswith('result'))))
    print('output:', second.output)
    for m in second.new_messages():
        print(repr(m))


asyncio.run(main())
