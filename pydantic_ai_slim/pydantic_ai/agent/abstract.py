"""`AbstractAgent`: the interface every agent offers, and the run methods built on its `iter`.

`Agent` implements it; `WrapperAgent` forwards it to another agent, the base of agents that add behaviour
around runs (e.g. durable execution). Everything here is written against `iter`, so a subclass that changes
how a run starts changes every run method at once.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import weakref
from abc import ABC, abstractmethod
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, AbstractContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any, Generic, TypeAlias, overload

import anyio
from pydantic_graph import End
from typing_extensions import TypeIs, TypeVar

from .. import _agent_graph, _output, _tool_manager, _utils, models
from .._agent_graph import CallToolsNode, EventStreamHandler, ModelRequestNode, UserPromptNode
from .._json_schema import JsonSchema
from .._run_context import RunContext
from ..builtin_tools import AbstractBuiltinTool
from ..messages import AgentStreamEvent, ModelMessage, UserContent
from ..output import OutputSpec
from ..result import FinalResult, StreamedRunResult, StreamedRunResultSync
from ..run import AgentRun, AgentRunResult, AgentRunResultEvent
from ..settings import ModelSettings
from ..tools import BuiltinToolFunc, DeferredToolHandler, DeferredToolResults, SystemPromptFunc, Tool, ToolFuncEither
from ..toolsets.abstract import AbstractToolset
from ..usage import RunUsage, UsageLimits

__all__ = ('AbstractAgent', 'AgentMetadata', 'Instructions')

AgentDepsT = TypeVar('AgentDepsT', default=None, contravariant=True)
OutputDataT = TypeVar('OutputDataT', default=str, covariant=True)
RunOutputDataT = TypeVar('RunOutputDataT')
T = TypeVar('T')
S = TypeVar('S')

AgentMetadata: TypeAlias = dict[str, Any] | Callable[[RunContext[AgentDepsT]], dict[str, Any]]
"""Metadata of a run: a dict, or a function of the run context that makes one (called when the run starts, and
again when it ends, so the result holds the final values)."""

Instructions: TypeAlias = str | SystemPromptFunc[AgentDepsT] | Sequence[str | SystemPromptFunc[AgentDepsT]] | None
"""Instructions: a string, a function that makes them, or a list of these."""


class AbstractAgent(Generic[AgentDepsT, OutputDataT], ABC):
    """What every agent offers: its model, name, types and toolsets, `iter`, `override`, and the run methods.

    The run methods (`run`, `run_sync`, `run_stream`, `run_stream_sync`, `run_stream_events`) are built on
    `iter`, which subclasses implement.
    """

    @property
    @abstractmethod
    def model(self) -> models.Model | models.KnownModelName | str | None:
        """The agent's default model, if it has one."""
        raise NotImplementedError

    @property
    @abstractmethod
    def name(self) -> str | None:
        """The agent's name; inferred from the variable that holds it at its first run if not given."""
        raise NotImplementedError

    @name.setter
    @abstractmethod
    def name(self, value: str | None) -> None:
        """Set the agent's name."""
        raise NotImplementedError

    @property
    @abstractmethod
    def deps_type(self) -> type:
        """The type of the dependencies."""
        raise NotImplementedError

    @property
    @abstractmethod
    def output_type(self) -> OutputSpec[OutputDataT]:
        """The output type of the agent's runs."""
        raise NotImplementedError

    @property
    @abstractmethod
    def event_stream_handler(self) -> EventStreamHandler[AgentDepsT] | None:
        """The handler that receives the events of the agent's runs, if any."""
        raise NotImplementedError

    @property
    @abstractmethod
    def toolsets(self) -> Sequence[AbstractToolset[AgentDepsT]]:
        """The agent's toolsets."""
        raise NotImplementedError

    @property
    def deferred_tool_handler(self) -> DeferredToolHandler[AgentDepsT] | None:
        """The deferred tool handler the agent's runs use when a run is not given one; `None` here."""
        return None

    @overload
    async def run(
        self,
        user_prompt: str | Sequence[UserContent] | None = None,
        *,
        output_type: None = None,
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: models.Model | models.KnownModelName | str | None = None,
        instructions: Instructions[AgentDepsT] = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: AgentMetadata[AgentDepsT] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[AgentDepsT]] | None = None,
        event_stream_handler: EventStreamHandler[AgentDepsT] | None = None,
        deferred_tool_handler: DeferredToolHandler[AgentDepsT] | None = None,
    ) -> AgentRunResult[OutputDataT]: ...

    @overload
    async def run(
        self,
        user_prompt: str | Sequence[UserContent] | None = None,
        *,
        output_type: OutputSpec[RunOutputDataT],
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: models.Model | models.KnownModelName | str | None = None,
        instructions: Instructions[AgentDepsT] = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: AgentMetadata[AgentDepsT] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[AgentDepsT]] | None = None,
        event_stream_handler: EventStreamHandler[AgentDepsT] | None = None,
        deferred_tool_handler: DeferredToolHandler[AgentDepsT] | None = None,
    ) -> AgentRunResult[RunOutputDataT]: ...

    async def run(
        self,
        user_prompt: str | Sequence[UserContent] | None = None,
        *,
        output_type: OutputSpec[Any] | None = None,
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: models.Model | models.KnownModelName | str | None = None,
        instructions: Instructions[AgentDepsT] = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: AgentMetadata[AgentDepsT] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[AgentDepsT]] | None = None,
        event_stream_handler: EventStreamHandler[AgentDepsT] | None = None,
        deferred_tool_handler: DeferredToolHandler[AgentDepsT] | None = None,
    ) -> AgentRunResult[Any]:
        """Run the agent to completion and return its result.

        With an event stream handler (given here or to the agent), each model request is streamed and the
        handler receives the events of every request and tool-call stage. `deferred_tool_handler` resolves the
        deferred calls of each response within the run; if it is not given (or `None`), the agent's applies.
        """
        if infer_name and self.name is None:
            self._infer_name(inspect.currentframe())
        async with self.iter(
            user_prompt,
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
            toolsets=toolsets,
            builtin_tools=builtin_tools,
            infer_name=False,
            event_stream_handler=event_stream_handler or self.event_stream_handler,
            deferred_tool_handler=deferred_tool_handler,
        ) as agent_run:
            async for _ in agent_run:
                pass
        result = agent_run.result
        assert result is not None, 'the graph run ended without a result'
        return result

    @overload
    def run_sync(
        self,
        user_prompt: str | Sequence[UserContent] | None = None,
        *,
        output_type: None = None,
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: models.Model | models.KnownModelName | str | None = None,
        instructions: Instructions[AgentDepsT] = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: AgentMetadata[AgentDepsT] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[AgentDepsT]] | None = None,
        event_stream_handler: EventStreamHandler[AgentDepsT] | None = None,
        deferred_tool_handler: DeferredToolHandler[AgentDepsT] | None = None,
    ) -> AgentRunResult[OutputDataT]: ...

    @overload
    def run_sync(
        self,
        user_prompt: str | Sequence[UserContent] | None = None,
        *,
        output_type: OutputSpec[RunOutputDataT],
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: models.Model | models.KnownModelName | str | None = None,
        instructions: Instructions[AgentDepsT] = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: AgentMetadata[AgentDepsT] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[AgentDepsT]] | None = None,
        event_stream_handler: EventStreamHandler[AgentDepsT] | None = None,
        deferred_tool_handler: DeferredToolHandler[AgentDepsT] | None = None,
    ) -> AgentRunResult[RunOutputDataT]: ...

    def run_sync(
        self,
        user_prompt: str | Sequence[UserContent] | None = None,
        *,
        output_type: OutputSpec[Any] | None = None,
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: models.Model | models.KnownModelName | str | None = None,
        instructions: Instructions[AgentDepsT] = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: AgentMetadata[AgentDepsT] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[AgentDepsT]] | None = None,
        event_stream_handler: EventStreamHandler[AgentDepsT] | None = None,
        deferred_tool_handler: DeferredToolHandler[AgentDepsT] | None = None,
    ) -> AgentRunResult[Any]:
        """Run the agent to completion without an event loop in the caller (one is kept per thread).

        Takes the arguments of `run`.
        """
        if infer_name and self.name is None:
            self._infer_name(inspect.currentframe())
        return _utils.run_sync(
            self.run(
                user_prompt,
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
                toolsets=toolsets,
                builtin_tools=builtin_tools,
                infer_name=False,
                event_stream_handler=event_stream_handler,
                deferred_tool_handler=deferred_tool_handler,
            )
        )

    @overload
    def run_stream(
        self,
        user_prompt: str | Sequence[UserContent] | None = None,
        *,
        output_type: None = None,
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: models.Model | models.KnownModelName | str | None = None,
        instructions: Instructions[AgentDepsT] = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: AgentMetadata[AgentDepsT] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[AgentDepsT]] | None = None,
        event_stream_handler: EventStreamHandler[AgentDepsT] | None = None,
        deferred_tool_handler: DeferredToolHandler[AgentDepsT] | None = None,
    ) -> AbstractAsyncContextManager[StreamedRunResult[AgentDepsT, OutputDataT]]: ...

    @overload
    def run_stream(
        self,
        user_prompt: str | Sequence[UserContent] | None = None,
        *,
        output_type: OutputSpec[RunOutputDataT],
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: models.Model | models.KnownModelName | str | None = None,
        instructions: Instructions[AgentDepsT] = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: AgentMetadata[AgentDepsT] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[AgentDepsT]] | None = None,
        event_stream_handler: EventStreamHandler[AgentDepsT] | None = None,
        deferred_tool_handler: DeferredToolHandler[AgentDepsT] | None = None,
    ) -> AbstractAsyncContextManager[StreamedRunResult[AgentDepsT, RunOutputDataT]]: ...

    @asynccontextmanager
    async def run_stream(
        self,
        user_prompt: str | Sequence[UserContent] | None = None,
        *,
        output_type: OutputSpec[Any] | None = None,
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: models.Model | models.KnownModelName | str | None = None,
        instructions: Instructions[AgentDepsT] = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: AgentMetadata[AgentDepsT] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[AgentDepsT]] | None = None,
        event_stream_handler: EventStreamHandler[AgentDepsT] | None = None,
        deferred_tool_handler: DeferredToolHandler[AgentDepsT] | None = None,
    ) -> AsyncIterator[StreamedRunResult[AgentDepsT, Any]]:
        """Run the agent, streaming the response that holds the final result.

        Responses that hold only tool calls are handled as in `run` (their tool calls run, and the model is asked
        again); the first response that starts the final result (text, or a call of an output tool) is yielded as
        a `StreamedRunResult` to stream. Once that stream completes, the response's other tool calls are handled
        by the end strategy. Leaving the block early closes the model's stream.

        Without a deferred tool handler, a call that must wait (for approval or an external result) starts the
        final result too: the run ends with `DeferredToolRequests`. With one, the handler resolves such calls
        and a later response's output is streamed.

        With an event stream handler (given here or to the agent), it receives the events of the earlier requests
        and tool-call stages, and those of the final response up to the `FinalResultEvent`.
        """
        if infer_name and self.name is None:
            # The body of an async context manager runs one frame further from the caller.
            frame = inspect.currentframe()
            self._infer_name(frame.f_back if frame is not None else None)
        async with self.iter(
            user_prompt,
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
            toolsets=toolsets,
            builtin_tools=builtin_tools,
            infer_name=False,
            deferred_tool_handler=deferred_tool_handler,
        ) as agent_run:
            handler = event_stream_handler or self.event_stream_handler
            async with _agent_graph.stream_run(agent_run, handler) as result:
                yield result

    @overload
    def run_stream_sync(
        self,
        user_prompt: str | Sequence[UserContent] | None = None,
        *,
        output_type: None = None,
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: models.Model | models.KnownModelName | str | None = None,
        instructions: Instructions[AgentDepsT] = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: AgentMetadata[AgentDepsT] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[AgentDepsT]] | None = None,
        event_stream_handler: EventStreamHandler[AgentDepsT] | None = None,
        deferred_tool_handler: DeferredToolHandler[AgentDepsT] | None = None,
    ) -> StreamedRunResultSync[AgentDepsT, OutputDataT]: ...

    @overload
    def run_stream_sync(
        self,
        user_prompt: str | Sequence[UserContent] | None = None,
        *,
        output_type: OutputSpec[RunOutputDataT],
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: models.Model | models.KnownModelName | str | None = None,
        instructions: Instructions[AgentDepsT] = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: AgentMetadata[AgentDepsT] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[AgentDepsT]] | None = None,
        event_stream_handler: EventStreamHandler[AgentDepsT] | None = None,
        deferred_tool_handler: DeferredToolHandler[AgentDepsT] | None = None,
    ) -> StreamedRunResultSync[AgentDepsT, RunOutputDataT]: ...

    def run_stream_sync(
        self,
        user_prompt: str | Sequence[UserContent] | None = None,
        *,
        output_type: OutputSpec[Any] | None = None,
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: models.Model | models.KnownModelName | str | None = None,
        instructions: Instructions[AgentDepsT] = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: AgentMetadata[AgentDepsT] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[AgentDepsT]] | None = None,
        event_stream_handler: EventStreamHandler[AgentDepsT] | None = None,
        deferred_tool_handler: DeferredToolHandler[AgentDepsT] | None = None,
    ) -> StreamedRunResultSync[AgentDepsT, Any]:
        """`run_stream` without an event loop in the caller: the result's methods are plain calls and iterators.

        The run goes on in the event loop `run_sync` keeps for the calling thread.
        """
        if infer_name and self.name is None:
            self._infer_name(inspect.currentframe())
        stream = self.run_stream(
            user_prompt,
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
            toolsets=toolsets,
            builtin_tools=builtin_tools,
            infer_name=False,
            event_stream_handler=event_stream_handler,
            deferred_tool_handler=deferred_tool_handler,
        )
        return _start_stream_sync(stream)

    @overload
    def run_stream_events(
        self,
        user_prompt: str | Sequence[UserContent] | None = None,
        *,
        output_type: None = None,
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: models.Model | models.KnownModelName | str | None = None,
        instructions: Instructions[AgentDepsT] = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: AgentMetadata[AgentDepsT] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[AgentDepsT]] | None = None,
        deferred_tool_handler: DeferredToolHandler[AgentDepsT] | None = None,
    ) -> AsyncIterator[AgentStreamEvent | AgentRunResultEvent[OutputDataT]]: ...

    @overload
    def run_stream_events(
        self,
        user_prompt: str | Sequence[UserContent] | None = None,
        *,
        output_type: OutputSpec[RunOutputDataT],
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: models.Model | models.KnownModelName | str | None = None,
        instructions: Instructions[AgentDepsT] = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: AgentMetadata[AgentDepsT] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[AgentDepsT]] | None = None,
        deferred_tool_handler: DeferredToolHandler[AgentDepsT] | None = None,
    ) -> AsyncIterator[AgentStreamEvent | AgentRunResultEvent[RunOutputDataT]]: ...

    def run_stream_events(
        self,
        user_prompt: str | Sequence[UserContent] | None = None,
        *,
        output_type: OutputSpec[Any] | None = None,
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: models.Model | models.KnownModelName | str | None = None,
        instructions: Instructions[AgentDepsT] = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: AgentMetadata[AgentDepsT] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[AgentDepsT]] | None = None,
        deferred_tool_handler: DeferredToolHandler[AgentDepsT] | None = None,
    ) -> AsyncIterator[AgentStreamEvent | AgentRunResultEvent[Any]]:
        """Run the agent and iterate over its events, ending with an `AgentRunResultEvent` that holds the result.

        Takes the arguments of `run` (except `event_stream_handler`). The run goes on in a task of its own; an
        error it raises is raised here, and leaving the loop early cancels the run.
        """
        if infer_name and self.name is None:
            self._infer_name(inspect.currentframe())
        # The keyword arguments are forwarded as given, so no overload of `run` is picked here.
        run: Callable[..., Any] = self.run
        return _run_stream_events(
            functools.partial(
                run,
                user_prompt,
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
                toolsets=toolsets,
                builtin_tools=builtin_tools,
                infer_name=False,
                deferred_tool_handler=deferred_tool_handler,
            )
        )

    def output_json_schema(self, output_type: OutputSpec[Any] | None = None) -> JsonSchema:
        """The JSON schema of the output of a run with `output_type`, or with the agent's output type.

        An output function stands for its return type; several output types are combined as `anyOf`.
        """
        return _output.output_json_schema(self.output_type if output_type is None else output_type)

    @abstractmethod
    def iter(
        self,
        user_prompt: str | Sequence[UserContent] | None = None,
        *,
        output_type: OutputSpec[Any] | None = None,
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        model: models.Model | models.KnownModelName | str | None = None,
        instructions: Instructions[AgentDepsT] = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: AgentMetadata[AgentDepsT] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        builtin_tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[AgentDepsT]] | None = None,
        event_stream_handler: EventStreamHandler[AgentDepsT] | None = None,
        deferred_tool_handler: DeferredToolHandler[AgentDepsT] | None = None,
    ) -> AbstractAsyncContextManager[AgentRun[AgentDepsT, Any]]:
        """Start a run and yield it for node-by-node iteration (`async for node in run`, or `run.next(node)`).

        With `event_stream_handler`, the nodes stream their events to it as they run. `deferred_tool_handler`
        resolves each response's deferred calls within the run; if it is not given (or `None`), the agent's
        applies.
        """
        raise NotImplementedError

    @abstractmethod
    def override(
        self,
        *,
        name: str | _utils.UnsetType = _utils.Unset,
        deps: AgentDepsT | _utils.UnsetType = _utils.Unset,
        model: models.Model | models.KnownModelName | str | _utils.UnsetType = _utils.Unset,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | _utils.UnsetType = _utils.Unset,
        tools: Sequence[Tool[AgentDepsT] | ToolFuncEither[AgentDepsT, ...]] | _utils.UnsetType = _utils.Unset,
        instructions: Instructions[AgentDepsT] | _utils.UnsetType = _utils.Unset,
        metadata: AgentMetadata[AgentDepsT] | _utils.UnsetType = _utils.Unset,
    ) -> AbstractContextManager[None]:
        """Within the block, runs of this agent use these values, whatever the runs are given (for tests)."""
        raise NotImplementedError

    @abstractmethod
    async def __aenter__(self) -> AbstractAgent[AgentDepsT, OutputDataT]:
        """Enter the agent's toolsets, so they stay open across runs."""
        raise NotImplementedError

    @abstractmethod
    async def __aexit__(self, *args: Any) -> bool | None:
        """Leave the agent's toolsets."""
        raise NotImplementedError

    async def to_cli(
        self,
        deps: AgentDepsT = None,
        prog_name: str = 'pydantic-ai',
        message_history: Sequence[ModelMessage] | None = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
    ) -> None:
        """Chat with the agent in the terminal (needs the `cli` extra); tools that need approval are asked inline.

        Args:
            deps: The dependencies of every run.
            prog_name: The name shown in the prompt.
            message_history: A conversation to continue.
            model_settings: Model settings for every run.
            usage_limits: Usage limits for every run.
        """
        from .._chat.cli import run_chat

        await run_chat(
            self,
            deps=deps,
            prog_name=prog_name,
            message_history=message_history,
            model_settings=model_settings,
            usage_limits=usage_limits,
        )

    def to_cli_sync(
        self,
        deps: AgentDepsT = None,
        prog_name: str = 'pydantic-ai',
        message_history: Sequence[ModelMessage] | None = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
    ) -> None:
        """Chat with the agent in the terminal, without an event loop in the caller; see `to_cli`."""
        _utils.run_sync(self.to_cli(deps, prog_name, message_history, model_settings, usage_limits))

    def _infer_name(self, frame: FrameType | None) -> None:
        """Name the agent after the variable that holds it in the scope calling `frame`, if it has no name."""
        if self.name is not None or frame is None or frame.f_back is None:
            return
        caller = frame.f_back
        scopes = [caller.f_locals] if caller.f_locals is caller.f_globals else [caller.f_locals, caller.f_globals]
        for scope in scopes:
            for name, value in scope.items():
                if value is self:
                    self.name = name
                    return

    @staticmethod
    def is_user_prompt_node(node: _agent_graph.AgentNode[T, S] | End[FinalResult[S]]) -> TypeIs[UserPromptNode[T, S]]:
        """Whether `node` is a `UserPromptNode`."""
        return isinstance(node, UserPromptNode)

    @staticmethod
    def is_model_request_node(
        node: _agent_graph.AgentNode[T, S] | End[FinalResult[S]],
    ) -> TypeIs[ModelRequestNode[T, S]]:
        """Whether `node` is a `ModelRequestNode`."""
        return isinstance(node, ModelRequestNode)

    @staticmethod
    def is_call_tools_node(node: _agent_graph.AgentNode[T, S] | End[FinalResult[S]]) -> TypeIs[CallToolsNode[T, S]]:
        """Whether `node` is a `CallToolsNode`."""
        return isinstance(node, CallToolsNode)

    @staticmethod
    def is_end_node(node: _agent_graph.AgentNode[T, S] | End[FinalResult[S]]) -> TypeIs[End[FinalResult[S]]]:
        """Whether `node` is the `End` of the run."""
        return isinstance(node, End)

    @staticmethod
    @contextmanager
    def sequential_tool_calls() -> Iterator[None]:
        """Within the block, the tool calls of a response run one at a time, in order."""
        with _tool_manager.parallel_execution_mode('sequential'):
            yield

    @staticmethod
    @contextmanager
    def parallel_tool_call_execution_mode(mode: _tool_manager.ParallelExecutionMode = 'parallel') -> Iterator[None]:
        """Within the block, run the tool calls of a response as `mode` says.

        Args:
            mode: `'parallel'` (the default) runs them concurrently, with events as they complete;
                `'sequential'` runs them one at a time, in order; `'parallel_ordered_events'` runs them
                concurrently and emits their events in call order once all are done.
        """
        with _tool_manager.parallel_execution_mode(mode):
            yield


