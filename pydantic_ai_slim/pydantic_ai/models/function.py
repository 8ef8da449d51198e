"""`FunctionModel`: a model whose responses come from a function you write, for tests and examples.

The function gets the conversation so far and an `AgentInfo` describing the request (tools, output
options, settings, instructions), and returns the `ModelResponse`, so a test can script exactly what the
"model" does at each step.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import KW_ONLY, dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias

from .. import _utils
from .._usage_estimate import count_tokens, estimate_usage
from ..builtin_tools import SUPPORTED_BUILTIN_TOOLS, AbstractBuiltinTool
from ..messages import ModelMessage, ModelResponse, ModelResponseStreamEvent
from ..profiles import ModelProfile, ModelProfileSpec
from ..settings import ModelSettings
from ..tools import ToolDefinition
from ..usage import RequestUsage
from . import Model, ModelRequestParameters, StreamedResponse

if TYPE_CHECKING:
    from .._run_context import RunContext

__all__ = (
    'AgentInfo',
    'DeltaThinkingCalls',
    'DeltaThinkingPart',
    'DeltaToolCall',
    'DeltaToolCalls',
    'FunctionDef',
    'FunctionModel',
    'FunctionStreamedResponse',
    'StreamFunctionDef',
)

# A function can produce any output shape, so the model claims support for native structured output too.
_FUNCTION_PROFILE = ModelProfile(supports_json_schema_output=True, supports_json_object_output=True)


@dataclass(frozen=True, kw_only=True)
class AgentInfo:
    """What the agent asks of this request, passed to a `FunctionModel`'s function with the messages."""

    function_tools: list[ToolDefinition]
    """The function tools the model may call."""
    allow_text_output: bool
    """Whether plain text is an acceptable final response."""
    output_tools: list[ToolDefinition]
    """The output tools the model may call to give the final result."""
    model_settings: ModelSettings | None
    """The settings of the request, the model's own merged under the run's."""
    model_request_parameters: ModelRequestParameters
    """All the request parameters, as the model received them."""
    instructions: str | None
    """The instructions the model would be sent, including those for prompted output."""


@dataclass
class DeltaToolCall:
    """A piece of a tool call, yielded by a stream function."""

    name: str | None = None
    """Text to add to the tool name."""
    json_args: str | None = None
    """Text to add to the JSON arguments."""
    _: KW_ONLY
    tool_call_id: str | None = None
    """The id of the call, if the function wants to choose it."""


@dataclass(kw_only=True)
class DeltaThinkingPart:
    """A piece of a thinking part, yielded by a stream function."""

    content: str | None = None
    """Text to add to the thinking."""
    signature: str | None = None
    """A new signature for the thinking."""


DeltaToolCalls: TypeAlias = dict[int, DeltaToolCall]
"""Tool call pieces by the index of the call they belong to."""

DeltaThinkingCalls: TypeAlias = dict[int, DeltaThinkingPart]
"""Thinking pieces by the index of the thinking part they belong to."""

FunctionDef: TypeAlias = Callable[[list[ModelMessage], AgentInfo], ModelResponse | Awaitable[ModelResponse]]
"""A function answering a non-streamed request: it takes the messages and an `AgentInfo`."""

StreamFunctionDef: TypeAlias = Callable[
    [list[ModelMessage], AgentInfo], AsyncIterator[str | DeltaToolCalls | DeltaThinkingCalls]
]
"""A function answering a streamed request: it yields text, or tool call or thinking pieces by index."""


