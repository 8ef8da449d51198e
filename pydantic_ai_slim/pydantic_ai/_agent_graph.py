"""The agent loop as pydantic-graph nodes: `UserPromptNode` -> `ModelRequestNode` <-> `CallToolsNode` -> `End`.

Each node is small: the prompt node builds the first request, the request node sends it, and the tool node
turns the response into the next request (tool results, retries) or the final result.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeAlias, cast

from pydantic_graph import BaseNode, End, Graph, GraphRunContext
from typing_extensions import TypeVar

from . import _utils
from ._errors import ToolRetryError
from ._output import OutputSchema, OutputValidator
from ._run_context import RunContext
from ._system_prompt import SystemPromptRunner
from ._tool_calls import ToolCallBatch, run_tool_calls
from ._tool_manager import ToolManager
from .exceptions import UnexpectedModelBehavior
from .messages import (
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    SystemPromptPart,
    UserContent,
    UserPromptPart,
)
from .models import Model, ModelRequestParameters
from .result import FinalResult
from .settings import ModelSettings
from .tools import DeferredToolResults
from .usage import RunUsage, UsageLimits

__all__ = (
    'AgentNode',
    'CallToolsNode',
    'EndStrategy',
    'GraphAgentDeps',
    'GraphAgentState',
    'ModelRequestNode',
    'UserPromptNode',
    'build_agent_graph',
)

DepsT = TypeVar('DepsT')
NodeRunEndT = TypeVar('NodeRunEndT', default=Any)
EndStrategy: TypeAlias = Literal['early', 'exhaustive']
"""What to do with the other tool calls of a response that gives the final result: `'early'` skips them,
`'exhaustive'` runs them."""


@dataclass(kw_only=True)
class GraphAgentState:
    """The mutable state of a run."""

    message_history: list[ModelMessage] = field(default_factory=list[ModelMessage])
    """All messages of the conversation, including those from before the run."""
    usage: RunUsage = field(default_factory=RunUsage)
    """What the run has used."""
    retries: int = 0
    """Output retries used so far."""
    run_step: int = 0
    """The number of model requests made in the run."""
    run_id: str = field(default_factory=_utils.generate_run_id)
    """The id of the run."""

    def increment_retries(self, max_result_retries: int, error: BaseException | None = None) -> None:
        """Count an output retry; past the limit, end the run with `UnexpectedModelBehavior`."""
        self.retries += 1
        if self.retries > max_result_retries:
            message = f'Exceeded maximum retries ({max_result_retries}) for output validation'
            if error is not None:
                raise UnexpectedModelBehavior(message) from error
            raise UnexpectedModelBehavior(message)


@dataclass(kw_only=True)
class GraphAgentDeps(Generic[DepsT, NodeRunEndT]):
    """What the nodes need that does not change during a run."""

    user_deps: DepsT
    prompt: str | Sequence[UserContent] | None
    new_message_index: int
    model: Model
    model_settings: ModelSettings | None
    usage_limits: UsageLimits
    max_result_retries: int
    end_strategy: EndStrategy
    output_schema: OutputSchema[NodeRunEndT]
    output_validators: list[OutputValidator[DepsT, NodeRunEndT]]
    tool_manager: ToolManager[DepsT]
    instructions: list[str | SystemPromptRunner[DepsT]]
    validation_context: Any = None
    metadata: dict[str, Any] | None = None

    def run_context(self, state: GraphAgentState) -> RunContext[DepsT]:
        """A run context for the current state."""
        return RunContext(
            deps=self.user_deps,
            model=self.model,
            usage=state.usage,
            prompt=self.prompt,
            messages=state.message_history,
            validation_context=self.validation_context,
            run_step=state.run_step,
            run_id=state.run_id,
            metadata=self.metadata,
        )

    async def get_instructions(self, ctx: RunContext[DepsT]) -> str | None:
        """The instructions for the next request, static and dynamic, joined by blank lines."""
        texts: list[str] = []
        for item in self.instructions:
            text = item if isinstance(item, str) else await item.run(ctx)
            if text:
                texts.append(text.strip())
        extra = self.output_schema.instructions(self.model)
        if extra:
            texts.append(extra)
        return '\n\n'.join(texts) or None


AgentGraphRunContext: TypeAlias = GraphRunContext[GraphAgentState, GraphAgentDeps[DepsT, Any]]


@dataclass
class UserPromptNode(BaseNode[GraphAgentState, GraphAgentDeps[DepsT, Any], FinalResult[NodeRunEndT]]):
    """The first node: builds the first request from the history, system prompts and the user prompt."""

    user_prompt: str | Sequence[UserContent] | None
    """The user prompt of the run."""
    _: dataclasses.KW_ONLY
    deferred_tool_results: DeferredToolResults | None = None
    """Results for the deferred calls of the history's last response, to resume with."""
    instructions: str | None = None
    """Static instructions."""
    instructions_functions: list[SystemPromptRunner[DepsT]] = field(default_factory=list[SystemPromptRunner[DepsT]])
    """Instructions functions."""
    system_prompts: tuple[str, ...] = ()
    """Static system prompts."""
    system_prompt_functions: list[SystemPromptRunner[DepsT]] = field(default_factory=list[SystemPromptRunner[DepsT]])
    """System prompt functions."""
    system_prompt_dynamic_functions: dict[str, SystemPromptRunner[DepsT]] = field(
        default_factory=dict[str, SystemPromptRunner[DepsT]]
    )
    """Dynamic system prompt functions, by qualified name."""

    async def run(self, ctx: AgentGraphRunContext[DepsT]) -> ModelRequestNode[DepsT, NodeRunEndT]:
        """Build the first request."""
        history = ctx.state.message_history
        run_context = ctx.deps.run_context(ctx.state)
        parts: list[ModelRequestPart] = []
        if history:
            await self._refresh_dynamic_system_prompts(history, run_context)
            if isinstance(history[-1], ModelRequest):
                # A history that ends with a request is continued: its parts are sent with the new prompt.
                parts.extend(cast(ModelRequest, history.pop()).parts)
        else:
            parts.extend(await self._system_prompt_parts(run_context))
        if self.user_prompt is not None:
            parts.append(UserPromptPart(self.user_prompt))
        return ModelRequestNode(ModelRequest(parts=parts))

    async def _system_prompt_parts(self, run_context: RunContext[DepsT]) -> list[ModelRequestPart]:
        parts: list[ModelRequestPart] = [SystemPromptPart(prompt) for prompt in self.system_prompts]
        for runner in self.system_prompt_functions:
            text = await runner.run(run_context)
            if text is None:
                continue
            ref = _qualified_name(runner) if runner.dynamic else None
            parts.append(SystemPromptPart(text, dynamic_ref=ref))
        return parts

    async def _refresh_dynamic_system_prompts(
        self, history: list[ModelMessage], run_context: RunContext[DepsT]
    ) -> None:
        for message in history:
            if not isinstance(message, ModelRequest):
                continue
            for index, part in enumerate(message.parts):
                if isinstance(part, SystemPromptPart) and part.dynamic_ref:
                    runner = self.system_prompt_dynamic_functions.get(part.dynamic_ref)
                    if runner is not None:
                        text = await runner.run(run_context) or ''
                        parts = list(message.parts)
                        parts[index] = SystemPromptPart(text, dynamic_ref=part.dynamic_ref)
                        message.parts = parts


