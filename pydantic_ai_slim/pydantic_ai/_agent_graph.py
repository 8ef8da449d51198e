"""The agent loop as pydantic-graph nodes: `UserPromptNode` -> `ModelRequestNode` <-> `CallToolsNode` -> `End`.

Each node is small: the prompt node builds the first request, the request node sends it, and the tool node
turns the response into the next request (tool results, retries) or the final result.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeAlias, cast

import anyio
from pydantic_graph import BaseNode, End, Graph, GraphRunContext
from pydantic_graph.exceptions import GraphRuntimeError
from typing_extensions import TypeVar

from . import _deferred, _otel, _utils
from ._errors import ToolRetryError
from ._output import OutputSchema, OutputValidator
from ._run_context import RunContext
from ._system_prompt import SystemPromptRunner
from ._tool_calls import _FINAL_RESULT_PROCESSED, ToolCallBatch, run_tool_calls
from ._tool_manager import ToolManager, current_parallel_execution_mode
from .builtin_tools import AbstractBuiltinTool
from .exceptions import ContentFilterError, IncompleteToolCall, UnexpectedModelBehavior, UserError
from .messages import (
    AgentStreamEvent,
    FinalResultEvent,
    FunctionToolResultEvent,
    HandleResponseEvent,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserContent,
    UserPromptPart,
)
from .models import Model, ModelRequestParameters
from .result import AgentStream, FinalResult, StreamedRunResult, _find_call
from .settings import ModelSettings, merge_model_settings
from .tools import (
    BuiltinToolFunc,
    DeferredToolHandler,
    DeferredToolRequests,
    DeferredToolResult,
    DeferredToolResults,
    ToolApproved,
    ToolDenied,
)
from .usage import RunUsage, UsageLimits

if TYPE_CHECKING:
    # Only annotations: the streams module is imported when a stream is made, not with this module.
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

    from .models.instrumented import InstrumentationSettings
    from .run import AgentRun

__all__ = (
    'AgentGraphRun',
    'AgentNode',
    'CallToolsNode',
    'EndStrategy',
    'EventStreamHandler',
    'GraphAgentDeps',
    'GraphAgentState',
    'ModelRequestNode',
    'UserPromptNode',
    'build_agent_graph',
    'stream_run',
)

DepsT = TypeVar('DepsT')
NodeRunEndT = TypeVar('NodeRunEndT', default=Any)
EndStrategy: TypeAlias = Literal['early', 'exhaustive']
"""What to do with the other tool calls of a response that gives the final result: `'early'` skips them,
`'exhaustive'` runs them."""

HistoryProcessor: TypeAlias = (
    Callable[[list[ModelMessage]], list[ModelMessage]]
    | Callable[[list[ModelMessage]], Awaitable[list[ModelMessage]]]
    | Callable[[RunContext[DepsT], list[ModelMessage]], list[ModelMessage]]
    | Callable[[RunContext[DepsT], list[ModelMessage]], Awaitable[list[ModelMessage]]]
)
"""A function that rewrites the message history before each model request (e.g. to trim or summarise it),
with or without the run context, sync or async. The history it returns replaces the run's history."""

EventStreamHandler: TypeAlias = Callable[[RunContext[DepsT], AsyncIterable[AgentStreamEvent]], Awaitable[None]]
"""A function that receives the events of a run as it goes: for each model request the events of the streamed
response, and for each tool-call stage the `FunctionToolCallEvent`s and `FunctionToolResultEvent`s."""


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
    history_has_adjacent_requests: bool = False
    """Whether two requests follow each other in the history, so the model must be sent a merged copy."""
    metadata: dict[str, Any] | None = None
    """The metadata of the run, computed when it starts and again when it ends."""

    def increment_retries(
        self,
        max_result_retries: int,
        error: BaseException | None = None,
        model_settings: ModelSettings | None = None,
    ) -> None:
        """Count an output retry; past the limit, end the run with `UnexpectedModelBehavior`.

        If the last response was cut off by the token limit in the middle of a tool call, the run ends with
        `IncompleteToolCall` instead, naming the `max_tokens` of `model_settings`.
        """
        self.retries += 1
        if self.retries > max_result_retries:
            if _ends_in_cut_off_tool_call(self.message_history):
                raise IncompleteToolCall(
                    f'Model token limit ({_max_tokens(model_settings)}) exceeded while generating a tool call, '
                    'resulting in incomplete arguments. Increase the `max_tokens` model setting, or simplify the '
                    'prompt to result in a shorter response that will fit within the limit.'
                )
            message = f'Exceeded maximum retries ({max_result_retries}) for output validation'
            if error is not None:
                raise UnexpectedModelBehavior(message) from error
            raise UnexpectedModelBehavior(message)


