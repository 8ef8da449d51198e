"""`AnthropicProvider`: Anthropic's Messages API, through the official `anthropic` SDK."""

from __future__ import annotations

import copy
import os
from typing import Any, TypeAlias, cast

import httpx

from .._json_schema import JsonSchema, JsonSchemaTransformer
from ..exceptions import UserError
from ..profiles import ModelProfile
from ..profiles.anthropic import anthropic_model_profile
from . import Provider

try:
    from anthropic import (
        AsyncAnthropic,
        AsyncAnthropicBedrock,
        AsyncAnthropicFoundry,
        AsyncAnthropicVertex,
        transform_schema,
    )
except ImportError as _import_error:  # pragma: no cover
    raise ImportError(
        'Please install the `anthropic` package to use the Anthropic provider, '
        'you can use the `anthropic` optional group — `pip install "pydantic-ai-slim[anthropic]"`'
    ) from _import_error

__all__ = ('AnthropicJsonSchemaTransformer', 'AnthropicProvider', 'AsyncAnthropicClient')

AsyncAnthropicClient: TypeAlias = AsyncAnthropic | AsyncAnthropicBedrock | AsyncAnthropicFoundry | AsyncAnthropicVertex
"""The SDK clients a provider can hold: Anthropic's own, or Claude on Bedrock, Foundry or Vertex AI."""

_DEFAULT_BASE_URL = 'https://api.anthropic.com'


class AnthropicJsonSchemaTransformer(JsonSchemaTransformer):
    """Fits schemas to Anthropic's strict mode with the SDK's own `transform_schema`.

    In strict mode, objects refuse extra properties and the keywords Anthropic does not enforce move into the
    description. Otherwise the schema is left alone and only checked for whether it already fits strict mode.
    """

    def __init__(
        self,
        schema: JsonSchema,
        *,
        strict: bool | None = None,
        prefer_inlined_defs: bool = False,
        simplify_nullable_unions: bool = False,
    ) -> None:
        """Prepare to fit `schema`; `strict=True` makes it strict.

        `prefer_inlined_defs` and `simplify_nullable_unions` are accepted for upstream's signature; the SDK's
        transformation keeps `$defs` and unions as they are.
        """
        super().__init__(schema, strict=strict)

    def walk(self) -> JsonSchema:
        """The schema without titles, made strict if `strict` is true."""
        schema = _without_titles(self.schema)
        if self.strict:
            return transform_schema(schema)
        try:
            self.is_strict_compatible = transform_schema(copy.deepcopy(schema)) == schema
        except ValueError:
            # The SDK refuses schemas it cannot make strict (e.g. a property of any type).
            self.is_strict_compatible = False
        return schema

    def transform(self, schema: JsonSchema) -> JsonSchema:
        """Nodes are not rewritten one by one: `walk` hands the whole schema to the SDK."""
        return schema  # pragma: no cover


def _without_titles(schema: Any) -> Any:
    """A copy of the schema without `title` keywords (a property called `title` stays)."""
    if isinstance(schema, list):
        return [_without_titles(item) for item in cast(list[Any], schema)]
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Any] = {}
    for key, value in cast(dict[str, Any], schema).items():
        if key == 'title' and isinstance(value, str):
            continue
        if key in ('properties', '$defs') and isinstance(value, dict):
            result[key] = {name: _without_titles(sub) for name, sub in cast(dict[str, Any], value).items()}
        else:
            result[key] = _without_titles(value)
    return result


class AnthropicProvider(Provider[AsyncAnthropicClient]):
    """Anthropic's API, or a server that speaks it at `base_url`.

    The key and base URL default to the `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL` environment variables. A
    missing key is reported when the client is first needed, so an agent can be defined before it is set.
    """

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        anthropic_client: AsyncAnthropicClient | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        """Make a provider from a key and base URL, or from a ready-made client.

        Args:
            api_key: The API key; default: `ANTHROPIC_API_KEY`.
            base_url: The API's base URL; default: `ANTHROPIC_BASE_URL`, else Anthropic's.
            anthropic_client: A configured SDK client, used as is; excludes `api_key` and `http_client`.
            http_client: The `httpx.AsyncClient` the SDK client sends requests with.

        Raises:
            UserError: if `anthropic_client` is combined with `api_key` or `http_client`.
        """
        self._client: AsyncAnthropicClient | None = None
        self._base_url = base_url or os.environ.get('ANTHROPIC_BASE_URL') or _DEFAULT_BASE_URL
        if anthropic_client is not None:
            if http_client is not None:
                raise UserError('Cannot provide both `anthropic_client` and `http_client`')
            if api_key is not None:
                raise UserError('Cannot provide both `anthropic_client` and `api_key`')
            self._client = anthropic_client
            return
        api_key = api_key or os.environ.get('ANTHROPIC_API_KEY')
        if api_key is not None:
            # The SDK annotates `http_client` with its own HTTP library's class but accepts httpx clients too.
            self._client = AsyncAnthropic(api_key=api_key, base_url=base_url, http_client=cast(Any, http_client))

    @property
    def name(self) -> str:
        """`'anthropic'`."""
        return 'anthropic'

    @property
    def base_url(self) -> str:
        """The API's base URL."""
        if self._client is not None:
            return str(self._client.base_url)
        return self._base_url

    @property
    def client(self) -> AsyncAnthropicClient:
        """The SDK client.

        Raises:
            UserError: if no API key was given or found in the environment.
        """
        if self._client is None:
            raise UserError(
                'Set the `ANTHROPIC_API_KEY` environment variable or pass it via `AnthropicProvider(api_key=...)`'
                'to use the Anthropic provider.'
            )
        return self._client

    def model_profile(self, model_name: str) -> ModelProfile | None:
        """The profile of a Claude model, with Anthropic's JSON schema transformer."""
        profile = ModelProfile(json_schema_transformer=AnthropicJsonSchemaTransformer)
        return profile.update(anthropic_model_profile(model_name))
