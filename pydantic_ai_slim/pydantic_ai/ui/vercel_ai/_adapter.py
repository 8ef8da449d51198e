"""`VercelAIAdapter`: serves an agent to the Vercel AI SDK v6 `useChat`, with optional tool approval."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Self, cast
from uuid import uuid4

from pydantic import TypeAdapter, ValidationError
from typing_extensions import TypeVar

from ...exceptions import UserError
from ...messages import (
    AudioUrl,
    BinaryContent,
    BuiltinToolCallPart,
    BuiltinToolReturnPart,
    DocumentUrl,
    FilePart,
    ImageUrl,
    ModelMessage,
    ModelRequest,
    ModelResponsePart,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserContent,
    UserPromptPart,
    VideoUrl,
)
from ...tools import DeferredToolApprovalResult, DeferredToolResults, ToolDenied
from .._adapter import UIAdapter, validation_error_response
from .._event_stream import NativeEvent
from .._messages_builder import MessagesBuilder
from ._approval import ApprovalSigner
from ._event_stream import VercelAIEventStream
from .request_types import (
    DynamicToolApprovalRequestedPart,
    DynamicToolApprovalRespondedPart,
    DynamicToolInputAvailablePart,
    DynamicToolOutputAvailablePart,
    DynamicToolOutputDeniedPart,
    DynamicToolOutputErrorPart,
    DynamicToolUIPart,
    FileUIPart,
    ReasoningUIPart,
    RegenerateMessage,
    RequestData,
    SubmitMessage,
    TextUIPart,
    ToolApproval,
    ToolApprovalRequested,
    ToolApprovalResponded,
    ToolApprovalRespondedPart,
    ToolInputAvailablePart,
    ToolInputStreamingPart,
    ToolOutputAvailablePart,
    ToolOutputDeniedPart,
    ToolOutputErrorPart,
    ToolUIPart,
    UIMessage,
    UIMessagePart,
)
from .response_types import BaseChunk

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from starlette.requests import Request
    from starlette.responses import Response

    from ...agent import Agent
    from .._event_stream import OnCompleteFunc

__all__ = ('VercelAIAdapter',)

AgentDepsT = TypeVar('AgentDepsT', default=None)
OutputDataT = TypeVar('OutputDataT', default=str)

_request_data_ta: TypeAdapter[SubmitMessage | RegenerateMessage] = TypeAdapter(RequestData)  # pyright: ignore[reportArgumentType, reportUnknownVariableType] -- an annotated union
_TOOL_PART_TYPES = (
    ToolInputStreamingPart,
    ToolInputAvailablePart,
    ToolOutputAvailablePart,
    ToolOutputErrorPart,
    ToolOutputDeniedPart,
    ToolApprovalRespondedPart,
)


@dataclass
class VercelAIAdapter(UIAdapter[RequestData, UIMessage, BaseChunk, AgentDepsT, OutputDataT]):
    """Answers `useChat` requests: loads the UI messages, runs the agent and streams the UI message chunks.

    With `tool_approval=True`, a run that ends with `DeferredToolRequests` asks the user to approve each call
    (`tool-approval-request` chunks), and the answers the next request carries resume the run. With an
    `approval_secret`, approval ids are bound to the call and its arguments, and answers that do not match are
    refused without running anything.
    """

    _: KW_ONLY
    tool_approval: bool = False
    """Whether to ask for approvals in the stream and read the answers from follow-up requests."""
    approval_secret: str | bytes | None = None
    """The server secret that signs approval ids; `None` issues random ids and trusts the client's answers."""

    def __post_init__(self) -> None:
        if self.tool_approval and self.deferred_tool_results is None:
            self.deferred_tool_results = self._approval_results()

    @classmethod
    async def from_request(
        cls,
        request: Request,
        *,
        agent: Agent[AgentDepsT, OutputDataT],
        tool_approval: bool = False,
        approval_secret: str | bytes | None = None,
    ) -> Self:
        """Parse a starlette request's body; raises `pydantic.ValidationError` on a bad body."""
        return cls(
            agent=agent,
            run_input=cls.build_run_input(await request.body()),
            accept=request.headers.get('accept'),
            tool_approval=tool_approval,
            approval_secret=approval_secret,
        )

    @classmethod
    async def dispatch_request(
        cls,
        request: Request,
        *,
        agent: Agent[AgentDepsT, OutputDataT],
        tool_approval: bool = False,
        approval_secret: str | bytes | None = None,
        on_complete: OnCompleteFunc[BaseChunk] | None = None,
        **run_kwargs: Any,
    ) -> Response:
        """Answer a request in one call: 422 with pydantic's errors for a bad body, else the chunk stream.

        `run_kwargs` are those of `run_stream` (`deps`, `model`, `message_history`, ...).
        """
        try:
            adapter = await cls.from_request(
                request, agent=agent, tool_approval=tool_approval, approval_secret=approval_secret
            )
        except ValidationError as exc:
            return validation_error_response(exc)
        return adapter.streaming_response(adapter.run_stream(on_complete=on_complete, **run_kwargs))

    @classmethod
    def build_run_input(cls, body: bytes) -> RequestData:
        """Parse a request body."""
        return _request_data_ta.validate_json(body)

    def build_event_stream(self) -> VercelAIEventStream[AgentDepsT, OutputDataT]:
        """A new chunk stream for this request."""
        return VercelAIEventStream(
            self.run_input,
            accept=self.accept,
            tool_approval=self.tool_approval,
            approval_signer=self._signer,
            denied_tool_call_ids=frozenset(self._denials),
        )

    @cached_property
    def messages(self) -> list[ModelMessage]:
        """The request's conversation as a message history."""
        return self.load_messages(self.run_input.messages)

    @cached_property
    def _signer(self) -> ApprovalSigner:
        return ApprovalSigner.from_secret(self.approval_secret)

    @cached_property
    def _answered(self) -> list[ToolApprovalRespondedPart | DynamicToolApprovalRespondedPart]:
        """The answered approvals of the last message, when the client sends them back to resume the run."""
        if not self.tool_approval or not self.run_input.messages:
            return []
        last = self.run_input.messages[-1]
        if last.role != 'assistant':
            return []
        return [p for p in last.parts if isinstance(p, ToolApprovalRespondedPart | DynamicToolApprovalRespondedPart)]

    @cached_property
    def _denials(self) -> dict[str, str | None]:
        return {p.tool_call_id: p.approval.reason for p in self._answered if not p.approval.approved}

    def _approval_results(self) -> DeferredToolResults | None:
        if not self._answered:
            return None
        approvals: dict[str, bool | DeferredToolApprovalResult] = {}
        for part in self._answered:
            reason = part.approval.reason
            approvals[part.tool_call_id] = True if part.approval.approved else ToolDenied(reason) if reason else False
        return DeferredToolResults(approvals=approvals)

    def _forged_approval(self) -> str | None:
        """The error text for the first answered approval that was not issued for its call, if any."""
        for part in self._answered:
            name = _tool_name(part)
            if not self._signer.verify(part.approval.id, name, part.tool_call_id, _args_dict(part.input)):
                return (
                    f'The approval of tool call {part.tool_call_id!r} (`{name}`) does not match a call this server '
                    'asked to approve: the call or its arguments were changed. The call was not run; ask again.'
                )
        return None

    def run_stream_native(self, **kwargs: Any) -> AsyncIterator[NativeEvent]:
        """Run the agent, unless the request answers an approval the server did not issue."""
        forged = self._forged_approval()
        if forged is not None:
            return _fail(UserError(forged))
        return super().run_stream_native(**kwargs)

    @classmethod
    def load_messages(cls, messages: Sequence[UIMessage]) -> list[ModelMessage]:
        """Turn UI messages into a message history; a tool part with a result becomes a call and its result."""
        builder = MessagesBuilder()
        for message in messages:
            if message.role == 'system':
                for part in message.parts:
                    if isinstance(part, TextUIPart):
                        builder.add(SystemPromptPart(content=part.text))
            elif message.role == 'user':
                content = _user_content(message.parts)
                if content:
                    text_only = len(content) == 1 and isinstance(content[0], str)
                    builder.add(UserPromptPart(content=content[0] if text_only else content))  # pyright: ignore[reportArgumentType] -- a str when text_only
            else:
                for part in message.parts:
                    _load_assistant_part(builder, part)
        return builder.messages

    @classmethod
    def dump_messages(
        cls, messages: Sequence[ModelMessage], *, approvals: Mapping[str, ToolApproval] | None = None
    ) -> list[UIMessage]:
        """Turn a message history into UI messages.

        Args:
            messages: The history.
            approvals: Approval state by tool call id, so that calls waiting for approval, answered or denied
                dump in the approval states (`approval-requested`, `approval-responded`, `output-denied`).
        """
        results: dict[str, ToolReturnPart | RetryPromptPart] = {}
        for message in messages:
            if isinstance(message, ModelRequest):
                for part in message.parts:
                    if isinstance(part, ToolReturnPart | RetryPromptPart) and part.tool_name is not None:
                        results[part.tool_call_id] = part
        ui: list[UIMessage] = []
        for message in messages:
            if isinstance(message, ModelRequest):
                ui.extend(_dump_request(message))
            else:
                parts = _dump_response_parts(message.parts, results, approvals or {})
                ui.append(UIMessage(id=str(uuid4()), role='assistant', parts=parts))
        return ui


