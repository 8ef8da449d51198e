"""The tool-call stage of a step: sorts a response's calls, runs them, and collects the calls that must wait.

Output tool calls give the final result; function tool calls run concurrently (one at a time if any of
them is `sequential`); calls of unknown tools become retry prompts. Calls that cannot run now - tools that
are external or need approval by definition, and calls that raised `CallDeferred` / `ApprovalRequired` -
are gathered in `ToolCallBatch.deferred`: the single place where deferred calls are collected, for the
run's output, the resume flow and a deferred tool handler alike. With a handler, the batch's deferred calls
do not end the run here: the tool node hands them to the handler.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, cast

import anyio
import anyio.lowlevel

from . import _otel
from ._errors import ToolRetryError
from ._tool_manager import current_parallel_execution_mode
from ._worker_threads import in_anyio_cancel_scope
from .exceptions import ApprovalRequired, CallDeferred, UserError
from .messages import (
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    HandleResponseEvent,
    ModelRequestPart,
    MultiModalContent,
    RetryPromptPart,
    ToolCallPart,
    ToolReturn,
    ToolReturnPart,
    UserContent,
    UserPromptPart,
)
from .result import FinalResult
from .tools import DeferredToolRequests, DeferredToolResults

if TYPE_CHECKING:
    from ._agent_graph import GraphAgentDeps, GraphAgentState

__all__ = (
    'NESTED_ID_SEPARATOR',
    'CallOutcome',
    'DeferredCall',
    'ToolCallBatch',
    'any_sequential',
    'deferred_final_result',
    'deferred_tool_requests',
    'execute_call',
    'run_concurrently',
    'run_tool_calls',
)

_FINAL_RESULT_PROCESSED = 'Final result processed.'
_OUTPUT_TOOL_NOT_USED = 'Output tool not used - a final result was already processed.'
_TOOL_NOT_EXECUTED = 'Tool not executed - a final result was already processed.'
_OUTPUT_FAILED_VALIDATION = 'Output tool not used - output failed validation.'


NESTED_ID_SEPARATOR = '::'
"""Joins a parent call's id and a nested call's id into the composite id the nested call is listed under."""


@dataclass
class DeferredCall:
    """A call that cannot run now: it is external, or it needs approval."""

    call: ToolCallPart
    """The tool call."""
    kind: Literal['external', 'unapproved']
    """Whether its result comes from outside (`'external'`) or it waits for approval (`'unapproved'`)."""
    metadata: dict[str, Any] | None = None
    """Metadata from `CallDeferred` / `ApprovalRequired`."""
    context: Any = None
    """Opaque state from `CallDeferred` / `ApprovalRequired`, given back to the tool when it is called again."""
    nested: DeferredToolRequests | None = None
    """The deferred calls of work the tool delegated (`CallDeferred(deferred_tool_requests=...)`): they are
    listed in place of the call, under composite ids, and their answers go to the tool when it is called again."""

    @classmethod
    def raised(cls, call: ToolCallPart, signal: CallDeferred | ApprovalRequired) -> DeferredCall:
        """The deferred call for a tool call that raised `CallDeferred` or `ApprovalRequired`."""
        if isinstance(signal, ApprovalRequired):
            return cls(call, 'unapproved', signal.metadata, signal.context)
        nested = signal.deferred_tool_requests
        if nested is not None and not (nested.calls or nested.approvals):
            # Nothing nested to answer: the call itself waits for its result, or it would never get one.
            nested = None
        return cls(call, 'external', signal.metadata, signal.context, nested)

    def add_to(self, requests: DeferredToolRequests) -> None:
        """List the call in `requests`, or, if it has nested calls, list those under composite ids."""
        call_id = self.call.tool_call_id
        if self.metadata is not None:
            requests.metadata[call_id] = self.metadata
        if self.context is not None:
            requests.context[call_id] = self.context
        if self.nested is None:
            (requests.calls if self.kind == 'external' else requests.approvals).append(self.call)
            return
        prefix = call_id + NESTED_ID_SEPARATOR
        requests.calls.extend(replace(c, tool_call_id=prefix + c.tool_call_id) for c in self.nested.calls)
        requests.approvals.extend(replace(c, tool_call_id=prefix + c.tool_call_id) for c in self.nested.approvals)
        requests.metadata.update({prefix + key: value for key, value in self.nested.metadata.items()})
        requests.context.update({prefix + key: value for key, value in self.nested.context.items()})


@dataclass
class ToolCallBatch:
    """The tool calls of one model response and what came of them."""

    calls: Sequence[ToolCallPart]
    """The calls, in the order the model made them."""
    output_parts: list[ModelRequestPart] = field(default_factory=list[ModelRequestPart])
    """Results of output tool calls."""
    function_parts: dict[int, ModelRequestPart] = field(default_factory=dict[int, ModelRequestPart])
    """Results of function tool calls, by the call's position in the response."""
    unknown_parts: list[ModelRequestPart] = field(default_factory=list[ModelRequestPart])
    """Retry prompts for calls of unknown tools."""
    user_content_by_index: dict[int, UserPromptPart] = field(default_factory=dict[int, UserPromptPart])
    """Extra user content by the call's position, before it is ordered."""
    deferred: list[DeferredCall] = field(default_factory=list[DeferredCall])
    """Calls that cannot run now: those that raised at run time first, then those deferred by definition."""
    resolved_parts: list[ModelRequestPart] = field(default_factory=list[ModelRequestPart])
    """Results of the deferred calls that a deferred tool handler resolved, in call order."""
    resolved_user_parts: list[UserPromptPart] = field(default_factory=list[UserPromptPart])
    """Extra user content from the `ToolReturn`s of those results."""
    final_result: FinalResult[Any] | None = None
    """The final result, if an output tool call gave one."""

    @property
    def parts(self) -> list[ModelRequestPart]:
        """All result parts, in the order they go into the next request."""
        ordered_functions = [self.function_parts[i] for i in sorted(self.function_parts)]
        user_parts = [self.user_content_by_index[i] for i in sorted(self.user_content_by_index)]
        return [
            *self.output_parts,
            *ordered_functions,
            *self.unknown_parts,
            *self.resolved_parts,
            *user_parts,
            *self.resolved_user_parts,
        ]


