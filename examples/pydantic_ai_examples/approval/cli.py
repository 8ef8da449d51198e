"""The interactive approval demo: an agent frees port 8080 on a simulated machine, asking before it acts.

Run it with `python -m pydantic_ai_examples.approval` (or `make demo`). Read-only tools run on their own;
each model response's calls that change the machine are shown together and answered one by one:
yes, no (with an optional reason the model is told), yes for the rest of the session, or yes to everything
left in this batch. Blocked calls are shown but never asked about. The model sees every result and plans
its next step in the same run.

The answering logic is `TerminalApprover` (shipped with the package, where `Agent.to_cli()` uses it too), a
per-call callback turned into a deferred tool handler by `approval_handler`. Without a terminal on stdin the demo exits at once unless `--answers` scripts the
session; Ctrl-C at a prompt stops it cleanly (exit code 130).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import shutil
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any, TextIO, cast

from pydantic_ai import Agent, CallToolsNode, ModelRequestNode
from pydantic_ai._approval.handler import ApprovalHandler
from pydantic_ai._approval.terminal import ScriptedAnswers, TerminalApprover, call_text
from pydantic_ai.exceptions import AgentRunError, UserError
from pydantic_ai.messages import ModelRequest, ModelResponse, RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models import Model, infer_model
from pydantic_ai.run import AgentRun
from pydantic_graph import End

from .machine import MACHINE_CONFIG, Machine, MachineToolset
from .scripted import TASK, scripted_model
from .toolset import ApprovalToolset
from .trace import trace_to_file

__all__ = (
    'NO_TTY_MESSAGE',
    'Display',
    'ScriptedAnswers',
    'Summary',
    'TerminalApprover',
    'build_agent',
    'main',
    'run_task',
    'summarize',
)

NO_TTY_MESSAGE = (
    'This demo asks you to approve tool calls, but stdin is not a terminal, so nobody could answer.\n'
    'Run it in a terminal, or script the answers, e.g. --answers y,n:too risky,s,a\n'
    '(y = yes, n = no, n:REASON = no and tell the model why, s = yes for this session,\n'
    'a = yes to the rest of the batch).'
)
"""Printed to stderr when there is no terminal and no `--answers`."""

INSTRUCTIONS = (
    'You are a careful system administrator working on a Linux machine through tools. Investigate before you '
    'act, prefer the gentlest action that works, and verify the result. Some calls need a person to approve '
    'them: if one is denied or blocked, respect that and adapt (a gentler option, or ask the user).'
)


def build_agent(model: Model) -> Agent[Machine, str]:
    """The demo's agent: the machine's tools behind an `ApprovalToolset` with the machine's policy."""
    toolset = ApprovalToolset[Machine](MachineToolset(), config=MACHINE_CONFIG)
    return Agent(
        model,
        deps_type=Machine,
        instructions=INSTRUCTIONS,
        toolsets=[toolset],
    )


