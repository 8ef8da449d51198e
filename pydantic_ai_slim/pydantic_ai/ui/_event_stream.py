"""`UIEventStream`: turns an agent run's events into a UI protocol's events, with one hook per kind of event."""

from __future__ import annotations

import dataclasses
import inspect
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeAlias, cast
from uuid import uuid4

from typing_extensions import TypeVar

from ..messages import (
    AgentStreamEvent,
    BuiltinToolCallPart,
    BuiltinToolReturnPart,
    FilePart,
    FinalResultEvent,
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
)
from ..run import AgentRunResult, AgentRunResultEvent

if TYPE_CHECKING:
    from starlette.responses import StreamingResponse

__all__ = ('SSE_CONTENT_TYPE', 'NativeEvent', 'OnCompleteFunc', 'UIEventStream')

SSE_CONTENT_TYPE = 'text/event-stream'
"""The content type of server-sent events."""

RunInputT = TypeVar('RunInputT')
EventT = TypeVar('EventT')
AgentDepsT = TypeVar('AgentDepsT', default=None)
OutputDataT = TypeVar('OutputDataT', default=str)

NativeEvent: TypeAlias = AgentStreamEvent | AgentRunResultEvent[Any]
"""An event of `Agent.run_stream_events`: a stream event, or the run's result at the end."""

OnCompleteFunc: TypeAlias = Callable[[AgentRunResult[Any]], None | Awaitable[None] | AsyncIterator[EventT]]
"""Called with the result when a run completes; it may yield more protocol events to send."""