async def run_tool_calls(batch: ToolCallBatch, state: GraphAgentState, deps: GraphAgentDeps[Any, Any]) -> None:
    """Handle every call of the batch; afterwards `batch` holds the parts, deferred calls and final result."""
    tool_manager = deps.tool_manager
    output_calls: list[ToolCallPart] = []
    function_calls: list[tuple[int, ToolCallPart]] = []
    by_definition: list[DeferredCall] = []
    unknown: list[tuple[ToolCallPart, RetryPromptPart]] = []
    for index, call in enumerate(batch.calls):
        tool_def = tool_manager.get_tool_def(call.tool_name)
        if tool_def is None:
            # As upstream, a call of an unknown tool is an output retry first, then a retry of that tool name.
            state.increment_retries(deps.max_result_retries, model_settings=deps.settings)
            retry = tool_manager.unknown_tool_retry(call)
            batch.unknown_parts.append(retry)
            unknown.append((call, retry))
        elif tool_def.kind == 'output':
            output_calls.append(call)
        elif tool_def.kind in ('external', 'unapproved'):
            by_definition.append(DeferredCall(call, tool_def.kind))
        else:
            function_calls.append((index, call))

    await _process_output_calls(batch, output_calls, state, deps)
    if batch.final_result is not None and deps.end_strategy == 'early':
        _announce_calls(deps, [], unknown)
        for index, call in function_calls:
            batch.function_parts[index] = ToolReturnPart(call.tool_name, _TOOL_NOT_EXECUTED, call.tool_call_id)
        batch.unknown_parts.extend(_not_executed(d.call) for d in _by_kind(by_definition))
        return
    _announce_calls(deps, [call for _, call in function_calls], unknown)
    await _run_function_calls(batch, function_calls, state, deps)
    if batch.final_result is not None:
        _skip_deferred(batch, by_definition)
        return
    # As upstream, the calls of external tools are announced before those that need approval.
    for deferred in _by_kind(by_definition):
        _emit(deps, FunctionToolCallEvent(deferred.call))
    batch.deferred.extend(by_definition)
    if batch.deferred and deps.deferred_tool_handler is None:
        batch.final_result = deferred_final_result(batch.deferred, deps)


