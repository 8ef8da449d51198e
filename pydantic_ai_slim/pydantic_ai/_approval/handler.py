"""Turn a per-call approval callback into a deferred tool handler.

The run calls a deferred tool handler once per model response, with every deferred call of that response.
`approval_handler` builds one from a much smaller function, the callback, which is asked about one call at
a time (`ApprovalRequest` in, `ApprovalDecision` out) and may be sync or async. The handler does the rest:

- calls marked `approval_policy='blocked'` are denied without asking, and the model is told why;
- a decision with `remember='session'` answers later calls of the same tool with the same arguments;
- a denial's note becomes the tool result the model sees, so it can change its plan;
- an optional `on_batch` hook sees the whole response's calls before the first question, so a UI can show
  them together.
"""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Literal, TypeAlias

from .. import DeferredToolRequests, DeferredToolResults, RunContext, ToolApproved, ToolDenied
from .._otel import DecidingPolicy, record_approval_policy
from ..messages import ToolCallPart
from .exceptions import ApprovalBlocked, ApprovalDenied
from .toolset import default_description

__all__ = (
    'ApprovalBatch',
    'ApprovalCallback',
    'ApprovalDecision',
    'ApprovalHandler',
    'ApprovalRecord',
    'ApprovalRequest',
    'ApprovalSession',
    'BatchEntry',
    'BatchHook',
    'DecisionSource',
    'ExternalCallHandler',
    'approval_handler',
    'blocked_note',
    'session_key',
)


# Which policy decided, as recorded in the trace of an instrumented run.
_DECIDING_POLICY: dict[str, DecidingPolicy] = {'blocked': 'blocked', 'remembered': 'remembered', 'ask': 'asked'}


@dataclass(frozen=True, kw_only=True)
class ApprovalRequest:
    """One deferred call, as the person deciding about it sees it."""

    tool_name: str
    """The tool the model wants to call."""
    tool_args: dict[str, Any]
    """The validated arguments of the call."""
    tool_call_id: str
    """The id of the call in the conversation."""
    description: str
    """What the call does, in words (`approval_description`, else the call written out)."""
    reason: str | None = None
    """Why it needs approval or is blocked (`approval_reason`), if known."""
    blocked: bool = False
    """Whether the policy blocks it (`approval_policy='blocked'`): it is denied without asking."""
    toolset_id: str | None = None
    """The toolset the call comes from (`toolset_id`), if known."""
    worker: str | None = None
    """The agent (worker) that made the call (`worker`), if known."""
    metadata: dict[str, Any] = field(default_factory=dict[str, Any])
    """All the metadata the tool attached to the call."""

    @classmethod
    def from_call(cls, call: ToolCallPart, metadata: Mapping[str, Any] | None = None) -> ApprovalRequest:
        """Build the request for `call` from the metadata it was deferred with."""
        meta = dict(metadata or {})
        args = call.args_as_dict()
        return cls(
            tool_name=call.tool_name,
            tool_args=args,
            tool_call_id=call.tool_call_id,
            description=_text(meta.get('approval_description')) or default_description(call.tool_name, args),
            reason=_text(meta.get('approval_reason')),
            blocked=meta.get('approval_policy') == 'blocked',
            toolset_id=_text(meta.get('toolset_id')),
            worker=_text(meta.get('worker')),
            metadata=meta,
        )


def blocked_note(request: ApprovalRequest) -> str:
    """What the model is told about a call the policy blocks: `Blocked: ` and the policy's reason."""
    return f'Blocked: {request.reason or "this call is not allowed."}'


def _text(value: object) -> str | None:
    return None if value is None else str(value)


@dataclass(frozen=True)
class ApprovalDecision:
    """The answer to an `ApprovalRequest`.

    A callback must return one of these; a bare `bool` is rejected so a denial always has a chance to
    say why.
    """

    approved: bool
    """Whether the call may run."""
    note: str | None = None
    """Why (for a denial, this is what the model is told)."""
    remember: Literal['session'] | None = None
    """`'session'` to give the same answer, without asking, to later calls of this tool with these arguments."""