def _qualified_name(runner: SystemPromptRunner[Any]) -> str:
    return runner.function.__qualname__


@dataclass
class ModelRequestNode(BaseNode[GraphAgentState, GraphAgentDeps[DepsT, Any], FinalResult[NodeRunEndT]]):
    """Sends a request to the model and hands the response to a `CallToolsNode`."""

    request: ModelRequest
    """The request to send."""

    async def run(self, ctx: AgentGraphRunContext[DepsT]) -> CallToolsNode[DepsT, NodeRunEndT]:
        """Send the request."""
        messages, settings, params = await self._prepare(ctx)
        response = await ctx.deps.model.request(messages, settings, params)
        return self._finish(ctx, response)

    async def _prepare(
        self, ctx: AgentGraphRunContext[DepsT]
    ) -> tuple[list[ModelMessage], ModelSettings | None, ModelRequestParameters]:
        state, deps = ctx.state, ctx.deps
        state.run_step += 1
        run_context = deps.run_context(state)
        deps.tool_manager = await deps.tool_manager.for_run_step(run_context)
        self.request.timestamp = _utils.now_utc()
        self.request.run_id = state.run_id
        self.request.instructions = await deps.get_instructions(run_context)
        state.message_history.append(self.request)
        deps.usage_limits.check_before_request(state.usage)
        params = _request_parameters(deps)
        settings, params = deps.model.prepare_request(deps.model_settings, params)
        return state.message_history, settings, params

    def _finish(self, ctx: AgentGraphRunContext[DepsT], response: ModelResponse) -> CallToolsNode[DepsT, NodeRunEndT]:
        state = ctx.state
        response.run_id = state.run_id
        state.usage.requests += 1
        state.usage.incr(response.usage)
        ctx.deps.usage_limits.check_tokens(state.usage)
        state.message_history.append(response)
        return CallToolsNode(response)


