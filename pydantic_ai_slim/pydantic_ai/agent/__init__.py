"""`Agent`: a model, instructions, tools and an output type, run as a loop of model requests and tool calls."""

from __future__ import annotations

import inspect
import typing
import warnings
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import partial
from types import NoneType
from typing import TYPE_CHECKING, Any, ClassVar, overload

from pydantic.json_schema import GenerateJsonSchema
from typing_extensions import TypeVar

from .. import _agent_graph, _deferred, _otel, _output, _system_prompt, _utils, models
from .._agent_graph import (
    CallToolsNode,
    EndStrategy,
    EventStreamHandler,
    HistoryProcessor,
    ModelRequestNode,
    UserPromptNode,
)
from .._tool_manager import ParallelExecutionMode, ToolManager
from ..builtin_tools import AbstractBuiltinTool
from ..exceptions import UserError
from ..messages import ModelMessage, UserContent
from ..output import OutputSpec
from ..run import AgentRun, AgentRunResult
from ..settings import ModelSettings, merge_model_settings
from ..tools import (
    BuiltinToolFunc,
    DeferredToolHandler,
    DeferredToolResults,
    DocstringFormat,
    GenerateToolJsonSchema,
    SystemPromptFunc,
    Tool,
    ToolFuncContext,
    ToolFuncEither,
    ToolFuncPlain,
    ToolParams,
    ToolPrepareFunc,
    ToolsPrepareFunc,
)
from ..toolsets._dynamic import DynamicToolset, ToolsetFunc
from ..toolsets.abstract import AbstractToolset
from ..toolsets.combined import CombinedToolset
from ..toolsets.function import _AgentFunctionToolset
from ..usage import RunUsage, UsageLimits
from .abstract import AbstractAgent, AgentMetadata, Instructions
from .wrapper import WrapperAgent

if TYPE_CHECKING:
    from ..models.instrumented import InstrumentationSettings

__all__ = (
    'AbstractAgent',
    'Agent',
    'AgentRun',
    'AgentRunResult',
    'CallToolsNode',
    'EndStrategy',
    'EventStreamHandler',
    'InstrumentationSettings',
    'ModelRequestNode',
    'ParallelExecutionMode',
    'UserPromptNode',
    'WrapperAgent',
    'capture_run_messages',
)

AgentDepsT = TypeVar('AgentDepsT', default=None)
OutputDataT = TypeVar('OutputDataT', default=str)
RunOutputDataT = TypeVar('RunOutputDataT')

_captured_messages: ContextVar[list[ModelMessage] | None] = ContextVar('_captured_messages', default=None)


@dataclass
class _Overrides:
    model: models.Model | None = None
    deps: Any = _utils.Unset
    toolsets: Sequence[AbstractToolset[Any]] | None = None
    tools: Sequence[Tool[Any] | ToolFuncEither[Any, ...]] | None = None
    instructions: Any = _utils.Unset
    name: Any = _utils.Unset
    metadata: Any = _utils.Unset


_NO_OVERRIDES = _Overrides()


