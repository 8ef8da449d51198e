"""`UIAdapter`: answers a UI protocol's request by running an agent and streaming the protocol's events."""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Sequence
from dataclasses import KW_ONLY, dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Generic, Protocol, Self, runtime_checkable

from pydantic import BaseModel, ValidationError
from typing_extensions import TypeVar

from ..builtin_tools import AbstractBuiltinTool
from ..messages import ModelMessage
from ..models import KnownModelName, Model
from ..output import OutputSpec
from ..settings import ModelSettings
from ..tools import DeferredToolResults
from ..toolsets.abstract import AbstractToolset
from ..usage import RunUsage, UsageLimits
from ._event_stream import NativeEvent, OnCompleteFunc, UIEventStream

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse

    from ..agent import Agent

__all__ = ('StateDeps', 'StateHandler', 'UIAdapter')

StateT = TypeVar('StateT', bound=BaseModel)


@runtime_checkable
class StateHandler(Protocol):
    """Dependencies that hold the frontend state of a run in a `state` field (a dataclass, like `StateDeps`)."""

    @property
    def state(self) -> Any:
        """The state."""
        raise NotImplementedError

    @state.setter
    def state(self, state: Any) -> None:
        raise NotImplementedError


@dataclass
class StateDeps(Generic[StateT]):
    """Dependencies holding just the frontend state, a pydantic model set from the request when the run starts."""

    state: StateT
    """The state."""


def _with_state(deps: Any, state: dict[str, Any]) -> Any:
    """A copy of `deps` (a dataclass with a `state` field) holding `state`, validated as the field's model."""
    current = deps.state
    validated = type(current).model_validate(state) if isinstance(current, BaseModel) else state
    return dataclasses.replace(deps, state=validated)


RunInputT = TypeVar('RunInputT')
MessageT = TypeVar('MessageT')
EventT = TypeVar('EventT')
AgentDepsT = TypeVar('AgentDepsT', default=None)
OutputDataT = TypeVar('OutputDataT', default=str)


