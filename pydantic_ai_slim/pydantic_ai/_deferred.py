"""Resolving deferred tool calls: matching answers to calls, then running, denying or filling them in.

A call is deferred when its tool needs approval or runs elsewhere. Its answer comes back in a
`DeferredToolResults`, either in a later run (the resume flow: `run(message_history=...,
deferred_tool_results=...)`) or from a deferred tool handler within the same run. Both paths come here:

1. Matching pairs each call with its `Answer`, checking that every call has one and no answer is for a call
   that does not exist. `match_deferred` does this for the deferred calls of a tool-call batch (the
   handler); `check_resume` and `resume` for the unanswered calls of the history's last response.
2. `resolve` turns the answers into result parts: approved calls run (concurrently), denials become the
   denial message, external results become tool returns or retry prompts, and a call whose tool delegated
   nested deferred calls runs again with their answers. A call that defers again is handed back. Each result
   is announced with a `FunctionToolResultEvent` to a node that streams its events.

`handle_deferred` is the handler's entry point: it asks the run's deferred tool handler for the answers of a
batch's deferred calls and resolves them; `resume` is the resume flow's.

Nested calls are listed under composite ids `'{parent_id}::{child_id}'` (see `DeferredCall.add_to`); here
those ids are split again, so that each parent gets a `DeferredToolResults` of its own, keyed by its own ids.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any, TypeAlias, cast

import anyio.lowlevel

from . import _otel, _utils
from ._run_context import RunContext
from ._tool_calls import (
    NESTED_ID_SEPARATOR,
    DeferredCall,
    ToolCallBatch,
    _emit,
    any_sequential,
    deferred_final_result,
    deferred_tool_requests,
    execute_call,
    run_concurrently,
    tool_result_parts,
)
from .exceptions import ModelRetry, UserError
from .messages import (
    DeferredToolRequestsEvent,
    DeferredToolResultsEvent,
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
    UserContent,
    UserPromptPart,
)
from .result import FinalResult
from .tools import DeferredToolHandler, DeferredToolRequests, DeferredToolResults, ToolApproved, ToolDenied

if TYPE_CHECKING:
    from ._agent_graph import GraphAgentDeps, GraphAgentState

__all__ = (
    'Answer',
    'Approved',
    'Denied',
    'ExternalResult',
    'NestedResults',
    'Resolution',
    'check_answers',
    'check_handler',
    'check_resume',
    'handle_deferred',
    'match_deferred',
    'resolve',
    'resolve_deferred_calls',
    'response_to_resume',
    'resume',
)


@dataclass
class Approved:
    """Run the call, as approved."""

    override_args: dict[str, Any] | None = None
    """Arguments to run it with instead of the model's."""
    metadata: Any = None
    """The call's `DeferredToolResults.metadata` entry: the tool's `ctx.tool_call_metadata`."""
    context: Any = None
    """The call's `DeferredToolResults.context` entry: the tool's `ctx.tool_call_context`."""


@dataclass
class Denied:
    """Do not run the call; the model is told `message` as its result."""

    message: str
    """The denial message."""


@dataclass
class ExternalResult:
    """The call's result, produced elsewhere."""

    value: Any
    """A plain value, a `ToolReturn`, a `ModelRetry` or a `RetryPromptPart`."""


@dataclass
class NestedResults:
    """The answers to a call's nested deferred calls: the call runs again with them."""

    results: DeferredToolResults
    """The answers, keyed by the nested calls' own ids: the tool's `ctx.deferred_tool_results`."""
    metadata: Any = None
    """The parent call's `DeferredToolResults.metadata` entry: the tool's `ctx.tool_call_metadata`."""
    context: Any = None
    """The parent call's `DeferredToolResults.context` entry: the tool's `ctx.tool_call_context`."""


Answer: TypeAlias = Approved | Denied | ExternalResult | NestedResults
"""What to do with one deferred call."""


@dataclass
class Resolution:
    """What came of resolving deferred calls."""

    parts: list[ModelRequestPart] = field(default_factory=list[ModelRequestPart])
    """One result part per call that got a result, in the order the calls were given."""
    user_parts: list[UserPromptPart] = field(default_factory=list[UserPromptPart])
    """Extra user content from `ToolReturn` results, in the same order; it goes after all result parts."""
    deferred: list[DeferredCall] = field(default_factory=list[DeferredCall])
    """Calls that were deferred again (an approved call raising `ApprovalRequired` or `CallDeferred`, or a
    parent delegating more nested calls), in the order the calls were given."""


