"""`Agent.to_cli()` and `pai-chat`, driven through a pseudo-terminal like a person would.

The agent is the approval demo's scripted sysadmin (`pydantic_ai_examples.approval.chat`), streaming with no
delay; the chat installs the terminal approver because the agent has no deferred tool handler of its own.
"""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import httpx
import pexpect
import pytest
from inline_snapshot import snapshot
from prompt_toolkit import PromptSession
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ModelRetry, RunContext
from pydantic_ai._approval import (
    ApprovalBatch,
    ApprovalDecision,
    ApprovalRequest,
    BatchEntry,
    ScriptedAnswers,
    TerminalApprover,
)
from pydantic_ai._chat.cli import ChatSession, cli, load_agent
from pydantic_ai.agent import AbstractAgent, WrapperAgent
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.usage import UsageLimits
from rich.console import Console

from tests.test_chat_web import free_port

ROOT = Path(__file__).parent.parent
PAI_CHAT = str(Path(sys.executable).with_name('pai-chat'))
# No cursor position requests: a pseudo-terminal never answers them, and prompt_toolkit would wait for it.
ENV = os.environ.copy()
ENV['PROMPT_TOOLKIT_NO_CPR'] = '1'
ANSI = re.compile(r'\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\a]*\a|\r')


def approve(tool_name: str) -> str:
    return rf'Approve {tool_name}\? \[y/n/s/a\]'


class Chat:
    """A chat in a pseudo-terminal, with the whole transcript kept."""

    def __init__(self, *args: str, command: str = sys.executable) -> None:
        self.log = io.StringIO()
        if command == sys.executable:
            args = ('-m', 'pydantic_ai_examples.approval.chat', '--delay', '0', *args)
        self.child: pexpect.spawn[str] = pexpect.spawn(
            command,
            list(args),
            cwd=str(ROOT),
            env=cast(Any, ENV),  # pexpect.spawn is typed as taking `os.environ` itself
            encoding='utf-8',
            timeout=15,
            dimensions=(60, 300),
        )
        self.child.logfile_read = self.log

    def prompt(self) -> None:
        self.child.expect('➤')

    def say(self, text: str) -> None:
        self.prompt()
        self.child.sendline(text)

    def answer(self, tool_name: str, reply: str) -> None:
        self.child.expect(approve(tool_name))
        self.child.sendline(reply)

    def finish(self) -> tuple[int | None, str]:
        self.child.expect(pexpect.EOF)
        self.child.close()
        return self.child.exitstatus, ANSI.sub('', self.log.getvalue())


@dataclass
class Count:
    count: int


WRAPPED = WrapperAgent(Agent(TestModel(custom_output_text='wrapped answer')))
"""A wrapper agent for `--agent tests.test_chat_cli:WRAPPED`."""

FINAL_APPROVED = 'Port 8080 is free. Sent SIGTERM to PID 4242 (2 times). Stopped devserver.service.'


def test_approve_and_exit():
    chat = Chat()
    chat.say('Find the process hogging port 8080 and stop it.')
    for tool_name in ('kill_process', 'kill_process', 'remove_path', 'stop_service'):
        chat.answer(tool_name, 'y')
    chat.say('/exit')
    status, transcript = chat.finish()
    assert status == 0
    assert '── 2 call(s) need a decision, 1 to answer ──' in transcript
    assert 'BLOCKED: /var/run is a protected system path. (denied without asking)' in transcript
    assert '✗ remove_path: Blocked: /var/run is a protected system path.' in transcript
    assert 'Traceback' not in transcript
    assert re.search(r'Port 8080 is free\..*Stopped devserver\.service\.', transcript)


