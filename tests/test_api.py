"""The public surface: `__all__` lists are complete and sorted, and upstream's import paths exist."""

from __future__ import annotations

import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

import pydantic_ai
import pytest

PUBLIC_MODULES = [
    'pydantic_ai',
    'pydantic_ai.agent',
    'pydantic_ai.durable_exec',
    'pydantic_ai.durable_exec.dbos',
    'pydantic_ai.agent.abstract',
    'pydantic_ai.agent.wrapper',
    'pydantic_ai.builtin_tools',
    'pydantic_ai.exceptions',
    'pydantic_ai.format_prompt',
    'pydantic_ai.mcp',
    'pydantic_ai.messages',
    'pydantic_ai.models',
    'pydantic_ai.models.anthropic',
    'pydantic_ai.models.function',
    'pydantic_ai.models.instrumented',
    'pydantic_ai.models.openai',
    'pydantic_ai.models.test',
    'pydantic_ai.models.wrapper',
    'pydantic_ai.output',
    'pydantic_ai.profiles',
    'pydantic_ai.profiles.anthropic',
    'pydantic_ai.profiles.openai',
    'pydantic_ai.providers',
    'pydantic_ai.providers.anthropic',
    'pydantic_ai.providers.openai',
    'pydantic_ai.result',
    'pydantic_ai.run',
    'pydantic_ai.settings',
    'pydantic_ai.tools',
    'pydantic_ai.toolsets',
    'pydantic_ai.ui',
    'pydantic_ai.ui.vercel_ai',
    'pydantic_ai.ui.vercel_ai.request_types',
    'pydantic_ai.ui.vercel_ai.response_types',
    'pydantic_ai.usage',
]


def _isort_key(name: str) -> tuple[int, str]:
    # The order ruff's RUF022 keeps: CONSTANTS, then Classes, then the rest.
    kind = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    return kind, name


@pytest.mark.parametrize('name', PUBLIC_MODULES)
def test_all_is_sorted_public_and_importable(name: str) -> None:
    module = importlib.import_module(name)
    names: tuple[str, ...] | list[str] = module.__all__
    assert list(names) == sorted(names, key=_isort_key), f'{name}.__all__ is not sorted'
    assert not [n for n in names if n.startswith('_') and n != '__version__'], f'{name}.__all__ has private names'
    missing = [n for n in names if not hasattr(module, n)]
    assert not missing, f'{name}.__all__ names missing attributes: {missing}'


UPSTREAM_IMPORTS = {
    'pydantic_ai': [
        'Agent',
        'RunContext',
        'Tool',
        'ModelRetry',
        'UnexpectedModelBehavior',
        'UserError',
        'UsageLimitExceeded',
        'DeferredToolRequests',
        'DeferredToolResults',
        'ToolApproved',
        'ToolDenied',
        'ApprovalRequired',
        'CallDeferred',
        'ToolOutput',
        'NativeOutput',
        'PromptedOutput',
        'TextOutput',
        'StructuredDict',
        'FunctionToolset',
        'CombinedToolset',
        'ExternalToolset',
        'capture_run_messages',
        'UsageLimits',
        'RunUsage',
        'ModelSettings',
        'ToolReturn',
        'BinaryContent',
        'ImageUrl',
    ],
    'pydantic_ai.messages': ['ModelMessagesTypeAdapter', 'ModelRequest', 'ModelResponse', 'ToolCallPart'],
    'pydantic_ai.models.test': ['TestModel'],
    'pydantic_ai.models.function': ['FunctionModel', 'AgentInfo', 'DeltaToolCall'],
    'pydantic_ai.tools': ['ToolDefinition', 'DeferredToolRequests', 'RunContext'],
    'pydantic_ai.output': ['DeferredToolRequests', 'ToolOutput'],
    'pydantic_ai.toolsets': ['AbstractToolset', 'WrapperToolset', 'PrefixedToolset', 'RenamedToolset'],
    'pydantic_ai.agent': ['Agent', 'AgentRunResult', 'CallToolsNode', 'ModelRequestNode', 'UserPromptNode'],
    'pydantic_ai.agent.abstract': ['AbstractAgent'],
    'pydantic_ai.agent.wrapper': ['WrapperAgent'],
    'pydantic_ai.run': ['AgentRun', 'AgentRunResult', 'AgentRunResultEvent'],
    'pydantic_ai.result': ['StreamedRunResult', 'StreamedRunResultSync', 'AgentStream'],
    'pydantic_ai.models': ['Model', 'ModelRequestParameters', 'StreamedResponse', 'infer_model'],
    'pydantic_ai.models.openai': [
        'OpenAIChatModel',
        'OpenAIChatModelSettings',
        'OpenAIModel',
        'OpenAIResponsesModel',
        'OpenAIResponsesModelSettings',
    ],
    'pydantic_ai.providers.openai': ['OpenAIProvider'],
    'pydantic_ai.ui.vercel_ai': ['VercelAIAdapter'],
    'pydantic_ai.models.instrumented': ['InstrumentationSettings', 'InstrumentedModel', 'instrument_model'],
    'pydantic_ai.models.wrapper': ['WrapperModel'],
    'pydantic_ai.durable_exec.dbos': ['DBOSAgent', 'DBOSModel', 'DBOSParallelExecutionMode', 'StepConfig'],
    'pydantic_ai.mcp': [
        'MCPServerStdio',
        'MCPServerStreamableHTTP',
        'MCPServerSSE',
        'MCPServerHTTP',
        'load_mcp_servers',
    ],
    'pydantic_ai.models.anthropic': ['AnthropicModel', 'AnthropicModelSettings'],
    'pydantic_ai.providers.anthropic': ['AnthropicProvider'],
    'pydantic_ai.profiles.anthropic': ['anthropic_model_profile'],
}


@pytest.mark.parametrize(('module_name', 'names'), list(UPSTREAM_IMPORTS.items()))
def test_upstream_import_paths(module_name: str, names: list[str]) -> None:
    module = importlib.import_module(module_name)
    assert [n for n in names if not hasattr(module, n)] == []


def test_version_matches_distribution() -> None:
    pyproject = Path(__file__).parent.parent / 'pydantic_ai_slim' / 'pyproject.toml'
    assert pydantic_ai.__version__ == tomllib.loads(pyproject.read_text())['project']['version']


def test_import_pydantic_ai_does_not_import_mcp() -> None:
    code = (
        'import sys, pydantic_ai, pydantic_ai.agent; print(sorted(m for m in sys.modules if m.split(".")[0] == "mcp"))'
    )
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == '[]'
