"""Re-exports `pydantic_ai._approval.toolset`: the toolkit ships with the package (it backs `Agent.to_cli()`)."""

from __future__ import annotations

from pydantic_ai._approval.toolset import (
    ApprovalToolset,
    default_description,
)

__all__ = (
    'ApprovalToolset',
    'default_description',
)
