# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
"""`CallToolsNode.tool_call_results` and `tool_call_metadata` when a run resumes deferred calls."""

import asyncio

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ToolDenied
from pydantic_ai.models.test import TestModel

agent = Agent(TestModel(), output_type=[str, DeferredToolRequests])


@agent.tool_plain(requires_approval=True)
def a(x: int) -> int:
    return x


@agent.tool_plain(requires_approval=True)
def b(x: int) -> int:
    return x


r = agent.run_sync('x')
assert isinstance(r.output, DeferredToolRequests)
ids = [c.tool_call_id for c in r.output.approvals]


async def main():
    async with agent.iter(
        message_history=r.all_messages(),
        deferred_tool_results=DeferredToolResults(
            approvals={ids[0]: True, ids[1]: ToolDenied('no')}, metadata={ids[0]: {'m': 1}}
        ),
    ) as run:
        async for node in run:
            if Agent.is_call_tools_node(node):
                print(node.tool_call_results, node.tool_call_metadata, node.user_prompt)
                break


asyncio.run(main())
