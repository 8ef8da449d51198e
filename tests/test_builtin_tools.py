"""Builtin tools: the data classes, what a model is sent, support checks, their parts in histories and UIs."""

from __future__ import annotations

import json
import warnings
from collections.abc import AsyncIterator
from datetime import UTC
from typing import Any

import pytest
from dirty_equals import IsNow, IsStr
from inline_snapshot import snapshot
from pydantic import TypeAdapter
from pydantic_ai import (
    Agent,
    BuiltinToolCallPart,
    BuiltinToolReturnPart,
    CodeExecutionTool,
    FilePart,
    FileSearchTool,
    ImageGenerationTool,
    MCPServerTool,
    MemoryTool,
    ModelRequest,
    ModelResponse,
    RunContext,
    TextPart,
    UrlContextTool,
    UserError,
    UserPromptPart,
    WebFetchTool,
    WebSearchTool,
)
from pydantic_ai.builtin_tools import BUILTIN_TOOL_TYPES, AbstractBuiltinTool
from pydantic_ai.messages import (
    BinaryContent,
    BinaryImage,
    BuiltinToolCallEvent,  # pyright: ignore[reportDeprecated] -- its deprecation is tested
    BuiltinToolResultEvent,  # pyright: ignore[reportDeprecated] -- its deprecation is tested
    ModelMessage,
    ModelMessagesTypeAdapter,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    RequestUsage,
    ToolCallPartDelta,
)
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import SUPPORTED_BUILTIN_TOOLS, TestModel
from pydantic_ai.profiles import ModelProfile
from pydantic_ai.ui import NativeEvent
from pydantic_ai.ui.vercel_ai import VercelAIAdapter, VercelAIEventStream
from pydantic_ai.ui.vercel_ai.request_types import SubmitMessage, TextUIPart, UIMessage

pytestmark = pytest.mark.anyio

IS_NOW: Any = IsNow(tz=UTC)
IS_STR: Any = IsStr()


def test_tool_classes():
    tools = [
        WebSearchTool(),
        CodeExecutionTool(),
        WebFetchTool(max_uses=2),
        ImageGenerationTool(),
        MemoryTool(),
        MCPServerTool(id='srv', url='https://mcp.example.com'),
        FileSearchTool(file_store_ids=['store']),
    ]
    assert [(t.kind, t.unique_id, t.label) for t in tools] == snapshot(
        [
            ('web_search', 'web_search', 'Web Search'),
            ('code_execution', 'code_execution', 'Code Execution'),
            ('web_fetch', 'web_fetch', 'Web Fetch'),
            ('image_generation', 'image_generation', 'Image Generation'),
            ('memory', 'memory', 'Memory'),
            ('mcp_server', 'mcp_server:srv', 'MCP: srv'),
            ('file_search', 'file_search', 'File Search'),
        ]
    )
    assert repr(WebSearchTool(max_uses=1)) == snapshot(
        "WebSearchTool(kind='web_search', search_context_size='medium', user_location=None, blocked_domains=None, "
        'allowed_domains=None, max_uses=1)'
    )
    assert SUPPORTED_BUILTIN_TOOLS == frozenset(BUILTIN_TOOL_TYPES.values()) - {UrlContextTool}


def test_url_context_tool_is_deprecated():
    with pytest.warns(DeprecationWarning, match=r'^Use `WebFetchTool` instead\.$'):
        tool = UrlContextTool()
    assert isinstance(tool, WebFetchTool)
    assert (tool.kind, tool.label) == ('url_context', 'Url Context')


def test_tools_round_trip_as_json():
    adapter = TypeAdapter(list[AbstractBuiltinTool])
    tools: list[AbstractBuiltinTool] = [
        CodeExecutionTool(),
        MCPServerTool(id='a', url='b', headers={'x': 'y'}),
        WebSearchTool(max_uses=3),
    ]
    dumped = adapter.dump_json(tools)
    assert json.loads(dumped)[1] == snapshot(
        {
            'kind': 'mcp_server',
            'id': 'a',
            'url': 'b',
            'authorization_token': None,
            'description': None,
            'allowed_tools': None,
            'headers': {'x': 'y'},
        }
    )
    assert adapter.validate_json(dumped) == tools


