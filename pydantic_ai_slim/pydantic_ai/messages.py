"""The messages exchanged with models, their parts, and the events of a streamed run.

A conversation is a list of `ModelMessage`s: each is a `ModelRequest` (what the agent sends: prompts,
tool results, retry prompts) or a `ModelResponse` (what the model answered: text, thinking, tool calls).
Every type here survives a JSON round trip through `ModelMessagesTypeAdapter`.
"""

from __future__ import annotations

import hashlib
import mimetypes
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field
from datetime import datetime
from typing import Annotated, Any, Literal, TypeAlias, cast
from urllib.parse import urlparse

import pydantic
import pydantic_core
from typing_extensions import TypeAliasType

from . import _utils
from .usage import RequestUsage

__all__ = (
    'AgentStreamEvent',
    'AudioFormat',
    'AudioMediaType',
    'AudioUrl',
    'BaseToolCallPart',
    'BaseToolReturnPart',
    'BinaryContent',
    'CachePoint',
    'DocumentFormat',
    'DocumentMediaType',
    'DocumentUrl',
    'FileUrl',
    'FinalResultEvent',
    'FinishReason',
    'FunctionToolCallEvent',
    'FunctionToolResultEvent',
    'HandleResponseEvent',
    'ImageFormat',
    'ImageMediaType',
    'ImageUrl',
    'ModelMessage',
    'ModelMessagesTypeAdapter',
    'ModelRequest',
    'ModelRequestPart',
    'ModelResponse',
    'ModelResponsePart',
    'ModelResponsePartDelta',
    'ModelResponseStreamEvent',
    'MultiModalContent',
    'PartDeltaEvent',
    'PartEndEvent',
    'PartStartEvent',
    'RetryPromptPart',
    'SystemPromptPart',
    'TextPart',
    'TextPartDelta',
    'ThinkingPart',
    'ThinkingPartDelta',
    'ToolCallPart',
    'ToolCallPartDelta',
    'ToolReturn',
    'ToolReturnContent',
    'ToolReturnPart',
    'UserContent',
    'UserPromptPart',
    'VideoFormat',
    'VideoMediaType',
    'VideoUrl',
)

AudioMediaType: TypeAlias = Literal['audio/wav', 'audio/mpeg', 'audio/ogg', 'audio/flac', 'audio/aiff', 'audio/aac']
"""Media types of audio content."""
ImageMediaType: TypeAlias = Literal['image/jpeg', 'image/png', 'image/gif', 'image/webp']
"""Media types of image content."""
DocumentMediaType: TypeAlias = Literal[
    'application/pdf',
    'text/plain',
    'text/csv',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'text/html',
    'text/markdown',
    'application/msword',
    'application/vnd.ms-excel',
]
"""Media types of document content."""
VideoMediaType: TypeAlias = Literal[
    'video/x-matroska',
    'video/quicktime',
    'video/mp4',
    'video/webm',
    'video/x-flv',
    'video/mpeg',
    'video/x-ms-wmv',
    'video/3gpp',
]
"""Media types of video content."""
AudioFormat: TypeAlias = Literal['wav', 'mp3', 'oga', 'flac', 'aiff', 'aac']
"""Short names of audio formats."""
ImageFormat: TypeAlias = Literal['jpeg', 'png', 'gif', 'webp']
"""Short names of image formats."""
DocumentFormat: TypeAlias = Literal['csv', 'doc', 'docx', 'html', 'md', 'pdf', 'txt', 'xls', 'xlsx']
"""Short names of document formats."""
VideoFormat: TypeAlias = Literal['mkv', 'mov', 'mp4', 'webm', 'flv', 'mpeg', 'mpg', 'wmv', 'three_gp']
"""Short names of video formats."""
FinishReason: TypeAlias = Literal['stop', 'length', 'content_filter', 'tool_call', 'error']
"""Why a model stopped generating, normalised across providers."""

