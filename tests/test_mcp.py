"""MCP servers as toolsets, against our test server over stdio, streamable HTTP and SSE (no protocol mocks)."""

from __future__ import annotations

import base64
import json
import sys
import warnings
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from dirty_equals import IsNow, IsStr
from inline_snapshot import snapshot
from mcp.shared.context import RequestContext
from mcp.types import ElicitRequestParams, ElicitResult, Implementation, LoggingMessageNotificationParams
from pydantic_ai import Agent, BinaryContent, BinaryImage, ImageUrl, ModelRetry, RunContext, ToolReturn, UserError
from pydantic_ai.mcp import (
    CallToolFunc,
    MCPError,
    MCPServer,
    MCPServerSSE,
    MCPServerStdio,
    MCPServerStreamableHTTP,
    Resource,
    ResourceAnnotations,
    ResourceTemplate,
    ServerCapabilities,
    ToolResult,
    load_mcp_servers,
)
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from .mcp_servers import SERVER, eventually, http_server

pytestmark = pytest.mark.anyio
IS_NOW: Any = IsNow(tz=UTC)
IS_STR: Any = IsStr()

PNG = BinaryImage(
    data=base64.b64decode(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='
    ),
    media_type='image/png',
)


def stdio(**kwargs: Any) -> MCPServerStdio:
    return MCPServerStdio(sys.executable, [SERVER], timeout=30, **kwargs)


@pytest.fixture(scope='module')
def streamable_url() -> Iterator[str]:
    with http_server('streamable-http') as url:
        yield url


@pytest.fixture(scope='module')
def sse_url() -> Iterator[str]:
    with http_server('sse') as url:
        yield url


def tool_results(messages: list[ModelMessage]) -> list[Any]:
    """The contents of the tool returns sent back to the model after its first response."""
    request = messages[2]
    assert isinstance(request, ModelRequest)
    return [part.content for part in request.parts if isinstance(part, ToolReturnPart)]


def call_once(*calls: tuple[str, dict[str, Any]]) -> FunctionModel:
    """A model that makes the calls in its first response and then answers 'done'."""

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart(name, args) for name, args in calls])
        return ModelResponse(parts=[TextPart('done')])

    return FunctionModel(model)


async def test_stdio_results_as_upstream_maps_them() -> None:
    server = stdio()
    async with server:
        assert server.is_running
        results = {
            name: await server.direct_call_tool(name, args)
            for name, args in [
                ('add', {'a': 1, 'b': 2}),
                ('get_weather', {'city': 'Paris'}),
                ('wrapped', {'value': 5}),
                ('echo', {'text': 'hi'}),
                ('json_text', {}),
                ('image', {}),
                ('audio', {}),
                ('text_and_image', {}),
                ('embedded', {}),
                ('link', {}),
            ]
        }
    assert not server.is_running
    assert results == snapshot(
        {
            'add': 3,
            'get_weather': {'city': 'Paris', 'temperature': 21.5, 'conditions': 'sunny'},
            'wrapped': 5,
            'echo': 'hi',
            'json_text': {'a': 1, 'b': [2, 3]},
            'image': PNG,
            'audio': BinaryContent(data=b'RIFF', media_type='audio/wav'),
            'text_and_image': ['Here is the image:', PNG],
            'embedded': ['buy milk', PNG],
            'link': 'buy milk',
        }
    )


