"""An approval policy for MCP servers, keyed on the annotations servers put on their tools.

MCP tools may carry hints (`readOnlyHint`, `destructiveHint`, ...) that `pydantic_ai.mcp` passes on in
`ToolDefinition.metadata['annotations']`. `MCPAnnotationPolicy` wraps a server so that `ApprovalToolset`
decides from them: read-only tools run without asking, destructive ones (and any the server did not mark
read-only) need a person's approval. Entries in the approval config still win, e.g. to block a tool.

`mcp_approval_required` is the same rule as a predicate for the plain `.approval_required(...)` wrapper.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from pydantic_ai import RunContext
from pydantic_ai.tools import AgentDepsT, ToolDefinition
from pydantic_ai.toolsets import ToolsetTool, WrapperToolset

from .policy import ApprovalConfig, ApprovalResult, needs_approval_from_config

__all__ = ('MCPAnnotationPolicy', 'mcp_annotation_verdict', 'mcp_approval_required', 'tool_annotations')


def tool_annotations(tool_def: ToolDefinition) -> Mapping[str, Any]:
    """The MCP annotations of a tool (empty for tools that are not from an MCP server or carry none)."""
    annotations: Any = (tool_def.metadata or {}).get('annotations')
    return cast(dict[str, Any], annotations) if isinstance(annotations, dict) else {}


def mcp_annotation_verdict(name: str, annotations: Mapping[str, Any]) -> ApprovalResult:
    """Read-only tools are pre-approved; every other tool needs approval, with the reason the hints give.

    MCP's hints are only hints, so an unmarked tool is treated as the spec's default: it may change things.
    """
    if annotations.get('readOnlyHint') is True:
        return ApprovalResult.pre_approved()
    if annotations.get('destructiveHint') is False:
        return ApprovalResult.needs_approval(f'The server says `{name}` changes things, but not destructively.')
    if annotations.get('destructiveHint') is True:
        return ApprovalResult.needs_approval(f'The server marks `{name}` as destructive.')
    return ApprovalResult.needs_approval(f'The server does not mark `{name}` as read-only.')


def mcp_approval_required(ctx: RunContext[Any], tool_def: ToolDefinition, tool_args: dict[str, Any]) -> bool:
    """For `server.approval_required(mcp_approval_required)`: every call of a tool not marked read-only."""
    return not mcp_annotation_verdict(tool_def.name, tool_annotations(tool_def)).is_pre_approved


@dataclass
class MCPAnnotationPolicy(WrapperToolset[AgentDepsT]):
    """Wraps an MCP server (or any toolset) so `ApprovalToolset` decides per tool from its MCP annotations.

    Use it as `ApprovalToolset(MCPAnnotationPolicy(server), config=...)`: a tool named in the config is decided by
    the config, any other by `mcp_annotation_verdict`.
    """

    _annotations: dict[str, Mapping[str, Any]] = field(default_factory=dict[str, Mapping[str, Any]], repr=False)

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The wrapped toolset's tools, remembering their annotations for `needs_approval`."""
        tools = await super().get_tools(ctx)
        self._annotations = {name: tool_annotations(tool.tool_def) for name, tool in tools.items()}
        return tools

    def needs_approval(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], config: ApprovalConfig
    ) -> ApprovalResult:
        """The config's verdict for tools it names, else the verdict of the tool's annotations."""
        if name in config:
            return needs_approval_from_config(name, config)
        return mcp_annotation_verdict(name, self._annotations.get(name, {}))
