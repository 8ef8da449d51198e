"""`OpenAIChatModel`: models served through OpenAI's Chat Completions API, by OpenAI or a compatible server.

Requests go through the official `openai` SDK (the `openai` optional dependencies). Messages are mapped to
the wire format here; the raw JSON of each response is validated here too, so a malformed response becomes
`UnexpectedModelBehavior` and a failed request `ModelHTTPError` or `ModelAPIError`, never an SDK exception.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast

import httpx
import pydantic

from .. import _utils
from .._json_schema import JsonSchemaTransformer
from ..exceptions import ModelAPIError, ModelHTTPError, UnexpectedModelBehavior, UserError
from ..messages import (
    AudioUrl,
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
    MultiModalContent,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserContent,
    UserPromptPart,
)
from ..output import OutputObjectDefinition
from ..profiles import ModelProfile, ModelProfileSpec
from ..profiles.openai import SAMPLING_PARAMS, OpenAIModelProfile, OpenAISystemPromptRole
from ..providers import Provider, _user_agent, infer_provider
from ..settings import ModelSettings
from ..tools import ToolDefinition
from ..usage import RequestUsage
from . import (
    ModelRequestParameters,
    OpenAIChatCompatibleProvider,
    OpenAIResponsesCompatibleProvider,  # noqa: F401  # pyright: ignore[reportUnusedImport] (upstream's module has the name too)
    StreamedResponse,
)
from ._provider_model import ProviderModel

try:
    from openai import APIConnectionError, APIError, APIStatusError, AsyncOpenAI
    from openai.types import AllModels, ReasoningEffort, chat
    from openai.types.chat import ChatCompletion, ChatCompletionPredictionContentParam
    from openai.types.chat.chat_completion_content_part_param import File, FileFile
    from openai.types.completion_usage import CompletionUsage
except ImportError as _import_error:  # pragma: no cover
    raise ImportError(
        'Please install `openai` to use the OpenAI model, '
        'you can use the `openai` optional group — `pip install "pydantic-ai-slim[openai]"`'
    ) from _import_error

if TYPE_CHECKING:
    from .._run_context import RunContext

__all__ = (
    'OpenAIChatModel',
    'OpenAIChatModelSettings',
    'OpenAIModel',
    'OpenAIModelName',
    'OpenAIModelSettings',
    'OpenAIResponsesModel',
    'OpenAIResponsesModelSettings',
    'OpenAIResponsesStreamedResponse',
    'OpenAIStreamedResponse',
)

OpenAIModelName: TypeAlias = str | AllModels
"""A model name: any string, with OpenAI's own model names suggested."""


class OpenAIChatModelSettings(ModelSettings, total=False):
    """Settings for `OpenAIChatModel` requests: the common settings plus OpenAI's own, prefixed `openai_`."""

    openai_reasoning_effort: ReasoningEffort
    """How hard a reasoning model thinks: `'minimal'`, `'low'`, `'medium'` or `'high'` (`'none'` where supported)."""
    openai_logprobs: bool
    """Whether to return the log probabilities of the output tokens (in `provider_details['logprobs']`)."""
    openai_top_logprobs: int
    """How many of the most likely tokens to return at each position, with `openai_logprobs`."""
    openai_user: str
    """An id of the end user, which helps OpenAI detect abuse."""
    openai_service_tier: Literal['auto', 'default', 'flex', 'priority']
    """The processing tier of the request."""
    openai_prediction: ChatCompletionPredictionContentParam
    """Predicted output, which speeds up responses that mostly repeat it."""
    openai_prompt_cache_key: str
    """A key that groups requests sharing a prompt prefix, to improve cache hits."""
    openai_prompt_cache_retention: Literal['in-memory', '24h']
    """How long a cached prompt prefix is kept."""
    openai_continuous_usage_stats: bool
    """Whether streamed chunks all carry the usage so far (a vLLM extension), not just the final chunk."""


class OpenAIModelSettings(OpenAIChatModelSettings, total=False):
    """Deprecated name of `OpenAIChatModelSettings`."""


