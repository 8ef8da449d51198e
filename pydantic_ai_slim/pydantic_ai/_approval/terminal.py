"""Answering approvals at a terminal: show each batch of calls, then ask about each call that needs a decision.

`TerminalApprover` is a per-call callback for `approval_handler` plus an `on_batch` hook. It prints through
an `ApprovalDisplay` and reads answers with a `read` function (`input` by default), so the approval demo and
`Agent.to_cli()` share it while rendering differently. Answers: `y` yes, `n` no (then an optional reason the
model is told, or `n:REASON` in one go), `s` yes for the rest of the session, `a` yes to the rest of the batch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from .handler import ApprovalBatch, ApprovalDecision, ApprovalHandler, ApprovalRequest, BatchEntry, approval_handler

__all__ = ('LEGEND', 'ApprovalDisplay', 'ScriptedAnswers', 'TerminalApprover', 'call_text')

LEGEND = 'y = yes, n = no (then an optional reason), s = yes for this session, a = yes to the rest of the batch'
"""The answers a terminal approver understands, shown under each batch."""


def call_text(tool_name: str, args: dict[str, Any]) -> str:
    """A call written out as in Python, e.g. `kill_process(pid=4242, signal='TERM')`."""
    return f'{tool_name}({", ".join(f"{key}={value!r}" for key, value in args.items())})'


class ApprovalDisplay(Protocol):
    """Where a `TerminalApprover` prints."""

    not_run: dict[str, str]
    """Tool call ids that were denied or blocked, with the mark to show next to their results."""

    def line(self, text: str = '') -> None:
        """Print one line."""
        ...


@dataclass
class ScriptedAnswers:
    """Answers given up front (e.g. `--answers`), used in order; once they run out, calls are denied."""

    answers: list[str]
    """The remaining answers."""

    @classmethod
    def parse(cls, text: str) -> ScriptedAnswers:
        """Split `y,n:reason,s,a` into answers; a reason may not contain a comma."""
        return cls([answer.strip() for answer in text.split(',') if answer.strip()])

    def next(self) -> str | None:
        """The next answer, or `None` when none is left."""
        return self.answers.pop(0) if self.answers else None


@dataclass
class TerminalApprover:
    """Shows each batch of approvals, then asks about each call that needs a decision."""

    display: ApprovalDisplay
    """Where batches and prompts are shown."""
    scripted: ScriptedAnswers | None = None
    """Answers to use instead of asking."""
    read: Callable[[str], str] = input
    """Reads one answer after printing a prompt (`input` by default)."""
    asked: int = 0
    """How many calls were asked about (a call answered after a retry counts once)."""
    _approve_rest: bool = field(default=False, repr=False)

    def show_batch(self, batch: ApprovalBatch) -> None:
        """Show every approval of the model's response together, before the first question."""
        self._approve_rest = False
        count = len(batch.to_ask)
        self.display.line(f'\n   ── {len(batch.entries)} call(s) need a decision, {count} to answer ──')
        for number, entry in enumerate(batch.entries, start=1):
            self._show_entry(number, entry)
        if count:
            self.display.line(f'   ({LEGEND})')

    def _show_entry(self, number: int, entry: BatchEntry) -> None:
        request = entry.request
        self.display.line(f'   {number}. {call_text(request.tool_name, request.tool_args)}')
        self.display.line(f'      {request.description}')
        if entry.decision is not None and not entry.decision.approved:
            self.display.not_run[request.tool_call_id] = '✗'
        if entry.status == 'blocked':
            self.display.line(f'      BLOCKED: {request.reason} (denied without asking)')
        elif entry.status == 'remembered' and entry.decision is not None:
            verdict = 'approved' if entry.decision.approved else 'denied'
            self.display.line(f'      remembered for this session: {verdict}')
        elif request.reason:
            self.display.line(f'      needs approval: {request.reason}')

    def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        """Ask about one call (or use the scripted answer) and turn the answer into a decision."""
        if self._approve_rest:
            self.display.line(f'   {request.tool_name}: approved (all in this batch)')
            return ApprovalDecision(approved=True, note='Approved with the rest of the batch.')
        decision = self._decision(request)
        if not decision.approved:
            self.display.not_run[request.tool_call_id] = '✗'
        return decision

    def _decision(self, request: ApprovalRequest) -> ApprovalDecision:
        answer = self._answer(f'   Approve {request.tool_name}? [y/n/s/a] ')
        if answer is None:
            self.display.line('   (no scripted answer left: denied)')
            return ApprovalDecision(approved=False, note='Denied: no answer was given for this call.')
        self.asked += 1
        decision = self._parse(answer)
        while decision is None:
            self.display.line(f'   Please answer y, n, s or a ({answer!r} is not one of them).')
            answer = self._answer(f'   Approve {request.tool_name}? [y/n/s/a] ')
            if answer is None:
                return ApprovalDecision(approved=False, note='Denied: no valid answer was given for this call.')
            decision = self._parse(answer)
        return decision

    def _parse(self, answer: str) -> ApprovalDecision | None:
        choice, _, reason = answer.partition(':')
        choice = choice.strip().lower()
        if choice in ('y', 'yes'):
            return ApprovalDecision(approved=True)
        if choice in ('s', 'session'):
            return ApprovalDecision(approved=True, remember='session')
        if choice in ('a', 'all'):
            self._approve_rest = True
            return ApprovalDecision(approved=True, note='Approved with the rest of the batch.')
        if choice in ('n', 'no'):
            return self._denial(reason.strip())
        return None

    def _denial(self, reason: str) -> ApprovalDecision:
        if not reason and self.scripted is None:
            reason = self.read('   Reason for the model (optional, Enter to skip): ').strip()
        return ApprovalDecision(
            approved=False, note=f'Denied by the user: {reason}' if reason else 'Denied by the user.'
        )

    def _answer(self, prompt: str) -> str | None:
        if self.scripted is None:
            return self.read(prompt)
        answer = self.scripted.next()
        if answer is not None:
            self.display.line(f'{prompt}{answer}')
        return answer

    def handler(self) -> ApprovalHandler:
        """This approver as a deferred tool handler."""
        return approval_handler(self.decide, on_batch=self.show_batch)
