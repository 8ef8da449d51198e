"""Request bodies of the Vercel AI SDK v6 chat transport: UI messages and their parts, in camelCase JSON.

The models forbid unknown keys on parts so that a malformed body is refused with a clear 422 rather than
half-understood; the top-level request allows extra keys, which apps add through the transport's `body` option.
"""

from __future__ import annotations

from abc import ABC
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Discriminator, SerializerFunctionWrapHandler, Tag, model_serializer
from pydantic.alias_generators import to_camel

__all__ = (
    'BaseUIPart',
    'DataUIPart',
    'DynamicToolApprovalRequestedPart',
    'DynamicToolApprovalRespondedPart',
    'DynamicToolInputAvailablePart',
    'DynamicToolInputStreamingPart',
    'DynamicToolOutputAvailablePart',
    'DynamicToolOutputDeniedPart',
    'DynamicToolOutputErrorPart',
    'DynamicToolUIPart',
    'FileUIPart',
    'ProviderMetadata',
    'ReasoningUIPart',
    'RegenerateMessage',
    'RequestData',
    'SourceDocumentUIPart',
    'SourceUrlUIPart',
    'StepStartUIPart',
    'SubmitMessage',
    'TextUIPart',
    'ToolApproval',
    'ToolApprovalRequested',
    'ToolApprovalRequestedPart',
    'ToolApprovalResponded',
    'ToolApprovalRespondedPart',
    'ToolInputAvailablePart',
    'ToolInputStreamingPart',
    'ToolOutputAvailablePart',
    'ToolOutputDeniedPart',
    'ToolOutputErrorPart',
    'ToolUIPart',
    'UIMessage',
    'UIMessagePart',
)

ProviderMetadata: TypeAlias = dict[str, dict[str, Any]]
"""Provider-specific metadata, keyed by provider name."""


