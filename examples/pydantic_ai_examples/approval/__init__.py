"""Blocking approval for agent tools, built on the deferred tool handler.

Two pieces, each usable alone:

- `ApprovalToolset` wraps a toolset and applies a policy to each call: pre-approved calls run, the others
  are deferred with `ApprovalRequired` and metadata describing them (blocked ones marked so).
- `approval_handler(callback)` turns a per-call callback into a deferred tool handler: it denies blocked
  calls, reuses decisions remembered for the session, and asks the callback about the rest.

Together they replace a blocking-approval toolset without any loop code: the run pauses in the handler
while a person decides, then carries on with the results. `python -m pydantic_ai_examples.approval` runs
the interactive demo (with `--mcp`, on a real MCP filesystem server). `MCPAnnotationPolicy` decides from MCP
tool annotations: read-only tools run, destructive ones ask.
"""

from __future__ import annotations

from .exceptions import ApprovalBlocked, ApprovalDenied, ApprovalError
from .handler import (
    ApprovalBatch,
    ApprovalCallback,
    ApprovalDecision,
    ApprovalHandler,
    ApprovalRecord,
    ApprovalRequest,
    ApprovalSession,
    BatchEntry,
    BatchHook,
    DecisionSource,
    ExternalCallHandler,
    approval_handler,
    session_key,
)
from .mcp_policy import MCPAnnotationPolicy, mcp_annotation_verdict, mcp_approval_required, tool_annotations
from .policy import (
    ApprovalConfig,
    ApprovalResult,
    ApprovalStatus,
    SupportsApprovalDescription,
    SupportsNeedsApproval,
    ToolApprovalConfig,
    needs_approval_from_config,
)
from .toolset import ApprovalToolset, default_description
from .trace import POLICY_EVENT, DecidingPolicy, record_policy, span_to_dict, trace_to_file

__all__ = (
    'POLICY_EVENT',
    'ApprovalBatch',
    'ApprovalBlocked',
    'ApprovalCallback',
    'ApprovalConfig',
    'ApprovalDecision',
    'ApprovalDenied',
    'ApprovalError',
    'ApprovalHandler',
    'ApprovalRecord',
    'ApprovalRequest',
    'ApprovalResult',
    'ApprovalSession',
    'ApprovalStatus',
    'ApprovalToolset',
    'BatchEntry',
    'BatchHook',
    'DecidingPolicy',
    'DecisionSource',
    'ExternalCallHandler',
    'MCPAnnotationPolicy',
    'SupportsApprovalDescription',
    'SupportsNeedsApproval',
    'ToolApprovalConfig',
    'approval_handler',
    'default_description',
    'mcp_annotation_verdict',
    'mcp_approval_required',
    'needs_approval_from_config',
    'record_policy',
    'session_key',
    'span_to_dict',
    'tool_annotations',
    'trace_to_file',
)
