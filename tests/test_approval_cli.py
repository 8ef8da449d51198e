"""The approval demo CLI (`python -m pydantic_ai_examples.approval`), driven through a pseudo-terminal.

Each test runs the real program on the scripted model with no thinking delay, answers its prompts the way
a person would, and checks the transcript and exit code.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pexpect
from inline_snapshot import snapshot
from pydantic_ai_examples.approval.cli import NO_TTY_MESSAGE, main

ROOT = Path(__file__).parent.parent
COMMAND = [sys.executable, '-m', 'pydantic_ai_examples.approval', '--delay', '0']


def prompt(tool_name: str) -> str:
    return rf'Approve {tool_name}\? \[y/n/s/a\] '


class Session:
    """The demo in a pseudo-terminal, with the whole transcript kept."""

    def __init__(self, *args: str) -> None:
        self.log = io.StringIO()
        self.child: pexpect.spawn[str] = pexpect.spawn(
            COMMAND[0], [*COMMAND[1:], *args], cwd=str(ROOT), encoding='utf-8', timeout=10, dimensions=(40, 300)
        )
        self.child.logfile_read = self.log

    def answer(self, tool_name: str, reply: str) -> None:
        self.child.expect(prompt(tool_name))
        self.child.sendline(reply)

    def finish(self) -> tuple[int | None, str]:
        self.child.expect(pexpect.EOF)
        self.child.close()
        return self.child.exitstatus, self.log.getvalue().replace('\r\n', '\n')


def test_approve() -> None:
    session = Session()
    for tool_name in ('kill_process', 'kill_process', 'remove_path', 'stop_service'):
        session.answer(tool_name, 'y')
    status, transcript = session.finish()
    assert status == 0
    assert 'devserver.service started it again as PID 4318' in transcript
    assert 'Port 8080 on the simulated machine: free.' in transcript
    assert transcript.endswith(
        'Summary: steps 10, approvals asked 4, approved 4 (0 remembered), denied 0, blocked 1.\n'
    )


def test_deny_with_reason() -> None:
    session = Session()
    session.answer('kill_process', 'maybe')
    session.child.expect('Please answer y, n, s or a')
    session.answer('kill_process', 'n')
    session.child.expect(r'Reason for the model \(optional, Enter to skip\): ')
    session.child.sendline('it is serving a demo')
    session.answer('stop_service', 'y')
    status, transcript = session.finish()
    assert status == 0
    assert '✗ kill_process: Denied by the user: it is serving a demo' in transcript
    # The model saw the denial and chose a gentler option.
    assert (
        'Understood, I will not signal the process directly ("Denied by the user: it is serving a demo"). '
        'A gentler option is to let its service manager stop devserver.service cleanly:'
    ) in transcript
    assert transcript.endswith('Summary: steps 7, approvals asked 2, approved 1 (0 remembered), denied 1, blocked 1.\n')


def test_remember_for_session() -> None:
    session = Session()
    session.answer('kill_process', 's')
    # The identical second SIGTERM is answered from the session: the next question is about the pid file.
    session.answer('remove_path', 'y')
    session.answer('stop_service', 'y')
    status, transcript = session.finish()
    assert status == 0
    assert transcript.count('Approve kill_process?') == 1
    assert 'Send SIGTERM to PID 4242 (node, run by alice)\n      remembered for this session: approved' in transcript
    assert transcript.endswith(
        'Summary: steps 10, approvals asked 3, approved 4 (1 remembered), denied 0, blocked 1.\n'
    )


def test_approve_all_in_batch() -> None:
    session = Session()
    session.answer('kill_process', 'y')
    session.answer('kill_process', 'a')
    session.answer('stop_service', 'y')
    status, transcript = session.finish()
    assert status == 0
    assert 'Approve remove_path?' not in transcript
    assert 'remove_path: approved (all in this batch)' in transcript
    assert '← remove_path: {"path": "/var/run/devserver.pid", "removed": ["/var/run/devserver.pid"]}' in transcript
    assert transcript.endswith(
        'Summary: steps 10, approvals asked 3, approved 4 (0 remembered), denied 0, blocked 1.\n'
    )


def test_blocked_call_is_shown_but_never_prompted() -> None:
    session = Session()
    session.answer('kill_process', 'n')
    session.child.expect('Reason for the model')
    session.child.sendline('')
    session.answer('stop_service', 'n:not now')
    status, transcript = session.finish()
    assert status == 0
    assert (
        "2. remove_path(path='/var/run', recursive=True)\n"
        '      Delete /var/run and everything under it\n'
        '      BLOCKED: /var/run is a protected system path. (denied without asking)\n'
    ) in transcript
    assert '✗ remove_path: Blocked: /var/run is a protected system path.' in transcript
    assert 'Approve remove_path?' not in transcript
    assert 'How would you like me to proceed?' in transcript
    assert 'Port 8080 on the simulated machine: held by PID 4242.' in transcript
    assert transcript.endswith('Summary: steps 6, approvals asked 2, approved 0 (0 remembered), denied 2, blocked 1.\n')


def test_ctrl_c_at_prompt_exits_cleanly() -> None:
    session = Session()
    session.child.expect(prompt('kill_process'))
    session.child.sendintr()
    status, transcript = session.finish()
    assert status == 130
    assert transcript.endswith('^C\nInterrupted: stopped without running anything else.\n')
    assert 'Traceback' not in transcript


def test_ctrl_d_at_prompt_exits_cleanly() -> None:
    session = Session()
    session.child.expect(prompt('kill_process'))
    session.child.sendeof()
    status, transcript = session.finish()
    assert status == 1
    assert transcript.endswith('Input closed: stopped without running anything else.\n')
    assert 'Traceback' not in transcript


def run_without_tty(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*COMMAND, *args], cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=10, env=env
    )


def test_no_tty_without_answers_exits_with_message() -> None:
    result = run_without_tty()
    assert (result.returncode, result.stdout, result.stderr) == (2, '', NO_TTY_MESSAGE + '\n')


def test_answers_without_tty_run_a_scripted_session() -> None:
    result = run_without_tty('--answers', 'y,a,y')
    assert result.returncode == 0
    assert '   Approve kill_process? [y/n/s/a] a\n   remove_path: approved (all in this batch)\n' in result.stdout
    assert result.stdout.endswith(
        'Summary: steps 10, approvals asked 3, approved 4 (0 remembered), denied 0, blocked 1.\n'
    )
    assert result.stderr == ''


def test_unknown_model_is_reported() -> None:
    result = run_without_tty('--model', 'nosuch:model', '--answers', 'y')
    assert (result.returncode, result.stdout) == (1, '')
    assert result.stderr == "Cannot use model 'nosuch:model': Unknown provider: nosuch\n"


def test_model_failure_is_reported_without_traceback() -> None:
    # No API key, and a base URL nothing listens on: the run must stop with a message, never reach the network.
    env = {k: v for k, v in os.environ.items() if not k.startswith('OPENAI_')}
    env['OPENAI_BASE_URL'] = 'http://127.0.0.1:9/v1'
    result = run_without_tty('--model', 'openai:gpt-4o', '--answers', 'y', env=env)
    assert result.returncode == 1
    assert result.stderr == snapshot("""\