# Settings passed to the API under another name, or under the same one.
_SETTING_NAMES: dict[str, str] = {
    'max_tokens': 'max_completion_tokens',
    'temperature': 'temperature',
    'top_p': 'top_p',
    'seed': 'seed',
    'presence_penalty': 'presence_penalty',
    'frequency_penalty': 'frequency_penalty',
    'logit_bias': 'logit_bias',
    'parallel_tool_calls': 'parallel_tool_calls',
    'stop_sequences': 'stop',
    'openai_reasoning_effort': 'reasoning_effort',
    'openai_logprobs': 'logprobs',
    'openai_top_logprobs': 'top_logprobs',
    'openai_user': 'user',
    'openai_service_tier': 'service_tier',
    'openai_prediction': 'prediction',
    'openai_prompt_cache_key': 'prompt_cache_key',
    'openai_prompt_cache_retention': 'prompt_cache_retention',
}

_FINISH_REASONS: dict[str, FinishReason] = {
    'stop': 'stop',
    'length': 'length',
    'tool_calls': 'tool_call',
    'content_filter': 'content_filter',
    'function_call': 'tool_call',
}

# Assistant message fields that some OpenAI-compatible servers put the model's reasoning in.
_THINKING_FIELDS = ('reasoning_content', 'reasoning')

# Document media types that are sent inline as text rather than as a file.
_TEXT_LIKE_MEDIA_TYPES = frozenset({'application/json', 'application/xml', 'application/yaml', 'application/toml'})

_chat_completion_adapter = pydantic.TypeAdapter(ChatCompletion)
_chunk_adapter = pydantic.TypeAdapter(chat.ChatCompletionChunk)


@dataclass(init=False, repr=False)
class _OpenAIAPIModel(ProviderModel[AsyncOpenAI]):
    """What the Chat Completions and Responses models share: the fields, the OpenAI profile and schema fitting."""

    # The fields again, for their types in upstream's dataclass shape; the provider's client is read by the property.
    client: AsyncOpenAI  # pyright: ignore[reportIncompatibleMethodOverride]
    _model_name: OpenAIModelName = field(repr=False)
    _provider: Provider[AsyncOpenAI] = field(repr=False)

    @cached_property
    def _openai_profile(self) -> OpenAIModelProfile:
        return OpenAIModelProfile.from_profile(self.profile)

    def customize_request_parameters(self, model_request_parameters: ModelRequestParameters) -> ModelRequestParameters:
        """Adapt tool and output schemas with the profile's JSON schema transformer, deciding strictness."""
        transformer = self.profile.json_schema_transformer
        if transformer is None:
            return model_request_parameters
        transformer = cast(type[JsonSchemaTransformer], transformer)
        params = model_request_parameters
        output_object = params.output_object
        return replace(
            params,
            function_tools=[_transform_tool(tool, transformer) for tool in params.function_tools],
            output_tools=[_transform_tool(tool, transformer) for tool in params.output_tools],
            output_object=None if output_object is None else _transform_output_object(output_object, transformer),
        )


