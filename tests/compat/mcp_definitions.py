"""MCP tool definitions as the model sees them, prefixes, ids, reprs, direct-call errors, conflicts and agent entry."""

import asyncio
import sys
import warnings
from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.mcp import (
    MCPServerHTTP,  # pyright: ignore[reportDeprecated] (the alias is checked)
    MCPServerSSE,
    MCPServerStdio,
    MCPServerStreamableHTTP,
)
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

SERVER = str(Path(__file__).parent.parent / 'mcp_servers' / 'server.py')


def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    for tool in info.function_tools:
        if tool.name in ('mcp_add', 'mcp_read_note', 'mcp_echo', 'mcp_delete_note', 'mcp_get_weather'):
            print(repr(tool))
    return ModelResponse(parts=[TextPart('done')])


def show(server: object) -> None:
    print(repr(server).replace(sys.executable, 'PYTHON'))


async def main() -> None:
    server = MCPServerStdio(sys.executable, [SERVER], timeout=20, tool_prefix='mcp', max_retries=3)
    show(server)
    print(server.id, server.tool_prefix, server.max_retries, server.timeout, server.read_timeout)
    async with server:
        print(repr(await server.direct_call_tool('wrapped', {'value': 5})))
        print(repr(await server.direct_call_tool('json_text', {})))
        for name, args in [('nope', {}), ('add', {'a': 'x'})]:
            try:
                await server.direct_call_tool(name, args)
            except Exception as e:
                print(type(e).__name__, str(e).splitlines()[0])
    agent = Agent(FunctionModel(model), toolsets=[server])
    print((await agent.run('go')).output)
    show(MCPServerStdio(sys.executable, [SERVER], id='notes', tool_prefix='n'))
    http = MCPServerStreamableHTTP('http://127.0.0.1:1/mcp')
    show(http)
    print(http.read_timeout, http.timeout, http.headers, http.http_client)
    show(MCPServerSSE('http://127.0.0.1:1/sse', headers={'a': 'b'}, tool_prefix='x'))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        show(MCPServerHTTP('http://127.0.0.1:1/sse'))  # pyright: ignore[reportDeprecated] (the alias is checked)
    print([(x.category.__name__, str(x.message)) for x in caught])
    print(MCPServerSSE in MCPServerHTTP.__mro__)  # pyright: ignore[reportDeprecated] (the alias is checked)
    for attr in ('server_info', 'capabilities', 'instructions'):
        try:
            getattr(http, attr)
        except AttributeError as e:
            print(e)

    a = MCPServerStdio(sys.executable, [SERVER], timeout=20)
    b = MCPServerStdio(sys.executable, [SERVER], timeout=20)
    agent = Agent(TestModel(), toolsets=[a, b])
    try:
        await agent.run('x')
    except Exception as e:
        print(type(e).__name__, str(e).replace(sys.executable, 'PYTHON'))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        async with agent.run_mcp_servers():
            print(a.is_running, b.is_running)
        print([(x.category.__name__, str(x.message)) for x in caught])
    async with agent:
        print(a.is_running)
        async with agent:
            pass
        print(a.is_running)
    print(a.is_running, a.sampling_model)
    agent.set_mcp_sampling_model()
    print(a.sampling_model is agent.model, b.sampling_model is agent.model)
    agent.set_mcp_sampling_model('test')
    print(a.sampling_model)
    try:
        Agent(toolsets=[a]).set_mcp_sampling_model()
    except Exception as e:
        print(type(e).__name__, e)
    c = MCPServerStdio(sys.executable, [SERVER], timeout=20, tool_prefix='c')
    agent = Agent(TestModel(call_tools=['add', 'c_add']), toolsets=[a, c])
    print((await agent.run('x')).output)


asyncio.run(main())
