"""Shared test fixtures."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING

import pytest

from ._openai_server import ChatServer, chat_server

if TYPE_CHECKING:
    from openai import AsyncOpenAI


@pytest.fixture
def anyio_backend() -> str:
    """Run async tests on asyncio only."""
    return 'asyncio'


@pytest.fixture
def server() -> Iterator[ChatServer]:
    """A scripted model API server on 127.0.0.1 (OpenAI chat and Responses, Anthropic messages)."""
    with chat_server() as s:
        yield s


@pytest.fixture
async def client(server: ChatServer) -> AsyncIterator[AsyncOpenAI]:
    """An OpenAI SDK client of `server`; `tests/test_anthropic.py` has its own, of the Anthropic SDK."""
    from openai import AsyncOpenAI

    # No SDK retries, so each scripted error is seen once.
    client = AsyncOpenAI(base_url=server.base_url, api_key='test-key', max_retries=0)
    yield client
    await client.close()


def pytest_report_header() -> str:
    """Print the seed and size of the property tests, to reproduce a run."""
    from .test_properties import PROPERTY_EXAMPLES, PROPERTY_SEED

    return (
        f'property tests: seed {PROPERTY_SEED}, {PROPERTY_EXAMPLES} examples each (PYDANTIC_AI_PROPERTY_SEED/_EXAMPLES)'
    )