ApprovalCallback: TypeAlias = Callable[[ApprovalRequest], ApprovalDecision | Awaitable[ApprovalDecision]]
"""Decides about one call; may be sync (e.g. `input()` at a terminal) or async."""

DecisionSource: TypeAlias = Literal['user', 'session', 'policy']
"""Who answered: the callback, a remembered decision, or the policy (a blocked call)."""


@dataclass(frozen=True)
class ApprovalRecord:
    """One answered call, kept in `ApprovalSession.history`."""

    request: ApprovalRequest
    """The call."""
    decision: ApprovalDecision
    """The answer."""
    source: DecisionSource
    """Who gave it."""


def session_key(tool_name: str, tool_args: Mapping[str, Any]) -> tuple[str, str]:
    """The key a remembered decision is stored under: the tool name and its arguments as canonical JSON.

    Keys are sorted and whitespace removed, so `{'a': 1, 'b': 2}` and `{'b': 2, 'a': 1}` match; values JSON
    cannot represent are compared by their `str()`.
    """
    return tool_name, json.dumps(tool_args, sort_keys=True, separators=(',', ':'), ensure_ascii=False, default=str)


@dataclass
class ApprovalSession:
    """What one handler remembers: decisions to reuse, and every decision made, in order."""

    remembered: dict[tuple[str, str], ApprovalDecision] = field(default_factory=dict[tuple[str, str], ApprovalDecision])
    """Decisions given with `remember='session'`, by `session_key`."""
    history: list[ApprovalRecord] = field(default_factory=list[ApprovalRecord])
    """Every answered call, in order, for audit logs and summaries."""

    def lookup(self, request: ApprovalRequest) -> ApprovalDecision | None:
        """The remembered decision for an identical earlier call, if any."""
        return self.remembered.get(session_key(request.tool_name, request.tool_args))

    def remember(self, request: ApprovalRequest, decision: ApprovalDecision) -> None:
        """Reuse `decision` for later calls identical to `request`."""
        self.remembered[session_key(request.tool_name, request.tool_args)] = decision


@dataclass(frozen=True)
class BatchEntry:
    """A call of a batch and how it will be answered."""

    request: ApprovalRequest
    """The call."""
    status: Literal['ask', 'blocked', 'remembered']
    """`'ask'` if the callback will be asked; otherwise the answer is already known."""
    decision: ApprovalDecision | None = None
    """The known answer of a blocked or remembered call."""


@dataclass(frozen=True)
class ApprovalBatch:
    """All the approvals of one model response, given to `on_batch` before any question is asked."""

    run_step: int
    """The run step of the model response."""
    entries: tuple[BatchEntry, ...]
    """The calls, in the order the model made them."""

    @property
    def to_ask(self) -> tuple[ApprovalRequest, ...]:
        """The calls the callback will be asked about."""
        return tuple(entry.request for entry in self.entries if entry.status == 'ask')


BatchHook: TypeAlias = Callable[[ApprovalBatch], None | Awaitable[None]]
"""Sees each batch before its questions, e.g. to display it (sync or async)."""

ExternalCallHandler: TypeAlias = Callable[[ToolCallPart], Any]
"""Produces the result of an external (not approval) deferred call."""


async def _resolve(value: object) -> object:
    return await value if inspect.isawaitable(value) else value


def _not_handled(call: ToolCallPart) -> str:
    return f'The external tool `{call.tool_name}` cannot be run here: no one is set up to handle it.'


