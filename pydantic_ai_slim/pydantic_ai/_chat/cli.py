"""The terminal chat behind `Agent.to_cli()` and the `pai-chat` command.

Input is read with `prompt_toolkit` (history of the session, multi-line editing), output is rendered with `rich`
(a spinner while the model works, then its Markdown as it streams). Approvals are answered inline by the
approval toolkit's `TerminalApprover`, installed as the run's deferred tool handler when the agent has none.
Ctrl-C at an approval prompt denies the batch (nothing in it runs) and drops the turn; Ctrl-C or Ctrl-D at the
chat prompt, or `/exit`, ends the chat.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import importlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

try:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import InMemoryHistory
    from rich.console import Console, Group
    from rich.live import Live
    from rich.markdown import Markdown
    from rich.spinner import Spinner
    from rich.syntax import Syntax
    from rich.text import Text
except ImportError as _import_error:  # pragma: no cover - the extra is installed in the test environment
    raise ImportError(
        'The terminal chat needs `rich` and `prompt_toolkit`: install the `cli` extra, '
        'e.g. `pip install "pydantic-ai-slim[cli]"`.'
    ) from _import_error

import pydantic_core
from pydantic_graph import End

from .._agent_graph import CallToolsNode, ModelRequestNode
from .._approval.handler import ApprovalHandler
from .._approval.terminal import TerminalApprover, call_text
from ..agent import AbstractAgent, Agent
from ..exceptions import AgentRunError, UserError
from ..messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from ..models import KnownModelName, Model, infer_model
from ..run import AgentRun
from ..settings import ModelSettings
from ..usage import UsageLimits

__all__ = ('ChatSession', 'cli', 'run_chat')

_MULTILINE_HELP = 'Press [Meta+Enter] or [Esc] followed by [Enter] to accept input.'
_INTERRUPTED = (
    'Interrupted: the calls waiting for approval were denied and this turn was dropped. '
    'Press Ctrl-C again (or type /exit) to leave.'
)


class _TurnInterrupted(Exception):
    """Ctrl-C at an approval prompt: the batch is denied and the turn ends."""


@dataclass
class _Screen:
    """What the approver prints to: plain lines on the rich console."""

    console: Console
    not_run: dict[str, str] = field(default_factory=dict[str, str])

    def line(self, text: str = '') -> None:
        self.console.print(text, markup=False, highlight=False, soft_wrap=True)


@dataclass
class ChatSession:
    """One interactive chat with an agent: the conversation so far, the display settings, the approvals."""

    agent: AbstractAgent[Any, Any]
    """The agent to talk to."""
    prog_name: str = 'pydantic-ai'
    """Shown in the prompt."""
    deps: Any = None
    """The agent's dependencies, for every run."""
    message_history: list[ModelMessage] = field(default_factory=list[ModelMessage])
    """The conversation so far; each turn continues it."""
    model_settings: ModelSettings | None = None
    """Model settings for every run."""
    usage_limits: UsageLimits | None = None
    """Usage limits for every run."""
    model: Model | KnownModelName | str | None = None
    """The model for every run; `None` uses the agent's."""
    console: Console = field(default_factory=Console)
    """Where output goes."""
    prompts: PromptSession[str] = field(default_factory=lambda: PromptSession[str](history=InMemoryHistory()))
    """Reads the chat's input and the approval answers."""
    multiline: bool = False
    """Whether Enter inserts a newline (`/multiline` toggles it)."""
    last_output: str | None = None
    """The text of the last answer, for `/markdown` and `/cp`."""
    handler: ApprovalHandler | None = None
    """The approval handler the chat installs; `None` if the agent has a deferred tool handler of its own."""

    def __post_init__(self) -> None:
        self.screen = _Screen(self.console)
        if self.agent.deferred_tool_handler is None:
            self.handler = TerminalApprover(self.screen, read=self._read_answer).handler()

    async def run(self) -> None:
        """Chat until `/exit`, Ctrl-C or Ctrl-D at the prompt."""
        while True:
            try:
                text = await self.prompts.prompt_async(f'{self.prog_name} ➤ ', multiline=self.multiline)
            except (KeyboardInterrupt, EOFError):
                return
            text = text.strip()
            if not text:
                continue
            if text.startswith('/'):
                if self.command(text):
                    return
                continue
            await self.ask(text)

    def command(self, text: str) -> bool:
        """Run a `/command`; returns whether the chat should end."""
        if text == '/exit':
            return True
        if text == '/markdown':
            if self.last_output is None:
                self.console.print('No markdown output available.')
            else:
                self.console.print('Markdown output of last question:\n', style='dim')
                self.console.print(
                    Syntax(self.last_output, lexer='markdown', background_color='default', word_wrap=True)
                )
        elif text == '/multiline':
            self.multiline = not self.multiline
            if self.multiline:
                self.console.print(f'Enabling multiline mode. [dim]{_MULTILINE_HELP}[/dim]')
            else:
                self.console.print('Disabling multiline mode.')
        elif text == '/cp':
            self._copy()
        else:
            self.console.print(f'[red]Unknown command[/red] [magenta]`{text}`[/magenta]')
        return False

    def _copy(self) -> None:
        if self.last_output is None:
            self.console.print('No output available to copy.')
            return
        # OSC 52 asks the terminal itself to set the clipboard, so no clipboard library is needed.
        encoded = base64.b64encode(self.last_output.encode()).decode()
        self.console.file.write(f'\x1b]52;c;{encoded}\a')
        self.console.print('Copied last output to clipboard.', style='dim')

    async def ask(self, prompt: str) -> None:
        """Run one turn: stream the answer, ask about approvals inline, and keep the conversation."""
        try:
            async with self.agent.iter(
                prompt,
                message_history=self.message_history,
                deps=self.deps,
                model_settings=self.model_settings,
                usage_limits=self.usage_limits,
                model=self.model,
                deferred_tool_handler=self.handler,
            ) as run:
                await self._follow(run)
        except _TurnInterrupted:
            self.console.print(f'\n{_INTERRUPTED}', style='yellow')
            return
        except (AgentRunError, UserError) as exc:
            self.console.print(f'The run stopped: {exc}', style='red', markup=False)
            return
        result = run.result
        assert result is not None, 'a followed run ends with a result'
        self.message_history = result.all_messages()
        if not isinstance(result.output, str):
            self.console.print(Text(_as_text(result.output)))
        self.last_output = _as_text(result.output)

    async def _follow(self, run: AgentRun[Any, Any]) -> None:
        node = run.next_node
        while not isinstance(node, End):
            if isinstance(node, ModelRequestNode):
                self._show_results(node.request)
                await self._stream(node, run)
            elif isinstance(node, CallToolsNode):
                self._show_calls(node.model_response)
            node = await run.next(node)

    async def _stream(self, node: ModelRequestNode[Any, Any], run: AgentRun[Any, Any]) -> None:
        text = ''
        spinner = Spinner('dots', text=Text('Working on it…', style='dim'), style='green')
        with Live(spinner, console=self.console, refresh_per_second=15, transient=True) as live:
            async with node.stream(run.ctx) as stream:
                async for response in stream.stream_responses(debounce_by=0.05):
                    text = _response_text(response)
                    if text:
                        live.update(Group(Markdown(text), spinner))
        if text:
            self.console.print(Markdown(text))

    def _show_results(self, request: ModelRequest) -> None:
        for part in request.parts:
            if isinstance(part, ToolReturnPart):
                mark = self.screen.not_run.get(part.tool_call_id, '←')
                self.screen.line(f'   {mark} {part.tool_name}: {_brief(part.content)}')
            elif isinstance(part, RetryPromptPart) and part.tool_name:
                self.screen.line(f'   ! {part.tool_name}: {_brief(part.content)}')

    def _show_calls(self, response: ModelResponse) -> None:
        for part in response.parts:
            if isinstance(part, ToolCallPart):
                self.console.print(
                    f'   → {call_text(part.tool_name, part.args_as_dict())}',
                    style='cyan',
                    markup=False,
                    highlight=False,
                )

    def _read_answer(self, prompt: str) -> str:
        # The approval callback runs inside the agent's event loop, so the prompt runs in a thread of its own.
        try:
            return self.prompts.prompt(prompt, in_thread=True, multiline=False)
        except KeyboardInterrupt:
            raise _TurnInterrupted from None


