"""Shared test fixtures."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """Run async tests on asyncio only."""
    return 'asyncio'