async def test_agent_run_with_files_and_a_failing_tool() -> None:
    agent = Agent(call_once(('image', {}), ('fail', {'message': 'boom'}), ('echo', {'text': 'hi'})), toolsets=[stdio()])
    result = await agent.run('go')
    assert result.all_messages()[2] == snapshot(
        ModelRequest(
            parts=[
                ToolReturnPart(tool_name='image', content='See file c7a9c4', tool_call_id=IS_STR, timestamp=IS_NOW),
                RetryPromptPart(
                    content='Error executing tool fail: boom',
                    tool_name='fail',
                    tool_call_id=IS_STR,
                    timestamp=IS_NOW,
                ),
                ToolReturnPart(tool_name='echo', content='hi', tool_call_id=IS_STR, timestamp=IS_NOW),
                UserPromptPart(content=['This is file c7a9c4:', PNG], timestamp=IS_NOW),
            ],
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )


async def test_tool_definitions_prefix_and_retries() -> None:
    seen: dict[str, Any] = {}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.update({tool.name: tool for tool in info.function_tools})
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart('notes_fail', {'message': 'again'})])
        return ModelResponse(parts=[TextPart('done')])

    server = stdio(tool_prefix='notes', max_retries=0)
    assert server.id == 'notes'
    agent = Agent(FunctionModel(model), toolsets=[server])
    with pytest.raises(Exception, match="Tool 'notes_fail' exceeded max retries count of 0"):
        await agent.run('go')
    read_note = seen['notes_read_note']
    assert (read_note.description, read_note.metadata) == snapshot(
        (
            'Read a note.',
            {
                'meta': None,
                'annotations': {
                    'title': None,
                    'readOnlyHint': True,
                    'destructiveHint': None,
                    'idempotentHint': None,
                    'openWorldHint': None,
                },
                'output_schema': {
                    'properties': {'result': {'title': 'Result', 'type': 'string'}},
                    'required': ['result'],
                    'title': 'read_noteOutput',
                    'type': 'object',
                },
            },
        )
    )


async def test_server_info_capabilities_instructions_and_resources() -> None:
    server = stdio(client_info=Implementation(name='tests', version='1.0'))
    for attr in ('server_info', 'capabilities', 'instructions'):
        with pytest.raises(AttributeError, match=f'`MCPServerStdio.{attr}` is only'):
            getattr(server, attr)
    async with server:
        assert server.server_info.name == 'test-server'
        assert server.capabilities == ServerCapabilities(logging=True, prompts=True, resources=True, tools=True)
        assert server.instructions == 'Use these tools to test the MCP client.'
        resources = await server.list_resources()
        assert resources == snapshot(
            [Resource(name='todo_note', description='The todo note.', mime_type='text/plain', uri='note://todo')]
        )
        assert await server.list_resources() is resources
        assert await server.list_resource_templates() == snapshot(
            [
                ResourceTemplate(
                    name='any_note', description='A note by name.', mime_type='text/plain', uri_template='note://{name}'
                )
            ]
        )
        assert await server.read_resource(resources[0]) == 'buy milk'
        assert await server.read_resource('note://nothing') == ''
        with pytest.raises(MCPError, match='Unknown resource: file:///missing') as exc_info:
            await server.read_resource('file:///missing')
        assert exc_info.value.code == 0


def test_sdk_conversions() -> None:
    from mcp import types as mcp_types

    resource = mcp_types.Resource(
        uri='file:///a.txt',  # pyright: ignore[reportArgumentType] (the SDK validates the string)
        name='a',
        size=3,
        annotations=mcp_types.Annotations(audience=['user'], priority=0.5),
    )
    assert Resource.from_mcp_sdk(resource) == snapshot(
        Resource(
            name='a',
            annotations=ResourceAnnotations(audience=['user'], priority=0.5),
            uri='file:///a.txt',
            size=3,
        )
    )
    caps = mcp_types.ServerCapabilities(
        experimental={'x': {}},
        tools=mcp_types.ToolsCapability(listChanged=True),
        resources=mcp_types.ResourcesCapability(listChanged=True),
        prompts=mcp_types.PromptsCapability(listChanged=True),
        completions=mcp_types.CompletionsCapability(),
    )
    assert repr(ServerCapabilities.from_mcp_sdk(caps)) == snapshot(
        "ServerCapabilities(experimental=['x'], prompts=True, prompts_list_changed=True, resources=True, "
        'resources_list_changed=True, tools=True, tools_list_changed=True, completions=True)'
    )
    error = MCPError('Not found', -32002, {'uri': 'x'})
    assert (str(error), error.code, error.data) == ('Not found', -32002, {'uri': 'x'})