# Matching.


def _answer(call_id: str, results: DeferredToolResults) -> Answer:
    # As upstream, a result in `calls` wins over an approval for the same id.
    if call_id in results.calls:
        return ExternalResult(results.calls[call_id])
    if call_id in results.approvals:
        approval = results.approvals[call_id]
        if isinstance(approval, bool):
            approval = ToolApproved() if approval else ToolDenied()
        if isinstance(approval, ToolDenied):
            return Denied(approval.message)
        return Approved(approval.override_args, results.metadata.get(call_id), results.context.get(call_id))
    nested = _nested_results(call_id, results)
    assert nested is not None, 'the completeness check leaves no call without an answer'
    return NestedResults(nested, results.metadata.get(call_id), results.context.get(call_id))


def _nested_results(call_id: str, results: DeferredToolResults) -> DeferredToolResults | None:
    """The answers under composite ids `'{call_id}::...'`, keyed by what follows the prefix, if there are any."""
    prefix = call_id + NESTED_ID_SEPARATOR

    def strip(entries: dict[str, Any]) -> dict[str, Any]:
        return {key[len(prefix) :]: value for key, value in entries.items() if key.startswith(prefix)}

    nested = DeferredToolResults(
        calls=strip(results.calls),
        approvals=strip(results.approvals),
        metadata=strip(results.metadata),
        context=strip(results.context),
    )
    return nested if nested.calls or nested.approvals else None


def _check_approval_values(results: DeferredToolResults) -> None:
    """Refuse an approval that is not a `bool`, `ToolApproved` or `ToolDenied`, before any call of the batch runs."""
    for call_id, approval in results.approvals.items():
        # The results come from user code (a handler, a deserialised form), whose values are not checked at run time.
        if not isinstance(approval, bool | ToolApproved | ToolDenied):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(
                f'The approval for tool call {call_id!r} must be `True`, `False`, `ToolApproved(...)` or '
                f'`ToolDenied(...)`, not {approval!r}: set `DeferredToolResults.approvals[{call_id!r}]` to one of '
                'those.'
            )


def _incomplete(expected: set[str], got: set[str]) -> UserError:
    return UserError(
        f'Tool call results need to be provided for all deferred tool calls. Expected: {expected}, got: {got}'
    )


def match_deferred(deferred: Sequence[DeferredCall], results: DeferredToolResults) -> list[tuple[ToolCallPart, Answer]]:
    """Pair the deferred calls of a tool-call batch with their answers, for a deferred tool handler.

    `results` must answer exactly the ids of `DeferredToolRequests` built from `deferred` (nested calls under
    their composite ids). Context that `results` leaves out is taken from the calls themselves, since the
    handler runs in the same process.

    Raises:
        UserError: If an id is missing or unknown, an external call is approved or denied, or a call that
            needs approval is given a result.
    """
    _check_answers({call_id: kind for d in deferred for call_id, kind in _listed_ids(d)}, results)
    return [(d.call, _handler_answer(d, results)) for d in deferred]


def check_answers(requests: DeferredToolRequests, results: DeferredToolResults) -> None:
    """Check that `results` answer exactly the calls of `requests`, each in the right way, as a handler's must.

    For answers that arrive from elsewhere (a durable handler's inbox) and are checked before they reach the run.

    Raises:
        UserError: As `match_deferred`.
    """
    expected = {call.tool_call_id: 'external' for call in requests.calls}
    expected.update({call.tool_call_id: 'unapproved' for call in requests.approvals})
    _check_answers(expected, results)