def test_deny_with_reason():
    chat = Chat()
    chat.say('free the port')
    chat.answer('kill_process', 'n')
    chat.child.expect(r'Reason for the model \(optional, Enter to skip\):')
    chat.child.sendline('it is serving a demo')
    chat.answer('stop_service', 'y')
    chat.say('/exit')
    status, transcript = chat.finish()
    assert status == 0
    assert '✗ kill_process: Denied by the user: it is serving a demo' in transcript
    # The model saw the denial and chose a gentler option.
    assert 'Understood, I will not signal the process directly ("Denied by the user: it is serving a demo").' in (
        transcript
    )


def test_session_approval_is_remembered():
    chat = Chat()
    chat.say('free the port')
    chat.answer('kill_process', 's')
    # The identical second SIGTERM is answered from the session: the next question is about the pid file.
    chat.answer('remove_path', 'y')
    chat.answer('stop_service', 'y')
    chat.say('/exit')
    status, transcript = chat.finish()
    assert status == 0
    assert re.findall(r'Approve kill_process\? \[y/n/s/a\] \w', transcript) == ['Approve kill_process? [y/n/s/a] s']
    assert 'remembered for this session: approved' in transcript


def test_ctrl_c_at_approval_denies_the_batch_then_ctrl_c_exits():
    chat = Chat()
    chat.say('free the port')
    chat.child.expect(approve('kill_process'))
    chat.child.sendintr()
    chat.child.expect('Interrupted: the calls waiting for approval were denied and this turn was dropped.')
    chat.prompt()
    chat.child.sendintr()
    status, transcript = chat.finish()
    assert status == 0
    assert 'Traceback' not in transcript
    # Nothing of the batch ran: no result of `kill_process` was shown.
    assert '← kill_process' not in transcript


def test_commands():
    chat = Chat()
    chat.say('/markdown')
    chat.child.expect('No markdown output available.')
    chat.say('/cp')
    chat.child.expect('No output available to copy.')
    chat.say('/help')
    chat.child.expect('Unknown command')
    chat.say('/multiline')
    chat.child.expect(r'Enabling multiline mode\.')
    chat.prompt()
    chat.child.send('/multiline\x1b\r')
    chat.child.expect('Disabling multiline mode.')
    chat.say('free the port')
    chat.answer('kill_process', 'n:no')
    chat.answer('stop_service', 'n:no')
    chat.say('/markdown')
    chat.child.expect('Markdown output of last question:')
    chat.say('/cp')
    chat.child.expect('Copied last output to clipboard.')
    chat.say('/exit')
    status, transcript = chat.finish()
    assert status == 0
    assert 'Unknown command `/help`' in transcript
    markdown = transcript.split('Markdown output of last question:')[1]
    assert 'How would you like me to proceed?' in markdown
    assert 'Enabling multiline mode. Press [Meta+Enter] or [Esc] followed by [Enter] to accept input.' in transcript
    assert 'Traceback' not in transcript


def test_pai_chat_one_shot_with_an_agent_and_ctrl_d():
    chat = Chat('--agent', 'pydantic_ai_examples.approval.chat:files_agent', 'clean up', command=PAI_CHAT)
    chat.answer('delete_file', 'a')
    status, transcript = chat.finish()
    assert status == 0
    assert 'Done. draft.tmp: deleted draft.tmp; notes.tmp: deleted notes.tmp' in transcript
    chat = Chat('--agent', 'pydantic_ai_examples.approval.chat:files_agent', command=PAI_CHAT)
    chat.prompt()
    chat.child.sendeof()
    assert chat.finish()[0] == 0


def test_pai_chat_model_override_and_ctrl_c_while_the_model_works():
    chat = Chat('-a', 'pydantic_ai_examples.approval.chat:files_agent', '-m', 'test', 'hi', command=PAI_CHAT)
    chat.answer('delete_file', 'y')
    status, transcript = chat.finish()
    assert status == 0
    assert '← delete_file: a does not exist' in transcript
    chat = Chat('-a', 'pydantic_ai_examples.approval.chat:agent', 'free the port', command=PAI_CHAT)
    chat.child.expect('Working on it')
    chat.child.sendintr()
    status, transcript = chat.finish()
    assert status == 0
    assert transcript.endswith('Interrupted.\n')