def _ends_in_cut_off_tool_call(history: Sequence[ModelMessage]) -> bool:
    last = history[-1] if history else None
    if not isinstance(last, ModelResponse) or last.finish_reason != 'length' or not last.parts:
        return False
    call = last.parts[-1]
    if not isinstance(call, ToolCallPart):
        return False
    try:
        call.args_as_dict()
    except ValueError:
        return True
    return False


def _max_tokens(model_settings: ModelSettings | None) -> Any:
    return (model_settings or {}).get('max_tokens') or 'provider default'


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
    event_stream_handler: EventStreamHandler[DepsT] | None = None
    """When set, model requests are streamed and each node's events are passed to it."""
    tool_event_sink: Callable[[HandleResponseEvent], None] | None = None
    """Set while a `CallToolsNode` streams its events: receives the events of the tool calls."""
    deferred_tool_handler: DeferredToolHandler[DepsT] | None = None
    """When set, resolves each response's deferred calls within the run, instead of ending it with them."""
    builtin_tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[DepsT]] = ()
    """The builtin tools of the run (the agent's, then the run's), or functions that make them per request."""
    history_processors: Sequence[HistoryProcessor[DepsT]] = ()
    """Functions that rewrite the history before each model request, in order."""
    instrumentation: InstrumentationSettings | None = None
    """When set, the run's tool calls and deferred-call decisions are traced (see `_otel`)."""

    @property
    def settings(self) -> ModelSettings | None:
        """The settings of the run's requests: the model's, under the agent's and the run's."""
        return merge_model_settings(self.model.settings, self.model_settings)

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
            metadata=state.metadata,
            **_otel.run_context_fields(self.instrumentation),
        )

    async def get_instructions(self, ctx: RunContext[DepsT]) -> str | None:
        """The instructions for the next request, or `None` if there are none.

        As upstream: the static strings (the agent's, then the run's) form one block, joined by newlines; the
        non-empty texts of the functions follow in order, each after a blank line.
        """
        static = '\n'.join(item for item in self.instructions if isinstance(item, str)).strip()
        texts = [static] if static else []
        for item in self.instructions:
            if not isinstance(item, str) and (text := await item.run(ctx)):
                texts.append(text)
        return '\n\n'.join(texts).strip() or None


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
    system_prompts: tuple[str, ...] = field(default_factory=tuple[str, ...])
    """Static system prompts."""
    system_prompt_functions: list[SystemPromptRunner[DepsT]] = field(default_factory=list[SystemPromptRunner[DepsT]])
    """System prompt functions."""
    system_prompt_dynamic_functions: dict[str, SystemPromptRunner[DepsT]] = field(
        default_factory=dict[str, SystemPromptRunner[DepsT]]
    )
    """Dynamic system prompt functions, by qualified name."""

    async def run(
        self, ctx: AgentGraphRunContext[DepsT]
    ) -> ModelRequestNode[DepsT, NodeRunEndT] | CallToolsNode[DepsT, NodeRunEndT]:
        """Build the first request, or continue from the history's last response (e.g. to resume deferred calls)."""
        history = ctx.state.message_history
        response = _deferred.response_to_resume(history, self.deferred_tool_results, self.user_prompt)
        if response is not None:
            # The requests already after the response stay messages of their own; the next joins them.
            ctx.state.history_has_adjacent_requests |= isinstance(history[-1], ModelRequest)
            return CallToolsNode(
                response, deferred_tool_results=self.deferred_tool_results, user_prompt=self.user_prompt
            )
        resend = self.user_prompt is None and bool(history) and isinstance(history[-1], ModelRequest)
        if resend:
            # A history that ends with a request and no new prompt: that request is the one sent, and its user
            # prompt is the run's `ctx.prompt`.
            ctx.deps.prompt = _prompt_of(cast(ModelRequest, history[-1]).parts)
        run_context = ctx.deps.run_context(ctx.state)
        # As upstream, the instructions are made first, when the request is built.
        instructions = await ctx.deps.get_instructions(run_context)
        parts: list[ModelRequestPart] = []
        if history:
            await self._refresh_dynamic_system_prompts(history, run_context)
            if isinstance(history[-1], ModelRequest):
                if resend:
                    parts.extend(cast(ModelRequest, history.pop()).parts)
                    # The request sent in its place may now merge with one before it.
                    ctx.state.history_has_adjacent_requests = any(isinstance(m, ModelRequest) for m in history[-1:])
                else:
                    # It stays a message of its own; the model sees it merged with the new one.
                    ctx.state.history_has_adjacent_requests = True
        else:
            parts.extend(await self._system_prompt_parts(run_context))
        if self.user_prompt is not None:
            parts.append(UserPromptPart(self.user_prompt))
        if not history and not parts and not ctx.deps.instructions:
            raise UserError('No message history, user prompt, or instructions provided')
        return ModelRequestNode(ModelRequest(parts=parts, instructions=instructions))

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