@dataclass(init=False)
class FunctionModel(Model):
    """A model whose responses come from a local function (or an async one).

    Sync functions run in a worker thread, so they may block. Responses get the model's name, and an
    estimated usage when the function left the usage empty.
    """

    function: FunctionDef | None
    """The function answering non-streamed requests."""
    stream_function: StreamFunctionDef | None
    """The function answering streamed requests."""
    _model_name: str = field(repr=False)
    _system: str = field(default='function', repr=False)
    # Without a profile, a function model supports every output mode, so any output type can be tested.
    _default_profile: ClassVar[ModelProfile] = _FUNCTION_PROFILE

    def __init__(
        self,
        function: FunctionDef | None = None,
        *,
        stream_function: StreamFunctionDef | None = None,
        model_name: str | None = None,
        profile: ModelProfileSpec | None = None,
        settings: ModelSettings | None = None,
    ) -> None:
        """Make a model from a function, a stream function, or both.

        Args:
            function: The function answering non-streamed requests.
            stream_function: The function answering streamed requests.
            model_name: The model's name; by default `function:{function name}:{stream function name}`.
            profile: What the model supports; by default it supports every output mode.
            settings: Default settings for the model's requests.

        Raises:
            TypeError: if neither function is given.
        """
        if function is None and stream_function is None:
            raise TypeError('Either `function` or `stream_function` must be provided')
        super().__init__(settings=settings, profile=profile)
        self.function = function
        self.stream_function = stream_function
        if model_name is None:
            # Like upstream, a callable without `__name__` (e.g. a partial) needs an explicit `model_name`.
            function_name = function.__name__ if function is not None else ''
            stream_name = stream_function.__name__ if stream_function is not None else ''
            model_name = f'function:{function_name}:{stream_name}'
        self._model_name = model_name
        self._system = 'function'

    @property
    def model_name(self) -> str:
        """The model's name."""
        return self._model_name

    @property
    def system(self) -> str:
        """The provider's name: `'function'`."""
        return self._system

    @classmethod
    def supported_builtin_tools(cls) -> frozenset[type[AbstractBuiltinTool]]:
        """Every builtin tool: the function sees them in `info.model_request_parameters.builtin_tools`."""
        return SUPPORTED_BUILTIN_TOOLS

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Call the function with the messages and an `AgentInfo`, and return its response."""
        model_settings, model_request_parameters = self.prepare_request(model_settings, model_request_parameters)
        agent_info = self._agent_info(messages, model_settings, model_request_parameters)
        assert self.function is not None, 'FunctionModel must receive a `function` to support non-streamed requests'
        response = await _utils.call_maybe_async(self.function, messages, agent_info)
        assert isinstance(response, ModelResponse), response
        response.model_name = self._model_name
        if not response.usage.has_values():
            response.usage = estimate_usage([*messages, response])
        return response

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        """Call the stream function with the messages and an `AgentInfo`, and stream what it yields.

        Raises:
            ValueError: If the stream function yields nothing.
        """
        model_settings, model_request_parameters = self.prepare_request(model_settings, model_request_parameters)
        agent_info = self._agent_info(messages, model_settings, model_request_parameters)
        assert self.stream_function is not None, (
            'FunctionModel must receive a `stream_function` to support streamed requests'
        )
        items = self.stream_function(messages, agent_info)
        try:
            try:
                first = await anext(items)
            except StopAsyncIteration:
                raise ValueError('Stream function must return at least one item') from None
            yield FunctionStreamedResponse(
                model_request_parameters, _model_name=self._model_name, _first_item=first, _items=items
            )
        finally:
            # Leaving early (or failing) stops the stream function instead of leaving it suspended.
            await _aclose(items)

    def _agent_info(
        self, messages: list[ModelMessage], settings: ModelSettings | None, params: ModelRequestParameters
    ) -> AgentInfo:
        return AgentInfo(
            function_tools=params.function_tools,
            allow_text_output=params.allow_text_output,
            output_tools=params.output_tools,
            model_settings=settings,
            model_request_parameters=params,
            instructions=self._get_instructions(messages, params),
        )


# The fixed input usage of a streamed request: a stream function has no response to estimate from up front.
_STREAM_INPUT_TOKENS = 50

_StreamItem: TypeAlias = str | DeltaToolCalls | DeltaThinkingCalls


@dataclass(kw_only=True)
class FunctionStreamedResponse(StreamedResponse):
    """The streamed response of a `FunctionModel`: text, thinking and tool call pieces from its stream function.

    Usage: 50 input tokens, and as output tokens the words of each text, thinking and argument piece.
    """

    _model_name: str
    _first_item: _StreamItem
    _items: AsyncIterator[_StreamItem]
    _timestamp: datetime = field(default_factory=_utils.now_utc)

    def __post_init__(self) -> None:
        self._usage = RequestUsage(input_tokens=_STREAM_INPUT_TOKENS)

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        for event in self._handle_item(self._first_item):
            yield event
        async for item in self._items:
            for event in self._handle_item(item):
                yield event

    def _handle_item(self, item: _StreamItem) -> Iterator[ModelResponseStreamEvent]:
        if isinstance(item, str):
            self._usage.output_tokens += count_tokens(item)
            yield from self._parts_manager.handle_text_delta(vendor_part_id='content', content=item)
            return
        # Anything but text and dicts of pieces is ignored, as upstream does.
        if not isinstance(item, dict):  # pyright: ignore[reportUnnecessaryIsInstance] -- functions may yield anything
            return
        for index, delta in item.items():
            if isinstance(delta, DeltaThinkingPart):
                yield from self._thinking(index, delta)
            elif isinstance(delta, DeltaToolCall):  # pyright: ignore[reportUnnecessaryIsInstance] -- as above
                self._usage.output_tokens += count_tokens(delta.json_args or '')
                event = self._parts_manager.handle_tool_call_delta(
                    vendor_part_id=index, tool_name=delta.name, args=delta.json_args, tool_call_id=delta.tool_call_id
                )
                if event is not None:
                    yield event

    def _thinking(self, index: int, delta: DeltaThinkingPart) -> Iterator[ModelResponseStreamEvent]:
        self._usage.output_tokens += count_tokens(delta.content or '')
        # A signature is the provider's, so a piece that carries one is marked as coming from this model.
        yield from self._parts_manager.handle_thinking_delta(
            vendor_part_id=index,
            content=delta.content,
            signature=delta.signature,
            provider_name='function' if delta.signature else None,
        )

    @property
    def model_name(self) -> str:
        """The name of the model."""
        return self._model_name

    @property
    def provider_name(self) -> None:
        """A function model has no provider."""
        return None

    @property
    def provider_url(self) -> None:
        """A function model has no provider URL."""
        return None

    @property
    def timestamp(self) -> datetime:
        """When the stream started."""
        return self._timestamp


async def _aclose(items: AsyncIterator[object]) -> None:
    aclose = getattr(items, 'aclose', None)
    if aclose is not None:
        await aclose()
