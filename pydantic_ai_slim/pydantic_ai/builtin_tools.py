"""Builtin tools: tools that the model provider runs on its side (web search, code execution, ...).

An agent given `builtin_tools=[WebSearchTool()]` asks the model to use the provider's own web search; the calls
and their results come back in the response as `BuiltinToolCallPart`s and `BuiltinToolReturnPart`s. Each
class only describes the tool; a model that cannot offer it refuses it with a `UserError` before any request.
"""

from __future__ import annotations

import warnings
from abc import ABC
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema
from typing_extensions import TypedDict

__all__ = (
    'BUILTIN_TOOL_TYPES',
    'DEPRECATED_BUILTIN_TOOLS',
    'SUPPORTED_BUILTIN_TOOLS',
    'AbstractBuiltinTool',
    'CodeExecutionTool',
    'FileSearchTool',
    'ImageGenerationTool',
    'MCPServerTool',
    'MemoryTool',
    'UrlContextTool',
    'WebFetchTool',
    'WebSearchTool',
    'WebSearchUserLocation',
)

BUILTIN_TOOL_TYPES: dict[str, type[AbstractBuiltinTool]] = {}
"""Every builtin tool class, by its `kind`."""

ImageAspectRatio: TypeAlias = Literal['21:9', '16:9', '4:3', '3:2', '1:1', '9:16', '3:4', '2:3', '5:4', '4:5']
"""An aspect ratio for generated images."""


@dataclass(kw_only=True)
class AbstractBuiltinTool(ABC):  # noqa: B024 -- abstract as upstream, without abstract methods
    """The base of builtin tools: a tool the model provider runs itself.

    Subclasses are data classes with a distinct `kind`; the registry of kinds lets a list of builtin tools
    survive a JSON round trip.
    """

    kind: str = 'unknown_builtin_tool'
    """What kind of builtin tool this is (the tag of its JSON form)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        kind = getattr(cls, 'kind', None)
        if isinstance(kind, str):
            BUILTIN_TOOL_TYPES[kind] = cls

    @property
    def unique_id(self) -> str:
        """Identifies the tool among the tools of a request; two tools with the same id are one tool."""
        return self.kind

    @property
    def label(self) -> str:
        """A human-readable name of the tool, e.g. for a UI."""
        return self.kind.replace('_', ' ').title()

    @classmethod
    def __get_pydantic_core_schema__(cls, source_type: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        if cls is not AbstractBuiltinTool:
            return handler(source_type)
        # The base class validates as the union of all registered kinds, tagged by `kind`.
        choices = {kind: handler(tool_type) for kind, tool_type in BUILTIN_TOOL_TYPES.items()}
        return core_schema.tagged_union_schema(choices, discriminator='kind')


class WebSearchUserLocation(TypedDict, total=False):
    """Where the user is, to localise web search results."""

    city: str
    """The city."""
    country: str
    """The country, as a two-letter ISO code."""
    region: str
    """The region or state."""
    timezone: str
    """The IANA timezone."""


@dataclass(kw_only=True)
class WebSearchTool(AbstractBuiltinTool):
    """Lets the model search the web."""

    kind: str = 'web_search'
    """The kind of tool."""
    search_context_size: Literal['low', 'medium', 'high'] = 'medium'
    """How much context of the search results the model gets."""
    user_location: WebSearchUserLocation | None = None
    """Where the user is, to localise results."""
    blocked_domains: list[str] | None = None
    """Domains never to search."""
    allowed_domains: list[str] | None = None
    """The only domains to search."""
    max_uses: int | None = None
    """How many searches the model may make in one response."""


@dataclass(kw_only=True)
class CodeExecutionTool(AbstractBuiltinTool):
    """Lets the model run code in the provider's sandbox."""

    kind: str = 'code_execution'
    """The kind of tool."""


@dataclass(kw_only=True)
class WebFetchTool(AbstractBuiltinTool):
    """Lets the model fetch the content of web pages."""

    kind: str = 'web_fetch'
    """The kind of tool."""
    max_uses: int | None = None
    """How many fetches the model may make in one response."""
    allowed_domains: list[str] | None = None
    """The only domains to fetch from."""
    blocked_domains: list[str] | None = None
    """Domains never to fetch from."""
    enable_citations: bool = False
    """Whether the model cites the fetched content."""
    max_content_tokens: int | None = None
    """The most tokens of fetched content given to the model."""


@dataclass(kw_only=True)
class UrlContextTool(WebFetchTool):
    """The former name of `WebFetchTool`; deprecated."""

    kind: str = 'url_context'
    """The kind of tool."""

    def __post_init__(self) -> None:
        warnings.warn('Use `WebFetchTool` instead.', DeprecationWarning, stacklevel=3)


@dataclass(kw_only=True)
class ImageGenerationTool(AbstractBuiltinTool):
    """Lets the model generate images."""

    kind: str = 'image_generation'
    """The kind of tool."""
    background: Literal['transparent', 'opaque', 'auto'] = 'auto'
    """The background of generated images."""
    input_fidelity: Literal['high', 'low'] | None = None
    """How closely to follow the style of input images."""
    moderation: Literal['auto', 'low'] = 'auto'
    """The moderation level."""
    output_compression: int | None = None
    """The compression level (0-100) of JPEG and WebP images."""
    output_format: Literal['png', 'webp', 'jpeg'] | None = None
    """The image format."""
    partial_images: int = 0
    """How many partial images to stream."""
    quality: Literal['low', 'medium', 'high', 'auto'] = 'auto'
    """The quality of generated images."""
    size: Literal['auto', '1024x1024', '1024x1536', '1536x1024', '1K', '2K', '4K'] | None = None
    """The size of generated images."""
    aspect_ratio: ImageAspectRatio | None = None
    """The aspect ratio of generated images."""


@dataclass(kw_only=True)
class MemoryTool(AbstractBuiltinTool):
    """Lets the model keep memories across conversations."""

    kind: str = 'memory'
    """The kind of tool."""


@dataclass(kw_only=True)
class MCPServerTool(AbstractBuiltinTool):
    """Lets the model call a remote MCP server through the provider."""

    kind: str = 'mcp_server'
    """The kind of tool."""
    id: str
    """An id for the server, unique among the request's MCP servers."""
    url: str
    """The URL of the server."""
    authorization_token: str | None = None
    """A token sent in the `Authorization` header."""
    description: str | None = None
    """A description of the server."""
    allowed_tools: list[str] | None = None
    """The only tools of the server the model may call."""
    headers: dict[str, str] | None = None
    """Extra HTTP headers for the server."""

    @property
    def unique_id(self) -> str:
        """The kind and the server's id: several MCP servers can be used at once."""
        return f'{self.kind}:{self.id}'

    @property
    def label(self) -> str:
        """`MCP: <id>`."""
        return f'MCP: {self.id}'


@dataclass(kw_only=True)
class FileSearchTool(AbstractBuiltinTool):
    """Lets the model search files stored with the provider."""

    kind: str = 'file_search'
    """The kind of tool."""
    file_store_ids: Sequence[str]
    """The ids of the file stores to search."""


DEPRECATED_BUILTIN_TOOLS: frozenset[type[AbstractBuiltinTool]] = frozenset({UrlContextTool})
"""Builtin tools kept for compatibility that should no longer be used."""

SUPPORTED_BUILTIN_TOOLS: frozenset[type[AbstractBuiltinTool]] = frozenset(
    tool_type for tool_type in BUILTIN_TOOL_TYPES.values() if tool_type not in DEPRECATED_BUILTIN_TOOLS
)
"""Every builtin tool that is not deprecated."""