def _prompt_of(parts: Sequence[ModelRequestPart]) -> str | Sequence[UserContent] | None:
    """The user prompt that request parts hold: one part's content as it is, several parts' contents joined."""
    prompts = [part.content for part in parts if isinstance(part, UserPromptPart)]
    if len(prompts) <= 1:
        return prompts[0] if prompts else None
    joined: list[UserContent] = []
    for content in prompts:
        if isinstance(content, str):
            joined.append(content)
        else:
            joined.extend(content)
    return joined


def _qualified_name(runner: SystemPromptRunner[Any]) -> str:
    return runner.function.__qualname__


@dataclass
class ModelRequestNode(BaseNode[GraphAgentState, GraphAgentDeps[DepsT, Any], FinalResult[NodeRunEndT]]):
    """Sends a request to the model and hands the response to a `CallToolsNode`."""

    request: ModelRequest
    """The request to send."""
    _result: CallToolsNode[DepsT, NodeRunEndT] | None = field(default=None, init=False, repr=False, compare=False)
    _did_stream: bool = field(default=False, init=False, repr=False, compare=False)

    async def run(self, ctx: AgentGraphRunContext[DepsT]) -> CallToolsNode[DepsT, NodeRunEndT]:
        """Send the request (streamed to the run's event stream handler, if it has one)."""
        handler = ctx.deps.event_stream_handler
        if self._result is None and handler is not None:
            async with self.stream(ctx) as stream:
                await handler(ctx.deps.run_context(ctx.state), stream)
        if self._result is not None:
            # The response was already streamed with `stream()`.
            return self._result
        messages, settings, params = await self._prepare(ctx)
        response = await ctx.deps.model.request(messages, settings, params)
        return self._finish(ctx, response)

    async def _prepare(
        self, ctx: AgentGraphRunContext[DepsT]
    ) -> tuple[list[ModelMessage], ModelSettings | None, ModelRequestParameters]:
        state, deps = ctx.state, ctx.deps
        # The request's instructions were set when it was built; the tools of the step see the request.
        self.request.timestamp = _utils.now_utc()
        self.request.run_id = state.run_id
        state.message_history.append(self.request)
        state.run_step += 1
        run_context = deps.run_context(state)
        deps.tool_manager = await deps.tool_manager.for_run_step(run_context)
        if deps.history_processors:
            await process_history(state, deps, run_context)
        deps.usage_limits.check_before_request(state.usage)
        params = _request_parameters(deps, await resolve_builtin_tools(deps.builtin_tools, run_context))
        settings, params = deps.model.prepare_request(deps.model_settings, params)
        # The model gets a list of its own, so that what it keeps of it does not change as the run goes on.
        messages = list(state.message_history)
        if state.history_has_adjacent_requests or deps.history_processors:
            messages = merge_adjacent_messages(messages)
        if deps.usage_limits.count_tokens_before_request:
            # The model counts the request's input tokens, so the limits are checked before it is sent.
            counted = await deps.model.count_tokens(messages, settings, params)
            deps.usage_limits.check_before_request(state.usage + counted)
        return messages, settings, params

    @asynccontextmanager
    async def stream(self, ctx: AgentGraphRunContext[DepsT]) -> AsyncIterator[AgentStream[DepsT, NodeRunEndT]]:
        """Send the request as a streamed request, and yield the response as it streams in.

        Whatever is left of the stream is read when the block is left, so that the node's result (the
        `CallToolsNode` that `run` then returns) has the whole response.
        """
        async with self._open_stream(ctx) as stream:
            yield stream
            await stream._close_streams()
            async for _ in stream:
                pass
        self._finish_stream(ctx, stream)

    @asynccontextmanager
    async def _open_stream(self, ctx: AgentGraphRunContext[DepsT]) -> AsyncIterator[AgentStream[DepsT, NodeRunEndT]]:
        """Start the streamed request; leaving the block closes the model's stream, read to the end or not."""
        assert not self._did_stream, 'stream() should only be called once per node'
        self._did_stream = True
        messages, settings, params = await self._prepare(ctx)
        state, deps = ctx.state, ctx.deps
        # The request counts from its start, so the usage seen while it streams includes it.
        state.usage.requests += 1
        run_context = deps.run_context(state)
        async with deps.model.request_stream(messages, settings, params, run_context) as response_stream:
            # With a deferred tool handler, calls that must wait do not end the run: the handler resolves them.
            response_stream._deferred_calls_end_run = deps.deferred_tool_handler is None
            stream = AgentStream[DepsT, NodeRunEndT](
                _raw_stream_response=response_stream,
                _output_schema=deps.output_schema,
                _output_validators=deps.output_validators,
                _run_ctx=run_context,
                _usage_limits=deps.usage_limits,
                _tool_manager=deps.tool_manager,
            )
            try:
                yield stream
            finally:
                # Closed here, not left to the garbage collector, so no generator outlives the request.
                with anyio.CancelScope(shield=True):
                    await stream._close()

    def _finish_stream(
        self, ctx: AgentGraphRunContext[DepsT], stream: AgentStream[DepsT, NodeRunEndT]
    ) -> CallToolsNode[DepsT, NodeRunEndT]:
        self._result = self._finish(ctx, stream.get(), request_counted=True)
        return self._result

    def _finish(
        self, ctx: AgentGraphRunContext[DepsT], response: ModelResponse, *, request_counted: bool = False
    ) -> CallToolsNode[DepsT, NodeRunEndT]:
        state = ctx.state
        response.run_id = state.run_id
        if not request_counted:
            state.usage.requests += 1
        state.usage.incr(response.usage)
        ctx.deps.usage_limits.check_tokens(state.usage)
        state.message_history.append(response)
        return CallToolsNode(response)


