"""run_stream with deferred calls beside a function tool, in every order: the output and the history."""

import asyncio
from collections.abc import AsyncIterator

from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import ExternalToolset

ORDERS = [['plain', 'ext', 'gated'], ['gated', 'plain', 'ext'], ['ext', 'gated', 'plain']]
current: list[str] = []


def unused(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise NotImplementedError


async def stream_fn(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    for i, name in enumerate(current):
        yield {i: DeltaToolCall(name=name, json_args='{}', tool_call_id=f'{name}1')}


agent = Agent(
    FunctionModel(unused, stream_function=stream_fn),
    output_type=[str, DeferredToolRequests],
    toolsets=[ExternalToolset([ToolDefinition(name='ext')])],
)


@agent.tool_plain
def plain() -> str:
    print('plain ran')
    return 'p'


@agent.tool_plain(requires_approval=True)
def gated() -> str:
    return 'g'


async def main() -> None:
    for order in ORDERS:
        current[:] = order
        print('==', order)
        async with agent.run_stream('go') as r:
            out = await r.get_output()
            assert isinstance(out, DeferredToolRequests)
            print(out.calls, out.approvals)
            for m in r.all_messages()[2:]:
                print(repr(m))


asyncio.run(main())
