"""The Vercel AI chat example app: an approval round trip through `POST /api/chat`, and its static page option."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dirty_equals import IsStr
from inline_snapshot import snapshot
from pydantic_ai_examples.vercel_ai_chat import FileStore, create_app
from pydantic_ai_examples.vercel_ai_chat.__main__ import main
from starlette.testclient import TestClient

from .test_vercel_ai import answer, body, fold, user


def post(client: TestClient, *messages: dict[str, Any]) -> list[dict[str, Any]]:
    response = client.post('/api/chat', json=body(*messages))
    assert response.status_code == 200, response.text
    events = [line.removeprefix('data: ') for line in response.text.split('\n\n') if line]
    assert events[-1] == '[DONE]'
    return [json.loads(e) for e in events[:-1]]


def test_approve_one_deny_one():
    store = FileStore()
    with TestClient(create_app(approval_secret='example-secret', store=store)) as client:
        question = user('clean up my temp files')
        first = post(client, question)
        asked = [c for c in first if c['type'] in {'tool-output-available', 'tool-approval-request'}]
        assert asked == snapshot(
            [
                {
                    'type': 'tool-output-available',
                    'toolCallId': 'call_0_list',
                    'output': ['draft.tmp', 'notes.tmp', 'report.pdf'],
                },
                {
                    'type': 'tool-approval-request',
                    'approvalId': 'aprv_cHQFJVu-GW_5MpGzNKel1c1qgRW6-ZVicpVqAvLJJfs',
                    'toolCallId': 'call_1_0',
                },
                {
                    'type': 'tool-approval-request',
                    'approvalId': 'aprv_trpRxbunKNN__ihYY_ClfZa2ku7vn5_GuXnU90PYKzs',
                    'toolCallId': 'call_1_1',
                },
            ]
        )
        message = fold([question], first)
        answer(message, {'call_1_0': (True, None), 'call_1_1': (False, 'I still need my notes')})
        second = post(client, question, message)
    assert [c for c in second if c['type'].startswith('tool-output') or c['type'] == 'text-delta'] == snapshot(
        [
            {'type': 'tool-output-denied', 'toolCallId': 'call_1_1'},
            {'type': 'tool-output-available', 'toolCallId': 'call_1_0', 'output': 'deleted draft.tmp'},
            {
                'type': 'text-delta',
                'delta': 'Done. draft.tmp: deleted draft.tmp; notes.tmp: I still need my notes',
                'id': IsStr(),
            },
        ]
    )
    assert store.names == {'notes.tmp', 'report.pdf'}


def test_altered_approval_is_refused():
    store = FileStore()
    with TestClient(create_app(approval_secret='example-secret', store=store)) as client:
        question = user('clean up')
        message = fold([question], post(client, question))
        answer(message, {'call_1_0': (True, None), 'call_1_1': (True, None)})
        delete_parts = [p for p in message['parts'] if p['type'] == 'tool-delete_file']
        delete_parts[0]['input'] = {'name': 'report.pdf'}
        refused = post(client, question, message)
    assert [c['type'] for c in refused] == snapshot(['start', 'error', 'finish-step', 'finish'])
    assert store.names == {'draft.tmp', 'notes.tmp', 'report.pdf'}


def test_file_gone_before_approval():
    store = FileStore()
    with TestClient(create_app(store=store)) as client:
        question = user('clean up')
        message = fold([question], post(client, question))
        store.names.discard('draft.tmp')
        answer(message, {'call_1_0': (True, None), 'call_1_1': (False, None)})
        sent = post(client, question, message)
    assert [c['delta'] for c in sent if c['type'] == 'text-delta'] == snapshot(
        ['Done. draft.tmp: draft.tmp does not exist; notes.tmp: The tool call was denied.']
    )


def test_nothing_to_delete():
    with TestClient(create_app(store=FileStore({'report.pdf'}))) as client:
        sent = post(client, user('clean up'))
    assert [c['delta'] for c in sent if c['type'] == 'text-delta'] == snapshot(
        ['There are no temporary files to delete.']
    )


def test_serves_static_page(tmp_path: Path):
    (tmp_path / 'index.html').write_text('<p>chat</p>')
    with TestClient(create_app(static_dir=tmp_path)) as client:
        assert client.get('/').text == '<p>chat</p>'


def test_main_runs_uvicorn_on_localhost(monkeypatch: Any):
    seen: dict[str, Any] = {}

    def fake_run(app: Any, *, host: str, port: int) -> None:
        seen.update(host=host, port=port)

    monkeypatch.setattr('uvicorn.run', fake_run)
    main(['--port', '8123'])
    assert seen == {'host': '127.0.0.1', 'port': 8123}
