"""The model interface, the parameters of a request, and resolution of model names like `'test'`."""

from __future__ import annotations

import base64
import importlib
import json
import warnings
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeAlias, TypeVar, overload

from typing_extensions import TypeAliasType, TypedDict

from .. import _utils
from .._parts_manager import ModelResponsePartsManager
from ..builtin_tools import AbstractBuiltinTool
from ..exceptions import UserError
from ..messages import (
    FileUrl,
    FinalResultEvent,
    FinishReason,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelResponsePart,
    ModelResponseStreamEvent,
    PartEndEvent,
    PartStartEvent,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolCallPartDelta,
    ToolReturnPart,
)
from ..profiles import DEFAULT_PROFILE, ModelProfile, ModelProfileSpec
from ..providers import Provider, infer_provider
from ..settings import ModelSettings, merge_model_settings
from ..tools import ToolDefinition
from ..usage import RequestUsage

if TYPE_CHECKING:
    import httpx

    from .._run_context import RunContext
    from ..output import OutputObjectDefinition

__all__ = (
    'ALLOW_MODEL_REQUESTS',
    'DEFAULT_HTTP_TIMEOUT',
    'DataT',
    'DownloadedItem',
    'KnownModelName',
    'Model',
    'ModelRequestParameters',
    'OpenAIChatCompatibleProvider',
    'OpenAIResponsesCompatibleProvider',
    'OutputMode',
    'StreamedResponse',
    'cached_async_http_client',
    'check_allow_model_requests',
    'download_item',
    'get_user_agent',
    'infer_model',
    'override_allow_model_requests',
)

ALLOW_MODEL_REQUESTS = True
"""Whether models that talk to a provider may send requests; test suites set it to `False` so that a test that
would reach a real model fails instead (`TestModel` and `FunctionModel` are not affected)."""

DEFAULT_HTTP_TIMEOUT: int = 600
"""The default read timeout of HTTP requests to providers, in seconds."""


OutputMode: TypeAlias = Literal['text', 'tool', 'native', 'prompted', 'tool_or_text', 'image', 'auto']
"""How the model is asked for the output: plain text, an output tool, native structured output, or a prompt."""

KnownModelName: TypeAlias = Literal['test'] | str
"""A model name the agent can resolve: `'test'`, or `'provider:model'` for an installed provider."""

OpenAIChatCompatibleProvider = TypeAliasType(
    'OpenAIChatCompatibleProvider',
    Literal[
        'alibaba',
        'azure',
        'cerebras',
        'deepseek',
        'fireworks',
        'github',
        'grok',
        'heroku',
        'litellm',
        'moonshotai',
        'nebius',
        'ollama',
        'openrouter',
        'ovhcloud',
        'sambanova',
        'together',
        'vercel',
    ],
)
"""The names of the providers upstream serves through the Chat Completions API (this distribution has `openai`)."""

OpenAIResponsesCompatibleProvider = TypeAliasType(
    'OpenAIResponsesCompatibleProvider',
    Literal['azure', 'deepseek', 'fireworks', 'grok', 'nebius', 'openrouter', 'ovhcloud', 'sambanova', 'together'],
)
"""The names of the providers upstream serves through the Responses API (this distribution has `openai`)."""

# Providers upstream knows, and the extra each needs. Naming one this distribution lacks, or one whose extra is
# not installed, gives a clear error instead of an import failure deep inside a run.
_PROVIDER_EXTRAS: dict[str, str] = {
    'openai': 'openai',
    'openai-chat': 'openai',
    'openai-responses': 'openai',
    'azure': 'openai',
    'deepseek': 'openai',
    'ollama': 'openai',
    'openrouter': 'openai',
    'anthropic': 'anthropic',
    'google-gla': 'google',
    'google-vertex': 'google',
    'gemini': 'google',
    'groq': 'groq',
    'mistral': 'mistral',
    'cohere': 'cohere',
    'bedrock': 'bedrock',
    'huggingface': 'huggingface',
}


