"""Results of runs: the final result of the graph, and the results of streamed runs.

`AgentStream` is one model response streaming in during a run: its events, and the text and output it holds
so far. `StreamedRunResult` is what `Agent.run_stream` yields: the stream of the response with the final
result, plus the run's messages, and it finishes the run (the tool calls of that response) once the stream
completes. `StreamedRunResultSync` offers the same from sync code, for `Agent.run_stream_sync`.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, cast

from pydantic import ValidationError
from typing_extensions import TypeVar, deprecated

from . import _utils
from ._errors import ToolRetryError
from ._run_context import RunContext
from ._stream_utils import group_by_temporal, sync_iterator
from .exceptions import UnexpectedModelBehavior, UserError
from .messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelResponse,
    ModelResponseStreamEvent,
    PartDeltaEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ToolCallPart,
)
from .tools import DeferredToolRequests
from .usage import RequestUsage, RunUsage, UsageLimits

if TYPE_CHECKING:
    from ._output import OutputSchema, OutputValidator
    from ._tool_manager import ToolManager
    from .models import StreamedResponse
    from .run import AgentRunResult

__all__ = ('AgentStream', 'FinalResult', 'StreamedRunResult', 'StreamedRunResultSync')

OutputDataT = TypeVar('OutputDataT', default=str, covariant=True)
AgentDepsT = TypeVar('AgentDepsT', default=None)
_T = TypeVar('_T')

_TEXT_ONLY = 'stream_text() can only be used with text responses'
_DEFERRED_NOT_ALLOWED = (
    'A deferred tool call was present, but `DeferredToolRequests` is not among output types. To resolve this, add '
    '`DeferredToolRequests` to the list of output types for this agent.'
)
_OUTPUT_TOOL_RETURN_CONTENT = 'Setting output tool return content is not supported for this result type.'


@dataclass(repr=False)
class FinalResult(Generic[OutputDataT]):
    """The output of a run, and the output tool call that gave it, if any."""

    output: OutputDataT
    """The output."""
    tool_name: str | None = None
    """The name of the output tool that gave the output, if any."""
    tool_call_id: str | None = None
    """The id of that tool call, if any."""

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(kw_only=True)
class AgentStream(Generic[AgentDepsT, OutputDataT]):
    """A model response streaming in during a run.

    Iterate over it for the response's events; or stream its text, its partial outputs, or snapshots of the
    response; or wait for its final output. All of these continue the same stream.
    """

    _raw_stream_response: StreamedResponse
    _output_schema: OutputSchema[OutputDataT]
    _output_validators: list[OutputValidator[AgentDepsT, OutputDataT]]
    _run_ctx: RunContext[AgentDepsT]
    _usage_limits: UsageLimits | None
    _tool_manager: ToolManager[AgentDepsT]
    _initial_run_ctx_usage: RunUsage = field(init=False)
    _agent_stream_iterator: AsyncGenerator[ModelResponseStreamEvent, None] | None = field(default=None, init=False)
    _cached_output: Any = field(default=_utils.Unset, init=False)
    _open_streams: list[AsyncGenerator[Any, None]] = field(default_factory=list[AsyncGenerator[Any, None]], init=False)

    def __post_init__(self) -> None:
        # The run's usage when the request started (the request already counted); the response's is added to it.
        self._initial_run_ctx_usage = self._run_ctx.usage + RequestUsage()

    def __aiter__(self) -> AsyncIterator[ModelResponseStreamEvent]:
        """The events of the response; token usage limits are checked after each one."""
        if self._agent_stream_iterator is None:
            self._agent_stream_iterator = self._checked_events()
        return self._agent_stream_iterator

    async def _checked_events(self) -> AsyncGenerator[ModelResponseStreamEvent, None]:
        limits = self._usage_limits
        check = limits is not None and limits.has_token_limits()
        async for event in self._raw_stream_response:
            if check:
                assert limits is not None
                limits.check_tokens(self.usage())
            yield event

    def stream_output(self, *, debounce_by: float | None = 0.1) -> AsyncIterator[OutputDataT]:
        """Stream the output: validated partial outputs as the response grows, then the final output.

        Args:
            debounce_by: Group the response's events into windows of this many seconds, yielding at most once
                per window; `None` yields after every event.
        """
        return self._track(self._stream_output(debounce_by))

    async def _stream_output(self, debounce_by: float | None) -> AsyncGenerator[OutputDataT, None]:
        async with aclosing(self._partial_outputs(debounce_by)) as outputs:
            async for output in outputs:
                yield output
        # A response without a final result (one of tool calls) has no output to give.
        if self._raw_stream_response.final_result_event is not None:
            yield await self.get_output()

    async def _partial_outputs(self, debounce_by: float | None) -> AsyncGenerator[OutputDataT, None]:
        last_parts: Any = None
        async with aclosing(self._stream_responses(debounce_by)) as responses:
            async for response in responses:
                # Events that leave the parts as they were (a part ending, an empty delta) give no new output.
                if self._raw_stream_response.final_result_event is None or response.parts == last_parts:
                    continue
                last_parts = response.parts
                try:
                    yield await self.validate_response_output(response, allow_partial=True)
                except ValidationError:
                    # A partial response may not validate yet; the next one may.
                    pass

    def stream_text(self, *, delta: bool = False, debounce_by: float | None = 0.1) -> AsyncIterator[str]:
        """Stream the text of the response: all of it so far, or (with `delta=True`) only what is new.

        The full text is checked by the output validators as partial output; deltas are not.

        Raises:
            UserError: If the output is not text.
        """
        return self._track(self._stream_text(delta, debounce_by))

    async def _stream_text(self, delta: bool, debounce_by: float | None) -> AsyncGenerator[str, None]:
        if not self._output_schema.allows_plain_text:
            raise UserError(_TEXT_ONLY)
        async with aclosing(self._text_deltas(debounce_by)) as deltas:
            if delta:
                async for text in deltas:
                    yield text
                return
            text = ''
            ctx = replace(self._run_ctx, partial_output=True)
            async for piece in deltas:
                text += piece
                output: Any = text
                for validator in self._output_validators:
                    output = await validator.validate(output, ctx)
                yield output

    async def _text_deltas(self, debounce_by: float | None) -> AsyncGenerator[str, None]:
        async with aclosing(self._text_pieces()) as pieces:
            if debounce_by is None:
                # Without grouping every piece goes straight through: this is the cheapest way to stream text.
                async for piece in pieces:
                    yield piece
                return
            async with aclosing(group_by_temporal(pieces, debounce_by)) as groups:
                async for group in groups:
                    yield ''.join(group)

    async def _text_pieces(self) -> AsyncGenerator[str, None]:
        """The text so far, then each new piece of text."""
        initial = ''.join(part.content for part in self.response.parts if isinstance(part, TextPart))
        if initial:
            yield initial
        # As upstream, the text is read from the model's stream without the usage limit checks of `__aiter__`.
        async for event in self._raw_stream_response:
            if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart) and event.part.content:
                yield event.part.content
            elif (
                isinstance(event, PartDeltaEvent)
                and isinstance(event.delta, TextPartDelta)
                and event.delta.content_delta
            ):
                yield event.delta.content_delta

    def stream_responses(self, *, debounce_by: float | None = 0.1) -> AsyncIterator[ModelResponse]:
        """Stream snapshots of the response: the current one (if it has content), then one per group of events."""
        return self._track(self._stream_responses(debounce_by))

    async def _stream_responses(self, debounce_by: float | None) -> AsyncGenerator[ModelResponse, None]:
        response = self.response
        if any(part.has_content() for part in response.parts):
            yield response
        async with aclosing(group_by_temporal(self, debounce_by)) as groups:
            async for _ in groups:
                yield self.response

    def _track(self, stream: AsyncGenerator[_T, None]) -> AsyncGenerator[_T, None]:
        # Streams are closed with the request, so that none is left waiting on the model's stream.
        self._open_streams.append(stream)
        return stream

    async def _close_streams(self) -> None:
        """Close the streams made from this one (their groupings may be waiting on the model's stream)."""
        for stream in self._open_streams:
            await stream.aclose()
        self._open_streams.clear()

    async def _close(self) -> None:
        """Close the streams made from this one, the event iterator, and the model's stream."""
        await self._close_streams()
        if self._agent_stream_iterator is not None:
            await self._agent_stream_iterator.aclose()
        await self._raw_stream_response._close()

    async def get_output(self) -> OutputDataT:
        """Stream the rest of the response, and return its validated output."""
        if not _utils.is_set(self._cached_output):
            async for _ in self:
                pass
            self._cached_output = await self.validate_response_output(self.response)
        # As upstream, each caller gets its own copy: changing one output does not change the next.
        return cast(OutputDataT, copy.deepcopy(self._cached_output))

    async def validate_response_output(self, message: ModelResponse, *, allow_partial: bool = False) -> OutputDataT:
        """Validate the output of a response (or of part of one, with `allow_partial=True`).

        Raises:
            UnexpectedModelBehavior: If the stream has no final result.
            ValidationError: If the output does not validate.
        """
        final = self._raw_stream_response.final_result_event
        if final is None:
            raise UnexpectedModelBehavior('Invalid response, unable to find output')
        ctx = replace(self._run_ctx, partial_output=allow_partial)
        call = None
        try:
            if final.tool_name is not None:
                call = _find_call(message, final.tool_name, final.tool_call_id)
                output = await self._output_schema.process_tool_call(call, ctx, allow_partial=allow_partial)
            elif self._raw_stream_response._deferred_calls_end_run and (
                (requests := self._deferred_tool_requests(message)) is not None
            ):
                return cast(OutputDataT, requests)
            else:
                text = ''.join(part.content for part in message.parts if isinstance(part, TextPart))
                output = await self._output_schema.process_text(text, ctx, allow_partial=allow_partial)
            for validator in self._output_validators:
                output = await validator.validate(output, ctx, tool_call=call)
        except ToolRetryError as e:
            # A stream is not retried: invalid output is raised as the validation error itself, as upstream.
            if isinstance(e.__cause__, ValidationError):
                raise e.__cause__ from None
            raise
        return output

    def _deferred_tool_requests(self, message: ModelResponse) -> DeferredToolRequests | None:
        """The calls of the response that must wait for the user or an approval, if there are any."""
        requests = DeferredToolRequests()
        for call in message.tool_calls:
            tool_def = self._tool_manager.get_tool_def(call.tool_name)
            if tool_def is not None and tool_def.kind == 'external':
                requests.calls.append(call)
            elif tool_def is not None and tool_def.kind == 'unapproved':
                requests.approvals.append(call)
        if not requests.calls and not requests.approvals:
            return None
        if not self._output_schema.allows_deferred_tool_requests:
            raise UserError(_DEFERRED_NOT_ALLOWED)
        return requests

    def get(self) -> ModelResponse:
        """The response as streamed so far."""
        return self._raw_stream_response.get()

    @property
    def response(self) -> ModelResponse:
        """The response as streamed so far."""
        return self.get()

    def usage(self) -> RunUsage:
        """The run's usage, including this response's so far."""
        return self._initial_run_ctx_usage + self._raw_stream_response.usage()

    def timestamp(self) -> datetime:
        """When the response started."""
        return self._raw_stream_response.timestamp

    @property
    def run_id(self) -> str:
        """The id of the run."""
        assert self._run_ctx.run_id is not None
        return self._run_ctx.run_id

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The metadata of the run."""
        return self._run_ctx.metadata


def _find_call(message: ModelResponse, tool_name: str, tool_call_id: str | None) -> ToolCallPart:
    calls = message.tool_calls
    call = next((c for c in calls if c.tool_call_id == tool_call_id), None)
    # The id may have changed since the call started; the name of an output tool identifies it too.
    call = call or next((c for c in calls if c.tool_name == tool_name), None)
    if call is None:
        raise UnexpectedModelBehavior(f'Invalid response, unable to find tool call for {tool_name!r}')
    return call


class StreamedRunResult(Generic[AgentDepsT, OutputDataT]):
    """The result of `Agent.run_stream`: the response with the final result streaming in, and the run's messages.

    Stream it with `stream_text`, `stream_output` or `stream_responses`, or wait with `get_output`. Once the
    stream completes, the tool calls of the response are handled (or skipped, by the end strategy) and the
    messages are complete. Leaving the `async with` block before that closes the stream.
    """

    is_complete: bool
    """Whether the stream has completed and the run's messages are final."""

    def __init__(
        self,
        all_messages: list[ModelMessage],
        new_message_index: int,
        stream_response: AgentStream[AgentDepsT, OutputDataT] | None = None,
        on_complete: Callable[[ModelResponse], Awaitable[None]] | None = None,
        run_result: AgentRunResult[OutputDataT] | None = None,
    ) -> None:
        """Make the result; `Agent.run_stream` does.

        Args:
            all_messages: The run's message history, which grows as the run finishes.
            new_message_index: Where the run's own messages start in it.
            stream_response: The response with the final result, if it is still streaming.
            on_complete: Called with the complete response once the stream completes, to finish the run.
            run_result: The run's result, if it already ended (the final result did not come from a stream).
        """
        self._all_messages = all_messages
        self._new_message_index = new_message_index
        self._stream_response = stream_response
        self._on_complete = on_complete
        self._run_result = run_result
        self.is_complete = False
        self._closed = False
        self._open_streams: list[AsyncGenerator[Any, None]] = []

    def __repr__(self) -> str:
        return f'{type(self).__name__}(is_complete={self.is_complete!r}, usage={self.usage()!r})'

    def all_messages(self, *, output_tool_return_content: str | None = None) -> list[ModelMessage]:
        """Every message of the conversation, including the history the run started from.

        Until the stream completes, the response being streamed is not among them.

        Raises:
            NotImplementedError: If `output_tool_return_content` is given; streamed results cannot change it.
        """
        if output_tool_return_content is not None:
            raise NotImplementedError(_OUTPUT_TOOL_RETURN_CONTENT)
        if self._run_result is not None:
            return self._run_result.all_messages()
        return self._all_messages

    def all_messages_json(self, *, output_tool_return_content: str | None = None) -> bytes:
        """`all_messages()` as JSON."""
        return ModelMessagesTypeAdapter.dump_json(
            self.all_messages(output_tool_return_content=output_tool_return_content)
        )

    def new_messages(self, *, output_tool_return_content: str | None = None) -> list[ModelMessage]:
        """The messages of this run."""
        return self.all_messages(output_tool_return_content=output_tool_return_content)[self._new_message_index :]

    def new_messages_json(self, *, output_tool_return_content: str | None = None) -> bytes:
        """`new_messages()` as JSON."""
        return ModelMessagesTypeAdapter.dump_json(
            self.new_messages(output_tool_return_content=output_tool_return_content)
        )

    def stream_output(self, *, debounce_by: float | None = 0.1) -> AsyncIterator[OutputDataT]:
        """Stream the output: validated partial outputs as the response grows, then the final output.

        Args:
            debounce_by: Group the response's events into windows of this many seconds, yielding at most once
                per window; `None` yields after every event.
        """
        return self._track(self._stream_output(debounce_by))

    def stream_text(self, *, delta: bool = False, debounce_by: float | None = 0.1) -> AsyncIterator[str]:
        """Stream the text: all of it so far on each step, or (with `delta=True`) only what is new.

        Args:
            delta: Yield only the new text of each step, not validated by output validators.
            debounce_by: Group the text into windows of this many seconds; `None` yields every piece.

        Raises:
            UserError: If the output is not text.
        """
        return self._track(self._stream_text(delta, debounce_by))

    def stream_responses(self, *, debounce_by: float | None = 0.1) -> AsyncIterator[tuple[ModelResponse, bool]]:
        """Stream snapshots of the response, each with whether it is the last (complete) one."""
        return self._track(self._stream_responses(debounce_by))

    @deprecated('`StreamedRunResult.stream` is deprecated, use `stream_output` instead.')
    def stream(self, *, debounce_by: float | None = 0.1) -> AsyncIterator[OutputDataT]:
        """Deprecated name of `stream_output`."""
        return self.stream_output(debounce_by=debounce_by)

    @deprecated('`StreamedRunResult.stream_structured` is deprecated, use `stream_responses` instead.')
    def stream_structured(self, *, debounce_by: float | None = 0.1) -> AsyncIterator[tuple[ModelResponse, bool]]:
        """Deprecated name of `stream_responses`."""
        return self.stream_responses(debounce_by=debounce_by)

    async def get_output(self) -> OutputDataT:
        """Stream the rest of the response, finish the run, and return the output."""
        if self._run_result is not None:
            return self._run_result.output
        stream = self._open_stream()
        output = await stream.get_output()
        await self._marked_completed()
        return output

    async def validate_response_output(self, message: ModelResponse, *, allow_partial: bool = False) -> OutputDataT:
        """Validate the output of a response (or of part of one, with `allow_partial=True`)."""
        return await self._open_stream().validate_response_output(message, allow_partial=allow_partial)

    @deprecated('`validate_structured_output` is deprecated, use `validate_response_output` instead.')
    async def validate_structured_output(self, message: ModelResponse, *, allow_partial: bool = False) -> OutputDataT:
        """Deprecated name of `validate_response_output`."""
        return await self.validate_response_output(message, allow_partial=allow_partial)

    def usage(self) -> RunUsage:
        """What the run has used, including the streamed response so far."""
        if self._run_result is not None:
            return self._run_result.usage()
        assert self._stream_response is not None
        return self._stream_response.usage()

    def timestamp(self) -> datetime:
        """When the streamed response started (or, for a finished run, when its last response came)."""
        if self._run_result is not None:
            return self._run_result.timestamp()
        assert self._stream_response is not None
        return self._stream_response.timestamp()

    @property
    def response(self) -> ModelResponse:
        """The streamed response so far (or, for a finished run, its last response)."""
        if self._stream_response is not None:
            return self._stream_response.get()
        return next(m for m in reversed(self.all_messages()) if isinstance(m, ModelResponse))

    @property
    def run_id(self) -> str:
        """The id of the run."""
        if self._run_result is not None:
            return self._run_result.run_id
        assert self._stream_response is not None
        return self._stream_response.run_id

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The metadata of the run."""
        if self._stream_response is not None:
            return self._stream_response.metadata
        return getattr(self._run_result, 'metadata', None)

    async def _stream_output(self, debounce_by: float | None) -> AsyncGenerator[OutputDataT, None]:
        if self._run_result is not None:
            yield self._run_result.output
            await self._marked_completed()
            return
        stream = self._open_stream()
        async with aclosing(stream._partial_outputs(debounce_by)) as outputs:
            async for output in outputs:
                yield output
        output = await stream.get_output()
        await self._marked_completed()
        yield output

    async def _stream_text(self, delta: bool, debounce_by: float | None) -> AsyncGenerator[str, None]:
        if self._run_result is not None:
            output = self._run_result.output
            if not isinstance(output, str):
                raise UserError(_TEXT_ONLY)
            yield output
            await self._marked_completed()
            return
        stream = self._open_stream()
        if self.is_complete:
            if not stream._output_schema.allows_plain_text:
                raise UserError(_TEXT_ONLY)
            # Streamed already: the whole text, as is.
            yield ''.join(part.content for part in stream.response.parts if isinstance(part, TextPart))
            return
        async with aclosing(stream._stream_text(delta, debounce_by)) as texts:
            async for text in texts:
                yield text
        await self._marked_completed()

    async def _stream_responses(self, debounce_by: float | None) -> AsyncGenerator[tuple[ModelResponse, bool], None]:
        if self._run_result is not None:
            yield self.response, True
            await self._marked_completed()
            return
        stream = self._open_stream()
        async with aclosing(stream._stream_responses(debounce_by)) as responses:
            async for response in responses:
                yield response, False
        # The last snapshot is the response the run records.
        response = stream.get()
        yield response, True
        await self._marked_completed(response)

    def _open_stream(self) -> AgentStream[AgentDepsT, OutputDataT]:
        if self._closed:
            raise UserError(
                'The stream was closed before it completed: stream the response or call `get_output()` inside the '
                '`async with agent.run_stream(...)` block.'
            )
        assert self._stream_response is not None
        return self._stream_response

    def _track(self, stream: AsyncGenerator[_T, None]) -> AsyncGenerator[_T, None]:
        # Streams are closed when the run's block is left, so none is left waiting on the model's stream.
        self._open_streams.append(stream)
        return stream

    async def _marked_completed(self, message: ModelResponse | None = None) -> None:
        if self.is_complete:
            return
        self.is_complete = True
        if self._on_complete is not None:
            assert self._stream_response is not None
            await self._on_complete(message or self._stream_response.get())

    async def _close(self) -> None:
        """Close the streams made from this result; an incomplete result can no longer be streamed."""
        for stream in self._open_streams:
            await stream.aclose()
        self._open_streams.clear()
        self._closed = not self.is_complete


class StreamedRunResultSync(Generic[AgentDepsT, OutputDataT]):
    """The result of `Agent.run_stream_sync`: `StreamedRunResult`'s methods, as plain calls and iterators.

    The run goes on in the event loop `run_sync` keeps for the calling thread, so the caller needs none.
    """

    def __init__(self, streamed_run_result: StreamedRunResult[AgentDepsT, OutputDataT]) -> None:
        """Wrap an async streamed run result."""
        self._streamed_run_result = streamed_run_result
        # Set by `Agent.run_stream_sync`: ends the run's context once the stream has completed.
        self._close_run: Callable[[], None] | None = None

    def __repr__(self) -> str:
        return f'{type(self).__name__}({self._streamed_run_result!r})'

    def all_messages(self, *, output_tool_return_content: str | None = None) -> list[ModelMessage]:
        """Every message of the conversation, including the history the run started from."""
        return self._streamed_run_result.all_messages(output_tool_return_content=output_tool_return_content)

    def all_messages_json(self, *, output_tool_return_content: str | None = None) -> bytes:
        """`all_messages()` as JSON."""
        return self._streamed_run_result.all_messages_json(output_tool_return_content=output_tool_return_content)

    def new_messages(self, *, output_tool_return_content: str | None = None) -> list[ModelMessage]:
        """The messages of this run."""
        return self._streamed_run_result.new_messages(output_tool_return_content=output_tool_return_content)

    def new_messages_json(self, *, output_tool_return_content: str | None = None) -> bytes:
        """`new_messages()` as JSON."""
        return self._streamed_run_result.new_messages_json(output_tool_return_content=output_tool_return_content)

    def stream_output(self, *, debounce_by: float | None = 0.1) -> Iterator[OutputDataT]:
        """Stream the output: validated partial outputs, then the final output."""
        return self._iterate(self._streamed_run_result.stream_output(debounce_by=debounce_by))

    def stream_text(self, *, delta: bool = False, debounce_by: float | None = 0.1) -> Iterator[str]:
        """Stream the text: all of it so far on each step, or (with `delta=True`) only what is new."""
        return self._iterate(self._streamed_run_result.stream_text(delta=delta, debounce_by=debounce_by))

    def stream_responses(self, *, debounce_by: float | None = 0.1) -> Iterator[tuple[ModelResponse, bool]]:
        """Stream snapshots of the response, each with whether it is the last one."""
        return self._iterate(self._streamed_run_result.stream_responses(debounce_by=debounce_by))

    def get_output(self) -> OutputDataT:
        """Stream the rest of the response, finish the run, and return the output."""
        output = _utils.run_sync(self._streamed_run_result.get_output())
        self._close_if_complete()
        return output

    def _iterate(self, items: AsyncIterator[_T]) -> Iterator[_T]:
        yield from sync_iterator(items, _utils.run_sync)
        self._close_if_complete()

    def _close_if_complete(self) -> None:
        close_run = self._close_run
        if close_run is not None and self.is_complete:
            self._close_run = None
            close_run()

    def validate_response_output(self, message: ModelResponse, *, allow_partial: bool = False) -> OutputDataT:
        """Validate the output of a response (or of part of one, with `allow_partial=True`)."""
        return _utils.run_sync(self._streamed_run_result.validate_response_output(message, allow_partial=allow_partial))

    def usage(self) -> RunUsage:
        """What the run has used, including the streamed response so far."""
        return self._streamed_run_result.usage()

    def timestamp(self) -> datetime:
        """When the streamed response started."""
        return self._streamed_run_result.timestamp()

    @property
    def is_complete(self) -> bool:
        """Whether the stream has completed and the run's messages are final."""
        return self._streamed_run_result.is_complete

    @property
    def response(self) -> ModelResponse:
        """The streamed response so far."""
        return self._streamed_run_result.response

    @property
    def run_id(self) -> str:
        """The id of the run."""
        return self._streamed_run_result.run_id

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The metadata of the run."""
        return self._streamed_run_result.metadata