@dataclass
class UIEventStream(ABC, Generic[RunInputT, EventT, AgentDepsT, OutputDataT]):
    """Base class of a UI protocol's event stream: subclasses override the hooks of the events they answer."""

    run_input: RunInputT
    """The parsed request the run answers."""
    accept: str | None = None
    """The request's `Accept` header."""
    message_id: str = field(default_factory=lambda: str(uuid4()))
    """The id of the message the stream builds."""

    _turn: Literal['request', 'response'] | None = field(default=None, init=False, repr=False)
    _result: AgentRunResult[OutputDataT] | None = field(default=None, init=False, repr=False)
    _final_result_event: FinalResultEvent | None = field(default=None, init=False, repr=False)
    _tool_call_ids: dict[int, str] = field(default_factory=dict[int, str], init=False, repr=False)

    def new_message_id(self) -> str:
        """Start a new message: make, store and return a new message id."""
        self.message_id = str(uuid4())
        return self.message_id

    @property
    def response_headers(self) -> Mapping[str, str] | None:
        """Extra headers of the streaming response."""
        return None

    @property
    def content_type(self) -> str:
        """The content type of the streaming response."""
        return SSE_CONTENT_TYPE

    @abstractmethod
    def encode_event(self, event: EventT) -> str:
        """Encode one protocol event as the text to send."""

    async def encode_stream(self, stream: AsyncIterator[EventT]) -> AsyncIterator[str]:
        """Encode each protocol event of a stream."""
        async for event in stream:
            yield self.encode_event(event)

    def streaming_response(self, stream: AsyncIterator[EventT]) -> StreamingResponse:
        """A starlette streaming response that sends the encoded events (needs the `ui` extra)."""
        from starlette.responses import StreamingResponse

        return StreamingResponse(
            self.encode_stream(stream), headers=dict(self.response_headers or {}), media_type=self.content_type
        )

    async def transform_stream(
        self, stream: AsyncIterator[NativeEvent], on_complete: OnCompleteFunc[EventT] | None = None
    ) -> AsyncIterator[EventT]:
        """Turn the run's events into protocol events; an error of the run becomes the protocol's error events."""
        async for event in self.before_stream():
            yield event
        try:
            async for native in stream:
                async for event in self.handle_event(native):
                    yield event
        except Exception as exc:
            async for event in self.on_error(exc):
                yield event
        else:
            if on_complete is not None and self._result is not None:
                async for event in _call_on_complete(on_complete, self._result):
                    yield event
        async for event in self._turn_to(None):
            yield event
        async for event in self.after_stream():
            yield event

    async def _turn_to(self, to_turn: Literal['request', 'response'] | None) -> AsyncIterator[EventT]:
        if to_turn == self._turn:
            return
        if self._turn == 'request':
            async for event in self.after_request():
                yield event
        elif self._turn == 'response':
            async for event in self.after_response():
                yield event
        self._turn = to_turn
        if to_turn == 'request':
            async for event in self.before_request():
                yield event
        elif to_turn == 'response':
            async for event in self.before_response():
                yield event

    async def handle_event(self, event: NativeEvent) -> AsyncIterator[EventT]:
        """Dispatch one run event to its hook."""
        if isinstance(event, PartStartEvent | PartDeltaEvent | PartEndEvent):
            async for chunk in self._handle_part_event(event):
                yield chunk
        elif isinstance(event, FinalResultEvent):
            self._final_result_event = event
            async for chunk in self.handle_final_result(event):
                yield chunk
        elif isinstance(event, FunctionToolCallEvent | FunctionToolResultEvent):
            async for chunk in self._turn_to('request'):
                yield chunk
            handler = (
                self.handle_function_tool_call(event)
                if isinstance(event, FunctionToolCallEvent)
                else self.handle_function_tool_result(event)
            )
            async for chunk in handler:
                yield chunk
        elif isinstance(event, AgentRunResultEvent):
            self._result = cast(AgentRunResult[OutputDataT], event.result)
            async for chunk in self.handle_run_result(event):
                yield chunk
        # Other events (e.g. a deferred-tool handler's) have no counterpart in a UI protocol by default.

    async def _handle_part_event(self, event: PartStartEvent | PartDeltaEvent | PartEndEvent) -> AsyncIterator[EventT]:
        async for chunk in self._turn_to('response'):
            yield chunk
        if isinstance(event, PartStartEvent):
            stream = self.handle_part_start(event)
        elif isinstance(event, PartDeltaEvent):
            stream = self.handle_part_delta(event)
        else:
            stream = self.handle_part_end(event)
        async for chunk in stream:
            yield chunk

    async def handle_part_start(self, event: PartStartEvent) -> AsyncIterator[EventT]:
        """A response part starts."""
        part = event.part
        if isinstance(part, TextPart):
            stream = self.handle_text_start(part, follows_text=event.previous_part_kind == 'text')
        elif isinstance(part, ThinkingPart):
            stream = self.handle_thinking_start(part, follows_thinking=event.previous_part_kind == 'thinking')
        elif isinstance(part, ToolCallPart):
            self._tool_call_ids[event.index] = part.tool_call_id
            stream = self.handle_tool_call_start(part)
        elif isinstance(part, BuiltinToolCallPart):
            self._tool_call_ids[event.index] = part.tool_call_id
            stream = self.handle_builtin_tool_call_start(part)
        elif isinstance(part, BuiltinToolReturnPart):
            stream = self.handle_builtin_tool_return(part)
        else:
            stream = self.handle_file(part)
        async for chunk in stream:
            yield chunk

    async def handle_part_delta(self, event: PartDeltaEvent) -> AsyncIterator[EventT]:
        """A response part grows."""
        delta = event.delta
        if isinstance(delta, TextPartDelta):
            stream = self.handle_text_delta(delta)
        elif isinstance(delta, ThinkingPartDelta):
            stream = self.handle_thinking_delta(delta)
        else:
            if delta.tool_call_id is None and event.index in self._tool_call_ids:
                # The hook gets the id of the call the delta belongs to even when the model sent it only once.
                delta = dataclasses.replace(delta, tool_call_id=self._tool_call_ids[event.index])
            stream = self.handle_tool_call_delta(delta)
        async for chunk in stream:
            yield chunk

    async def handle_part_end(self, event: PartEndEvent) -> AsyncIterator[EventT]:
        """A response part is complete."""
        part = event.part
        if isinstance(part, TextPart):
            stream = self.handle_text_end(part, followed_by_text=event.next_part_kind == 'text')
        elif isinstance(part, ThinkingPart):
            stream = self.handle_thinking_end(part, followed_by_thinking=event.next_part_kind == 'thinking')
        elif isinstance(part, ToolCallPart):
            stream = self.handle_tool_call_end(part)
        elif isinstance(part, BuiltinToolCallPart):
            stream = self.handle_builtin_tool_call_end(part)
        else:
            # A builtin tool's return and a file arrive whole, at their start.
            return
        async for chunk in stream:
            yield chunk

    async def before_stream(self) -> AsyncIterator[EventT]:
        """Events to send before any other."""
        return
        yield

    async def after_stream(self) -> AsyncIterator[EventT]:
        """Events to send after all others."""
        return
        yield

    async def on_error(self, error: Exception) -> AsyncIterator[EventT]:
        """Events to send when the run fails."""
        return
        yield

    async def before_request(self) -> AsyncIterator[EventT]:
        """Events to send when tool calls start being handled."""
        return
        yield

    async def after_request(self) -> AsyncIterator[EventT]:
        """Events to send when tool calls are handled."""
        return
        yield

    async def before_response(self) -> AsyncIterator[EventT]:
        """Events to send when a model response starts streaming."""
        return
        yield

    async def after_response(self) -> AsyncIterator[EventT]:
        """Events to send when a model response is complete."""
        return
        yield

    async def handle_text_start(self, part: TextPart, follows_text: bool = False) -> AsyncIterator[EventT]:
        """A text part starts; `follows_text` when the part before it was text too."""
        return
        yield

    async def handle_text_delta(self, delta: TextPartDelta) -> AsyncIterator[EventT]:
        """More text."""
        return
        yield

    async def handle_text_end(self, part: TextPart, followed_by_text: bool = False) -> AsyncIterator[EventT]:
        """A text part is complete; `followed_by_text` when the next part is text too."""
        return
        yield

    async def handle_thinking_start(self, part: ThinkingPart, follows_thinking: bool = False) -> AsyncIterator[EventT]:
        """A thinking part starts."""
        return
        yield

    async def handle_thinking_delta(self, delta: ThinkingPartDelta) -> AsyncIterator[EventT]:
        """More thinking."""
        return
        yield

    async def handle_thinking_end(
        self, part: ThinkingPart, followed_by_thinking: bool = False
    ) -> AsyncIterator[EventT]:
        """A thinking part is complete."""
        return
        yield

    async def handle_tool_call_start(self, part: ToolCallPart) -> AsyncIterator[EventT]:
        """A tool call starts streaming."""
        return
        yield

    async def handle_tool_call_delta(self, delta: ToolCallPartDelta) -> AsyncIterator[EventT]:
        """More of a tool call's arguments."""
        return
        yield

    async def handle_tool_call_end(self, part: ToolCallPart) -> AsyncIterator[EventT]:
        """A tool call is complete."""
        return
        yield

    async def handle_builtin_tool_call_start(self, part: BuiltinToolCallPart) -> AsyncIterator[EventT]:
        """A builtin tool call (run by the provider) starts; its argument deltas go to `handle_tool_call_delta`."""
        return
        yield

    async def handle_builtin_tool_call_end(self, part: BuiltinToolCallPart) -> AsyncIterator[EventT]:
        """A builtin tool call is complete."""
        return
        yield

    async def handle_builtin_tool_return(self, part: BuiltinToolReturnPart) -> AsyncIterator[EventT]:
        """A builtin tool's result, as the provider returned it."""
        return
        yield

    async def handle_file(self, part: FilePart) -> AsyncIterator[EventT]:
        """A file the model made, e.g. a generated image."""
        return
        yield

    async def handle_final_result(self, event: FinalResultEvent) -> AsyncIterator[EventT]:
        """The response holds the final result."""
        return
        yield

    async def handle_function_tool_call(self, event: FunctionToolCallEvent) -> AsyncIterator[EventT]:
        """A function tool is about to be called."""
        return
        yield

    async def handle_function_tool_result(self, event: FunctionToolResultEvent) -> AsyncIterator[EventT]:
        """A function tool call has its result."""
        return
        yield

    async def handle_run_result(self, event: AgentRunResultEvent[Any]) -> AsyncIterator[EventT]:
        """The run is complete."""
        return
        yield


async def _call_on_complete(on_complete: OnCompleteFunc[EventT], result: AgentRunResult[Any]) -> AsyncIterator[EventT]:
    returned = on_complete(result)
    if inspect.isawaitable(returned):
        await returned
    elif returned is not None:
        async for event in returned:
            yield event
