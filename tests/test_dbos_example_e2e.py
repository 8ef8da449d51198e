"""End to end: the durable approvals example in headless chromium, with the server killed and restarted between
starting a run and approving it.

`make e2e-deps` installs chromium and the npm packages (`playwright-core`) this drives it with.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from inline_snapshot import snapshot

from .durable.harness import ROOT

E2E_DIR = Path(__file__).parent / 'e2e'
NODE = shutil.which('node')


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def serve(db: str, port: int) -> subprocess.Popen[bytes]:
    command = [sys.executable, '-m', 'pydantic_ai_examples.durable_approvals', '--db', db, '--port', str(port)]
    server = subprocess.Popen(command, cwd=ROOT)
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f'http://127.0.0.1:{port}/', timeout=1):
                return server
        except OSError:
            assert time.monotonic() < deadline, 'the example server did not start'
            time.sleep(0.1)


def browse(phase: str, port: int) -> dict[str, Any]:
    assert NODE is not None, 'node is needed: run `make e2e-deps`'
    command = [NODE, 'durable.mjs', phase, f'http://127.0.0.1:{port}/']
    done = subprocess.run(command, cwd=E2E_DIR, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_approve_in_the_browser_after_a_server_restart(tmp_path: Path) -> None:
    db, port = f'sqlite:///{tmp_path / "approvals.sqlite"}', free_port()
    server = serve(db, port)
    try:
        started = browse('start', port)
        assert started == snapshot(
            {'workflowId': started['workflowId'], 'asks': 'delete_file({"path":"notes.txt"})', 'pageErrors': []}
        )
    finally:
        os.kill(server.pid, signal.SIGKILL)
        server.wait()
    server = serve(db, port)
    try:
        approved = browse('approve', port)
    finally:
        server.terminate()
        server.wait()
    assert approved == snapshot(
        {
            'workflowId': started['workflowId'],
            'output': 'Done. Deleted notes.txt.',
            'inbox': 'Nothing waits for you.',
            'pageErrors': [],
        }
    )
