"""MCP servers as toolsets: connect to a Model Context Protocol server and offer its tools to an agent.

`MCPServerStdio` runs a server as a subprocess and talks to it over its standard streams;
`MCPServerStreamableHTTP` and `MCPServerSSE` connect to a server over HTTP. Each is an `AbstractToolset`, so
it goes into `Agent(toolsets=[...])` and can be prefixed, filtered or wrapped with `.approval_required(...)`.
"""

from __future__ import annotations

import base64
import json
import os
import re
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Self, TypeAlias

import anyio
import pydantic
import pydantic_core
from pydantic_core import SchemaValidator, core_schema
from typing_extensions import deprecated

from . import _utils, messages, models
from ._run_context import RunContext
from .exceptions import ModelRetry
from .settings import ModelSettings
from .tools import ToolDefinition
from .toolsets.abstract import AbstractToolset, ToolsetTool

try:
    import httpx
    from mcp import types as mcp_types
    from mcp.client.session import ClientSession, ElicitationFnT, LoggingFnT
    from mcp.client.sse import sse_client
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared import exceptions as mcp_exceptions
    from mcp.shared._httpx_utils import create_mcp_http_client
    from mcp.shared.context import RequestContext
    from mcp.shared.message import SessionMessage
except ImportError as _import_error:  # pragma: no cover
    raise ImportError(
        'Please install the `mcp` package to use MCP servers: `pip install "pydantic-ai-slim[mcp]"`.'
    ) from _import_error

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

__all__ = (
    'MCPError',
    'MCPServer',
    'MCPServerHTTP',
    'MCPServerSSE',
    'MCPServerStdio',
    'MCPServerStreamableHTTP',
    'Resource',
    'ResourceAnnotations',
    'ResourceTemplate',
    'ServerCapabilities',
    'load_mcp_servers',
)

ToolResult: TypeAlias = Any
"""What an MCP tool call returns to the agent: structured content, text (parsed as JSON when it is JSON),
`BinaryContent`, or a list of those."""

CallToolFunc: TypeAlias = Callable[[str, dict[str, Any], dict[str, Any] | None], Awaitable[ToolResult]]
"""`direct_call_tool` as handed to a `process_tool_call` function: tool name, arguments, request metadata."""

ProcessToolCallback: TypeAlias = Callable[[RunContext[Any], CallToolFunc, str, dict[str, Any]], Awaitable[ToolResult]]
"""A hook around each tool call: given the run context, the function that calls the tool, the tool's name and
its arguments, it returns the result (e.g. after adding request metadata or rewriting the arguments)."""

# Any JSON object is accepted as arguments: the MCP server validates them against its own schema.
_ARGS_VALIDATOR = SchemaValidator(core_schema.dict_schema(core_schema.str_schema(), core_schema.any_schema()))


class MCPError(RuntimeError):
    """An error response from an MCP server, e.g. to a resource read."""

    message: str
    """The server's error message."""
    code: int
    """The JSON-RPC error code."""
    data: dict[str, Any] | None
    """Extra data the server sent with the error."""

    def __init__(self, message: str, code: int, data: dict[str, Any] | None = None):
        self.message = message
        self.code = code
        self.data = data
        super().__init__(message)

    @classmethod
    def from_mcp_sdk(cls, error: mcp_exceptions.McpError) -> MCPError:
        """Make an `MCPError` from the `mcp` SDK's `McpError`."""
        data: Any = error.error.data
        return cls(message=error.error.message, code=error.error.code, data=data)

    def __str__(self) -> str:
        return self.message


@dataclass(repr=False, kw_only=True)
class ResourceAnnotations:
    """Hints about a resource: who it is for and how important it is."""

    audience: list[mcp_types.Role] | None = None
    """Who the resource is meant for: `'user'`, `'assistant'` or both."""
    priority: Annotated[float, pydantic.Field(ge=0.0, le=1.0)] | None = None
    """Importance from 0 (least) to 1 (most)."""

    @classmethod
    def from_mcp_sdk(cls, mcp_annotations: mcp_types.Annotations) -> ResourceAnnotations:
        """Make `ResourceAnnotations` from the `mcp` SDK's `Annotations`."""
        return cls(audience=mcp_annotations.audience, priority=mcp_annotations.priority)

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(repr=False, kw_only=True)
class _BaseResource:
    name: str
    """The resource's programmatic name."""
    title: str | None = None
    """A human-readable title."""
    description: str | None = None
    """What the resource is."""
    mime_type: str | None = None
    """The media type of its content, if known."""
    annotations: ResourceAnnotations | None = None
    """Hints about the resource."""
    metadata: dict[str, Any] | None = None
    """The server's `_meta` for the resource."""

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(repr=False, kw_only=True)
class Resource(_BaseResource):
    """A resource a server offers, read with `MCPServer.read_resource`."""

    uri: str
    """The resource's URI."""
    size: int | None = None
    """The size of the raw content in bytes, if known."""

    @classmethod
    def from_mcp_sdk(cls, mcp_resource: mcp_types.Resource) -> Resource:
        """Make a `Resource` from the `mcp` SDK's `Resource`."""
        return cls(
            uri=str(mcp_resource.uri),
            name=mcp_resource.name,
            title=mcp_resource.title,
            description=mcp_resource.description,
            mime_type=mcp_resource.mimeType,
            size=mcp_resource.size,
            annotations=_annotations(mcp_resource.annotations),
            metadata=mcp_resource.meta,
        )


