"""`VercelAIEventStream`: an agent run as the Vercel AI SDK v6 UI message stream."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any
from uuid import uuid4

from typing_extensions import TypeVar

from ...messages import (
    BuiltinToolCallPart,
    BuiltinToolReturnPart,
    FilePart,
    FunctionToolResultEvent,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
)
from ...messages import FinishReason as ModelFinishReason
from ...run import AgentRunResultEvent
from ...tools import DeferredToolRequests
from .._event_stream import UIEventStream
from ._approval import ApprovalSigner
from .request_types import RequestData
from .response_types import (
    BaseChunk,
    DoneChunk,
    ErrorChunk,
    FileChunk,
    FinishChunk,
    FinishReason,
    FinishStepChunk,
    ReasoningDeltaChunk,
    ReasoningEndChunk,
    ReasoningStartChunk,
    StartChunk,
    StartStepChunk,
    TextDeltaChunk,
    TextEndChunk,
    TextStartChunk,
    ToolApprovalRequestChunk,
    ToolInputAvailableChunk,
    ToolInputDeltaChunk,
    ToolInputStartChunk,
    ToolOutputAvailableChunk,
    ToolOutputDeniedChunk,
    ToolOutputErrorChunk,
)

__all__ = ('VercelAIEventStream',)

AgentDepsT = TypeVar('AgentDepsT', default=None)
OutputDataT = TypeVar('OutputDataT', default=str)

_FINISH_REASONS: dict[ModelFinishReason, FinishReason] = {
    'stop': 'stop',
    'length': 'length',
    'content_filter': 'content-filter',
    'tool_call': 'tool-calls',
    'error': 'error',
}


@dataclass
class VercelAIEventStream(UIEventStream[RequestData, BaseChunk, AgentDepsT, OutputDataT]):
    """Streams a run as UI message chunks: one assistant message, a step per model response."""

    _: KW_ONLY
    tool_approval: bool = False
    """Whether to send `tool-approval-request` and `tool-output-denied` chunks (needs an AI SDK v6 client)."""
    approval_signer: ApprovalSigner = field(default_factory=ApprovalSigner)
    """Issues the ids of approval requests."""
    denied_tool_call_ids: frozenset[str] = frozenset()
    """Ids of the calls the user denied in this request."""

    _step_started: bool = field(default=False, init=False, repr=False)
    _finish_reason: FinishReason = field(default=None, init=False, repr=False)
    _text_id: str = field(default='', init=False, repr=False)
    _reasoning_id: str = field(default='', init=False, repr=False)

    @property
    def response_headers(self) -> Mapping[str, str] | None:
        """The header that tells the AI SDK client which stream protocol it gets."""
        return {'x-vercel-ai-ui-message-stream': 'v1'}

    def encode_event(self, event: BaseChunk) -> str:
        """One server-sent event: `data: <chunk JSON>`, or `data: [DONE]` at the end."""
        return f'data: {event.encode()}\n\n'

    async def before_stream(self) -> AsyncIterator[BaseChunk]:
        """The message starts."""
        yield StartChunk()

    async def before_response(self) -> AsyncIterator[BaseChunk]:
        """Each model response is a step of its own."""
        if self._step_started:
            yield FinishStepChunk()
        self._step_started = True
        yield StartStepChunk()

    async def after_stream(self) -> AsyncIterator[BaseChunk]:
        """The step and message finish, and the stream ends."""
        yield FinishStepChunk()
        yield FinishChunk(finish_reason=self._finish_reason)
        yield DoneChunk()

    async def on_error(self, error: Exception) -> AsyncIterator[BaseChunk]:
        """The run failed: the client shows the error text."""
        self._finish_reason = 'error'
        yield ErrorChunk(error_text=str(error))

    async def handle_run_result(self, event: AgentRunResultEvent[Any]) -> AsyncIterator[BaseChunk]:
        """With tool approval on, a run that ended waiting for approvals asks the user for each."""
        result = event.result
        last_response = next((m for m in reversed(result.all_messages()) if isinstance(m, ModelResponse)), None)
        if last_response is not None and last_response.finish_reason is not None:
            self._finish_reason = _FINISH_REASONS.get(last_response.finish_reason)
        final = self._final_result_event
        if final is not None and final.tool_call_id is not None:
            # The output tool's call is answered too, as the history records it.
            yield ToolOutputAvailableChunk(tool_call_id=final.tool_call_id, output='Final result processed.')
        if self.tool_approval and isinstance(result.output, DeferredToolRequests):
            for call in result.output.approvals:
                approval_id = self.approval_signer.issue(call.tool_name, call.tool_call_id, call.args_as_dict())
                yield ToolApprovalRequestChunk(approval_id=approval_id, tool_call_id=call.tool_call_id)

    async def handle_text_start(self, part: TextPart, follows_text: bool = False) -> AsyncIterator[BaseChunk]:
        """Text that follows text continues the same text part."""
        metadata = _provider_metadata(part)
        if not (follows_text and self._text_id):
            self._text_id = str(uuid4())
            yield TextStartChunk(id=self._text_id, provider_metadata=metadata)
        if part.content:
            yield TextDeltaChunk(id=self._text_id, delta=part.content, provider_metadata=metadata)

    async def handle_text_delta(self, delta: TextPartDelta) -> AsyncIterator[BaseChunk]:
        """More text."""
        if delta.content_delta:
            metadata = _metadata(provider_details=delta.provider_details)
            yield TextDeltaChunk(id=self._text_id, delta=delta.content_delta, provider_metadata=metadata)

    async def handle_text_end(self, part: TextPart, followed_by_text: bool = False) -> AsyncIterator[BaseChunk]:
        """The text part ends unless more text follows."""
        if not followed_by_text:
            yield TextEndChunk(id=self._text_id, provider_metadata=_provider_metadata(part))
            self._text_id = ''

    async def handle_thinking_start(
        self, part: ThinkingPart, follows_thinking: bool = False
    ) -> AsyncIterator[BaseChunk]:
        """Reasoning starts: each thinking part is a reasoning block of its own, as upstream."""
        self._reasoning_id = str(uuid4())
        metadata = _provider_metadata(part)
        yield ReasoningStartChunk(id=self._reasoning_id, provider_metadata=metadata)
        if part.content:
            yield ReasoningDeltaChunk(id=self._reasoning_id, delta=part.content, provider_metadata=metadata)

    async def handle_thinking_delta(self, delta: ThinkingPartDelta) -> AsyncIterator[BaseChunk]:
        """More reasoning."""
        if delta.content_delta:
            metadata = _metadata(
                signature=delta.signature_delta,
                provider_name=delta.provider_name,
                provider_details=delta.provider_details,
            )
            yield ReasoningDeltaChunk(id=self._reasoning_id, delta=delta.content_delta, provider_metadata=metadata)

    async def handle_thinking_end(
        self, part: ThinkingPart, followed_by_thinking: bool = False
    ) -> AsyncIterator[BaseChunk]:
        """Reasoning ends, with the part's provider metadata (its signature, say) now that it is complete."""
        yield ReasoningEndChunk(id=self._reasoning_id, provider_metadata=_provider_metadata(part))
        self._reasoning_id = ''

    async def handle_tool_call_start(self, part: ToolCallPart) -> AsyncIterator[BaseChunk]:
        """A tool call starts, with the arguments received so far."""
        yield ToolInputStartChunk(
            tool_call_id=part.tool_call_id, tool_name=part.tool_name, provider_metadata=_provider_metadata(part)
        )
        if part.args:
            yield ToolInputDeltaChunk(tool_call_id=part.tool_call_id, input_text_delta=part.args_as_json_str())

    async def handle_tool_call_delta(self, delta: ToolCallPartDelta) -> AsyncIterator[BaseChunk]:
        """More of the arguments' JSON."""
        args = delta.args_delta
        if args and delta.tool_call_id is not None:
            text = args if isinstance(args, str) else json.dumps(args)
            yield ToolInputDeltaChunk(tool_call_id=delta.tool_call_id, input_text_delta=text)

    async def handle_tool_call_end(self, part: ToolCallPart) -> AsyncIterator[BaseChunk]:
        """The arguments are complete."""
        yield ToolInputAvailableChunk(
            tool_call_id=part.tool_call_id,
            tool_name=part.tool_name,
            input=_input(part),
            provider_metadata=_provider_metadata(part),
        )

    async def handle_function_tool_result(self, event: FunctionToolResultEvent) -> AsyncIterator[BaseChunk]:
        """A call's result, its error, or (with tool approval on) the user's denial."""
        result = event.result
        if isinstance(result, RetryPromptPart):
            yield ToolOutputErrorChunk(tool_call_id=result.tool_call_id, error_text=result.model_response())
        elif self.tool_approval and result.tool_call_id in self.denied_tool_call_ids:
            yield ToolOutputDeniedChunk(tool_call_id=result.tool_call_id)
        else:
            yield ToolOutputAvailableChunk(tool_call_id=result.tool_call_id, output=_jsonable(result.content))

    async def handle_builtin_tool_call_start(self, part: BuiltinToolCallPart) -> AsyncIterator[BaseChunk]:
        """A builtin tool call starts: a tool call the provider executes, with the arguments received so far."""
        yield ToolInputStartChunk(
            tool_call_id=part.tool_call_id,
            tool_name=part.tool_name,
            provider_executed=True,
            provider_metadata=_builtin_provider_metadata(part),
        )
        if part.args:
            yield ToolInputDeltaChunk(tool_call_id=part.tool_call_id, input_text_delta=part.args_as_json_str())

    async def handle_builtin_tool_call_end(self, part: BuiltinToolCallPart) -> AsyncIterator[BaseChunk]:
        """The builtin tool call's arguments are complete."""
        try:
            tool_input: Any = part.args_as_dict()
        except ValueError:
            tool_input = part.args
        yield ToolInputAvailableChunk(
            tool_call_id=part.tool_call_id,
            tool_name=part.tool_name,
            input=tool_input,
            provider_executed=True,
            provider_metadata=_builtin_provider_metadata(part),
        )

    async def handle_builtin_tool_return(self, part: BuiltinToolReturnPart) -> AsyncIterator[BaseChunk]:
        """The builtin tool's result, as an output the provider executed."""
        yield ToolOutputAvailableChunk(
            tool_call_id=part.tool_call_id, output=_jsonable(part.content), provider_executed=True
        )

    async def handle_file(self, part: FilePart) -> AsyncIterator[BaseChunk]:
        """A file the model made, as a data URI."""
        yield FileChunk(url=part.content.data_uri, media_type=part.content.media_type)