_FORMAT_BY_MEDIA_TYPE: dict[str, str] = {
    'audio/wav': 'wav',
    'audio/mpeg': 'mp3',
    'audio/ogg': 'oga',
    'audio/flac': 'flac',
    'audio/aiff': 'aiff',
    'audio/aac': 'aac',
    'image/jpeg': 'jpeg',
    'image/png': 'png',
    'image/gif': 'gif',
    'image/webp': 'webp',
    'application/pdf': 'pdf',
    'text/plain': 'txt',
    'text/csv': 'csv',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
    'text/html': 'html',
    'text/markdown': 'md',
    'application/msword': 'doc',
    'application/vnd.ms-excel': 'xls',
    'video/x-matroska': 'mkv',
    'video/quicktime': 'mov',
    'video/mp4': 'mp4',
    'video/webm': 'webm',
    'video/x-flv': 'flv',
    'video/mpeg': 'mpeg',
    'video/x-ms-wmv': 'wmv',
    'video/3gpp': 'three_gp',
}


def _short_hash(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:6]


@dataclass(init=False, repr=False)
class FileUrl:
    """Base class of content referenced by URL."""

    url: str
    """The URL of the file."""
    _: KW_ONLY
    force_download: bool = False
    """Download the file and send its bytes instead of the URL."""
    vendor_metadata: dict[str, Any] | None = None
    """Provider-specific metadata for the file."""
    _media_type: Annotated[str | None, pydantic.Field(alias='media_type', default=None, exclude=True)] = field(
        compare=False, default=None
    )
    _identifier: Annotated[str | None, pydantic.Field(alias='identifier', default=None, exclude=True)] = field(
        compare=False, default=None
    )

    def __init__(
        self,
        url: str,
        *,
        force_download: bool = False,
        vendor_metadata: dict[str, Any] | None = None,
        media_type: str | None = None,
        identifier: str | None = None,
    ) -> None:
        self.url = url
        self.force_download = force_download
        self.vendor_metadata = vendor_metadata
        self._media_type = media_type
        self._identifier = identifier

    def _infer_media_type(self) -> str:
        guessed, _ = mimetypes.guess_type(urlparse(self.url).path)
        if guessed is None:
            raise ValueError(f'Could not infer media type from URL: {self.url}')
        return guessed

    @pydantic.computed_field
    @property
    def media_type(self) -> str:
        """The media type, given or inferred from the URL's extension."""
        return self._media_type or self._infer_media_type()

    @pydantic.computed_field
    @property
    def identifier(self) -> str:
        """A short identifier for the file, given or derived from the URL."""
        return self._identifier or _short_hash(self.url.encode())

    @property
    def format(self) -> str:
        """The short format name, e.g. `'png'`."""
        try:
            return _FORMAT_BY_MEDIA_TYPE[self.media_type]
        except KeyError as e:
            raise ValueError(f'Unknown media type: {self.media_type}') from e

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(init=False, repr=False)
class ImageUrl(FileUrl):
    """An image referenced by URL."""

    _: KW_ONLY
    kind: Literal['image-url'] = 'image-url'
    """Type discriminator."""

    def __init__(
        self,
        url: str,
        *,
        force_download: bool = False,
        vendor_metadata: dict[str, Any] | None = None,
        media_type: str | None = None,
        identifier: str | None = None,
        kind: Literal['image-url'] = 'image-url',
    ) -> None:
        super().__init__(
            url, force_download=force_download, vendor_metadata=vendor_metadata, media_type=media_type, identifier=identifier
        )
        self.kind = kind


@dataclass(init=False, repr=False)
class AudioUrl(FileUrl):
    """Audio referenced by URL."""

    _: KW_ONLY
    kind: Literal['audio-url'] = 'audio-url'
    """Type discriminator."""

    def __init__(
        self,
        url: str,
        *,
        force_download: bool = False,
        vendor_metadata: dict[str, Any] | None = None,
        media_type: str | None = None,
        identifier: str | None = None,
        kind: Literal['audio-url'] = 'audio-url',
    ) -> None:
        super().__init__(
            url, force_download=force_download, vendor_metadata=vendor_metadata, media_type=media_type, identifier=identifier
        )
        self.kind = kind


