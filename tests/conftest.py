"""Shared test fixtures."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """Run async tests on asyncio only."""
    return 'asyncio'


def pytest_report_header() -> str:
    """Print the seed and size of the property tests, to reproduce a run."""
    from .test_properties import PROPERTY_EXAMPLES, PROPERTY_SEED

    return (
        f'property tests: seed {PROPERTY_SEED}, {PROPERTY_EXAMPLES} examples each (PYDANTIC_AI_PROPERTY_SEED/_EXAMPLES)'
    )
