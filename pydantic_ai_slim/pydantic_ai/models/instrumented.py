"""OpenTelemetry instrumentation of models: `InstrumentationSettings` and `InstrumentedModel`.

Each request to an `InstrumentedModel` is a span following the OpenTelemetry GenAI semantic conventions
(operation, provider, request and response model, token usage, finish reasons, and the messages as span
attributes or as events), and its token usage is recorded in a histogram. Agents made with `instrument=`
wrap their model in one; the spans of runs and tool calls are made by the agent (see `pydantic_ai._otel`).

This module needs the `opentelemetry-api` package: `pip install "pydantic-ai-slim[otel]"`.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast
from urllib.parse import urlparse

from pydantic import TypeAdapter

try:
    from opentelemetry._logs import Logger, LoggerProvider, LogRecord, get_logger_provider
    from opentelemetry.metrics import Histogram, Meter, MeterProvider, get_meter_provider
    from opentelemetry.trace import Span, SpanKind, Tracer, TracerProvider, get_tracer_provider
    from opentelemetry.util.types import AttributeValue
except ImportError as _import_error:  # pragma: no cover - exercised only without the optional package
    raise ImportError(
        'Please install `opentelemetry-api` to use instrumentation, '
        'you can use the `otel` optional group — `pip install "pydantic-ai-slim[otel]"`'
    ) from _import_error

from .._otel import guarded_span, safely
from ..messages import ModelMessage, ModelRequest, ModelResponse, SystemPromptPart
from ..settings import ModelSettings
from . import KnownModelName, Model, ModelRequestParameters, StreamedResponse
from .wrapper import WrapperModel

if TYPE_CHECKING:
    from genai_prices.types import PriceCalculation

    from .._run_context import RunContext

__all__ = ('InstrumentationSettings', 'InstrumentedModel', 'instrument_model')

DEFAULT_INSTRUMENTATION_VERSION = 2
"""The instrumentation version used when none is given."""

MODEL_SETTING_ATTRIBUTES: tuple[str, ...] = (
    'max_tokens',
    'top_p',
    'seed',
    'temperature',
    'presence_penalty',
    'frequency_penalty',
)
"""Model settings recorded as `gen_ai.request.<name>` span attributes."""

TOKEN_HISTOGRAM_BOUNDARIES = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864)
"""The bucket boundaries of the token usage histogram, as the GenAI semantic conventions advise."""

GEN_AI_SYSTEM_ATTRIBUTE = 'gen_ai.system'
GEN_AI_PROVIDER_NAME_ATTRIBUTE = 'gen_ai.provider.name'
GEN_AI_REQUEST_MODEL_ATTRIBUTE = 'gen_ai.request.model'

_SCOPE = 'pydantic-ai'
_any_adapter: TypeAdapter[Any] = TypeAdapter(Any)


def _scope_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version('pydantic-ai-slim')
    except PackageNotFoundError:  # pragma: no cover - the package is always installed in development
        return 'unknown'


def instrument_model(model: Model, instrument: InstrumentationSettings | bool) -> Model:
    """`model` wrapped in an `InstrumentedModel` if `instrument` asks for it and it is not one already."""
    if instrument and not isinstance(model, InstrumentedModel):
        if instrument is True:
            instrument = InstrumentationSettings()
        model = InstrumentedModel(model, instrument)
    return model


@dataclass(init=False)
class InstrumentationSettings:
    """Where and how agent runs and model requests are traced.

    Give it to `Agent(instrument=...)`, `Agent.instrument_all(...)` or `InstrumentedModel`.
    """

    tracer: Tracer = field(repr=False)
    """The tracer spans are made with."""
    logger: Logger = field(repr=False)
    """The logger GenAI events are emitted with, in `event_mode='logs'`."""
    event_mode: Literal['attributes', 'logs'] = 'attributes'
    """Version 1 only: whether messages are recorded as a span attribute or emitted as log events."""
    include_binary_content: bool = True
    """Whether binary content (images, audio, ...) is recorded, base64-encoded."""
    include_content: bool = True
    """Whether prompts, completions, tool arguments and tool results are recorded at all."""
    version: Literal[1, 2, 3] = DEFAULT_INSTRUMENTATION_VERSION
    """The format: 1 records messages as GenAI events, 2 and 3 as `gen_ai.input.messages` /
    `gen_ai.output.messages` attributes; 3 also names spans `invoke_agent ...` and `execute_tool ...`."""

    def __init__(
        self,
        *,
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
        include_binary_content: bool = True,
        include_content: bool = True,
        version: Literal[1, 2, 3] = DEFAULT_INSTRUMENTATION_VERSION,
        event_mode: Literal['attributes', 'logs'] = 'attributes',
        logger_provider: LoggerProvider | None = None,
    ):
        """Make the settings.

        Args:
            tracer_provider: Where spans go; the global tracer provider if not given.
            meter_provider: Where the token usage metric goes; the global meter provider if not given.
            include_binary_content: Whether binary content is recorded.
            include_content: Whether prompts, completions, tool arguments and results are recorded.
            version: The instrumentation format, see `version`.
            event_mode: Version 1 only: `'attributes'` or `'logs'`. Any other version given with `'logs'`
                is treated as version 1, with a warning.
            logger_provider: Where log events go in `event_mode='logs'`; the global one if not given.
        """
        from opentelemetry.metrics import NoOpMeterProvider

        tracer_provider = tracer_provider or get_tracer_provider()
        meter_provider = meter_provider or get_meter_provider()
        logger_provider = logger_provider or get_logger_provider()
        scope_version = _scope_version()
        self.tracer = tracer_provider.get_tracer(_SCOPE, scope_version)
        self.meter: Meter = meter_provider.get_meter(_SCOPE, scope_version)
        self.logger = logger_provider.get_logger(_SCOPE, scope_version)
        self.event_mode = event_mode
        self.include_binary_content = include_binary_content
        self.include_content = include_content
        if event_mode == 'logs' and version != 1:
            warnings.warn(
                'event_mode is only relevant for version=1 which is deprecated and will be removed in a future release.',
                stacklevel=2,
            )
            version = 1
        self.version = version
        self._metrics_on = not isinstance(meter_provider, NoOpMeterProvider)
        self.tokens_histogram: Histogram = self.meter.create_histogram(
            'gen_ai.client.token.usage',
            unit='{token}',
            description='Measures number of input and output tokens used',
            explicit_bucket_boundaries_advisory=list(TOKEN_HISTOGRAM_BOUNDARIES),
        )
        self.cost_histogram: Histogram = self.meter.create_histogram(
            'operation.cost', unit='{USD}', description='Monetary cost'
        )

    def messages_to_otel_events(
        self, messages: list[ModelMessage], parameters: ModelRequestParameters | None = None
    ) -> list[LogRecord]:
        """The messages as GenAI events (version 1), each with `gen_ai.message.index`, instructions first."""
        events: list[LogRecord] = []
        for index, message in enumerate(messages):
            records = (
                [part.otel_event(self) for part in message.parts]
                if isinstance(message, ModelRequest)
                else message.otel_events(self)
            )
            for record in records:
                record.attributes = {'gen_ai.message.index': index, **(record.attributes or {})}
            events.extend(records)
        instructions = _last_instructions(messages)
        if instructions is not None:
            body = {**({'content': instructions} if self.include_content else {}), 'role': 'system'}
            events.insert(0, LogRecord(attributes={'event.name': 'gen_ai.system.message'}, body=body))
        return events

    def messages_to_otel_messages(self, messages: list[ModelMessage]) -> list[dict[str, Any]]:
        """The messages in the GenAI semantic conventions' format (versions 2 and 3)."""
        result: list[dict[str, Any]] = []
        for message in messages:
            if isinstance(message, ModelRequest):
                current: dict[str, Any] | None = None
                for part in message.parts:
                    role = 'system' if isinstance(part, SystemPromptPart) else 'user'
                    if current is None or current['role'] != role:
                        current = {'role': role, 'parts': []}
                        result.append(current)
                    current['parts'].extend(part.otel_message_parts(self))
            else:
                output: dict[str, Any] = {'role': 'assistant', 'parts': message.otel_message_parts(self)}
                if message.finish_reason is not None:
                    output['finish_reason'] = message.finish_reason
                result.append(output)
        return result

    def system_instructions_attributes(self, instructions: str | None) -> dict[str, str]:
        """The `gen_ai.system_instructions` attribute for these instructions, when content is recorded."""
        if instructions and self.include_content:
            return {'gen_ai.system_instructions': json.dumps([{'type': 'text', 'content': instructions}])}
        return {}

    def handle_messages(
        self,
        input_messages: list[ModelMessage],
        response: ModelResponse,
        system: str,
        span: Span,
        parameters: ModelRequestParameters | None = None,
    ) -> None:
        """Record a request's messages and response on its span: as attributes, or (version 1) as events."""
        if self.version == 1:
            events = self.messages_to_otel_events(input_messages, parameters)
            for record in response.otel_events(self):
                body = dict(cast(dict[str, Any], record.body))
                events.append(LogRecord(attributes={'event.name': 'gen_ai.choice'}, body={'index': 0, 'message': body}))
            for record in events:
                record.attributes = {**(record.attributes or {}), GEN_AI_SYSTEM_ATTRIBUTE: system}
            self._emit_events(span, events)
            return
        attributes: dict[str, AttributeValue] = {
            'gen_ai.input.messages': json.dumps(self.messages_to_otel_messages(input_messages)),
            'gen_ai.output.messages': json.dumps(self.messages_to_otel_messages([response])),
            **self.system_instructions_attributes(_last_instructions(input_messages)),
        }
        properties = {name: {'type': 'array'} for name in attributes}
        properties['model_request_parameters'] = {'type': 'object'}
        attributes['logfire.json_schema'] = json.dumps({'type': 'object', 'properties': properties})
        span.set_attributes(attributes)

    def _emit_events(self, span: Span, events: list[LogRecord]) -> None:
        if self.event_mode == 'logs':
            for event in events:
                self.logger.emit(event)
            return
        schema = {
            'type': 'object',
            'properties': {'events': {'type': 'array'}, 'model_request_parameters': {'type': 'object'}},
        }
        span.set_attributes(
            {
                'events': json.dumps([InstrumentedModel.event_to_dict(event) for event in events]),
                'logfire.json_schema': json.dumps(schema),
            }
        )

    def record_metrics(
        self, response: ModelResponse, price_calculation: PriceCalculation | None, attributes: dict[str, AttributeValue]
    ) -> None:
        """Record the response's token usage, and with a price its cost, in the token and cost histograms."""
        if not self._metrics_on:
            return
        usage = response.usage
        for token_type, tokens in (('input', usage.input_tokens), ('output', usage.output_tokens)):
            if not tokens:
                continue
            point = {**attributes, 'gen_ai.token.type': token_type}
            self.tokens_histogram.record(tokens, point)
            if price_calculation is not None:
                price = price_calculation.input_price if token_type == 'input' else price_calculation.output_price
                self.cost_histogram.record(float(price), point)