@dataclass(init=False, repr=False)
class VideoUrl(FileUrl):
    """A video referenced by URL."""

    _: KW_ONLY
    kind: Literal['video-url'] = 'video-url'
    """Type discriminator."""

    def __init__(
        self,
        url: str,
        *,
        force_download: bool = False,
        vendor_metadata: dict[str, Any] | None = None,
        media_type: str | None = None,
        identifier: str | None = None,
        kind: Literal['video-url'] = 'video-url',
    ) -> None:
        super().__init__(
            url, force_download=force_download, vendor_metadata=vendor_metadata, media_type=media_type, identifier=identifier
        )
        self.kind = kind


@dataclass(init=False, repr=False)
class DocumentUrl(FileUrl):
    """A document referenced by URL."""

    _: KW_ONLY
    kind: Literal['document-url'] = 'document-url'
    """Type discriminator."""

    def __init__(
        self,
        url: str,
        *,
        force_download: bool = False,
        vendor_metadata: dict[str, Any] | None = None,
        media_type: str | None = None,
        identifier: str | None = None,
        kind: Literal['document-url'] = 'document-url',
    ) -> None:
        super().__init__(
            url, force_download=force_download, vendor_metadata=vendor_metadata, media_type=media_type, identifier=identifier
        )
        self.kind = kind


@dataclass(init=False, repr=False)
class BinaryContent:
    """Content given as bytes, e.g. an image read from disk."""

    data: bytes
    """The raw bytes."""
    _: KW_ONLY
    media_type: AudioMediaType | ImageMediaType | DocumentMediaType | str
    """The media type of the data."""
    vendor_metadata: dict[str, Any] | None = None
    """Provider-specific metadata for the content."""
    _identifier: Annotated[str | None, pydantic.Field(alias='identifier', default=None, exclude=True)] = field(
        compare=False, default=None
    )
    kind: Literal['binary'] = 'binary'
    """Type discriminator."""

    def __init__(
        self,
        data: bytes,
        *,
        media_type: AudioMediaType | ImageMediaType | DocumentMediaType | str,
        identifier: str | None = None,
        vendor_metadata: dict[str, Any] | None = None,
        kind: Literal['binary'] = 'binary',
    ) -> None:
        self.data = data
        self.media_type = media_type
        self._identifier = identifier
        self.vendor_metadata = vendor_metadata
        self.kind = kind

    @pydantic.computed_field
    @property
    def identifier(self) -> str:
        """A short identifier for the content, given or derived from the data."""
        return self._identifier or _short_hash(self.data)

    @property
    def is_image(self) -> bool:
        """Whether the content is an image."""
        return self.media_type.startswith('image/')

    @property
    def is_audio(self) -> bool:
        """Whether the content is audio."""
        return self.media_type.startswith('audio/')

    @property
    def is_video(self) -> bool:
        """Whether the content is a video."""
        return self.media_type.startswith('video/')

    @property
    def is_document(self) -> bool:
        """Whether the content is a document."""
        return self.media_type in _DOCUMENT_MEDIA_TYPES

    @property
    def format(self) -> str:
        """The short format name, e.g. `'png'`."""
        try:
            return _FORMAT_BY_MEDIA_TYPE[self.media_type]
        except KeyError as e:
            raise ValueError(f'Unknown media type: {self.media_type}') from e

    __repr__ = _utils.dataclasses_no_defaults_repr


_DOCUMENT_MEDIA_TYPES = frozenset(
    k for k, v in _FORMAT_BY_MEDIA_TYPE.items() if v in ('pdf', 'txt', 'csv', 'docx', 'xlsx', 'html', 'md', 'doc', 'xls')
)


@dataclass(repr=False)
class CachePoint:
    """A marker in a user prompt where a provider that supports prompt caching may cache up to."""

    kind: Literal['cache-point'] = 'cache-point'
    """Type discriminator."""
    ttl: Literal['5m', '1h'] = '5m'
    """How long the cache entry lives."""

    __repr__ = _utils.dataclasses_no_defaults_repr


