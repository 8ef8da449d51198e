"""`DBOSModel`: a model whose requests are DBOS steps, so a recovered workflow does not send them again."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from dbos import DBOS

from ..._agent_graph import EventStreamHandler
from ..._run_context import RunContext
from ...messages import ModelMessage, ModelResponse, ModelResponseStreamEvent
from ...models import Model, ModelRequestParameters, StreamedResponse
from ...models.wrapper import WrapperModel
from ...settings import ModelSettings
from ._utils import StepConfig, step_options

__all__ = ('DBOSModel',)


@dataclass(init=False)
class DBOSModel(WrapperModel):
    """Wraps a model so that each request is a DBOS step named `'{step_name_prefix}__model.request'`.

    Outside a workflow the steps are plain calls. A streamed request is streamed inside its step (named
    `'{step_name_prefix}__model.request_stream'`), where `event_stream_handler` gets its events; the workflow
    sees the finished response, which a replay takes from the database. Everything else (name, profile,
    settings) is the wrapped model's.
    """

    def __init__(
        self,
        model: Model,
        *,
        step_name_prefix: str,
        step_config: StepConfig,
        event_stream_handler: EventStreamHandler[Any] | None = None,
    ):
        """Wrap `model`; `step_config` sets the steps' retries, `event_stream_handler` sees streamed requests."""
        super().__init__(model)
        self.event_stream_handler = event_stream_handler
        options = step_options(step_config)

        @DBOS.step(name=f'{step_name_prefix}__model.request', **options)
        async def request_step(
            messages: list[ModelMessage], settings: ModelSettings | None, params: ModelRequestParameters
        ) -> ModelResponse:
            return await self.wrapped.request(messages, settings, params)

        @DBOS.step(name=f'{step_name_prefix}__model.request_stream', **options)
        async def request_stream_step(
            messages: list[ModelMessage],
            settings: ModelSettings | None,
            params: ModelRequestParameters,
            run_context: RunContext[Any] | None,
        ) -> ModelResponse:
            async with self.wrapped.request_stream(messages, settings, params, run_context) as stream:
                if self.event_stream_handler is not None and run_context is not None:
                    await self.event_stream_handler(run_context, stream)
                async for _ in stream:
                    pass
            return stream.get()

        self._request_step = request_step
        self._request_stream_step = request_stream_step

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Send the request in a step."""
        return await self._request_step(messages, model_settings, model_request_parameters)

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        """Stream the request inside a step (outside a workflow: stream it as the wrapped model does)."""
        if DBOS.workflow_id is None:
            async with self.wrapped.request_stream(
                messages, model_settings, model_request_parameters, run_context
            ) as stream:
                yield stream
            return
        response = await self._request_stream_step(messages, model_settings, model_request_parameters, run_context)
        yield _FinishedStream(model_request_parameters, response)


@dataclass
class _FinishedStream(StreamedResponse):
    """A response streamed (and its events handled) inside a step: no events, only the finished response."""

    response: ModelResponse = field(kw_only=True)

    def __init__(self, model_request_parameters: ModelRequestParameters, response: ModelResponse):
        super().__init__(model_request_parameters)
        self.response = response

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        return
        yield  # pragma: no cover

    def get(self) -> ModelResponse:
        return self.response

    @property
    def model_name(self) -> str:
        return self.response.model_name or ''

    @property
    def provider_name(self) -> str | None:
        return self.response.provider_name

    @property
    def provider_url(self) -> str | None:
        return self.response.provider_url

    @property
    def timestamp(self) -> datetime:
        return self.response.timestamp