def test_pai_chat_web_serves_the_page():
    port = free_port()
    args = ['--web', '--port', str(port), '-a', 'pydantic_ai_examples.approval.chat:files_agent']
    server = subprocess.Popen([PAI_CHAT, *args], cwd=ROOT, env=ENV, stderr=subprocess.DEVNULL)
    try:
        page = None
        for _ in range(200):
            try:
                page = httpx.get(f'http://127.0.0.1:{port}/')
                break
            except httpx.ConnectError:
                time.sleep(0.05)
        assert page is not None and page.status_code == 200
        assert 'sources sha256' in page.text
    finally:
        server.terminate()
        # uvicorn shuts down gracefully, then re-raises the signal it caught.
        assert server.wait(10) == -signal.SIGTERM


def test_cli_errors(capsys: pytest.CaptureFixture[str]):
    assert cli(['--agent', 'no_colon']) == 1
    assert cli(['--agent', 'nosuch_module_xyz:agent']) == 1
    assert cli(['--agent', 'json:dumps']) == 1
    assert cli(['--model', 'nosuch:model']) == 1
    assert capsys.readouterr().err == snapshot("""\
Error: `--agent` must be written as "module:variable", not 'no_colon'.
Error: Cannot import module 'nosuch_module_xyz' for `--agent`: No module named 'nosuch_module_xyz'
Error: `json:dumps` is not an `Agent` (found 'function').
Error: Unknown provider: nosuch
""")


def test_load_agent_with_a_model_override():
    agent = load_agent('pydantic_ai_examples.approval.chat:files_agent')
    assert isinstance(agent, Agent)
    with pytest.raises(UserError, match='is not an `Agent`'):
        load_agent('pydantic_ai_examples.approval.chat:main')


# In process: the session reads keys from a pipe and renders to a string, for the paths a pty test does not take.


async def run_session(agent: AbstractAgent[Any, Any], keys: str, **options: Any) -> str:
    out = io.StringIO()
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        prompts = PromptSession[str](input=pipe, output=DummyOutput())
        session = ChatSession(agent, console=Console(file=out, width=100), prompts=prompts, **options)
        await session.run()
    # Markdown is padded to the console's width.
    return ''.join(line.rstrip() + '\n' for line in out.getvalue().splitlines())


