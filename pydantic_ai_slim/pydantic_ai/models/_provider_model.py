"""`ProviderModel`: what the models that talk to a provider's API through its SDK client have in common."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic

from ..profiles import ModelProfileSpec
from ..providers import InterfaceClient, Provider
from ..settings import ModelSettings
from . import Model

__all__ = ('ProviderModel',)


@dataclass(init=False, repr=False)
class ProviderModel(Model, Generic[InterfaceClient]):
    """A model reached through a `Provider`: its client, its name and its base URL come from the provider."""

    # Declared as a field for upstream's dataclass shape; the property below reads it from the provider at each
    # use, so a missing API key is reported when the model is first used rather than when it is made.
    client: InterfaceClient = field(repr=False)  # pyright: ignore[reportRedeclaration]
    _model_name: str = field(repr=False)
    _provider: Provider[InterfaceClient] = field(repr=False)

    def __init__(
        self,
        model_name: str,
        provider: Provider[InterfaceClient],
        *,
        profile: ModelProfileSpec | None,
        settings: ModelSettings | None,
    ) -> None:
        self._model_name = model_name
        self._provider = provider
        super().__init__(settings=settings, profile=profile or provider.model_profile)

    def __repr__(self) -> str:
        # Every field is left out of the repr, as upstream's are.
        return f'{type(self).__name__}()'

    @property
    def client(self) -> InterfaceClient:  # noqa: F811 (the field above, see there)
        """The provider's SDK client; getting it without an API key raises `UserError`."""
        return self._provider.client

    @property
    def model_name(self) -> str:
        """The model's name."""
        return self._model_name

    @property
    def system(self) -> str:
        """The provider's name, e.g. `'openai'`."""
        return self._provider.name

    @property
    def base_url(self) -> str:
        """The provider's base URL."""
        return self._provider.base_url