MultiModalContent: TypeAlias = ImageUrl | AudioUrl | DocumentUrl | VideoUrl | BinaryContent
"""Non-text content of a user prompt."""
UserContent: TypeAlias = str | MultiModalContent | CachePoint
"""One item of a user prompt."""

ToolReturnContent = TypeAliasType('ToolReturnContent', Any)
"""What a tool returned: any value pydantic can serialize."""

_tool_return_ta: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(Any, config=pydantic.ConfigDict(defer_build=True))
_error_details_ta = pydantic.TypeAdapter(list[pydantic_core.ErrorDetails], config=pydantic.ConfigDict(defer_build=True))


@dataclass(repr=False)
class SystemPromptPart:
    """A system prompt: instructions from the developer to the model."""

    content: str
    """The text of the prompt."""
    _: KW_ONLY
    timestamp: datetime = field(default_factory=_utils.now_utc)
    """When the part was made."""
    dynamic_ref: str | None = None
    """The qualified name of the dynamic system prompt function that made it, if any."""
    part_kind: Literal['system-prompt'] = 'system-prompt'
    """Type discriminator."""

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(repr=False)
class UserPromptPart:
    """A user prompt: text, or a sequence of text and multi-modal content."""

    content: str | Sequence[UserContent]
    """The content of the prompt."""
    _: KW_ONLY
    timestamp: datetime = field(default_factory=_utils.now_utc)
    """When the part was made."""
    part_kind: Literal['user-prompt'] = 'user-prompt'
    """Type discriminator."""

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(repr=False)
class BaseToolReturnPart:
    """Base class of tool results."""

    tool_name: str
    """The name of the tool that was called."""
    content: ToolReturnContent
    """What the tool returned."""
    tool_call_id: str = field(default_factory=_utils.generate_tool_call_id)
    """The id of the tool call this answers."""
    _: KW_ONLY
    metadata: Any = None
    """Data for the application, not sent to the model."""
    timestamp: datetime = field(default_factory=_utils.now_utc)
    """When the part was made."""

    def model_response_str(self) -> str:
        """The content as the model sees it: a string as is, anything else as compact JSON."""
        if isinstance(self.content, str):
            return self.content
        return _tool_return_ta.dump_json(self.content).decode()

    def model_response_object(self) -> dict[str, Any]:
        """The content as a JSON object, for providers that want one."""
        json_content = _tool_return_ta.dump_python(self.content, mode='json')
        if isinstance(json_content, dict):
            return cast(dict[str, Any], json_content)
        return {'return_value': json_content}

    def has_content(self) -> bool:
        """Whether the part has content."""
        return self.content is not None

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(repr=False)
class ToolReturnPart(BaseToolReturnPart):
    """The result of a tool call, sent back to the model."""

    _: KW_ONLY
    part_kind: Literal['tool-return'] = 'tool-return'
    """Type discriminator."""


@dataclass(repr=False)
class ToolReturn:
    """A tool result with extra content for the model and metadata for the application.

    `return_value` becomes the tool return part; `content` is sent to the model as a separate user
    prompt; `metadata` is kept on the tool return part but not sent.
    """

    return_value: ToolReturnContent
    """The value the model sees as the tool's result."""
    _: KW_ONLY
    content: str | Sequence[UserContent] | None = None
    """Extra content sent to the model in a user prompt after the tool results."""
    metadata: Any = None
    """Data for the application, not sent to the model."""
    kind: Literal['tool-return'] = 'tool-return'
    """Type discriminator."""

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(repr=False)
class RetryPromptPart:
    """A request to the model to try again, with the reason.

    Sent when a tool raised `ModelRetry`, a tool's arguments did not validate, the model called an
    unknown tool, or the output did not validate.
    """

    content: list[pydantic_core.ErrorDetails] | str
    """The validation errors, or a message explaining what to fix."""
    _: KW_ONLY
    tool_name: str | None = None
    """The tool the retry is about, if any."""
    tool_call_id: str = field(default_factory=_utils.generate_tool_call_id)
    """The id of the tool call the retry answers."""
    timestamp: datetime = field(default_factory=_utils.now_utc)
    """When the part was made."""
    part_kind: Literal['retry-prompt'] = 'retry-prompt'
    """Type discriminator."""

    def model_response(self) -> str:
        """The text the model is shown."""
        if isinstance(self.content, str):
            description = self.content if self.tool_name is not None else f'Validation feedback:\n{self.content}'
        else:
            errors_json = _error_details_ta.dump_json(self.content, exclude={'__all__': {'ctx'}}, indent=2).decode()
            count = len(self.content)
            description = f'{count} validation error{"" if count == 1 else "s"}:\n```json\n{errors_json}\n```'
        return f'{description}\n\nFix the errors and try again.'

    __repr__ = _utils.dataclasses_no_defaults_repr