async def process_history(
    state: GraphAgentState, deps: GraphAgentDeps[DepsT, Any], run_context: RunContext[DepsT]
) -> None:
    """Run the history processors over the history, which the result replaces (in place, for `capture_run_messages`).

    The run's new messages are counted from the same distance to the end as before, as upstream does.
    """
    messages = list(state.message_history)
    for processor in deps.history_processors:
        args: tuple[Any, ...] = (run_context, messages) if _takes_ctx(processor) else (messages,)
        processed: Any = processor(*args)
        messages = await processed if inspect.isawaitable(processed) else processed
    if not messages:
        raise UserError('Processed history cannot be empty.')
    if not isinstance(messages[-1], ModelRequest):
        raise UserError('Processed history must end with a `ModelRequest`.')
    deps.new_message_index -= len(state.message_history) - len(messages)
    state.message_history[:] = messages


def _takes_ctx(processor: Callable[..., Any]) -> bool:
    return len(inspect.signature(processor).parameters) > 1


def _request_parameters(
    deps: GraphAgentDeps[Any, Any], builtin_tools: list[AbstractBuiltinTool]
) -> ModelRequestParameters:
    tool_defs = deps.tool_manager.tool_defs
    return ModelRequestParameters(
        function_tools=[d for d in tool_defs if d.kind != 'output'],
        builtin_tools=builtin_tools,
        output_tools=[d for d in tool_defs if d.kind == 'output'],
        **deps.output_schema.request_parameters(deps.model),
    )


async def resolve_builtin_tools(
    tools: Sequence[AbstractBuiltinTool | BuiltinToolFunc[DepsT]], run_context: RunContext[DepsT]
) -> list[AbstractBuiltinTool]:
    """The builtin tools of a request: functions called (those returning `None` left out), one tool per unique id.

    A later tool with the same `unique_id` replaces an earlier one in its place, so a run's tool overrides the
    agent's.
    """
    by_id: dict[str, AbstractBuiltinTool] = {}
    for tool in tools:
        made = tool if isinstance(tool, AbstractBuiltinTool) else await _utils.call_maybe_async(tool, run_context)
        if made is not None:
            by_id[made.unique_id] = made
    return list(by_id.values())