@dataclass(init=False, repr=False)
class Agent(AbstractAgent[AgentDepsT, OutputDataT]):
    """An agent: runs a model in a loop, calling tools, until it produces output of the output type.

    Agents are stateless and reusable; each `run` is independent, and `message_history` continues a
    conversation.
    """

    _name: str | None
    end_strategy: EndStrategy
    """What to do with other tool calls once an output tool gave the final result."""
    model_settings: ModelSettings | None
    """Default model settings for the agent's runs."""

    instrument: InstrumentationSettings | bool | None
    """How the agent's runs are traced with OpenTelemetry; `None` follows `Agent.instrument_all`."""

    _instrument_default: ClassVar[InstrumentationSettings | bool] = False
    _model: models.Model | None = field(repr=False)
    _overrides: ContextVar[_Overrides | None] = field(repr=False)

    def __init__(
        self,
        model: models.Model | models.KnownModelName | str | None = None,
        *,
        output_type: OutputSpec[OutputDataT] = str,
        instructions: str | SystemPromptFunc[AgentDepsT] | Sequence[str | SystemPromptFunc[AgentDepsT]] | None = None,
        system_prompt: str | Sequence[str] = (),
        deps_type: type[AgentDepsT] = NoneType,
        name: str | None = None,
        model_settings: ModelSettings | None = None,
        retries: int = 1,
        validation_context: Any = None,
        output_retries: int | None = None,
        tools: Sequence[Tool[AgentDepsT] | ToolFuncEither[AgentDepsT, ...]] = (),
        builtin_tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[AgentDepsT]] = (),
        prepare_tools: ToolsPrepareFunc[AgentDepsT] | None = None,
        prepare_output_tools: ToolsPrepareFunc[AgentDepsT] | None = None,
        toolsets: Sequence[AbstractToolset[AgentDepsT] | ToolsetFunc[AgentDepsT]] | None = None,
        defer_model_check: bool = False,
        end_strategy: EndStrategy = 'early',
        instrument: InstrumentationSettings | bool | None = None,
        metadata: AgentMetadata[AgentDepsT] | None = None,
        history_processors: Sequence[HistoryProcessor[AgentDepsT]] | None = None,
        event_stream_handler: EventStreamHandler[AgentDepsT] | None = None,
        tool_timeout: float | None = None,
        deferred_tool_handler: DeferredToolHandler[AgentDepsT] | None = None,
        **_deprecated_kwargs: Any,
    ):
        """Make an agent.

        Args:
            model: The model, or a model name such as `'test'`; may instead be given per run.
            output_type: The type of the output: `str`, a structured type, an output function, a marker such as
                `ToolOutput`, or a list of these.
            instructions: Instructions sent with every request (not kept in the message history).
            system_prompt: Static system prompts, sent at the start of a new conversation.
            deps_type: The type of the dependencies of the agent's functions (for type checking).
            name: The agent's name.
            model_settings: Default model settings.
            retries: Default number of retries of tools.
            validation_context: Pydantic validation context for tool arguments and output.
            output_retries: Number of retries of output validation; defaults to `retries`.
            tools: Tools, as functions or `Tool`s.
            builtin_tools: Builtin tools the model provider runs (e.g. `WebSearchTool()`), or functions of the run
                context that make one (or `None`) before each request.
            prepare_tools: Called each step to change the list of function tool definitions.
            prepare_output_tools: Called each step to change the list of output tool definitions.
            toolsets: Extra toolsets, or functions of the run context that make one at each step (see `toolset`).
            defer_model_check: Resolve the model at run time rather than now.
            end_strategy: What to do with other tool calls once an output tool gave the final result.
            instrument: Trace the agent's runs with OpenTelemetry: `True` with the global providers, or
                `InstrumentationSettings`; `None` follows `Agent.instrument_all`.
            metadata: Metadata given to runs as `ctx.metadata`.
            history_processors: Functions that rewrite the message history before each model request (sync or
                async, with or without the run context); the history they return replaces the run's.
            event_stream_handler: Receives the events of runs made with `run`, `run_sync` and `run_stream`,
                unless the run is given its own.
            tool_timeout: Default timeout of tool calls, in seconds.
            deferred_tool_handler: Resolves deferred tool calls within runs (approvals and external calls), once
                per model response that has them, instead of ending the run with `DeferredToolRequests`; a run
                given its own handler uses that one.
            **_deprecated_kwargs: Only `mcp_servers` (deprecated: its servers join `toolsets`); any other keyword
                argument is a `UserError`.
        """
        if 'mcp_servers' in _deprecated_kwargs:
            warnings.warn('`mcp_servers` is deprecated, use `toolsets` instead', DeprecationWarning, stacklevel=2)
            toolsets = [*(toolsets or []), *_deprecated_kwargs.pop('mcp_servers')]
        if _deprecated_kwargs:
            raise UserError(f'Unknown keyword arguments: {", ".join(f"`{k}`" for k in _deprecated_kwargs)}')
        self._model = None if model is None or defer_model_check else models.infer_model(model)
        self._model_spec = model
        self._event_stream_handler = event_stream_handler
        self._deferred_tool_handler = _deferred.check_handler(deferred_tool_handler)
        self._name = name
        self.end_strategy = end_strategy
        self.model_settings = model_settings
        self._output_type = output_type
        self._output_schema: _output.OutputSchema[OutputDataT] = _output.OutputSchema[OutputDataT].build(output_type)
        self._output_validators: list[_output.OutputValidator[AgentDepsT, OutputDataT]] = []
        self._deps_type = deps_type
        self._instructions: list[str | _system_prompt.SystemPromptRunner[AgentDepsT]] = _instruction_items(instructions)
        self._system_prompts = (system_prompt,) if isinstance(system_prompt, str) else tuple(system_prompt)
        self._system_prompt_functions: list[_system_prompt.SystemPromptRunner[AgentDepsT]] = []
        self._system_prompt_dynamic_functions: dict[str, _system_prompt.SystemPromptRunner[AgentDepsT]] = {}
        self._max_result_retries = output_retries if output_retries is not None else retries
        self._max_tool_retries = retries
        self._validation_context = validation_context
        self._metadata = metadata
        self._function_toolset = _AgentFunctionToolset[AgentDepsT](
            tools, max_retries=retries, timeout=tool_timeout, id='<agent>'
        )
        self._prepare_tools = prepare_tools
        self._prepare_output_tools = prepare_output_tools
        self._builtin_tools = list(builtin_tools)
        self.history_processors = list(history_processors or [])
        self._user_toolsets: list[AbstractToolset[AgentDepsT]] = [
            toolset if isinstance(toolset, AbstractToolset) else DynamicToolset[AgentDepsT](toolset)
            for toolset in toolsets or []
        ]
        self._overrides = ContextVar[_Overrides | None](f'_agent_overrides_{id(self)}', default=None)
        self._entered_toolset: CombinedToolset[AgentDepsT] | None = None
        self.instrument = instrument

    def __repr__(self) -> str:
        return (
            f'{type(self).__name__}(model={self.model!r}, name={self.name!r}, end_strategy={self.end_strategy!r}, '
            f'model_settings={self.model_settings!r}, output_type={self._output_type!r}, instrument={self.instrument!r})'
        )

    @staticmethod
    def instrument_all(instrument: InstrumentationSettings | bool = True) -> None:
        """Trace the runs of every agent made without `instrument=` (`False` turns that off again)."""
        Agent._instrument_default = instrument

    @property
    def model(self) -> models.Model | models.KnownModelName | str | None:
        """The agent's default model, as given."""
        return self._model if self._model is not None else self._model_spec

    @model.setter
    def model(self, value: models.Model | models.KnownModelName | str | None) -> None:
        """Change the agent's default model (resolved at the next run)."""
        self._model = None
        self._model_spec = value

    @property
    def name(self) -> str | None:
        """The agent's name (an `override(name=...)` in effect wins); inferred at the first run if not given."""
        overridden = (self._overrides.get() or _NO_OVERRIDES).name
        return overridden if _utils.is_set(overridden) else self._name

    @name.setter
    def name(self, value: str | None) -> None:
        self._name = value

    @property
    def event_stream_handler(self) -> EventStreamHandler[AgentDepsT] | None:
        """The handler that receives the events of the agent's runs, if any."""
        return self._event_stream_handler

    @property
    def deferred_tool_handler(self) -> DeferredToolHandler[AgentDepsT] | None:
        """The deferred tool handler given to the agent, used by runs that are not given one."""
        return self._deferred_tool_handler

    @property
    def output_type(self) -> OutputSpec[OutputDataT]:
        """The output type given to the agent."""
        return self._output_type

    @property
    def deps_type(self) -> type:
        """The type of the dependencies."""
        return self._deps_type

    @property
    def toolsets(self) -> Sequence[AbstractToolset[AgentDepsT]]:
        """The agent's toolsets: its function toolset first, then the toolsets it was given."""
        return [self._function_toolset, *self._user_toolsets]

    # Decorators.

    @overload
    def tool(self, func: ToolFuncContext[AgentDepsT, ToolParams], /) -> ToolFuncContext[AgentDepsT, ToolParams]: ...

    @overload
    def tool(
        self,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        retries: int | None = None,
        prepare: ToolPrepareFunc[AgentDepsT] | None = None,
        docstring_format: DocstringFormat = 'auto',
        require_parameter_descriptions: bool = False,
        schema_generator: type[GenerateJsonSchema] = GenerateToolJsonSchema,
        strict: bool | None = None,
        sequential: bool = False,
        requires_approval: bool = False,
        metadata: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Callable[[ToolFuncContext[AgentDepsT, ToolParams]], ToolFuncContext[AgentDepsT, ToolParams]]: ...

    def tool(self, func: Any = None, /, **kwargs: Any) -> Any:
        """Register a tool whose first parameter is the `RunContext`; bare or with arguments."""
        return self._register_tool(func, True, kwargs)

    @overload
    def tool_plain(self, func: ToolFuncPlain[ToolParams], /) -> ToolFuncPlain[ToolParams]: ...

    @overload
    def tool_plain(
        self,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        retries: int | None = None,
        prepare: ToolPrepareFunc[AgentDepsT] | None = None,
        docstring_format: DocstringFormat = 'auto',
        require_parameter_descriptions: bool = False,
        schema_generator: type[GenerateJsonSchema] = GenerateToolJsonSchema,
        strict: bool | None = None,
        sequential: bool = False,
        requires_approval: bool = False,
        metadata: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Callable[[ToolFuncPlain[ToolParams]], ToolFuncPlain[ToolParams]]: ...

    def tool_plain(self, func: Any = None, /, **kwargs: Any) -> Any:
        """Register a tool that does not take the `RunContext`; bare or with arguments."""
        return self._register_tool(func, False, kwargs)

    def _register_tool(self, func: Any, takes_ctx: bool, kwargs: dict[str, Any]) -> Any:
        def register(func_: Any) -> Any:
            self._function_toolset.add_function(func_, takes_ctx, **kwargs)
            return func_

        return register if func is None else register(func)

    @overload
    def system_prompt(self, func: SystemPromptFunc[AgentDepsT], /) -> SystemPromptFunc[AgentDepsT]: ...

    @overload
    def system_prompt(
        self, /, *, dynamic: bool = False
    ) -> Callable[[SystemPromptFunc[AgentDepsT]], SystemPromptFunc[AgentDepsT]]: ...

    def system_prompt(self, func: Any = None, /, *, dynamic: bool = False) -> Any:
        """Register a function that makes a system prompt; `dynamic=True` re-evaluates it on later runs."""

        def register(func_: Any) -> Any:
            runner = _system_prompt.SystemPromptRunner[AgentDepsT](func_, dynamic=dynamic)
            self._system_prompt_functions.append(runner)
            if dynamic:
                self._system_prompt_dynamic_functions[func_.__qualname__] = runner
            return func_

        return register if func is None else register(func)

    @overload
    def instructions(self, func: SystemPromptFunc[AgentDepsT], /) -> SystemPromptFunc[AgentDepsT]: ...

    @overload
    def instructions(self, /) -> Callable[[SystemPromptFunc[AgentDepsT]], SystemPromptFunc[AgentDepsT]]: ...

    def instructions(self, func: Any = None, /) -> Any:
        """Register a function that makes instructions, evaluated before every request."""

        def register(func_: Any) -> Any:
            self._instructions.append(_system_prompt.SystemPromptRunner[AgentDepsT](func_))
            return func_

        return register if func is None else register(func)

    @overload
    def toolset(self, func: ToolsetFunc[AgentDepsT], /) -> ToolsetFunc[AgentDepsT]: ...

    @overload
    def toolset(
        self, /, *, per_run_step: bool = True, id: str | None = None
    ) -> Callable[[ToolsetFunc[AgentDepsT]], ToolsetFunc[AgentDepsT]]: ...

    def toolset(
        self, func: ToolsetFunc[AgentDepsT] | None = None, /, *, per_run_step: bool = True, id: str | None = None
    ) -> Any:
        """Register a function of the run context that makes a toolset (or `None`); bare or with arguments.

        Args:
            func: The function, sync or async.
            per_run_step: Whether to call it again at every step of a run, rather than once per run.
            id: An id for the toolset, unique among the agent's toolsets (needed by durable execution).
        """

        def register(func_: ToolsetFunc[AgentDepsT]) -> ToolsetFunc[AgentDepsT]:
            self._user_toolsets.append(DynamicToolset[AgentDepsT](func_, per_run_step=per_run_step, id=id))
            return func_

        return register if func is None else register(func)

    def output_validator(self, func: Callable[..., Any], /) -> Callable[..., Any]:
        """Register a function that validates (and may change) the output; it may raise `ModelRetry`."""
        self._output_validators.append(_output.OutputValidator[AgentDepsT, OutputDataT](func))
        return func

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
        """Start a run and yield it for node-by-node iteration (`async for node in run`, or `run.next(node)`).

        With `event_stream_handler`, the nodes stream their events to it as they run (the agent's own handler
        applies to `run`, `run_sync` and `run_stream`, not here). `deferred_tool_handler` resolves each response's
        deferred calls within the run; if it is not given (or `None`), the agent's applies.
        """
        if infer_name and self.name is None:
            # The body of an async context manager runs one frame further from the caller.
            frame = inspect.currentframe()
            self._infer_name(frame.f_back if frame is not None else None)
        overrides = self._overrides.get() or _NO_OVERRIDES
        run_model = self._resolve_model(model, overrides)
        output_schema = self._output_schema if output_type is None else _output.OutputSchema[Any].build(output_type)
        if output_type is not None and self._output_validators:
            raise UserError('Cannot set a custom run `output_type` when the agent has output validators')
        toolset = self._run_toolset(toolsets, overrides, output_schema)
        captured = _captured_messages.get()
        # Only the first run inside `capture_run_messages` is captured: later ones find the list filled.
        history: list[ModelMessage] = captured if captured is not None and not captured else []
        # As upstream, a given history is stored with adjacent requests (and adjacent responses) merged.
        history.extend(_agent_graph.merge_adjacent_messages(message_history or []))
        state = _agent_graph.GraphAgentState(message_history=history, usage=usage if usage is not None else RunUsage())
        run_instructions = self._run_instructions(instructions, overrides)
        graph_deps = _agent_graph.GraphAgentDeps[AgentDepsT, Any](
            user_deps=deps if not _utils.is_set(overrides.deps) else overrides.deps,
            prompt=user_prompt,
            new_message_index=len(state.message_history),
            model=run_model,
            model_settings=merge_model_settings(self.model_settings, model_settings),
            usage_limits=usage_limits or UsageLimits(),
            max_result_retries=self._max_result_retries,
            end_strategy=self.end_strategy,
            output_schema=output_schema,
            output_validators=list(self._output_validators),
            tool_manager=ToolManager[AgentDepsT](toolset, default_max_retries=self._max_tool_retries),
            instructions=run_instructions,
            validation_context=self._validation_context,
            event_stream_handler=event_stream_handler,
            deferred_tool_handler=_deferred.check_handler(deferred_tool_handler) or self._deferred_tool_handler,
            builtin_tools=[*self._builtin_tools, *(builtin_tools or [])],
            history_processors=self.history_processors,
        )
        start = UserPromptNode[AgentDepsT, Any](
            user_prompt,
            deferred_tool_results=deferred_tool_results,
            system_prompts=self._system_prompts,
            system_prompt_functions=self._system_prompt_functions,
            system_prompt_dynamic_functions=self._system_prompt_dynamic_functions,
        )
        graph = _agent_graph.build_agent_graph(self.name)
        resolve_metadata = partial(self._resolve_metadata, metadata, overrides, state, graph_deps)
        resolve_metadata()
        instrumentation = _otel.settings_for(
            self.instrument if self.instrument is not None else self._instrument_default
        )
        graph_deps.model = _otel.instrumented(run_model, instrumentation)
        # An instrumented model traces as its own settings say, and so does the run.
        graph_deps.instrumentation = instrumentation = _otel.settings_of(graph_deps.model, instrumentation)
        run_span = _otel.run_span(
            instrumentation, self.name or 'agent', run_model.model_name, state, graph_deps.new_message_index
        )
        async with toolset:
            try:
                with run_span as span:
                    graph_run = _agent_graph.AgentGraphRun(graph, start, state, graph_deps)
                    yield AgentRun(graph_run)
                    if span is not None and (final := graph_run.output) is not None:
                        span.set_output(final.output)
            finally:
                # As upstream, a metadata function is called again at the end, so the result has final values.
                resolve_metadata()

    def _resolve_metadata(
        self,
        metadata: AgentMetadata[AgentDepsT] | None,
        overrides: _Overrides,
        state: _agent_graph.GraphAgentState,
        graph_deps: _agent_graph.GraphAgentDeps[AgentDepsT, Any],
    ) -> None:
        """Compute the run's metadata into `state`: the override's alone, or the agent's updated by the run's."""
        run_context = graph_deps.run_context(state)
        if _utils.is_set(overrides.metadata):
            state.metadata = _metadata_dict(overrides.metadata, run_context)
            return
        agent_metadata = _metadata_dict(self._metadata, run_context)
        run_metadata = _metadata_dict(metadata, run_context)
        if agent_metadata is None or run_metadata is None:
            state.metadata = agent_metadata if run_metadata is None else run_metadata
        else:
            state.metadata = {**agent_metadata, **run_metadata}

    def _resolve_model(self, model: models.Model | str | None, overrides: _Overrides) -> models.Model:
        if overrides.model is not None:
            return overrides.model
        if model is not None:
            return models.infer_model(model)
        if self._model is not None:
            return self._model
        if self._model_spec is not None:
            return models.infer_model(self._model_spec)
        raise UserError('`model` must either be set on the agent or included when calling it.')

    def _run_toolset(
        self,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None,
        overrides: _Overrides,
        output_schema: _output.OutputSchema[Any],
    ) -> AbstractToolset[AgentDepsT]:
        function_toolset: AbstractToolset[AgentDepsT] = self._function_toolset
        if overrides.tools is not None:
            function_toolset = _AgentFunctionToolset[AgentDepsT](overrides.tools, max_retries=self._max_tool_retries)
        if overrides.toolsets is not None:
            # As upstream, overridden toolsets replace the agent's and the run's.
            user_toolsets = list(overrides.toolsets)
        else:
            user_toolsets = [*self._user_toolsets, *(toolsets or [])]
        parts: list[AbstractToolset[AgentDepsT]] = [function_toolset, *user_toolsets]
        # Dynamic toolsets hold the toolset they made: each run gets fresh copies, so runs do not share them.
        combined = CombinedToolset[AgentDepsT](parts).visit_and_replace(_fresh_dynamic_toolset)
        if self._prepare_tools is not None:
            combined = combined.prepared(self._prepare_tools)
        if output_schema.toolset is not None:
            # Output tools are limited by the agent's output retries, whatever `ToolOutput.max_retries` says.
            output_schema.toolset.max_retries = self._max_result_retries
            output_toolset: AbstractToolset[AgentDepsT] = output_schema.toolset
            if self._prepare_output_tools is not None:
                output_toolset = output_toolset.prepared(self._prepare_output_tools)
            combined = CombinedToolset[AgentDepsT]([output_toolset, combined])
        return combined

    def _run_instructions(
        self, instructions: Any, overrides: _Overrides
    ) -> list[str | _system_prompt.SystemPromptRunner[AgentDepsT]]:
        if _utils.is_set(overrides.instructions):
            # Overridden instructions replace all others, the run's included.
            return _instruction_items(overrides.instructions)
        return [*self._instructions, *_instruction_items(instructions)]

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
        """Within the block, runs of this agent use these values, whatever the runs are given (for tests).

        Args:
            name: The agent's name.
            deps: The dependencies.
            model: The model.
            toolsets: Toolsets that replace the agent's and the run's.
            tools: Tools that replace the agent's function tools.
            instructions: Instructions that replace all others, the run's included.
            metadata: Metadata that replaces the agent's and the run's.
        """
        current = self._overrides.get() or _NO_OVERRIDES
        new = _Overrides(
            model=models.infer_model(model) if _utils.is_set(model) else current.model,
            deps=deps if _utils.is_set(deps) else current.deps,
            toolsets=toolsets if _utils.is_set(toolsets) else current.toolsets,
            tools=tools if _utils.is_set(tools) else current.tools,
            instructions=instructions if _utils.is_set(instructions) else current.instructions,
            name=name if _utils.is_set(name) else current.name,
            metadata=metadata if _utils.is_set(metadata) else current.metadata,
        )
        token = self._overrides.set(new)
        try:
            yield
        finally:
            self._overrides.reset(token)

    async def __aenter__(self) -> Agent[AgentDepsT, OutputDataT]:
        """Enter the agent's toolsets (e.g. start its MCP servers), so they stay open across runs.

        Entries are counted: the toolsets are left when the last `async with agent:` block exits.
        """
        # One combination is kept while entered, so that its entry count matches the exits.
        if self._entered_toolset is None:
            self._entered_toolset = CombinedToolset[AgentDepsT](self.toolsets)
        await self._entered_toolset.__aenter__()
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        """Leave the agent's toolsets."""
        assert self._entered_toolset is not None, 'The agent is entered before it is exited.'
        return await self._entered_toolset.__aexit__(*args)

    def set_mcp_sampling_model(self, model: models.Model | models.KnownModelName | str | None = None) -> None:
        """Set the model that answers sampling requests of the agent's MCP servers.

        Args:
            model: The model to use; by default the agent's model.

        Raises:
            UserError: If no model is given and the agent has none.
        """
        try:
            from ..mcp import MCPServer
        except ImportError:  # pragma: no cover
            return  # Without the `mcp` package there are no MCP servers to set it on.
        if model is not None:
            sampling_model = models.infer_model(model)
        elif self._model is not None or self._model_spec is not None:
            sampling_model = self._resolve_model(None, _NO_OVERRIDES)
        else:
            raise UserError('No sampling model provided and no model set on the agent.')

        def set_model(toolset: AbstractToolset[Any]) -> None:
            if isinstance(toolset, MCPServer):
                toolset.sampling_model = sampling_model

        for toolset in self.toolsets:
            toolset.apply(set_model)

    @asynccontextmanager
    async def run_mcp_servers(
        self, model: models.Model | models.KnownModelName | str | None = None
    ) -> AsyncIterator[None]:
        """Run the agent's MCP servers for the duration of the block (deprecated: use `async with agent:`).

        Args:
            model: The model for the servers' sampling requests; by default the agent's model, if it has one.
        """
        warnings.warn(
            '`run_mcp_servers` is deprecated, use `async with agent:` instead. If you need to set a sampling model '
            'on all MCP servers, use `agent.set_mcp_sampling_model()`.',
            DeprecationWarning,
            stacklevel=2,
        )
        try:
            self.set_mcp_sampling_model(model)
        except UserError:
            if model is not None:  # pragma: no cover
                raise
        async with self:
            yield

    def to_web(
        self,
        *,
        models: ModelsParam = None,
        builtin_tools: list[Any] | None = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        instructions: str | None = None,
        html_source: str | Path | None = None,
    ) -> Starlette:
        """A starlette app to chat with the agent in a browser (needs the `ui` extra): the page at `/`, `/api/chat`.

        Tool calls that need approval get Approve / Deny buttons; their ids are signed with a secret of the app.

        Args:
            models: The model to use (a model, a name, or a list or mapping of them: the first is used).
            builtin_tools: Not supported; must be `None` or empty.
            deps: The dependencies of every run.
            model_settings: Model settings for every run.
            instructions: Extra instructions for every run.
            html_source: A path or URL of another page to serve at `/` instead of the bundled one.
        """
        from .._chat.web import create_web_app

        return create_web_app(
            self,
            models=models,
            builtin_tools=builtin_tools,
            deps=deps,
            model_settings=model_settings,
            instructions=instructions,
            html_source=html_source,
        )


def _fresh_dynamic_toolset(toolset: AbstractToolset[Any]) -> AbstractToolset[Any]:
    return toolset.copy() if isinstance(toolset, DynamicToolset) else toolset


def _metadata_dict(metadata: AgentMetadata[Any] | None, run_context: Any) -> dict[str, Any] | None:
    if metadata is None:
        return None
    return metadata(run_context) if callable(metadata) else metadata


def _instruction_items(instructions: Any) -> list[str | _system_prompt.SystemPromptRunner[Any]]:
    if instructions is None:
        return []
    items: Sequence[Any] = [instructions] if isinstance(instructions, str) or callable(instructions) else instructions
    return [item if isinstance(item, str) else _system_prompt.SystemPromptRunner[Any](item) for item in items]


@contextmanager
def capture_run_messages() -> Iterator[list[ModelMessage]]:
    """Capture the messages of the first run started inside the block, even if it fails (for debugging).

    The list is the run's own message history, so it fills as the run goes.
    """
    messages: list[ModelMessage] = []
    token = _captured_messages.set(messages)
    try:
        yield messages
    finally:
        _captured_messages.reset(token)


if typing.TYPE_CHECKING:  # pragma: no cover
    # Only for the annotations of `to_web`: starlette is an optional extra.
    from pathlib import Path

    from starlette.applications import Starlette

    from .._chat.web import ModelsParam


def __getattr__(name: str) -> Any:
    # `InstrumentationSettings` needs the optional `opentelemetry-api`: it is imported only when asked for, so
    # that importing this module never imports OpenTelemetry.
    if name == 'InstrumentationSettings':
        from ..models.instrumented import InstrumentationSettings

        return InstrumentationSettings
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