@pytest.mark.anyio
async def test_agent_with_its_own_handler_keeps_it():
    def approve_all(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        return DeferredToolResults(approvals={call.tool_call_id: True for call in requests.approvals})

    agent = Agent(TestModel(), deferred_tool_handler=approve_all)

    @agent.tool_plain(requires_approval=True)
    def wipe() -> str:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        return 'wiped'

    out = await run_session(agent, '\rgo\r/exit\r')
    assert 'Approve' not in out
    assert out == snapshot("""\
   → wipe()
   ← wipe: wiped
{"wipe":"wiped"}
""")


@pytest.mark.anyio
async def test_wrapper_agents_chat_and_keep_the_wrapped_handler():
    assert WrapperAgent.to_cli is AbstractAgent.to_cli and Agent.to_cli_sync is AbstractAgent.to_cli_sync

    def approve_all(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        return DeferredToolResults(approvals={call.tool_call_id: True for call in requests.approvals})

    for handler in (None, approve_all):
        agent = Agent(TestModel(), deferred_tool_handler=handler)

        @agent.tool_plain(requires_approval=True)
        def wipe() -> str:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
            return 'wiped'

        wrapped = WrapperAgent(agent)
        assert wrapped.deferred_tool_handler is handler
        out = await run_session(wrapped, '\rgo\ry\r/exit\r')
        assert ('1 call(s) need a decision' in out) is (handler is None)
        assert '← wipe: wiped' in out


def test_pai_chat_with_a_wrapper_agent(capsys: pytest.CaptureFixture[str]):
    assert cli(['--agent', 'tests.test_chat_cli:WRAPPED', '-m', 'test', 'hi']) == 0
    assert 'success (no tool calls)' in capsys.readouterr().out
    assert cli(['--agent', 'tests.test_chat_cli:WRAPPED', 'hi']) == 0
    assert 'wrapped answer' in capsys.readouterr().out
    assert cli(['--agent', 'tests.test_chat_cli:WRAPPED', '--web']) == 1
    assert capsys.readouterr().err == snapshot(
        'Error: `--web` serves an `Agent`, but `tests.test_chat_cli:WRAPPED` is a `WrapperAgent`: pass the agent itself.\n'
    )


@pytest.mark.anyio
async def test_structured_output_retries_and_errors():
    calls = 0

    async def model(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[DeltaToolCalls]:
        if len(messages) < 5:
            yield {0: DeltaToolCall('flaky', '{}', tool_call_id=f'c{len(messages)}')}
        else:
            yield {0: DeltaToolCall(info.output_tools[0].name, '{"count": 3}', tool_call_id='out')}

    agent = Agent(FunctionModel(stream_function=model), output_type=Count)

    @agent.tool_plain
    def flaky() -> str:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        nonlocal calls
        calls += 1
        if calls == 1:
            raise ModelRetry('try again')
        return 'ok'

    out = await run_session(agent, 'count\r/markdown\r/exit\r', usage_limits=UsageLimits(request_limit=10))
    assert out == snapshot("""\
   → flaky()
   ! flaky: try again
   → flaky()
   ← flaky: ok
   → final_result(count=3)
{
  "count": 3
}
Markdown output of last question:

{
  "count": 3
}
""")
    failing = await run_session(agent, 'count\r/exit\r', usage_limits=UsageLimits(request_limit=1))
    assert failing == snapshot("""\
   → flaky()
   ← flaky: ok
The run stopped: The next request would exceed the request_limit of 1
""")


@pytest.mark.anyio
async def test_conversation_continues_across_turns_and_from_a_history():
    async def count_messages(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield f'I have seen {len(messages)} message(s).'

    agent = Agent(FunctionModel(stream_function=count_messages))
    async with agent.run_stream('earlier') as result:
        await result.get_output()
    history = result.all_messages()
    out = await run_session(agent, 'one\rtwo\r/exit\r', message_history=history)
    assert out == snapshot("""\
I have seen 3 message(s).
I have seen 5 message(s).
""")


@dataclass
class Lines:
    lines: list[str]
    not_run: dict[str, str]

    def line(self, text: str = '') -> None:
        self.lines.append(text)


def test_terminal_approver_edge_cases():
    """A batch with nothing to ask shows no legend; an invalid scripted answer with none left denies the call."""
    display = Lines([], {})
    approver = TerminalApprover(display, ScriptedAnswers.parse('maybe'))
    blocked = ApprovalRequest(
        tool_name='rm', tool_args={}, tool_call_id='c1', description='rm()', reason='never', blocked=True
    )
    approver.show_batch(ApprovalBatch(run_step=1, entries=(BatchEntry(blocked, 'blocked'),)))
    asked = ApprovalRequest(tool_name='ls', tool_args={}, tool_call_id='c2', description='ls()')
    assert approver.decide(asked) == ApprovalDecision(
        approved=False, note='Denied: no valid answer was given for this call.'
    )
    assert display.lines == snapshot(
        [
            """\

   ── 1 call(s) need a decision, 0 to answer ──\
""",
            '   1. rm()',
            '      rm()',
            '      BLOCKED: never (denied without asking)',
            '   Approve ls? [y/n/s/a] maybe',
            "   Please answer y, n, s or a ('maybe' is not one of them).",
        ]
    )
    assert display.not_run == {'c2': '✗'}
