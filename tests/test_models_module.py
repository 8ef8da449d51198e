"""`pydantic_ai.models` helpers, `output_json_schema`, `CallToolsNode` fields, `RequestUsage.extract`, names."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import httpx
import pytest
from inline_snapshot import snapshot
from pydantic import BaseModel
from pydantic_ai import (
    Agent,
    CallToolsNode,
    DeferredToolRequests,
    DeferredToolResults,
    ModelResponse,
    NativeOutput,
    RetryPromptPart,
    TextOutput,
    TextPart,
    ToolApproved,
    ToolDenied,
    ToolOutput,
    ToolReturn,
    UsageLimitExceeded,
    UsageLimits,
    models,
)
from pydantic_ai.agent import WrapperAgent
from pydantic_ai.exceptions import ToolRetryError
from pydantic_ai.messages import DocumentUrl, ImageUrl, ModelMessage
from pydantic_ai.models import (
    DEFAULT_HTTP_TIMEOUT,
    ModelRequestParameters,
    cached_async_http_client,
    check_allow_model_requests,
    download_item,
    get_user_agent,
    infer_model,
    override_allow_model_requests,
)
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.models.instrumented import InstrumentedModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.result import OutputValidatorFunc
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import DeferredToolResult
from pydantic_ai.usage import RequestUsage

pytestmark = pytest.mark.anyio


async def test_allow_model_requests():
    openai_model = OpenAIChatModel('gpt-4o', provider=OpenAIProvider(api_key='k', base_url='http://127.0.0.1:9'))
    with override_allow_model_requests(False):
        assert models.ALLOW_MODEL_REQUESTS is False
        with pytest.raises(
            RuntimeError, match=r'^Model requests are not allowed, since ALLOW_MODEL_REQUESTS is False$'
        ):
            check_allow_model_requests()
        with pytest.raises(RuntimeError, match='ALLOW_MODEL_REQUESTS is False'):
            await Agent(openai_model).run('x')
        # Local test doubles still work.
        assert (await Agent(TestModel()).run('x')).output == 'success (no tool calls)'
        answer = FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart('f')]))
        assert (await Agent(answer).run('x')).output == 'f'
    assert models.ALLOW_MODEL_REQUESTS is True
    check_allow_model_requests()


async def test_http_client_and_user_agent():
    assert get_user_agent() == 'pydantic-ai/1.51.0'
    client = cached_async_http_client()
    assert client is cached_async_http_client()
    assert client is not cached_async_http_client(provider='openai')
    assert client.timeout == httpx.Timeout(timeout=DEFAULT_HTTP_TIMEOUT, connect=5)
    assert client.headers['user-agent'] == 'pydantic-ai/1.51.0'
    await client.aclose()
    assert cached_async_http_client() is not client


FILES = {
    '/a.png': (b'\x89PNG', 'image/png'),
    '/b.txt': (b'hello', 'text/plain; charset=utf-8'),
    '/c.pdf': (b'%PDF', ''),
}


class _Files(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path not in FILES:
            self.send_response(404)
            self.end_headers()
            return
        data, content_type = FILES[self.path]
        self.send_response(200)
        if content_type:
            self.send_header('Content-Type', content_type)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def file_server() -> Iterator[str]:
    server = ThreadingHTTPServer(('127.0.0.1', 0), _Files)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f'http://127.0.0.1:{server.server_address[1]}'
    server.shutdown()
    server.server_close()
    thread.join()


async def test_download_item(file_server: str):
    image = ImageUrl(f'{file_server}/a.png')
    assert await download_item(image) == {'data': b'\x89PNG', 'data_type': 'image/png'}
    assert await download_item(image, 'base64', 'extension') == {'data': 'iVBORw==', 'data_type': 'png'}
    assert await download_item(image, 'base64_uri') == {
        'data': 'data:image/png;base64,iVBORw==',
        'data_type': 'image/png',
    }
    text = DocumentUrl(f'{file_server}/b.txt')
    assert await download_item(text, 'text', 'extension') == {'data': 'hello', 'data_type': 'txt'}
    # Without a content type, the URL's media type applies.
    assert await download_item(DocumentUrl(f'{file_server}/c.pdf')) == {'data': b'%PDF', 'data_type': 'application/pdf'}
    with pytest.raises(UnicodeDecodeError):
        await download_item(image, 'text')
    with pytest.raises(httpx.HTTPStatusError):
        await download_item(ImageUrl(f'{file_server}/missing.png'))
    # The shared client's connections belong to this test's event loop.
    await cached_async_http_client().aclose()


class Counting(FunctionModel):
    async def count_tokens(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> RequestUsage:
        return RequestUsage(input_tokens=7 * len(messages))


async def test_count_tokens_before_request():
    with pytest.raises(
        NotImplementedError, match=r'^Token counting ahead of the request is not supported by TestModel$'
    ):
        await TestModel().count_tokens([], None, ModelRequestParameters())
    with pytest.raises(NotImplementedError, match='not supported by TestModel'):
        await Agent(TestModel()).run('x', usage_limits=UsageLimits(count_tokens_before_request=True))
    agent = Agent(Counting(lambda messages, info: ModelResponse(parts=[TextPart('counted')])))
    result = await agent.run('hello', usage_limits=UsageLimits(count_tokens_before_request=True))
    assert result.usage().input_tokens == 51
    limits = UsageLimits(count_tokens_before_request=True, input_tokens_limit=5)
    with pytest.raises(
        UsageLimitExceeded, match=r'^The next request would exceed the input_tokens_limit of 5 \(input_tokens=7\)$'
    ):
        await agent.run('hello', usage_limits=limits)


async def test_wrapper_models_forward_token_counting_but_not_base_url():
    counting = Counting(lambda messages, info: ModelResponse(parts=[TextPart('counted')]))
    for wrapper in (WrapperModel(counting), InstrumentedModel(counting)):
        assert await wrapper.count_tokens([], None, ModelRequestParameters()) == RequestUsage(input_tokens=0)
        limits = UsageLimits(count_tokens_before_request=True, input_tokens_limit=5)
        with pytest.raises(UsageLimitExceeded, match=r'input_tokens_limit of 5 \(input_tokens=7\)$'):
            await Agent(wrapper).run('hello', usage_limits=limits)
        # As upstream: the base URL and the builtin tool classmethod are the wrapper's own, not the wrapped model's.
        assert (wrapper.base_url, wrapper.supported_builtin_tools()) == (None, frozenset())
    openai_model = OpenAIChatModel('gpt-4o', provider=OpenAIProvider(api_key='k', base_url='http://127.0.0.1:9/v1'))
    assert (openai_model.base_url, WrapperModel(openai_model).base_url) == ('http://127.0.0.1:9/v1/', None)


def test_infer_model_with_provider_factory():
    names: list[str] = []

    def factory(name: str) -> OpenAIProvider:
        names.append(name)
        return OpenAIProvider(api_key='k', base_url='http://127.0.0.1:9/v1')

    assert isinstance(infer_model('openai:gpt-4o', provider_factory=factory), OpenAIChatModel)
    assert names == ['openai']


class City(BaseModel):
    """A city."""

    name: str


class Country(BaseModel):
    name: str


def upper(text: str) -> str:
    return text.upper()


def make_city(name: str) -> City:
    return City(name=name)


def test_output_json_schema():
    agent = Agent(TestModel(), output_type=City)
    city = City.model_json_schema()
    assert agent.output_json_schema() == city
    assert WrapperAgent(agent).output_json_schema(int) == {'type': 'integer'}
    assert agent.output_json_schema([ToolOutput(City), NativeOutput([Country])]) == {
        'anyOf': [city, Country.model_json_schema()]
    }
    assert agent.output_json_schema(TextOutput(upper)) == {'type': 'string'}
    assert agent.output_json_schema(make_city) == city
    assert agent.output_json_schema([str, list[City]]) == snapshot(
        {
            '$defs': {
                'City': {
                    'description': 'A city.',
                    'properties': {'name': {'title': 'Name', 'type': 'string'}},
                    'required': ['name'],
                    'title': 'City',
                    'type': 'object',
                }
            },
            'anyOf': [{'type': 'string'}, {'items': {'$ref': '#/$defs/City'}, 'type': 'array'}],
        }
    )


async def test_call_tools_node_results_and_metadata():
    agent = Agent(TestModel(), output_type=[str, DeferredToolRequests])

    @agent.tool_plain(requires_approval=True)
    def a(x: int) -> int:  # pyright: ignore[reportUnusedFunction] -- used by the agent
        return x

    first = await agent.run('x')
    assert isinstance(first.output, DeferredToolRequests)
    call_id = first.output.approvals[0].tool_call_id
    results = DeferredToolResults(approvals={call_id: True}, metadata={call_id: {'m': 1}})
    nodes: list[CallToolsNode[None, Any]] = []
    async with agent.iter(message_history=first.all_messages(), deferred_tool_results=results) as run:
        async for node in run:
            if Agent.is_call_tools_node(node):
                nodes.append(node)
    assert (nodes[0].tool_call_results, nodes[0].tool_call_metadata) == ({call_id: ToolApproved()}, {call_id: {'m': 1}})
    # A node made with `tool_call_results` resumes with them.
    answers: dict[str, DeferredToolResult | Literal['skip']] = {
        call_id: ToolDenied('no'),
        'other': 'skip',
        'x': ToolReturn(3),
    }
    node = CallToolsNode[None, Any](first.response, tool_call_results=answers)
    assert node.deferred_tool_results == DeferredToolResults(
        calls={'x': ToolReturn(3)}, approvals={call_id: ToolDenied('no')}
    )
    empty = CallToolsNode[None, Any](ModelResponse(parts=[], timestamp=first.response.timestamp))
    assert repr(empty).startswith('CallToolsNode(model_response=ModelResponse(parts=[]')


def test_request_usage_extract():
    data = {'usage': {'prompt_tokens': 10, 'completion_tokens': 5, 'prompt_tokens_details': {'cached_tokens': 3}}}
    usage = RequestUsage.extract(
        data, provider='custom', provider_url='https://example.com', provider_fallback='openai', api_flavor='chat'
    )
    assert usage == RequestUsage(input_tokens=10, cache_read_tokens=3, output_tokens=5)
    empty = RequestUsage.extract({}, provider='x', provider_url='', provider_fallback='y', details={'a': 1})
    assert empty == RequestUsage(details={'a': 1})


def test_tool_retry_error_and_result_names():
    error = ToolRetryError(RetryPromptPart('bad', tool_name='t'))
    assert (repr(error), error.tool_retry.tool_name) == ("ToolRetryError('bad')", 't')
    assert (
        str(ToolRetryError(RetryPromptPart([])))
        == '0 validation errors:\n```json\n[]\n```\n\nFix the errors and try again.'
    )
    validator: OutputValidatorFunc[None, str] = str.upper
    assert validator('a') == 'A'