class Display:
    """Prints the run as it goes: the model's words, its calls, their results, and a spinner while it thinks."""

    def __init__(self, out: TextIO, *, spinner: bool) -> None:
        """Print to `out`; animate a spinner while the model works if `spinner`."""
        self.out = out
        self.spinner = spinner
        self.steps = 0
        self.not_run: dict[str, str] = {}
        """Tool call ids that were denied or blocked, with the word to show for them."""

    def line(self, text: str = '') -> None:
        """Print a line and flush, so a pseudo-terminal sees it at once."""
        self.out.write(text + '\n')
        self.out.flush()

    async def follow(self, run: AgentRun[Any, Any]) -> None:
        """Drive `run` node by node, showing each step."""
        node = run.next_node
        while not isinstance(node, End):
            if isinstance(node, ModelRequestNode):
                self.request(node.request)
                with self.thinking():
                    node = await run.next(node)
            else:
                if isinstance(node, CallToolsNode):
                    self.response(node.model_response)
                node = await run.next(node)

    def request(self, request: ModelRequest) -> None:
        """Show the tool results being sent to the model."""
        for part in request.parts:
            if isinstance(part, ToolReturnPart):
                mark = self.not_run.get(part.tool_call_id, '←')
                self.line(f'   {mark} {part.tool_name}: {_brief(part.content)}')
            elif isinstance(part, RetryPromptPart) and part.tool_name:
                self.line(f'   ! {part.tool_name}: {_brief(part.content)}')

    def response(self, response: ModelResponse) -> None:
        """Show what the model said and which tools it called."""
        self.steps += 1
        for part in response.parts:
            if isinstance(part, TextPart) and part.content:
                self.line(f'\n[{self.steps}] model: {part.content}')
            elif isinstance(part, ToolCallPart):
                self.line(f'   → {call_text(part.tool_name, part.args_as_dict())}')

    @contextmanager
    def thinking(self) -> Iterator[None]:
        """Animate a spinner while the model works (only on a terminal)."""
        if not self.spinner:
            yield
            return
        stop = threading.Event()
        thread = threading.Thread(target=self._spin, args=(stop,), daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()

    def _spin(self, stop: threading.Event) -> None:
        for frame in itertools.cycle('⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏'):
            self.out.write(f'\r{frame} model is thinking…')
            self.out.flush()
            if stop.wait(0.08):
                break
        self.out.write('\r\x1b[K')
        self.out.flush()


def _brief(content: object, width: int = 110) -> str:
    if isinstance(content, list):
        # A list of records (e.g. listening ports) reads best as one record per `;`, values only.
        rows = cast(list[object], content)
        content = '; '.join(
            ' '.join(map(str, cast(dict[str, object], row).values())) if isinstance(row, dict) else str(row)
            for row in rows
        )
    text = content if isinstance(content, str) else json.dumps(content, default=str)
    text = ' '.join(text.split())
    return text if len(text) <= width else text[: width - 1] + '…'


@dataclass
class Summary:
    """The counts shown at the end."""

    steps: int
    """Model responses."""
    asked: int
    """Questions put to the person."""
    approved: int
    """Calls approved, by any means."""
    remembered: int
    """Of those, approved by a remembered decision."""
    denied: int
    """Calls denied by the person (or a remembered denial)."""
    blocked: int
    """Calls blocked by policy, never asked about."""

    def __str__(self) -> str:
        return (
            f'Summary: steps {self.steps}, approvals asked {self.asked}, approved {self.approved} '
            f'({self.remembered} remembered), denied {self.denied}, blocked {self.blocked}.'
        )


async def run_task(
    agent: Agent[Machine, str], task: str, machine: Machine, handler: ApprovalHandler, display: Display
) -> str:
    """Run the task to its final answer in one run; `handler` answers the approvals as they come up."""
    async with agent.iter(task, deps=machine, deferred_tool_handler=handler) as run:
        await display.follow(run)
    assert run.result is not None, 'a followed run ends with a result'
    return run.result.output


def summarize(display: Display, approver: TerminalApprover, handler: ApprovalHandler) -> Summary:
    """Count what happened from the handler's history."""
    history = handler.session.history
    return Summary(
        steps=display.steps,
        asked=approver.asked,
        approved=sum(record.decision.approved for record in history),
        remembered=sum(record.decision.approved and record.source == 'session' for record in history),
        denied=sum(not record.decision.approved and record.source != 'policy' for record in history),
        blocked=sum(record.source == 'policy' for record in history),
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog='python -m pydantic_ai_examples.approval',
        description='An agent frees a port on a simulated machine, asking you before each risky step.',
    )
    parser.add_argument(
        '--model',
        help='a model name for `infer_model`, e.g. openai:gpt-4o, openai-responses:gpt-5 or '
        'anthropic:claude-sonnet-4-5 (default: scripted)',
    )
    parser.add_argument('--answers', help='scripted answers, e.g. y,n:too risky,s,a (no terminal needed)')
    parser.add_argument('--task', help=f'what to ask the agent (default: {TASK!r}, with --mcp: read notes)')
    parser.add_argument(
        '--mcp',
        action='store_true',
        help='use the real MCP filesystem server (node) in a sandbox directory instead of the simulated machine',
    )
    parser.add_argument('--delay', type=float, default=0.4, help='seconds the scripted model "thinks" per step')
    parser.add_argument(
        '--trace', metavar='FILE', help="write the session's trace (OpenTelemetry spans) to FILE as JSON lines"
    )
    return parser


async def _demo(args: argparse.Namespace, out: TextIO) -> int:
    if args.mcp:
        return await _mcp_demo(args, out)
    args.task = args.task or TASK
    try:
        model = infer_model(args.model) if args.model else scripted_model(args.delay)
    except (UserError, ValueError) as exc:
        print(f'Cannot use model {args.model!r}: {exc}', file=sys.stderr)
        return 1
    display = Display(out, spinner=out.isatty())
    scripted = ScriptedAnswers.parse(args.answers) if args.answers is not None else None
    approver = TerminalApprover(display, scripted)
    handler = approver.handler()
    machine = Machine()
    display.line(f'Task: {args.task}\nModel: {model.model_name} (simulated machine: nothing real is touched)')
    agent = build_agent(model)
    if args.trace:
        agent.instrument = trace_to_file(args.trace)
    try:
        await run_task(agent, args.task, machine, handler, display)
    except (AgentRunError, UserError) as exc:
        # A real model can fail (no API key, network, limits): say so instead of showing a traceback.
        print(f'\nThe run stopped: {exc}', file=sys.stderr)
        return 1
    display.line(f'\nPort 8080 on the simulated machine: {_port_state(machine)}.')
    display.line(str(summarize(display, approver, handler)))
    if args.trace:
        display.line(f'Trace written to {args.trace} (one span per line, as JSON).')
    return 0


async def _mcp_demo(args: argparse.Namespace, out: TextIO) -> int:
    # Imported here, so the machine demo runs without the `mcp` extra.
    from .mcp_demo import MCP_TASK, build_mcp_agent, filesystem_server, mcp_scripted_model, new_sandbox

    try:
        model = infer_model(args.model) if args.model else mcp_scripted_model(args.delay)
        sandbox = new_sandbox()
        server = filesystem_server(sandbox)
    except (UserError, ValueError, FileNotFoundError) as exc:
        print(f'Cannot start the MCP demo: {exc}', file=sys.stderr)
        return 1
    task = args.task or MCP_TASK
    display = Display(out, spinner=out.isatty())
    scripted = ScriptedAnswers.parse(args.answers) if args.answers is not None else None
    approver = TerminalApprover(display, scripted)
    handler = approver.handler()
    display.line(f'Task: {task}\nModel: {model.model_name} (MCP filesystem server, sandbox {sandbox})')
    try:
        async with build_mcp_agent(model, server).iter(task, deferred_tool_handler=handler) as run:
            await display.follow(run)
        files = ', '.join(sorted(path.name for path in sandbox.iterdir()))
        display.line(f'\nThe sandbox held at the end: {files} (now removed).')
    except (AgentRunError, UserError) as exc:
        print(f'\nThe run stopped: {exc}', file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(sandbox)
    display.line(str(summarize(display, approver, handler)))
    return 0


def _port_state(machine: Machine) -> str:
    holder = machine.port_holder(8080)
    return 'free' if holder is None else f'held by PID {holder.pid}'


def _interrupt(signum: int, frame: FrameType | None) -> None:
    # A handler of our own, not `signal.default_int_handler`, so asyncio does not install its own, which only
    # cancels the run and lets a blocking `input()` wait on: Ctrl-C at a prompt must stop at once.
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the demo; returns the exit code (2 without a terminal or answers, 130 on Ctrl-C)."""
    args = _parser().parse_args(argv)
    if args.answers is None and not sys.stdin.isatty():
        print(NO_TTY_MESSAGE, file=sys.stderr)
        return 2
    previous = signal.signal(signal.SIGINT, _interrupt)
    try:
        return asyncio.run(_demo(args, out or sys.stdout))
    except KeyboardInterrupt:
        print('\nInterrupted: stopped without running anything else.', file=sys.stderr)
        return 130
    except EOFError:
        print('\nInput closed: stopped without running anything else.', file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGINT, previous)