async def _fail(error: Exception) -> AsyncIterator[NativeEvent]:
    raise error
    yield  # pragma: no cover


def _tool_name(part: ToolUIPart | DynamicToolUIPart) -> str:
    if isinstance(part, DynamicToolUIPart):
        return part.tool_name
    return part.type.removeprefix('tool-')


def _args(value: Any) -> str | dict[str, Any]:
    """Tool input as the call's args: JSON text is parsed, no input is no arguments."""
    if value is None:
        return {}
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        return cast(dict[str, Any], parsed) if isinstance(parsed, dict) else value
    return cast(dict[str, Any], value) if isinstance(value, dict) else json.dumps(value)


def _args_dict(value: Any) -> dict[str, Any]:
    args = _args(value)
    return args if isinstance(args, dict) else {'_raw': args}


def _user_content(parts: Sequence[UIMessagePart]) -> list[UserContent]:
    content: list[UserContent] = []
    for part in parts:
        if isinstance(part, TextUIPart):
            content.append(part.text)
        elif isinstance(part, FileUIPart):
            content.append(_load_file(part))
    return content


def _load_file(part: FileUIPart) -> UserContent:
    if part.url.startswith('data:'):
        return BinaryContent.from_data_uri(part.url)
    kind = part.media_type.split('/', 1)[0]
    if kind == 'image':
        return ImageUrl(url=part.url, media_type=part.media_type)
    if kind == 'audio':
        return AudioUrl(url=part.url, media_type=part.media_type)
    if kind == 'video':
        return VideoUrl(url=part.url, media_type=part.media_type)
    return DocumentUrl(url=part.url, media_type=part.media_type)