def _check_answers(expected: dict[str, str], results: DeferredToolResults) -> None:
    got = {*results.calls, *results.approvals}
    if got != set(expected):
        raise _incomplete(set(expected), got)
    _check_approval_values(results)
    for call_id, kind in expected.items():
        if kind == 'external' and call_id in results.approvals and call_id not in results.calls:
            raise UserError(
                f'Tool call {call_id!r} is an external call: give its result in `DeferredToolResults.calls`, '
                'not an approval.'
            )
        if kind == 'external' and call_id in results.approvals:
            raise UserError(
                f'Tool call {call_id!r} is an external call, which cannot be approved or denied: remove it from '
                '`DeferredToolResults.approvals` and give only its result, in `DeferredToolResults.calls`.'
            )
        if kind == 'unapproved' and call_id in results.calls:
            raise UserError(
                f'Tool call {call_id!r} needs approval: answer it in `DeferredToolResults.approvals`, '
                'not with a result.'
            )


def _listed_ids(deferred: DeferredCall) -> list[tuple[str, str]]:
    """The ids the call is listed under in `DeferredToolRequests`, with the kind of each."""
    if deferred.nested is None:
        return [(deferred.call.tool_call_id, deferred.kind)]
    prefix = deferred.call.tool_call_id + NESTED_ID_SEPARATOR
    return [(prefix + c.tool_call_id, 'external') for c in deferred.nested.calls] + [
        (prefix + c.tool_call_id, 'unapproved') for c in deferred.nested.approvals
    ]


def _handler_answer(deferred: DeferredCall, results: DeferredToolResults) -> Answer:
    call_id = deferred.call.tool_call_id
    context = results.context.get(call_id, deferred.context)
    if deferred.nested is None:
        answer = _answer(call_id, results)
        return replace(answer, context=context) if isinstance(answer, Approved) else answer
    nested = _nested_results(call_id, results)
    assert nested is not None, 'every listed id has an answer'
    nested.context = {**deferred.nested.context, **nested.context}
    return NestedResults(nested, results.metadata.get(call_id), context)


# The resume flow.


def response_to_resume(
    history: Sequence[ModelMessage],
    results: DeferredToolResults | None,
    user_prompt: str | Sequence[UserContent] | None,
) -> ModelResponse | None:
    """The response of the history that a run continues from, instead of sending a new request; or `None`.

    With `results`, that is the last response, whose unanswered calls they answer. Without, a history that
    ends with a response and no new prompt continues by handling that response.

    Raises:
        UserError: If `results` do not fit the history (see `check_resume`), or a new prompt is given over a
            response whose tool calls have no results.
    """
    if results is not None:
        return check_resume(history, results)[0]
    last = history[-1] if history else None
    if user_prompt is not None and _has_open_calls(history):
        raise UserError('Cannot provide a new user prompt when the message history contains unprocessed tool calls.')
    if isinstance(last, ModelResponse) and user_prompt is None:
        return last
    return None


def _has_open_calls(history: Sequence[ModelMessage]) -> bool:
    """Whether the history's last response has tool calls that the requests after it do not all answer."""
    index = next((i for i in reversed(range(len(history))) if isinstance(history[i], ModelResponse)), None)
    if index is None:
        return False
    response = cast(ModelResponse, history[index])
    answered = _answered_ids(response, history[index + 1 :])
    return any(call.tool_call_id not in answered for call in response.tool_calls)


def check_resume(
    history: Sequence[ModelMessage], results: DeferredToolResults
) -> tuple[ModelResponse, list[tuple[ToolCallPart, Answer]]]:
    """The history's last response and its unanswered calls paired with their answers in `results`.

    Raises:
        UserError: If the history is empty, has no response, or has no unanswered calls; if `results` answer a
            call that already has a result; or if they leave a call unanswered or answer an unknown id.
    """
    if not history:
        raise UserError('Tool call results were provided, but the message history is empty.')
    index = next((i for i in reversed(range(len(history))) if isinstance(history[i], ModelResponse)), None)
    if index is None:
        raise UserError('Tool call results were provided, but the message history does not contain a `ModelResponse`.')
    response = cast(ModelResponse, history[index])
    answered = _answered_ids(response, history[index + 1 :])
    pending = [call for call in response.tool_calls if call.tool_call_id not in answered]
    if not pending:
        raise UserError(
            'Tool call results were provided, but the message history does not contain any unprocessed tool calls.'
        )
    _check_approval_values(results)
    expected = [call.tool_call_id for call in response.tool_calls]
    given = [_call_id_of(key, expected) for key in [*results.approvals, *results.calls]]
    for call_id in given:
        if call_id in answered:
            raise UserError(f'Tool call {call_id!r} was already executed and its result cannot be overridden.')
    if set(expected) != answered | set(given):
        raise _incomplete(set(expected), answered | set(given))
    return response, [(call, _answer(call.tool_call_id, results)) for call in pending]