def _response_text(response: ModelResponse) -> str:
    return ''.join(part.content for part in response.parts if isinstance(part, TextPart))


def _as_text(output: object) -> str:
    if isinstance(output, str):
        return output
    return pydantic_core.to_json(output, indent=2, fallback=repr).decode()


def _brief(content: object, width: int = 110) -> str:
    text = content if isinstance(content, str) else json.dumps(content, default=str)
    text = ' '.join(text.split())
    return text if len(text) <= width else text[: width - 1] + '…'


async def run_chat(
    agent: AbstractAgent[Any, Any],
    *,
    deps: Any = None,
    prog_name: str = 'pydantic-ai',
    message_history: Sequence[ModelMessage] | None = None,
    model_settings: ModelSettings | None = None,
    usage_limits: UsageLimits | None = None,
) -> None:
    """Chat with `agent` in the terminal until the user leaves."""
    session = ChatSession(
        agent,
        prog_name=prog_name,
        deps=deps,
        message_history=list(message_history or []),
        model_settings=model_settings,
        usage_limits=usage_limits,
    )
    await session.run()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog='pai-chat',
        description='Chat with an agent in the terminal (or, with --web, in the browser); approvals are asked inline.',
    )
    parser.add_argument('prompt', nargs='?', help='ask one question and exit; without it, chat interactively')
    parser.add_argument('-m', '--model', help='the model, e.g. "openai:gpt-4o" (keys are read from the environment)')
    parser.add_argument('-a', '--agent', help='an agent to use, as "module:variable", e.g. "my_app.agents:support"')
    parser.add_argument('--web', action='store_true', help='serve the browser chat instead (`Agent.to_web()`)')
    parser.add_argument('--host', default='127.0.0.1', help='the address --web listens on (default: 127.0.0.1)')
    parser.add_argument('--port', type=int, default=7932, help='the port --web listens on (default: 7932)')
    return parser


