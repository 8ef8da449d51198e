"""Re-exports `pydantic_ai._approval.handler`: the toolkit ships with the package (it backs `Agent.to_cli()`)."""

from __future__ import annotations

from pydantic_ai._approval.handler import (
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

__all__ = (
    'ApprovalBatch',
    'ApprovalCallback',
    'ApprovalDecision',
    'ApprovalHandler',
    'ApprovalRecord',
    'ApprovalRequest',
    'ApprovalSession',
    'BatchEntry',
    'BatchHook',
    'DecisionSource',
    'ExternalCallHandler',
    'approval_handler',
    'session_key',
)