def respond_with_builtin_parts(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(
        parts=[
            BuiltinToolCallPart('web_search', {'query': 'x'}, 'call_1', provider_name='function'),
            BuiltinToolReturnPart('web_search', {'results': ['a']}, 'call_1', provider_name='function'),
            FilePart(BinaryImage(data=b'\x89PNG', media_type='image/png')),
            TextPart('found'),
        ]
    )


async def test_builtin_parts_in_history():
    agent = Agent(FunctionModel(respond_with_builtin_parts), builtin_tools=[WebSearchTool()])
    result = await agent.run('search')
    assert result.all_messages() == snapshot(
        [
            ModelRequest(parts=[UserPromptPart(content='search', timestamp=IS_NOW)], timestamp=IS_NOW, run_id=IS_STR),
            ModelResponse(
                parts=[
                    BuiltinToolCallPart(
                        tool_name='web_search', args={'query': 'x'}, tool_call_id='call_1', provider_name='function'
                    ),
                    BuiltinToolReturnPart(
                        tool_name='web_search',
                        content={'results': ['a']},
                        tool_call_id='call_1',
                        timestamp=IS_NOW,
                        provider_name='function',
                    ),
                    FilePart(content=BinaryImage(data=b'\x89PNG', media_type='image/png')),
                    TextPart(content='found'),
                ],
                usage=RequestUsage(input_tokens=51, output_tokens=15),
                model_name='function:respond_with_builtin_parts:',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
        ]
    )
    response = result.response
    call, returned = response.parts[0], response.parts[1]
    assert response.builtin_tool_calls == [(call, returned)]
    assert response.files == response.images == [BinaryImage(data=b'\x89PNG', media_type='image/png')]
    assert ModelMessagesTypeAdapter.validate_json(result.all_messages_json()) == result.all_messages()


def test_response_files_and_unanswered_builtin_calls():
    pdf = BinaryContent(data=b'%PDF', media_type='application/pdf')
    response = ModelResponse(
        parts=[FilePart(pdf, id='f1'), BuiltinToolCallPart('code_execution', None, 'c1')], model_name='m'
    )
    assert (response.files, response.images, response.builtin_tool_calls) == ([pdf], [], [])
    assert FilePart(pdf).has_content() and not FilePart(BinaryContent(data=b'', media_type='text/plain')).has_content()


async def test_agent_and_run_tools_merged_by_unique_id():
    seen: list[list[AbstractBuiltinTool]] = []

    def record(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info.model_request_parameters.builtin_tools)
        return ModelResponse(parts=[TextPart('ok')])

    def maybe_code(ctx: RunContext[int]) -> CodeExecutionTool | None:
        return CodeExecutionTool() if ctx.deps else None

    async def mcp(ctx: RunContext[int]) -> MCPServerTool:
        return MCPServerTool(id=str(ctx.deps), url='https://example.com')

    agent = Agent(FunctionModel(record), deps_type=int, builtin_tools=[WebSearchTool(), maybe_code])
    await agent.run('x', deps=0)
    await agent.run('x', deps=1, builtin_tools=[mcp, WebSearchTool(max_uses=3)])
    assert seen == snapshot(
        [
            [WebSearchTool()],
            [WebSearchTool(max_uses=3), CodeExecutionTool(), MCPServerTool(id='1', url='https://example.com')],
        ]
    )


async def test_unsupported_tools_are_refused():
    profile = ModelProfile(supported_builtin_tools=frozenset({WebSearchTool, WebFetchTool}))
    agent = Agent(FunctionModel(respond_with_builtin_parts, profile=profile))
    with pytest.raises(UserError) as exc_info:
        await agent.run('x', builtin_tools=[MemoryTool(), WebSearchTool(), CodeExecutionTool()])
    assert str(exc_info.value) == snapshot(
        "Builtin tool(s) ['MemoryTool', 'CodeExecutionTool'] not supported by this model. "
        "Supported: ['WebFetchTool', 'WebSearchTool']"
    )
    # A subclass of a supported tool is supported.
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        assert (await agent.run('x', builtin_tools=[UrlContextTool()])).output == 'found'
    with pytest.raises(UserError, match=r'^TestModel does not support built-in tools$'):
        await Agent(TestModel(), builtin_tools=[WebSearchTool()]).run('x')


async def test_models_without_builtin_support():
    class Plain(Model):
        async def request(
            self, messages: list[ModelMessage], model_settings: Any, model_request_parameters: ModelRequestParameters
        ) -> ModelResponse:
            raise NotImplementedError

        @property
        def model_name(self) -> str:
            return 'plain'

        @property
        def system(self) -> str:
            return 'plain'

    assert Plain.supported_builtin_tools() == frozenset()
    assert FunctionModel.supported_builtin_tools() == TestModel.supported_builtin_tools() == SUPPORTED_BUILTIN_TOOLS
    with pytest.raises(UserError, match=r"^Builtin tool\(s\) \['WebSearchTool'\] not supported by this model\. "):
        Plain().prepare_request(None, ModelRequestParameters(builtin_tools=[WebSearchTool()]))


def test_deprecated_events():
    part = BuiltinToolCallPart('web_search', None, 'c1')
    with pytest.warns(DeprecationWarning, match='`BuiltinToolCallEvent` is deprecated'):
        call_event = BuiltinToolCallEvent(part)  # pyright: ignore[reportDeprecated] -- testing the deprecation
    returned = BuiltinToolReturnPart('web_search', 'done', 'c1')
    with pytest.warns(DeprecationWarning, match='`BuiltinToolResultEvent` is deprecated'):
        result_event = BuiltinToolResultEvent(returned)  # pyright: ignore[reportDeprecated] -- testing the deprecation
    assert (call_event.event_kind, result_event.event_kind) == ('builtin_tool_call', 'builtin_tool_result')


def test_tool_call_delta_applies_to_builtin_calls():
    part = ToolCallPartDelta(args_delta='{"a": 1}').apply(BuiltinToolCallPart('code_execution', '', 'c1'))
    assert part == BuiltinToolCallPart('code_execution', '{"a": 1}', 'c1')


async def builtin_events() -> AsyncIterator[NativeEvent]:
    call = BuiltinToolCallPart('code_execution', '', 'call_2', provider_name='openai', id='p1')
    yield PartStartEvent(index=0, part=call)
    yield PartDeltaEvent(index=0, delta=ToolCallPartDelta(args_delta='{"code": "1+1"}'))
    yield PartEndEvent(index=0, part=BuiltinToolCallPart('code_execution', '{"code": "1+1"}', 'call_2'))
    yield PartStartEvent(index=1, part=BuiltinToolReturnPart('code_execution', 'printed 2', 'call_2'))
    yield PartEndEvent(index=1, part=BuiltinToolReturnPart('code_execution', 'printed 2', 'call_2'))
    yield PartStartEvent(index=2, part=FilePart(BinaryImage(data=b'\x89PNG', media_type='image/png')))


async def test_vercel_chunks_for_builtin_calls_and_files():
    request = SubmitMessage(
        id='req', messages=[UIMessage(id='m1', role='user', parts=[TextUIPart(text='hi')])], trigger='submit-message'
    )
    stream = VercelAIEventStream(request)
    encoded = [stream.encode_event(chunk) async for chunk in stream.transform_stream(builtin_events())]
    assert [json.loads(e.removeprefix('data: ')) for e in encoded[:-1]] == snapshot(
        [
            {'type': 'start'},
            {'type': 'start-step'},
            {
                'type': 'tool-input-start',
                'toolCallId': 'call_2',
                'toolName': 'code_execution',
                'providerExecuted': True,
                'providerMetadata': {'pydantic_ai': {'id': 'p1', 'provider_name': 'openai'}},
            },
            {'type': 'tool-input-delta', 'toolCallId': 'call_2', 'inputTextDelta': '{"code": "1+1"}'},
            {
                'type': 'tool-input-available',
                'toolCallId': 'call_2',
                'toolName': 'code_execution',
                'input': {'code': '1+1'},
                'providerExecuted': True,
            },
            {'type': 'tool-output-available', 'toolCallId': 'call_2', 'output': 'printed 2', 'providerExecuted': True},
            {'type': 'file', 'url': 'data:image/png;base64,iVBORw==', 'mediaType': 'image/png'},
            {'type': 'finish-step'},
            {'type': 'finish'},
        ]
    )


def test_vercel_dump_and_load_builtin_parts_and_files():
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('search')]),
        ModelResponse(
            parts=[
                BuiltinToolCallPart('web_search', {'query': 'x'}, 'call_1', provider_name='openai'),
                BuiltinToolReturnPart('web_search', {'results': ['a']}, 'call_1', provider_name='openai'),
                BuiltinToolCallPart('code_execution', 'not json', 'call_2', id='p2'),
                BuiltinToolReturnPart('memory', 'orphan', 'call_3', provider_details={'k': 1}),
                FilePart(BinaryImage(data=b'\x89PNG', media_type='image/png')),
            ]
        ),
    ]
    dumped = VercelAIAdapter.dump_messages(history)
    assert [p.model_dump(by_alias=True, exclude_none=True) for p in dumped[1].parts] == snapshot(
        [
            {
                'type': 'tool-web_search',
                'toolCallId': 'call_1',
                'state': 'output-available',
                'input': '{"query":"x"}',
                'output': '{"results":["a"]}',
                'providerExecuted': True,
                'callProviderMetadata': {
                    'pydantic_ai': {
                        'call_meta': {'provider_name': 'openai'},
                        'return_meta': {'provider_name': 'openai'},
                    }
                },
            },
            {
                'type': 'tool-code_execution',
                'toolCallId': 'call_2',
                'state': 'input-available',
                'input': 'not json',
                'providerExecuted': True,
                'callProviderMetadata': {'pydantic_ai': {'call_meta': {'id': 'p2'}}},
            },
            {
                'type': 'tool-memory',
                'toolCallId': 'call_3',
                'state': 'output-available',
                'input': '{}',
                'output': 'orphan',
                'providerExecuted': True,
                'callProviderMetadata': {
                    'pydantic_ai': {'call_meta': {}, 'return_meta': {'provider_details': {'k': 1}}}
                },
            },
            {'type': 'file', 'mediaType': 'image/png', 'url': 'data:image/png;base64,iVBORw=='},
        ]
    )
    loaded = VercelAIAdapter.load_messages(dumped)
    assert loaded[1:] == snapshot(
        [
            ModelResponse(
                parts=[
                    BuiltinToolCallPart(
                        tool_name='web_search', args={'query': 'x'}, tool_call_id='call_1', provider_name='openai'
                    ),
                    BuiltinToolReturnPart(
                        tool_name='web_search',
                        content='{"results":["a"]}',
                        tool_call_id='call_1',
                        timestamp=IS_NOW,
                        provider_name='openai',
                    ),
                    BuiltinToolCallPart(tool_name='code_execution', args='not json', tool_call_id='call_2', id='p2'),
                    BuiltinToolCallPart(tool_name='memory', args={}, tool_call_id='call_3'),
                    BuiltinToolReturnPart(
                        tool_name='memory',
                        content='orphan',
                        tool_call_id='call_3',
                        timestamp=IS_NOW,
                        provider_details={'k': 1},
                    ),
                    FilePart(content=BinaryImage(data=b'\x89PNG', media_type='image/png')),
                ],
                timestamp=IS_NOW,
            )
        ]
    )
