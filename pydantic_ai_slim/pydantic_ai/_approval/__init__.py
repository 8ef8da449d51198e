"""The approval toolkit behind `Agent.to_cli()`, `Agent.to_web()` and the approval examples.

A policy (`ApprovalToolset` with per-tool config), a handler factory (`approval_handler`, which turns a
per-call callback into a deferred tool handler) and a terminal approver (`TerminalApprover`). It is private:
the examples in `pydantic_ai_examples.approval` re-export it as their public toolkit.
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
from .policy import (
    ApprovalConfig,
    ApprovalResult,
    ApprovalStatus,
    SupportsApprovalDescription,
    SupportsNeedsApproval,
    ToolApprovalConfig,
    needs_approval_from_config,
)
from .terminal import ApprovalDisplay, ScriptedAnswers, TerminalApprover
from .toolset import ApprovalToolset, default_description

__all__ = (
    'ApprovalBatch',
    'ApprovalBlocked',
    'ApprovalCallback',
    'ApprovalConfig',
    'ApprovalDecision',
    'ApprovalDenied',
    'ApprovalDisplay',
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
    'DecisionSource',
    'ExternalCallHandler',
    'ScriptedAnswers',
    'SupportsApprovalDescription',
    'SupportsNeedsApproval',
    'TerminalApprover',
    'ToolApprovalConfig',
    'approval_handler',
    'default_description',
    'needs_approval_from_config',
    'session_key',
)
