"""DBOSAgent: workflow and step names, results through workflows (the two-run approval flow included), errors."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from dbos import DBOS
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults
from pydantic_ai.durable_exec.dbos import DBOSAgent
from pydantic_ai.exceptions import UserError
from pydantic_ai.models.test import TestModel

DBOS(
    config={
        'name': 'compat-dbos',
        'system_database_url': f'sqlite:///{Path(tempfile.mkdtemp()) / "dbos.sqlite"}',
        'log_level': 'ERROR',
    }
)
agent = Agent(TestModel(), name='compat_agent', output_type=[str, DeferredToolRequests])


@agent.tool_plain
def add(a: int, b: int) -> int:
    return a + b


@agent.tool_plain(requires_approval=True)
def delete(path: str) -> str:
    return f'deleted {path}'


durable = DBOSAgent(agent)
print(durable.name, type(durable.model).__name__, durable.model)
for attempt in (
    lambda: DBOSAgent(Agent(TestModel())),
    lambda: DBOSAgent(Agent(name='compat_no_model')),
    lambda: setattr(durable, 'name', 'other'),
):
    try:
        attempt()
    except UserError as e:
        print('UserError:', e)
DBOS.launch()


async def main() -> None:
    result = await durable.run('Go.')
    assert isinstance(result.output, DeferredToolRequests)
    print(result.output.approvals)
    approvals = DeferredToolResults(approvals={call.tool_call_id: True for call in result.output.approvals})
    resumed = await durable.run(message_history=result.all_messages(), deferred_tool_results=approvals)
    print(repr(resumed.output))
    for message in resumed.new_messages():
        print(message)
    for attempt in (lambda: durable.run('Go.', model=TestModel()), lambda: _stream_events()):
        try:
            await attempt()
        except UserError as e:
            print('UserError:', e)
    try:
        with durable.override(model=TestModel()):
            pass
    except UserError as e:
        print('UserError:', e)
    workflows = await DBOS.list_workflows_async()
    for workflow in sorted(workflows, key=lambda w: (w.name, w.created_at or 0)):
        steps = await DBOS.list_workflow_steps_async(workflow.workflow_id)
        print(workflow.name, workflow.status, [step['function_name'] for step in steps])


async def _stream_events() -> None:
    async for _ in durable.run_stream_events('Go.'):
        pass


asyncio.run(main())
DBOS.destroy()
