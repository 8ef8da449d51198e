"""The messages exchanged with models, their parts, and the events of a streamed run.

A conversation is a list of `ModelMessage`s: each is a `ModelRequest` (what the agent sends: prompts,
tool results, retry prompts) or a `ModelResponse` (what the model answered: text, thinking, tool calls).
Every type here survives a JSON round trip through `ModelMessagesTypeAdapter`.

The module is one file because it is one public import path; multi-modal content comes first, then
request parts, response parts, messages, and the streaming deltas and events.
"""

from __future__ import annotations

import base64
import hashlib
import mimetypes
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias, TypeVar, cast, overload
from urllib.parse import urlparse

import pydantic
import pydantic_core
from typing_extensions import TypeAliasType, deprecated

from . import _utils
from ._validated_dataclass import validated_dataclass
from .exceptions import UnexpectedModelBehavior
from .usage import RequestUsage

if TYPE_CHECKING:
    from genai_prices.types import PriceCalculation
    from opentelemetry._logs import LogRecord

    from ._otel_messages import MessagePart
    from .models.instrumented import InstrumentationSettings

__all__ = (
    'AgentStreamEvent',
    'AudioFormat',
    'AudioMediaType',
    'AudioUrl',
    'BaseToolCallPart',
    'BaseToolReturnPart',
    'BinaryContent',
    'BinaryImage',
    'BuiltinToolCallEvent',
    'BuiltinToolCallPart',
    'BuiltinToolResultEvent',
    'BuiltinToolReturnPart',
    'CachePoint',
    'DeferredToolRequestsEvent',
    'DeferredToolResultsEvent',
    'DocumentFormat',
    'DocumentMediaType',
    'DocumentUrl',
    'FilePart',
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
    'ProviderDetailsDelta',
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
    'tool_return_json',
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

_AUDIO_FORMATS: dict[str, AudioFormat] = {
    'audio/wav': 'wav',
    'audio/mpeg': 'mp3',
    'audio/ogg': 'oga',
    'audio/flac': 'flac',
    'audio/aiff': 'aiff',
    'audio/aac': 'aac',
}
_IMAGE_FORMATS: dict[str, ImageFormat] = {
    'image/jpeg': 'jpeg',
    'image/png': 'png',
    'image/gif': 'gif',
    'image/webp': 'webp',
}
_DOCUMENT_FORMATS: dict[str, DocumentFormat] = {
    'application/pdf': 'pdf',
    'text/plain': 'txt',
    'text/csv': 'csv',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
    'text/html': 'html',
    'text/markdown': 'md',
    'application/msword': 'doc',
    'application/vnd.ms-excel': 'xls',
}
_VIDEO_FORMATS: dict[str, VideoFormat] = {
    'video/x-matroska': 'mkv',
    'video/quicktime': 'mov',
    'video/mp4': 'mp4',
    'video/webm': 'webm',
    'video/x-flv': 'flv',
    'video/mpeg': 'mpeg',
    'video/x-ms-wmv': 'wmv',
    'video/3gpp': 'three_gp',
}
_ALL_FORMATS: dict[str, str] = {**_AUDIO_FORMATS, **_IMAGE_FORMATS, **_DOCUMENT_FORMATS, **_VIDEO_FORMATS}


@cache
def _mime_types() -> mimetypes.MimeTypes:
    """A private media type database: the system's tables plus a few types that models accept.

    The standard tables lack some of those or name them differently (e.g. `audio/wav` rather than `audio/x-wav`).
    Built on first use: reading the system's tables is a noticeable part of a cold import.
    """
    types = mimetypes.MimeTypes()
    for path in mimetypes.knownfiles:
        if os.path.isfile(path):
            types.read(path)
    for media_type, extension in (
        ('text/x-asciidoc', '.asciidoc'),
        ('text/markdown', '.mdx'),
        ('video/3gpp', '.three_gp'),
        ('application/toml', '.toml'),
        ('application/yaml', '.yaml'),
        ('application/yaml', '.yml'),
        ('audio/wav', '.wav'),
        ('audio/aiff', '.aiff'),
    ):
        types.add_type(media_type, extension)
    return types


_YOUTUBE_HOSTS = frozenset({'www.youtube.com', 'youtube.com', 'youtu.be'})


def _short_hash(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:6]


def _guess_media_type(url: str, what: str) -> str:
    media_type, _ = _mime_types().guess_type(url)
    if media_type is None:
        raise ValueError(
            f'Could not infer media type from {what} URL: {url}. Explicitly provide a `media_type` instead.'
        )
    return media_type


@validated_dataclass(pydantic.ConfigDict(validate_by_name=True))
class FileUrl(ABC):
    """Base class of content referenced by URL: images, audio, video and documents."""

    url: str
    """The URL of the file."""
    _: KW_ONLY
    force_download: bool = False
    """Download the file and send its bytes instead of the URL, for providers that cannot fetch URLs."""
    vendor_metadata: dict[str, Any] | None = None
    """Provider-specific metadata for the file, e.g. an image detail level."""
    _media_type: Annotated[str | None, pydantic.Field(alias='media_type', default=None, exclude=True)] = field(
        compare=False, default=None
    )
    _identifier: Annotated[str | None, pydantic.Field(alias='identifier', default=None, exclude=True)] = field(
        compare=False, default=None
    )

    def __init__(  # noqa: B027 -- deliberately empty, see the comment in the body
        self,
        url: str,
        *,
        media_type: str | None = None,
        identifier: str | None = None,
        force_download: bool = False,
        vendor_metadata: dict[str, Any] | None = None,
    ) -> None:
        # Never runs: pydantic replaces `__init__` with one that validates the arguments and sets the fields.
        # It is declared for its signature, which type checkers and `inspect.signature` report.
        ...

    @abstractmethod
    def _infer_media_type(self) -> str:
        """The media type guessed from the URL."""

    @pydantic.computed_field
    @property
    def media_type(self) -> str:
        """The media type: the one given, or one inferred from the URL."""
        return self._media_type or self._infer_media_type()

    @pydantic.computed_field
    @property
    def identifier(self) -> str:
        """A short identifier for the file: the one given, or a hash of the URL."""
        return self._identifier or _short_hash(self.url.encode())

    @property
    @abstractmethod
    def format(self) -> str:
        """The short format name of the media type, e.g. `'png'`."""

    __repr__ = _utils.dataclasses_no_defaults_repr


@validated_dataclass(pydantic.ConfigDict(validate_by_name=True))
class ImageUrl(FileUrl):
    """An image referenced by URL."""

    _: KW_ONLY
    kind: Literal['image-url'] = 'image-url'
    """Type discriminator."""

    def __init__(
        self,
        url: str,
        *,
        media_type: str | None = None,
        identifier: str | None = None,
        force_download: bool = False,
        vendor_metadata: dict[str, Any] | None = None,
        kind: Literal['image-url'] = 'image-url',
    ) -> None:
        # Never runs; see `FileUrl.__init__`.
        ...

    def _infer_media_type(self) -> str:
        return _guess_media_type(self.url, 'image')

    @property
    def format(self) -> ImageFormat:
        """The image format; raises `KeyError` for a media type that is not a supported image type."""
        return _IMAGE_FORMATS[self.media_type]


@validated_dataclass(pydantic.ConfigDict(validate_by_name=True))
class AudioUrl(FileUrl):
    """Audio referenced by URL."""

    _: KW_ONLY
    kind: Literal['audio-url'] = 'audio-url'
    """Type discriminator."""

    def __init__(
        self,
        url: str,
        *,
        media_type: str | None = None,
        identifier: str | None = None,
        force_download: bool = False,
        vendor_metadata: dict[str, Any] | None = None,
        kind: Literal['audio-url'] = 'audio-url',
    ) -> None:
        # Never runs; see `FileUrl.__init__`.
        ...

    def _infer_media_type(self) -> str:
        return _guess_media_type(self.url, 'audio')

    @property
    def format(self) -> AudioFormat:
        """The audio format; raises `KeyError` for a media type that is not a supported audio type."""
        return _AUDIO_FORMATS[self.media_type]


@validated_dataclass(pydantic.ConfigDict(validate_by_name=True))
class VideoUrl(FileUrl):
    """A video referenced by URL, including YouTube links."""

    _: KW_ONLY
    kind: Literal['video-url'] = 'video-url'
    """Type discriminator."""

    def __init__(
        self,
        url: str,
        *,
        media_type: str | None = None,
        identifier: str | None = None,
        force_download: bool = False,
        vendor_metadata: dict[str, Any] | None = None,
        kind: Literal['video-url'] = 'video-url',
    ) -> None:
        # Never runs; see `FileUrl.__init__`.
        ...

    @property
    def is_youtube(self) -> bool:
        """Whether the URL points at YouTube."""
        return urlparse(self.url).hostname in _YOUTUBE_HOSTS

    def _infer_media_type(self) -> str:
        # YouTube pages have no file extension; the providers that accept them treat them as MP4 video.
        if self.is_youtube:
            return 'video/mp4'
        return _guess_media_type(self.url, 'video')

    @property
    def format(self) -> VideoFormat:
        """The video format; raises `KeyError` for a media type that is not a supported video type."""
        return _VIDEO_FORMATS[self.media_type]


@validated_dataclass(pydantic.ConfigDict(validate_by_name=True))
class DocumentUrl(FileUrl):
    """A document referenced by URL, e.g. a PDF."""

    _: KW_ONLY
    kind: Literal['document-url'] = 'document-url'
    """Type discriminator."""

    def __init__(
        self,
        url: str,
        *,
        media_type: str | None = None,
        identifier: str | None = None,
        force_download: bool = False,
        vendor_metadata: dict[str, Any] | None = None,
        kind: Literal['document-url'] = 'document-url',
    ) -> None:
        # Never runs; see `FileUrl.__init__`.
        ...

    def _infer_media_type(self) -> str:
        return _guess_media_type(self.url, 'document')

    @property
    def format(self) -> DocumentFormat:
        """The document format; raises `ValueError` for a media type that is not a supported document type."""
        try:
            return _DOCUMENT_FORMATS[self.media_type]
        except KeyError as e:
            raise ValueError(f'Unknown document media type: {self.media_type}') from e


_BYTES_CONFIG = pydantic.ConfigDict(ser_json_bytes='base64', val_json_bytes='base64')


@validated_dataclass(_BYTES_CONFIG)
class BinaryContent:
    """Content given as bytes, e.g. an image read from disk; serialized to JSON as base64."""

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
        # Never runs: pydantic replaces `__init__` with one that validates the arguments and sets the fields.
        # It is declared for its signature, which type checkers and `inspect.signature` report.
        ...

    @staticmethod
    def narrow_type(bc: BinaryContent) -> BinaryContent | BinaryImage:
        """Return image content as a `BinaryImage`, anything else unchanged."""
        if bc.is_image:
            return BinaryImage(
                data=bc.data, media_type=bc.media_type, identifier=bc.identifier, vendor_metadata=bc.vendor_metadata
            )
        return bc

    @classmethod
    def from_data_uri(cls, data_uri: str) -> BinaryContent:
        """Make content from a `data:<media type>;base64,<data>` URI."""
        prefix = 'data:'
        if not data_uri.startswith(prefix):
            raise ValueError('Data URI must start with "data:"')
        media_type, data = data_uri[len(prefix) :].split(';base64,', 1)
        return cls.narrow_type(cls(data=base64.b64decode(data), media_type=media_type))

    @classmethod
    def from_path(cls, path: os.PathLike[str]) -> BinaryContent:
        """Read content from a file, guessing its media type from the name (`application/octet-stream` if unknown)."""
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f'File not found: {path}')
        media_type, _ = _mime_types().guess_type(path)
        return cls.narrow_type(cls(data=path.read_bytes(), media_type=media_type or 'application/octet-stream'))

    @pydantic.computed_field
    @property
    def identifier(self) -> str:
        """A short identifier for the content: the one given, or a hash of the data."""
        return self._identifier or _short_hash(self.data)

    @property
    def data_uri(self) -> str:
        """The content as a `data:` URI."""
        return f'data:{self.media_type};base64,{self.base64}'

    @property
    def base64(self) -> str:
        """The data, base64-encoded."""
        return base64.b64encode(self.data).decode()

    @property
    def is_audio(self) -> bool:
        """Whether the content is audio."""
        return self.media_type.startswith('audio/')

    @property
    def is_image(self) -> bool:
        """Whether the content is an image."""
        return self.media_type.startswith('image/')

    @property
    def is_video(self) -> bool:
        """Whether the content is a video."""
        return self.media_type.startswith('video/')

    @property
    def is_document(self) -> bool:
        """Whether the content is a supported document type."""
        return self.media_type in _DOCUMENT_FORMATS

    @property
    def format(self) -> str:
        """The short format name, e.g. `'png'`; raises `ValueError` for an unsupported media type."""
        try:
            return _ALL_FORMATS[self.media_type]
        except KeyError as e:
            raise ValueError(f'Unknown media type: {self.media_type}') from e

    __repr__ = _utils.dataclasses_no_defaults_repr