ModelRequestPart = Annotated[
    SystemPromptPart | UserPromptPart | ToolReturnPart | RetryPromptPart, pydantic.Discriminator('part_kind')
]
"""A part of a request to a model."""


@dataclass(repr=False)
class ModelRequest:
    """A request the agent sends to a model."""

    parts: Sequence[ModelRequestPart]
    """The parts of the request."""
    _: KW_ONLY
    timestamp: datetime | None = None
    """When the request was sent."""
    instructions: str | None = None
    """The instructions sent with the request."""
    kind: Literal['request'] = 'request'
    """Type discriminator."""
    run_id: str | None = None
    """The id of the run that made the request."""
    metadata: dict[str, Any] | None = None
    """Data for the application, not sent to the model."""

    @classmethod
    def user_text_prompt(cls, user_prompt: str, *, instructions: str | None = None) -> ModelRequest:
        """A request holding one user prompt."""
        return cls(parts=[UserPromptPart(user_prompt)], instructions=instructions)

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(repr=False)
class TextPart:
    """Plain text from the model."""

    content: str
    """The text."""
    _: KW_ONLY
    id: str | None = None
    """The provider's id of the part."""
    provider_name: str | None = None
    """The provider that made the part."""
    provider_details: dict[str, Any] | None = None
    """Provider-specific details."""
    part_kind: Literal['text'] = 'text'
    """Type discriminator."""

    def has_content(self) -> bool:
        """Whether the part has text."""
        return bool(self.content)

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(repr=False)
class ThinkingPart:
    """The model's reasoning, where the provider returns it."""

    content: str
    """The reasoning text."""
    _: KW_ONLY
    id: str | None = None
    """The provider's id of the part."""
    signature: str | None = None
    """The provider's signature of the reasoning, sent back unchanged."""
    provider_name: str | None = None
    """The provider that made the part."""
    provider_details: dict[str, Any] | None = None
    """Provider-specific details."""
    part_kind: Literal['thinking'] = 'thinking'
    """Type discriminator."""

    def has_content(self) -> bool:
        """Whether the part has text."""
        return bool(self.content)

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(repr=False)
class BaseToolCallPart:
    """Base class of tool calls."""

    tool_name: str
    """The name of the tool to call."""
    args: str | dict[str, Any] | None = None
    """The arguments: a JSON string, a dict, or `None` for none."""
    tool_call_id: str = field(default_factory=_utils.generate_tool_call_id)
    """The id of the call; its result must carry the same id."""
    _: KW_ONLY
    id: str | None = None
    """The provider's id of the part."""
    provider_name: str | None = None
    """The provider that made the part."""
    provider_details: dict[str, Any] | None = None
    """Provider-specific details."""

    def args_as_dict(self) -> dict[str, Any]:
        """The arguments as a dict, parsing a JSON string if needed."""
        if not self.args:
            return {}
        if isinstance(self.args, dict):
            return self.args
        parsed = pydantic_core.from_json(self.args)
        assert isinstance(parsed, dict), 'args should be a dict'
        return cast(dict[str, Any], parsed)

    def args_as_json_str(self) -> str:
        """The arguments as a JSON string, dumping a dict if needed."""
        if not self.args:
            return '{}'
        if isinstance(self.args, str):
            return self.args
        return pydantic_core.to_json(self.args).decode()

    def has_content(self) -> bool:
        """Whether the call has arguments."""
        if isinstance(self.args, dict):
            return any(self.args.values())
        return bool(self.args)

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(repr=False)
class ToolCallPart(BaseToolCallPart):
    """A call of a tool by the model."""

    _: KW_ONLY
    part_kind: Literal['tool-call'] = 'tool-call'
    """Type discriminator."""


