"""Resuming deferred calls with run_stream and iter, and a resumed response that also had text."""

import asyncio
from collections.abc import AsyncIterator

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCalls, FunctionModel


def model_fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(
            parts=[TextPart('Let me check.'), ToolCallPart('plain', {}, 'p1'), ToolCallPart('gated', {}, 'g1')]
        )
    return ModelResponse(parts=[TextPart('done')])


async def stream_fn(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    yield 'done '
    yield 'streaming'


agent = Agent(FunctionModel(model_fn, stream_function=stream_fn), output_type=[str, DeferredToolRequests])


@agent.tool_plain
def plain() -> str:
    return 'plain'


@agent.tool_plain(requires_approval=True)
def gated() -> str:
    return 'gated'


async def main() -> None:
    first = await agent.run('go')
    for m in first.all_messages():
        print(repr(m))
    results = DeferredToolResults(approvals={'g1': True})
    async with agent.run_stream('then', message_history=first.all_messages(), deferred_tool_results=results) as r:
        print('stream output:', await r.get_output())
        for m in r.new_messages():
            print(repr(m))
    async with agent.iter(message_history=first.all_messages(), deferred_tool_results=results) as run:
        nodes = [type(node).__name__ async for node in run]
        print('iter nodes:', nodes)
        assert run.result is not None
        for m in run.result.new_messages():
            print(repr(m))


asyncio.run(main())


async def run_ids() -> None:
    first = await agent.run('go')
    second = await agent.run(
        message_history=first.all_messages(), deferred_tool_results=DeferredToolResults(approvals={'g1': True})
    )
    names = {first.run_id: 'first', second.run_id: 'second', None: None}
    print('run ids:', [names.get(m.run_id, 'other') for m in second.all_messages()])
    async with agent.run_stream(
        message_history=first.all_messages(), deferred_tool_results=DeferredToolResults(approvals={'g1': True})
    ) as streamed:
        await streamed.get_output()
        names = {first.run_id: 'first', streamed.run_id: 'streamed', None: None}
        print('run ids:', [names.get(m.run_id, 'other') for m in streamed.all_messages()])


asyncio.run(run_ids())
