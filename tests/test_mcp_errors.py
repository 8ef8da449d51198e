"""Bad input around MCP servers: each gives a clear error and leaves no server process behind."""

from __future__ import annotations

import sys
from datetime import UTC
from typing import Any

import httpx
import pytest
from dirty_equals import IsNow, IsStr
from inline_snapshot import snapshot
from pydantic_ai import Agent, UserError
from pydantic_ai.mcp import MCPError, MCPServerStdio, MCPServerStreamableHTTP
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, RetryPromptPart, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from .mcp_servers import SERVER, eventually, free_port, new_tag, processes_with

pytestmark = pytest.mark.anyio
IS_NOW: Any = IsNow(tz=UTC)
IS_STR: Any = IsStr()
IS_SERVER_ERROR: Any = IsStr(regex=r'(?s)Error executing tool add: 1 validation error for addArguments\na\n.*')


def tagged(*args: str, **kwargs: Any) -> tuple[MCPServerStdio, str]:
    tag = new_tag()
    return MCPServerStdio(sys.executable, [SERVER, *args, tag], **kwargs), tag


async def assert_gone(tag: str) -> None:
    # A killed child may take a moment to leave the process table.
    async def gone() -> bool:
        return not processes_with(tag)

    await eventually(gone)


async def test_server_that_exits_at_start() -> None:
    server, tag = tagged('exit', timeout=30)
    with pytest.raises(MCPError, match=r'failed to start: Connection closed\. Check the command') as exc_info:
        async with server:
            pass  # pragma: no cover
    assert str(exc_info.value) == snapshot(
        f"MCPServerStdio(command={sys.executable!r}, args=[{SERVER!r}, 'exit', {tag!r}]) failed to start: "
        'Connection closed. Check the command, its arguments and its error output.'
    )
    assert not server.is_running
    await assert_gone(tag)


async def test_server_that_never_answers() -> None:
    server, tag = tagged('silent', timeout=0.5)
    with pytest.raises(TimeoutError, match=r'did not answer the initialize request within 0\.5 seconds') as exc_info:
        await Agent(TestModel(), toolsets=[server]).run('x')
    assert str(exc_info.value).endswith(
        'Check that it is an MCP server, or raise `timeout` if it needs longer to start.'
    )
    await assert_gone(tag)


async def test_http_server_that_is_not_there() -> None:
    server = MCPServerStreamableHTTP(f'http://127.0.0.1:{free_port()}/mcp', timeout=5)
    with pytest.raises(httpx.ConnectError):
        await server.list_tools()
    assert not server.is_running


async def test_tool_name_clash_between_two_servers() -> None:
    (first, first_tag), (second, second_tag) = tagged(timeout=30), tagged(timeout=30)
    agent = Agent(TestModel(), toolsets=[first, second])
    with pytest.raises(UserError) as exc_info:
        await agent.run('x')
    assert str(exc_info.value) == snapshot(
        f'{second!r} defines a tool whose name conflicts with existing tool from {first!r}: '
        "'add'. Set the `tool_prefix` attribute to avoid name conflicts."
    )
    await assert_gone(first_tag)
    await assert_gone(second_tag)

    first.tool_prefix, second.tool_prefix = 'one', 'two'
    result = await Agent(TestModel(call_tools=['one_add', 'two_add']), toolsets=[first, second]).run('x')
    assert result.output == snapshot('{"one_add":0,"two_add":0}')
    await assert_gone(first_tag)


async def test_malformed_tool_arguments() -> None:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(
                parts=[
                    ToolCallPart('add', '{"a": 1, "b":', tool_call_id='broken'),
                    ToolCallPart('add', {'a': 'one', 'b': 2}, tool_call_id='wrong'),
                    ToolCallPart('add', '[1, 2]', tool_call_id='not_object'),
                ]
            )
        return ModelResponse(parts=[TextPart('gave up')])

    server, tag = tagged(timeout=30, max_retries=2)
    result = await Agent(FunctionModel(model), toolsets=[server]).run('x')
    assert result.all_messages()[2] == snapshot(
        ModelRequest(
            parts=[
                RetryPromptPart(
                    content=[
                        {
                            'type': 'json_invalid',
                            'loc': (),
                            'msg': 'Invalid JSON: EOF while parsing a value at line 1 column 13',
                            'input': '{"a": 1, "b":',
                        }
                    ],
                    tool_name='add',
                    tool_call_id='broken',
                    timestamp=IS_NOW,
                ),
                RetryPromptPart(
                    content=IS_SERVER_ERROR,
                    tool_name='add',
                    tool_call_id='wrong',
                    timestamp=IS_NOW,
                ),
                RetryPromptPart(
                    content=[
                        {
                            'type': 'dict_type',
                            'loc': (),
                            'msg': 'Input should be an object',
                            'input': [1, 2],
                        }
                    ],
                    tool_name='add',
                    tool_call_id='not_object',
                    timestamp=IS_NOW,
                ),
            ],
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )
    assert result.output == 'gave up'
    await assert_gone(tag)


async def test_a_failing_run_stops_the_server() -> None:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise RuntimeError('the model broke')

    server, tag = tagged(timeout=30)
    with pytest.raises(RuntimeError, match='the model broke'):
        await Agent(FunctionModel(model), toolsets=[server]).run('x')
    assert not server.is_running
    await assert_gone(tag)