def _builtin_provider_metadata(part: BuiltinToolCallPart) -> dict[str, Any] | None:
    """This package's details of a builtin tool call (provider, part id), to be given back with the call."""
    return _metadata(id=part.id, provider_name=part.provider_name, provider_details=part.provider_details)


def _provider_metadata(part: TextPart | ThinkingPart | ToolCallPart) -> dict[str, dict[str, Any]] | None:
    """The part's id, signature, provider name and details under `pydantic_ai`, as upstream sends them."""
    return _metadata(
        id=part.id,
        signature=part.signature if isinstance(part, ThinkingPart) else None,
        provider_name=part.provider_name,
        provider_details=part.provider_details,
    )


def _metadata(**fields: Any) -> dict[str, dict[str, Any]] | None:
    """The fields that are set, under `pydantic_ai` (the provider metadata upstream sends); `None` if none is."""
    present = {key: value for key, value in fields.items() if value is not None}
    return {'pydantic_ai': present} if present else None


def _input(part: ToolCallPart) -> Any:
    """The call's arguments as JSON data; arguments that are not valid JSON are sent as their text."""
    try:
        return part.args_as_dict()
    except ValueError:
        return part.args


def _jsonable(content: Any) -> Any:
    from pydantic_core import to_jsonable_python

    return to_jsonable_python(content, fallback=str)