def _load_assistant_part(builder: MessagesBuilder, part: UIMessagePart) -> None:
    if _load_provider_part(builder, part):
        return
    if isinstance(part, TextUIPart):
        builder.add(TextPart(content=part.text))
    elif isinstance(part, ReasoningUIPart):
        builder.add(ThinkingPart(content=part.text))
    elif isinstance(part, _TOOL_PART_TYPES) or isinstance(part, DynamicToolUIPart):
        _load_tool_part(builder, part)
    elif isinstance(part, ToolUIPart):
        # A call still waiting for its approval has no result to load.
        builder.add(ToolCallPart(tool_name=_tool_name(part), args=_args(part.input), tool_call_id=part.tool_call_id))


def _load_tool_part(builder: MessagesBuilder, part: ToolUIPart | DynamicToolUIPart) -> None:
    name = _tool_name(part)
    builder.add(ToolCallPart(tool_name=name, args=_args(part.input), tool_call_id=part.tool_call_id))
    if isinstance(part, ToolOutputAvailablePart | DynamicToolOutputAvailablePart):
        builder.add(ToolReturnPart(tool_name=name, content=part.output, tool_call_id=part.tool_call_id))
    elif isinstance(part, ToolOutputErrorPart | DynamicToolOutputErrorPart):
        builder.add(RetryPromptPart(content=part.error_text, tool_name=name, tool_call_id=part.tool_call_id))
    elif isinstance(part, ToolOutputDeniedPart | DynamicToolOutputDeniedPart):
        message = part.approval.reason or ToolDenied().message
        builder.add(ToolReturnPart(tool_name=name, content=message, tool_call_id=part.tool_call_id))


def _dump_request(message: ModelRequest) -> list[UIMessage]:
    system: list[UIMessagePart] = []
    user: list[UIMessagePart] = []
    for part in message.parts:
        if isinstance(part, SystemPromptPart):
            system.append(TextUIPart(text=part.content, state='done'))
        elif isinstance(part, UserPromptPart):
            items = [part.content] if isinstance(part.content, str) else part.content
            user.extend(p for item in items if (p := _dump_user_item(item)) is not None)
    ui: list[UIMessage] = []
    if system:
        ui.append(UIMessage(id=str(uuid4()), role='system', parts=system))
    if user:
        ui.append(UIMessage(id=str(uuid4()), role='user', parts=user))
    return ui


def _dump_user_item(item: UserContent) -> UIMessagePart | None:
    if isinstance(item, str):
        return TextUIPart(text=item, state='done')
    if isinstance(item, BinaryContent):
        return FileUIPart(media_type=item.media_type, url=item.data_uri)
    if isinstance(item, ImageUrl | AudioUrl | VideoUrl | DocumentUrl):
        return FileUIPart(media_type=item.media_type, url=item.url)
    return None


