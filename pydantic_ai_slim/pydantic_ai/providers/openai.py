"""`OpenAIProvider`: OpenAI's API, or any server that speaks it (vLLM, Ollama, llama.cpp, ...) at a base URL."""

from __future__ import annotations

import os
from typing import Any, cast

import httpx

from ..exceptions import UserError
from ..profiles import ModelProfile
from ..profiles.openai import openai_model_profile
from . import Provider

try:
    from openai import AsyncOpenAI
except ImportError as _import_error:  # pragma: no cover
    raise ImportError(
        'Please install the `openai` package to use the OpenAI provider, '
        'you can use the `openai` optional group — `pip install "pydantic-ai-slim[openai]"`'
    ) from _import_error

__all__ = ('OpenAIProvider',)

_DEFAULT_BASE_URL = 'https://api.openai.com/v1'
# Sent as the key to servers given by URL without one: local servers usually need none, but the SDK insists.
_PLACEHOLDER_API_KEY = 'api-key-not-set'


class OpenAIProvider(Provider[AsyncOpenAI]):
    """OpenAI's API, or an OpenAI-compatible server at `base_url`.

    The key and base URL default to the `OPENAI_API_KEY` and `OPENAI_BASE_URL` environment variables. A
    missing key is reported when the client is first needed, so an agent can be defined before it is set.
    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        openai_client: AsyncOpenAI | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        """Make a provider from a base URL and key, or from a ready-made client.

        Args:
            base_url: The API's base URL, e.g. `'http://localhost:11434/v1'`; default: `OPENAI_BASE_URL`, else OpenAI.
            api_key: The API key; default: `OPENAI_API_KEY`. Not needed with an explicit `base_url`.
            openai_client: A configured `AsyncOpenAI` client, used as is; excludes the other arguments.
            http_client: The `httpx.AsyncClient` the SDK client sends requests with.

        Raises:
            UserError: if `openai_client` is combined with another argument.
        """
        self._client: AsyncOpenAI | None = None
        self._base_url = base_url or os.environ.get('OPENAI_BASE_URL') or _DEFAULT_BASE_URL
        if openai_client is not None:
            for name, value in (('base_url', base_url), ('api_key', api_key), ('http_client', http_client)):
                if value is not None:
                    raise UserError(f'Cannot provide both `openai_client` and `{name}`')
            self._client = openai_client
            return
        api_key = api_key or os.environ.get('OPENAI_API_KEY')
        if api_key is None and base_url is not None:
            api_key = _PLACEHOLDER_API_KEY
        if api_key is not None:
            # The SDK annotates `http_client` with its own HTTP library's class but accepts httpx clients too.
            self._client = AsyncOpenAI(base_url=base_url, api_key=api_key, http_client=cast(Any, http_client))

    @property
    def name(self) -> str:
        """`'openai'`."""
        return 'openai'

    @property
    def base_url(self) -> str:
        """The API's base URL, ending with a slash."""
        if self._client is not None:
            return str(self._client.base_url)
        return self._base_url.rstrip('/') + '/'

    @property
    def client(self) -> AsyncOpenAI:
        """The SDK client.

        Raises:
            UserError: if no API key was given or found in the environment.
        """
        if self._client is None:
            raise UserError(
                'Set the `OPENAI_API_KEY` environment variable or pass it via `OpenAIProvider(api_key=...)` '
                'to use the OpenAI provider.'
            )
        return self._client

    def model_profile(self, model_name: str) -> ModelProfile | None:
        """The profile of an OpenAI model; other names get the same OpenAI defaults."""
        return openai_model_profile(model_name)
