"""Approvals of MCP tool calls through `deferred_tool_handler`, on our server and the npm filesystem server."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inline_snapshot import snapshot
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext, ToolDenied
from pydantic_ai.mcp import MCPServerStdio
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import ToolDefinition
from pydantic_ai_examples.approval import (
    ApprovalDecision,
    ApprovalRequest,
    ApprovalToolset,
    MCPAnnotationPolicy,
    approval_handler,
    mcp_approval_required,
)
from pydantic_ai_examples.approval.cli import main
from pydantic_ai_examples.approval.mcp_demo import NOTES, filesystem_server, seed_sandbox

from ._messages import request_parts
from .mcp_servers import FILESYSTEM_SERVER, SERVER, new_tag, processes_with

pytestmark = pytest.mark.anyio


def scripted(*steps: list[tuple[str, dict[str, Any]]]) -> FunctionModel:
    """A model that makes each step's calls in turn, then says 'done'."""

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        index = sum(isinstance(m, ModelResponse) for m in messages)
        if index < len(steps):
            return ModelResponse(parts=[ToolCallPart(name, args) for name, args in steps[index]])
        return ModelResponse(parts=[TextPart('done')])

    return FunctionModel(model)


def returns(messages: list[ModelMessage]) -> dict[str, Any]:
    """Each tool's last result, by tool name."""
    return {part.tool_name: part.content for part in request_parts(messages, ToolReturnPart)}


def snapshot_dir(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob('*')) if p.is_file()}


def deny_all(ctx: RunContext[Any], requests: DeferredToolRequests) -> DeferredToolResults:
    return DeferredToolResults(approvals={call.tool_call_id: ToolDenied('Not allowed.') for call in requests.approvals})


async def test_approval_required_with_a_per_call_predicate() -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    def only_big_sums(ctx: RunContext[Any], tool_def: ToolDefinition, tool_args: dict[str, Any]) -> bool:
        return tool_def.name == 'add' and tool_args['a'] > 100

    def handler(ctx: RunContext[Any], requests: DeferredToolRequests) -> DeferredToolResults:
        asked.extend((call.tool_name, call.args_as_dict()) for call in requests.approvals)
        return DeferredToolResults(approvals={call.tool_call_id: True for call in requests.approvals})

    server = MCPServerStdio(sys.executable, [SERVER], timeout=30).approval_required(only_big_sums)
    agent = Agent(
        scripted([('add', {'a': 1, 'b': 2}), ('add', {'a': 500, 'b': 1})]),
        toolsets=[server],
        deferred_tool_handler=handler,
    )
    result = await agent.run('go')
    assert asked == [('add', {'a': 500, 'b': 1})]
    request = result.all_messages()[2]
    assert isinstance(request, ModelRequest)
    assert [part.content for part in request.parts if isinstance(part, ToolReturnPart)] == [3, 501]


async def test_annotation_predicate_asks_for_destructive_tools_only() -> None:
    server = MCPServerStdio(sys.executable, [SERVER], timeout=30).approval_required(mcp_approval_required)
    agent = Agent(
        scripted([('read_note', {'name': 'todo'}), ('delete_note', {'name': 'todo'})]),
        toolsets=[server],
        output_type=[str, DeferredToolRequests],
    )
    result = await agent.run('go')
    assert isinstance(result.output, DeferredToolRequests)
    assert [call.tool_name for call in result.output.approvals] == ['delete_note']
    assert returns(result.all_messages()) == {'read_note': 'buy milk'}


async def test_filesystem_server_list_read_and_approved_write(tmp_path: Path) -> None:
    seed_sandbox(tmp_path)
    decisions: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> ApprovalDecision:
        decisions.append(request)
        return ApprovalDecision(approved=True)

    agent = Agent(
        scripted(
            [('list_directory', {'path': str(tmp_path)})],
            [('read_text_file', {'path': str(tmp_path / 'todo.md')})],
            [('write_file', {'path': str(tmp_path / 'summary.md'), 'content': 'two things to do\n'})],
        ),
        toolsets=[ApprovalToolset[None](MCPAnnotationPolicy(filesystem_server(tmp_path)))],
        deferred_tool_handler=approval_handler(approve),
    )
    result = await agent.run('go')
    assert returns(result.all_messages()) == snapshot(
        {
            'list_directory': {'content': '[FILE] ideas.md\n[FILE] todo.md'},
            'read_text_file': {'content': '- renew the TLS certificate\n- rotate the backup keys\n'},
            'write_file': {'content': f'Successfully wrote to {tmp_path / "summary.md"}'},
        }
    )
    assert [(d.tool_name, d.reason) for d in decisions] == [
        ('write_file', 'The server marks `write_file` as destructive.')
    ]
    assert (tmp_path / 'summary.md').read_text() == 'two things to do\n'


