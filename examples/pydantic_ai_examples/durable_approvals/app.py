"""The starlette app: start runs, list the approvals they wait for, approve or deny them.

The pages are plain HTML forms (no JavaScript): `GET /` is the inbox and the list of runs, `POST /runs` starts a
run, `POST /answer` answers a pending request. The agent's model is scripted (no API key): asked to delete a
file, it calls `delete_file`, which needs approval, then reports what happened.
"""

from __future__ import annotations

import html
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs

from dbos import DBOS, DBOSConfig
from pydantic_ai import Agent, DeferredToolResults, ToolDenied
from pydantic_ai.durable_exec import PendingDeferredToolRequests
from pydantic_ai.durable_exec.dbos import DBOSAgent, DBOSApprovalClient, wait_for_deferred_tool_results
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

__all__ = ('create_agent', 'create_app')

AGENT_NAME = 'file_janitor'


def _scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Deletes the file named in the prompt (the last word), then says how it went."""
    returned = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    if returned:
        return ModelResponse(parts=[TextPart(f'Done. {returned[0].content}')])
    prompt = messages[0].parts[-1]
    path = str(getattr(prompt, 'content', '')).split()[-1]
    return ModelResponse(parts=[ToolCallPart('delete_file', {'path': path}, tool_call_id='delete-1')])


def create_agent() -> DBOSAgent[None, str]:
    """The durable agent: `delete_file` waits (up to three days) for a person's approval."""
    agent = Agent(
        FunctionModel(_scripted),
        name=AGENT_NAME,
        deferred_tool_handler=wait_for_deferred_tool_results(timedelta(days=3)),
    )

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        """Delete a file."""
        return f'Deleted {path}.'

    # With a step config, an approved deletion that completed is recorded and never run twice.
    return DBOSAgent(agent, tool_step_config={})


def create_app(system_database_url: str) -> Starlette:
    """The service, on the DBOS system database at `system_database_url`; DBOS starts and stops with the app.

    Call it once per process: DBOS and the agent's workflows are registered for the whole process.
    """
    agent = create_agent()
    config: DBOSConfig = {
        'name': 'durable-approvals',
        'system_database_url': system_database_url,
        'application_version': 'durable-approvals-1',
        'log_level': 'WARNING',
        'notification_listener_polling_interval_sec': 0.1,
    }
    DBOS(config=config)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        DBOS.launch()  # Recovers the runs this process owned, waiting ones included.
        app.state.approvals = DBOSApprovalClient(system_database_url)
        try:
            yield
        finally:
            app.state.approvals.close()
            DBOS.destroy()

    async def inbox(request: Request) -> Response:
        approvals: DBOSApprovalClient = request.app.state.approvals
        pending = await approvals.list_pending()
        runs = await DBOS.list_workflows_async(name=f'{AGENT_NAME}.run', sort_desc=True)
        return HTMLResponse(_page(pending, [(r.workflow_id, r.status, r.output) for r in runs]))

    async def start(request: Request) -> Response:
        form = await _form(request)
        await agent.start(form['prompt'], workflow_id=f'run-{uuid.uuid4().hex[:8]}')
        return RedirectResponse('/', status_code=303)

    async def answer(request: Request) -> Response:
        form = await _form(request)
        approvals: DBOSApprovalClient = request.app.state.approvals
        workflow_id = form['workflow_id']
        pending = await approvals.pending(workflow_id)
        if pending is not None:
            reason = form.get('reason', '') or 'Denied in the inbox.'
            verdict: bool | ToolDenied = True if form['decision'] == 'approve' else ToolDenied(reason)
            results = DeferredToolResults(approvals={c.tool_call_id: verdict for c in pending.requests.approvals})
            await approvals.submit(workflow_id, results, request_id=form['request_id'])
        return RedirectResponse('/', status_code=303)

    routes = [Route('/', inbox), Route('/runs', start, methods=['POST']), Route('/answer', answer, methods=['POST'])]
    return Starlette(routes=routes, lifespan=lifespan)


async def _form(request: Request) -> dict[str, str]:
    # A urlencoded form, read without `python-multipart` (which starlette's `request.form()` needs).
    return {key: values[0] for key, values in parse_qs((await request.body()).decode()).items()}


def _page(pending: list[PendingDeferredToolRequests], runs: list[tuple[str, str, Any]]) -> str:
    items = '\n'.join(_pending_item(p) for p in pending) or '<li class="empty">Nothing waits for you.</li>'
    rows = '\n'.join(
        f'<li class="run" data-workflow-id="{html.escape(wid)}" data-status="{status}">{html.escape(wid)}: {status}'
        + (f' <span class="output">{html.escape(str(output.output))}</span>' if output is not None else '')
        + '</li>'
        for wid, status, output in runs
    )
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>Approvals inbox</title></head>
<body>
<h1>Approvals inbox</h1>
<form method="post" action="/runs">
  <input name="prompt" data-testid="prompt" placeholder="Delete notes.txt">
  <button data-testid="start">Start a run</button>
</form>
<h2>Waiting for you</h2>
<ul id="pending">{items}</ul>
<h2>Runs</h2>
<ul id="runs">{rows}</ul>
</body></html>"""


def _pending_item(pending: PendingDeferredToolRequests) -> str:
    wid = html.escape(pending.workflow_id)
    calls = ', '.join(html.escape(f'{c.tool_name}({c.args_as_json_str()})') for c in pending.requests.approvals)
    rejection = f'<p class="rejection">{html.escape(pending.rejection)}</p>' if pending.rejection else ''
    return f"""<li class="pending" data-workflow-id="{wid}">{wid} asks: <code>{calls}</code>
  (until {pending.deadline:%Y-%m-%d %H:%M} UTC){rejection}
  <form method="post" action="/answer">
    <input type="hidden" name="workflow_id" value="{wid}">
    <input type="hidden" name="request_id" value="{html.escape(pending.request_id)}">
    <input name="reason" data-testid="reason-{wid}" placeholder="Reason, if you deny">
    <button name="decision" value="approve" data-testid="approve-{wid}">Approve</button>
    <button name="decision" value="deny" data-testid="deny-{wid}">Deny</button>
  </form>
</li>"""