def _request_parameters(deps: GraphAgentDeps[Any, Any]) -> ModelRequestParameters:
    tool_defs = deps.tool_manager.tool_defs
    return ModelRequestParameters(
        function_tools=[d for d in tool_defs if d.kind != 'output'],
        output_tools=[d for d in tool_defs if d.kind == 'output'],
        **deps.output_schema.request_parameters(deps.model),
    )


@dataclass
class CallToolsNode(BaseNode[GraphAgentState, GraphAgentDeps[DepsT, Any], FinalResult[NodeRunEndT]]):
    """Handles a model response: runs its tool calls or validates its text, then ends or asks again."""

    model_response: ModelResponse
    """The response to handle."""
    tool_call_results: dict[str, Any] | None = None
    """Results for deferred calls of the response, when resuming."""
    tool_call_metadata: dict[str, dict[str, Any]] | None = None
    """Metadata for approved deferred calls, when resuming."""
    user_prompt: str | Sequence[UserContent] | None = None
    """A user prompt to send after the tool results, when resuming."""

    async def run(
        self, ctx: AgentGraphRunContext[DepsT]
    ) -> ModelRequestNode[DepsT, NodeRunEndT] | End[FinalResult[NodeRunEndT]]:
        """Handle the response."""
        tool_calls = self.model_response.tool_calls
        if tool_calls:
            return await self._handle_tool_calls(ctx)
        text = self.model_response.text
        if text:
            return await self._handle_text(ctx, text)
        return self._handle_empty(ctx)

    async def _handle_tool_calls(
        self, ctx: AgentGraphRunContext[DepsT]
    ) -> ModelRequestNode[DepsT, NodeRunEndT] | End[FinalResult[NodeRunEndT]]:
        batch = ToolCallBatch(self.model_response.tool_calls)
        await run_tool_calls(batch, ctx.state, ctx.deps)
        if batch.final_result is not None:
            ctx.state.message_history.append(_next_request(batch.parts, ctx.state))
            return End(batch.final_result)
        return ModelRequestNode(ModelRequest(parts=batch.parts))

    async def _handle_text(
        self, ctx: AgentGraphRunContext[DepsT], text: str
    ) -> ModelRequestNode[DepsT, NodeRunEndT] | End[FinalResult[NodeRunEndT]]:
        state, deps = ctx.state, ctx.deps
        run_context = deps.run_context(state)
        try:
            output = await deps.output_schema.process_text(text, run_context)
            for validator in deps.output_validators:
                output = await validator.validate(output, run_context)
        except ToolRetryError as e:
            state.increment_retries(deps.max_result_retries, e)
            return ModelRequestNode(ModelRequest(parts=[e.tool_retry]))
        return End(FinalResult(output))

    def _handle_empty(self, ctx: AgentGraphRunContext[DepsT]) -> ModelRequestNode[DepsT, NodeRunEndT]:
        # An empty response (no parts, or only empty text) gets an empty request: the model is asked again.
        ctx.state.increment_retries(ctx.deps.max_result_retries)
        return ModelRequestNode(ModelRequest(parts=[]))


def _next_request(parts: list[ModelRequestPart], state: GraphAgentState) -> ModelRequest:
    return ModelRequest(parts=parts, timestamp=_utils.now_utc(), run_id=state.run_id)


AgentNode: TypeAlias = (
    'UserPromptNode[DepsT, NodeRunEndT] | ModelRequestNode[DepsT, NodeRunEndT] | CallToolsNode[DepsT, NodeRunEndT]'
)
"""A node of the agent graph."""


def build_agent_graph(name: str | None) -> Graph[GraphAgentState, GraphAgentDeps[Any, Any], FinalResult[Any]]:
    """The graph of the agent loop."""
    return Graph[GraphAgentState, GraphAgentDeps[Any, Any], FinalResult[Any]](
        nodes=(UserPromptNode[Any, Any], ModelRequestNode[Any, Any], CallToolsNode[Any, Any]),
        name=name or 'Agent',
        state_type=GraphAgentState,
        run_end_type=FinalResult[Any],
        auto_instrument=False,
    )