@dataclass(repr=False)
class CallToolsNode(BaseNode[GraphAgentState, GraphAgentDeps[DepsT, Any], FinalResult[NodeRunEndT]]):
    """Handles a model response: runs its tool calls or validates its text, then ends or asks again."""

    model_response: ModelResponse
    """The response to handle."""
    tool_call_results: dict[str, DeferredToolResult | Literal['skip']] | None = None
    """When resuming: the answers to the response's deferred calls by tool call id (approvals as `ToolApproved` or
    `ToolDenied`), as upstream exposes them."""
    tool_call_metadata: dict[str, dict[str, Any]] | None = None
    """When resuming: the metadata given for the deferred calls, by tool call id."""
    user_prompt: str | Sequence[UserContent] | None = None
    """When resuming: a user prompt to send after the tool results."""
    _: dataclasses.KW_ONLY
    deferred_tool_results: DeferredToolResults | None = field(default=None, repr=False)
    """When resuming: the run's `deferred_tool_results` (made from `tool_call_results` if only those are given)."""
    _next_node: ModelRequestNode[DepsT, NodeRunEndT] | End[FinalResult[NodeRunEndT]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        results = self.deferred_tool_results
        if results is not None and self.tool_call_results is None:
            approvals = {
                call_id: ToolApproved() if answer is True else ToolDenied() if answer is False else answer
                for call_id, answer in results.approvals.items()
            }
            self.tool_call_results = {**results.calls, **approvals}
            self.tool_call_metadata = results.metadata
        elif results is None and self.tool_call_results is not None:
            answers = {k: v for k, v in self.tool_call_results.items() if v != 'skip'}
            self.deferred_tool_results = DeferredToolResults(
                calls={k: v for k, v in answers.items() if not isinstance(v, ToolApproved | ToolDenied)},
                approvals={k: v for k, v in answers.items() if isinstance(v, ToolApproved | ToolDenied)},
                metadata=self.tool_call_metadata or {},
            )

    __repr__ = _utils.dataclasses_no_defaults_repr

    async def run(
        self, ctx: AgentGraphRunContext[DepsT]
    ) -> ModelRequestNode[DepsT, NodeRunEndT] | End[FinalResult[NodeRunEndT]]:
        """Handle the response (passing the tool-call events to the run's event stream handler, if it has one)."""
        handler = ctx.deps.event_stream_handler
        # While the node streams, `tool_event_sink` is set and this is the call that does the work.
        if self._next_node is None and handler is not None and ctx.deps.tool_event_sink is None:
            async with self.stream(ctx) as events:
                await handler(ctx.deps.run_context(ctx.state), events)
        if self._next_node is not None:
            return self._next_node
        if ctx.deps.tool_manager.ctx is None:
            # The run continues from a response of the history: no request has listed the tools yet.
            ctx.deps.tool_manager = await ctx.deps.tool_manager.for_run_step(ctx.deps.run_context(ctx.state))
        if self.deferred_tool_results is not None:
            return await self._resume(ctx, self.deferred_tool_results)
        tool_calls = self.model_response.tool_calls
        if tool_calls:
            return await self._handle_tool_calls(ctx)
        text = self.model_response.text
        if text:
            return await self._handle_text(ctx, text)
        return await self._handle_empty(ctx)

    @asynccontextmanager
    async def stream(self, ctx: AgentGraphRunContext[DepsT]) -> AsyncIterator[AsyncIterator[HandleResponseEvent]]:
        """Handle the response, yielding the events of its tool calls as they happen.

        The tool calls run while the block is open, whether or not the events are read; `run` then returns the
        node they led to.
        """
        if self._next_node is not None:
            yield _no_events()
            return
        send, receive = anyio.create_memory_object_stream[HandleResponseEvent](math.inf)
        errors: list[Exception] = []
        body_error: Exception | None = None
        with receive:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._handle_streaming, ctx, send, errors)
                try:
                    yield _received_events(receive)
                except Exception as e:
                    # Re-raised below as itself: a task group would wrap it in an exception group.
                    body_error = e
                    tg.cancel_scope.cancel()
        if body_error is not None:
            raise body_error
        if errors:
            raise errors[0]

    async def _handle_streaming(
        self,
        ctx: AgentGraphRunContext[DepsT],
        send: MemoryObjectSendStream[HandleResponseEvent],
        errors: list[Exception],
    ) -> None:
        with send:
            sink, flush = send.send_nowait, _no_flush
            if current_parallel_execution_mode() == 'parallel_ordered_events':
                sink, flush = _results_in_call_order(send.send_nowait, self.model_response.tool_calls)
            ctx.deps.tool_event_sink = sink
            try:
                self._next_node = await self.run(ctx)
            except Exception as e:
                errors.append(e)
            finally:
                ctx.deps.tool_event_sink = None
                flush()

    async def _handle_tool_calls(
        self, ctx: AgentGraphRunContext[DepsT]
    ) -> ModelRequestNode[DepsT, NodeRunEndT] | End[FinalResult[NodeRunEndT]]:
        batch = ToolCallBatch(self.model_response.tool_calls)
        await run_tool_calls(batch, ctx.state, ctx.deps)
        if batch.final_result is None and batch.deferred:
            # Deferred calls are left without a final result only for the run's deferred tool handler.
            await _deferred.handle_deferred(batch, ctx.state, ctx.deps)
        if batch.final_result is not None:
            # A run that ends with only deferred calls has no result to record: no empty request is left behind.
            if parts := batch.parts:
                ctx.state.message_history.append(_next_request(parts, ctx.state))
            return End(batch.final_result)
        return await _request_node(ctx, batch.parts)

    async def _resume(
        self, ctx: AgentGraphRunContext[DepsT], results: DeferredToolResults
    ) -> ModelRequestNode[DepsT, NodeRunEndT] | End[FinalResult[NodeRunEndT]]:
        outcome = await _deferred.resume(self.model_response, results, self.user_prompt, ctx.state, ctx.deps)
        if isinstance(outcome, FinalResult):
            return End(outcome)
        return await _request_node(ctx, outcome.parts)

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
            state.increment_retries(deps.max_result_retries, e, deps.settings)
            return await _request_node(ctx, [e.tool_retry])
        return End(FinalResult(output))

    async def _handle_empty(
        self, ctx: AgentGraphRunContext[DepsT]
    ) -> ModelRequestNode[DepsT, NodeRunEndT] | End[FinalResult[NodeRunEndT]]:
        # As upstream: a response without parts ends the run if the token limit or a content filter stopped it.
        # Otherwise, if an earlier response had text (some models answer with text beside tool calls, then
        # nothing), that text is the output; if not, an empty request asks the model again. A response with parts
        # but neither text nor tool calls (empty text, only thinking) is told what is expected.
        state, deps = ctx.state, ctx.deps
        response = self.model_response
        if not response.parts:
            _check_finish_reason(response, deps.settings)
            allows_text = deps.output_schema.request_parameters(deps.model)['allow_text_output']
            if allows_text and (text := _last_text(state.message_history)):
                return await self._handle_text(ctx, text)
        state.increment_retries(deps.max_result_retries, model_settings=deps.settings)
        if not response.parts:
            return await _request_node(ctx, [])
        if deps.output_schema.request_parameters(deps.model)['allow_text_output']:
            message = 'Please return text or call a tool.'
        else:
            message = 'Please return text or include your response in a tool call.'
        return await _request_node(ctx, [RetryPromptPart(message)])