async def test_streamable_http(streamable_url: str) -> None:
    server = MCPServerStreamableHTTP(streamable_url, headers={'X-Test': '1'}, timeout=30)
    assert repr(server) == f'MCPServerStreamableHTTP(url={streamable_url!r})'
    agent = Agent(call_once(('add', {'a': 2, 'b': 3}), ('get_weather', {'city': 'Oslo'})), toolsets=[server])
    result = await agent.run('go')
    assert tool_results(result.all_messages()) == snapshot(
        [5, {'city': 'Oslo', 'temperature': 21.5, 'conditions': 'sunny'}]
    )
    async with httpx.AsyncClient(timeout=30) as client:
        own_client = MCPServerStreamableHTTP(streamable_url, http_client=client, id='own')
        assert await own_client.direct_call_tool('echo', {'text': 'via own client'}) == 'via own client'
        assert not client.is_closed


async def test_sse(sse_url: str) -> None:
    server = MCPServerSSE(sse_url, timeout=30, tool_prefix='sse')
    assert repr(server) == f"MCPServerSSE(url={sse_url!r}, id='sse')"
    result = await Agent(call_once(('sse_add', {'a': 1, 'b': 1})), toolsets=[server]).run('go')
    assert tool_results(result.all_messages())[0] == 2
    # The SSE transport opens (and closes) the client it is given.
    own_client = MCPServerSSE(sse_url, http_client=httpx.AsyncClient(timeout=30))
    assert await own_client.direct_call_tool('echo', {'text': 'sse'}) == 'sse'


def test_http_arguments() -> None:
    with pytest.raises(ValueError, match='`headers` and `http_client` are mutually exclusive'):
        MCPServerStreamableHTTP('http://127.0.0.1:1/mcp', headers={}, http_client=httpx.AsyncClient())
    with pytest.warns(DeprecationWarning, match="'sse_read_timeout' is deprecated"):
        server = MCPServerSSE('http://127.0.0.1:1/sse', sse_read_timeout=12)
    assert server.read_timeout == 12
    with pytest.raises(TypeError, match="'read_timeout' and 'sse_read_timeout' cannot both be set"):
        MCPServerSSE('http://127.0.0.1:1/sse', read_timeout=1, sse_read_timeout=12)
    with pytest.raises(TypeError, match='Unexpected keyword arguments: nonsense'):
        MCPServerSSE('http://127.0.0.1:1/sse', nonsense=1)


