"""Crash and recover on a real engine: DBOS on SQLite, with worker processes killed (`kill -9`) and restarted.

The worker (`tests/durable/worker.py`) runs an agent whose first response asks to approve `delete_file`, with
`wait_for_deferred_tool_results` as its handler. The test answers from its own process with
`DBOSApprovalClient`, as a person's inbox would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from dbos import DBOSClient, WorkflowHandleAsync
from dirty_equals import IsDatetime, IsStr
from inline_snapshot import snapshot
from pydantic_ai import (
    DeferredToolRequests,
    DeferredToolResults,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolDenied,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.durable_exec import PendingDeferredToolRequests
from pydantic_ai.durable_exec.dbos import DBOSApprovalClient
from pydantic_ai.run import AgentRunResult
from pydantic_ai.usage import RequestUsage

from .durable.harness import Workers, eventually, wait_pending

IS_DATETIME: Any = IsDatetime()
IS_STR: Any = IsStr()

pytestmark = pytest.mark.anyio


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f'sqlite:///{tmp_path / "dbos.sqlite"}'


@pytest.fixture
async def approvals(db: str) -> AsyncIterator[DBOSApprovalClient]:
    client = DBOSApprovalClient(db)
    yield client
    client.close()


@pytest.fixture
def workers(db: str, tmp_path: Path) -> Any:
    workers = Workers(db, tmp_path / 'calls.log')
    yield workers
    workers.close()


async def result_of(db: str, workflow_id: str) -> AgentRunResult[str]:
    client = DBOSClient(system_database_url=db)
    try:
        handle: WorkflowHandleAsync[AgentRunResult[str]] = await client.retrieve_workflow_async(workflow_id)
        return await handle.get_result(polling_interval_sec=0.05)
    finally:
        client.destroy()


async def test_kill_while_waiting_then_restart_and_approve(
    workers: Workers, approvals: DBOSApprovalClient, db: str
) -> None:
    worker = workers.start(start='run-1')
    pending = await wait_pending(approvals, 'run-1')
    assert pending == snapshot(
        PendingDeferredToolRequests(
            workflow_id='run-1',
            request_id=IS_STR,
            requests=DeferredToolRequests(
                approvals=[ToolCallPart(tool_name='delete_file', args={'path': 'notes.txt'}, tool_call_id='call-1')]
            ),
        )
    )
    workers.kill(worker)
    workers.start()
    await approvals.submit('run-1', DeferredToolResults(approvals={'call-1': True}), request_id=pending.request_id)
    result = await result_of(db, 'run-1')
    assert result.output == 'Done: deleted notes.txt'
    assert result.all_messages() == snapshot(
        [
            ModelRequest(
                parts=[UserPromptPart(content='Delete my notes.', timestamp=IS_DATETIME)],
                timestamp=IS_DATETIME,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[ToolCallPart(tool_name='delete_file', args={'path': 'notes.txt'}, tool_call_id='call-1')],
                usage=RequestUsage(input_tokens=54, output_tokens=6),
                model_name='function:model:',
                timestamp=IS_DATETIME,
                run_id=IS_STR,
            ),
            ModelRequest(
                parts=[
                    ToolReturnPart(
                        tool_name='delete_file',
                        content='deleted notes.txt',
                        tool_call_id='call-1',
                        timestamp=IS_DATETIME,
                    )
                ],
                timestamp=IS_DATETIME,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[TextPart(content='Done: deleted notes.txt')],
                usage=RequestUsage(input_tokens=57, output_tokens=10),
                model_name='function:model:',
                timestamp=IS_DATETIME,
                run_id=IS_STR,
            ),
        ]
    )
    assert workers.calls() == ['model call 1', 'tool delete_file notes.txt', 'model call 2']
    assert await approvals.pending('run-1') is None


async def test_approval_sent_while_no_worker_runs(workers: Workers, approvals: DBOSApprovalClient, db: str) -> None:
    worker = workers.start(start='run-2')
    pending = await wait_pending(approvals, 'run-2')
    workers.kill(worker)
    await approvals.submit('run-2', DeferredToolResults(approvals={'call-1': True}), request_id=pending.request_id)
    # Nobody has taken the answer yet: the request is still pending, in the inbox too.
    assert [p.workflow_id for p in await approvals.list_pending()] == ['run-2']
    workers.start()
    result = await result_of(db, 'run-2')
    assert result.output == 'Done: deleted notes.txt'
    assert workers.calls() == ['model call 1', 'tool delete_file notes.txt', 'model call 2']
    assert await approvals.list_pending() == []


async def test_deadline_passes_while_no_worker_runs(workers: Workers, approvals: DBOSApprovalClient, db: str) -> None:
    workers.timeout = 1.0
    worker = workers.start(start='run-3')
    pending = await wait_pending(approvals, 'run-3')
    assert pending.deadline == IsDatetime(approx=datetime.now(UTC) + timedelta(seconds=1), delta=2)
    workers.kill(worker)
    assert pending.deadline is not None
    await anyio.sleep(max(0.0, (pending.deadline - datetime.now(UTC)).total_seconds()) + 0.2)
    workers.start()
    result = await result_of(db, 'run-3')
    assert result.output == 'Done: Nobody answered in time.'
    assert workers.calls() == ['model call 1', 'model call 2']


async def test_wrong_answer_is_refused_and_a_correct_one_accepted(
    workers: Workers, approvals: DBOSApprovalClient, db: str
) -> None:
    workers.start(start='run-4')
    pending = await wait_pending(approvals, 'run-4')
    await approvals.submit('run-4', DeferredToolResults(approvals={'call-9': True}), request_id=pending.request_id)
    refused = await eventually(lambda: _rejected(approvals, 'run-4'))
    assert refused.rejection == snapshot(
        "Tool call results need to be provided for all deferred tool calls. Expected: {'call-1'}, got: {'call-9'}"
    )
    assert refused.request_id == pending.request_id
    await approvals.submit('run-4', DeferredToolResults(approvals={'call-1': True}), request_id='stale')
    refused = await eventually(lambda: _rejected(approvals, 'run-4', 'stale'))
    assert refused.rejection == snapshot(
        f"The answer is for request 'stale', but the pending request is {pending.request_id!r}: answer the pending request."
    )
    denial = DeferredToolResults(approvals={'call-1': ToolDenied('Keep them.')})
    await approvals.submit('run-4', denial, request_id=pending.request_id)
    # The same answer twice is delivered once; the run has moved on by the time it would arrive anyway.
    await approvals.submit('run-4', denial, request_id=pending.request_id)
    result = await result_of(db, 'run-4')
    assert result.output == 'Done: Keep them.'
    assert workers.calls() == ['model call 1', 'model call 2']


async def _rejected(
    approvals: DBOSApprovalClient, workflow_id: str, mentioning: str = ''
) -> PendingDeferredToolRequests | None:
    pending = await approvals.pending(workflow_id)
    return pending if pending is not None and pending.rejection and mentioning in pending.rejection else None


async def test_replaying_a_finished_run_issues_the_same_steps(
    workers: Workers, approvals: DBOSApprovalClient, db: str
) -> None:
    workers.parallel = True
    workers.start(start='run-5')
    pending = await wait_pending(approvals, 'run-5')
    await approvals.submit('run-5', DeferredToolResults(approvals={'call-1': True}), request_id=pending.request_id)
    result = await result_of(db, 'run-5')
    assert result.output == 'Done: contents of a.txt, contents of b.txt, deleted notes.txt'
    client = DBOSClient(system_database_url=db)
    try:
        steps = await client.list_workflow_steps_async('run-5')
        assert [step['function_name'] for step in steps] == snapshot(
            [
                'files__model.request',
                'files__tool.read_file',
                'files__tool.read_file',
                'pydantic_ai.deferred_tool_requests.open',
                'DBOS.setEvent',
                'DBOS.recv',
                'DBOS.sleep',
                'DBOS.setEvent',
                'files__tool.delete_file',
                'files__model.request',
            ]
        )
        # A fork from after the last step replays every step from the database: a step issued in another
        # order, or under another name, would fail the fork with DBOS's nondeterminism error.
        fork = await client.fork_workflow_async('run-5', len(steps) + 1)
        replayed: AgentRunResult[str] = await fork.get_result(polling_interval_sec=0.05)
    finally:
        client.destroy()
    assert replayed.output == result.output
    # The responses come from the recorded steps; requests are rebuilt by the replayed loop (new timestamps).
    responses = [m for m in result.all_messages() if isinstance(m, ModelResponse)]
    assert [m for m in replayed.all_messages() if isinstance(m, ModelResponse)] == [
        replace(m, run_id=IS_STR) for m in responses
    ]
    log = workers.calls()
    assert log[0] == 'model call 1' and log[-1] == 'model call 2'
    assert sorted(log[1:-1]) == ['tool delete_file notes.txt', 'tool read_file a.txt', 'tool read_file b.txt']