def _answered_ids(response: ModelResponse, requests: Sequence[ModelMessage]) -> set[str]:
    """The ids of the response's calls that the requests after it already answer."""
    call_ids = {call.tool_call_id for call in response.tool_calls}
    return {
        part.tool_call_id
        for message in requests
        for part in message.parts
        if isinstance(part, ToolReturnPart | RetryPromptPart) and part.tool_call_id in call_ids
    }


def _call_id_of(key: str, call_ids: Sequence[str]) -> str:
    """The call a results key answers: the key itself, or the parent of a composite id."""
    if key in call_ids:
        return key
    return next((call_id for call_id in call_ids if key.startswith(call_id + NESTED_ID_SEPARATOR)), key)


async def resume(
    response: ModelResponse,
    results: DeferredToolResults,
    user_prompt: str | Sequence[UserContent] | None,
    state: GraphAgentState,
    deps: GraphAgentDeps[Any, Any],
) -> ModelRequest | FinalResult[Any]:
    """Resolve the unanswered calls of the history's last response with `results`.

    Returns the request to send next: the result parts in upstream's order (function tools, unknown tools,
    external tools, tools that need approval), then extra user content, then the new prompt. If calls are
    deferred again, the parts that did resolve are added to the history and the run ends with
    `DeferredToolRequests` for the others (the new prompt is dropped, as upstream does).

    `deps.tool_manager` must have listed the tools of the current step.

    Raises:
        UserError: As `check_resume`; also if an external tool's call is approved.
    """
    _, pairs = check_resume(state.message_history, results)
    _otel.record_resume(deps.instrumentation, [call for call, _ in pairs], results, response.timestamp)
    pairs.sort(key=lambda pair: _resume_rank(pair[0], deps))
    known = sum(deps.tool_manager.get_tool_def(call.tool_name) is not None for call, _ in pairs)
    deps.usage_limits.check_before_tool_call(replace(state.usage, tool_calls=state.usage.tool_calls + known))
    with _otel.tools_span(deps.instrumentation, [call for call, _ in pairs]):
        resolution = await resolve(pairs, state, deps, announce=True)
    parts: list[ModelRequestPart] = [*resolution.parts, *resolution.user_parts]
    if resolution.deferred:
        order = {id(call): index for index, call in enumerate(response.tool_calls)}
        resolution.deferred.sort(key=lambda d: order[id(d.call)])
        final = deferred_final_result(resolution.deferred, deps)
        if parts:
            state.message_history.append(ModelRequest(parts=parts, timestamp=_utils.now_utc(), run_id=state.run_id))
        return final
    if user_prompt is not None:
        parts.append(UserPromptPart(user_prompt))
    return ModelRequest(parts=parts)


def _resume_rank(call: ToolCallPart, deps: GraphAgentDeps[Any, Any]) -> int:
    tool_def = deps.tool_manager.get_tool_def(call.tool_name)
    if tool_def is None:
        return 1
    return {'external': 2, 'unapproved': 3}.get(tool_def.kind, 0)


# The deferred tool handler.


def check_handler(handler: DeferredToolHandler[Any] | None) -> DeferredToolHandler[Any] | None:
    """Return `handler` if it is a callable or `None`.

    Raises:
        TypeError: If it is anything else, so that a wrong value fails where it is given, not in the run.
    """
    # The value comes from user code, whose type is not checked at run time.
    if handler is not None and not callable(handler):
        raise TypeError(
            '`deferred_tool_handler` must be a function taking `(ctx, requests)` and returning '
            f'`DeferredToolResults` (sync or async), or `None`; got {handler!r}.'
        )
    return handler