@dataclass
class UIAdapter(ABC, Generic[RunInputT, MessageT, EventT, AgentDepsT, OutputDataT]):
    """Base class of a UI protocol's adapter: parses a request, runs the agent and encodes its events."""

    agent: Agent[AgentDepsT, OutputDataT]
    """The agent that answers."""
    run_input: RunInputT
    """The parsed request."""
    _: KW_ONLY
    accept: str | None = None
    """The request's `Accept` header."""
    deferred_tool_results: DeferredToolResults | None = None
    """Results of deferred tool calls to resume the run with, when the call to `run_stream` gives none."""

    @classmethod
    async def from_request(cls, request: Request, *, agent: Agent[AgentDepsT, OutputDataT]) -> Self:
        """Parse a starlette request's body into an adapter; raises `pydantic.ValidationError` on a bad body."""
        return cls(
            agent=agent, run_input=cls.build_run_input(await request.body()), accept=request.headers.get('accept')
        )

    @classmethod
    @abstractmethod
    def build_run_input(cls, body: bytes) -> RunInputT:
        """Parse a request body."""

    @classmethod
    @abstractmethod
    def load_messages(cls, messages: Sequence[MessageT]) -> list[ModelMessage]:
        """Turn protocol messages into a message history."""

    @classmethod
    @abstractmethod
    def dump_messages(cls, messages: Sequence[ModelMessage]) -> list[MessageT]:
        """Turn a message history into protocol messages."""

    @abstractmethod
    def build_event_stream(self) -> UIEventStream[RunInputT, EventT, AgentDepsT, OutputDataT]:
        """A new event stream for this request."""

    @cached_property
    @abstractmethod
    def messages(self) -> list[ModelMessage]:
        """The request's conversation as a message history."""

    @cached_property
    def state(self) -> dict[str, Any] | None:
        """The frontend state sent with the request, if the protocol has one (`None` here)."""
        return None

    @cached_property
    def toolset(self) -> AbstractToolset[AgentDepsT] | None:
        """The frontend tools sent with the request, as a toolset, if the protocol has them (`None` here)."""
        return None

    def transform_stream(
        self, stream: AsyncIterator[NativeEvent], on_complete: OnCompleteFunc[EventT] | None = None
    ) -> AsyncIterator[EventT]:
        """Turn the run's events into protocol events."""
        return self.build_event_stream().transform_stream(stream, on_complete)

    def encode_stream(self, stream: AsyncIterator[EventT]) -> AsyncIterator[str]:
        """Encode protocol events as the text to send."""
        return self.build_event_stream().encode_stream(stream)

    def streaming_response(self, stream: AsyncIterator[EventT]) -> StreamingResponse:
        """A starlette streaming response that sends the protocol events (needs the `ui` extra)."""
        return self.build_event_stream().streaming_response(stream)

    def run_stream_native(
        self,
        *,
        output_type: OutputSpec[Any] | None = None,
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: Model | KnownModelName | str | None = None,
        instructions: Any = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: dict[str, Any] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool] | None = None,
    ) -> AsyncIterator[NativeEvent]:
        """Run the agent on the request's conversation (after `message_history`) and iterate over its events.

        The request's frontend toolset (`toolset`) is added to `toolsets`; its frontend state (`state`) is
        validated into `deps.state` when `deps` is a `StateHandler` such as `StateDeps`.
        """
        if self.toolset is not None:
            toolsets = [*(toolsets or []), self.toolset]
        if self.state is not None and isinstance(deps, StateHandler):
            deps = _with_state(deps, self.state)
        return self.agent.run_stream_events(
            output_type=output_type,
            message_history=[*(message_history or []), *self.messages],
            deferred_tool_results=deferred_tool_results or self.deferred_tool_results,
            model=model,
            instructions=instructions,
            deps=deps,
            model_settings=model_settings,
            usage_limits=usage_limits,
            usage=usage,
            metadata=metadata,
            infer_name=infer_name,
            toolsets=toolsets,
            builtin_tools=builtin_tools,
        )

    def run_stream(
        self,
        *,
        output_type: OutputSpec[Any] | None = None,
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: Model | KnownModelName | str | None = None,
        instructions: Any = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: dict[str, Any] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool] | None = None,
        on_complete: OnCompleteFunc[EventT] | None = None,
    ) -> AsyncIterator[EventT]:
        """Run the agent on the request's conversation and iterate over the protocol events to send."""
        native = self.run_stream_native(
            output_type=output_type,
            message_history=message_history,
            deferred_tool_results=deferred_tool_results,
            model=model,
            instructions=instructions,
            deps=deps,
            model_settings=model_settings,
            usage_limits=usage_limits,
            usage=usage,
            metadata=metadata,
            infer_name=infer_name,
            toolsets=toolsets,
            builtin_tools=builtin_tools,
        )
        return self.transform_stream(native, on_complete)

    @classmethod
    async def dispatch_request(
        cls,
        request: Request,
        *,
        agent: Agent[AgentDepsT, OutputDataT],
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: Model | KnownModelName | str | None = None,
        instructions: Any = None,
        deps: AgentDepsT = None,
        output_type: OutputSpec[Any] | None = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: dict[str, Any] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool] | None = None,
        on_complete: OnCompleteFunc[EventT] | None = None,
    ) -> Response:
        """Answer a starlette request in one call: a 422 JSON response for a bad body, else the event stream."""
        try:
            adapter = await cls.from_request(request, agent=agent)
        except ValidationError as exc:
            return validation_error_response(exc)
        return adapter.streaming_response(
            adapter.run_stream(
                message_history=message_history,
                deferred_tool_results=deferred_tool_results,
                model=model,
                instructions=instructions,
                deps=deps,
                output_type=output_type,
                model_settings=model_settings,
                usage_limits=usage_limits,
                usage=usage,
                metadata=metadata,
                infer_name=infer_name,
                toolsets=toolsets,
                builtin_tools=builtin_tools,
                on_complete=on_complete,
            )
        )


def validation_error_response(exc: ValidationError) -> Response:
    """A 422 response that lists what is wrong with a request body, as pydantic's JSON errors."""
    from starlette.responses import Response

    return Response(content=exc.json(), media_type='application/json', status_code=422)