ModelResponsePart = Annotated[TextPart | ToolCallPart | ThinkingPart, pydantic.Discriminator('part_kind')]
"""A part of a model's response."""


@dataclass(repr=False)
class ModelResponse:
    """A response from a model."""

    parts: Sequence[ModelResponsePart]
    """The parts of the response."""
    _: KW_ONLY
    usage: RequestUsage = field(default_factory=RequestUsage)
    """The tokens the request and response used."""
    model_name: str | None = None
    """The name of the model that answered."""
    timestamp: datetime = field(default_factory=_utils.now_utc)
    """When the response was received."""
    kind: Literal['response'] = 'response'
    """Type discriminator."""
    provider_name: str | None = None
    """The provider that answered."""
    provider_url: str | None = None
    """The base URL of the provider."""
    provider_details: Annotated[
        dict[str, Any] | None, pydantic.Field(validation_alias=pydantic.AliasChoices('provider_details', 'vendor_details'))
    ] = None
    """Provider-specific details."""
    provider_response_id: Annotated[
        str | None, pydantic.Field(validation_alias=pydantic.AliasChoices('provider_response_id', 'vendor_id'))
    ] = None
    """The provider's id of the response."""
    finish_reason: FinishReason | None = None
    """Why the model stopped."""
    run_id: str | None = None
    """The id of the run that received the response."""
    metadata: dict[str, Any] | None = None
    """Data for the application."""

    @property
    def text(self) -> str | None:
        """The text parts joined, or `None` if there are none."""
        texts = [part.content for part in self.parts if isinstance(part, TextPart)]
        return ''.join(texts) if texts else None

    @property
    def thinking(self) -> str | None:
        """The thinking parts joined by blank lines, or `None` if there are none."""
        texts = [part.content for part in self.parts if isinstance(part, ThinkingPart)]
        return '\n\n'.join(texts) if texts else None

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        """The tool call parts."""
        return [part for part in self.parts if isinstance(part, ToolCallPart)]

    __repr__ = _utils.dataclasses_no_defaults_repr


ModelMessage = Annotated[ModelRequest | ModelResponse, pydantic.Discriminator('kind')]
"""A message of a conversation: a request or a response."""

ModelMessagesTypeAdapter = pydantic.TypeAdapter(
    list[ModelMessage], config=pydantic.ConfigDict(defer_build=True, ser_json_bytes='base64', val_json_bytes='base64')
)
"""Validates and serializes a list of messages, e.g. a stored history."""


# Streaming deltas and events.