async def handle_deferred(batch: ToolCallBatch, state: GraphAgentState, deps: GraphAgentDeps[Any, Any]) -> None:
    """Have the run's deferred tool handler answer the batch's deferred calls, and resolve them into the batch.

    The results go to `batch.resolved_parts` and `batch.resolved_user_parts`. If calls are deferred again, the
    batch's final result ends the run with `DeferredToolRequests` for them; the calls that did run stay run.

    Raises:
        UserError: If the handler's results do not answer exactly the batch's deferred calls (see
            `match_deferred`), or calls are deferred again and `DeferredToolRequests` is not an output type.
    """
    handler = deps.deferred_tool_handler
    assert handler is not None, 'only a run with a deferred tool handler keeps deferred calls in the batch'
    requests = deferred_tool_requests(batch.deferred)
    _emit(deps, DeferredToolRequestsEvent(requests))
    results = await _otel.audited_handler_call(
        deps.instrumentation, requests, _ask(handler, deps.run_context(state), requests)
    )
    _emit(deps, DeferredToolResultsEvent(results))
    resolution = await resolve_deferred_calls(batch.deferred, results, batch.calls, state, deps)
    if resolution.deferred:
        batch.final_result = deferred_final_result(resolution.deferred, deps)
    batch.resolved_parts = resolution.parts
    batch.resolved_user_parts = resolution.user_parts


async def _ask(
    handler: DeferredToolHandler[Any], ctx: RunContext[Any], requests: DeferredToolRequests
) -> DeferredToolResults:
    # A sync handler may block (on `input()`, say): it runs in a worker thread, so the event loop carries on.
    # The thread cannot be interrupted, so an anyio cancellation (`move_on_after`, a cancelled task group) that
    # arrives meanwhile waits for it to return; the checkpoint then raises it before anything of the answer is
    # used, so no call of the batch runs. A native asyncio cancellation (`task.cancel()`, `asyncio.wait_for`)
    # is raised at once and the thread's answer is dropped when it comes.
    results = (
        handler(ctx, requests)
        if _utils.is_async_callable(handler)
        else await _utils.run_in_executor(handler, ctx, requests)
    )
    if inspect.isawaitable(results):
        results = await results
    await anyio.lowlevel.checkpoint_if_cancelled()
    # The handler is user code, whose return type is not checked at run time (a forgotten `return` gives `None`).
    if not isinstance(results, DeferredToolResults):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise UserError(
            f'The deferred tool handler must return a `DeferredToolResults`, not {type(results).__name__!r}.'
        )
    return results


# Resolving.


async def resolve_deferred_calls(
    deferred: Sequence[DeferredCall],
    results: DeferredToolResults,
    calls: Sequence[ToolCallPart],
    state: GraphAgentState,
    deps: GraphAgentDeps[Any, Any],
) -> Resolution:
    """Resolve the deferred calls of a tool-call batch with a handler's `results`, in the order of `calls`.

    `calls` are the response's calls; the resolution lists its parts (and any calls deferred again) in their
    order, so they can follow the batch's other results.

    Raises:
        UserError: As `match_deferred`; also if an external tool's call is approved.
    """
    order = {id(call): index for index, call in enumerate(calls)}
    pairs = sorted(match_deferred(deferred, results), key=lambda pair: order[id(pair[0])])
    to_run = sum(isinstance(answer, Approved | NestedResults) for _, answer in pairs)
    deps.usage_limits.check_before_tool_call(replace(state.usage, tool_calls=state.usage.tool_calls + to_run))
    with _otel.tools_span(deps.instrumentation, [call for call, _ in pairs]):
        return await resolve(pairs, state, deps)


async def resolve(
    pairs: Sequence[tuple[ToolCallPart, Answer]],
    state: GraphAgentState,
    deps: GraphAgentDeps[Any, Any],
    *,
    announce: bool = False,
) -> Resolution:
    """Resolve each call with its answer; calls to run are run concurrently (in turn if a tool is sequential).

    Args:
        pairs: The calls and their answers.
        state: The run's state.
        deps: The run's dependencies.
        announce: Whether to emit a `FunctionToolCallEvent` for each call first (the resume flow; a handler's
            calls were announced when their response was handled).

    Raises:
        UserError: If an external tool's call is approved: the agent cannot run it.
    """
    _check_runnable(pairs, deps)
    if announce:
        for call, _ in pairs:
            _emit(deps, FunctionToolCallEvent(call))
    outcomes: list[Resolution] = [Resolution() for _ in pairs]
    to_run: list[int] = []
    for index, (call, answer) in enumerate(pairs):
        if isinstance(answer, Denied):
            outcomes[index].parts.append(ToolReturnPart(call.tool_name, answer.message, call.tool_call_id))
        elif isinstance(answer, ExternalResult):
            _fill_external(outcomes[index], call, answer.value)
        else:
            to_run.append(index)
            continue
        _announce_result(deps, outcomes[index])
    await _run_all(pairs, to_run, outcomes, state, deps)
    resolution = Resolution()
    for outcome in outcomes:
        resolution.parts.extend(outcome.parts)
        resolution.user_parts.extend(outcome.user_parts)
        resolution.deferred.extend(outcome.deferred)
    return resolution


