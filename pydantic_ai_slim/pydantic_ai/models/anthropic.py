"""`AnthropicModel`: Claude models through Anthropic's Messages API.

Requests go through the official `anthropic` SDK (the `anthropic` optional dependencies), on its beta messages
resource as upstream does. Messages are mapped to content blocks here; a failed request becomes
`ModelHTTPError` or `ModelAPIError`, and a body that is not a message `UnexpectedModelBehavior`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast

import httpx
import pydantic

from .. import _utils
from .._json_schema import JsonSchemaTransformer
from ..exceptions import ModelAPIError, ModelHTTPError, UnexpectedModelBehavior, UserError
from ..messages import (
    BinaryContent,
    CachePoint,
    DocumentUrl,
    FinishReason,
    ImageUrl,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelResponsePart,
    ModelResponseStreamEvent,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserContent,
    UserPromptPart,
)
from ..profiles import ModelProfileSpec
from ..providers import Provider, _user_agent, infer_provider
from ..settings import ModelSettings
from ..tools import ToolDefinition
from ..usage import RequestUsage
from . import ModelRequestParameters, StreamedResponse
from ._provider_model import ProviderModel

try:
    from anthropic import APIConnectionError, APIError, APIStatusError, AsyncAnthropic
    from anthropic.types.beta import (
        BetaContainerParams,
        BetaMessage,
        BetaMetadataParam,
        BetaRawMessageStreamEvent,
        BetaThinkingConfigParam,
    )
    from anthropic.types.model_param import ModelParam

    from ..providers.anthropic import AsyncAnthropicClient
except ImportError as _import_error:  # pragma: no cover
    raise ImportError(
        'Please install `anthropic` to use the Anthropic model, '
        'you can use the `anthropic` optional group — `pip install "pydantic-ai-slim[anthropic]"`'
    ) from _import_error

if TYPE_CHECKING:
    from .._run_context import RunContext

__all__ = (
    'AnthropicModel',
    'AnthropicModelName',
    'AnthropicModelSettings',
    'AnthropicStreamedResponse',
    'LatestAnthropicModelNames',
)

LatestAnthropicModelNames: TypeAlias = ModelParam
"""The model names the `anthropic` SDK knows."""

AnthropicModelName: TypeAlias = str | LatestAnthropicModelNames
"""A model name: any string, with Anthropic's own model names suggested."""

CacheTtl: TypeAlias = bool | Literal['5m', '1h']


class AnthropicModelSettings(ModelSettings, total=False):
    """Settings for `AnthropicModel` requests: the common settings plus Anthropic's own, prefixed `anthropic_`."""

    anthropic_metadata: BetaMetadataParam
    """Metadata about the request, e.g. `{'user_id': ...}`."""
    anthropic_thinking: BetaThinkingConfigParam
    """Extended thinking: `{'type': 'enabled', 'budget_tokens': N}` or `{'type': 'disabled'}`."""
    anthropic_cache_tool_definitions: CacheTtl
    """Cache the tool definitions: `True` (5 minutes), `'5m'` or `'1h'`."""
    anthropic_cache_instructions: CacheTtl
    """Cache the system prompt and instructions: `True` (5 minutes), `'5m'` or `'1h'`."""
    anthropic_cache_messages: CacheTtl
    """Cache the conversation up to the last user message: `True` (5 minutes), `'5m'` or `'1h'`."""
    anthropic_container: BetaContainerParams | Literal[False]
    """The code execution container to use, or `False` for none."""


# What reading an SDK object built from a malformed body raises: missing attributes, or values of the wrong type.
_MALFORMED = (AttributeError, KeyError, TypeError, ValueError)

