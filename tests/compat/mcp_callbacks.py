"""Sampling, elicitation, logging, `process_tool_call` and tool-list invalidation against our test server."""

import asyncio
import sys
from pathlib import Path
from typing import Any

from mcp.types import ElicitResult, LoggingMessageNotificationParams
from pydantic_ai import Agent, RunContext
from pydantic_ai.mcp import CallToolFunc, MCPServerStdio, ToolResult
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

SERVER = str(Path(__file__).parent.parent / 'mcp_servers' / 'server.py')


def sampler(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    for message in messages:
        print('sampling', repr(message))
    print('sampling', info.model_settings, info.function_tools, info.instructions)
    return ModelResponse(parts=[TextPart('short')])


async def elicit(context: Any, params: Any) -> ElicitResult:
    print('elicit', type(context).__name__, repr(params))
    return ElicitResult(action='accept', content={'confirm': True})


async def on_log(params: LoggingMessageNotificationParams) -> None:
    print('log', repr(params))


async def process(ctx: RunContext[Any], call_tool: CallToolFunc, name: str, args: dict[str, Any]) -> ToolResult:
    print('process', type(ctx).__name__, name, args, ctx.tool_call_id is not None)
    return await call_tool(name, args, {'trace': '1'})


async def main() -> None:
    server = MCPServerStdio(
        sys.executable,
        [SERVER],
        timeout=20,
        sampling_model=FunctionModel(sampler),
        elicitation_callback=elicit,
        log_handler=on_log,
        log_level='debug',
        process_tool_call=process,
    )
    async with server:
        print(repr(await server.direct_call_tool('summarize', {'text': 'long text'})))
        print(repr(await server.direct_call_tool('ask', {'question': 'sure?'})))
        print(repr(await server.direct_call_tool('log', {'message': 'hello'})))
        before = await server.list_tools()
        print(repr(await server.direct_call_tool('add_tool', {'name': 'extra'})))
        await asyncio.sleep(0.5)
        after = await server.list_tools()
        print(len(after) - len(before), after[-1].name)
    plain = MCPServerStdio(sys.executable, [SERVER], timeout=20)
    no_sampling = MCPServerStdio(sys.executable, [SERVER], timeout=20, allow_sampling=False)
    for s, tool in [(plain, 'summarize'), (plain, 'ask'), (no_sampling, 'summarize')]:
        try:
            print(repr(await s.direct_call_tool(tool, {'text': 'x', 'question': 'y'})))
        except Exception as e:
            print(type(e).__name__, e)

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart('echo', {'text': 'a'})])
        return ModelResponse(parts=[TextPart('ok')])

    agent = Agent(FunctionModel(model), toolsets=[server])
    print((await agent.run('x')).output)


asyncio.run(main())
