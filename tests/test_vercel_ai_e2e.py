"""End to end: a `useChat` page (`@ai-sdk/react@3`) against the example app on 127.0.0.1, in headless chromium.

`make e2e-deps` installs chromium, the page's npm packages and builds the page into `tests/e2e/dist`.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from inline_snapshot import snapshot
from pydantic_ai_examples.vercel_ai_chat import create_app

E2E_DIR = Path(__file__).parent / 'e2e'
CHROMIUM = Path('/usr/bin/chromium')
NODE = shutil.which('node')

pytestmark = pytest.mark.skipif(
    NODE is None or not CHROMIUM.exists(), reason='needs node and /usr/bin/chromium (`make e2e-deps`)'
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


@pytest.fixture
def server_url() -> Iterator[str]:
    assert (E2E_DIR / 'dist' / 'main.js').exists(), 'run `make e2e-deps` to build the page'
    port = free_port()
    app = create_app(approval_secret='e2e-secret', static_dir=E2E_DIR / 'dist')
    server = uvicorn.Server(uvicorn.Config(app, host='127.0.0.1', port=port, log_level='warning', lifespan='off'))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        thread.join(0.01)
    yield f'http://127.0.0.1:{port}'
    server.should_exit = True
    thread.join(10)


def test_approve_deny_and_reload_in_chromium(server_url: str):
    assert NODE is not None
    done = subprocess.run([NODE, 'run.mjs', server_url], cwd=E2E_DIR, capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    assert result == snapshot(
        {
            'approveAndDeny': {
                'asked': ['call_0_list:output-available', 'call_1_0:approval-requested', 'call_1_1:approval-requested'],
                'answered': ['call_0_list:output-available', 'call_1_0:output-available', 'call_1_1:output-denied'],
                'finalText': 'Done. draft.tmp: deleted draft.tmp; notes.tmp: I still need my notes',
                'pageErrors': [],
            },
            'reloadMidApproval': {
                'before': ['call_0_list:output-available', 'call_1_0:approval-requested'],
                'afterReload': ['call_0_list:output-available', 'call_1_0:approval-requested'],
                'pendingButtons': 2,
                'finalText': 'Done. notes.tmp: deleted notes.tmp',
                'pageErrors': [],
            },
        }
    )