@dataclass(repr=False, kw_only=True)
class ResourceTemplate(_BaseResource):
    """A family of resources a server offers, addressed by filling in a URI template."""

    uri_template: str
    """The RFC 6570 URI template."""

    @classmethod
    def from_mcp_sdk(cls, mcp_template: mcp_types.ResourceTemplate) -> ResourceTemplate:
        """Make a `ResourceTemplate` from the `mcp` SDK's `ResourceTemplate`."""
        return cls(
            uri_template=mcp_template.uriTemplate,
            name=mcp_template.name,
            title=mcp_template.title,
            description=mcp_template.description,
            mime_type=mcp_template.mimeType,
            annotations=_annotations(mcp_template.annotations),
            metadata=mcp_template.meta,
        )


def _annotations(annotations: mcp_types.Annotations | None) -> ResourceAnnotations | None:
    return ResourceAnnotations.from_mcp_sdk(annotations) if annotations is not None else None


@dataclass(repr=False, kw_only=True)
class ServerCapabilities:
    """What a server said it supports when the connection was set up."""

    experimental: list[str] | None = None
    """The names of the experimental capabilities."""
    logging: bool = False
    """Whether it sends log messages."""
    prompts: bool = False
    """Whether it offers prompts."""
    prompts_list_changed: bool = False
    """Whether it notifies when its prompt list changes."""
    resources: bool = False
    """Whether it offers resources."""
    resources_list_changed: bool = False
    """Whether it notifies when its resource list changes."""
    tools: bool = False
    """Whether it offers tools."""
    tools_list_changed: bool = False
    """Whether it notifies when its tool list changes."""
    completions: bool = False
    """Whether it completes arguments."""

    @classmethod
    def from_mcp_sdk(cls, mcp_capabilities: mcp_types.ServerCapabilities) -> ServerCapabilities:
        """Make `ServerCapabilities` from the `mcp` SDK's `ServerCapabilities`."""
        caps = mcp_capabilities
        return cls(
            experimental=list(caps.experimental) if caps.experimental else None,
            logging=caps.logging is not None,
            prompts=caps.prompts is not None,
            prompts_list_changed=bool(caps.prompts and caps.prompts.listChanged),
            resources=caps.resources is not None,
            resources_list_changed=bool(caps.resources and caps.resources.listChanged),
            tools=caps.tools is not None,
            tools_list_changed=bool(caps.tools and caps.tools.listChanged),
            completions=caps.completions is not None,
        )

    __repr__ = _utils.dataclasses_no_defaults_repr


