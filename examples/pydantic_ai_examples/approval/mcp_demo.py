"""The approval demo on a real MCP server: `python -m pydantic_ai_examples.approval --mcp`.

The agent gets the tools of the reference filesystem server (`@modelcontextprotocol/server-filesystem`, run
with `node`) confined to a fresh sandbox directory seeded with a few notes. `MCPAnnotationPolicy` decides from
the server's tool annotations: reads run straight away, writes and moves (marked destructive) ask you first.
The scripted model reads the notes and asks to write a summary; whatever you answer, nothing outside the
sandbox can be touched.
"""

from __future__ import annotations

import asyncio
import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.mcp import MCPServerStdio
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel

from .mcp_policy import MCPAnnotationPolicy
from .scripted import observations
from .toolset import ApprovalToolset

__all__ = (
    'MCP_TASK',
    'NOTES',
    'build_mcp_agent',
    'filesystem_server',
    'filesystem_server_path',
    'mcp_scripted_model',
    'new_sandbox',
    'seed_sandbox',
)

MCP_TASK = 'Read the notes in my sandbox and write a short summary of them to summary.md.'
"""The task of the MCP demo."""

NOTES = {
    'todo.md': '- renew the TLS certificate\n- rotate the backup keys\n',
    'ideas.md': '- cache the tool list between runs\n',
}
"""The files the sandbox starts with."""

INSTRUCTIONS = (
    'You work on files through tools, inside the allowed directories only. Read before you write. Some calls '
    'need a person to approve them: if one is denied, respect that and say what you would have done.'
)


def filesystem_server_path() -> str:
    """The filesystem server's entry point: `$MCP_FILESYSTEM_SERVER`, or the copy `make mcp-servers` installs.

    Raises:
        FileNotFoundError: If it is not installed.
    """
    default = (
        Path(__file__).parents[3]
        / 'tests'
        / 'mcp_servers'
        / 'node_modules'
        / '@modelcontextprotocol'
        / 'server-filesystem'
        / 'dist'
        / 'index.js'
    )
    path = Path(os.environ.get('MCP_FILESYSTEM_SERVER', default))
    if not path.exists():
        raise FileNotFoundError(f'The MCP filesystem server is not installed at {path}: run `make mcp-servers`.')
    return str(path)


def filesystem_server(sandbox: Path) -> MCPServerStdio:
    """The reference filesystem server, allowed to touch `sandbox` only."""
    return MCPServerStdio('node', [filesystem_server_path(), str(sandbox)], timeout=30)


def seed_sandbox(sandbox: Path) -> None:
    """Write the demo's notes into `sandbox`."""
    for name, text in NOTES.items():
        (sandbox / name).write_text(text)


def build_mcp_agent(model: Model, server: MCPServerStdio) -> Agent[None, str]:
    """The MCP demo's agent: the server's tools behind an `ApprovalToolset` deciding from their annotations."""
    toolset = ApprovalToolset[None](MCPAnnotationPolicy(server), toolset_id='filesystem')
    return Agent(model, instructions=INSTRUCTIONS, toolsets=[toolset])


def _plan(messages: Sequence[ModelMessage]) -> ModelResponse:
    seen = {o.tool_name: o for o in observations(messages)}
    if 'list_allowed_directories' not in seen:
        return _calls('Let me see where I may work.', ('list_allowed_directories', {}))
    root = _text(seen['list_allowed_directories'].content).splitlines()[-1].strip()
    if 'list_directory' not in seen:
        return _calls('Now what is in there.', ('list_directory', {'path': root}))
    names = re.findall(r'\[FILE\] (\S+\.md)', _text(seen['list_directory'].content))
    notes = [name for name in names if name != 'summary.md']
    if 'read_multiple_files' not in seen:
        paths = [f'{root}/{name}' for name in notes]
        return _calls(f'Reading the {len(notes)} notes.', ('read_multiple_files', {'paths': paths}))
    if 'write_file' not in seen:
        items = re.findall(r'^- (.+)$', _text(seen['read_multiple_files'].content), re.MULTILINE)
        summary = '# Summary\n\n' + ''.join(f'- {item}\n' for item in items)
        return _calls('Writing the summary.', ('write_file', {'path': f'{root}/summary.md', 'content': summary}))
    written = seen['write_file']
    if written.ran:
        return ModelResponse(parts=[TextPart('Done: summary.md lists every item of your notes.')])
    return ModelResponse(parts=[TextPart(f'I did not write summary.md ({written.content}). Nothing was changed.')])


def _calls(text: str, *calls: tuple[str, dict[str, Any]]) -> ModelResponse:
    return ModelResponse(parts=[TextPart(text), *(ToolCallPart(name, args) for name, args in calls)])


def _text(content: Any) -> str:
    # The filesystem server answers with structured content `{"content": text}`.
    return str(content.get('content', '')) if isinstance(content, dict) else str(content)  # pyright: ignore[reportUnknownMemberType,reportUnknownArgumentType] (a tool's JSON result)


def mcp_scripted_model(delay: float = 0.4) -> FunctionModel:
    """A model that plans each step of the MCP task from the results so far, thinking `delay` seconds per step."""

    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        await asyncio.sleep(delay)
        return _plan(messages)

    return FunctionModel(respond, model_name='scripted-mcp')


def new_sandbox() -> Path:
    """A fresh sandbox directory with the demo's notes in it."""
    sandbox = Path(tempfile.mkdtemp(prefix='mcp-demo-')).resolve()
    seed_sandbox(sandbox)
    return sandbox
