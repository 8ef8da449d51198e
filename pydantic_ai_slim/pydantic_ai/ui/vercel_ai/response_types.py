"""Chunks of the Vercel AI SDK v6 UI message stream, sent as server-sent events.

Each chunk serializes to the exact keys of the SDK's chunk schema (camelCase, `None` fields left out): early v6
clients refuse a chunk with a key they do not know.
"""

from __future__ import annotations

from abc import ABC
from typing import Any, Literal, TypeAlias

from .request_types import CamelBaseModel, ProviderMetadata

__all__ = (
    'AbortChunk',
    'BaseChunk',
    'DataChunk',
    'DoneChunk',
    'ErrorChunk',
    'FileChunk',
    'FinishChunk',
    'FinishReason',
    'FinishStepChunk',
    'MessageMetadataChunk',
    'ReasoningDeltaChunk',
    'ReasoningEndChunk',
    'ReasoningStartChunk',
    'SourceDocumentChunk',
    'SourceUrlChunk',
    'StartChunk',
    'StartStepChunk',
    'TextDeltaChunk',
    'TextEndChunk',
    'TextStartChunk',
    'ToolApprovalRequestChunk',
    'ToolInputAvailableChunk',
    'ToolInputDeltaChunk',
    'ToolInputErrorChunk',
    'ToolInputStartChunk',
    'ToolOutputAvailableChunk',
    'ToolOutputDeniedChunk',
    'ToolOutputErrorChunk',
)

FinishReason: TypeAlias = Literal['stop', 'length', 'content-filter', 'tool-calls', 'error', 'other'] | None
"""Why the model stopped, in the SDK's words."""


class BaseChunk(CamelBaseModel, ABC):
    """Base class of stream chunks."""

    def encode(self) -> str:
        """The chunk as the JSON text of one event."""
        return self.model_dump_json(by_alias=True, exclude_none=True)


class TextStartChunk(BaseChunk):
    """A text part starts."""

    type: Literal['text-start'] = 'text-start'
    """Chunk type."""
    id: str
    """The text part's id."""
    provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata."""


class TextDeltaChunk(BaseChunk):
    """More text of a text part."""

    type: Literal['text-delta'] = 'text-delta'
    """Chunk type."""
    delta: str
    """The new text."""
    id: str
    """The text part's id."""
    provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata."""


class TextEndChunk(BaseChunk):
    """A text part is complete."""

    type: Literal['text-end'] = 'text-end'
    """Chunk type."""
    id: str
    """The text part's id."""
    provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata."""


class ReasoningStartChunk(BaseChunk):
    """A reasoning part starts."""

    type: Literal['reasoning-start'] = 'reasoning-start'
    """Chunk type."""
    id: str
    """The reasoning part's id."""
    provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata."""


class ReasoningDeltaChunk(BaseChunk):
    """More text of a reasoning part."""

    type: Literal['reasoning-delta'] = 'reasoning-delta'
    """Chunk type."""
    id: str
    """The reasoning part's id."""
    delta: str
    """The new text."""
    provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata."""


class ReasoningEndChunk(BaseChunk):
    """A reasoning part is complete."""

    type: Literal['reasoning-end'] = 'reasoning-end'
    """Chunk type."""
    id: str
    """The reasoning part's id."""
    provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata."""


class ErrorChunk(BaseChunk):
    """The run failed."""

    type: Literal['error'] = 'error'
    """Chunk type."""
    error_text: str
    """What went wrong."""


class ToolInputStartChunk(BaseChunk):
    """A tool call starts."""

    type: Literal['tool-input-start'] = 'tool-input-start'
    """Chunk type."""
    tool_call_id: str
    """The call's id."""
    tool_name: str
    """The tool's name."""
    provider_executed: bool | None = None
    """Whether the provider runs the tool."""
    provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata."""
    dynamic: bool | None = None
    """Whether the tool is a dynamic one."""


class ToolInputDeltaChunk(BaseChunk):
    """More of a tool call's JSON arguments."""

    type: Literal['tool-input-delta'] = 'tool-input-delta'
    """Chunk type."""
    tool_call_id: str
    """The call's id."""
    input_text_delta: str
    """The new JSON text."""


class ToolOutputAvailableChunk(BaseChunk):
    """A tool call's result."""

    type: Literal['tool-output-available'] = 'tool-output-available'
    """Chunk type."""
    tool_call_id: str
    """The call's id."""
    output: Any
    """The tool's result."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool."""
    dynamic: bool | None = None
    """Whether the tool is a dynamic one."""
    preliminary: bool | None = None
    """Whether the result is a preliminary one."""