class MCPServer(AbstractToolset[Any], ABC):
    """A connection to an MCP server, offering the server's tools as a toolset.

    Entering the server (`async with server:`, which the agent does for each run, or `async with agent:` to
    keep it open across runs) starts the connection; entries are counted, and the connection is closed when
    the last one exits. Methods that talk to the server enter it themselves if needed.
    """

    tool_prefix: str | None
    """Prepended to each tool's name with an underscore, to keep names of several servers apart."""
    log_level: mcp_types.LoggingLevel | None
    """The level of log messages to ask the server for; `None` leaves the server's default."""
    log_handler: LoggingFnT | None
    """Called with each log message the server sends."""
    timeout: float
    """Seconds to wait for the server to start and answer the initialize request."""
    read_timeout: float
    """Seconds to wait for the answer to any later request (e.g. a tool call)."""
    process_tool_call: ProcessToolCallback | None
    """A hook around each tool call (see `ProcessToolCallback`)."""
    allow_sampling: bool
    """Whether the server may ask the client's model for completions (MCP sampling)."""
    sampling_model: models.Model | None
    """The model that answers the server's sampling requests; set it with `agent.set_mcp_sampling_model()`."""
    max_retries: int
    """How many times the model may retry a failing call of one of the server's tools."""
    elicitation_callback: ElicitationFnT | None
    """Answers the server's requests for user input (MCP elicitation)."""
    cache_tools: bool
    """Whether to keep the tool list between steps until the server says it changed."""
    cache_resources: bool
    """Whether to keep the resource list until the server says it changed."""
    client_info: mcp_types.Implementation | None
    """The name and version the client reports to the server."""

    def __init__(
        self,
        tool_prefix: str | None = None,
        log_level: mcp_types.LoggingLevel | None = None,
        log_handler: LoggingFnT | None = None,
        timeout: float = 5,
        read_timeout: float = 5 * 60,
        process_tool_call: ProcessToolCallback | None = None,
        allow_sampling: bool = True,
        sampling_model: models.Model | None = None,
        max_retries: int = 1,
        elicitation_callback: ElicitationFnT | None = None,
        cache_tools: bool = True,
        cache_resources: bool = True,
        *,
        id: str | None = None,
        client_info: mcp_types.Implementation | None = None,
    ):
        self.tool_prefix = tool_prefix
        self.log_level = log_level
        self.log_handler = log_handler
        self.timeout = timeout
        self.read_timeout = read_timeout
        self.process_tool_call = process_tool_call
        self.allow_sampling = allow_sampling
        self.sampling_model = sampling_model
        self.max_retries = max_retries
        self.elicitation_callback = elicitation_callback
        self.cache_tools = cache_tools
        self.cache_resources = cache_resources
        self.client_info = client_info
        # Without an id, the prefix (if any) names the server, so two prefixed servers can be told apart.
        self._id = id or tool_prefix
        self._enter_lock = anyio.Lock()
        self._running_count = 0
        self._exit_stack: AsyncExitStack | None = None
        self._client: ClientSession | None = None
        self._server_info: mcp_types.Implementation | None = None
        self._capabilities: ServerCapabilities | None = None
        self._instructions: str | None = None
        self._cached_tools: list[mcp_types.Tool] | None = None
        self._cached_resources: list[Resource] | None = None

    @abstractmethod
    @asynccontextmanager
    async def client_streams(
        self,
    ) -> AsyncIterator[
        tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
    ]:
        """The read and write streams of the transport to the server, open for the duration of the block."""
        raise NotImplementedError
        yield

    @property
    def id(self) -> str | None:
        """The server's id (the `id` given, or else the `tool_prefix`)."""
        return self._id

    @id.setter
    def id(self, value: str | None) -> None:
        self._id = value

    @property
    def label(self) -> str:
        """The repr, which names the command or URL, for error messages."""
        return repr(self)

    @property
    def tool_name_conflict_hint(self) -> str:
        """MCP tools are renamed with the server's `tool_prefix`."""
        return 'Set the `tool_prefix` attribute to avoid name conflicts.'

    @property
    def is_running(self) -> bool:
        """Whether the connection to the server is open."""
        return self._running_count > 0

    @property
    def server_info(self) -> mcp_types.Implementation:
        """The name and version the server reported; only known while it is running.

        Raises:
            AttributeError: If the server has not been started yet.
        """
        if self._server_info is None:
            raise AttributeError(
                f'The `{self.__class__.__name__}.server_info` is only instantiated after initialization.'
            )
        return self._server_info

    @property
    def capabilities(self) -> ServerCapabilities:
        """What the server supports; only known while it is running.

        Raises:
            AttributeError: If the server has not been started yet.
        """
        if self._capabilities is None:
            raise AttributeError(
                f'The `{self.__class__.__name__}.capabilities` is only instantiated after initialization.'
            )
        return self._capabilities

    @property
    def instructions(self) -> str | None:
        """The instructions the server sent when the connection was set up, if any.

        Raises:
            AttributeError: If the server has not been started yet.
        """
        if self._server_info is None:
            raise AttributeError(
                f'The `{self.__class__.__name__}.instructions` is only available after initialization.'
            )
        return self._instructions

    async def __aenter__(self) -> Self:
        """Start the connection (or count one more entry if it is open).

        Raises:
            TimeoutError: If the server does not answer the initialize request within `timeout` seconds.
            MCPError: If the server closes the connection or answers the initialize request with an error.
        """
        async with self._enter_lock:
            if self._running_count == 0:
                await self._connect()
            self._running_count += 1
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        """Count one entry less, closing the connection when the last one exits."""
        async with self._enter_lock:
            if self._running_count == 0:
                return None
            self._running_count -= 1
            if self._running_count == 0:
                await self._disconnect(args)
        return None

    async def _connect(self) -> None:
        exit_stack = AsyncExitStack()
        try:
            read_stream, write_stream = await exit_stack.enter_async_context(self.client_streams())
            client = ClientSession(
                read_stream,
                write_stream,
                read_timeout_seconds=timedelta(seconds=self.read_timeout),
                sampling_callback=self._sampling_callback if self.allow_sampling else None,
                elicitation_callback=self.elicitation_callback,
                logging_callback=self.log_handler,
                message_handler=self._message_handler,
                client_info=self.client_info,
            )
            await exit_stack.enter_async_context(client)
            with anyio.fail_after(self.timeout):
                result = await client.initialize()
                if self.log_level is not None:
                    await client.set_logging_level(self.log_level)
        except BaseException as error:
            # Leaving the transport with the error lets its task groups report what really went wrong.
            try:
                await exit_stack.__aexit__(type(error), error, error.__traceback__)
            except BaseException as exit_error:
                raise _startup_error(self, exit_error) from exit_error
            raise _startup_error(self, error) from error  # pragma: no cover
        self._exit_stack = exit_stack
        self._client = client
        self._server_info = result.serverInfo
        self._capabilities = ServerCapabilities.from_mcp_sdk(result.capabilities)
        self._instructions = result.instructions

    async def _disconnect(self, exc_info: tuple[Any, ...]) -> None:
        exit_stack, self._exit_stack = self._exit_stack, None
        self._client = None
        self._cached_tools = None
        self._cached_resources = None
        assert exit_stack is not None
        error: BaseException | None = exc_info[1] if len(exc_info) > 1 else None
        # The error the block ended with goes to the transport, so that its task groups can tell a cancellation
        # of their own (the connection broke) from the caller's error.
        try:
            await exit_stack.__aexit__(type(error) if error else None, error, error.__traceback__ if error else None)
        except BaseException as exit_error:
            leaves = _leaf_errors(exit_error)
            if error is not None and all(leaf is error for leaf in leaves):
                # The transport's task groups only wrapped the block's own error: raise it as it was.
                raise error from error.__cause__
            if error is None and all(isinstance(leaf, Exception) for leaf in leaves):
                # Closing the transport of a server that already died reports the broken pipe; nothing is lost.
                return
            raise

    def _session(self) -> ClientSession:
        assert self._client is not None, 'The server is entered before it is used.'
        return self._client

    async def _message_handler(self, message: Any) -> None:
        # Only notifications matter here; requests are answered by the session's callbacks.
        if isinstance(message, mcp_types.ServerNotification):
            if isinstance(message.root, mcp_types.ToolListChangedNotification):
                self._cached_tools = None
            elif isinstance(message.root, mcp_types.ResourceListChangedNotification):
                self._cached_resources = None

    async def list_tools(self) -> list[mcp_types.Tool]:
        """The server's tools as the `mcp` SDK describes them (cached if `cache_tools`)."""
        async with self:
            if self.cache_tools and self._cached_tools is not None:
                return self._cached_tools
            tools = (await self._session().list_tools()).tools
            if self.cache_tools:
                self._cached_tools = tools
            return tools

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """The server's tools, named with the `tool_prefix`, for this step."""
        tools: dict[str, ToolsetTool[Any]] = {}
        for mcp_tool in await self.list_tools():
            name = f'{self.tool_prefix}_{mcp_tool.name}' if self.tool_prefix else mcp_tool.name
            tool_def = ToolDefinition(
                name=name,
                description=mcp_tool.description,
                parameters_json_schema=mcp_tool.inputSchema,
                metadata={
                    'meta': mcp_tool.meta,
                    'annotations': mcp_tool.annotations.model_dump() if mcp_tool.annotations else None,
                    'output_schema': mcp_tool.outputSchema,
                },
            )
            tools[name] = self.tool_for_tool_def(tool_def)
        return tools

    def tool_for_tool_def(self, tool_def: ToolDefinition) -> ToolsetTool[Any]:
        """The toolset tool for a definition: the server's retries and a validator that accepts any object."""
        return ToolsetTool[Any](
            toolset=self, tool_def=tool_def, max_retries=self.max_retries, args_validator=_ARGS_VALIDATOR
        )

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> ToolResult:
        """Call one of the server's tools (through `process_tool_call` if set); `name` carries the prefix."""
        if self.tool_prefix:
            name = name.removeprefix(f'{self.tool_prefix}_')
        if self.process_tool_call is not None:
            return await self.process_tool_call(ctx, self.direct_call_tool, name, tool_args)
        return await self.direct_call_tool(name, tool_args)

    async def direct_call_tool(
        self, name: str, args: dict[str, Any], metadata: dict[str, Any] | None = None
    ) -> ToolResult:
        """Call a tool by its name on the server (without prefix) and map its result.

        Raises:
            ModelRetry: If the server reports the call failed (the model is asked to retry).
        """
        async with self:
            session = self._session()
            # The SDK does not tell the server when a request is abandoned; the next request id is this call's.
            request_id: int = session._request_id
            try:
                result = await session.call_tool(name, args, meta=metadata)
            except mcp_exceptions.McpError as error:
                raise ModelRetry(error.error.message) from error
            except (anyio.ClosedResourceError, anyio.BrokenResourceError) as error:
                raise MCPError(
                    f'{self.label} closed the connection, so tool {name!r} could not be called. '
                    'Check whether the server is still running (its error output may say why it stopped).',
                    mcp_types.CONNECTION_CLOSED,
                ) from error
            except anyio.get_cancelled_exc_class():
                with anyio.CancelScope(shield=True):
                    await _send_cancelled(session, request_id)
                raise
            if result.isError:
                raise ModelRetry(
                    '\n'.join(part.text for part in result.content if isinstance(part, mcp_types.TextContent))
                )
            if result.structuredContent is not None:
                structured = result.structuredContent
                # The SDK wraps a result that is not an object as `{"result": value}`.
                return structured['result'] if set(structured) == {'result'} else structured
            mapped = [await self._map_content(part) for part in result.content]
            return mapped[0] if len(mapped) == 1 else mapped

    async def _map_content(self, part: mcp_types.ContentBlock) -> Any:
        if isinstance(part, mcp_types.TextContent):
            return _maybe_json(part.text)
        if isinstance(part, mcp_types.ImageContent | mcp_types.AudioContent):
            return _binary(base64.b64decode(part.data), part.mimeType)
        if isinstance(part, mcp_types.EmbeddedResource):
            return _map_resource_contents(part.resource)
        # What remains is a link to a resource, which is read so the model sees its content.
        assert isinstance(part, mcp_types.ResourceLink)
        return await self.read_resource(str(part.uri))

    async def list_resources(self) -> list[Resource]:
        """The server's resources (cached if `cache_resources`); empty if it offers none.

        Raises:
            MCPError: If the server answers with an error.
        """
        async with self:
            if not self.capabilities.resources:
                return []
            if self.cache_resources and self._cached_resources is not None:
                return self._cached_resources
            try:
                result = await self._session().list_resources()
            except mcp_exceptions.McpError as error:  # pragma: no cover
                raise MCPError.from_mcp_sdk(error) from error
            resources = [Resource.from_mcp_sdk(resource) for resource in result.resources]
            if self.cache_resources:
                self._cached_resources = resources
            return resources

    async def list_resource_templates(self) -> list[ResourceTemplate]:
        """The server's resource templates; empty if it offers no resources.

        Raises:
            MCPError: If the server answers with an error.
        """
        async with self:
            if not self.capabilities.resources:
                return []
            try:
                result = await self._session().list_resource_templates()
            except mcp_exceptions.McpError as error:  # pragma: no cover
                raise MCPError.from_mcp_sdk(error) from error
            return [ResourceTemplate.from_mcp_sdk(template) for template in result.resourceTemplates]

    async def read_resource(self, uri: str | Resource) -> Any:
        """Read a resource: its text, `BinaryContent`, or a list of those if it has several parts.

        Raises:
            MCPError: If the server answers with an error (e.g. an unknown URI).
        """
        async with self:
            try:
                result = await self._session().read_resource(
                    pydantic.AnyUrl(uri.uri if isinstance(uri, Resource) else uri)
                )
            except mcp_exceptions.McpError as error:
                raise MCPError.from_mcp_sdk(error) from error
            contents = [_map_resource_contents(content) for content in result.contents]
            return contents[0] if len(contents) == 1 else contents

    async def _sampling_callback(
        self, context: RequestContext[ClientSession, Any], params: mcp_types.CreateMessageRequestParams
    ) -> mcp_types.CreateMessageResult:
        if self.sampling_model is None:
            # The SDK turns the error into an error response to the server.
            raise ValueError('Sampling model is not set')
        settings: ModelSettings = {'max_tokens': params.maxTokens}
        if params.temperature is not None:
            settings['temperature'] = params.temperature
        if params.stopSequences:
            settings['stop_sequences'] = params.stopSequences
        response = await self.sampling_model.request(
            _sampling_messages(params), settings, models.ModelRequestParameters()
        )
        return mcp_types.CreateMessageResult(
            role='assistant',
            content=mcp_types.TextContent(type='text', text=_response_text(response)),
            model=self.sampling_model.model_name,
        )


