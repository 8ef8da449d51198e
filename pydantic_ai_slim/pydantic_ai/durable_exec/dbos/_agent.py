"""`DBOSAgent`: an agent whose runs are DBOS workflows, recovered from their last completed step after a crash."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import Any

from dbos import DBOS, DBOSConfiguredInstance, SetWorkflowID, WorkflowHandleAsync

from ... import _utils, models
from ..._agent_graph import EventStreamHandler
from ...agent import AbstractAgent, AgentMetadata, Instructions, WrapperAgent
from ...agent.abstract import AgentDepsT, OutputDataT
from ...builtin_tools import AbstractBuiltinTool
from ...exceptions import UserError
from ...messages import AgentStreamEvent, ModelMessage, UserContent
from ...output import OutputSpec
from ...result import StreamedRunResult, StreamedRunResultSync
from ...run import AgentRun, AgentRunResult, AgentRunResultEvent
from ...settings import ModelSettings
from ...tools import BuiltinToolFunc, DeferredToolHandler, DeferredToolResults, Tool, ToolFuncEither
from ...toolsets.abstract import AbstractToolset
from ...toolsets.function import FunctionToolset
from ...usage import RunUsage, UsageLimits
from ._mcp_server import DBOSMCPServer, is_mcp_server
from ._model import DBOSModel
from ._toolset import DBOSFunctionToolset
from ._utils import DBOSParallelExecutionMode, StepConfig

__all__ = ('DBOSAgent',)


@DBOS.dbos_class()
class DBOSAgent(WrapperAgent[AgentDepsT, OutputDataT], DBOSConfiguredInstance):
    """Wraps an agent so that `run` and `run_sync` are DBOS workflows, named `'{name}.run'` and `'{name}.run_sync'`.

    Model requests are steps (`'{name}__model.request'`, or `'{name}__model.request_stream'` with an event
    stream handler), so a workflow recovered after a crash or restart continues from its last completed step
    without sending them again. With `tool_step_config`, function tool calls are steps too
    (`'{name}__tool.{tool_name}'`), so a tool that completed is not run again. The agent's
    `deferred_tool_handler` (or a run's) is called inside the workflow; `wait_for_deferred_tool_results` makes
    it wait durably for people.

    Create every `DBOSAgent` before `DBOS.launch()`: recovery finds workflows by name, and the name must be
    unique. Workflow inputs (the run's arguments, its deps and handler) are stored with the workflow, so they
    must be picklable; set handlers on the agent rather than per run where you can.
    """

    def __init__(
        self,
        wrapped: AbstractAgent[AgentDepsT, OutputDataT],
        *,
        name: str | None = None,
        event_stream_handler: EventStreamHandler[AgentDepsT] | None = None,
        mcp_step_config: StepConfig | None = None,
        model_step_config: StepConfig | None = None,
        parallel_execution_mode: DBOSParallelExecutionMode = 'parallel_ordered_events',
        tool_step_config: StepConfig | None = None,
    ):
        """Wrap `wrapped` for DBOS.

        Args:
            wrapped: The agent; it must have a model (a run cannot choose another inside a workflow).
            name: The unique name of the agent's workflows and steps; defaults to the agent's name.
            event_stream_handler: Receives the events of runs (model events from inside the model steps);
                defaults to the agent's.
            mcp_step_config: Retry options of the steps that list an MCP server's tools and call them.
            model_step_config: Retry options of the model request steps.
            parallel_execution_mode: How a response's tool calls run: `'sequential'` or
                `'parallel_ordered_events'` (concurrently, events in call order).
            tool_step_config: If given (even `{}`), function tool calls are steps with these retry options.
        """
        super().__init__(wrapped)
        dbos_name = name or wrapped.name
        if dbos_name is None:
            raise UserError(
                'An agent needs to have a unique `name` in order to be used with DBOS. The name will be used to '
                "identify the agent's workflows and steps."
            )
        model = wrapped.model
        if model is None:
            raise UserError(
                'An agent needs to have a `model` in order to be used with DBOS, it cannot be set at agent run time.'
            )
        self._name = dbos_name
        self._event_stream_handler = event_stream_handler
        self._mcp_step_config = mcp_step_config or {}
        self._parallel_execution_mode: DBOSParallelExecutionMode = parallel_execution_mode
        self._model = DBOSModel(
            models.infer_model(model),
            step_name_prefix=dbos_name,
            step_config=model_step_config or {},
            event_stream_handler=self.event_stream_handler,
        )
        self._model_override: ContextVar[models.Model | None] = ContextVar(f'{dbos_name}_model', default=None)
        self._toolsets = [self._dbos_toolset(toolset, tool_step_config) for toolset in wrapped.toolsets]
        DBOSConfiguredInstance.__init__(self, dbos_name)
        self._register_workflows()

    def _dbos_toolset(
        self, toolset: AbstractToolset[AgentDepsT], tool_step_config: StepConfig | None
    ) -> AbstractToolset[AgentDepsT]:
        def wrap(leaf: AbstractToolset[AgentDepsT]) -> AbstractToolset[AgentDepsT]:
            if isinstance(leaf, FunctionToolset) and tool_step_config is not None:
                return DBOSFunctionToolset(leaf, step_name_prefix=self._name, step_config=tool_step_config)
            if is_mcp_server(leaf):
                return DBOSMCPServer(leaf, step_name_prefix=self._name, step_config=self._mcp_step_config)
            return leaf

        return toolset.visit_and_replace(wrap)

    def _register_workflows(self) -> None:
        # The workflows call the base class's run methods, which come back through `iter` below.
        parent = super()

        @DBOS.workflow(name=f'{self._name}.run')
        async def run_workflow(user_prompt: str | Sequence[UserContent] | None, **kwargs: Any) -> AgentRunResult[Any]:
            return await parent.run(user_prompt, **kwargs)

        @DBOS.workflow(name=f'{self._name}.run_sync')
        def run_sync_workflow(user_prompt: str | Sequence[UserContent] | None, **kwargs: Any) -> AgentRunResult[Any]:
            return parent.run_sync(user_prompt, **kwargs)

        self._run_workflow = run_workflow
        self._run_sync_workflow = run_sync_workflow

    @property
    def name(self) -> str | None:
        """The name of the agent's workflows and steps."""
        return self._name

    @name.setter
    def name(self, value: str | None) -> None:
        raise UserError(
            'The agent name cannot be changed after creation. If you need to change the name, create a new agent.'
        )

    @property
    def model(self) -> models.Model:
        """The wrapped agent's model, as a `DBOSModel`."""
        return self._model

    @property
    def event_stream_handler(self) -> EventStreamHandler[AgentDepsT] | None:
        """The handler given to the `DBOSAgent`, else the wrapped agent's."""
        return self._event_stream_handler or self.wrapped.event_stream_handler

    @property
    def toolsets(self) -> Sequence[AbstractToolset[AgentDepsT]]:
        """The wrapped agent's toolsets, function toolsets wrapped in steps if `tool_step_config` was given."""
        return self._toolsets

    async def start(
        self, user_prompt: str | Sequence[UserContent] | None = None, *, workflow_id: str, **run_kwargs: Any
    ) -> WorkflowHandleAsync[AgentRunResult[Any]]:
        """Start a run as the workflow `workflow_id` and return its handle at once (`await handle.get_result()`).

        Takes the keyword arguments of `run`. Starting the same `workflow_id` again returns the same workflow.
        """
        with SetWorkflowID(workflow_id):
            return await DBOS.start_workflow_async(self._run_workflow, user_prompt, **run_kwargs)

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
        """Run the agent as the workflow `'{name}.run'` (see `Agent.run`)."""
        self._check_model(model, always=True)
        return await self._run_workflow(
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
            infer_name=infer_name,
            toolsets=toolsets,
            builtin_tools=builtin_tools,
            event_stream_handler=event_stream_handler,
            deferred_tool_handler=deferred_tool_handler,
        )

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
        """Run the agent as the workflow `'{name}.run_sync'`, whose child `'{name}.run'` does the run."""
        self._check_model(model, always=True)
        return self._run_sync_workflow(
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
            infer_name=infer_name,
            toolsets=toolsets,
            builtin_tools=builtin_tools,
            event_stream_handler=event_stream_handler,
            deferred_tool_handler=deferred_tool_handler,
        )

    def run_stream(self, *args: Any, **kwargs: Any) -> AbstractAsyncContextManager[StreamedRunResult[AgentDepsT, Any]]:
        """As `Agent.run_stream`, outside a workflow only: a stream cannot be replayed."""
        if DBOS.workflow_id is not None:
            raise UserError(
                '`agent.run_stream()` cannot be used inside a DBOS workflow. '
                'Set an `event_stream_handler` on the agent and use `agent.run()` instead.'
            )
        return super().run_stream(*args, **kwargs)

    def run_stream_sync(self, *args: Any, **kwargs: Any) -> StreamedRunResultSync[AgentDepsT, Any]:
        """As `Agent.run_stream_sync`, outside a workflow only: a stream cannot be replayed."""
        if DBOS.workflow_id is not None:
            raise UserError(
                '`agent.run_stream_sync()` cannot be used inside a DBOS workflow. '
                'Set an `event_stream_handler` on the agent and use `agent.run()` instead.'
            )
        return super().run_stream_sync(*args, **kwargs)

    def run_stream_events(
        self, *args: Any, **kwargs: Any
    ) -> AsyncIterator[AgentStreamEvent | AgentRunResultEvent[Any]]:
        """Not available with DBOS: set an `event_stream_handler` and use `run`."""
        raise UserError(
            '`agent.run_stream_events()` cannot be used with DBOS. '
            'Set an `event_stream_handler` on the agent and use `agent.run()` instead.'
        )

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
        """Start a run with the DBOS model and toolsets (in the calling workflow, if any: not a workflow itself)."""
        self._check_model(model, always=False)
        run_model = models.infer_model(model) if model is not None else self._model_override.get() or self._model
        with (
            self.wrapped.override(model=run_model, toolsets=self._toolsets, tools=[]),
            AbstractAgent.parallel_tool_call_execution_mode(self._parallel_execution_mode),
        ):
            async with super().iter(
                user_prompt,
                output_type=output_type,
                message_history=message_history,
                deferred_tool_results=deferred_tool_results,
                instructions=instructions,
                deps=deps,
                model_settings=model_settings,
                usage_limits=usage_limits,
                usage=usage,
                metadata=metadata,
                infer_name=infer_name,
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
        """Override values within the block (see `Agent.override`); a model must be a `DBOSModel`."""
        if _utils.is_set(model) and not isinstance(model, DBOSModel):
            raise UserError(
                'Non-DBOS model cannot be contextually overridden inside a DBOS workflow, '
                'it must be set at agent creation time.'
            )
        token = self._model_override.set(models.infer_model(model)) if _utils.is_set(model) else None
        try:
            with self.wrapped.override(
                name=name, deps=deps, toolsets=toolsets, tools=tools, instructions=instructions, metadata=metadata
            ):
                yield
        finally:
            if token is not None:
                self._model_override.reset(token)

    def _check_model(self, model: models.Model | models.KnownModelName | str | None, *, always: bool) -> None:
        """Refuse a model other than a `DBOSModel` for a run that is (`always`) or may be inside a workflow."""
        if model is None or isinstance(model, DBOSModel) or not (always or DBOS.workflow_id is not None):
            return
        raise UserError(
            'Non-DBOS model cannot be set at agent run time inside a DBOS workflow, '
            'it must be set at agent creation time.'
        )