@dataclass(repr=False)
class TextPartDelta:
    """New text for a streamed `TextPart`."""

    content_delta: str
    """The text to append."""
    _: KW_ONLY
    provider_name: str | None = None
    """The provider that made the delta."""
    provider_details: dict[str, Any] | None = None
    """Provider-specific details."""
    part_delta_kind: Literal['text'] = 'text'
    """Type discriminator."""

    def apply(self, part: ModelResponsePart) -> TextPart:
        """Append this delta to a text part."""
        if not isinstance(part, TextPart):
            raise ValueError('Cannot apply TextPartDeltas to non-TextParts')
        return TextPart(
            part.content + self.content_delta,
            id=part.id,
            provider_name=self.provider_name or part.provider_name,
            provider_details={**(part.provider_details or {}), **(self.provider_details or {})} or None,
        )

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(repr=False, kw_only=True)
class ThinkingPartDelta:
    """New reasoning text or signature for a streamed `ThinkingPart`."""

    content_delta: str | None = None
    """The text to append."""
    signature_delta: str | None = None
    """A new signature, replacing the old one."""
    provider_name: str | None = None
    """The provider that made the delta."""
    provider_details: dict[str, Any] | None = None
    """Provider-specific details."""
    part_delta_kind: Literal['thinking'] = 'thinking'
    """Type discriminator."""

    def apply(self, part: ModelResponsePart | ThinkingPartDelta) -> ThinkingPart | ThinkingPartDelta:
        """Apply this delta to a thinking part, or merge it into an earlier delta."""
        if isinstance(part, ThinkingPart):
            return ThinkingPart(
                part.content + (self.content_delta or ''),
                id=part.id,
                signature=self.signature_delta if self.signature_delta is not None else part.signature,
                provider_name=self.provider_name or part.provider_name,
                provider_details={**(part.provider_details or {}), **(self.provider_details or {})} or None,
            )
        if isinstance(part, ThinkingPartDelta):
            return ThinkingPartDelta(
                content_delta=(part.content_delta or '') + (self.content_delta or '') or None,
                signature_delta=self.signature_delta if self.signature_delta is not None else part.signature_delta,
                provider_name=self.provider_name or part.provider_name,
                provider_details={**(part.provider_details or {}), **(self.provider_details or {})} or None,
            )
        raise ValueError('Cannot apply ThinkingPartDeltas to non-ThinkingParts or non-ThinkingPartDeltas')

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(repr=False, kw_only=True)
class ToolCallPartDelta:
    """New name or argument text for a streamed `ToolCallPart`."""

    tool_name_delta: str | None = None
    """Text to append to the tool name."""
    args_delta: str | dict[str, Any] | None = None
    """Argument JSON text to append, or a dict to merge."""
    tool_call_id: str | None = None
    """The call's id, once known."""
    provider_name: str | None = None
    """The provider that made the delta."""
    provider_details: dict[str, Any] | None = None
    """Provider-specific details."""
    part_delta_kind: Literal['tool_call'] = 'tool_call'
    """Type discriminator."""

    def as_part(self) -> ToolCallPart | None:
        """A tool call part made from this delta, if it has a tool name."""
        if self.tool_name_delta is None:
            return None
        return ToolCallPart(
            self.tool_name_delta,
            self.args_delta,
            self.tool_call_id or _utils.generate_tool_call_id(),
            provider_name=self.provider_name,
            provider_details=self.provider_details,
        )

    def apply(self, part: ModelResponsePart | ToolCallPartDelta) -> ToolCallPart | ToolCallPartDelta:
        """Apply this delta to a tool call part, or merge it into an earlier delta."""
        if isinstance(part, ToolCallPart):
            return ToolCallPart(
                part.tool_name + (self.tool_name_delta or ''),
                _merge_args(part.args, self.args_delta),
                self.tool_call_id or part.tool_call_id,
                id=part.id,
                provider_name=self.provider_name or part.provider_name,
                provider_details={**(part.provider_details or {}), **(self.provider_details or {})} or None,
            )
        if isinstance(part, ToolCallPartDelta):
            merged = ToolCallPartDelta(
                tool_name_delta=_concat(part.tool_name_delta, self.tool_name_delta),
                args_delta=_merge_args(part.args_delta, self.args_delta),
                tool_call_id=self.tool_call_id or part.tool_call_id,
                provider_name=self.provider_name or part.provider_name,
                provider_details={**(part.provider_details or {}), **(self.provider_details or {})} or None,
            )
            return merged.as_part() or merged
        raise ValueError(f'Can only apply ToolCallPartDeltas to ToolCallParts or ToolCallPartDeltas, not {part}')

    __repr__ = _utils.dataclasses_no_defaults_repr


def _concat(a: str | None, b: str | None) -> str | None:
    if a is None:
        return b
    return a + (b or '')