async def test_filesystem_server_denied_write_changes_nothing(tmp_path: Path) -> None:
    seed_sandbox(tmp_path)
    before = snapshot_dir(tmp_path)
    agent = Agent(
        scripted(
            [
                ('write_file', {'path': str(tmp_path / 'todo.md'), 'content': 'overwritten'}),
                ('move_file', {'source': str(tmp_path / 'ideas.md'), 'destination': str(tmp_path / 'x.md')}),
            ]
        ),
        toolsets=[ApprovalToolset[None](MCPAnnotationPolicy(filesystem_server(tmp_path)))],
        deferred_tool_handler=deny_all,
    )
    result = await agent.run('go')
    assert returns(result.all_messages()) == {'write_file': 'Not allowed.', 'move_file': 'Not allowed.'}
    assert snapshot_dir(tmp_path) == before
    assert set(before) == set(NOTES)


async def test_filesystem_server_stays_in_its_sandbox(tmp_path: Path) -> None:
    sandbox = tmp_path / 'sandbox'
    sandbox.mkdir()
    outside = tmp_path / 'secret.txt'
    outside.write_text('secret')
    tag = new_tag()
    server = MCPServerStdio('node', [FILESYSTEM_SERVER, str(sandbox), tag], timeout=30)
    agent = Agent(scripted([('read_text_file', {'path': str(outside)})]), toolsets=[server])
    result = await agent.run('go')
    assert (await server.list_resources(), await server.list_resource_templates()) == ([], [])
    retry = result.all_messages()[2].parts[0]
    assert retry.part_kind == 'retry-prompt'
    assert 'Access denied - path outside allowed directories' in str(retry.content)
    assert not processes_with(tag)


def test_config_entries_win_over_annotations() -> None:
    policy = MCPAnnotationPolicy(MCPServerStdio(sys.executable, [SERVER]))
    ctx: Any = None
    verdict = policy.needs_approval('read_note', {}, ctx, {'read_note': {'blocked': True, 'reason': 'Private.'}})
    assert (verdict.status, verdict.reason) == ('blocked', 'Private.')
    assert policy.needs_approval('unknown', {}, ctx, {}).reason == 'The server does not mark `unknown` as read-only.'


def test_annotation_verdicts() -> None:
    from pydantic_ai_examples.approval import mcp_annotation_verdict

    verdicts = {
        str(hints): (v.status, v.reason)
        for hints in [{'readOnlyHint': True}, {'destructiveHint': True}, {'destructiveHint': False}, {}]
        for v in [mcp_annotation_verdict('tool', hints)]
    }
    assert verdicts == snapshot(
        {
            "{'readOnlyHint': True}": ('pre_approved', None),
            "{'destructiveHint': True}": ('needs_approval', 'The server marks `tool` as destructive.'),
            "{'destructiveHint': False}": (
                'needs_approval',
                'The server says `tool` changes things, but not destructively.',
            ),
            '{}': ('needs_approval', 'The server does not mark `tool` as read-only.'),
        }
    )


def run_demo(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(['--mcp', '--delay', '0', *argv], out=out)
    return code, out.getvalue()


@pytest.mark.parametrize(
    ('answer', 'expected'),
    [
        ('y', 'The sandbox held at the end: ideas.md, summary.md, todo.md (now removed).'),
        ('n:not today', 'The sandbox held at the end: ideas.md, todo.md (now removed).'),
    ],
)
def test_mcp_demo(answer: str, expected: str) -> None:
    code, out = run_demo('--answers', answer)
    assert code == 0
    assert expected in out
    assert 'needs approval: The server marks `write_file` as destructive.' in out
    assert out.count('Approve ') == 1


def test_mcp_demo_without_the_server(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv('MCP_FILESYSTEM_SERVER', '/nonexistent/index.js')
    assert run_demo('--answers', 'y')[0] == 1
    assert 'run `make mcp-servers`' in capsys.readouterr().err


def test_make_passes_the_flag_through() -> None:
    root = Path(__file__).parent.parent
    commands: Callable[[str], str] = lambda args: subprocess.run(  # noqa: E731
        ['make', '--no-print-directory', '-n', '-o', '.venv/.installed', '-o', 'mcp-servers', 'demo', f'ARGS={args}'],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert '-m pydantic_ai_examples.approval --mcp --answers y' in commands('--mcp --answers y')
    assert commands('').strip().endswith('-m pydantic_ai_examples.approval')
