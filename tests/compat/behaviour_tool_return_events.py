"""Events and history when several tools return files or `ToolReturn` content in one response."""

from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from pydantic_ai import Agent, AgentStreamEvent, ImageUrl, RunContext, ToolReturn
from pydantic_ai.messages import FunctionToolResultEvent, ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel


def model_fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(
            parts=[ToolCallPart('a', {}, 'a1'), ToolCallPart('b', {}, 'b1'), ToolCallPart('c', {}, 'c1')]
        )
    return ModelResponse(parts=[TextPart('done')])


async def stream_fn(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    if len(messages) == 1:
        yield {0: DeltaToolCall(name='a', json_args='{}', tool_call_id='a1')}
        yield {1: DeltaToolCall(name='b', json_args='{}', tool_call_id='b1')}
        yield {2: DeltaToolCall(name='c', json_args='{}', tool_call_id='c1')}
    else:
        yield 'done'


agent = Agent(FunctionModel(model_fn, stream_function=stream_fn))


@agent.tool_plain(sequential=True)
def a() -> Any:
    return ImageUrl('https://example.com/a.png')


@agent.tool_plain(sequential=True)
def b() -> Any:
    return ToolReturn('b', content=['b extra'])


@agent.tool_plain(sequential=True)
def c() -> Any:
    return ['x', ImageUrl('https://example.com/c.png')]


async def handler(ctx: RunContext[None], events: AsyncIterable[AgentStreamEvent]) -> None:
    async for e in events:
        if isinstance(e, FunctionToolResultEvent):
            print(repr(e))


r = agent.run_sync('go', event_stream_handler=handler)
print(repr(r.all_messages()[2]))