@dataclass(repr=False, kw_only=True)
class ModelRequestParameters:
    """What the agent tells a model about a request besides the messages: tools and the output mode."""

    function_tools: list[ToolDefinition] = field(default_factory=list[ToolDefinition])
    """The tools the model may call."""
    builtin_tools: list[AbstractBuiltinTool] = field(default_factory=list[AbstractBuiltinTool])
    """The builtin tools the model may use (run by the provider)."""
    output_mode: OutputMode = 'text'
    """How the output is requested."""
    output_object: OutputObjectDefinition | None = None
    """The schema of native or prompted structured output."""
    output_tools: list[ToolDefinition] = field(default_factory=list[ToolDefinition])
    """The output tools the model may call to give the final result."""
    prompted_output_template: str | None = None
    """The template of the prompt for prompted output."""
    allow_text_output: bool = True
    """Whether plain text is an acceptable final response."""
    allow_image_output: bool = False
    """Whether an image is an acceptable final response."""

    @property
    def tool_defs(self) -> dict[str, ToolDefinition]:
        """Function and output tool definitions by name."""
        return {tool_def.name: tool_def for tool_def in [*self.function_tools, *self.output_tools]}

    @property
    def prompted_output_instructions(self) -> str | None:
        """The template filled with the output object's JSON schema (appended if it has no `{schema}`), if both are set."""
        output_object, template = self.output_object, self.prompted_output_template
        if output_object is None or not template:
            return None
        if '{schema}' not in template:
            template = f'{template}\n\n{{schema}}'
        schema = dict(output_object.json_schema)
        if output_object.name:
            schema['title'] = output_object.name
        if output_object.description:
            schema['description'] = output_object.description
        return template.format(schema=json.dumps(schema))

    __repr__ = _utils.dataclasses_no_defaults_repr