class CamelBaseModel(BaseModel):
    """A model whose JSON keys are the camelCase forms of its field names."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra='forbid')


class BaseUIPart(CamelBaseModel, ABC):
    """Base class of the parts of a UI message."""


_UNSET_ONLY_KEYS = frozenset({'title', 'providerExecuted', 'provider_executed', 'approval'})


class _DynamicToolPart(BaseUIPart, ABC):
    """A dynamic tool part dumps `title`, `providerExecuted` and `approval` only when set, as upstream's do."""

    @model_serializer(mode='wrap')
    def _drop_unset_keys(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        dumped: dict[str, Any] = handler(self)
        return {key: value for key, value in dumped.items() if value is not None or key not in _UNSET_ONLY_KEYS}


class TextUIPart(BaseUIPart):
    """Text of a message."""

    type: Literal['text'] = 'text'
    """Part type."""
    text: str
    """The text."""
    state: Literal['streaming', 'done'] | None = None
    """Whether the text is still streaming."""
    provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata."""


class ReasoningUIPart(BaseUIPart):
    """The model's reasoning."""

    type: Literal['reasoning'] = 'reasoning'
    """Part type."""
    text: str
    """The reasoning text."""
    state: Literal['streaming', 'done'] | None = None
    """Whether the reasoning is still streaming."""
    provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata."""


class SourceUrlUIPart(BaseUIPart):
    """A source the model cited, by URL."""

    type: Literal['source-url'] = 'source-url'
    """Part type."""
    source_id: str
    """The source's id."""
    url: str
    """The source's URL."""
    title: str | None = None
    """The source's title."""
    provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata."""


class SourceDocumentUIPart(BaseUIPart):
    """A document the model cited."""

    type: Literal['source-document'] = 'source-document'
    """Part type."""
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


class FileUIPart(BaseUIPart):
    """A file, by URL: a `data:` URL for inline content."""

    type: Literal['file'] = 'file'
    """Part type."""
    media_type: str
    """The file's media type."""
    filename: str | None = None
    """The file's name."""
    url: str
    """Where the file is, or its content as a `data:` URL."""
    provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata."""


class StepStartUIPart(BaseUIPart):
    """Marks the start of a step (one model response and its tool calls)."""

    type: Literal['step-start'] = 'step-start'
    """Part type."""


class DataUIPart(BaseUIPart):
    """Application data, in a part of type `data-<name>`."""

    type: str
    """Part type, `data-` followed by the data's name."""
    id: str | None = None
    """The data's id."""
    data: Any
    """The data."""


class ToolApprovalRequested(CamelBaseModel):
    """An approval the user has not answered yet."""

    id: str
    """The approval id the server issued."""


class ToolApprovalResponded(CamelBaseModel):
    """The user's answer to an approval request."""

    id: str
    """The approval id the server issued."""
    approved: bool
    """Whether the call may run."""
    reason: str | None = None
    """Why, as the user put it; a denial's reason is shown to the model."""


ToolApproval: TypeAlias = ToolApprovalRequested | ToolApprovalResponded
"""The approval of a tool call, requested or answered."""


class ToolInputStreamingPart(BaseUIPart):
    """A call of a tool (part type `tool-<name>`) whose input is still streaming."""

    type: str
    """Part type, `tool-` followed by the tool name."""
    tool_call_id: str
    """The call's id."""
    state: Literal['input-streaming'] = 'input-streaming'
    """The call's state."""
    title: str | None = None
    """A title to show for the call."""
    input: Any | None = None
    """The input received so far."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool."""
    call_provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata of the call."""
    approval: None = None
    """No approval yet."""


class ToolInputAvailablePart(BaseUIPart):
    """A call of a tool whose input is complete and that has no result yet."""

    type: str
    """Part type, `tool-` followed by the tool name."""
    tool_call_id: str
    """The call's id."""
    state: Literal['input-available'] = 'input-available'
    """The call's state."""
    title: str | None = None
    """A title to show for the call."""
    input: Any | None = None
    """The call's arguments."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool."""
    call_provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata of the call."""
    approval: None = None
    """No approval yet."""


class ToolApprovalRequestedPart(BaseUIPart):
    """A call of a tool that waits for the user's approval."""

    type: str
    """Part type, `tool-` followed by the tool name."""
    tool_call_id: str
    """The call's id."""
    state: Literal['approval-requested'] = 'approval-requested'
    """The call's state."""
    title: str | None = None
    """A title to show for the call."""
    input: Any | None = None
    """The call's arguments."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool."""
    call_provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata of the call."""
    approval: ToolApprovalRequested
    """The pending approval."""


class ToolApprovalRespondedPart(BaseUIPart):
    """A call of a tool the user approved or denied, whose result the server has not sent yet."""

    type: str
    """Part type, `tool-` followed by the tool name."""
    tool_call_id: str
    """The call's id."""
    state: Literal['approval-responded'] = 'approval-responded'
    """The call's state."""
    title: str | None = None
    """A title to show for the call."""
    input: Any | None = None
    """The call's arguments."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool."""
    call_provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata of the call."""
    approval: ToolApprovalResponded
    """The user's answer."""


class ToolOutputAvailablePart(BaseUIPart):
    """A call of a tool with its result."""

    type: str
    """Part type, `tool-` followed by the tool name."""
    tool_call_id: str
    """The call's id."""
    state: Literal['output-available'] = 'output-available'
    """The call's state."""
    title: str | None = None
    """A title to show for the call."""
    input: Any | None = None
    """The call's arguments."""
    output: Any | None = None
    """The tool's result."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool."""
    call_provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata of the call."""
    preliminary: bool | None = None
    """Whether the result is a preliminary one."""
    approval: ToolApprovalResponded | None = None
    """The approval the call ran under, if it needed one."""


class ToolOutputErrorPart(BaseUIPart):
    """A call of a tool that failed."""

    type: str
    """Part type, `tool-` followed by the tool name."""
    tool_call_id: str
    """The call's id."""
    state: Literal['output-error'] = 'output-error'
    """The call's state."""
    title: str | None = None
    """A title to show for the call."""
    input: Any | None = None
    """The call's arguments."""
    raw_input: Any | None = None
    """The arguments as received, when they could not be parsed."""
    error_text: str
    """What went wrong."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool."""
    call_provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata of the call."""
    approval: ToolApprovalResponded | None = None
    """The approval the call ran under, if it needed one."""


class ToolOutputDeniedPart(BaseUIPart):
    """A call of a tool the user denied; the model was told so."""

    type: str
    """Part type, `tool-` followed by the tool name."""
    tool_call_id: str
    """The call's id."""
    state: Literal['output-denied'] = 'output-denied'
    """The call's state."""
    title: str | None = None
    """A title to show for the call."""
    input: Any | None = None
    """The call's arguments."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool."""
    call_provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata of the call."""
    approval: ToolApprovalResponded
    """The denial."""


ToolUIPart: TypeAlias = (
    ToolInputStreamingPart
    | ToolInputAvailablePart
    | ToolApprovalRequestedPart
    | ToolApprovalRespondedPart
    | ToolOutputAvailablePart
    | ToolOutputErrorPart
    | ToolOutputDeniedPart
)
"""A call of a tool the page knows by name, in any state."""


class DynamicToolInputStreamingPart(_DynamicToolPart):
    """A call of a tool the page does not know statically, whose input is still streaming."""

    type: Literal['dynamic-tool'] = 'dynamic-tool'
    """Part type."""
    tool_name: str
    """The tool's name."""
    tool_call_id: str
    """The call's id."""
    state: Literal['input-streaming'] = 'input-streaming'
    """The call's state."""
    title: str | None = None
    """A title to show for the call."""
    input: Any | None = None
    """The input received so far."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool."""
    call_provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata of the call."""
    approval: None = None
    """No approval yet."""


class DynamicToolInputAvailablePart(_DynamicToolPart):
    """A dynamic tool call whose input is complete and that has no result yet."""

    type: Literal['dynamic-tool'] = 'dynamic-tool'
    """Part type."""
    tool_name: str
    """The tool's name."""
    tool_call_id: str
    """The call's id."""
    state: Literal['input-available'] = 'input-available'
    """The call's state."""
    title: str | None = None
    """A title to show for the call."""
    input: Any
    """The call's arguments."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool."""
    call_provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata of the call."""
    approval: None = None
    """No approval yet."""


class DynamicToolApprovalRequestedPart(_DynamicToolPart):
    """A dynamic tool call that waits for the user's approval."""

    type: Literal['dynamic-tool'] = 'dynamic-tool'
    """Part type."""
    tool_name: str
    """The tool's name."""
    tool_call_id: str
    """The call's id."""
    state: Literal['approval-requested'] = 'approval-requested'
    """The call's state."""
    title: str | None = None
    """A title to show for the call."""
    input: Any
    """The call's arguments."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool."""
    call_provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata of the call."""
    approval: ToolApprovalRequested
    """The pending approval."""


class DynamicToolApprovalRespondedPart(_DynamicToolPart):
    """A dynamic tool call the user approved or denied, whose result the server has not sent yet."""

    type: Literal['dynamic-tool'] = 'dynamic-tool'
    """Part type."""
    tool_name: str
    """The tool's name."""
    tool_call_id: str
    """The call's id."""
    state: Literal['approval-responded'] = 'approval-responded'
    """The call's state."""
    title: str | None = None
    """A title to show for the call."""
    input: Any
    """The call's arguments."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool."""
    call_provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata of the call."""
    approval: ToolApprovalResponded
    """The user's answer."""


class DynamicToolOutputAvailablePart(_DynamicToolPart):
    """A dynamic tool call with its result."""

    type: Literal['dynamic-tool'] = 'dynamic-tool'
    """Part type."""
    tool_name: str
    """The tool's name."""
    tool_call_id: str
    """The call's id."""
    state: Literal['output-available'] = 'output-available'
    """The call's state."""
    title: str | None = None
    """A title to show for the call."""
    input: Any
    """The call's arguments."""
    output: Any
    """The tool's result."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool."""
    call_provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata of the call."""
    preliminary: bool | None = None
    """Whether the result is a preliminary one."""
    approval: ToolApprovalResponded | None = None
    """The approval the call ran under, if it needed one."""


class DynamicToolOutputErrorPart(_DynamicToolPart):
    """A dynamic tool call that failed."""

    type: Literal['dynamic-tool'] = 'dynamic-tool'
    """Part type."""
    tool_name: str
    """The tool's name."""
    tool_call_id: str
    """The call's id."""
    state: Literal['output-error'] = 'output-error'
    """The call's state."""
    title: str | None = None
    """A title to show for the call."""
    input: Any
    """The call's arguments."""
    error_text: str
    """What went wrong."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool."""
    call_provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata of the call."""
    approval: ToolApprovalResponded | None = None
    """The approval the call ran under, if it needed one."""


class DynamicToolOutputDeniedPart(_DynamicToolPart):
    """A dynamic tool call the user denied."""

    type: Literal['dynamic-tool'] = 'dynamic-tool'
    """Part type."""
    tool_name: str
    """The tool's name."""
    tool_call_id: str
    """The call's id."""
    state: Literal['output-denied'] = 'output-denied'
    """The call's state."""
    title: str | None = None
    """A title to show for the call."""
    input: Any
    """The call's arguments."""
    provider_executed: bool | None = None
    """Whether the provider ran the tool."""
    call_provider_metadata: ProviderMetadata | None = None
    """Provider-specific metadata of the call."""
    approval: ToolApprovalResponded
    """The denial."""


DynamicToolUIPart: TypeAlias = (
    DynamicToolInputStreamingPart
    | DynamicToolInputAvailablePart
    | DynamicToolApprovalRequestedPart
    | DynamicToolApprovalRespondedPart
    | DynamicToolOutputAvailablePart
    | DynamicToolOutputErrorPart
    | DynamicToolOutputDeniedPart
)
"""A call of a dynamic tool, in any state."""

_STATE_TAGS = {
    'input-streaming': 'input-streaming',
    'input-available': 'input-available',
    'approval-requested': 'approval-requested',
    'approval-responded': 'approval-responded',
    'output-available': 'output-available',
    'output-error': 'output-error',
    'output-denied': 'output-denied',
}
_FIXED_TYPES = {'text', 'reasoning', 'source-url', 'source-document', 'file', 'step-start'}


def _part_tag(value: Any) -> str | None:
    """Pick a part model from the part's `type` (and `state`, for tool calls), so errors name one model."""
    if isinstance(value, BaseUIPart):
        value = value.model_dump(by_alias=True)
    if not isinstance(value, dict):
        return None
    raw: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType] -- JSON object from the request
    part_type = raw.get('type')
    if not isinstance(part_type, str):
        return None
    if part_type in _FIXED_TYPES:
        return part_type
    if part_type.startswith('data-'):
        return 'data'
    state = _STATE_TAGS.get(str(raw.get('state')))
    if state is None:
        return None
    if part_type == 'dynamic-tool':
        return f'dynamic-tool:{state}'
    return f'tool:{state}' if part_type.startswith('tool-') else None


