"""Streaming: a stream that ends with deferred calls, output functions run once, token limits on streamed responses."""

import asyncio
from collections.abc import AsyncIterable, AsyncIterator

from pydantic import BaseModel
from pydantic_ai import Agent, AgentStreamEvent, DeferredToolRequests, RunContext, UsageLimits
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel


def unused(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise NotImplementedError


async def deferred_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[DeltaToolCalls]:
    yield {0: DeltaToolCall(name='needs_ok', json_args='{"x": ', tool_call_id='n1')}
    yield {0: DeltaToolCall(json_args='1}')}


agent = Agent(FunctionModel(unused, stream_function=deferred_stream), output_type=[str, DeferredToolRequests])


@agent.tool_plain(requires_approval=True)
def needs_ok(x: int) -> int:
    return x


async def deferred() -> None:
    async with agent.run_stream('go') as result:
        print('complete before reading:', result.is_complete)
        outputs = [o async for o in result.stream_output(debounce_by=None)]
        print('streamed outputs:', [o.approvals if isinstance(o, DeferredToolRequests) else o for o in outputs])
        print('complete:', result.is_complete)
        output = await result.get_output()
        print('output:', output.calls if isinstance(output, DeferredToolRequests) else output)
        response = result.response
        print('response:', repr(response))
        validated = await result.validate_response_output(response)
        print('validate:', validated.approvals if isinstance(validated, DeferredToolRequests) else validated)
        print('messages:', [type(m).__name__ for m in result.all_messages()])
        print('usage:', result.usage())


asyncio.run(deferred())

calls: list[int] = []


class Box(BaseModel):
    items: list[int]


def make_box(items: list[int]) -> Box:
    calls.append(len(items))
    return Box(items=items)


async def box_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[DeltaToolCalls]:
    name = info.output_tools[0].name
    yield {0: DeltaToolCall(name=name, json_args='{"items": [1', tool_call_id='o1')}
    yield {0: DeltaToolCall(json_args=', 2')}
    yield {0: DeltaToolCall(json_args=', 3]}')}


box_agent = Agent(FunctionModel(unused, stream_function=box_stream), output_type=make_box)


async def once() -> None:
    async with box_agent.run_stream('go') as result:
        seen = [o async for o in result.stream_output(debounce_by=None)]
        print('streamed:', seen)
        print('calls while streaming:', calls)
        first = await result.get_output()
        second = await result.get_output()
        print('same object:', first is second, first == second)
        print('calls after get_output:', calls)
        first.items.append(99)
        print('after mutating the first:', await result.get_output())
        print('calls at the end:', calls)


asyncio.run(once())


async def text_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    for word in ['one ', 'two ', 'three ', 'four ', 'five ']:
        yield word


async def limited() -> None:
    text_agent = Agent(FunctionModel(unused, stream_function=text_stream))
    for limit in (2, 100):
        try:
            async with text_agent.run_stream('go', usage_limits=UsageLimits(output_tokens_limit=limit)) as result:
                print('limit', limit, 'output:', await result.get_output(), result.usage())
        except UsageLimitExceeded as e:
            print('limit', limit, f'{type(e).__name__}: {e}')
        try:
            async with text_agent.run_stream('go', usage_limits=UsageLimits(output_tokens_limit=limit)) as result:
                async for text in result.stream_text(debounce_by=None):
                    print('text:', text)
        except UsageLimitExceeded as e:
            print('limit', limit, f'{type(e).__name__}: {e}')

    async def handler(ctx: RunContext[None], events: AsyncIterable[AgentStreamEvent]) -> None:
        async for _ in events:
            pass

    for limit in (2, 100):
        try:
            run_result = await text_agent.run(
                'go', usage_limits=UsageLimits(output_tokens_limit=limit), event_stream_handler=handler
            )
            print('run with handler:', run_result.output)
        except UsageLimitExceeded as e:
            print('run with handler:', f'{type(e).__name__}: {e}')


asyncio.run(limited())