def _start_stream_sync(
    stream: AbstractAsyncContextManager[StreamedRunResult[Any, Any]],
) -> StreamedRunResultSync[Any, Any]:
    start = _hold_open(stream)
    try:
        streamed, held = _utils.run_sync(start)
    except BaseException:
        # Without an event loop to run it on (e.g. called from async code), it never started.
        start.close()
        raise
    result = StreamedRunResultSync[Any, Any](streamed)
    result._close_run = lambda: _utils.run_sync(held.close())
    # A result dropped before its stream completed lets its run close (and the model's stream with it).
    weakref.finalize(result, held.release_soon)
    return result


async def _run_stream_events(
    run: Callable[..., Any],
) -> AsyncIterator[AgentStreamEvent | AgentRunResultEvent[Any]]:
    """Call `run` with an event stream handler that forwards its events here, and end with the result."""
    send, receive = anyio.create_memory_object_stream[AgentStreamEvent | AgentRunResultEvent[Any]]()
    failure: list[BaseException] = []

    async def forward(_: Any, events: AsyncIterable[AgentStreamEvent]) -> None:
        async for event in events:
            await send.send(event)

    async def run_task() -> None:
        async with send:
            try:
                result = await run(event_stream_handler=forward)
            except Exception as exc:
                # Raised to the consumer below rather than wrapped in the task group's exception group.
                failure.append(exc)
                return
            await send.send(AgentRunResultEvent(result))

    async with anyio.create_task_group() as tg, receive:
        tg.start_soon(run_task)
        try:
            async for event in receive:
                yield event
        finally:
            tg.cancel_scope.cancel()
    if failure:
        raise failure[0]


