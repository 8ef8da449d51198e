"""`WrapperAgent`: an agent that forwards everything to another agent, to be subclassed to add behaviour."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from .. import _utils, models
from .._agent_graph import EventStreamHandler
from .._json_schema import JsonSchema
from ..builtin_tools import AbstractBuiltinTool
from ..messages import ModelMessage, UserContent
from ..output import OutputSpec
from ..run import AgentRun
from ..settings import ModelSettings
from ..tools import BuiltinToolFunc, DeferredToolHandler, DeferredToolResults, Tool, ToolFuncEither
from ..toolsets.abstract import AbstractToolset
from ..usage import RunUsage, UsageLimits
from .abstract import AbstractAgent, AgentDepsT, AgentMetadata, Instructions, OutputDataT

__all__ = ('WrapperAgent',)


class WrapperAgent(AbstractAgent[AgentDepsT, OutputDataT]):
    """An agent that forwards its properties, `iter`, `override` and context to the agent it wraps.

    Every run method goes through `iter`, so a subclass that overrides `iter` (or a run method) adds its
    behaviour to the wrapped agent's runs, `deferred_tool_handler` included.
    """

    def __init__(self, wrapped: AbstractAgent[AgentDepsT, OutputDataT]):
        """Wrap `wrapped`."""
        self.wrapped = wrapped

    @property
    def model(self) -> models.Model | models.KnownModelName | str | None:
        """The wrapped agent's model."""
        return self.wrapped.model

    @property
    def name(self) -> str | None:
        """The wrapped agent's name."""
        return self.wrapped.name

    @name.setter
    def name(self, value: str | None) -> None:
        self.wrapped.name = value

    @property
    def deps_type(self) -> type:
        """The wrapped agent's dependencies type."""
        return self.wrapped.deps_type

    @property
    def output_type(self) -> OutputSpec[OutputDataT]:
        """The wrapped agent's output type."""
        return self.wrapped.output_type

    @property
    def event_stream_handler(self) -> EventStreamHandler[AgentDepsT] | None:
        """The wrapped agent's event stream handler."""
        return self.wrapped.event_stream_handler

    @property
    def deferred_tool_handler(self) -> DeferredToolHandler[AgentDepsT] | None:
        """The wrapped agent's deferred tool handler."""
        return self.wrapped.deferred_tool_handler

    @property
    def toolsets(self) -> Sequence[AbstractToolset[AgentDepsT]]:
        """The wrapped agent's toolsets."""
        return self.wrapped.toolsets

    def output_json_schema(self, output_type: OutputSpec[Any] | None = None) -> JsonSchema:
        """The JSON schema of the wrapped agent's output (see `AbstractAgent.output_json_schema`)."""
        return self.wrapped.output_json_schema(output_type)

    async def __aenter__(self) -> AbstractAgent[AgentDepsT, OutputDataT]:
        """Enter the wrapped agent."""
        return await self.wrapped.__aenter__()

    async def __aexit__(self, *args: Any) -> bool | None:
        """Leave the wrapped agent."""
        return await self.wrapped.__aexit__(*args)

    @asynccontextmanager
    async def iter(
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
    ) -> AsyncIterator[AgentRun[AgentDepsT, Any]]:
        """Start a run of the wrapped agent (see `AbstractAgent.iter`)."""
        if infer_name and self.name is None:
            # The body of an async context manager runs one frame further from the caller.
            frame = inspect.currentframe()
            self._infer_name(frame.f_back if frame is not None else None)
        async with self.wrapped.iter(
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
            infer_name=False,
            toolsets=toolsets,
            builtin_tools=builtin_tools,
            event_stream_handler=event_stream_handler,
            deferred_tool_handler=deferred_tool_handler,
        ) as run:
            yield run

    @contextmanager
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
    ) -> Iterator[None]:
        """Override values of the wrapped agent within the block (see `Agent.override`)."""
        with self.wrapped.override(
            name=name,
            deps=deps,
            model=model,
            toolsets=toolsets,
            tools=tools,
            instructions=instructions,
            metadata=metadata,
        ):
            yield
