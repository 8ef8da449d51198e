"""Re-exports `pydantic_ai._approval.policy`: the toolkit ships with the package (it backs `Agent.to_cli()`)."""

from __future__ import annotations

from pydantic_ai._approval.policy import (
    ApprovalConfig,
    ApprovalResult,
    ApprovalStatus,
    SupportsApprovalDescription,
    SupportsNeedsApproval,
    ToolApprovalConfig,
    needs_approval_from_config,
)

__all__ = (
    'ApprovalConfig',
    'ApprovalResult',
    'ApprovalStatus',
    'SupportsApprovalDescription',
    'SupportsNeedsApproval',
    'ToolApprovalConfig',
    'needs_approval_from_config',
)