def _check_finish_reason(response: ModelResponse, settings: ModelSettings | None) -> None:
    """Raise the error upstream raises for an empty response that the token limit or a content filter stopped."""
    if response.finish_reason == 'length':
        raise UnexpectedModelBehavior(
            f'Model token limit ({_max_tokens(settings)}) exceeded before any response was generated. Increase the '
            '`max_tokens` model setting, or simplify the prompt to result in a shorter response that will fit '
            'within the limit.'
        )
    if response.finish_reason == 'content_filter':
        body = ModelMessagesTypeAdapter.dump_json([response]).decode()
        raise ContentFilterError(f"Content filter triggered. Finish reason: '{response.finish_reason}'", body=body)


def _last_text(history: Sequence[ModelMessage]) -> str:
    """The text of the latest response of the history that has some."""
    for message in reversed(history):
        if isinstance(message, ModelResponse):
            if text := ''.join(part.content for part in message.parts if isinstance(part, TextPart)):
                return text
    return ''


async def _request_node(
    ctx: AgentGraphRunContext[DepsT], parts: Sequence[ModelRequestPart]
) -> ModelRequestNode[DepsT, NodeRunEndT]:
    """The node sending the next request, with the instructions for it (as upstream, made as it is built)."""
    instructions = await ctx.deps.get_instructions(ctx.deps.run_context(ctx.state))
    return ModelRequestNode(ModelRequest(parts=list(parts), instructions=instructions))


def _no_flush() -> None:
    pass


def _results_in_call_order(
    sink: Callable[[HandleResponseEvent], None], calls: Sequence[ToolCallPart]
) -> tuple[Callable[[HandleResponseEvent], None], Callable[[], None]]:
    """A sink that holds back tool results, and a flush that sends them in the order of the response's calls."""
    order = {call.tool_call_id: index for index, call in enumerate(calls)}
    held: list[FunctionToolResultEvent] = []

    def hold(event: HandleResponseEvent) -> None:
        if isinstance(event, FunctionToolResultEvent):
            held.append(event)
        else:
            sink(event)

    def flush() -> None:
        for event in sorted(held, key=lambda e: order.get(e.tool_call_id, len(order))):
            sink(event)

    return hold, flush


async def _no_events() -> AsyncIterator[HandleResponseEvent]:
    return
    yield  # pragma: no cover


async def _received_events(
    receive: MemoryObjectReceiveStream[HandleResponseEvent],
) -> AsyncIterator[HandleResponseEvent]:
    async for event in receive:
        yield event


