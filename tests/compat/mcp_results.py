"""MCP tool results over stdio on our test server: definitions, direct calls, and what the model sees."""

import asyncio
import sys
from pathlib import Path
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.mcp import MCPServerStdio
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

SERVER = str(Path(__file__).parent.parent / 'mcp_servers' / 'server.py')
CALLS: list[tuple[str, dict[str, Any]]] = [
    ('add', {'a': 1, 'b': 2}),
    ('get_weather', {'city': 'Paris'}),
    ('echo', {'text': 'hi'}),
    ('image', {}),
    ('audio', {}),
    ('text_and_image', {}),
    ('embedded', {}),
    ('link', {}),
    ('fail', {'message': 'boom'}),
    ('read_note', {'name': 'todo'}),
]


def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart(name, args) for name, args in CALLS])
    return ModelResponse(parts=[TextPart('done')])


async def main() -> None:
    server = MCPServerStdio(sys.executable, [SERVER], timeout=20)
    print(repr(server).replace(sys.executable, 'PYTHON'))
    print(server.id, server.tool_prefix, server.is_running, server.label == repr(server))
    async with server:
        print(server.is_running, server.instructions)
        print(server.server_info.name)
        print(server.capabilities)
        for tool in await server.list_tools():
            print(tool.name, tool.annotations, tool.outputSchema is not None)
        for name, args in CALLS:
            try:
                print(name, repr(await server.direct_call_tool(name, args)))
            except Exception as e:
                print(name, type(e).__name__, e)
        for resource in await server.list_resources():
            print(repr(resource))
        for template in await server.list_resource_templates():
            print(repr(template))
        print(repr(await server.read_resource('note://todo')))
    agent = Agent(FunctionModel(model), toolsets=[server])
    async with agent:
        result = await agent.run('go')
    for message in result.all_messages():
        print(repr(message))
    print(server.is_running)


asyncio.run(main())