_DEFAULT_MAX_TOKENS = 4096
_TOKEN_COUNTING_BETA = 'token-counting-2024-11-01'
# The request fields the token counting endpoint takes.
_COUNT_TOKENS_KEYS = frozenset({'model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'output_config'})
_STRUCTURED_OUTPUTS_BETA = 'structured-outputs-2025-11-13'

_FINISH_REASONS: dict[str, FinishReason] = {
    'end_turn': 'stop',
    'max_tokens': 'length',
    'stop_sequence': 'stop',
    'tool_use': 'tool_call',
    'pause_turn': 'stop',
    'refusal': 'content_filter',
}

# Settings passed to the API under the same name, or another.
_SETTING_NAMES: dict[str, str] = {
    'temperature': 'temperature',
    'top_p': 'top_p',
    'stop_sequences': 'stop_sequences',
    'timeout': 'timeout',
    'extra_body': 'extra_body',
    'anthropic_metadata': 'metadata',
    'anthropic_thinking': 'thinking',
}


@dataclass(init=False, repr=False)
class AnthropicModel(ProviderModel[AsyncAnthropicClient]):
    """A Claude model behind Anthropic's Messages API (or Bedrock, Vertex AI or Foundry through their SDK clients)."""

    # The fields again, for their types in upstream's dataclass shape; the provider's client is read by the property.
    client: AsyncAnthropicClient  # pyright: ignore[reportIncompatibleMethodOverride]
    _model_name: AnthropicModelName = field(repr=False)
    _provider: Provider[AsyncAnthropicClient] = field(repr=False)

    def __init__(
        self,
        model_name: AnthropicModelName,
        *,
        provider: Literal['anthropic', 'gateway'] | Provider[AsyncAnthropicClient] = 'anthropic',
        profile: ModelProfileSpec | None = None,
        settings: ModelSettings | None = None,
    ) -> None:
        """Make a model.

        Args:
            model_name: The model's name, e.g. `'claude-sonnet-4-5'`.
            provider: The provider, or the name of one made from the environment (`ANTHROPIC_API_KEY`, ...).
            profile: What the model supports; by default the provider's profile for the model name.
            settings: Default settings for the model's requests.
        """
        if isinstance(provider, str):
            provider = cast(Provider[AsyncAnthropicClient], infer_provider(provider))
        super().__init__(model_name, provider, profile=profile, settings=settings)

    def customize_request_parameters(self, model_request_parameters: ModelRequestParameters) -> ModelRequestParameters:
        """Fit tool schemas (strict ones made strict) and the native output schema (always strict) to Anthropic.

        Raises:
            UserError: if native output is asked to be non-strict, which Anthropic does not offer.
        """
        params = model_request_parameters
        output_object = params.output_object
        if params.output_mode == 'native' and output_object is not None:
            if output_object.strict is False:
                raise UserError(
                    'Setting `strict=False` on `output_type=NativeOutput(...)` is not allowed for Anthropic models.'
                )
            output_object = replace(output_object, strict=True)
        transformer = self.profile.json_schema_transformer
        if transformer is None:
            return replace(params, output_object=output_object)
        transformer = cast(type[JsonSchemaTransformer], transformer)
        if output_object is not None:
            schema = transformer(output_object.json_schema, strict=output_object.strict).walk()
            output_object = replace(output_object, json_schema=schema)
        return replace(
            params,
            function_tools=[_transform_tool(tool, transformer) for tool in params.function_tools],
            output_tools=[_transform_tool(tool, transformer) for tool in params.output_tools],
            output_object=output_object,
        )

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Send the messages and return the model's response.

        Raises:
            ModelHTTPError: if the API answered with an error status.
            ModelAPIError: if the API could not be reached or timed out.
            UnexpectedModelBehavior: if the response is not a valid message.
        """
        client = self.client
        settings, params = self.prepare_request(model_settings, model_request_parameters)
        kwargs = self._request_kwargs(messages, cast(AnthropicModelSettings, settings or {}), params)
        try:
            response = await client.beta.messages.create(**kwargs, stream=False)
        except APIError as e:
            raise self._api_error(e) from e
        except json.JSONDecodeError as e:
            raise UnexpectedModelBehavior(
                'Invalid response from anthropic messages endpoint, expected JSON data', body=e.doc or None
            ) from e
        try:
            return self._process_response(response)
        except _MALFORMED as e:
            raise _invalid(e, response) from e

    async def count_tokens(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> RequestUsage:
        """Count the input tokens of a request with Anthropic's token counting endpoint, without sending it.

        Raises:
            ModelHTTPError: if the API answered with an error status.
            ModelAPIError: if the API could not be reached or timed out.
        """
        client = self.client
        settings, params = self.prepare_request(model_settings, model_request_parameters)
        kwargs = self._request_kwargs(messages, cast(AnthropicModelSettings, settings or {}), params)
        counted = {key: value for key, value in kwargs.items() if key in _COUNT_TOKENS_KEYS}
        betas = [kwargs['extra_headers'].get('anthropic-beta'), _TOKEN_COUNTING_BETA]
        counted['extra_headers'] = {**kwargs['extra_headers'], 'anthropic-beta': ','.join(filter(None, betas))}
        try:
            # Bedrock's and Vertex AI's SDK clients lack the endpoint; with them this fails as an unknown attribute.
            result = await cast(AsyncAnthropic, client).beta.messages.count_tokens(**counted)
        except APIError as e:
            raise self._api_error(e) from e
        return RequestUsage(input_tokens=result.input_tokens)

    @classmethod
    def supported_builtin_tools(cls) -> frozenset[type[Any]]:
        """The provider-side tools this model can use: none yet in this distribution (see the docs)."""
        return frozenset()

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        """Send the messages and stream the response, as an async context manager yielding an `AnthropicStreamedResponse`.

        Raises:
            ModelHTTPError: if the API answered with an error status.
            ModelAPIError: if the API could not be reached, timed out, or failed during the stream.
            UnexpectedModelBehavior: if the stream is empty or an event is not a valid message event.
        """
        client = self.client
        settings, params = self.prepare_request(model_settings, model_request_parameters)
        kwargs = self._request_kwargs(messages, cast(AnthropicModelSettings, settings or {}), params)
        try:
            stream = await client.beta.messages.create(**kwargs, stream=True)
        except APIError as e:
            raise self._api_error(e) from e
        async with stream:
            events = self._events(stream)
            first = await anext(events, None)
            if first is None:
                raise UnexpectedModelBehavior('Streamed response ended without content or tool calls')
            yield AnthropicStreamedResponse(
                params,
                _model_name=self._model_name,
                _first_event=first,
                _event_stream=events,
                _provider_name=self.system,
                _provider_url=self.base_url,
            )

    async def _events(self, stream: AsyncIterator[Any]) -> AsyncIterator[BetaRawMessageStreamEvent]:
        """The stream's events; SDK and HTTP failures become the model errors."""
        try:
            async for event in stream:
                yield event
        except APIError as e:
            raise self._api_error(e) from e
        except json.JSONDecodeError as e:
            raise UnexpectedModelBehavior(
                'Invalid response from anthropic messages endpoint, expected JSON data', body=e.doc or None
            ) from e
        except httpx.TimeoutException as e:
            raise ModelAPIError(self._model_name, 'Request timed out.') from e
        except httpx.HTTPError as e:
            # The connection dropped mid-stream.
            raise ModelAPIError(self._model_name, 'Connection error.') from e

    # Building the request.

    def _request_kwargs(
        self, messages: list[ModelMessage], settings: AnthropicModelSettings, params: ModelRequestParameters
    ) -> dict[str, Any]:
        """The keyword arguments of the SDK's `create` call, except `stream`."""
        system, mapped = self._map_messages(messages, params, settings)
        kwargs: dict[str, Any] = {
            'model': self._model_name,
            'max_tokens': settings.get('max_tokens', _DEFAULT_MAX_TOKENS),
            'messages': mapped,
        }
        if system:
            kwargs['system'] = system
        betas: list[str] = []
        tools = self._map_tools(params, settings)
        if tools:
            kwargs['tools'] = tools
            kwargs['tool_choice'] = _tool_choice(params, settings)
            if any(tool.get('strict') for tool in tools):
                betas.append(_STRUCTURED_OUTPUTS_BETA)
        output_object = params.output_object
        if params.output_mode == 'native' and output_object is not None:
            kwargs['output_config'] = {'format': {'type': 'json_schema', 'schema': output_object.json_schema}}
            betas.append(_STRUCTURED_OUTPUTS_BETA)
        for name, api_name in _SETTING_NAMES.items():
            if name in settings:
                kwargs[api_name] = settings.get(name)
        container = settings.get('anthropic_container')
        if container:
            kwargs['container'] = container
        headers = {'User-Agent': _user_agent()}
        if betas:
            headers['anthropic-beta'] = ','.join(dict.fromkeys(betas))
        kwargs['extra_headers'] = {**headers, **settings.get('extra_headers', {})}
        return kwargs

    def _map_tools(self, params: ModelRequestParameters, settings: AnthropicModelSettings) -> list[dict[str, Any]]:
        strict_supported = self.profile.supports_json_schema_output
        tools: list[dict[str, Any]] = []
        for tool in [*params.function_tools, *params.output_tools]:
            mapped: dict[str, Any] = {
                'name': tool.name,
                'description': tool.description or '',
                'input_schema': tool.parameters_json_schema,
            }
            if tool.strict and strict_supported:
                mapped['strict'] = True
            tools.append(mapped)
        ttl = settings.get('anthropic_cache_tool_definitions')
        if tools and ttl:
            tools[-1]['cache_control'] = _cache_control(ttl)
        return tools

    def _map_messages(
        self, messages: Sequence[ModelMessage], params: ModelRequestParameters, settings: AnthropicModelSettings
    ) -> tuple[str | list[dict[str, Any]], list[dict[str, Any]]]:
        """The system prompt (a string, or a cached text block) and the alternating user and assistant messages."""
        system_prompts: list[str] = []
        mapped: list[dict[str, Any]] = []
        for message in messages:
            if isinstance(message, ModelRequest):
                blocks: list[dict[str, Any]] = []
                for part in message.parts:
                    if isinstance(part, SystemPromptPart):
                        system_prompts.append(part.content)
                    else:
                        blocks.extend(_map_request_part(part))
                _append_message(mapped, 'user', blocks)
            else:
                _append_message(mapped, 'assistant', self._map_response(message))
        instructions = self._get_instructions(messages, params)
        if instructions:
            system_prompts.append(instructions)
        system = '\n\n'.join(system_prompts)
        cache_messages = settings.get('anthropic_cache_messages')
        if cache_messages and mapped and mapped[-1]['role'] == 'user' and mapped[-1]['content']:
            mapped[-1]['content'][-1]['cache_control'] = _cache_control(cache_messages)
        cache_instructions = settings.get('anthropic_cache_instructions')
        if system and cache_instructions:
            return [{'type': 'text', 'text': system, 'cache_control': _cache_control(cache_instructions)}], mapped
        return system, mapped

    def _map_response(self, message: ModelResponse) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        for part in message.parts:
            if isinstance(part, TextPart):
                if part.content:
                    blocks.append({'type': 'text', 'text': part.content})
            elif isinstance(part, ThinkingPart):
                blocks.extend(self._map_thinking(part))
            elif isinstance(part, ToolCallPart):
                blocks.append(
                    {'type': 'tool_use', 'id': part.tool_call_id, 'name': part.tool_name, 'input': part.args_as_dict()}
                )
            # Built-in tool parts and files are not sent back: this model supports no built-in tools yet.
        return blocks

    def _map_thinking(self, part: ThinkingPart) -> list[dict[str, Any]]:
        if part.provider_name == self.system and part.signature is not None:
            if part.id == 'redacted_thinking':
                return [{'type': 'redacted_thinking', 'data': part.signature}]
            return [{'type': 'thinking', 'thinking': part.content, 'signature': part.signature}]
        if not part.content:
            return []
        # Thinking of another provider cannot be verified by Anthropic, so it is sent as tagged text.
        start, end = self.profile.thinking_tags
        return [{'type': 'text', 'text': f'{start}\n{part.content}\n{end}'}]

    # Reading the response.

    def _process_response(self, message: BetaMessage) -> ModelResponse:
        """The response the message gives; reading a malformed one raises one of `_MALFORMED`."""
        parts: list[ModelResponsePart] = []
        for block in message.content:
            if block.type == 'text':
                parts.append(TextPart(block.text))
            elif block.type == 'thinking':
                parts.append(ThinkingPart(block.thinking, signature=block.signature, provider_name=self.system))
            elif block.type == 'redacted_thinking':
                part = ThinkingPart('', id='redacted_thinking', signature=block.data, provider_name=self.system)
                parts.append(part)
            elif block.type == 'tool_use':
                parts.append(ToolCallPart(block.name, cast(dict[str, Any], block.input), tool_call_id=block.id))
        stop_reason = message.stop_reason
        return ModelResponse(
            parts=parts,
            usage=_map_usage(message.usage.model_dump()),
            model_name=message.model,
            timestamp=_utils.now_utc(),
            provider_name=self.system,
            provider_url=self.base_url,
            provider_details=None if stop_reason is None else {'finish_reason': stop_reason},
            provider_response_id=message.id,
            finish_reason=None if stop_reason is None else _FINISH_REASONS.get(stop_reason),
        )

    def _api_error(self, error: APIError) -> ModelAPIError:
        if isinstance(error, APIStatusError):
            return ModelHTTPError(error.status_code, self._model_name, error.body)
        if isinstance(error, APIConnectionError):
            return ModelAPIError(self._model_name, error.message)
        return ModelAPIError(self._model_name, str(error))  # pragma: no cover


@dataclass
class AnthropicStreamedResponse(StreamedResponse):
    """A streamed message: text, thinking (with its signature) and tool-input pieces become part events.

    Content blocks are told apart by their index. The input usage comes with the message's start, the output
    usage with its end.
    """

    _model_name: str
    _first_event: BetaRawMessageStreamEvent
    _event_stream: AsyncIterator[BetaRawMessageStreamEvent]
    _provider_name: str
    _provider_url: str
    _timestamp: datetime = field(default_factory=_utils.now_utc)
    _raw_usage: dict[str, Any] = field(default_factory=dict[str, Any], init=False)

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        raw: BetaRawMessageStreamEvent | None = self._first_event
        while raw is not None:
            for event in self._checked_events(raw):
                yield event
            raw = await anext(self._event_stream, None)

    def _checked_events(self, raw: BetaRawMessageStreamEvent) -> list[ModelResponseStreamEvent]:
        try:
            return list(self._handle_event(raw))
        except _MALFORMED as e:
            raise _invalid(e, raw) from e

    def _handle_event(self, event: BetaRawMessageStreamEvent) -> Iterator[ModelResponseStreamEvent]:
        if event.type == 'message_start':
            self._model_name = event.message.model
            self.provider_response_id = event.message.id
            self._update_usage(event.message.usage.model_dump())
        elif event.type == 'content_block_start':
            yield from self._block_start(event.index, event.content_block)
        elif event.type == 'content_block_delta':
            yield from self._block_delta(event.index, event.delta)
        elif event.type == 'message_delta':
            self._update_usage(event.usage.model_dump())
            stop_reason = event.delta.stop_reason
            if stop_reason is not None:
                self.provider_details = {'finish_reason': stop_reason}
                self.finish_reason = _FINISH_REASONS.get(stop_reason)

    def _block_start(self, index: int, block: Any) -> Iterator[ModelResponseStreamEvent]:
        manager = self._parts_manager
        if block.type == 'text':
            if block.text:
                yield from manager.handle_text_delta(vendor_part_id=index, content=block.text)
        elif block.type == 'thinking':
            yield from manager.handle_thinking_delta(
                vendor_part_id=index,
                content=block.thinking,
                signature=block.signature,
                provider_name=self.provider_name,
            )
        elif block.type == 'redacted_thinking':
            yield from manager.handle_thinking_delta(
                vendor_part_id=index, id='redacted_thinking', signature=block.data, provider_name=self.provider_name
            )
        elif block.type == 'tool_use':
            # The input arrives in later deltas; the call starts without arguments.
            yield manager.handle_part(vendor_part_id=index, part=ToolCallPart(block.name, None, tool_call_id=block.id))

    def _block_delta(self, index: int, delta: Any) -> Iterator[ModelResponseStreamEvent]:
        manager = self._parts_manager
        if delta.type == 'text_delta':
            yield from manager.handle_text_delta(vendor_part_id=index, content=delta.text)
        elif delta.type == 'thinking_delta':
            yield from manager.handle_thinking_delta(
                vendor_part_id=index, content=delta.thinking, provider_name=self.provider_name
            )
        elif delta.type == 'signature_delta':
            yield from manager.handle_thinking_delta(
                vendor_part_id=index, signature=delta.signature, provider_name=self.provider_name
            )
        elif delta.type == 'input_json_delta':
            event = manager.handle_tool_call_delta(vendor_part_id=index, args=delta.partial_json)
            if event is not None:
                yield event

    def _update_usage(self, usage: dict[str, Any]) -> None:
        self._raw_usage.update({key: value for key, value in usage.items() if value is not None})
        self._usage = _map_usage(self._raw_usage)

    @property
    def model_name(self) -> str:
        """The name of the model that answers, as the API reports it."""
        return self._model_name

    @property
    def provider_name(self) -> str:
        """The provider's name."""
        return self._provider_name

    @property
    def provider_url(self) -> str:
        """The provider's base URL."""
        return self._provider_url

    @property
    def timestamp(self) -> datetime:
        """When the stream started."""
        return self._timestamp


def _transform_tool(tool: ToolDefinition, transformer: type[JsonSchemaTransformer]) -> ToolDefinition:
    walker = transformer(tool.parameters_json_schema, strict=tool.strict)
    return replace(tool, parameters_json_schema=walker.walk())


def _tool_choice(params: ModelRequestParameters, settings: AnthropicModelSettings) -> dict[str, Any]:
    choice: dict[str, Any] = {'type': 'auto' if params.allow_text_output else 'any'}
    if settings.get('parallel_tool_calls') is False:
        choice['disable_parallel_tool_use'] = True
    return choice


def _cache_control(ttl: CacheTtl) -> dict[str, Any]:
    return {'type': 'ephemeral', 'ttl': '5m' if ttl is True else ttl}


def _append_message(mapped: list[dict[str, Any]], role: str, blocks: list[dict[str, Any]]) -> None:
    """Add a message, merged into the last one if it has the same role: the API wants the roles to alternate."""
    if not blocks:
        return
    if mapped and mapped[-1]['role'] == role:
        mapped[-1]['content'].extend(blocks)
    else:
        mapped.append({'role': role, 'content': blocks})


def _map_request_part(part: UserPromptPart | ToolReturnPart | RetryPromptPart) -> list[dict[str, Any]]:
    if isinstance(part, UserPromptPart):
        if isinstance(part.content, str):
            return [{'type': 'text', 'text': part.content}]
        return _map_user_content(part.content)
    if isinstance(part, ToolReturnPart):
        return [
            {
                'tool_use_id': part.tool_call_id,
                'type': 'tool_result',
                'content': part.model_response_str(),
                'is_error': False,
            }
        ]
    if part.tool_name is None:
        return [{'type': 'text', 'text': part.model_response()}]
    return [
        {'tool_use_id': part.tool_call_id, 'type': 'tool_result', 'content': part.model_response(), 'is_error': True}
    ]


def _map_user_content(content: Sequence[UserContent]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for item in content:
        if isinstance(item, CachePoint):
            if not blocks:
                raise UserError(
                    'CachePoint cannot be the first content in a user message - there must be previous content to attach the CachePoint to.'
                )
            blocks[-1]['cache_control'] = _cache_control(item.ttl)
        else:
            blocks.append(_map_user_item(item))
    return blocks


def _map_user_item(item: Any) -> dict[str, Any]:
    if isinstance(item, str):
        return {'type': 'text', 'text': item}
    if isinstance(item, ImageUrl):
        return {'type': 'image', 'source': {'type': 'url', 'url': item.url}}
    if isinstance(item, DocumentUrl) and item.media_type == 'application/pdf':
        return {'type': 'document', 'source': {'type': 'url', 'url': item.url}}
    if isinstance(item, BinaryContent):
        if item.is_image:
            return {'type': 'image', 'source': {'type': 'base64', 'media_type': item.media_type, 'data': item.base64}}
        if item.media_type == 'application/pdf':
            source = {'type': 'base64', 'media_type': item.media_type, 'data': item.base64}
            return {'type': 'document', 'source': source}
        if item.media_type == 'text/plain':
            return {
                'type': 'document',
                'source': {'type': 'text', 'media_type': 'text/plain', 'data': item.data.decode()},
            }
        raise UserError(f'Unsupported binary content media type for Anthropic: {item.media_type}')
    raise NotImplementedError(f'Unsupported content type for Anthropic: {type(item).__name__}')


def _map_usage(usage: dict[str, Any]) -> RequestUsage:
    details = {key: value for key, value in usage.items() if isinstance(value, int) and not isinstance(value, bool)}
    cache_write = details.get('cache_creation_input_tokens', 0)
    cache_read = details.get('cache_read_input_tokens', 0)
    return RequestUsage(
        input_tokens=details.get('input_tokens', 0) + cache_write + cache_read,
        cache_write_tokens=cache_write,
        cache_read_tokens=cache_read,
        output_tokens=details.get('output_tokens', 0),
        details=details,
    )


def _invalid(error: Exception, value: Any) -> UnexpectedModelBehavior:
    """The error for a body or event that is JSON but not what the API sends, quoting it."""
    return UnexpectedModelBehavior(
        f'Invalid response from anthropic messages endpoint: {error}', body=_body_text(value)
    )


def _body_text(value: Any) -> str:
    # The SDK builds its objects without validation, so the fields set are the ones the body had.
    if isinstance(value, pydantic.BaseModel):
        value = value.model_dump(mode='json', exclude_unset=True, warnings=False)
    return json.dumps(value, default=str)