@validated_dataclass(_BYTES_CONFIG)
class BinaryImage(BinaryContent):
    """Image content given as bytes; the media type must be an `image/` type."""

    def __init__(
        self,
        data: bytes,
        *,
        media_type: ImageMediaType | str,
        identifier: str | None = None,
        vendor_metadata: dict[str, Any] | None = None,
        kind: Literal['binary'] = 'binary',
    ) -> None:
        # Never runs; see `BinaryContent.__init__`.
        ...

    def __post_init__(self) -> None:
        if not self.is_image:
            raise ValueError('`BinaryImage` must have a media type that starts with "image/"')


@dataclass
class CachePoint:
    """A marker in a user prompt: providers that support prompt caching may cache everything before it."""

    kind: Literal['cache-point'] = 'cache-point'
    """Type discriminator."""
    ttl: Literal['5m', '1h'] = '5m'
    """How long the cache entry lives."""


MultiModalContent: TypeAlias = ImageUrl | AudioUrl | DocumentUrl | VideoUrl | BinaryContent
"""Non-text content of a user prompt."""
UserContent: TypeAlias = str | MultiModalContent | CachePoint
"""One item of a user prompt."""

if TYPE_CHECKING:
    # Type checkers resolve the recursion more reliably through a plain recursive alias.
    ToolReturnContent: TypeAlias = (
        MultiModalContent | Sequence['ToolReturnContent'] | Mapping[str, 'ToolReturnContent'] | Any
    )