def _merge_args(
    current: str | dict[str, Any] | None, delta: str | dict[str, Any] | None
) -> str | dict[str, Any] | None:
    if delta is None:
        return current
    if current is None:
        return delta
    if isinstance(current, str) and isinstance(delta, str):
        return current + delta
    if isinstance(current, dict) and isinstance(delta, dict):
        return {**current, **delta}
    raise UnexpectedToolArgs('Cannot apply a JSON string args delta to dict args, or a dict args delta to string args')


class UnexpectedToolArgs(ValueError):
    """A streamed tool call mixed string and dict argument deltas."""


ModelResponsePartDelta = Annotated[
    TextPartDelta | ThinkingPartDelta | ToolCallPartDelta, pydantic.Discriminator('part_delta_kind')
]
"""A change to a streamed response part."""

_PartKind: TypeAlias = Literal['text', 'thinking', 'tool-call', 'builtin-tool-call', 'builtin-tool-return', 'file']


@dataclass(repr=False, kw_only=True)
class PartStartEvent:
    """A new part of a streamed response started."""

    index: int
    """The index of the part in the response."""
    part: ModelResponsePart
    """The part as first received."""
    previous_part_kind: _PartKind | None = None
    """The kind of the part before it, if any."""
    event_kind: Literal['part_start'] = 'part_start'
    """Type discriminator."""

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(repr=False, kw_only=True)
class PartDeltaEvent:
    """A streamed response part changed."""

    index: int
    """The index of the part in the response."""
    delta: ModelResponsePartDelta
    """The change."""
    event_kind: Literal['part_delta'] = 'part_delta'
    """Type discriminator."""

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(repr=False, kw_only=True)
class PartEndEvent:
    """A part of a streamed response is complete."""

    index: int
    """The index of the part in the response."""
    part: ModelResponsePart
    """The complete part."""
    next_part_kind: _PartKind | None = None
    """The kind of the part after it, if any."""
    event_kind: Literal['part_end'] = 'part_end'
    """Type discriminator."""

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(repr=False, kw_only=True)
class FinalResultEvent:
    """The streamed response holds the final result: an output tool call, or text."""

    tool_name: str | None
    """The output tool's name, or `None` for text output."""
    tool_call_id: str | None
    """The output tool call's id, or `None` for text output."""
    event_kind: Literal['final_result'] = 'final_result'
    """Type discriminator."""

    __repr__ = _utils.dataclasses_no_defaults_repr


ModelResponseStreamEvent = Annotated[
    PartStartEvent | PartDeltaEvent | PartEndEvent | FinalResultEvent, pydantic.Discriminator('event_kind')
]
"""An event of a streamed model response."""


@dataclass(repr=False)
class FunctionToolCallEvent:
    """A function tool is about to be called."""

    part: ToolCallPart
    """The tool call."""
    _: KW_ONLY
    event_kind: Literal['function_tool_call'] = 'function_tool_call'
    """Type discriminator."""

    @property
    def tool_call_id(self) -> str:
        """The id of the tool call."""
        return self.part.tool_call_id

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(repr=False)
class FunctionToolResultEvent:
    """A function tool call finished."""

    result: ToolReturnPart | RetryPromptPart
    """The result sent to the model."""
    _: KW_ONLY
    content: str | Sequence[UserContent] | None = None
    """Extra user content from a `ToolReturn`."""
    event_kind: Literal['function_tool_result'] = 'function_tool_result'
    """Type discriminator."""

    @property
    def tool_call_id(self) -> str:
        """The id of the tool call."""
        return self.result.tool_call_id

    __repr__ = _utils.dataclasses_no_defaults_repr


HandleResponseEvent = Annotated[FunctionToolCallEvent | FunctionToolResultEvent, pydantic.Discriminator('event_kind')]
"""An event of the tool-call stage of a run."""

AgentStreamEvent = Annotated[ModelResponseStreamEvent | HandleResponseEvent, pydantic.Discriminator('event_kind')]
"""Any event of an agent run's event stream."""


def tool_return_json(content: Any) -> str:
    """The compact JSON of a tool return value (used by the fake models' token estimates)."""
    return _tool_return_ta.dump_json(content).decode()
