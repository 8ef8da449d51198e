"""The adapter's stream, read by the real AI SDK v6 client code (oldest and newest 6.0.x) over a real server."""

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
from pydantic_ai.ui.vercel_ai.request_types import UIMessage

from .test_vercel_ai import app_for, approval_agent, deleted

JS_DIR = Path(__file__).parent / 'js'
NODE = shutil.which('node')

pytestmark = pytest.mark.skipif(NODE is None, reason='node is not installed')


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


@pytest.fixture(scope='module')
def server_url() -> Iterator[str]:
    port = free_port()
    app = app_for(approval_agent(), tool_approval=True, approval_secret='conformance-secret')
    server = uvicorn.Server(uvicorn.Config(app, host='127.0.0.1', port=port, log_level='warning', lifespan='off'))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        thread.join(0.01)
    yield f'http://127.0.0.1:{port}'
    server.should_exit = True
    thread.join(10)


@pytest.mark.parametrize('package', ['ai-oldest', 'ai-newest'])
def test_ai_sdk_folds_approve_and_deny_round_trip(server_url: str, package: str):
    assert (JS_DIR / 'node_modules' / package).exists(), 'run `make js` to install the AI SDK packages'
    deleted.clear()
    assert NODE is not None
    done = subprocess.run(
        [NODE, 'conformance.mjs', server_url, package], cwd=JS_DIR, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    assert result['asked']['parts'] == snapshot(
        [
            {'type': 'step-start'},
            {
                'type': 'tool-delete_file',
                'toolCallId': 'call_a',
                'state': 'approval-requested',
                'input': {'path': 'a.txt'},
                'approval': {'id': 'aprv_huvhp42qnWXiem9NLQngJHmi-_hXk-EzIzkwaMFUo34'},
            },
            {
                'type': 'tool-delete_file',
                'toolCallId': 'call_b',
                'state': 'approval-requested',
                'input': {'path': 'b.txt'},
                'approval': {'id': 'aprv_p3cnqeEMzxDld8sMWJ8BJ61rntfzS4yc2Lnw71bgNis'},
            },
        ]
    )
    assert result['readyToSend'] is True
    assert result['finished']['parts'] == snapshot(
        [
            {'type': 'step-start'},
            {
                'type': 'tool-delete_file',
                'toolCallId': 'call_a',
                'state': 'output-available',
                'input': {'path': 'a.txt'},
                'output': 'deleted a.txt',
                'approval': {'id': 'aprv_huvhp42qnWXiem9NLQngJHmi-_hXk-EzIzkwaMFUo34', 'approved': True},
            },
            {
                'type': 'tool-delete_file',
                'toolCallId': 'call_b',
                'state': 'output-denied',
                'input': {'path': 'b.txt'},
                'approval': {
                    'id': 'aprv_p3cnqeEMzxDld8sMWJ8BJ61rntfzS4yc2Lnw71bgNis',
                    'approved': False,
                    'reason': 'keep b',
                },
            },
            {'type': 'step-start'},
            {'type': 'text', 'text': 'Done: call_a=deleted a.txt; call_b=keep b', 'state': 'done'},
        ]
    )
    assert result['valid'] is True
    assert deleted == ['a.txt']
    # What the client sends back parses with the adapter's request models.
    UIMessage.model_validate(result['finished'])
