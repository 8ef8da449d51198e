"""The browser chat behind `Agent.to_web()`: a starlette app with our chat page at `/` and `POST /api/chat`.

The page (`chat.html`, built from `pydantic_ai_slim/chat-page/` with the AI SDK's `useChat` and committed, so no
CDN or npm is needed at run time) speaks the Vercel AI protocol to the adapter. Deferred calls become approval
requests in the page; the adapter signs their ids with a secret of the app, so an answer the server did not ask
for, or one for other arguments, is refused.
"""

from __future__ import annotations

import secrets
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeAlias, cast

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from ..agent import Agent
from ..exceptions import UserError
from ..models import Model, infer_model
from ..output import OutputSpec
from ..settings import ModelSettings
from ..tools import DeferredToolRequests
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
        return await VercelAIAdapter[Any, Any].dispatch_request(
            request,
            agent=agent,
            tool_approval=True,
            approval_secret=secret,
            output_type=output_type,
            model=model,
            deps=deps,
            model_settings=model_settings,
            instructions=instructions,
        )

    return Starlette(routes=[Route('/', index), Route('/api/chat', chat, methods=['POST'])])