else:
    # At runtime a named alias lets pydantic validate the recursion (and name it in JSON schemas).
    ToolReturnContent = TypeAliasType(
        'ToolReturnContent',
        MultiModalContent | Sequence['ToolReturnContent'] | Mapping[str, 'ToolReturnContent'] | Any,
    )
"""What a tool returned: multi-modal content, sequences and mappings of it, or any value pydantic can serialize."""

_tool_return_ta: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(
    Any, config=pydantic.ConfigDict(defer_build=True, ser_json_bytes='base64', val_json_bytes='base64')
)
_error_details_ta = pydantic.TypeAdapter(list[pydantic_core.ErrorDetails], config=pydantic.ConfigDict(defer_build=True))


def tool_return_json(content: Any) -> str:
    """The compact JSON of a tool return value, as the model is shown it."""
    return _tool_return_ta.dump_json(content).decode()


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

    def otel_event(self, settings: InstrumentationSettings) -> LogRecord:
        """The part as a GenAI event, for instrumentation version 1."""
        from . import _otel_messages

        return _otel_messages.part_event(self, settings)

    def otel_message_parts(self, settings: InstrumentationSettings) -> list[MessagePart]:
        """The part as GenAI message parts, for instrumentation versions 2 and 3."""
        from . import _otel_messages

        return _otel_messages.part_message_parts(self, settings)


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

    def otel_event(self, settings: InstrumentationSettings) -> LogRecord:
        """The part as a GenAI event, for instrumentation version 1."""
        from . import _otel_messages

        return _otel_messages.part_event(self, settings)

    def otel_message_parts(self, settings: InstrumentationSettings) -> list[MessagePart]:
        """The part as GenAI message parts, for instrumentation versions 2 and 3."""
        from . import _otel_messages

        return _otel_messages.part_message_parts(self, settings)


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

    def otel_event(self, settings: InstrumentationSettings) -> LogRecord:
        """The part as a GenAI event, for instrumentation version 1."""
        from . import _otel_messages

        return _otel_messages.part_event(self, settings)

    def otel_message_parts(self, settings: InstrumentationSettings) -> list[MessagePart]:
        """The part as GenAI message parts, for instrumentation versions 2 and 3."""
        from . import _otel_messages

        return _otel_messages.part_message_parts(self, settings)