@dataclass
class _HeldRun:
    """A streamed run's context, entered in a task of its own that keeps it open until it is released."""

    loop: asyncio.AbstractEventLoop
    release: asyncio.Event
    task: asyncio.Task[None]

    async def close(self) -> None:
        """Leave the context, and wait until it is left."""
        self.release.set()
        await self.task

    def release_soon(self) -> None:
        """Let the context be left the next time the loop runs; safe from any thread, e.g. from a finalizer."""
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.release.set)


# The tasks holding streamed runs open: the event loop only keeps weak references to its tasks.
_held_runs: set[asyncio.Task[None]] = set()


async def _hold_open(
    context: AbstractAsyncContextManager[StreamedRunResult[Any, Any]],
) -> tuple[StreamedRunResult[Any, Any], _HeldRun]:
    """Enter `context` in a task that keeps it open, and return what it yields and the handle to close it.

    The steps of a sync stream each run in a task of their own, but a context must be entered and left in one
    task, which here waits in between. A context never released is left when the thread's event loop closes.
    """
    loop = asyncio.get_running_loop()
    entered: asyncio.Future[StreamedRunResult[Any, Any]] = loop.create_future()
    release = asyncio.Event()

    async def hold() -> None:
        try:
            async with context as result:
                entered.set_result(result)
                await release.wait()
        except Exception as e:
            if entered.done():
                raise
            entered.set_exception(e)

    task = asyncio.create_task(hold())
    _held_runs.add(task)
    task.add_done_callback(_held_runs.discard)
    try:
        return await entered, _HeldRun(loop, release, task)
    except asyncio.CancelledError:
        # Cancelled (Ctrl-C) before the stream started: the run must not carry on when the loop next runs.
        task.cancel()
        raise