class Model(ABC):
    """A model the agent can send requests to."""

    _settings: ModelSettings | None = None
    _profile: ModelProfileSpec | None = None
    _default_profile: ClassVar[ModelProfile] = DEFAULT_PROFILE
    _checks_allow_model_requests: ClassVar[bool] = True
    """Whether `prepare_request` refuses to prepare requests while `ALLOW_MODEL_REQUESTS` is `False`; local test
    doubles turn it off."""

    def __init__(self, *, settings: ModelSettings | None = None, profile: ModelProfileSpec | None = None) -> None:
        """Make a model.

        Args:
            settings: Default settings for the model's requests, under those of the agent and the run.
            profile: What the model supports, or a function from the model name to that (`None`: the default).
        """
        self._settings = settings
        self._profile = profile

    @property
    def settings(self) -> ModelSettings | None:
        """The model's default settings."""
        return self._settings

    @abstractmethod
    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Send the messages and return the model's response."""
        raise NotImplementedError

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        """Send the messages and stream the response, as an async context manager yielding a `StreamedResponse`.

        Leaving the context closes the stream. Models that cannot stream raise `NotImplementedError`.
        """
        raise NotImplementedError(f'Streamed requests not supported by this {self.__class__.__name__}')
        yield  # pragma: no cover

    @classmethod
    def supported_builtin_tools(cls) -> frozenset[type[AbstractBuiltinTool]]:
        """The builtin tools this class of model can send; none unless a subclass says otherwise.

        A model supports the builtin tools in both this set and its profile's `supported_builtin_tools`.
        """
        return frozenset()

    async def count_tokens(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> RequestUsage:
        """Count the input tokens of a request before sending it (with `UsageLimits(count_tokens_before_request=True)`).

        Raises:
            NotImplementedError: If the model cannot count tokens ahead of a request, as here.
        """
        raise NotImplementedError(f'Token counting ahead of the request is not supported by {type(self).__name__}')

    def customize_request_parameters(self, model_request_parameters: ModelRequestParameters) -> ModelRequestParameters:
        """Adapt the request parameters to what the model supports."""
        return model_request_parameters

    def prepare_request(
        self, model_settings: ModelSettings | None, model_request_parameters: ModelRequestParameters
    ) -> tuple[ModelSettings | None, ModelRequestParameters]:
        """Merge the model's own settings under the request's, customize the parameters, and settle the output mode.

        `'auto'` becomes the profile's default mode, and fields the mode does not use are cleared.

        Raises:
            UserError: If the output mode is `'native'` and the model does not support it, or the request has
                builtin tools the model does not support.
        """
        if self._checks_allow_model_requests:
            check_allow_model_requests()
        merged = merge_model_settings(self.settings, model_settings)
        params = self.customize_request_parameters(model_request_parameters)
        self._check_builtin_tools(params.builtin_tools)
        return merged, _settle_output_mode(params, self.profile)

    def _check_builtin_tools(self, builtin_tools: Sequence[AbstractBuiltinTool]) -> None:
        # The profile is already narrowed to the builtin tools this model class can send.
        supported = self.profile.supported_builtin_tools
        unsupported = [tool for tool in builtin_tools if not isinstance(tool, tuple(supported))]
        if unsupported:
            names = [type(tool).__name__ for tool in unsupported]
            supported_names = sorted(tool_type.__name__ for tool_type in supported)
            raise UserError(f'Builtin tool(s) {names} not supported by this model. Supported: {supported_names}')

    def _get_instructions(
        self, messages: Sequence[ModelMessage], model_request_parameters: ModelRequestParameters | None = None
    ) -> str | None:
        """The instructions to send: the conversation's, then those of prompted output (or native output that asks)."""
        instructions = _conversation_instructions(messages)
        params = model_request_parameters
        if params is None or params.output_mode not in ('prompted', 'native'):
            return instructions
        prompted = params.prompted_output_instructions
        if prompted is None:
            return instructions
        return '\n\n'.join(text for text in (instructions, prompted) if text)

    @property
    @abstractmethod
    def model_name(self) -> str:
        """The model's name."""
        raise NotImplementedError

    @property
    @abstractmethod
    def system(self) -> str:
        """The provider's name, e.g. `'openai'`."""
        raise NotImplementedError

    @cached_property
    def profile(self) -> ModelProfile:
        """What the model supports: the profile given (or made from the model name), else the model's default.

        Worked out on first use and kept, as upstream does.
        """
        spec = self._profile
        profile = spec(self.model_name) if callable(spec) else spec
        if profile is None:
            # A profile function that does not know the name falls back to the plain default, as upstream.
            profile = DEFAULT_PROFILE if callable(spec) else self._default_profile
        # The profile lists what the model could do; the model class narrows it to what it can send.
        supported = profile.supported_builtin_tools & self.supported_builtin_tools()
        if supported != profile.supported_builtin_tools:
            profile = replace(profile, supported_builtin_tools=supported)
        return profile

    @property
    def base_url(self) -> str | None:
        """The base URL of the provider's API, if any."""
        return None

    @property
    def label(self) -> str:
        """A human-readable label made from the model name, e.g. `'GPT 4o'` for `'gpt-4o'`."""
        return _label(self.model_name)


_ACRONYMS = {'gpt': 'GPT'}


def _label(model_name: str) -> str:
    words: list[str] = []
    for word in model_name.split('-'):
        if words and word.isdigit() and len(word) == 1 and words[-1].isdigit():
            # Version numbers written with dashes, like `3-5`, read as `3.5`.
            words[-1] = f'{words[-1]}.{word}'
        else:
            words.append(_ACRONYMS.get(word, word[:1].upper() + word[1:]))
    return ' '.join(words)


def _settle_output_mode(params: ModelRequestParameters, profile: ModelProfile) -> ModelRequestParameters:
    mode = params.output_mode
    if mode == 'auto':
        mode = profile.default_structured_output_mode
        params = replace(params, output_mode=mode, allow_text_output=mode != 'tool')
    if mode == 'native' and not profile.supports_json_schema_output:
        raise UserError('Native structured output is not supported by this model.')
    if mode == 'tool':
        return _cleared(params, output_object=None, prompted_output_template=None)
    if mode == 'native':
        template = params.prompted_output_template
        if template is None and profile.native_output_requires_schema_in_instructions:
            template = profile.prompted_output_template
        return _cleared(params, output_tools=[], prompted_output_template=template)
    if mode == 'prompted':
        template = params.prompted_output_template or profile.prompted_output_template
        return _cleared(params, output_tools=[], prompted_output_template=template)
    # Text and image output use neither output tools nor an output object.
    return _cleared(params, output_tools=[], output_object=None, prompted_output_template=None)


def _cleared(params: ModelRequestParameters, **values: Any) -> ModelRequestParameters:
    """`params` with `values` set: itself when it has them already (the usual case), else a copy."""
    if all(getattr(params, name) == value for name, value in values.items()):
        return params
    return replace(params, **values)


def _conversation_instructions(messages: Sequence[ModelMessage]) -> str | None:
    # Only the last two requests matter: found from the end, so the cost does not grow with the history.
    requests = (message for message in reversed(messages) if isinstance(message, ModelRequest))
    last = next(requests, None)
    if last is None:
        return None
    if last.instructions is not None:
        return last.instructions
    # A request that only carries tool results continues the previous request's turn, so its instructions
    # still apply.
    if all(isinstance(part, ToolReturnPart | RetryPromptPart) for part in last.parts):
        previous = next(requests, None)
        return previous.instructions if previous is not None else None
    return None


@dataclass
class StreamedResponse(ABC):
    """A model response as it streams in: iterate over it for part events, and `get()` the response so far.

    A model's `request_stream` yields a subclass, which turns the provider's stream into part events with its
    `_parts_manager` in `_get_event_iterator`, and keeps `_usage` up to date. Iterating adds a `PartEndEvent`
    whenever a new part starts and after the last one, and a `FinalResultEvent` after the start of the first
    part that holds the final result (text, an output tool call, or a call that must be deferred).
    """

    model_request_parameters: ModelRequestParameters
    """The parameters of the request, which tell which parts hold the final result."""
    final_result_event: FinalResultEvent | None = field(default=None, init=False)
    """The event marking the start of the final result, once it was seen."""
    _deferred_calls_end_run: bool = field(default=True, init=False, repr=False)
    """Whether a call that must wait for the user or an approval starts the final result (no deferred tool
    handler in the run), or is handled by the run like any other tool call."""
    provider_response_id: str | None = field(default=None, init=False)
    """The provider's id of the response, if it sent one."""
    provider_details: dict[str, Any] | None = field(default=None, init=False)
    """Provider-specific details of the response."""
    finish_reason: FinishReason | None = field(default=None, init=False)
    """Why the model stopped, once known."""
    _parts_manager: ModelResponsePartsManager = field(default_factory=ModelResponsePartsManager, init=False)
    _event_iterator: AsyncIterator[ModelResponseStreamEvent] | None = field(default=None, init=False)
    _usage: RequestUsage = field(default_factory=RequestUsage, init=False)

    def __aiter__(self) -> AsyncIterator[ModelResponseStreamEvent]:
        """The events of the stream; every iteration continues the same stream."""
        if self._event_iterator is None:
            self._event_iterator = self._events()
        return self._event_iterator

    @abstractmethod
    def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        """The part events of the provider's stream, made with `_parts_manager`."""
        raise NotImplementedError

    async def _events(self) -> AsyncIterator[ModelResponseStreamEvent]:
        inner = self._get_event_iterator()
        last: PartStartEvent | None = None
        try:
            async for event in inner:
                if not isinstance(event, PartStartEvent):
                    yield event
                    continue
                if last is not None:
                    yield self._part_end(last.index, event.part.part_kind)
                    event.previous_part_kind = last.part.part_kind
                last = event
                yield event
                if self.final_result_event is None:
                    self.final_result_event = _final_result_event(
                        event.part, self.model_request_parameters, self._deferred_calls_end_run
                    )
                    if self.final_result_event is not None:
                        yield self.final_result_event
            if last is not None:
                yield self._part_end(last.index, None)
        finally:
            aclose = getattr(inner, 'aclose', None)
            if aclose is not None:
                await aclose()

    def _part_end(self, index: int, next_part_kind: Any) -> PartEndEvent:
        part = self._parts_manager._part_at(index)
        assert not isinstance(part, ToolCallPartDelta), 'a started part is never an incomplete tool call'
        return PartEndEvent(index=index, part=part, next_part_kind=next_part_kind)

    async def _close(self) -> None:
        """Stop the stream: close the event iterator and, through it, the provider's stream."""
        iterator = self._event_iterator
        if isinstance(iterator, AsyncGenerator):
            await iterator.aclose()

    def get(self) -> ModelResponse:
        """The response as streamed so far."""
        return ModelResponse(
            parts=self._parts_manager.get_parts(),
            usage=self.usage() + RequestUsage(),
            model_name=self.model_name,
            timestamp=self.timestamp,
            provider_name=self.provider_name,
            provider_url=self.provider_url,
            provider_details=self.provider_details,
            provider_response_id=self.provider_response_id,
            finish_reason=self.finish_reason,
        )

    def usage(self) -> RequestUsage:
        """The usage of the request so far."""
        return self._usage

    @property
    @abstractmethod
    def model_name(self) -> str:
        """The name of the model that answers."""
        raise NotImplementedError

    @property
    @abstractmethod
    def provider_name(self) -> str | None:
        """The provider that answers, if any."""
        raise NotImplementedError

    @property
    @abstractmethod
    def provider_url(self) -> str | None:
        """The base URL of the provider, if any."""
        raise NotImplementedError

    @property
    @abstractmethod
    def timestamp(self) -> datetime:
        """When the response started."""
        raise NotImplementedError


def _final_result_event(
    part: ModelResponsePart, params: ModelRequestParameters, deferred_calls_end_run: bool
) -> FinalResultEvent | None:
    """The final result event a newly started part gives, if it starts the final result."""
    if isinstance(part, TextPart):
        allowed = params.allow_text_output and params.output_mode != 'auto'
        return FinalResultEvent(tool_name=None, tool_call_id=None) if allowed else None
    if not isinstance(part, ToolCallPart):
        return None
    tool_def = params.tool_defs.get(part.tool_name)
    if tool_def is None:
        return None
    if tool_def.kind == 'output' and params.output_mode in ('tool', 'auto'):
        return FinalResultEvent(tool_name=part.tool_name, tool_call_id=part.tool_call_id)
    if tool_def.kind in ('external', 'unapproved') and deferred_calls_end_run:
        # A call that must wait for the user or an approval ends the run, as the final result would.
        return FinalResultEvent(tool_name=None, tool_call_id=None)
    return None


def infer_model(
    model: Model | KnownModelName | str, provider_factory: Callable[[str], Provider[Any]] = infer_provider
) -> Model:
    """Resolve a model instance or name to a `Model`.

    Args:
        model: A model, or a name such as `'test'` or `'openai:gpt-4o'`.
        provider_factory: Makes the provider named before the colon (by default, configured from the environment).

    Raises:
        UserError: if the name needs a provider extra that is not installed.
    """
    if isinstance(model, Model):
        return model
    if model == 'test':
        from .test import TestModel

        return TestModel()
    provider, sep, model_name = model.partition(':')
    if not sep:
        provider, model_name = _bare_model_provider(model), model
        warnings.warn(
            'Specifying a model name without a provider prefix is deprecated. '
            f'Instead of {model!r}, use {f"{provider}:{model}"!r}.',
            # Attributed to this module, as upstream's is, so it shows only where deprecation warnings are enabled.
            DeprecationWarning,
            stacklevel=1,
        )
    return _model_of_provider(provider, model_name, provider_factory)


def _bare_model_provider(model: str) -> str:
    """The provider of a model name given without one, for the names upstream resolves that way."""
    if model.startswith(('gpt', 'o1', 'o3')):
        return 'openai'
    if model.startswith('claude'):
        return 'anthropic'
    if model.startswith('gemini'):
        return 'google-gla'
    raise UserError(f'Unknown model: {model}')


def _model_of_provider(provider_name: str, model_name: str, provider_factory: Callable[[str], Provider[Any]]) -> Model:
    if provider_name not in _MODEL_CLASSES:
        extra = _PROVIDER_EXTRAS.get(provider_name)
        if extra is None:
            raise ValueError(f'Unknown provider: {provider_name}')
        raise UserError(
            f'The `{provider_name}` provider is not available: it needs the `{extra}` optional dependencies, which '
            f'this installation lacks. Install them with `pip install "pydantic-ai-slim[{extra}]"`, or pass a '
            '`Model` instance.'
        )
    try:
        # The provider is made first so that, without the SDK, the error is the provider's, naming the extra.
        provider = provider_factory(provider_name)
        module_name, class_name = _MODEL_CLASSES[provider_name]
        model_class = getattr(importlib.import_module(module_name, __package__), class_name)
    except ImportError as e:
        raise _MissingExtraError(str(e)) from e
    return model_class(model_name, provider=provider)


class _MissingExtraError(UserError, ImportError):
    """A provider's SDK is not installed: a `UserError` for the user, and the `ImportError` upstream raises."""


# The model class of each provider name this distribution has, by module (relative to this package) and name.
_MODEL_CLASSES: dict[str, tuple[str, str]] = {
    'openai': ('.openai', 'OpenAIChatModel'),
    'openai-chat': ('.openai', 'OpenAIChatModel'),
    'openai-responses': ('.openai', 'OpenAIResponsesModel'),
    'anthropic': ('.anthropic', 'AnthropicModel'),
}


def check_allow_model_requests() -> None:
    """Raise if `ALLOW_MODEL_REQUESTS` is `False`; models that talk to a provider call it before each request.

    Raises:
        RuntimeError: If model requests are not allowed.
    """
    if not ALLOW_MODEL_REQUESTS:
        raise RuntimeError('Model requests are not allowed, since ALLOW_MODEL_REQUESTS is False')


@contextmanager
def override_allow_model_requests(allow_model_requests: bool) -> Iterator[None]:
    """Within the block, `ALLOW_MODEL_REQUESTS` is `allow_model_requests`; it is restored afterwards."""
    # The module attribute is the switch users set (upstream's API), so it is reassigned here.
    global ALLOW_MODEL_REQUESTS
    previous = ALLOW_MODEL_REQUESTS
    ALLOW_MODEL_REQUESTS = allow_model_requests  # pyright: ignore[reportConstantRedefinition]
    try:
        yield
    finally:
        ALLOW_MODEL_REQUESTS = previous  # pyright: ignore[reportConstantRedefinition]


@cache
def get_user_agent() -> str:
    """The `User-Agent` header sent to providers: `pydantic-ai/<version>`."""
    from .. import __version__

    return f'pydantic-ai/{__version__}'


_http_clients: dict[tuple[str | None, int, int], httpx.AsyncClient] = {}


def cached_async_http_client(
    *, provider: str | None = None, timeout: int = DEFAULT_HTTP_TIMEOUT, connect: int = 5
) -> httpx.AsyncClient:
    """An HTTP client shared by the providers that ask with the same arguments (one per provider name).

    A client that was closed is replaced by a new one.

    Args:
        provider: The provider's name, so that each provider has a client of its own.
        timeout: The read, write and pool timeout, in seconds.
        connect: The connect timeout, in seconds.
    """
    # Imported here: `httpx` is a large import that a run with a local model never needs.
    import httpx

    key = (provider, timeout, connect)
    client = _http_clients.get(key)
    if client is None or client.is_closed:
        client = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout=timeout, connect=connect), headers={'User-Agent': get_user_agent()}
        )
        _http_clients[key] = client
    return client