def load_agent(spec: str) -> AbstractAgent[Any, Any]:
    """Import the agent named by `module:variable`."""
    module_name, sep, variable = spec.partition(':')
    if not sep or not module_name or not variable:
        raise UserError(f'`--agent` must be written as "module:variable", not {spec!r}.')
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UserError(f'Cannot import module {module_name!r} for `--agent`: {exc}') from exc
    agent = getattr(module, variable, None)
    if not isinstance(agent, AbstractAgent):
        raise UserError(f'`{spec}` is not an `Agent` (found {type(agent).__name__!r}).')
    return cast(AbstractAgent[Any, Any], agent)


def _build_agent(args: argparse.Namespace) -> tuple[AbstractAgent[Any, Any], Model | None]:
    """The agent, and the model that replaces its own for every run (`--model` with `--agent`)."""
    if args.agent:
        return load_agent(args.agent), infer_model(args.model) if args.model else None
    return Agent(infer_model(args.model or 'openai:gpt-4o')), None


def cli(argv: Sequence[str] | None = None) -> int:
    """The `pai-chat` command; returns the exit code."""
    args = _parser().parse_args(argv)
    try:
        agent, model = _build_agent(args)
    except (UserError, ValueError) as exc:
        print(f'Error: {exc}', file=sys.stderr)
        return 1
    if args.web:
        if not isinstance(agent, Agent):
            kind = type(agent).__name__
            print(
                f'Error: `--web` serves an `Agent`, but `{args.agent}` is a `{kind}`: pass the agent itself.',
                file=sys.stderr,
            )
            return 1
        import uvicorn

        from .web import create_web_app

        uvicorn.run(create_web_app(agent, models=model), host=args.host, port=args.port, log_level='warning')
        return 0
    session = ChatSession(agent, prog_name='pai-chat', model=model)
    try:
        asyncio.run(session.ask(args.prompt) if args.prompt else session.run())
    except KeyboardInterrupt:
        session.console.print('\nInterrupted.')
    return 0


def main() -> None:
    """Entry point of the `pai-chat` console script."""
    sys.exit(cli())