async def test_sampling_through_the_agent_model() -> None:
    sampled: list[ModelMessage] = []

    def sampler(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sampled.extend(messages)
        assert info.model_settings == {'max_tokens': 100}
        return ModelResponse(parts=[TextPart('a summary')])

    server = stdio()
    agent = Agent(FunctionModel(sampler), toolsets=[server])
    agent.set_mcp_sampling_model()
    async with agent:
        assert await server.direct_call_tool('summarize', {'text': 'a long text'}) == 'a summary'
    assert sampled == snapshot(
        [
            ModelRequest(
                parts=[
                    SystemPromptPart(content='Summarize.', timestamp=IS_NOW),
                    UserPromptPart(content='a long text', timestamp=IS_NOW),
                ]
            )
        ]
    )
    with pytest.raises(ModelRetry, match='Error executing tool summarize: Sampling not supported'):
        await stdio(allow_sampling=False).direct_call_tool('summarize', {'text': 'x'})


async def test_sampling_a_conversation() -> None:
    sampled: list[tuple[list[ModelMessage], Any]] = []

    def sampler(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sampled.append((messages, info.model_settings))
        return ModelResponse(parts=[TextPart('Nice picture.')])

    server = stdio(sampling_model=FunctionModel(sampler, model_name='sampler'))
    assert await server.direct_call_tool('chat', {}) == 'sampler: Nice picture.'
    assert sampled == snapshot(
        [
            (
                [
                    ModelRequest(parts=[UserPromptPart(content='Hello', timestamp=IS_NOW)]),
                    ModelResponse(parts=[TextPart(content='Hi!')], timestamp=IS_NOW),
                    ModelRequest(parts=[UserPromptPart(content=[PNG], timestamp=IS_NOW)]),
                ],
                {'max_tokens': 50, 'temperature': 0.5, 'stop_sequences': ['END']},
            )
        ]
    )


async def test_resource_list_changes() -> None:
    server = stdio()
    async with server:
        before = await server.list_resources()
        assert await server.direct_call_tool('add_resource', {'name': 'extra'}) == 'added'

        async def listed() -> bool:
            return len(await server.list_resources()) > len(before)

        await eventually(listed)
        assert [resource.uri for resource in await server.list_resources()] == ['note://todo', 'note://added/extra']


async def test_sampling_without_a_model_is_an_error_for_the_server() -> None:
    with pytest.raises(ModelRetry, match='Error executing tool summarize: Invalid request parameters'):
        await stdio().direct_call_tool('summarize', {'text': 'x'})


async def test_elicitation_logging_and_tool_list_changes() -> None:
    asked: list[str] = []
    logged: list[Any] = []

    async def elicit(context: RequestContext[Any, Any], params: ElicitRequestParams) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action='accept', content={'confirm': True})

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logged.append((params.level, params.data))

    server = stdio(elicitation_callback=elicit, log_handler=on_log, log_level='debug')
    async with server:
        assert await server.direct_call_tool('ask', {'question': 'Sure?'}) == 'confirmed=True'
        assert await server.direct_call_tool('log', {'message': 'hello'}) == 'logged'
        before = {tool.name for tool in await server.list_tools()}
        assert await server.direct_call_tool('add_tool', {'name': 'added'}) == 'added'

        async def listed() -> bool:
            return 'added' in {tool.name for tool in await server.list_tools()}

        await eventually(listed)
        assert {tool.name for tool in await server.list_tools()} - before == {'added'}
    assert asked == ['Sure?']
    assert logged == [('info', 'hello')]
    with pytest.raises(ModelRetry, match='Elicitation not supported'):
        await stdio().direct_call_tool('ask', {'question': 'Sure?'})


async def test_uncached_tools_are_listed_each_time() -> None:
    server = stdio(cache_tools=False, cache_resources=False)
    async with server:
        first = await server.list_tools()
        assert await server.list_tools() is not first
        assert await server.list_resources() is not await server.list_resources()


async def test_process_tool_call_sees_the_run_context() -> None:
    seen: list[tuple[str, dict[str, Any], str | None]] = []

    async def process(ctx: RunContext[Any], call_tool: CallToolFunc, name: str, args: dict[str, Any]) -> ToolResult:
        seen.append((name, args, ctx.tool_name))
        return await call_tool(name, {'text': args['text'].upper()}, {'trace': 'abc'})

    agent = Agent(call_once(('p_echo', {'text': 'hi'})), toolsets=[stdio(process_tool_call=process, tool_prefix='p')])
    result = await agent.run('go')
    assert tool_results(result.all_messages())[0] == 'HI'
    assert seen == [('echo', {'text': 'hi'}, 'p_echo')]


async def test_cancelled_call_cancels_the_tool_on_the_server(tmp_path: Path) -> None:
    marker = tmp_path / 'marker'
    server = stdio()
    async with server:
        with anyio.move_on_after(1):
            await server.direct_call_tool('slow', {'seconds': 60, 'marker': str(marker)})

        async def cancelled() -> bool:
            return marker.exists()

        await eventually(cancelled)
        assert marker.read_text() == 'cancelled'
        # The session is still usable after the cancelled call.
        assert await server.direct_call_tool('slow', {'seconds': 0}) == 'done'


async def test_read_timeout_becomes_a_retry() -> None:
    with pytest.raises(ModelRetry, match='Timed out while waiting for response'):
        await stdio(read_timeout=3).direct_call_tool('slow', {'seconds': 30})


async def test_agent_entry_keeps_servers_running_across_runs() -> None:
    server = stdio()
    agent = Agent(TestModel(call_tools=['pid']), toolsets=[server])
    async with agent:
        first = await agent.run('x')
        async with agent:
            second = await agent.run('x')
        assert server.is_running
    assert not server.is_running
    assert first.output == second.output
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        async with agent.run_mcp_servers(TestModel()):
            assert server.is_running
    assert isinstance(server.sampling_model, TestModel)
    with pytest.raises(UserError, match=r'No sampling model provided and no model set on the agent\.'):
        Agent(toolsets=[server]).set_mcp_sampling_model()
    Agent(toolsets=[server]).set_mcp_sampling_model('test')
    assert isinstance(server.sampling_model, TestModel)


async def test_exit_without_entry_is_harmless() -> None:
    server = stdio()
    assert await server.__aexit__(None, None, None) is None
    assert not server.is_running


def test_load_mcp_servers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('MCP_TEST_TOKEN', 'secret')
    config = {
        'mcpServers': {
            'local': {'command': sys.executable, 'args': [SERVER], 'env': {'TOKEN': '${MCP_TEST_TOKEN}'}},
            'remote': {'url': 'http://127.0.0.1:1/mcp', 'headers': {'Authorization': 'Bearer ${MCP_TEST_TOKEN}'}},
            'legacy': {'url': '${MCP_TEST_HOST:-http://127.0.0.1:1}/sse', 'headers': None},
        }
    }
    path = tmp_path / 'mcp.json'
    path.write_text(json.dumps(config))
    servers = load_mcp_servers(path)
    assert [repr(server).replace(sys.executable, 'PYTHON') for server in servers] == snapshot(
        [
            "MCPServerStdio(command='PYTHON', args=['" + SERVER + "'], id='local')",
            "MCPServerStreamableHTTP(url='http://127.0.0.1:1/mcp', id='remote')",
            "MCPServerSSE(url='http://127.0.0.1:1/sse', id='legacy')",
        ]
    )
    local, remote, _ = servers
    assert isinstance(local, MCPServerStdio) and local.env == {'TOKEN': 'secret'}
    assert isinstance(remote, MCPServerStreamableHTTP) and remote.headers == {'Authorization': 'Bearer secret'}
    path.write_text(json.dumps({'mcpServers': {'a': {'command': '${MCP_TEST_MISSING}', 'args': []}}}))
    with pytest.raises(ValueError, match=r'Environment variable \$\{MCP_TEST_MISSING\} is not defined'):
        load_mcp_servers(path)
    with pytest.raises(FileNotFoundError, match=r'Config file .* not found'):
        load_mcp_servers(tmp_path / 'missing.json')


async def test_servers_are_toolsets() -> None:
    server = stdio()
    assert isinstance(server, MCPServer)
    visited: list[Any] = []
    server.prefixed('x').apply(visited.append)
    assert visited == [server]
    assert server.tool_name_conflict_hint == 'Set the `tool_prefix` attribute to avoid name conflicts.'
    server.id = 'renamed'
    assert server.label == repr(server).replace("id='renamed'", "id='renamed'")


async def test_files_in_function_tool_results_go_to_a_user_part() -> None:
    def files() -> list[Any]:
        return ['text', BinaryContent(data=b'abc', media_type='audio/wav')]

    def url() -> ImageUrl:
        return ImageUrl('https://example.com/a.png')

    def wrapped_file() -> ToolReturn:
        return ToolReturn(return_value=[BinaryContent(data=b'x', media_type='image/png')])

    result = await Agent(call_once(('files', {}), ('url', {})), tools=[files, url]).run('go')
    assert result.all_messages()[2] == snapshot(
        ModelRequest(
            parts=[
                ToolReturnPart(
                    tool_name='files', content=['text', 'See file a9993e'], tool_call_id=IS_STR, timestamp=IS_NOW
                ),
                ToolReturnPart(tool_name='url', content='See file b86daf', tool_call_id=IS_STR, timestamp=IS_NOW),
                UserPromptPart(
                    content=['This is file a9993e:', BinaryContent(data=b'abc', media_type='audio/wav')],
                    timestamp=IS_NOW,
                ),
                UserPromptPart(
                    content=['This is file b86daf:', ImageUrl(url='https://example.com/a.png')], timestamp=IS_NOW
                ),
            ],
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )
    with pytest.raises(UserError, match="The `return_value` of tool 'wrapped_file' contains invalid nested"):
        await Agent(call_once(('wrapped_file', {})), tools=[wrapped_file]).run('go')