DataT = TypeVar('DataT', str, bytes)
"""The type of downloaded data: `bytes`, or `str` for text and base64 formats."""


class DownloadedItem(TypedDict, Generic[DataT]):
    """What `download_item` returns."""

    data: DataT
    """The data, in the format asked for."""
    data_type: str
    """The media type (e.g. `'image/png'`) or the file extension (e.g. `'png'`), as asked for."""


@overload
async def download_item(
    item: FileUrl, data_format: Literal['bytes'] = 'bytes', type_format: Literal['mime', 'extension'] = 'mime'
) -> DownloadedItem[bytes]: ...


@overload
async def download_item(
    item: FileUrl,
    data_format: Literal['base64', 'base64_uri', 'text'],
    type_format: Literal['mime', 'extension'] = 'mime',
) -> DownloadedItem[str]: ...


async def download_item(
    item: FileUrl,
    data_format: Literal['bytes', 'base64', 'base64_uri', 'text'] = 'bytes',
    type_format: Literal['mime', 'extension'] = 'mime',
) -> DownloadedItem[str] | DownloadedItem[bytes]:
    """Download a file URL, for providers that need the content rather than the URL.

    Args:
        item: The file URL.
        data_format: `'bytes'`, `'base64'`, a `'base64_uri'` (a `data:` URI), or `'text'`.
        type_format: Whether `data_type` is the media type or the file extension.

    Raises:
        httpx.HTTPStatusError: If the server answers with an error status.
        UnicodeDecodeError: If `data_format` is `'text'` and the content is not UTF-8.
    """
    client = cached_async_http_client()
    response = await client.get(item.url, follow_redirects=True)
    response.raise_for_status()
    header_type = response.headers.get('content-type', '').split(';', 1)[0].strip()
    media_type = header_type if header_type and header_type != 'application/octet-stream' else item.media_type
    data_type = media_type if type_format == 'mime' else item.format
    if data_format == 'bytes':
        return DownloadedItem[bytes](data=response.content, data_type=data_type)
    if data_format == 'text':
        return DownloadedItem[str](data=response.content.decode('utf-8'), data_type=data_type)
    encoded = base64.b64encode(response.content).decode()
    if data_format == 'base64_uri':
        encoded = f'data:{media_type};base64,{encoded}'
    return DownloadedItem[str](data=encoded, data_type=data_type)
