"""The starlette app: `POST /api/chat` answers `useChat` with an agent whose file deletions need the user's approval.

The agent manages a small in-memory set of files. Listing them is a plain tool; deleting one needs approval, so
the page shows Approve / Deny buttons for each deletion and the run carries on with the answers. By default the
agent's model is a scripted `FunctionModel` (no API key needed): asked anything, it lists the files, asks to delete
the `.tmp` ones and then sums up what happened.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.tools import DeferredToolRequests
from pydantic_ai.ui.vercel_ai import VercelAIAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

__all__ = ('SECRET_ENV', 'FileStore', 'create_agent', 'create_app', 'scripted_model')

SECRET_ENV = 'VERCEL_AI_APPROVAL_SECRET'
"""The environment variable holding the secret that signs approval ids."""

ChatAgent = Agent[None, str | DeferredToolRequests]


@dataclass
class FileStore:
    """The files the agent can see and delete, in memory."""

    names: set[str] = field(default_factory=lambda: {'draft.tmp', 'notes.tmp', 'report.pdf'})
    """The names of the files that exist."""


def create_agent(store: FileStore, model: Model | str | None = None) -> ChatAgent:
    """The file manager agent: `list_files` runs freely, `delete_file` waits for the user's approval.

    Args:
        store: The files the tools act on.
        model: The model to use; the scripted model when `None`.
    """
    agent: ChatAgent = Agent(
        model or scripted_model(),
        output_type=[str, DeferredToolRequests],
        instructions='You manage the user files. Delete only temporary (.tmp) files, and say what you did.',
    )

    @agent.tool_plain
    def list_files() -> list[str]:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        """List the user's files."""
        return sorted(store.names)

    @agent.tool_plain(requires_approval=True)
    def delete_file(name: str) -> str:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        """Delete one of the user's files."""
        if name not in store.names:
            return f'{name} does not exist'
        store.names.remove(name)
        return f'deleted {name}'

    return agent


def scripted_model() -> FunctionModel:
    """A model that lists the files, asks to delete the `.tmp` ones, then reports, with no LLM behind it."""
    return FunctionModel(stream_function=_scripted_stream, model_name='scripted')


async def _scripted_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    last = messages[-1]
    returns = [p for p in last.parts if isinstance(p, ToolReturnPart)] if isinstance(last, ModelRequest) else []
    # Tool call ids only need to be unique within the conversation: number them by the model's turn.
    turn = sum(isinstance(m, ModelResponse) for m in messages)
    if not returns:
        yield {0: DeltaToolCall(name='list_files', json_args='{}', tool_call_id=f'call_{turn}_list')}
    elif returns[0].tool_name == 'list_files':
        listed = cast(list[str], returns[0].content)
        names = [name for name in listed if name.endswith('.tmp')]
        if not names:
            yield 'There are no temporary files to delete.'
        for index, name in enumerate(names):
            args = f'{{"name": "{name}"}}'
            yield {index: DeltaToolCall(name='delete_file', json_args=args, tool_call_id=f'call_{turn}_{index}')}
    else:
        yield 'Done. ' + '; '.join(f'{_file_name(messages, r.tool_call_id)}: {r.content}' for r in returns)


def _file_name(messages: list[ModelMessage], tool_call_id: str) -> str:
    """The `name` argument of the call a result answers."""
    for message in messages:
        if isinstance(message, ModelResponse):
            for part in message.parts:
                if isinstance(part, ToolCallPart) and part.tool_call_id == tool_call_id:
                    return str(part.args_as_dict().get('name', '?'))
    return '?'  # pragma: no cover


def create_app(
    *,
    model: Model | str | None = None,
    approval_secret: str | None = None,
    static_dir: Path | None = None,
    store: FileStore | None = None,
) -> Starlette:
    """The web app: `POST /api/chat` for `useChat`, and optionally a built page served from `static_dir`.

    Args:
        model: The agent's model; the scripted model when `None`.
        approval_secret: Signs approval ids; defaults to `$VERCEL_AI_APPROVAL_SECRET`, else a random one per process.
        static_dir: A directory with the page (`index.html` and its bundle) to serve at `/`.
        store: The files the agent manages; a fresh set when `None`.
    """
    agent = create_agent(store or FileStore(), model)
    secret = approval_secret or os.environ.get(SECRET_ENV) or secrets.token_hex(32)

    async def chat(request: Request) -> Response:
        return await VercelAIAdapter[None, str | DeferredToolRequests].dispatch_request(
            request, agent=agent, tool_approval=True, approval_secret=secret
        )

    routes: list[Route | Mount] = [Route('/api/chat', chat, methods=['POST'])]
    if static_dir is not None:
        routes.append(Mount('/', StaticFiles(directory=static_dir, html=True)))
    return Starlette(routes=routes)