def _maybe_json(text: str) -> Any:
    try:
        return pydantic_core.from_json(text)
    except ValueError:
        return text


def _binary(data: bytes, media_type: str) -> messages.BinaryContent:
    if media_type.startswith('image/'):
        return messages.BinaryImage(data=data, media_type=media_type)
    return messages.BinaryContent(data=data, media_type=media_type)


def _map_resource_contents(contents: mcp_types.TextResourceContents | mcp_types.BlobResourceContents) -> Any:
    if isinstance(contents, mcp_types.TextResourceContents):
        return contents.text
    data = base64.b64decode(contents.blob)
    return messages.BinaryContent.narrow_type(
        messages.BinaryContent(
            data=data,
            media_type=contents.mimeType or 'application/octet-stream',
            identifier=messages.BinaryContent(data=data, media_type='').identifier,
        )
    )


def _sampling_messages(params: mcp_types.CreateMessageRequestParams) -> list[messages.ModelMessage]:
    """The sampling request as model messages: user turns as requests, assistant turns as responses."""
    history: list[messages.ModelMessage] = []
    request_parts: list[messages.ModelRequestPart] = []
    if params.systemPrompt:
        request_parts.append(messages.SystemPromptPart(content=params.systemPrompt))
    for message in params.messages:
        content = _sampling_content(message.content)
        if message.role == 'user':
            request_parts.append(messages.UserPromptPart(content=content))
            continue
        if request_parts:
            history.append(messages.ModelRequest(parts=request_parts))
            request_parts = []
        texts = [item for item in (content if isinstance(content, list) else [content]) if isinstance(item, str)]
        history.append(messages.ModelResponse(parts=[messages.TextPart(content=text) for text in texts]))
    if request_parts:
        history.append(messages.ModelRequest(parts=request_parts))
    return history