async def _process_output_calls(
    batch: ToolCallBatch, calls: list[ToolCallPart], state: GraphAgentState, deps: GraphAgentDeps[Any, Any]
) -> None:
    for call in calls:
        if batch.final_result is not None and deps.end_strategy == 'early':
            not_used = ToolReturnPart(call.tool_name, _OUTPUT_TOOL_NOT_USED, call.tool_call_id)
            batch.output_parts.append(not_used)
            _emit_call_and_result(deps, call, not_used)
            continue
        run_context = deps.tool_manager.output_call_ctx(call)
        try:
            output = await deps.output_schema.process_tool_call(call, run_context)
            for validator in deps.output_validators:
                output = await validator.validate(output, run_context, tool_call=call)
        except ToolRetryError as e:
            if batch.final_result is not None and run_context.retry >= run_context.max_retries:
                # A call past its retries does not fail a run that already has its output.
                not_used = ToolReturnPart(call.tool_name, _OUTPUT_FAILED_VALIDATION, call.tool_call_id)
                batch.output_parts.append(not_used)
                _emit_call_and_result(deps, call, not_used)
                continue
            deps.tool_manager.record_failure(call)
            batch.output_parts.append(e.tool_retry)
            _emit_call_and_result(deps, call, e.tool_retry)
            if batch.final_result is None:
                state.increment_retries(deps.max_result_retries, e, deps.settings)
            continue
        processed = ToolReturnPart(call.tool_name, _FINAL_RESULT_PROCESSED, call.tool_call_id)
        batch.output_parts.append(processed)
        if batch.final_result is None:
            batch.final_result = FinalResult(output, call.tool_name, call.tool_call_id)
        else:
            _emit_call_and_result(deps, call, processed)


async def _run_function_calls(
    batch: ToolCallBatch,
    calls: list[tuple[int, ToolCallPart]],
    state: GraphAgentState,
    deps: GraphAgentDeps[Any, Any],
) -> None:
    if not calls:
        return
    if deps.usage_limits.tool_calls_limit is not None:
        projected = replace(state.usage, tool_calls=state.usage.tool_calls + len(calls))
        deps.usage_limits.check_before_tool_call(projected)
    raised: dict[int, DeferredCall] = {}
    jobs = [partial(_run_function_call, batch, index, call, state, deps, raised) for index, call in calls]
    with _otel.tools_span(deps.instrumentation, [call for _, call in calls]):
        await run_concurrently(jobs, sequential=any_sequential(deps, [call for _, call in calls]))
    batch.deferred.extend(raised[i] for i in sorted(raised))


async def _run_function_call(
    batch: ToolCallBatch,
    index: int,
    call: ToolCallPart,
    state: GraphAgentState,
    deps: GraphAgentDeps[Any, Any],
    raised: dict[int, DeferredCall],
) -> None:
    outcome = await execute_call(call, state, deps)
    if outcome.deferred is not None:
        raised[index] = outcome.deferred
        return
    assert outcome.part is not None, 'a call that was not deferred has a result'
    batch.function_parts[index] = outcome.part
    if outcome.user_part is not None:
        batch.user_content_by_index[index] = outcome.user_part
    content = outcome.user_part.content if outcome.user_part is not None else None
    _emit(deps, FunctionToolResultEvent(outcome.part, content=content))


def any_sequential(deps: GraphAgentDeps[Any, Any], calls: Sequence[ToolCallPart]) -> bool:
    """Whether any of the calls is of a tool marked `sequential`, so that all of them must run one at a time."""
    tool_manager = deps.tool_manager
    if current_parallel_execution_mode() == 'sequential':
        return True
    return any((tool_def := tool_manager.get_tool_def(c.tool_name)) is not None and tool_def.sequential for c in calls)