@dataclass(repr=False)
class ToolReturnPart(BaseToolReturnPart):
    """The result of a tool call, sent back to the model."""

    _: KW_ONLY
    part_kind: Literal['tool-return'] = 'tool-return'
    """Type discriminator."""


@dataclass(repr=False)
class BuiltinToolReturnPart(BaseToolReturnPart):
    """The result of a builtin tool call, as the provider returned it in the model's response."""

    _: KW_ONLY
    provider_name: str | None = None
    """The provider that ran the tool."""
    provider_details: dict[str, Any] | None = None
    """Provider-specific details."""
    part_kind: Literal['builtin-tool-return'] = 'builtin-tool-return'
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

    def otel_event(self, settings: InstrumentationSettings) -> LogRecord:
        """The part as a GenAI event, for instrumentation version 1."""
        from . import _otel_messages

        return _otel_messages.part_event(self, settings)

    def otel_message_parts(self, settings: InstrumentationSettings) -> list[MessagePart]:
        """The part as GenAI message parts, for instrumentation versions 2 and 3."""
        from . import _otel_messages

        return _otel_messages.part_message_parts(self, settings)


ModelRequestPart: TypeAlias = Annotated[
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


@dataclass(repr=False)
class BuiltinToolCallPart(BaseToolCallPart):
    """A call of a builtin tool, which the provider ran itself (its result follows as a `BuiltinToolReturnPart`)."""

    _: KW_ONLY
    part_kind: Literal['builtin-tool-call'] = 'builtin-tool-call'
    """Type discriminator."""


@dataclass(repr=False)
class FilePart:
    """A file the model made, e.g. a generated image."""

    content: Annotated[BinaryContent, pydantic.AfterValidator(BinaryImage.narrow_type)]
    """The file; images are `BinaryImage`s."""
    _: KW_ONLY
    id: str | None = None
    """The provider's id of the part."""
    provider_name: str | None = None
    """The provider that made the part."""
    provider_details: dict[str, Any] | None = None
    """Provider-specific details."""
    part_kind: Literal['file'] = 'file'
    """Type discriminator."""

    def has_content(self) -> bool:
        """Whether the file has data."""
        return bool(self.content.data)

    __repr__ = _utils.dataclasses_no_defaults_repr


_ToolCallPartT = TypeVar('_ToolCallPartT', ToolCallPart, BuiltinToolCallPart)

ModelResponsePart: TypeAlias = Annotated[
    TextPart | ToolCallPart | BuiltinToolCallPart | BuiltinToolReturnPart | ThinkingPart | FilePart,
    pydantic.Discriminator('part_kind'),
]
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
        dict[str, Any] | None,
        pydantic.Field(validation_alias=pydantic.AliasChoices('provider_details', 'vendor_details')),
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
        """The text of the response, or `None` if it has no text parts.

        Adjacent text parts are joined directly; runs of text separated by other parts are joined by a
        blank line.
        """
        runs: list[str] = []
        previous: ModelResponsePart | None = None
        for part in self.parts:
            if isinstance(part, TextPart):
                if isinstance(previous, TextPart):
                    runs[-1] += part.content
                else:
                    runs.append(part.content)
            previous = part
        return '\n\n'.join(runs) if runs else None

    @property
    def thinking(self) -> str | None:
        """The thinking parts joined by blank lines, or `None` if there are none."""
        texts = [part.content for part in self.parts if isinstance(part, ThinkingPart)]
        return '\n\n'.join(texts) if texts else None

    @property
    def files(self) -> list[BinaryContent]:
        """The files of the response's `FilePart`s."""
        return [part.content for part in self.parts if isinstance(part, FilePart)]

    @property
    def images(self) -> list[BinaryImage]:
        """The images among the response's files."""
        return [file for file in self.files if isinstance(file, BinaryImage)]

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        """The tool call parts."""
        return [part for part in self.parts if isinstance(part, ToolCallPart)]

    @property
    def builtin_tool_calls(self) -> list[tuple[BuiltinToolCallPart, BuiltinToolReturnPart]]:
        """The builtin tool calls of the response, each with its return part (calls without one are left out)."""
        returns = {part.tool_call_id: part for part in self.parts if isinstance(part, BuiltinToolReturnPart)}
        return [
            (part, returns[part.tool_call_id])
            for part in self.parts
            if isinstance(part, BuiltinToolCallPart) and part.tool_call_id in returns
        ]

    @deprecated('`price` is deprecated, use `cost` instead')
    def price(self) -> PriceCalculation:
        """Deprecated name of `cost`."""
        return self.cost()

    def cost(self) -> PriceCalculation:
        """The cost of the response's usage, from the prices of the `genai-prices` package.

        The model is looked up by `model_name`, at the provider `provider_name` (or `provider_url`), with the
        prices that applied at `timestamp`.

        Raises:
            LookupError: If `genai-prices` does not know the model or provider.
        """
        assert self.model_name, 'Model name is required to calculate price'
        # Imported here: the price data is only loaded by programs that ask for a price.
        from genai_prices import calc_price

        if self.provider_name is None and self.provider_url is not None:
            return calc_price(
                self.usage, self.model_name, provider_api_url=self.provider_url, genai_request_timestamp=self.timestamp
            )
        return calc_price(
            self.usage, self.model_name, provider_id=self.provider_name, genai_request_timestamp=self.timestamp
        )

    @property
    @deprecated('`vendor_id` is deprecated, use `provider_response_id` instead')
    def vendor_id(self) -> str | None:
        """Deprecated name of `provider_response_id`."""
        return self.provider_response_id

    @property
    @deprecated('`vendor_details` is deprecated, use `provider_details` instead')
    def vendor_details(self) -> dict[str, Any] | None:
        """Deprecated name of `provider_details`."""
        return self.provider_details

    @property
    @deprecated('`provider_request_id` is deprecated, use `provider_response_id` instead')
    def provider_request_id(self) -> str | None:
        """Deprecated name of `provider_response_id`."""
        return self.provider_response_id

    __repr__ = _utils.dataclasses_no_defaults_repr

    def otel_events(self, settings: InstrumentationSettings) -> list[LogRecord]:
        """The response as GenAI events (an assistant message), for instrumentation version 1."""
        from . import _otel_messages

        return _otel_messages.response_events(self, settings)

    def otel_message_parts(self, settings: InstrumentationSettings) -> list[MessagePart]:
        """The response as GenAI message parts, for instrumentation versions 2 and 3."""
        from . import _otel_messages

        return _otel_messages.response_message_parts(self, settings)


ModelMessage: TypeAlias = Annotated[ModelRequest | ModelResponse, pydantic.Discriminator('kind')]
"""A message of a conversation: a request or a response."""

ModelMessagesTypeAdapter = pydantic.TypeAdapter(
    list[ModelMessage], config=pydantic.ConfigDict(defer_build=True, ser_json_bytes='base64', val_json_bytes='base64')
)
"""Validates and serializes a list of messages, e.g. a stored history."""


# Streaming deltas and events.


ProviderDetailsDelta: TypeAlias = dict[str, Any] | Callable[[dict[str, Any] | None], dict[str, Any] | None] | None
"""A change to a part's `provider_details`: a dict to merge in, or a function from the old details to the new ones."""


def _merged_details(old: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any] | None:
    """Merge two provider detail dicts, `None` when the result is empty."""
    return {**(old or {}), **(new or {})} or None


@dataclass(repr=False)
class TextPartDelta:
    """New text for a streamed `TextPart`."""

    content_delta: str
    """The text to append."""
    _: KW_ONLY
    provider_name: str | None = None
    """The provider that made the delta."""
    provider_details: dict[str, Any] | None = None
    """Provider-specific details to merge into the part's."""
    part_delta_kind: Literal['text'] = 'text'
    """Type discriminator."""

    def apply(self, part: ModelResponsePart) -> TextPart:
        """Return the text part with this delta applied."""
        if not isinstance(part, TextPart):
            raise ValueError('Cannot apply TextPartDeltas to non-TextParts')
        return replace(
            part,
            content=part.content + self.content_delta,
            provider_name=self.provider_name or part.provider_name,
            provider_details=_merged_details(part.provider_details, self.provider_details),
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
    provider_details: ProviderDetailsDelta = None
    """Provider-specific details to merge into the part's, or a function computing them from the part's."""
    part_delta_kind: Literal['thinking'] = 'thinking'
    """Type discriminator."""

    def apply(self, part: ModelResponsePart | ThinkingPartDelta) -> ThinkingPart | ThinkingPartDelta:
        """Return the thinking part with this delta applied, or an earlier delta merged with this one."""
        if isinstance(part, ThinkingPart):
            return self._apply_to_part(part)
        if isinstance(part, ThinkingPartDelta):
            return self._apply_to_delta(part)
        raise ValueError(
            f'Cannot apply ThinkingPartDeltas to non-ThinkingParts or non-ThinkingPartDeltas (part={part}, self={self})'
        )

    def _apply_to_part(self, part: ThinkingPart) -> ThinkingPart:
        details = self.provider_details
        new_details = details(part.provider_details) if callable(details) else details
        return replace(
            part,
            content=part.content + (self.content_delta or ''),
            signature=part.signature if self.signature_delta is None else self.signature_delta,
            provider_name=part.provider_name if self.provider_name is None else self.provider_name,
            provider_details=_merged_details(part.provider_details, new_details),
        )

    def _apply_to_delta(self, delta: ThinkingPartDelta) -> ThinkingPartDelta:
        if self.content_delta is None and self.signature_delta is None:
            raise ValueError('Cannot apply ThinkingPartDelta with no content or signature')
        content = delta.content_delta
        if self.content_delta is not None:
            content = (content or '') + self.content_delta
        return ThinkingPartDelta(
            content_delta=content,
            signature_delta=delta.signature_delta if self.signature_delta is None else self.signature_delta,
            provider_name=delta.provider_name if self.provider_name is None else self.provider_name,
            provider_details=_chain_details(delta.provider_details, self.provider_details),
        )

    __repr__ = _utils.dataclasses_no_defaults_repr


def _chain_details(earlier: ProviderDetailsDelta, later: ProviderDetailsDelta) -> ProviderDetailsDelta:
    """Combine two provider detail deltas so that applying the result equals applying both in order."""
    if later is None:
        return earlier
    if callable(later):
        if callable(earlier):
            first = earlier
            return lambda details: later(first(details))
        # A function sees the part's details, so an earlier dict delta cannot be carried along.
        return later
    if callable(earlier):
        first = earlier
        return lambda details: {**(first(details) or {}), **later}
    if earlier is None:
        return later
    return {**earlier, **later}


@dataclass(repr=False, kw_only=True)
class ToolCallPartDelta:
    """New name or argument text for a streamed `ToolCallPart`."""

    tool_name_delta: str | None = None
    """Text to append to the tool name."""
    args_delta: str | dict[str, Any] | None = None
    """Argument JSON text to append, or a dict to merge into dict arguments."""
    tool_call_id: str | None = None
    """The call's id, once known."""
    provider_name: str | None = None
    """The provider that made the delta."""
    provider_details: dict[str, Any] | None = None
    """Provider-specific details to merge into the part's."""
    part_delta_kind: Literal['tool_call'] = 'tool_call'
    """Type discriminator."""

    def as_part(self) -> ToolCallPart | None:
        """A tool call part made from this delta, or `None` while the tool name is still unknown."""
        if self.tool_name_delta is None:
            return None
        return ToolCallPart(
            self.tool_name_delta,
            self.args_delta,
            self.tool_call_id or _utils.generate_tool_call_id(),
            provider_name=self.provider_name,
            provider_details=self.provider_details,
        )

    @overload
    def apply(self, part: ModelResponsePart) -> ToolCallPart | BuiltinToolCallPart: ...

    @overload
    def apply(
        self, part: ModelResponsePart | ToolCallPartDelta
    ) -> ToolCallPart | BuiltinToolCallPart | ToolCallPartDelta: ...

    def apply(
        self, part: ModelResponsePart | ToolCallPartDelta
    ) -> ToolCallPart | BuiltinToolCallPart | ToolCallPartDelta:
        """Return the tool call part with this delta applied, or an earlier delta merged with this one.

        Merging two deltas gives a `ToolCallPart` as soon as the tool name is known.
        """
        if isinstance(part, ToolCallPart):
            return self._apply_to_part(part)
        if isinstance(part, BuiltinToolCallPart):
            return self._apply_to_part(part)
        if isinstance(part, ToolCallPartDelta):
            return self._apply_to_delta(part)
        raise ValueError(
            f'Can only apply ToolCallPartDeltas to ToolCallParts, BuiltinToolCallParts, or ToolCallPartDeltas, not {part}'
        )

    def _apply_to_part(self, part: _ToolCallPartT) -> _ToolCallPartT:
        return replace(
            part,
            tool_name=part.tool_name + (self.tool_name_delta or ''),
            args=self._merged_args(part.args, f'part={part}'),
            tool_call_id=self.tool_call_id or part.tool_call_id,
            provider_name=self.provider_name or part.provider_name,
            provider_details=self._details_onto(part.provider_details),
        )

    def _apply_to_delta(self, delta: ToolCallPartDelta) -> ToolCallPart | ToolCallPartDelta:
        tool_name = delta.tool_name_delta
        if self.tool_name_delta:
            tool_name = (tool_name or '') + self.tool_name_delta
        merged = ToolCallPartDelta(
            tool_name_delta=tool_name,
            args_delta=self._merged_args(delta.args_delta, f'delta={delta}'),
            tool_call_id=self.tool_call_id or delta.tool_call_id,
            provider_name=self.provider_name or delta.provider_name,
            provider_details=self._details_onto(delta.provider_details),
        )
        return merged.as_part() or merged

    def _merged_args(self, args: str | dict[str, Any] | None, target: str) -> str | dict[str, Any] | None:
        if isinstance(self.args_delta, str):
            if isinstance(args, dict):
                raise UnexpectedModelBehavior(
                    f'Cannot apply JSON deltas to non-JSON tool arguments ({target}, self={self})'
                )
            return (args or '') + self.args_delta
        if isinstance(self.args_delta, dict):
            if isinstance(args, str):
                raise UnexpectedModelBehavior(
                    f'Cannot apply dict deltas to non-dict tool arguments ({target}, self={self})'
                )
            return {**(args or {}), **self.args_delta}
        return args

    def _details_onto(self, details: dict[str, Any] | None) -> dict[str, Any] | None:
        if not self.provider_details:
            return details
        return {**(details or {}), **self.provider_details}

    __repr__ = _utils.dataclasses_no_defaults_repr


ModelResponsePartDelta: TypeAlias = Annotated[
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


ModelResponseStreamEvent: TypeAlias = Annotated[
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

    @property
    @deprecated('`call_id` is deprecated, use `tool_call_id` instead.')
    def call_id(self) -> str:
        """Deprecated name of `tool_call_id`."""
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


@dataclass(repr=False)
class DeferredToolRequestsEvent:
    """The run's deferred tool handler is about to be asked to resolve these calls.

    Only runs with a deferred tool handler emit it, once per model response with deferred calls, so that a UI
    can show that input is awaited while the handler waits for it.
    """

    requests: DeferredToolRequests
    """The deferred calls the handler is given."""
    _: KW_ONLY
    event_kind: Literal['deferred_tool_requests'] = 'deferred_tool_requests'
    """Type discriminator."""

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(repr=False)
class DeferredToolResultsEvent:
    """The run's deferred tool handler answered; the `FunctionToolResultEvent`s of the resolved calls follow."""

    results: DeferredToolResults
    """What the handler returned."""
    _: KW_ONLY
    event_kind: Literal['deferred_tool_results'] = 'deferred_tool_results'
    """Type discriminator."""

    __repr__ = _utils.dataclasses_no_defaults_repr


@deprecated(
    '`BuiltinToolCallEvent` is deprecated, look for `PartStartEvent` and `PartDeltaEvent` with `BuiltinToolCallPart` instead.'
)
@dataclass(repr=False)
class BuiltinToolCallEvent:
    """A builtin tool was called (deprecated: builtin tool calls are response parts, seen in part events)."""

    part: BuiltinToolCallPart
    """The builtin tool call."""
    _: KW_ONLY
    event_kind: Literal['builtin_tool_call'] = 'builtin_tool_call'
    """Type discriminator."""


@deprecated(
    '`BuiltinToolResultEvent` is deprecated, look for `PartStartEvent` and `PartDeltaEvent` with `BuiltinToolReturnPart` instead.'
)
@dataclass(repr=False)
class BuiltinToolResultEvent:
    """A builtin tool returned (deprecated: builtin tool results are response parts, seen in part events)."""

    result: BuiltinToolReturnPart
    """The builtin tool's result."""
    _: KW_ONLY
    event_kind: Literal['builtin_tool_result'] = 'builtin_tool_result'
    """Type discriminator."""


HandleResponseEvent: TypeAlias = Annotated[
    FunctionToolCallEvent
    | FunctionToolResultEvent
    | BuiltinToolCallEvent  # pyright: ignore[reportDeprecated] -- kept in the union as upstream
    | BuiltinToolResultEvent  # pyright: ignore[reportDeprecated] -- kept in the union as upstream
    | DeferredToolRequestsEvent
    | DeferredToolResultsEvent,
    pydantic.Discriminator('event_kind'),
]
"""An event of the tool-call stage of a run."""

AgentStreamEvent: TypeAlias = Annotated[
    ModelResponseStreamEvent | HandleResponseEvent, pydantic.Discriminator('event_kind')
]
"""Any event of an agent run's event stream."""

# At the end, as `tools` imports this module: the events' field types must resolve at run time for pydantic.
from .tools import DeferredToolRequests, DeferredToolResults  # noqa: E402