@dataclass
class ApprovalHandler:
    """A deferred tool handler that asks a per-call callback; build it with `approval_handler`."""

    callback: ApprovalCallback
    """Asked about each call that is neither blocked nor remembered."""
    _: KW_ONLY
    session: ApprovalSession = field(default_factory=ApprovalSession)
    """Remembered decisions and the history; share one between handlers to share what is remembered."""
    on_batch: BatchHook | None = None
    """Called with each batch before its first question."""
    raise_on_deny: bool = False
    """Raise `ApprovalDenied`/`ApprovalBlocked` (ending the run) instead of telling the model."""
    external_call: ExternalCallHandler = _not_handled
    """Answers external calls (`DeferredToolRequests.calls`), which need a result too."""

    async def __call__(self, ctx: RunContext[Any], requests: DeferredToolRequests) -> DeferredToolResults:
        """Answer every deferred call of one model response."""
        batch = ApprovalBatch(
            run_step=ctx.run_step,
            entries=tuple(
                self._triage(ApprovalRequest.from_call(call, requests.metadata.get(call.tool_call_id)))
                for call in requests.approvals
            ),
        )
        if self.on_batch is not None:
            await _resolve(self.on_batch(batch))
        results = DeferredToolResults(context=dict(requests.context))
        for entry in batch.entries:
            results.approvals[entry.request.tool_call_id] = await self._answer(entry)
        for call in requests.calls:
            results.calls[call.tool_call_id] = self.external_call(call)
        return results

    def _triage(self, request: ApprovalRequest) -> BatchEntry:
        if request.blocked:
            return BatchEntry(request, 'blocked', ApprovalDecision(approved=False, note=blocked_note(request)))
        remembered = self.session.lookup(request)
        if remembered is not None:
            return BatchEntry(request, 'remembered', remembered)
        return BatchEntry(request, 'ask')

    async def _answer(self, entry: BatchEntry) -> ToolApproved | ToolDenied:
        request = entry.request
        started = time.monotonic()
        if entry.decision is not None:
            source: DecisionSource = 'policy' if entry.status == 'blocked' else 'session'
            decision = entry.decision
        else:
            source, decision = 'user', await self._ask(request)
        waited = time.monotonic() - started
        record_approval_policy(request.tool_name, request.tool_call_id, _DECIDING_POLICY[entry.status], waited)
        self.session.history.append(ApprovalRecord(request, decision, source))
        if decision.approved:
            return ToolApproved()
        if self.raise_on_deny:
            if source == 'policy':
                raise ApprovalBlocked(request.tool_name, request.reason or '')
            raise ApprovalDenied(request.tool_name, decision)
        return ToolDenied(decision.note) if decision.note else ToolDenied()

    async def _ask(self, request: ApprovalRequest) -> ApprovalDecision:
        # Typed as `object`: callbacks written without type checking may return anything, e.g. a bare bool.
        answer = await _resolve(self.callback(request))
        if not isinstance(answer, ApprovalDecision):
            raise TypeError(
                f'The approval callback must return an `ApprovalDecision`, not {type(answer).__name__!r}: '
                'return e.g. `ApprovalDecision(approved=True)` or `ApprovalDecision(approved=False, note=...)`.'
            )
        if answer.remember == 'session':
            self.session.remember(request, answer)
        return answer


def approval_handler(
    callback: ApprovalCallback,
    *,
    session: ApprovalSession | None = None,
    on_batch: BatchHook | None = None,
    raise_on_deny: bool = False,
    external_call: ExternalCallHandler | None = None,
) -> ApprovalHandler:
    """Build a deferred tool handler from a per-call approval callback.

    Pass the result as `Agent(..., deferred_tool_handler=...)` or to a run. It is an `ApprovalHandler`, so
    its `session` (remembered decisions and history) stays reachable.

    Args:
        callback: Decides about one call at a time; sync or async; must return an `ApprovalDecision`.
        session: Where decisions are remembered and recorded; a new one by default.
        on_batch: Sees each model response's calls together before the first question (sync or async).
        raise_on_deny: End the run with `ApprovalDenied`/`ApprovalBlocked` instead of telling the model.
        external_call: Produces results for external deferred calls; by default the model is told they
            cannot be run.
    """
    return ApprovalHandler(
        callback,
        session=session if session is not None else ApprovalSession(),
        on_batch=on_batch,
        raise_on_deny=raise_on_deny,
        external_call=external_call if external_call is not None else _not_handled,
    )
