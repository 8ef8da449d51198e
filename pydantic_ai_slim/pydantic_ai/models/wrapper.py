"""`WrapperModel`: a model that hands every request to another model, for models that add behaviour around one."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..messages import ModelMessage, ModelResponse
from ..profiles import ModelProfile
from ..settings import ModelSettings
from ..usage import RequestUsage
from . import KnownModelName, Model, ModelRequestParameters, StreamedResponse, infer_model

if TYPE_CHECKING:
    from .._run_context import RunContext

__all__ = ('WrapperModel',)


@dataclass(init=False)
class WrapperModel(Model):
    """A model that delegates requests, settings and profile to the model it wraps; subclasses add behaviour."""

    wrapped: Model
    """The model requests are sent to."""

    def __init__(self, wrapped: Model | KnownModelName):
        """Wrap a model, or the model a name such as `'test'` resolves to."""
        super().__init__()
        self.wrapped = infer_model(wrapped)

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Send the request to the wrapped model."""
        return await self.wrapped.request(messages, model_settings, model_request_parameters)

    async def count_tokens(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> RequestUsage:
        """Count the request's tokens with the wrapped model."""
        return await self.wrapped.count_tokens(messages, model_settings, model_request_parameters)

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        """Stream the request from the wrapped model."""
        async with self.wrapped.request_stream(
            messages, model_settings, model_request_parameters, run_context
        ) as response_stream:
            yield response_stream

    def customize_request_parameters(self, model_request_parameters: ModelRequestParameters) -> ModelRequestParameters:
        """The wrapped model's adaptation of the parameters."""
        return self.wrapped.customize_request_parameters(model_request_parameters)

    def prepare_request(
        self, model_settings: ModelSettings | None, model_request_parameters: ModelRequestParameters
    ) -> tuple[ModelSettings | None, ModelRequestParameters]:
        """The wrapped model's preparation of the settings and parameters."""
        return self.wrapped.prepare_request(model_settings, model_request_parameters)

    @property
    def model_name(self) -> str:
        """The wrapped model's name."""
        return self.wrapped.model_name

    @property
    def system(self) -> str:
        """The wrapped model's provider name."""
        return self.wrapped.system

    @cached_property
    def profile(self) -> ModelProfile:
        """The wrapped model's profile, kept after first use as upstream does."""
        return self.wrapped.profile

    @property
    def settings(self) -> ModelSettings | None:
        """The wrapped model's default settings."""
        return self.wrapped.settings

    def __getattr__(self, item: str) -> Any:
        # Attributes the wrapper does not define (a client, say) are the wrapped model's.
        if item == 'wrapped':
            raise AttributeError(item)
        return getattr(self.wrapped, item)