def _announce_result(deps: GraphAgentDeps[Any, Any], outcome: Resolution) -> None:
    """Emit the `FunctionToolResultEvent` of a call's result, if it got one (a call deferred again did not)."""
    if not outcome.parts:
        return
    part = outcome.parts[-1]
    assert isinstance(part, ToolReturnPart | RetryPromptPart), 'the result of a deferred call is a return or a retry'
    content = outcome.user_parts[-1].content if outcome.user_parts else None
    _emit(deps, FunctionToolResultEvent(part, content=content))


def _check_runnable(pairs: Sequence[tuple[ToolCallPart, Answer]], deps: GraphAgentDeps[Any, Any]) -> None:
    for call, answer in pairs:
        tool_def = deps.tool_manager.get_tool_def(call.tool_name)
        if isinstance(answer, Approved | NestedResults) and tool_def is not None and tool_def.kind == 'external':
            raise UserError('External tools cannot be called')


def _fill_external(outcome: Resolution, call: ToolCallPart, value: Any) -> None:
    if isinstance(value, ModelRetry):
        outcome.parts.append(RetryPromptPart(value.message, tool_name=call.tool_name, tool_call_id=call.tool_call_id))
    elif isinstance(value, RetryPromptPart):
        # The part is about this call, whatever name and id it was made with.
        outcome.parts.append(replace(value, tool_name=call.tool_name, tool_call_id=call.tool_call_id))
    else:
        part, user_part = tool_result_parts(call, value, external=True)
        outcome.parts.append(part)
        if user_part is not None:
            outcome.user_parts.append(user_part)


async def _run_all(
    pairs: Sequence[tuple[ToolCallPart, Answer]],
    to_run: list[int],
    outcomes: list[Resolution],
    state: GraphAgentState,
    deps: GraphAgentDeps[Any, Any],
) -> None:
    jobs = [partial(_run_call, outcomes[index], *pairs[index], state, deps) for index in to_run]
    await run_concurrently(jobs, sequential=any_sequential(deps, [pairs[index][0] for index in to_run]))


async def _run_call(
    outcome: Resolution, call: ToolCallPart, answer: Answer, state: GraphAgentState, deps: GraphAgentDeps[Any, Any]
) -> None:
    await _fill_by_running(outcome, call, answer, state, deps)
    _announce_result(deps, outcome)


async def _fill_by_running(
    outcome: Resolution, call: ToolCallPart, answer: Answer, state: GraphAgentState, deps: GraphAgentDeps[Any, Any]
) -> None:
    tool_manager = deps.tool_manager
    if tool_manager.get_tool_def(call.tool_name) is None:
        state.increment_retries(deps.max_result_retries, model_settings=deps.settings)
        outcome.parts.append(tool_manager.unknown_tool_retry(call))
        return
    if isinstance(answer, Approved):
        to_run = call if answer.override_args is None else replace(call, args=answer.override_args)
        ran = await execute_call(
            call, state, deps, run_as=to_run, approved=True, metadata=answer.metadata, context=answer.context
        )
    else:
        assert isinstance(answer, NestedResults), 'only approved and nested calls are run'
        # As every call run with answers, a parent run again with the answers to its nested calls is approved.
        ran = await execute_call(
            call,
            state,
            deps,
            approved=True,
            metadata=answer.metadata,
            context=answer.context,
            deferred_tool_results=answer.results,
        )
    if ran.deferred is not None:
        outcome.deferred.append(ran.deferred)
        return
    assert ran.part is not None, 'a call that was not deferred has a result'
    outcome.parts.append(ran.part)
    if ran.user_part is not None:
        outcome.user_parts.append(ran.user_part)