The run stopped: Set the `OPENAI_API_KEY` environment variable or pass it via `OpenAIProvider(api_key=...)` to use the OpenAI provider.
""")


def test_scripted_session_transcript() -> None:
    """The whole conversation of a scripted session, in process: deny, then run out of answers."""
    out = io.StringIO()
    assert main(['--delay', '0', '--answers', 'n:not on a Friday'], out=out) == 0
    assert out.getvalue() == snapshot("""\
Task: Find the process hogging port 8080 and stop it.
Model: scripted-sysadmin (simulated machine: nothing real is touched)

[1] model: I'll check what is listening on port 8080.
   → list_ports()
   ← list_ports: 80 812 nginx; 5432 977 postgres; 8080 4242 node

[2] model: Port 8080 is held by PID 4242 (node). Let me see what it is.
   → ps(pid=4242)
   ← ps: {"pid": 4242, "user": "alice", "command": "node /srv/devserver/server.js --port 8080 --log /var/log/devserver…

[3] model: It is `node /srv/devserver/server.js --port 8080 --log /var/log/devserver.log`, run by alice and started by devserver.service. Its log may say why it is still around.
   → read_file(path='/var/log/devserver.log')
   ← read_file: {"path": "/var/log/devserver.log", "content": "09:12:01 devserver listening on :8080 (pid 4242)\\n11:47:33 war…

[4] model: The log shows requests stuck for ten minutes. I will ask it to stop with SIGTERM and clear the stale runtime files under /var/run:
   → kill_process(pid=4242, signal='TERM')
   → remove_path(path='/var/run', recursive=True)

   ── 2 call(s) need a decision, 1 to answer ──
   1. kill_process(pid=4242, signal='TERM')
      Send SIGTERM to PID 4242 (node, run by alice)
      needs approval: it signals a running process
   2. remove_path(path='/var/run', recursive=True)
      Delete /var/run and everything under it
      BLOCKED: /var/run is a protected system path. (denied without asking)
   (y = yes, n = no (then an optional reason), s = yes for this session, a = yes to the rest of the batch)
   Approve kill_process? [y/n/s/a] n:not on a Friday
   ✗ kill_process: Denied by the user: not on a Friday
   ✗ remove_path: Blocked: /var/run is a protected system path.

[5] model: Understood, I will not signal the process directly ("Denied by the user: not on a Friday"). A gentler option is to let its service manager stop devserver.service cleanly:
   → stop_service(name='devserver')

   ── 1 call(s) need a decision, 1 to answer ──
   1. stop_service(name='devserver')
      Stop the devserver.service unit
      needs approval: it stops a service
   (y = yes, n = no (then an optional reason), s = yes for this session, a = yes to the rest of the batch)
   (no scripted answer left: denied)
   ✗ stop_service: Denied: no answer was given for this call.

[6] model: I stopped short: stopping the service was not allowed ("Denied: no answer was given for this call."). PID 4242 still holds port 8080. SIGTERM to PID 4242: not done (Denied by the user: not on a Friday). Removing /var/run: not done (Blocked: /var/run is a protected system path.). Stopping devserver.service: not done (Denied: no answer was given for this call.). How would you like me to proceed?

Port 8080 on the simulated machine: held by PID 4242.
Summary: steps 6, approvals asked 1, approved 0 (0 remembered), denied 2, blocked 1.
""")
