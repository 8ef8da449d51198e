"""`OpenAIResponsesModel`: OpenAI models through the Responses API. Users import it from `models.openai`.

It lives apart from the Chat Completions model so each module stays readable; it shares that model's provider,
profile, schema transformation and settings.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, cast

import httpx
import pydantic

# The `openai` import is guarded in `.openai`, which is always imported first.
from openai import APIConnectionError, APIError, APIStatusError, AsyncOpenAI
from openai.types.responses import (
    ComputerToolParam,
    FileSearchToolParam,
    Response,
    ResponseStreamEvent,
    WebSearchToolParam,
)

from .. import _utils
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
from ..profiles.openai import SAMPLING_PARAMS, OpenAIModelProfile
from ..providers import Provider, _user_agent, infer_provider
from ..settings import ModelSettings
from ..usage import RequestUsage
from . import ModelRequestParameters, StreamedResponse
from .openai import OpenAIChatModelSettings, OpenAIModelName, _OpenAIAPIModel

if TYPE_CHECKING:
    from .._run_context import RunContext
    from . import OpenAIResponsesCompatibleProvider

__all__ = ('OpenAIResponsesModel', 'OpenAIResponsesModelSettings', 'OpenAIResponsesStreamedResponse')


class OpenAIResponsesModelSettings(OpenAIChatModelSettings, total=False):
    """Settings for `OpenAIResponsesModel` requests: the chat settings plus the Responses API's own."""

    openai_builtin_tools: Sequence[FileSearchToolParam | WebSearchToolParam | ComputerToolParam]
    """OpenAI's own tools to offer, as the API takes them."""
    openai_reasoning_generate_summary: Literal['detailed', 'concise']
    """Deprecated: use `openai_reasoning_summary`."""
    openai_reasoning_summary: Literal['detailed', 'concise', 'auto']
    """Whether and how the model summarizes its reasoning; the summaries become `ThinkingPart`s."""
    openai_send_reasoning_ids: bool
    """Whether reasoning items are sent back with their ids (default `True`)."""
    openai_truncation: Literal['disabled', 'auto']
    """What the API does when the conversation exceeds the context window."""
    openai_text_verbosity: Literal['low', 'medium', 'high']
    """How long the model's text answers are."""
    openai_previous_response_id: Literal['auto'] | str
    """Continue from a stored response: its id, or `'auto'` for the last response in the history from this
    provider, in which case only the messages after it are sent."""
    openai_include_code_execution_outputs: bool
    """Whether code interpreter outputs are returned."""
    openai_include_web_search_sources: bool
    """Whether web search sources are returned."""
    openai_include_file_search_results: bool
    """Whether file search results are returned."""
    openai_include_raw_annotations: bool
    """Whether the raw annotations of text parts are kept in their provider details."""


# Settings passed to the API under another name, or under the same one.
_SETTING_NAMES: dict[str, str] = {
    'max_tokens': 'max_output_tokens',
    'temperature': 'temperature',
    'top_p': 'top_p',
    'parallel_tool_calls': 'parallel_tool_calls',
    'openai_top_logprobs': 'top_logprobs',
    'openai_user': 'user',
    'openai_service_tier': 'service_tier',
    'openai_prompt_cache_key': 'prompt_cache_key',
    'openai_prompt_cache_retention': 'prompt_cache_retention',
    'openai_truncation': 'truncation',
    'timeout': 'timeout',
    'extra_body': 'extra_body',
}

# `include` values asked for by boolean settings.
_INCLUDES: dict[str, str] = {
    'openai_include_code_execution_outputs': 'code_interpreter_call.outputs',
    'openai_include_web_search_sources': 'web_search_call.action.sources',
    'openai_include_file_search_results': 'file_search_call.results',
    'openai_logprobs': 'message.output_text.logprobs',
}

_INCOMPLETE_REASONS: dict[str, FinishReason] = {'max_output_tokens': 'length', 'content_filter': 'content_filter'}

# What reading an SDK object built from a malformed body raises: missing attributes, or values of the wrong type.
_MALFORMED = (AttributeError, KeyError, TypeError, ValueError)


