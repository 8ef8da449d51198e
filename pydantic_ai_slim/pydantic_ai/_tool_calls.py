"""The tool-call stage of a step: sorts a response's calls, runs them, and collects the calls that must wait.

Output tool calls give the final result; function tool calls run concurrently (one at a time if any of
them is `sequential`); calls of unknown tools become retry prompts. Calls that cannot run now - tools that
are external or need approval by definition, and calls that raised `CallDeferred` / `ApprovalRequired` -
are gathered in `ToolCallBatch.deferred`: the single place where deferred calls are collected, for the
run's output, the resume flow and a deferred tool handler alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

import anyio

from ._errors import ToolRetryError
from .exceptions import ApprovalRequired, CallDeferred, UserError
from .messages import ModelRequestPart, ToolCallPart, ToolReturn, ToolReturnPart, UserPromptPart
from .result import FinalResult
from .tools import DeferredToolRequests

if TYPE_CHECKING:
    from ._agent_graph import GraphAgentDeps, GraphAgentState

__all__ = ('DeferredCall', 'ToolCallBatch', 'run_tool_calls')

_FINAL_RESULT_PROCESSED = 'Final result processed.'
_OUTPUT_TOOL_NOT_USED = 'Output tool not used - a final result was already processed.'
_TOOL_NOT_EXECUTED = 'Tool not executed - a final result was already processed.'


@dataclass
class DeferredCall:
    """A call that cannot run now: it is external, or it needs approval."""

    call: ToolCallPart
    """The tool call."""
    kind: Literal['external', 'unapproved']
    """Whether its result comes from outside (`'external'`) or it waits for approval (`'unapproved'`)."""
    metadata: dict[str, Any] | None = None
    """Metadata from `CallDeferred` / `ApprovalRequired`."""


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
    final_result: FinalResult[Any] | None = None
    """The final result, if an output tool call gave one."""

    @property
    def parts(self) -> list[ModelRequestPart]:
        """All result parts, in the order they go into the next request."""
        ordered_functions = [self.function_parts[i] for i in sorted(self.function_parts)]
        user_parts = [self.user_content_by_index[i] for i in sorted(self.user_content_by_index)]
        return [*self.output_parts, *ordered_functions, *self.unknown_parts, *user_parts]


async def run_tool_calls(batch: ToolCallBatch, state: GraphAgentState, deps: GraphAgentDeps[Any, Any]) -> None:
    """Handle every call of the batch; afterwards `batch` holds the parts, deferred calls and final result."""
    tool_manager = deps.tool_manager
    output_calls: list[ToolCallPart] = []
    function_calls: list[tuple[int, ToolCallPart]] = []
    by_definition: list[DeferredCall] = []
    for index, call in enumerate(batch.calls):
        tool_def = tool_manager.get_tool_def(call.tool_name)
        if tool_def is None:
            batch.unknown_parts.append(tool_manager.unknown_tool_retry(call))
            state.increment_retries(deps.max_result_retries)
        elif tool_def.kind == 'output':
            output_calls.append(call)
        elif tool_def.kind in ('external', 'unapproved'):
            by_definition.append(DeferredCall(call, tool_def.kind))
        else:
            function_calls.append((index, call))

    await _process_output_calls(batch, output_calls, state, deps)
    if batch.final_result is not None and deps.end_strategy == 'early':
        for index, call in function_calls:
            batch.function_parts[index] = ToolReturnPart(call.tool_name, _TOOL_NOT_EXECUTED, call.tool_call_id)
        by_definition_skipped = [
            ToolReturnPart(d.call.tool_name, _TOOL_NOT_EXECUTED, d.call.tool_call_id) for d in by_definition
        ]
        batch.unknown_parts[:0] = by_definition_skipped
        return
    await _run_function_calls(batch, function_calls, state, deps)
    batch.deferred.extend(by_definition)
    if batch.deferred and batch.final_result is None:
        batch.final_result = _deferred_final_result(batch, deps)


async def _process_output_calls(
    batch: ToolCallBatch, calls: list[ToolCallPart], state: GraphAgentState, deps: GraphAgentDeps[Any, Any]
) -> None:
    run_context = deps.run_context(state)
    for call in calls:
        if batch.final_result is not None and deps.end_strategy == 'early':
            batch.output_parts.append(ToolReturnPart(call.tool_name, _OUTPUT_TOOL_NOT_USED, call.tool_call_id))
            continue
        try:
            output = await deps.output_schema.process_tool_call(
                call, replace(run_context, tool_call_id=call.tool_call_id, tool_name=call.tool_name)
            )
            for validator in deps.output_validators:
                output = await validator.validate(output, run_context, tool_call=call)
        except ToolRetryError as e:
            batch.output_parts.append(e.tool_retry)
            if batch.final_result is None:
                state.increment_retries(deps.max_result_retries, e)
            continue
        batch.output_parts.append(ToolReturnPart(call.tool_name, _FINAL_RESULT_PROCESSED, call.tool_call_id))
        if batch.final_result is None:
            batch.final_result = FinalResult(output, call.tool_name, call.tool_call_id)


async def _run_function_calls(
    batch: ToolCallBatch,
    calls: list[tuple[int, ToolCallPart]],
    state: GraphAgentState,
    deps: GraphAgentDeps[Any, Any],
) -> None:
    if not calls:
        return
    projected = replace(state.usage, tool_calls=state.usage.tool_calls + len(calls))
    deps.usage_limits.check_before_tool_call(projected)
    tool_manager = deps.tool_manager
    sequential = any(
        (tool_def := tool_manager.get_tool_def(call.tool_name)) is not None and tool_def.sequential for _, call in calls
    )
    raised: dict[int, DeferredCall] = {}
    errors: list[BaseException] = []

    async def run_one(index: int, call: ToolCallPart) -> None:
        try:
            await _run_function_call(batch, index, call, state, deps, raised)
        except Exception as e:  # Re-raised below, so the caller sees the tool's own exception, not a group.
            errors.append(e)

    if sequential:
        for index, call in calls:
            await run_one(index, call)
            if errors:
                break
    else:
        async with anyio.create_task_group() as tg:
            for index, call in calls:
                tg.start_soon(run_one, index, call)
    if errors:
        raise errors[0]
    batch.deferred.extend(raised[i] for i in sorted(raised))


async def _run_function_call(
    batch: ToolCallBatch,
    index: int,
    call: ToolCallPart,
    state: GraphAgentState,
    deps: GraphAgentDeps[Any, Any],
    raised: dict[int, DeferredCall],
) -> None:
    try:
        result = await deps.tool_manager.handle_call(call)
    except ToolRetryError as e:
        batch.function_parts[index] = e.tool_retry
        return
    except CallDeferred as e:
        raised[index] = DeferredCall(call, 'external', e.metadata)
        return
    except ApprovalRequired as e:
        raised[index] = DeferredCall(call, 'unapproved', e.metadata)
        return
    state.usage.tool_calls += 1
    part, user_content = tool_result_parts(call, result)
    batch.function_parts[index] = part
    if user_content is not None:
        batch.user_content_by_index[index] = user_content


def tool_result_parts(call: ToolCallPart, result: Any) -> tuple[ToolReturnPart, UserPromptPart | None]:
    """The tool return part for a tool's result, and the user prompt part for a `ToolReturn`'s extra content."""
    if isinstance(result, ToolReturn):
        part = ToolReturnPart(call.tool_name, result.return_value, call.tool_call_id, metadata=result.metadata)
        content = UserPromptPart(result.content) if result.content is not None else None
        return part, content
    return ToolReturnPart(call.tool_name, result, call.tool_call_id), None


def _deferred_final_result(batch: ToolCallBatch, deps: GraphAgentDeps[Any, Any]) -> FinalResult[Any]:
    if not deps.output_schema.allows_deferred_tool_requests:
        raise UserError(
            'A deferred tool call was present, but `DeferredToolRequests` is not among output types. To resolve '
            'this, add `DeferredToolRequests` to the list of output types for this agent.'
        )
    requests = DeferredToolRequests()
    for deferred in batch.deferred:
        target = requests.calls if deferred.kind == 'external' else requests.approvals
        target.append(deferred.call)
        if deferred.metadata is not None:
            requests.metadata[deferred.call.tool_call_id] = deferred.metadata
    return FinalResult(requests)
