"""Re-exports `pydantic_ai._approval.exceptions`: the toolkit ships with the package (it backs `Agent.to_cli()`)."""

from __future__ import annotations

from pydantic_ai._approval.exceptions import (
    ApprovalBlocked,
    ApprovalDenied,
    ApprovalError,
)

__all__ = (
    'ApprovalBlocked',
    'ApprovalDenied',
    'ApprovalError',
)