UIMessagePart: TypeAlias = Annotated[
    Annotated[TextUIPart, Tag('text')]
    | Annotated[ReasoningUIPart, Tag('reasoning')]
    | Annotated[ToolInputStreamingPart, Tag('tool:input-streaming')]
    | Annotated[ToolInputAvailablePart, Tag('tool:input-available')]
    | Annotated[ToolApprovalRequestedPart, Tag('tool:approval-requested')]
    | Annotated[ToolApprovalRespondedPart, Tag('tool:approval-responded')]
    | Annotated[ToolOutputAvailablePart, Tag('tool:output-available')]
    | Annotated[ToolOutputErrorPart, Tag('tool:output-error')]
    | Annotated[ToolOutputDeniedPart, Tag('tool:output-denied')]
    | Annotated[DynamicToolInputStreamingPart, Tag('dynamic-tool:input-streaming')]
    | Annotated[DynamicToolInputAvailablePart, Tag('dynamic-tool:input-available')]
    | Annotated[DynamicToolApprovalRequestedPart, Tag('dynamic-tool:approval-requested')]
    | Annotated[DynamicToolApprovalRespondedPart, Tag('dynamic-tool:approval-responded')]
    | Annotated[DynamicToolOutputAvailablePart, Tag('dynamic-tool:output-available')]
    | Annotated[DynamicToolOutputErrorPart, Tag('dynamic-tool:output-error')]
    | Annotated[DynamicToolOutputDeniedPart, Tag('dynamic-tool:output-denied')]
    | Annotated[SourceUrlUIPart, Tag('source-url')]
    | Annotated[SourceDocumentUIPart, Tag('source-document')]
    | Annotated[FileUIPart, Tag('file')]
    | Annotated[DataUIPart, Tag('data')]
    | Annotated[StepStartUIPart, Tag('step-start')],
    Discriminator(
        _part_tag,
        custom_error_type='invalid_ui_part',
        custom_error_message='Unknown UI message part: `type` (and `state`, for a tool part) must name an AI SDK v6 part',
    ),
]
"""Any part of a UI message."""


class UIMessage(CamelBaseModel):
    """A message as the AI SDK's `useChat` keeps it."""

    id: str
    """The message's id."""
    role: Literal['system', 'user', 'assistant']
    """Who the message is from."""
    metadata: Any | None = None
    """Application metadata of the message."""
    parts: list[UIMessagePart]
    """The message's parts, in order."""


class SubmitMessage(CamelBaseModel, extra='allow'):
    """A request to answer the conversation's last message."""

    trigger: Literal['submit-message'] = 'submit-message'
    """What the client asks for."""
    id: str
    """The chat's id."""
    messages: list[UIMessage]
    """The whole conversation."""


class RegenerateMessage(CamelBaseModel, extra='allow'):
    """A request to regenerate an assistant message."""

    trigger: Literal['regenerate-message']
    """What the client asks for."""
    id: str
    """The chat's id."""
    messages: list[UIMessage]
    """The conversation, up to the message to regenerate."""
    message_id: str
    """The id of the message to regenerate."""


RequestData: TypeAlias = Annotated[SubmitMessage | RegenerateMessage, Discriminator('trigger')]
"""The body of a chat request."""
