"""Deferred calls answered by a `deferred_tool_handler`, end to end over the real OpenAI SDK and HTTP."""

from __future__ import annotations

import gc
import io
from typing import Any

import pytest
from inline_snapshot import snapshot
from openai import AsyncOpenAI
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext, Tool, ToolDenied
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from ._openai_server import ChatServer, chunk, completion, tool_call, tool_call_delta, usage

pytestmark = pytest.mark.anyio


def files_agent(client: AsyncOpenAI, deleted: list[str]) -> Agent[None, str]:
    def list_files() -> list[str]:
        """List the files."""
        return ['a.tmp', 'keep.txt']

    def delete_file(path: str) -> str:
        """Delete a file."""
        deleted.append(path)
        return f'deleted {path}'

    model = OpenAIChatModel('gpt-4o', provider=OpenAIProvider(openai_client=client))
    return Agent(model, tools=[list_files, Tool(delete_file, requires_approval=True)])


seen: list[list[str]] = []


def approve_tmp_only(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
    seen.append([call.tool_call_id for call in requests.approvals])
    results = DeferredToolResults()
    for call in requests.approvals:
        path = call.args_as_dict()['path']
        results.approvals[call.tool_call_id] = path.endswith('.tmp') or ToolDenied(f'Keep {path}: it is not temporary.')
    return results


def tool_messages(body: Any) -> list[tuple[str, str]]:
    return [(m['tool_call_id'], m['content']) for m in body['messages'] if m['role'] == 'tool']


DELETE_CALLS = [
    tool_call('list_files', '{}', 'call_list'),
    tool_call('delete_file', '{"path": "a.tmp"}', 'call_a'),
    tool_call('delete_file', '{"path": "keep.txt"}', 'call_keep'),
]


async def test_handler_over_http(server: ChatServer, client: AsyncOpenAI) -> None:
    seen.clear()
    deleted: list[str] = []
    agent = files_agent(client, deleted)
    server.add_json(completion(None, tool_calls=DELETE_CALLS, finish_reason='tool_calls', usage=usage(20, 10)))
    server.add_json(completion('Deleted a.tmp; kept keep.txt.', usage=usage(40, 8)))

    result = await agent.run('Clean up the temporary files.', deferred_tool_handler=approve_tmp_only)

    assert result.output == 'Deleted a.tmp; kept keep.txt.'
    assert deleted == ['a.tmp']
    assert seen == [['call_a', 'call_keep']]
    # One run, two requests: the second carries every call's result, the denial verbatim.
    assert len(server.requests) == 2
    assert tool_messages(server.bodies()[1]) == snapshot(
        [
            ('call_list', '["a.tmp","keep.txt"]'),
            ('call_a', 'deleted a.tmp'),
            ('call_keep', 'Keep keep.txt: it is not temporary.'),
        ]
    )


async def test_handler_over_http_streaming(server: ChatServer, client: AsyncOpenAI) -> None:
    seen.clear()
    deleted: list[str] = []
    agent = files_agent(client, deleted)
    server.add_stream(
        [
            chunk(tool_calls=[tool_call_delta(0, id='call_list', name='list_files', arguments='{}')]),
            chunk(tool_calls=[tool_call_delta(1, id='call_a', name='delete_file', arguments='{"path": ')]),
            chunk(tool_calls=[tool_call_delta(1, arguments='"a.tmp"}')]),
            chunk(
                tool_calls=[tool_call_delta(2, id='call_keep', name='delete_file', arguments='{"path": "keep.txt"}')]
            ),
            chunk(finish_reason='tool_calls'),
            chunk(choices=False, usage=usage(20, 10)),
        ]
    )
    server.add_stream([chunk('Deleted '), chunk('a.tmp.'), chunk(finish_reason='stop')])

    async with agent.run_stream('Clean up the temporary files.', deferred_tool_handler=approve_tmp_only) as stream:
        output = await stream.get_output()

    assert output == 'Deleted a.tmp.'
    assert deleted == ['a.tmp']
    assert seen == [['call_a', 'call_keep']]
    assert tool_messages(server.bodies()[1]) == snapshot(
        [
            ('call_list', '["a.tmp","keep.txt"]'),
            ('call_a', 'deleted a.tmp'),
            ('call_keep', 'Keep keep.txt: it is not temporary.'),
        ]
    )


# The demo leaves its SDK client's connection to the garbage collector, as a program about to exit may.
@pytest.mark.filterwarnings('ignore::pytest.PytestUnraisableExceptionWarning')
def test_approval_demo_on_an_openai_compatible_server(server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from pydantic_ai_examples.approval.cli import main

    monkeypatch.setenv('OPENAI_BASE_URL', server.base_url)
    monkeypatch.setenv('OPENAI_API_KEY', 'test-key')
    server.add_json(
        completion(
            None,
            tool_calls=[tool_call('kill_process', '{"pid": 4242, "signal": "TERM"}', 'call_kill')],
            finish_reason='tool_calls',
        )
    )
    server.add_json(completion('Port 8080 is free.'))
    out = io.StringIO()

    assert main(['--model', 'openai:local-model', '--delay', '0', '--answers', 'y'], out=out) == 0

    transcript = out.getvalue()
    assert 'Approve kill_process? [y/n/s/a] y' in transcript
    assert 'Port 8080 is free.' in transcript
    assert tool_messages(server.bodies()[1]) == snapshot(
        [('call_kill', '{"pid":4242,"signal":"TERM","exited":false,"state":"draining connections"}')]
    )
    gc.collect()
