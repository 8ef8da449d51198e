"""Providers: where a model's API lives, the client that talks to it, and what its models support.

A provider is given to a model (e.g. `OpenAIChatModel('gpt-4o', provider=OpenAIProvider(...))`) or named in a
model string (`'openai:gpt-4o'`). Provider modules import their SDK, so they are loaded only when used.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from functools import cache
from typing import Any, Generic, TypeVar

from ..profiles import ModelProfile

__all__ = ('InterfaceClient', 'Provider', 'infer_provider', 'infer_provider_class')

InterfaceClient = TypeVar('InterfaceClient')
"""The type of the SDK client a provider gives its models."""


class Provider(ABC, Generic[InterfaceClient]):
    """Where a model's API lives and the client that talks to it."""

    @property
    @abstractmethod
    def name(self) -> str:
        """The provider's name, e.g. `'openai'`."""
        raise NotImplementedError

    @property
    @abstractmethod
    def base_url(self) -> str:
        """The base URL of the provider's API."""
        raise NotImplementedError

    @property
    @abstractmethod
    def client(self) -> InterfaceClient:
        """The SDK client requests are sent through."""
        raise NotImplementedError

    def model_profile(self, model_name: str) -> ModelProfile | None:
        """The profile of a model served by this provider, or `None` if the provider does not know it."""
        return None

    def __repr__(self) -> str:
        return f'{self.__class__.__name__}(name={self.name}, base_url={self.base_url})'


def infer_provider_class(provider: str) -> type[Provider[Any]]:
    """The provider class for a provider name, importing its module.

    Raises:
        ValueError: if the name is not a provider this distribution has.
        ImportError: if the provider's SDK is not installed.
    """
    if provider in ('openai', 'openai-chat', 'openai-responses'):
        from .openai import OpenAIProvider

        return OpenAIProvider
    if provider == 'anthropic':
        from .anthropic import AnthropicProvider

        return AnthropicProvider
    raise ValueError(f'Unknown provider: {provider}')


def infer_provider(provider: str) -> Provider[Any]:
    """A provider made from its name, configured from the environment.

    Raises:
        ValueError: if the name is not a provider this distribution has.
        ImportError: if the provider's SDK is not installed.
    """
    return infer_provider_class(provider)()


@cache
def _user_agent() -> str:  # pyright: ignore[reportUnusedFunction] (used by the model modules)
    """The `User-Agent` header model clients send: this package's name and version, as upstream's clients do."""
    # Imported here: `importlib.metadata` is a noticeable part of a cold import.
    import importlib.metadata

    return f'pydantic-ai/{importlib.metadata.version("pydantic-ai-slim")}'