@dataclass(init=False, repr=False)
class OpenAIResponsesModel(_OpenAIAPIModel):
    """A model behind OpenAI's Responses API, with reasoning summaries and server-side conversation state."""

    def __init__(
        self,
        model_name: OpenAIModelName,
        *,
        provider: OpenAIResponsesCompatibleProvider | Literal['openai', 'gateway'] | Provider[AsyncOpenAI] = 'openai',
        profile: ModelProfileSpec | None = None,
        settings: ModelSettings | None = None,
    ) -> None:
        """Make a model.

        Args:
            model_name: The model's name, e.g. `'gpt-5'`.
            provider: The provider, or the name of one made from the environment (`OPENAI_API_KEY`, ...).
            profile: What the model supports; by default the provider's profile for the model name.
            settings: Default settings for the model's requests.
        """
        if isinstance(provider, str):
            provider = cast(Provider[AsyncOpenAI], infer_provider(provider))
        super().__init__(model_name, provider, profile=profile, settings=settings)

    @classmethod
    def supported_builtin_tools(cls) -> frozenset[type[Any]]:
        """The provider-side tools this model can use through `builtin_tools`: none yet in this distribution.

        OpenAI's own tools can still be offered as API parameters with `openai_builtin_tools`.
        """
        return frozenset()

    async def count_tokens(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> RequestUsage:
        """Not supported: the Responses API counts tokens only when it answers."""
        raise NotImplementedError(f'Token counting ahead of the request is not supported by {type(self).__name__}')

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
            UnexpectedModelBehavior: if the response is not a valid response object.
        """
        client = self.client
        settings, params = self.prepare_request(model_settings, model_request_parameters)
        kwargs = await self._request_kwargs(messages, cast(OpenAIResponsesModelSettings, settings or {}), params)
        try:
            response = await client.responses.create(**kwargs, stream=False)
        except APIError as e:
            raise self._api_error(e) from e
        except json.JSONDecodeError as e:
            raise UnexpectedModelBehavior(_INVALID_JSON, body=e.doc or None) from e
        try:
            return self._process_response(response)
        except _MALFORMED as e:
            raise _invalid(e, response) from e

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        """Send the messages and stream the response, as an async context manager yielding the streamed response.

        Raises:
            ModelHTTPError: if the API answered with an error status.
            ModelAPIError: if the API could not be reached, timed out, or reported an error in the stream.
            UnexpectedModelBehavior: if the stream is empty or an event is not a valid Responses API event.
        """
        client = self.client
        settings, params = self.prepare_request(model_settings, model_request_parameters)
        kwargs = await self._request_kwargs(messages, cast(OpenAIResponsesModelSettings, settings or {}), params)
        try:
            stream = await client.responses.create(**kwargs, stream=True)
        except APIError as e:
            raise self._api_error(e) from e
        async with stream:
            events = self._events(stream)
            first = await anext(events, None)
            if first is None:
                raise UnexpectedModelBehavior('Streamed response ended without content or tool calls')
            yield OpenAIResponsesStreamedResponse(
                params,
                _model_name=self._model_name,
                _first_event=first,
                _event_stream=events,
                _provider_name=self.system,
                _provider_url=self.base_url,
            )

    async def _events(self, stream: AsyncIterator[Any]) -> AsyncIterator[ResponseStreamEvent]:
        try:
            async for event in stream:
                yield event
        except APIError as e:
            raise self._api_error(e) from e
        except json.JSONDecodeError as e:
            raise UnexpectedModelBehavior(_INVALID_JSON, body=e.doc or None) from e
        except httpx.TimeoutException as e:
            raise ModelAPIError(self._model_name, 'Request timed out.') from e
        except httpx.HTTPError as e:
            # The connection dropped mid-stream.
            raise ModelAPIError(self._model_name, 'Connection error.') from e

    # Building the request.

    async def _request_kwargs(
        self, messages: list[ModelMessage], settings: OpenAIResponsesModelSettings, params: ModelRequestParameters
    ) -> dict[str, Any]:
        """The keyword arguments of the SDK's `create` call, except `stream`."""
        profile = self._openai_profile
        previous_id, messages = _previous_response(messages, settings.get('openai_previous_response_id'), self.system)
        instructions = self._get_instructions(messages, params)
        items = self._map_messages(messages, settings)
        kwargs: dict[str, Any] = {'model': self._model_name, 'input': items}
        if instructions and params.output_mode == 'prompted':
            # Prompted output's instructions go in a system message after the system prompts, as upstream sends them.
            position = sum(1 for item in items if item.get('role') == 'system')
            items.insert(position, {'role': 'system', 'content': instructions})
        elif instructions:
            kwargs['instructions'] = instructions
        if previous_id is not None:
            kwargs['previous_response_id'] = previous_id
        tools = [_map_tool(tool, profile) for tool in [*params.function_tools, *params.output_tools]]
        tools.extend(cast(list[dict[str, Any]], list(settings.get('openai_builtin_tools', []))))
        if tools:
            kwargs['tools'] = tools
            required = not params.allow_text_output and profile.openai_supports_tool_choice_required
            kwargs['tool_choice'] = 'required' if required else 'auto'
        text = _text_config(params, profile, settings)
        if text:
            kwargs['text'] = text
        reasoning = _reasoning(settings)
        if reasoning:
            kwargs['reasoning'] = reasoning
        include = self._include(settings)
        if include:
            kwargs['include'] = include
        kwargs.update(self._api_settings(settings))
        kwargs['extra_headers'] = {'User-Agent': _user_agent(), **settings.get('extra_headers', {})}
        return kwargs

    def _include(self, settings: OpenAIResponsesModelSettings) -> list[str]:
        include: list[str] = []
        if self._openai_profile.openai_supports_encrypted_reasoning_content:
            include.append('reasoning.encrypted_content')
        include.extend(value for name, value in _INCLUDES.items() if settings.get(name))
        return include

    def _api_settings(self, settings: OpenAIResponsesModelSettings) -> dict[str, Any]:
        """The settings the API takes, under its names, without those the model does not support."""
        profile = self._openai_profile
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

    def _map_messages(
        self, messages: Sequence[ModelMessage], settings: OpenAIResponsesModelSettings
    ) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        send_ids = settings.get('openai_send_reasoning_ids', True)
        for message in messages:
            if isinstance(message, ModelRequest):
                items.extend(self._map_request_part(part) for part in message.parts)
            else:
                items.extend(self._map_response(message, send_ids))
        return items

    def _map_request_part(self, part: Any) -> dict[str, Any]:
        if isinstance(part, SystemPromptPart):
            # Upstream sends system prompts with the system role here, whatever the profile's role.
            return {'role': 'system', 'content': part.content}
        if isinstance(part, UserPromptPart):
            if isinstance(part.content, str):
                return {'role': 'user', 'content': part.content}
            return {'role': 'user', 'content': _map_user_content(part.content)}
        if isinstance(part, ToolReturnPart):
            return {'type': 'function_call_output', 'call_id': part.tool_call_id, 'output': part.model_response_str()}
        retry = cast(RetryPromptPart, part)
        if retry.tool_name is None:
            return {'role': 'user', 'content': [{'type': 'input_text', 'text': retry.model_response()}]}
        return {'type': 'function_call_output', 'call_id': retry.tool_call_id, 'output': retry.model_response()}

    def _map_response(self, message: ModelResponse, send_ids: bool) -> list[dict[str, Any]]:
        """The input items of an earlier response.

        OpenAI's own items go back as they came, with their ids; without ids (`openai_send_reasoning_ids=False`)
        or from another provider, text and tool calls go back plainly and thinking as tagged text.
        """
        items: list[dict[str, Any]] = []
        reasoning: dict[str, Any] | None = None
        own = send_ids and message.provider_name == self.system
        for part in message.parts:
            if isinstance(part, ThinkingPart) and own and part.provider_name == self.system and part.id:
                if not (part.content or part.signature):
                    continue
                if reasoning is None or reasoning['id'] != part.id:
                    reasoning = {'type': 'reasoning', 'id': part.id, 'summary': []}
                    items.append(reasoning)
                if part.content:
                    reasoning['summary'].append({'type': 'summary_text', 'text': part.content})
                if part.signature:
                    reasoning['encrypted_content'] = part.signature
                continue
            reasoning = None
            if isinstance(part, ThinkingPart):
                start, end = self.profile.thinking_tags
                items.append({'role': 'assistant', 'content': f'{start}\n{part.content}\n{end}'})
            elif isinstance(part, TextPart):
                items.append(_map_text(part, own))
            elif isinstance(part, ToolCallPart):
                items.append(_map_tool_call(part, own))
            # Built-in tool parts and files are not sent back: this model supports no built-in tools yet.
        return items

    # Reading the response.

    def _process_response(self, response: Response) -> ModelResponse:
        parts: list[ModelResponsePart] = []
        for item in response.output:
            if item.type == 'reasoning':
                parts.extend(_reasoning_parts(item.id, [s.text for s in item.summary], item.encrypted_content))
            elif item.type == 'message':
                for content in item.content:
                    if content.type == 'output_text':
                        parts.append(TextPart(content.text, id=item.id, provider_name=self.system))
            elif item.type == 'function_call':
                parts.append(
                    ToolCallPart(
                        item.name, item.arguments, tool_call_id=item.call_id, id=item.id, provider_name=self.system
                    )
                )
        return ModelResponse(
            parts=parts,
            usage=_map_usage(response),
            model_name=response.model,
            timestamp=_utils.now_utc(),
            provider_name=self.system,
            provider_url=self.base_url,
            provider_details=_details(response),
            provider_response_id=response.id,
            finish_reason=_finish_reason(response),
        )

    def _api_error(self, error: APIError) -> ModelAPIError:
        if isinstance(error, APIStatusError):
            return ModelHTTPError(error.status_code, self._model_name, error.body)
        if isinstance(error, APIConnectionError):
            return ModelAPIError(self._model_name, error.message)
        return ModelAPIError(self._model_name, str(error))  # pragma: no cover


@dataclass
class OpenAIResponsesStreamedResponse(StreamedResponse):
    """A streamed Responses API response: text, reasoning summary and function-call argument pieces become events.

    Output items are told apart by their ids; reasoning summaries by item id and summary index.
    """

    _model_name: str
    _first_event: ResponseStreamEvent
    _event_stream: AsyncIterator[ResponseStreamEvent]
    _provider_name: str
    _provider_url: str
    _timestamp: datetime = field(default_factory=_utils.now_utc)

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        raw: ResponseStreamEvent | None = self._first_event
        while raw is not None:
            for event in self._checked_events(raw):
                yield event
            raw = await anext(self._event_stream, None)

    def _checked_events(self, raw: ResponseStreamEvent) -> list[ModelResponseStreamEvent]:
        try:
            return list(self._handle_event(raw))
        except _MALFORMED as e:
            raise _invalid(e, raw) from e

    def _handle_event(self, event: ResponseStreamEvent) -> Iterator[ModelResponseStreamEvent]:
        manager = self._parts_manager
        if event.type == 'response.created':
            self._start(event.response)
        elif event.type == 'response.output_item.added':
            item = event.item
            if item.type == 'function_call':
                part = ToolCallPart(
                    item.name,
                    item.arguments,
                    tool_call_id=item.call_id,
                    id=item.id,
                    provider_name=self.provider_name,
                )
                yield manager.handle_part(vendor_part_id=item.id, part=part)
        elif event.type == 'response.output_text.delta':
            yield from manager.handle_text_delta(
                vendor_part_id=event.item_id, content=event.delta, id=event.item_id, provider_name=self.provider_name
            )
        elif event.type == 'response.function_call_arguments.delta':
            delta_event = manager.handle_tool_call_delta(vendor_part_id=event.item_id, args=event.delta)
            if delta_event is not None:
                yield delta_event
        elif event.type == 'response.reasoning_summary_part.added':
            # Each summary starts as an empty thinking part, which the text deltas fill.
            yield from manager.handle_thinking_delta(
                vendor_part_id=f'{event.item_id}-{event.summary_index}',
                content='',
                id=event.item_id,
                provider_name=self.provider_name,
            )
        elif event.type == 'response.reasoning_summary_text.delta':
            yield from manager.handle_thinking_delta(
                vendor_part_id=f'{event.item_id}-{event.summary_index}',
                content=event.delta,
                id=event.item_id,
                provider_name=self.provider_name,
            )
        elif event.type == 'response.output_item.done' and event.item.type == 'reasoning':
            yield from self._reasoning_done(event.item.id, event.item.encrypted_content)
        elif (
            event.type == 'response.completed' or event.type == 'response.incomplete' or event.type == 'response.failed'
        ):
            self._finish(event.response)
        elif event.type == 'error':
            raise ModelAPIError(self._model_name, f'The streamed response reported an error: {event.message}')

    def _reasoning_done(self, item_id: str, encrypted: str | None) -> Iterator[ModelResponseStreamEvent]:
        if encrypted is None:
            return
        # The encrypted reasoning goes on the item's first summary part, as for whole responses.
        yield from self._parts_manager.handle_thinking_delta(
            vendor_part_id=f'{item_id}-0', id=item_id, signature=encrypted, provider_name=self.provider_name
        )

    def _start(self, response: Response) -> None:
        self._model_name = response.model
        self.provider_response_id = response.id
        self.provider_details = {'timestamp': datetime.fromtimestamp(response.created_at, tz=UTC)}

    def _finish(self, response: Response) -> None:
        self._usage = _map_usage(response)
        self.provider_details = {**(self.provider_details or {}), **_details(response)}
        self.finish_reason = _finish_reason(response)

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


_INVALID_JSON = 'Invalid response from openai responses endpoint, expected JSON data'


def _previous_response(
    messages: list[ModelMessage], setting: str | None, provider_name: str
) -> tuple[str | None, list[ModelMessage]]:
    """The previous response id to send and the messages after it.

    With `'auto'`, that is the last response of this provider that has an id, if any.
    """
    if setting != 'auto':
        return setting, messages
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if (
            isinstance(message, ModelResponse)
            and message.provider_name == provider_name
            and message.provider_response_id
        ):
            return message.provider_response_id, messages[index + 1 :]
    return None, messages


def _map_tool(tool: Any, profile: OpenAIModelProfile) -> dict[str, Any]:
    mapped: dict[str, Any] = {
        'type': 'function',
        'name': tool.name,
        'description': tool.description,
        'parameters': tool.parameters_json_schema,
        'strict': bool(tool.strict and profile.openai_supports_strict_tool_definition),
    }
    return mapped


def _text_config(
    params: ModelRequestParameters, profile: OpenAIModelProfile, settings: OpenAIResponsesModelSettings
) -> dict[str, Any]:
    text: dict[str, Any] = {}
    output_object = params.output_object
    if params.output_mode == 'native' and output_object is not None:
        response_format: dict[str, Any] = {
            'type': 'json_schema',
            'name': output_object.name or 'final_result',
            'schema': output_object.json_schema,
            'strict': output_object.strict,
        }
        if output_object.description:
            response_format['description'] = output_object.description
        text['format'] = response_format
    elif params.output_mode == 'prompted' and profile.supports_json_object_output:
        text['format'] = {'type': 'json_object'}
    verbosity = settings.get('openai_text_verbosity')
    if verbosity:
        text['verbosity'] = verbosity
    return text


def _reasoning(settings: OpenAIResponsesModelSettings) -> dict[str, Any]:
    reasoning: dict[str, Any] = {}
    effort = settings.get('openai_reasoning_effort')
    if effort is not None:
        reasoning['effort'] = effort
    summary = settings.get('openai_reasoning_summary')
    generate_summary = settings.get('openai_reasoning_generate_summary')
    if generate_summary is not None:
        warnings.warn(
            '`openai_reasoning_generate_summary` is deprecated, use `openai_reasoning_summary` instead',
            DeprecationWarning,
            stacklevel=2,
        )
        summary = summary or generate_summary
    if summary is not None:
        reasoning['summary'] = summary
    return reasoning


def _map_text(part: TextPart, own: bool) -> dict[str, Any]:
    if own and part.id:
        content: list[dict[str, Any]] = [{'type': 'output_text', 'text': part.content, 'annotations': []}]
        return {'type': 'message', 'role': 'assistant', 'id': part.id, 'status': 'completed', 'content': content}
    return {'role': 'assistant', 'content': part.content}


def _map_tool_call(part: ToolCallPart, own: bool) -> dict[str, Any]:
    item: dict[str, Any] = {
        'type': 'function_call',
        'name': part.tool_name,
        'arguments': part.args_as_json_str(),
        'call_id': part.tool_call_id,
    }
    if own and part.id:
        item['id'] = part.id
    return item


def _map_user_content(content: Sequence[UserContent]) -> list[dict[str, Any]]:
    mapped: list[dict[str, Any]] = []
    for item in content:
        if isinstance(item, CachePoint):
            # The Responses API caches prompt prefixes by itself; there is no marker to send.
            continue
        if isinstance(item, str):
            mapped.append({'type': 'input_text', 'text': item})
        elif isinstance(item, ImageUrl):
            mapped.append({'type': 'input_image', 'image_url': item.url, 'detail': 'auto'})
        elif isinstance(item, DocumentUrl):
            mapped.append({'type': 'input_file', 'file_url': item.url})
        elif isinstance(item, BinaryContent) and item.is_image:
            mapped.append({'type': 'input_image', 'image_url': item.data_uri, 'detail': 'auto'})
        elif isinstance(item, BinaryContent) and item.is_document:
            mapped.append({'type': 'input_file', 'file_data': item.data_uri, 'filename': f'filename.{item.format}'})
        else:
            raise UserError(f'Unsupported content for the OpenAI Responses API: {type(item).__name__}')
    return mapped


def _reasoning_parts(item_id: str, summaries: list[str], encrypted: str | None) -> list[ModelResponsePart]:
    """The thinking parts of a reasoning item: one per summary, the encrypted reasoning on the first."""
    texts = summaries or ([''] if encrypted else [])
    return [
        ThinkingPart(text, id=item_id, signature=encrypted if index == 0 else None, provider_name='openai')
        for index, text in enumerate(texts)
    ]


def _map_usage(response: Response) -> RequestUsage:
    usage = response.usage
    if usage is None:
        return RequestUsage()
    return RequestUsage(
        input_tokens=usage.input_tokens,
        cache_read_tokens=usage.input_tokens_details.cached_tokens,
        output_tokens=usage.output_tokens,
        details={'reasoning_tokens': usage.output_tokens_details.reasoning_tokens},
    )


def _details(response: Response) -> dict[str, Any]:
    return {'finish_reason': response.status, 'timestamp': datetime.fromtimestamp(response.created_at, tz=UTC)}


def _finish_reason(response: Response) -> FinishReason | None:
    if response.status == 'completed':
        return 'stop'
    if response.status == 'incomplete':
        reason = response.incomplete_details.reason if response.incomplete_details else None
        return _INCOMPLETE_REASONS.get(reason or '', 'length')
    if response.status == 'failed':
        return 'error'
    return None


def _invalid(error: Exception, value: Any) -> UnexpectedModelBehavior:
    """The error for a body or event that is JSON but not what the API sends, quoting it."""
    return UnexpectedModelBehavior(f'Invalid response from openai responses endpoint: {error}', body=_body_text(value))


def _body_text(value: Any) -> str:
    # The SDK builds its objects without validation, so the fields set are the ones the body had.
    if isinstance(value, pydantic.BaseModel):
        value = value.model_dump(mode='json', exclude_unset=True, warnings=False)
    return json.dumps(value, default=str)