def _next_request(parts: list[ModelRequestPart], state: GraphAgentState) -> ModelRequest:
    return ModelRequest(parts=parts, timestamp=_utils.now_utc(), run_id=state.run_id)


def merge_adjacent_messages(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """The messages with each run of adjacent requests, and of adjacent responses, merged into one message.

    As upstream: requests merge when at most one of them has instructions, or both have the same; the merged
    request keeps them, has the later timestamp, no run id, and its tool results and retry prompts before its
    other parts.
    Responses merge only when none of them names a model, a provider or a provider response id (responses a
    model did not produce). The result is a new list: the messages given are not changed.
    """
    merged: list[ModelMessage] = []
    for message in messages:
        last = merged[-1] if merged else None
        if isinstance(last, ModelResponse) and isinstance(message, ModelResponse) and _unattributed(last, message):
            merged[-1] = dataclasses.replace(last, parts=[*last.parts, *message.parts])
        elif isinstance(last, ModelRequest) and isinstance(message, ModelRequest) and _can_merge(last, message):
            merged[-1] = _merge_requests(last, message)
        else:
            merged.append(message)
    return merged


def _merge_requests(first: ModelRequest, second: ModelRequest) -> ModelRequest:
    parts = sorted(
        [*first.parts, *second.parts], key=lambda part: not isinstance(part, ToolReturnPart | RetryPromptPart)
    )
    return ModelRequest(
        parts=parts,
        instructions=second.instructions if second.instructions is not None else first.instructions,
        timestamp=second.timestamp or first.timestamp,
    )


def _can_merge(first: ModelRequest, second: ModelRequest) -> bool:
    return first.instructions is None or second.instructions is None or first.instructions == second.instructions


def _unattributed(*responses: ModelResponse) -> bool:
    return all(r.model_name is None and r.provider_name is None and r.provider_response_id is None for r in responses)


@asynccontextmanager
async def stream_run(
    agent_run: AgentRun[Any, Any], handler: EventStreamHandler[Any] | None
) -> AsyncIterator[StreamedRunResult[Any, Any]]:
    """Drive a run until a response starts the final result, and yield a result streaming that response.

    Requests are streamed; a response that does not start the final result is read to its end and handled like
    in `run`. If the run ends without such a response (the final result came from the tool-call stage), the
    result holds the finished run instead.
    """
    ctx: AgentGraphRunContext[Any] = agent_run.ctx
    state, deps = ctx.state, ctx.deps
    node = agent_run.next_node
    while not isinstance(node, End):
        if isinstance(node, ModelRequestNode):
            request_node: ModelRequestNode[Any, Any] = node
            async with request_node._open_stream(ctx) as stream:
                if await _stream_to_final_result(stream, handler, deps.run_context(state)):
                    result = StreamedRunResult[Any, Any](
                        state.message_history,
                        deps.new_message_index,
                        stream,
                        on_complete=partial(_complete_streamed_response, ctx, request_node, stream),
                    )
                    try:
                        yield result
                    finally:
                        with anyio.CancelScope(shield=True):
                            await result._close()
                    return
            request_node._finish_stream(ctx, stream)
        elif isinstance(node, CallToolsNode) and handler is not None:
            async with node.stream(ctx) as events:
                await handler(deps.run_context(state), events)
        node = await agent_run.next(node)
    yield StreamedRunResult[Any, Any](state.message_history, deps.new_message_index, run_result=agent_run.result)


async def _stream_to_final_result(
    stream: AgentStream[Any, Any], handler: EventStreamHandler[Any] | None, run_context: RunContext[Any]
) -> bool:
    """Read the stream up to the event that starts the final result, passing the events to `handler`.

    Returns whether the final result started; if not, the stream was read to its end.
    """
    found = False

    async def until_final() -> AsyncGenerator[AgentStreamEvent, None]:
        nonlocal found
        async for event in stream:
            yield event
            if isinstance(event, FinalResultEvent):
                found = True
                return

    events = until_final()
    try:
        if handler is not None:
            await handler(run_context, events)
        # Whatever the handler did not read is read here.
        async for _ in events:
            pass
    finally:
        await events.aclose()
    return found


async def _complete_streamed_response(
    ctx: AgentGraphRunContext[Any],
    node: ModelRequestNode[Any, Any],
    stream: AgentStream[Any, Any],
    response: ModelResponse,
) -> None:
    """Finish a run whose final result was streamed: record the response, then handle its other tool calls."""
    state = ctx.state
    node._result = node._finish(ctx, response, request_counted=True)
    output = await stream.get_output()
    _otel.record_streamed_output(ctx.deps.instrumentation, output)
    final = stream._raw_stream_response.final_result_event
    assert final is not None, 'a streamed run ends at a final result'
    calls = response.tool_calls
    parts: list[ModelRequestPart] = []
    if final.tool_name is not None:
        # The output tool call was validated while streaming; it is acknowledged, not processed again.
        output_call = _find_call(response, final.tool_name, final.tool_call_id)
        calls = [call for call in calls if call is not output_call]
        parts.append(ToolReturnPart(output_call.tool_name, _FINAL_RESULT_PROCESSED, output_call.tool_call_id))
    elif isinstance(output, DeferredToolRequests):
        # The calls that must wait are the output itself.
        waiting = {call.tool_call_id for call in [*output.calls, *output.approvals]}
        calls = [call for call in calls if call.tool_call_id not in waiting]
    batch = ToolCallBatch(calls, final_result=FinalResult(output, final.tool_name, final.tool_call_id))
    await run_tool_calls(batch, state, ctx.deps)
    parts.extend(batch.parts)
    if parts:
        state.message_history.append(_next_request(parts, state))


AgentNode: TypeAlias = (
    'UserPromptNode[DepsT, NodeRunEndT] | ModelRequestNode[DepsT, NodeRunEndT] | CallToolsNode[DepsT, NodeRunEndT]'
)
"""A node of the agent graph."""


@lru_cache(maxsize=64)
def build_agent_graph(name: str | None) -> Graph[GraphAgentState, GraphAgentDeps[Any, Any], FinalResult[Any]]:
    """The graph of the agent loop, named after the agent.

    A graph holds no run's state, so one per name serves every run; building it reads the nodes' type hints,
    which took a third of a short run.
    """
    return Graph[GraphAgentState, GraphAgentDeps[Any, Any], FinalResult[Any]](
        nodes=(UserPromptNode[Any, Any], ModelRequestNode[Any, Any], CallToolsNode[Any, Any]),
        name=name or 'Agent',
        state_type=GraphAgentState,
        run_end_type=FinalResult[Any],
        auto_instrument=False,
    )


class AgentGraphRun(Generic[DepsT, NodeRunEndT]):
    """Steps a run through the nodes of its agent graph: the part of pydantic-graph's `GraphRun` a run needs.

    `GraphRun.next` also snapshots every node into a state persistence, under a fresh uuid; an agent run never
    reads a snapshot back, and taking them was a quarter of the loop's own cost per step.
    """

    __slots__ = ('_started', 'deps', 'graph', 'next_node', 'state')

    def __init__(
        self,
        graph: Graph[GraphAgentState, GraphAgentDeps[Any, Any], FinalResult[Any]],
        start: AgentNode[DepsT, NodeRunEndT],
        state: GraphAgentState,
        deps: GraphAgentDeps[DepsT, NodeRunEndT],
    ) -> None:
        self.graph = graph
        self.state = state
        self.deps = deps
        self.next_node: AgentNode[DepsT, NodeRunEndT] | End[FinalResult[NodeRunEndT]] = start
        self._started = False

    @property
    def output(self) -> FinalResult[NodeRunEndT] | None:
        """The run's final result once it has reached `End`, else `None`."""
        node = self.next_node
        return node.data if isinstance(node, End) else None

    async def next(self, node: AgentNode[DepsT, NodeRunEndT]) -> AgentNode[DepsT, NodeRunEndT] | End[Any]:
        """Run `node` and return the node it leads to."""
        if not isinstance(node, BaseNode):  # pyright: ignore[reportUnnecessaryIsInstance] -- callers pass anything
            raise TypeError(f'`next` must be called with a `BaseNode` instance, got {node!r}.')
        if node.get_node_id() not in self.graph.node_defs:
            raise GraphRuntimeError(f'Node `{node}` is not in the graph.')
        self._started = True
        following = await node.run(GraphRunContext(state=self.state, deps=self.deps))
        if not isinstance(following, (BaseNode, End)):  # pyright: ignore[reportUnnecessaryIsInstance] -- user nodes
            raise GraphRuntimeError(
                f'Invalid node return type: `{type(following).__name__}`. Expected `BaseNode` or `End`.'
            )
        self.next_node = following
        return following

    async def __anext__(self) -> AgentNode[DepsT, NodeRunEndT] | End[Any]:
        """The start node first, then each node the one before leads to; stops after `End`."""
        if not self._started:
            self._started = True
            return self.next_node
        node = self.next_node
        if isinstance(node, End):
            raise StopAsyncIteration
        return await self.next(node)