async def run_concurrently(jobs: Sequence[Callable[[], Awaitable[None]]], *, sequential: bool) -> None:
    """Run the jobs concurrently, or one after another if `sequential`; the first error is raised as itself."""
    if sequential or len(jobs) == 1:
        # One job has nothing to run alongside: it runs in this task, sparing a task and a trip round the loop.
        for job in jobs:
            await job()
        return
    errors: list[Exception] = []

    async def run_one(job: Callable[[], Awaitable[None]]) -> None:
        try:
            await job()
        except Exception as e:  # Re-raised below, so the caller sees the tool's own exception, not a group.
            errors.append(e)

    async with anyio.create_task_group() as tg:
        for job in jobs:
            tg.start_soon(run_one, job)
    if errors:
        raise errors[0]


@dataclass
class CallOutcome:
    """What came of running one function tool call: its result part, or its deferral."""

    part: ToolReturnPart | RetryPromptPart | None = None
    """The result part, unless the call was deferred."""
    user_part: UserPromptPart | None = None
    """Extra user content from a `ToolReturn` result."""
    deferred: DeferredCall | None = None
    """The deferral, if the tool raised `CallDeferred` or `ApprovalRequired`."""


async def execute_call(
    call: ToolCallPart,
    state: GraphAgentState,
    deps: GraphAgentDeps[Any, Any],
    *,
    run_as: ToolCallPart | None = None,
    approved: bool = False,
    metadata: Any = None,
    context: Any = None,
    deferred_tool_results: DeferredToolResults | None = None,
) -> CallOutcome:
    """Validate and run one function tool call (as `run_as`, e.g. with overridden arguments, if given).

    A retry becomes its retry prompt, `CallDeferred` / `ApprovalRequired` a deferral, and a result its tool
    return part (counted in the run's usage).
    """
    # A cancellation that arrived while the loop waited on a worker thread (a sync handler or tool) is pending
    # until the next checkpoint: raise it before the tool starts, never after.
    if in_anyio_cancel_scope():
        await anyio.lowlevel.checkpoint_if_cancelled()
    try:
        handling = deps.tool_manager.handle_call(
            run_as or call,
            approved=approved,
            metadata=metadata,
            context=context,
            deferred_tool_results=deferred_tool_results,
        )
        result = await _otel.call_tool(deps.instrumentation, run_as or call, handling)
    except ToolRetryError as e:
        return CallOutcome(e.tool_retry)
    except (CallDeferred, ApprovalRequired) as e:
        return CallOutcome(deferred=DeferredCall.raised(call, e))
    state.usage.tool_calls += 1
    part, user_part = tool_result_parts(call, result)
    return CallOutcome(part, user_part)


# Events of the tool-call stage, for a `CallToolsNode` that streams them. The order is upstream's: the output
# calls that did not give the final result (each call with its result), then a call event for every function
# call about to run and every call of an unknown tool, the unknown tools' results, the function results as they
# come in, and last the calls that must wait for the user or an approval.


def _emit(deps: GraphAgentDeps[Any, Any], event: HandleResponseEvent) -> None:
    if deps.tool_event_sink is not None:
        deps.tool_event_sink(event)


def _emit_call_and_result(
    deps: GraphAgentDeps[Any, Any], call: ToolCallPart, result: ToolReturnPart | RetryPromptPart
) -> None:
    _emit(deps, FunctionToolCallEvent(call))
    _emit(deps, FunctionToolResultEvent(result))


def _announce_calls(
    deps: GraphAgentDeps[Any, Any],
    calls: Sequence[ToolCallPart],
    unknown: Sequence[tuple[ToolCallPart, RetryPromptPart]],
) -> None:
    for call in [*calls, *(call for call, _ in unknown)]:
        _emit(deps, FunctionToolCallEvent(call))
    for _, retry in unknown:
        _emit(deps, FunctionToolResultEvent(retry))