def _sampling_content(content: Any) -> str | list[messages.UserContent]:
    items: list[Any] = content if isinstance(content, list) else [content]  # pyright: ignore[reportUnknownVariableType] (the SDK's content union)
    out: list[messages.UserContent] = []
    for item in items:
        if isinstance(item, mcp_types.TextContent):
            out.append(item.text)
        elif isinstance(item, mcp_types.ImageContent | mcp_types.AudioContent):
            out.append(_binary(base64.b64decode(item.data), item.mimeType))
    if len(out) == 1 and isinstance(out[0], str):
        return out[0]
    return out


def _response_text(response: messages.ModelResponse) -> str:
    return ''.join(part.content for part in response.parts if isinstance(part, messages.TextPart))


async def _send_cancelled(session: ClientSession, request_id: int) -> None:
    notification = mcp_types.CancelledNotification(
        method='notifications/cancelled',
        params=mcp_types.CancelledNotificationParams(requestId=request_id, reason='The client cancelled the call.'),
    )
    # The connection may already be gone; then there is nobody left to tell.
    try:
        await session.send_notification(mcp_types.ClientNotification(notification))
    except Exception:  # pragma: no cover
        pass


def _leaf_errors(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        members: tuple[BaseException, ...] = error.exceptions  # pyright: ignore[reportUnknownMemberType,reportUnknownVariableType] (erased type argument)
        return [leaf for sub in members for leaf in _leaf_errors(sub)]
    return [error]


def _startup_error(server: MCPServer, error: BaseException) -> BaseException:
    """A clear error for a server that could not be started, instead of the SDK's nested task-group errors."""
    leaves = _leaf_errors(error)
    if any(isinstance(leaf, TimeoutError) for leaf in leaves):
        return TimeoutError(
            f'{server.label} did not answer the initialize request within {server.timeout} seconds. '
            'Check that it is an MCP server, or raise `timeout` if it needs longer to start.'
        )
    for leaf in leaves:
        if isinstance(leaf, mcp_exceptions.McpError):
            return MCPError(
                f'{server.label} failed to start: {leaf.error.message.rstrip(".")}. '
                'Check the command, its arguments and its error output.',
                leaf.error.code,
            )
    if len(leaves) == 1 and isinstance(leaves[0], Exception):
        return leaves[0]
    return error  # pragma: no cover


class MCPServerStdio(MCPServer):
    """An MCP server run as a subprocess, spoken to over its stdin and stdout.

    The process is started when the server is entered and stopped when the last entry exits.
    """

    command: str
    """The program to run, e.g. `'python'`, `'npx'` or `'uvx'`."""
    args: Sequence[str]
    """Its arguments."""
    env: dict[str, str] | None
    """The environment of the process; `None` gives the SDK's safe default environment."""
    cwd: str | Path | None
    """The working directory of the process."""

    def __init__(
        self,
        command: str,
        args: Sequence[str],
        *,
        env: dict[str, str] | None = None,
        cwd: str | Path | None = None,
        tool_prefix: str | None = None,
        log_level: mcp_types.LoggingLevel | None = None,
        log_handler: LoggingFnT | None = None,
        timeout: float = 5,
        read_timeout: float = 5 * 60,
        process_tool_call: ProcessToolCallback | None = None,
        allow_sampling: bool = True,
        sampling_model: models.Model | None = None,
        max_retries: int = 1,
        elicitation_callback: ElicitationFnT | None = None,
        cache_tools: bool = True,
        cache_resources: bool = True,
        id: str | None = None,
        client_info: mcp_types.Implementation | None = None,
    ):
        self.command = command
        self.args = args
        self.env = env
        self.cwd = cwd
        super().__init__(
            tool_prefix,
            log_level,
            log_handler,
            timeout,
            read_timeout,
            process_tool_call,
            allow_sampling,
            sampling_model,
            max_retries,
            elicitation_callback,
            cache_tools,
            cache_resources,
            id=id,
            client_info=client_info,
        )

    @asynccontextmanager
    async def client_streams(
        self,
    ) -> AsyncIterator[
        tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
    ]:
        """Start the process; its stdout and stdin are the streams."""
        params = StdioServerParameters(command=self.command, args=list(self.args), env=self.env, cwd=self.cwd)
        async with stdio_client(server=params) as (read_stream, write_stream):
            yield read_stream, write_stream

    def __repr__(self) -> str:
        fields = [f'command={self.command!r}', f'args={list(self.args)!r}']
        if self.id:
            fields.append(f'id={self.id!r}')
        return f'{self.__class__.__name__}({", ".join(fields)})'


class _MCPServerHTTP(MCPServer):
    """What the HTTP transports share: URL, headers or an own `httpx` client."""

    url: str
    """The server's endpoint."""
    headers: dict[str, str] | None
    """Headers sent with every request (not with `http_client`, whose own headers apply)."""
    http_client: httpx.AsyncClient | None
    """An `httpx` client to use instead of one the SDK makes (e.g. for custom auth or TLS)."""

    def __init__(
        self,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        http_client: httpx.AsyncClient | None = None,
        id: str | None = None,
        tool_prefix: str | None = None,
        log_level: mcp_types.LoggingLevel | None = None,
        log_handler: LoggingFnT | None = None,
        timeout: float = 5,
        read_timeout: float | None = None,
        process_tool_call: ProcessToolCallback | None = None,
        allow_sampling: bool = True,
        sampling_model: models.Model | None = None,
        max_retries: int = 1,
        elicitation_callback: ElicitationFnT | None = None,
        cache_tools: bool = True,
        cache_resources: bool = True,
        client_info: mcp_types.Implementation | None = None,
        **_deprecated_kwargs: Any,
    ):
        if 'sse_read_timeout' in _deprecated_kwargs:
            if read_timeout is not None:
                raise TypeError("'read_timeout' and 'sse_read_timeout' cannot both be set.")
            read_timeout = _deprecated_kwargs.pop('sse_read_timeout')
            import warnings

            warnings.warn("'sse_read_timeout' is deprecated, use 'read_timeout' instead.", DeprecationWarning, 2)
        if _deprecated_kwargs:
            raise TypeError(f'Unexpected keyword arguments: {", ".join(_deprecated_kwargs)}')
        if headers is not None and http_client is not None:
            raise ValueError('`headers` and `http_client` are mutually exclusive: set the headers on the client.')
        self.url = url
        self.headers = headers
        self.http_client = http_client
        super().__init__(
            tool_prefix,
            log_level,
            log_handler,
            timeout,
            read_timeout if read_timeout is not None else 5 * 60,
            process_tool_call,
            allow_sampling,
            sampling_model,
            max_retries,
            elicitation_callback,
            cache_tools,
            cache_resources,
            id=id,
            client_info=client_info,
        )

    @asynccontextmanager
    async def _http_client(self) -> AsyncIterator[httpx.AsyncClient]:
        if self.http_client is not None:
            yield self.http_client
            return
        client = create_mcp_http_client(
            headers=self.headers, timeout=httpx.Timeout(self.timeout, read=self.read_timeout)
        )
        async with client:
            yield client

    def __repr__(self) -> str:
        fields = [f'url={self.url!r}']
        if self.id:
            fields.append(f'id={self.id!r}')
        return f'{self.__class__.__name__}({", ".join(fields)})'


class MCPServerStreamableHTTP(_MCPServerHTTP):
    """An MCP server reached over the streamable HTTP transport (its URL usually ends in `/mcp`)."""

    @asynccontextmanager
    async def client_streams(
        self,
    ) -> AsyncIterator[
        tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
    ]:
        """Open the streamable HTTP connection."""
        async with (
            self._http_client() as client,
            streamable_http_client(self.url, http_client=client) as (read_stream, write_stream, _),
        ):
            yield read_stream, write_stream


class MCPServerSSE(_MCPServerHTTP):
    """An MCP server reached over the older HTTP+SSE transport (its URL usually ends in `/sse`)."""

    @asynccontextmanager
    async def client_streams(
        self,
    ) -> AsyncIterator[
        tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
    ]:
        """Open the SSE connection."""
        if self.http_client is not None:
            http_client = self.http_client

            def factory(
                headers: dict[str, str] | None = None,
                timeout: httpx.Timeout | None = None,
                auth: httpx.Auth | None = None,
            ) -> httpx.AsyncClient:
                return http_client

            streams = sse_client(
                self.url, timeout=self.timeout, sse_read_timeout=self.read_timeout, httpx_client_factory=factory
            )
        else:
            streams = sse_client(
                self.url, headers=self.headers, timeout=self.timeout, sse_read_timeout=self.read_timeout
            )
        async with streams as (read_stream, write_stream):
            yield read_stream, write_stream


@deprecated('The `MCPServerHTTP` class is deprecated, use `MCPServerSSE` instead.')
class MCPServerHTTP(MCPServerSSE):
    """The earlier name of `MCPServerSSE`, kept for existing code; new code uses `MCPServerSSE`."""


# `load_mcp_servers`: the JSON config format shared by MCP clients (`{"mcpServers": {name: {...}}}`).

_ENV_VAR = re.compile(r'\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}')


class _StdioConfig(pydantic.BaseModel):
    command: str
    args: list[str]
    env: dict[str, str] | None = None


class _HTTPConfig(pydantic.BaseModel):
    url: str
    headers: dict[str, str] | None = None


def _config_kind(value: Any) -> str:
    if isinstance(value, dict) and 'url' in value:
        url: Any = value.get('url')  # pyright: ignore[reportUnknownMemberType,reportUnknownVariableType] (raw JSON)
        return 'sse' if isinstance(url, str) and url.endswith('/sse') else 'streamable-http'
    return 'stdio'


_ServerConfig = Annotated[
    Annotated[_StdioConfig, pydantic.Tag('stdio')]
    | Annotated[_HTTPConfig, pydantic.Tag('sse')]
    | Annotated[_HTTPConfig, pydantic.Tag('streamable-http')],
    pydantic.Discriminator(_config_kind),
]


class MCPServerConfig(pydantic.BaseModel):
    """The shape of an MCP config file (not public: only its validation errors show the name)."""

    mcpServers: dict[str, _ServerConfig]


def _expand_env(value: Any) -> Any:
    if isinstance(value, str):
        return _ENV_VAR.sub(_env_value, value)
    if isinstance(value, list):
        return [_expand_env(item) for item in value]  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, dict):
        return {key: _expand_env(item) for key, item in value.items()}  # pyright: ignore[reportUnknownVariableType]
    return value