def _dump_response_part(
    part: TextPart | ThinkingPart | ToolCallPart,
    results: Mapping[str, ToolReturnPart | RetryPromptPart],
    approvals: Mapping[str, ToolApproval],
) -> UIMessagePart:
    if isinstance(part, TextPart):
        return TextUIPart(text=part.content, state='done')
    if isinstance(part, ThinkingPart):
        return ReasoningUIPart(text=part.content, state='done')
    common: dict[str, Any] = {
        'tool_name': part.tool_name,
        'tool_call_id': part.tool_call_id,
        'input': part.args_as_json_str(),
    }
    result = results.get(part.tool_call_id)
    approval = approvals.get(part.tool_call_id)
    if isinstance(approval, ToolApprovalRequested) and result is None:
        return DynamicToolApprovalRequestedPart(**common, approval=approval)
    if isinstance(approval, ToolApprovalResponded):
        if result is None:
            return DynamicToolApprovalRespondedPart(**common, approval=approval)
        if not approval.approved:
            return DynamicToolOutputDeniedPart(**common, approval=approval)
    responded = approval if isinstance(approval, ToolApprovalResponded) else None
    if isinstance(result, ToolReturnPart):
        return DynamicToolOutputAvailablePart(**common, output=result.model_response_str(), approval=responded)
    if isinstance(result, RetryPromptPart):
        return DynamicToolOutputErrorPart(**common, error_text=result.model_response(), approval=responded)
    return DynamicToolInputAvailablePart(**common)


def _dump_response_parts(
    parts: Sequence[ModelResponsePart],
    results: Mapping[str, ToolReturnPart | RetryPromptPart],
    approvals: Mapping[str, ToolApproval],
) -> list[UIMessagePart]:
    """A response's parts as UI parts: a builtin tool call and its return become one provider-executed tool part."""
    returns = {part.tool_call_id: part for part in parts if isinstance(part, BuiltinToolReturnPart)}
    calls = {part.tool_call_id for part in parts if isinstance(part, BuiltinToolCallPart)}
    dumped: list[UIMessagePart] = []
    for part in parts:
        if isinstance(part, BuiltinToolCallPart):
            dumped.append(_dump_builtin_call(part, returns.get(part.tool_call_id)))
        elif isinstance(part, BuiltinToolReturnPart):
            if part.tool_call_id not in calls:
                dumped.append(_dump_builtin_call(BuiltinToolCallPart(part.tool_name, None, part.tool_call_id), part))
        elif isinstance(part, FilePart):
            dumped.append(FileUIPart(media_type=part.content.media_type, url=part.content.data_uri))
        else:
            dumped.append(_dump_response_part(part, results, approvals))
    return dumped


def _part_meta(part: BuiltinToolCallPart | BuiltinToolReturnPart) -> dict[str, Any]:
    meta = {'id': getattr(part, 'id', None), 'provider_name': part.provider_name}
    meta['provider_details'] = part.provider_details
    return {key: value for key, value in meta.items() if value is not None}


def _dump_builtin_call(call: BuiltinToolCallPart, result: BuiltinToolReturnPart | None) -> UIMessagePart:
    meta: dict[str, Any] = {'call_meta': _part_meta(call)}
    if result is None:
        return ToolInputAvailablePart(
            type=f'tool-{call.tool_name}',
            tool_call_id=call.tool_call_id,
            input=call.args_as_json_str(),
            provider_executed=True,
            call_provider_metadata={'pydantic_ai': meta},
        )
    meta['return_meta'] = _part_meta(result)
    return ToolOutputAvailablePart(
        type=f'tool-{call.tool_name}',
        tool_call_id=call.tool_call_id,
        input=call.args_as_json_str(),
        output=result.model_response_str(),
        provider_executed=True,
        call_provider_metadata={'pydantic_ai': meta},
    )


def _load_provider_part(builder: MessagesBuilder, part: UIMessagePart) -> bool:
    """Load a file the model made, or a provider-executed tool part as a builtin tool call (and its return).

    Returns whether the part was one of these.
    """
    if isinstance(part, FileUIPart) and part.url.startswith('data:'):
        builder.add(FilePart(BinaryContent.from_data_uri(part.url)))
        return True
    if not isinstance(part, _TOOL_PART_TYPES) or not part.provider_executed:
        return False
    name = _tool_name(part)
    meta: dict[str, Any] = (part.call_provider_metadata or {}).get('pydantic_ai') or {}
    call_meta = cast(dict[str, Any], meta.get('call_meta') or {})
    builder.add(BuiltinToolCallPart(name, _args(part.input), part.tool_call_id, **call_meta))
    if isinstance(part, ToolOutputAvailablePart):
        return_meta = cast(dict[str, Any], meta.get('return_meta') or {})
        return_meta.pop('id', None)
        builder.add(BuiltinToolReturnPart(name, part.output, part.tool_call_id, **return_meta))
    return True