class ToolInputAvailableChunk(BaseChunk):
    """A tool call's arguments are complete."""

    type: Literal['tool-input-available'] = 'tool-input-available'
    """Chunk type."""
    tool_call_id: str
    """The call's id."""
    tool_name: str
    """The tool's name."""
    input: Any
    """The call's arguments."""
    provider_executed: bool | None = None
    """Whether the provider runs the tool."""
    provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata."""
    dynamic: bool | None = None
    """Whether the tool is a dynamic one."""


class ToolInputErrorChunk(BaseChunk):
    """A tool call's arguments are invalid."""

    type: Literal['tool-input-error'] = 'tool-input-error'
    """Chunk type."""
    tool_call_id: str
    """The call's id."""
    tool_name: str
    """The tool's name."""
    input: Any
    """The arguments as received."""
    provider_executed: bool | None = None
    """Whether the provider runs the tool."""
    provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata."""
    dynamic: bool | None = None
    """Whether the tool is a dynamic one."""
    error_text: str
    """What is wrong with them."""


class ToolOutputErrorChunk(BaseChunk):
    """A tool call failed."""

    type: Literal['tool-output-error'] = 'tool-output-error'
    """Chunk type."""
    tool_call_id: str
    """The call's id."""
    error_text: str
    """What went wrong."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool."""
    dynamic: bool | None = None
    """Whether the tool is a dynamic one."""


class ToolApprovalRequestChunk(BaseChunk):
    """A tool call waits for the user's approval."""

    type: Literal['tool-approval-request'] = 'tool-approval-request'
    """Chunk type."""
    approval_id: str
    """The id the client sends back with the user's answer."""
    tool_call_id: str
    """The call's id."""


class ToolOutputDeniedChunk(BaseChunk):
    """A tool call was not run because the user denied it."""

    type: Literal['tool-output-denied'] = 'tool-output-denied'
    """Chunk type."""
    tool_call_id: str
    """The call's id."""


class SourceUrlChunk(BaseChunk):
    """A source the model cited, by URL."""

    type: Literal['source-url'] = 'source-url'
    """Chunk type."""
    source_id: str
    """The source's id."""
    url: str
    """The source's URL."""
    title: str | None = None
    """The source's title."""
    provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata."""


class SourceDocumentChunk(BaseChunk):
    """A document the model cited."""

    type: Literal['source-document'] = 'source-document'
    """Chunk type."""
    source_id: str
    """The source's id."""
    media_type: str
    """The document's media type."""
    title: str
    """The document's title."""
    filename: str | None = None
    """The document's file name."""
    provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata."""


class FileChunk(BaseChunk):
    """A file the model made."""

    type: Literal['file'] = 'file'
    """Chunk type."""
    url: str
    """Where the file is, or its content as a `data:` URL."""
    media_type: str
    """The file's media type."""


class DataChunk(BaseChunk):
    """Application data, in a chunk of type `data-<name>`."""

    type: str
    """Chunk type, `data-` followed by the data's name."""
    id: str | None = None
    """The data's id."""
    data: Any
    """The data."""
    transient: bool | None = None
    """Whether the client should not keep the data in the message."""


class StartStepChunk(BaseChunk):
    """A step (one model response and its tool calls) starts."""

    type: Literal['start-step'] = 'start-step'
    """Chunk type."""


class FinishStepChunk(BaseChunk):
    """A step is complete."""

    type: Literal['finish-step'] = 'finish-step'
    """Chunk type."""


class StartChunk(BaseChunk):
    """The assistant message starts."""

    type: Literal['start'] = 'start'
    """Chunk type."""
    message_id: str | None = None
    """The message's id."""
    message_metadata: Any | None = None
    """Application metadata of the message."""


class FinishChunk(BaseChunk):
    """The assistant message is complete."""

    type: Literal['finish'] = 'finish'
    """Chunk type."""
    finish_reason: FinishReason = None
    """Why the model stopped."""
    message_metadata: Any | None = None
    """Application metadata of the message."""


class AbortChunk(BaseChunk):
    """The stream was aborted."""

    type: Literal['abort'] = 'abort'
    """Chunk type."""
    reason: str | None = None
    """Why."""


class MessageMetadataChunk(BaseChunk):
    """New application metadata of the message."""

    type: Literal['message-metadata'] = 'message-metadata'
    """Chunk type."""
    message_metadata: Any
    """The metadata."""


class DoneChunk(BaseChunk):
    """The end of the stream, sent as `data: [DONE]`."""

    type: Literal['done'] = 'done'
    """Chunk type."""

    def encode(self) -> str:
        """`[DONE]`, the stream's end marker."""
        return '[DONE]'
