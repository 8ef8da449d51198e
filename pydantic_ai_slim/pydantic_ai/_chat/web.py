"""The browser chat behind `Agent.to_web()`: a starlette app with our chat page at `/` and `POST /api/chat`.

The page (`chat.html`, built from `pydantic_ai_slim/chat-page/` with the AI SDK's `useChat` and committed, so no
CDN or npm is needed at run time) speaks the Vercel AI protocol to the adapter. Deferred calls become approval
requests in the page; the adapter signs their ids with a secret of the app, so an answer the server did not ask
for, or one for other arguments, is refused. Calls an approval policy blocks never reach the page's buttons: they are
denied with the policy's reason first, and the run goes on (see `_deny_blocked`).
"""

from __future__ import annotations

import dataclasses
import secrets
import urllib.request
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeAlias, cast

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from .._approval.handler import ApprovalRequest, blocked_note
from ..agent import Agent
from ..exceptions import UserError
from ..messages import FunctionToolResultEvent, ToolReturnPart
from ..models import Model, infer_model
from ..output import OutputSpec
from ..run import AgentRunResultEvent
from ..settings import ModelSettings
from ..tools import DeferredToolRequests, DeferredToolResults, ToolDenied
from ..ui._adapter import validation_error_response
from ..ui._event_stream import NativeEvent
from ..ui.vercel_ai import VercelAIAdapter

__all__ = ('PAGE_PATH', 'ModelsParam', 'create_web_app', 'output_with_approvals')

PAGE_PATH = Path(__file__).with_name('chat.html')
"""The bundled chat page."""

ModelsParam: TypeAlias = Sequence[Model | str] | Mapping[str, Model | str] | Model | str | None
"""The models `to_web` may use: one, a list, or a mapping of labels to models; the first is used."""


def output_with_approvals(spec: OutputSpec[Any]) -> list[Any]:
    """The agent's output spec with `DeferredToolRequests` added, so a run can end asking for approvals."""
    items: list[Any] = list(cast(Sequence[Any], spec)) if isinstance(spec, Sequence) else [spec]
    return items if DeferredToolRequests in items else [*items, DeferredToolRequests]


def _first_model(models: ModelsParam) -> Model | None:
    if models is None:
        return None
    if isinstance(models, Model | str):
        return infer_model(models)
    choices = list(models.values()) if isinstance(models, Mapping) else list(models)
    return infer_model(choices[0]) if choices else None


def _load_page(html_source: str | Path | None) -> str:
    if html_source is None:
        return PAGE_PATH.read_text(encoding='utf-8')
    source = str(html_source)
    if source.startswith(('http://', 'https://')):
        with urllib.request.urlopen(source, timeout=30) as response:
            return response.read().decode('utf-8')
    return Path(source).read_text(encoding='utf-8')


def create_web_app(
    agent: Agent[Any, Any],
    *,
    models: ModelsParam = None,
    builtin_tools: list[Any] | None = None,
    deps: Any = None,
    model_settings: ModelSettings | None = None,
    instructions: str | None = None,
    html_source: str | Path | None = None,
) -> Starlette:
    """Build the app `Agent.to_web()` returns."""
    if builtin_tools:
        raise UserError('`builtin_tools` are not supported by this implementation: pass `builtin_tools=None`.')
    model = _first_model(models)
    secret = secrets.token_hex(32)
    output_type = output_with_approvals(agent.output_type)
    page: list[str] = []

    async def index(request: Request) -> Response:
        if not page:
            page.append(_load_page(html_source))
        return HTMLResponse(page[0])

    async def chat(request: Request) -> Response:
        try:
            adapter = await VercelAIAdapter[Any, Any].from_request(
                request, agent=agent, tool_approval=True, approval_secret=secret
            )
        except ValidationError as exc:
            return validation_error_response(exc)
        options: dict[str, Any] = dict(
            output_type=output_type, model=model, deps=deps, model_settings=model_settings, instructions=instructions
        )
        events = _deny_blocked(agent, adapter.run_stream_native(**options), options)
        return adapter.streaming_response(adapter.transform_stream(events))

    return Starlette(routes=[Route('/', index), Route('/api/chat', chat, methods=['POST'])])


async def _deny_blocked(
    agent: Agent[Any, Any], events: AsyncIterator[NativeEvent], options: dict[str, Any]
) -> AsyncIterator[NativeEvent]:
    """The run's events, with the calls an approval policy blocks denied before the page is asked about them.

    A run that ends waiting only for blocked calls is resumed here with their denials, so the model reads them and
    goes on. When other calls wait too, a run cannot be resumed with only some answers: the blocked calls are
    reported as done, their denial as the result (the page keeps it and sends it back as the call's result), and
    only the others are asked about.
    """
    while True:
        resumed: AsyncIterator[NativeEvent] | None = None
        async for event in events:
            if isinstance(event, AgentRunResultEvent) and isinstance(event.result.output, DeferredToolRequests):
                requests = event.result.output
                notes = {
                    call.tool_call_id: blocked_note(request)
                    for call in requests.approvals
                    if (request := ApprovalRequest.from_call(call, requests.metadata.get(call.tool_call_id))).blocked
                }
                if notes and len(notes) == len(requests.approvals) and not requests.calls:
                    denials = {call_id: ToolDenied(note) for call_id, note in notes.items()}
                    resumed = agent.run_stream_events(
                        message_history=event.result.all_messages(),
                        deferred_tool_results=DeferredToolResults(approvals=dict(denials)),
                        **options,
                    )
                    continue
                if notes:
                    for call in requests.approvals:
                        if call.tool_call_id in notes:
                            part = ToolReturnPart(call.tool_name, notes[call.tool_call_id], call.tool_call_id)
                            yield FunctionToolResultEvent(part)
                    asked = [call for call in requests.approvals if call.tool_call_id not in notes]
                    output = dataclasses.replace(requests, approvals=asked)
                    event = AgentRunResultEvent(dataclasses.replace(event.result, output=output))
            yield event
        if resumed is None:
            return
        events = resumed