def _env_value(match: re.Match[str]) -> str:
    name, default = match.group(1), match.group(2)
    if name in os.environ:
        return os.environ[name]
    if default is not None:
        return default
    raise ValueError(f'Environment variable ${{{name}}} is not defined')


def load_mcp_servers(config_path: str | Path) -> list[MCPServerStdio | MCPServerStreamableHTTP | MCPServerSSE]:
    """Make servers from an MCP config file, each with its name as `id` and `tool_prefix`.

    An entry with `command` (and `args`, optional `env`) runs a subprocess; one with `url` (and optional
    `headers`) connects over SSE if the URL ends in `/sse`, else over streamable HTTP. `${VAR}` and
    `${VAR:-default}` in the values are replaced from the environment.

    Raises:
        FileNotFoundError: If the file does not exist.
        ValueError: If a variable is not set and has no default.
        pydantic.ValidationError: If the file does not have the expected shape.
    """
    path = Path(config_path)
    if not path.exists():
        raise FileNotFoundError(f'Config file {path} not found')
    config = MCPServerConfig.model_validate(_expand_env(json.loads(path.read_text())))
    servers: list[MCPServerStdio | MCPServerStreamableHTTP | MCPServerSSE] = []
    for name, entry in config.mcpServers.items():
        if isinstance(entry, _StdioConfig):
            servers.append(MCPServerStdio(entry.command, entry.args, env=entry.env, id=name, tool_prefix=name))
        elif entry.url.endswith('/sse'):
            servers.append(MCPServerSSE(entry.url, headers=entry.headers, id=name, tool_prefix=name))
        else:
            servers.append(MCPServerStreamableHTTP(entry.url, headers=entry.headers, id=name, tool_prefix=name))
    return servers