def _price(response: ModelResponse) -> PriceCalculation | None:
    """The response's cost, if `genai-prices` knows the model (most test and function models it does not)."""
    if not response.model_name:
        return None
    try:
        return response.cost()
    except Exception:
        return None


def _last_instructions(messages: list[ModelMessage]) -> str | None:
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            return message.instructions
    return None


@dataclass(init=False)
class InstrumentedModel(WrapperModel):
    """A model whose requests are traced with OpenTelemetry, as `InstrumentationSettings` say."""

    instrumentation_settings: InstrumentationSettings
    """Where and how requests are traced."""

    def __init__(self, wrapped: Model | KnownModelName, options: InstrumentationSettings | None = None) -> None:
        """Wrap a model (or the model a name resolves to); `options` default to `InstrumentationSettings()`."""
        super().__init__(wrapped)
        self.instrumentation_settings = options or InstrumentationSettings()

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Send the request to the wrapped model inside a `chat {model}` span."""
        with self._instrument(messages, model_settings, model_request_parameters) as finish:
            response = await self.wrapped.request(messages, model_settings, model_request_parameters)
            finish(response)
            return response

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        """Stream the request from the wrapped model inside a `chat {model}` span, ended when the stream is."""
        with self._instrument(messages, model_settings, model_request_parameters) as finish:
            response_stream: StreamedResponse | None = None
            try:
                async with self.wrapped.request_stream(
                    messages, model_settings, model_request_parameters, run_context
                ) as response_stream:
                    yield response_stream
            finally:
                if response_stream is not None:
                    finish(response_stream.get())

    @contextmanager
    def _instrument(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> Iterator[Any]:
        settings = self.instrumentation_settings
        # The history grows after the request (a streamed run appends the response while the span is open).
        messages = list(messages)
        attributes: dict[str, AttributeValue] = {
            'gen_ai.operation.name': 'chat',
            **self.model_attributes(self.wrapped),
            **self.model_request_parameters_attributes(model_request_parameters),
            'logfire.json_schema': json.dumps(
                {'type': 'object', 'properties': {'model_request_parameters': {'type': 'object'}}}
            ),
        }
        for key in MODEL_SETTING_ATTRIBUTES:
            value = (model_settings or {}).get(key)
            if isinstance(value, int | float):
                attributes[f'gen_ai.request.{key}'] = value
        tool_definitions = _tool_definitions(model_request_parameters)
        if tool_definitions:
            attributes['gen_ai.tool.definitions'] = json.dumps(tool_definitions)
        name = f'chat {self.wrapped.model_name}'
        with guarded_span(settings, name, attributes, SpanKind.CLIENT) as span:

            def finish(response: ModelResponse) -> None:
                if span.is_recording():
                    safely('recording a model response', lambda: record(response), None)

            def record(response: ModelResponse) -> None:
                settings.handle_messages(messages, response, self.wrapped.system, span, model_request_parameters)
                response_model = response.model_name or self.wrapped.model_name
                attributes_out: dict[str, AttributeValue] = {
                    **response.usage.opentelemetry_attributes(),
                    'gen_ai.response.model': response_model,
                }
                if response.provider_response_id is not None:
                    attributes_out['gen_ai.response.id'] = response.provider_response_id
                if response.finish_reason is not None:
                    attributes_out['gen_ai.response.finish_reasons'] = [response.finish_reason]
                price = _price(response)
                if price is not None:
                    attributes_out['operation.cost'] = float(price.total_price)
                span.set_attributes(attributes_out)
                metric_attributes = {
                    key: value
                    for key, value in attributes.items()
                    if key in ('gen_ai.operation.name', GEN_AI_SYSTEM_ATTRIBUTE, GEN_AI_PROVIDER_NAME_ATTRIBUTE)
                    or key == GEN_AI_REQUEST_MODEL_ATTRIBUTE
                }
                settings.record_metrics(response, price, {**metric_attributes, 'gen_ai.response.model': response_model})

            yield finish

    @staticmethod
    def model_attributes(model: Model) -> dict[str, AttributeValue]:
        """The attributes naming a model: provider, requested model and, if it has one, the server."""
        attributes: dict[str, AttributeValue] = {
            GEN_AI_PROVIDER_NAME_ATTRIBUTE: model.system,
            GEN_AI_SYSTEM_ATTRIBUTE: model.system,
            GEN_AI_REQUEST_MODEL_ATTRIBUTE: model.model_name,
        }
        if model.base_url:
            parsed = urlparse(model.base_url)
            if parsed.hostname:
                attributes['server.address'] = parsed.hostname
            if parsed.port:
                attributes['server.port'] = parsed.port
        return attributes

    @staticmethod
    def model_request_parameters_attributes(
        model_request_parameters: ModelRequestParameters,
    ) -> dict[str, AttributeValue]:
        """The request parameters as a JSON `model_request_parameters` attribute."""
        return {'model_request_parameters': _any_adapter.dump_json(model_request_parameters).decode()}

    @staticmethod
    def event_to_dict(event: LogRecord) -> dict[str, Any]:
        """A log event as one flat dict: its attributes and its body (a body that is not a dict under `body`)."""
        body = event.body
        as_dict = dict(cast(dict[str, Any], body)) if isinstance(body, dict) else {'body': body}
        return {**as_dict, **(event.attributes or {})}

    @staticmethod
    def serialize_any(value: Any) -> Any:
        """`value` as JSON-able data (dataclasses and models become dicts), or its `str` if it cannot be."""
        try:
            return _any_adapter.dump_python(value, mode='json')
        except Exception:
            return str(value)


def _tool_definitions(parameters: ModelRequestParameters) -> list[dict[str, Any]]:
    definitions: list[dict[str, Any]] = []
    for tool in [*parameters.function_tools, *parameters.output_tools]:
        definition: dict[str, Any] = {'type': 'function', 'name': tool.name}
        if tool.description:
            definition['description'] = tool.description
        definition['parameters'] = tool.parameters_json_schema
        definitions.append(definition)
    return definitions