@dataclass(init=False, repr=False)
class OpenAIChatModel(_OpenAIAPIModel):
    """A model behind OpenAI's Chat Completions API: OpenAI's, or any compatible server's (vLLM, Ollama, ...)."""

    def __init__(
        self,
        model_name: OpenAIModelName,
        *,
        provider: OpenAIChatCompatibleProvider
        | Literal['openai', 'openai-chat', 'gateway']
        | Provider[AsyncOpenAI] = 'openai',
        profile: ModelProfileSpec | None = None,
        system_prompt_role: OpenAISystemPromptRole | None = None,
        settings: ModelSettings | None = None,
    ) -> None:
        """Make a model.

        Args:
            model_name: The model's name, e.g. `'gpt-4o'`, or whatever name the server knows it by.
            provider: The provider, or the name of one made from the environment (`OPENAI_API_KEY`, ...).
            profile: What the model supports; by default the provider's profile for the model name.
            system_prompt_role: Deprecated: set `openai_system_prompt_role` in an `OpenAIModelProfile` instead. It
                is written into the model's profile.
            settings: Default settings for the model's requests.
        """
        if isinstance(provider, str):
            provider = cast(Provider[AsyncOpenAI], infer_provider(provider))
        spec = profile or provider.model_profile
        if system_prompt_role is not None:
            spec = _with_system_prompt_role(spec, system_prompt_role)
        super().__init__(model_name, provider, profile=spec, settings=settings)

    @property
    def system_prompt_role(self) -> OpenAISystemPromptRole | None:
        """Deprecated: the profile's `openai_system_prompt_role`, the role system prompts are sent with."""
        warnings.warn(
            'Set the `system_prompt_role` in the `OpenAIModelProfile` instead.', DeprecationWarning, stacklevel=2
        )
        return self._openai_profile.openai_system_prompt_role

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
            UnexpectedModelBehavior: if the response is not a valid chat completion.
        """
        client = self.client
        settings, params = self.prepare_request(model_settings, model_request_parameters)
        kwargs = await self._request_kwargs(messages, cast(OpenAIChatModelSettings, settings or {}), params)
        try:
            # Called as upstream calls it, so that a user's wrapped or test-double client works the same.
            completion = await client.chat.completions.create(**kwargs, stream=False)
        except APIError as e:
            raise self._api_error(e) from e
        except json.JSONDecodeError as e:
            raise UnexpectedModelBehavior(_INVALID_JSON, body=e.doc or None) from e
        return self._process_response(_validate(_chat_completion_adapter, completion))

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        """Send the messages and stream the response, as an async context manager yielding an `OpenAIStreamedResponse`.

        Raises:
            ModelHTTPError: if the API answered with an error status.
            ModelAPIError: if the API could not be reached, timed out, or failed during the stream.
            UnexpectedModelBehavior: if the stream is empty or a chunk is not a valid chat completion chunk.
        """
        client = self.client
        settings, params = self.prepare_request(model_settings, model_request_parameters)
        openai_settings = cast(OpenAIChatModelSettings, settings or {})
        kwargs = await self._request_kwargs(messages, openai_settings, params)
        stream_options: dict[str, Any] = {'include_usage': True}
        continuous = bool(openai_settings.get('openai_continuous_usage_stats'))
        if continuous:
            stream_options['continuous_usage_stats'] = True
        try:
            stream = await client.chat.completions.create(
                **kwargs, stream=True, stream_options=cast(Any, stream_options)
            )
        except APIError as e:
            raise self._api_error(e) from e
        async with stream:
            chunks = self._chunks(stream)
            first = await anext(chunks, None)
            if first is None:
                raise UnexpectedModelBehavior('Streamed response ended without content or tool calls')
            yield OpenAIStreamedResponse(
                params,
                _model_name=first.model or self._model_name,
                _model_profile=self._openai_profile,
                _first_chunk=first,
                _chunks=chunks,
                _provider_name=self.system,
                _provider_url=self.base_url,
                _continuous_usage=continuous,
            )

    async def _chunks(self, stream: AsyncIterator[Any]) -> AsyncIterator[chat.ChatCompletionChunk]:
        """The stream's chunks, validated; SDK and HTTP failures become the model errors."""
        try:
            async for chunk in stream:
                yield _validate(_chunk_adapter, chunk)
        except APIError as e:
            raise self._api_error(e) from e
        except json.JSONDecodeError as e:
            raise UnexpectedModelBehavior(_INVALID_JSON, body=e.doc or None) from e
        except httpx.TimeoutException as e:
            raise ModelAPIError(self._model_name, 'Request timed out.') from e
        except httpx.HTTPError as e:
            # The connection dropped mid-stream.
            raise ModelAPIError(self._model_name, 'Connection error.') from e

    @classmethod
    def supported_builtin_tools(cls) -> frozenset[type[Any]]:
        """The provider-side tools this model can use through `builtin_tools`: none yet in this distribution."""
        return frozenset()

    async def count_tokens(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> RequestUsage:
        """Not supported: the Chat Completions API counts tokens only when it answers."""
        raise NotImplementedError(f'Token counting ahead of the request is not supported by {type(self).__name__}')

    # Building the request.

    async def _request_kwargs(
        self, messages: list[ModelMessage], settings: OpenAIChatModelSettings, params: ModelRequestParameters
    ) -> dict[str, Any]:
        """The keyword arguments of the SDK's `create` call, except `stream`."""
        profile = self._openai_profile
        kwargs: dict[str, Any] = {
            'model': self._model_name,
            'messages': await self._map_messages(messages, params),
        }
        tools = [self._map_tool_definition(tool) for tool in [*params.function_tools, *params.output_tools]]
        if tools:
            kwargs['tools'] = tools
            required = not params.allow_text_output and profile.openai_supports_tool_choice_required
            kwargs['tool_choice'] = 'required' if required else 'auto'
        response_format = _response_format(params, profile)
        if response_format is not None:
            kwargs['response_format'] = response_format
        kwargs.update(self._api_settings(settings))
        for name in ('extra_body', 'timeout'):
            if name in settings:
                kwargs[name] = settings.get(name)
        kwargs['extra_headers'] = {'User-Agent': _user_agent(), **settings.get('extra_headers', {})}
        return kwargs

    def _api_settings(self, settings: OpenAIChatModelSettings) -> dict[str, Any]:
        """The settings the API takes, under its names, without those the model does not support."""
        profile = self._openai_profile
        if not profile.openai_supports_sampling_settings:
            warnings.warn(
                'The `openai_supports_sampling_settings` has no effect, and it will be removed in future versions. '
                'Use `openai_unsupported_model_settings` instead.',
                DeprecationWarning,
                stacklevel=2,
            )
        present = {name: value for name, value in settings.items() if name in _SETTING_NAMES}
        for name in profile.openai_unsupported_model_settings:
            present.pop(name, None)
        default_effort = 'none' if profile.openai_supports_reasoning_effort_none else 'medium'
        if profile.openai_supports_reasoning and settings.get('openai_reasoning_effort', default_effort) != 'none':
            dropped = [name for name in SAMPLING_PARAMS if name in present]
            if dropped:
                warnings.warn(
                    f'Sampling parameters {dropped} are not supported when reasoning is enabled. '
                    'These settings will be ignored.',
                    UserWarning,
                    stacklevel=2,
                )
                for name in dropped:
                    del present[name]
        return {_SETTING_NAMES[name]: value for name, value in present.items()}

    def _map_tool_definition(self, tool: ToolDefinition) -> chat.ChatCompletionFunctionToolParam:
        function: Any = {
            'name': tool.name,
            'description': tool.description or '',
            'parameters': tool.parameters_json_schema,
        }
        if tool.strict and self._openai_profile.openai_supports_strict_tool_definition:
            function['strict'] = True
        return {'type': 'function', 'function': function}

    async def _map_messages(
        self, messages: Sequence[ModelMessage], params: ModelRequestParameters
    ) -> list[chat.ChatCompletionMessageParam]:
        mapped: list[chat.ChatCompletionMessageParam] = []
        for message in messages:
            if isinstance(message, ModelRequest):
                mapped.extend([await self._map_request_part(part) for part in message.parts])
            else:
                mapped.append(self._map_response(message))
        instructions = self._get_instructions(messages, params)
        if instructions:
            # The instructions go after as many messages as there are system-role messages: right after the
            # system prompts when those lead the conversation, as they normally do.
            position = sum(1 for m in mapped if m['role'] == 'system')
            mapped.insert(position, {'role': 'system', 'content': instructions})
        return mapped

    async def _map_request_part(
        self, part: SystemPromptPart | UserPromptPart | ToolReturnPart | RetryPromptPart
    ) -> chat.ChatCompletionMessageParam:
        if isinstance(part, SystemPromptPart):
            return _system_message(part.content, self._openai_profile.openai_system_prompt_role or 'system')
        if isinstance(part, UserPromptPart):
            if isinstance(part.content, str):
                return {'role': 'user', 'content': part.content}
            return {'role': 'user', 'content': await self._map_user_content(part.content)}
        if isinstance(part, ToolReturnPart):
            return {'role': 'tool', 'tool_call_id': part.tool_call_id, 'content': part.model_response_str()}
        if part.tool_name is None:
            return {'role': 'user', 'content': part.model_response()}
        return {'role': 'tool', 'tool_call_id': part.tool_call_id, 'content': part.model_response()}

    def _map_response(self, message: ModelResponse) -> chat.ChatCompletionAssistantMessageParam:
        profile = self._openai_profile
        texts: list[str] = []
        thinking: list[str] = []
        tool_calls: list[chat.ChatCompletionMessageFunctionToolCallParam] = []
        for part in message.parts:
            if isinstance(part, TextPart):
                texts.append(part.content)
            elif isinstance(part, ThinkingPart):
                if profile.openai_chat_send_back_thinking_parts == 'tags':
                    start, end = profile.thinking_tags
                    texts.append(f'{start}\n{part.content}\n{end}')
                else:
                    thinking.append(part.content)
            elif isinstance(part, ToolCallPart):
                function: chat.chat_completion_message_function_tool_call_param.Function = {
                    'name': part.tool_name,
                    'arguments': part.args_as_json_str(),
                }
                tool_calls.append({'id': part.tool_call_id, 'type': 'function', 'function': function})
        mapped: dict[str, Any] = {'role': 'assistant', 'content': '\n\n'.join(texts) if texts else None}
        if tool_calls:
            mapped['tool_calls'] = tool_calls
        field_name = profile.openai_chat_thinking_field
        if thinking and profile.openai_chat_send_back_thinking_parts == 'field' and field_name:
            # Servers that return reasoning in a message field take it back in the same field.
            mapped[field_name] = '\n\n'.join(thinking)
        return cast(chat.ChatCompletionAssistantMessageParam, mapped)

    async def _map_user_content(self, content: Sequence[UserContent]) -> list[chat.ChatCompletionContentPartParam]:
        parts: list[chat.ChatCompletionContentPartParam] = []
        for item in content:
            if isinstance(item, CachePoint):
                # Chat Completions caches prompt prefixes by itself; there is no marker to send.
                continue
            parts.append(await self._map_user_item(item))
        return parts

    async def _map_user_item(self, item: str | MultiModalContent) -> chat.ChatCompletionContentPartParam:
        if isinstance(item, str):
            return {'type': 'text', 'text': item}
        if isinstance(item, ImageUrl):
            url = item.url
            if item.force_download:
                url = (await _download(item)).data_uri
            return _image_part(url, item.vendor_metadata)
        if isinstance(item, BinaryContent):
            return self._map_binary(item, item.identifier)
        if isinstance(item, AudioUrl):
            return self._map_binary(await _download(item), item.identifier)
        if isinstance(item, DocumentUrl):
            if self._openai_profile.openai_chat_supports_file_urls:
                return _file_part(item.url, item.format)
            return self._map_binary(await _download(item), item.identifier)
        # Only video URLs are left, and the API takes no video.
        raise NotImplementedError(f'{type(item).__name__} is not supported for OpenAI')

    def _map_binary(self, item: BinaryContent, identifier: str) -> chat.ChatCompletionContentPartParam:
        if item.is_image:
            return _image_part(item.data_uri, item.vendor_metadata)
        if item.is_audio:
            encoding = self._openai_profile.openai_chat_audio_input_encoding
            data = item.data_uri if encoding == 'uri' else item.base64
            audio_format = cast(Literal['wav', 'mp3'], item.format)
            return {'type': 'input_audio', 'input_audio': {'data': data, 'format': audio_format}}
        if _is_text_like(item.media_type):
            text = item.data.decode()
            begin = f'-----BEGIN FILE id="{identifier}" type="{item.media_type}"-----'
            return {'type': 'text', 'text': f'{begin}\n{text}\n-----END FILE id="{identifier}"-----'}
        if item.is_document:
            return _file_part(item.data_uri, item.format)
        raise UserError(f'Unsupported binary content type: {item.media_type}')

    # Reading the response.

    def _process_response(self, completion: ChatCompletion) -> ModelResponse:
        if not completion.choices:
            raise UnexpectedModelBehavior('Invalid response from openai chat completions endpoint: no choices')
        choice = completion.choices[0]
        message = choice.message
        parts: list[ModelResponsePart] = []
        extra = message.model_extra or {}
        for name in _THINKING_FIELDS:
            if isinstance(value := extra.get(name), str) and value:
                parts.append(ThinkingPart(value, id=name, provider_name=self.system))
        if message.content is not None:
            parts.extend(_split_thinking(message.content, self._openai_profile.thinking_tags, self.system))
        for call in message.tool_calls or []:
            if not isinstance(call, chat.ChatCompletionMessageFunctionToolCall):
                # Only function tools are offered, so another kind of call is a server's mistake.
                raise UnexpectedModelBehavior('Custom tool calls are not supported')
            parts.append(ToolCallPart(call.function.name, call.function.arguments, tool_call_id=call.id))
        details: dict[str, Any] = {}
        if choice.logprobs is not None and choice.logprobs.content:
            details['logprobs'] = [logprob.model_dump(mode='json') for logprob in choice.logprobs.content]
        details['finish_reason'] = choice.finish_reason
        details['timestamp'] = datetime.fromtimestamp(completion.created, tz=UTC)
        return ModelResponse(
            parts=parts,
            usage=_map_usage(completion.usage),
            model_name=completion.model,
            timestamp=_utils.now_utc(),
            provider_name=self.system,
            provider_url=self.base_url,
            provider_details=details,
            provider_response_id=completion.id,
            finish_reason=_FINISH_REASONS.get(choice.finish_reason),
        )

    def _api_error(self, error: APIError) -> ModelAPIError:
        if isinstance(error, APIStatusError):
            return ModelHTTPError(error.status_code, self._model_name, error.body)
        if isinstance(error, APIConnectionError):
            return ModelAPIError(self._model_name, error.message)
        return ModelAPIError(self._model_name, str(error))  # pragma: no cover


class OpenAIModel(OpenAIChatModel):
    """Deprecated name of `OpenAIChatModel`."""

    def __init__(
        self,
        model_name: OpenAIModelName,
        *,
        provider: OpenAIChatCompatibleProvider
        | Literal['openai', 'openai-chat', 'gateway']
        | Provider[AsyncOpenAI] = 'openai',
        profile: ModelProfileSpec | None = None,
        system_prompt_role: OpenAISystemPromptRole | None = None,
        settings: ModelSettings | None = None,
    ) -> None:
        """Make a model; see `OpenAIChatModel`."""
        warnings.warn(
            '`OpenAIModel` was renamed to `OpenAIChatModel` to clearly distinguish it from `OpenAIResponsesModel` '
            "which uses OpenAI's newer Responses API. Use that unless you're using an OpenAI Chat "
            "Completions-compatible API, or require a feature that the Responses API doesn't support yet like audio.",
            DeprecationWarning,
            stacklevel=2,
        )
        super().__init__(
            model_name, provider=provider, profile=profile, system_prompt_role=system_prompt_role, settings=settings
        )


@dataclass
class OpenAIStreamedResponse(StreamedResponse):
    """A streamed Chat Completions response: text, reasoning and tool-call pieces become part events.

    Tool calls are told apart by their index in the chunks, so several calls can stream in parallel. The usage
    comes from the chunks that carry it: the final one, or every one with `openai_continuous_usage_stats`.
    """

    _model_name: str
    _model_profile: OpenAIModelProfile
    _first_chunk: chat.ChatCompletionChunk
    _chunks: AsyncIterator[chat.ChatCompletionChunk]
    _provider_name: str
    _provider_url: str
    _continuous_usage: bool = False
    _timestamp: datetime = field(default_factory=_utils.now_utc)

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        self.provider_response_id = self._first_chunk.id or None
        self.provider_details = {'timestamp': datetime.fromtimestamp(self._first_chunk.created, tz=UTC)}
        for event in self._handle_chunk(self._first_chunk):
            yield event
        async for chunk in self._chunks:
            for event in self._handle_chunk(chunk):
                yield event

    def _handle_chunk(self, chunk: chat.ChatCompletionChunk) -> Iterator[ModelResponseStreamEvent]:
        if chunk.usage is not None:
            # With continuous usage stats every chunk carries the usage so far, which replaces the last; otherwise
            # the usages of the chunks that carry one are added up, as upstream does.
            usage = _map_usage(chunk.usage)
            self._usage = usage if self._continuous_usage else self._usage + usage
        if not chunk.choices:
            return
        choice = chunk.choices[0]
        if choice.finish_reason is not None:
            assert self.provider_details is not None, 'set before the first chunk is handled'
            self.provider_details['finish_reason'] = choice.finish_reason
            self.finish_reason = _FINISH_REASONS.get(choice.finish_reason)
        delta = choice.delta
        extra = delta.model_extra or {}
        for name in _THINKING_FIELDS:
            if isinstance(value := extra.get(name), str) and value:
                yield from self._parts_manager.handle_thinking_delta(
                    vendor_part_id=name, id=name, content=value, provider_name=self._provider_name
                )
        if delta.content:
            yield from self._text_events(delta.content)
        for call in delta.tool_calls or []:
            function = call.function
            event = self._parts_manager.handle_tool_call_delta(
                vendor_part_id=call.index,
                tool_name=function.name if function else None,
                args=function.arguments if function else None,
                tool_call_id=call.id,
            )
            if event is not None:
                yield event

    def _text_events(self, content: str) -> Iterator[ModelResponseStreamEvent]:
        manager = self._parts_manager
        start_tag = self._model_profile.thinking_tags[0]
        if content == start_tag and not isinstance(manager.get_part_by_vendor_id('content'), ThinkingPart):
            # Thinking in the text stream is marked as this provider's, like thinking split out of whole responses.
            part = ThinkingPart('', id='content', provider_name=self._provider_name)
            yield manager.handle_part(vendor_part_id='content', part=part)
            return
        yield from manager.handle_text_delta(
            vendor_part_id='content',
            content=content,
            thinking_tags=self._model_profile.thinking_tags,
            ignore_leading_whitespace=self._model_profile.ignore_streamed_leading_whitespace,
        )

    @property
    def model_name(self) -> str:
        """The name of the model that answers, as the server reports it."""
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


def _with_system_prompt_role(spec: ModelProfileSpec, role: OpenAISystemPromptRole) -> Callable[[str], ModelProfile]:
    """A profile function giving the profile of `spec` with the system prompt role set."""

    def profile(model_name: str) -> ModelProfile:
        base = spec(model_name) if callable(spec) else spec
        return replace(OpenAIModelProfile.from_profile(base), openai_system_prompt_role=role)

    return profile


def _transform_tool(tool: ToolDefinition, transformer: type[JsonSchemaTransformer]) -> ToolDefinition:
    walker = transformer(tool.parameters_json_schema, strict=tool.strict)
    schema = walker.walk()
    strict = walker.is_strict_compatible if tool.strict is None else tool.strict
    return replace(tool, parameters_json_schema=schema, strict=strict)


def _transform_output_object(
    output_object: OutputObjectDefinition, transformer: type[JsonSchemaTransformer]
) -> OutputObjectDefinition:
    walker = transformer(output_object.json_schema, strict=output_object.strict)
    schema = walker.walk()
    strict = walker.is_strict_compatible if output_object.strict is None else output_object.strict
    return replace(output_object, json_schema=schema, strict=strict)


def _response_format(params: ModelRequestParameters, profile: OpenAIModelProfile) -> dict[str, Any] | None:
    output_object = params.output_object
    if params.output_mode == 'native' and output_object is not None:
        json_schema: dict[str, Any] = {
            'name': output_object.name or 'final_result',
            'schema': output_object.json_schema,
        }
        if output_object.description:
            json_schema['description'] = output_object.description
        json_schema['strict'] = bool(output_object.strict)
        return {'type': 'json_schema', 'json_schema': json_schema}
    if params.output_mode == 'prompted' and profile.supports_json_object_output:
        return {'type': 'json_object'}
    return None


def _system_message(content: str, role: OpenAISystemPromptRole) -> chat.ChatCompletionMessageParam:
    if role == 'developer':
        return {'role': 'developer', 'content': content}
    if role == 'user':
        return {'role': 'user', 'content': content}
    return {'role': 'system', 'content': content}


def _image_part(url: str, vendor_metadata: dict[str, Any] | None) -> chat.ChatCompletionContentPartImageParam:
    image_url: Any = {'url': url}
    if vendor_metadata and 'detail' in vendor_metadata:
        image_url['detail'] = vendor_metadata['detail']
    return {'type': 'image_url', 'image_url': image_url}


def _file_part(file_data: str, file_format: str) -> File:
    file: FileFile = {'file_data': file_data, 'filename': f'filename.{file_format}'}
    return {'type': 'file', 'file': file}


def _is_text_like(media_type: str) -> bool:
    return media_type.startswith('text/') or media_type in _TEXT_LIKE_MEDIA_TYPES or media_type.endswith('+json')


async def _download(item: ImageUrl | AudioUrl | DocumentUrl) -> BinaryContent:
    """Fetch the file a URL points to, for the content types the API only takes as data."""
    async with httpx.AsyncClient(follow_redirects=True, timeout=30) as client:
        response = await client.get(item.url)
        response.raise_for_status()
    content_type = response.headers.get('content-type', '').split(';')[0].strip()
    media_type = content_type if content_type and content_type != 'application/octet-stream' else item.media_type
    return BinaryContent(response.content, media_type=media_type)


def _split_thinking(content: str, tags: tuple[str, str], provider_name: str) -> list[ModelResponsePart]:
    """Split text into text and thinking parts at the model's thinking tags.

    An unclosed start tag is dropped and what follows it kept as text.
    """
    start, end = tags
    parts: list[ModelResponsePart] = []
    while (index := content.find(start)) != -1:
        if index:
            parts.append(TextPart(content[:index]))
        content = content[index + len(start) :]
        close = content.find(end)
        if close == -1:
            break
        parts.append(ThinkingPart(content[:close], id='content', provider_name=provider_name))
        content = content[close + len(end) :]
    if content:
        parts.append(TextPart(content))
    return parts


_INVALID_JSON = 'Invalid response from openai chat completions endpoint, expected JSON data'


def _validate(adapter: pydantic.TypeAdapter[Any], value: Any) -> Any:
    """Validate what the SDK built without validation from a body or chunk, as it was sent."""
    if not isinstance(value, pydantic.BaseModel):
        # JSON that is not an object, e.g. a list: the SDK hands it over as it is.
        raise UnexpectedModelBehavior(_INVALID_JSON, body=json.dumps(value, indent=2))
    data = value.model_dump(exclude_unset=True, warnings=False)
    try:
        return adapter.validate_python(data)
    except pydantic.ValidationError as e:
        raise UnexpectedModelBehavior(f'Invalid response from openai chat completions endpoint: {e}') from e


def _map_usage(usage: CompletionUsage | None) -> RequestUsage:
    if usage is None:
        return RequestUsage()
    details = _int_values((usage.model_extra or {}).items())
    result = RequestUsage(input_tokens=usage.prompt_tokens, output_tokens=usage.completion_tokens, details=details)
    if (prompt_details := usage.prompt_tokens_details) is not None:
        result.cache_read_tokens = prompt_details.cached_tokens or 0
        result.input_audio_tokens = prompt_details.audio_tokens or 0
    if (completion_details := usage.completion_tokens_details) is not None:
        details.update(_int_values(completion_details.model_dump().items()))
        result.output_audio_tokens = completion_details.audio_tokens or 0
    return result


def _int_values(items: Iterable[tuple[str, Any]]) -> dict[str, int]:
    return {key: value for key, value in items if isinstance(value, int) and not isinstance(value, bool)}


# The Responses API model lives in its own module, which builds on the definitions above.
from ._openai_responses import (  # noqa: E402
    OpenAIResponsesModel,
    OpenAIResponsesModelSettings,
    OpenAIResponsesStreamedResponse,
)