def tool_result_parts(
    call: ToolCallPart, result: Any, *, external: bool = False
) -> tuple[ToolReturnPart, UserPromptPart | None]:
    """The tool return part for a tool's result, and a user prompt part for what the model must see as user content.

    As upstream: a `ToolReturn`'s `content` becomes user content; files returned (alone or as items of a list) are
    replaced by `'See file {id}'` and sent as user content after `'This is file {id}:'`. A result produced
    elsewhere (`external`) is taken as a `ToolReturn`'s value.

    Raises:
        UserError: If a list holds a `ToolReturn`, or a `ToolReturn`'s value holds files.
    """
    if isinstance(result, ToolReturn) or external:
        tool_return = result if isinstance(result, ToolReturn) else ToolReturn(result)
        value = tool_return.return_value
        if isinstance(value, MultiModalContent) or (
            isinstance(value, list) and any(isinstance(item, MultiModalContent) for item in cast(list[Any], value))
        ):
            raise UserError(
                f'The `return_value` of tool {call.tool_name!r} contains invalid nested `MultiModalContent` objects. '
                'Please use `content` instead.'
            )
        part = ToolReturnPart(
            call.tool_name, tool_return.return_value, call.tool_call_id, metadata=tool_return.metadata
        )
        content = UserPromptPart(tool_return.content) if tool_return.content is not None else None
        return part, content
    items: list[Any] = cast(list[Any], result) if isinstance(result, list) else [result]
    if isinstance(result, list) and any(isinstance(item, ToolReturn) for item in items):
        raise UserError(
            f'The return value of tool {call.tool_name!r} contains invalid nested `ToolReturn` objects. '
            '`ToolReturn` should be used directly.'
        )
    files: list[UserContent] = []
    returned: list[Any] = []
    for item in items:
        if isinstance(item, MultiModalContent):
            files.extend([f'This is file {item.identifier}:', item])
            item = f'See file {item.identifier}'
        returned.append(item)
    if not files:
        return ToolReturnPart(call.tool_name, cast(Any, result), call.tool_call_id), None
    content = returned if isinstance(result, list) else returned[0]
    return ToolReturnPart(call.tool_name, content, call.tool_call_id), UserPromptPart(files)


def _skip_deferred(batch: ToolCallBatch, by_definition: list[DeferredCall]) -> None:
    # With the `'exhaustive'` strategy an output call can end the run beside deferred calls. They are not asked
    # about, but each still gets a result so that no call of the response is left unanswered: a call that raised
    # in its place among the function results, one deferred by definition after the unknown tools' (as with
    # `'early'`). Upstream gives a call that raised no result at all here; every call gets one (spec decision 9).
    positions = {id(call): index for index, call in enumerate(batch.calls)}
    for deferred in batch.deferred:
        batch.function_parts[positions[id(deferred.call)]] = _not_executed(deferred.call)
    batch.unknown_parts.extend(_not_executed(d.call) for d in _by_kind(by_definition))
    batch.deferred.clear()


def _by_kind(deferred: list[DeferredCall]) -> list[DeferredCall]:
    """Calls deferred by definition in upstream's order: external tools' calls, then those that need approval."""
    return sorted(deferred, key=lambda d: d.kind == 'unapproved')


def _not_executed(call: ToolCallPart) -> ToolReturnPart:
    return ToolReturnPart(call.tool_name, _TOOL_NOT_EXECUTED, call.tool_call_id)


def deferred_final_result(deferred: Sequence[DeferredCall], deps: GraphAgentDeps[Any, Any]) -> FinalResult[Any]:
    """End the run with `DeferredToolRequests` for these calls.

    Raises:
        UserError: If `DeferredToolRequests` is not among the run's output types.
    """
    if not deps.output_schema.allows_deferred_tool_requests:
        raise UserError(
            'A deferred tool call was present, but `DeferredToolRequests` is not among output types. To resolve '
            'this, add `DeferredToolRequests` to the list of output types for this agent.'
        )
    return FinalResult(deferred_tool_requests(deferred))


def deferred_tool_requests(deferred: Sequence[DeferredCall]) -> DeferredToolRequests:
    """The `DeferredToolRequests` listing these calls (nested ones under composite ids)."""
    requests = DeferredToolRequests()
    for call in deferred:
        call.add_to(requests)
    return requests
