"""Crash and recover on PostgreSQL, with two workers: the owner of a waiting run is killed, the other finishes it.

Without DBOS Conductor, DBOS does not move a dead executor's workflows to another on its own: an operator (or a
supervisor) hands them over with `resume_workflow`, which queues the workflow for any live worker of the same
application version. The approval comes from a third process (this one); the run finishes exactly once.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from dbos import DBOSClient, WorkflowHandleAsync
from pydantic_ai import DeferredToolResults
from pydantic_ai.durable_exec.dbos import DBOSApprovalClient
from pydantic_ai.run import AgentRunResult

from .durable.harness import Workers, wait_pending
from .durable.postgres import postgres_server

pytestmark = pytest.mark.anyio


@pytest.fixture(scope='module')
def db() -> Iterator[str]:
    with postgres_server() as url:
        yield url


@pytest.fixture
def workers(db: str, tmp_path: Path) -> Iterator[Workers]:
    workers = Workers(db, tmp_path / 'calls.log')
    yield workers
    workers.close()


async def test_owner_killed_another_worker_finishes_the_run_once(workers: Workers, db: str) -> None:
    owner = workers.start(start='pg-run', executor_id='worker-a')
    approvals = DBOSApprovalClient(db)
    client = DBOSClient(system_database_url=db)
    try:
        pending = await wait_pending(approvals, 'pg-run')
        workers.start(executor_id='worker-b')
        workers.kill(owner)
        await approvals.submit('pg-run', DeferredToolResults(approvals={'call-1': True}), request_id=pending.request_id)
        [status] = await client.list_workflows_async(workflow_ids=['pg-run'])
        assert (status.status, status.executor_id) == ('PENDING', 'worker-a')
        handle: WorkflowHandleAsync[AgentRunResult[str]] = await client.resume_workflow_async('pg-run')
        result = await handle.get_result(polling_interval_sec=0.05)
        [status] = await client.list_workflows_async(workflow_ids=['pg-run'])
    finally:
        approvals.close()
        client.destroy()
    assert result.output == 'Done: deleted notes.txt'
    assert (status.status, status.executor_id) == ('SUCCESS', 'worker-b')
    assert workers.calls() == ['model call 1', 'tool delete_file notes.txt', 'model call 2']
