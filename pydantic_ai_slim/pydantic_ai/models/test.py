"""`TestModel`: a model that needs no network and answers predictably, for tests and examples.

On the first request of a conversation it calls every function tool (or the ones named in `call_tools`)
with arguments made up from each tool's JSON schema. Once tool results come back it answers: with text
(the JSON of all tool results, or `custom_output_text`) when text output is allowed, otherwise by calling
an output tool (picked by `seed`). A request holding retry prompts is answered by calling the retried
tools again. Users' snapshot tests pin these responses, so every detail here follows upstream's TestModel.
"""

from __future__ import annotations

import string
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal, cast

import pydantic_core

from .. import _utils
from .._usage_estimate import count_tokens, estimate_usage
from ..builtin_tools import SUPPORTED_BUILTIN_TOOLS, AbstractBuiltinTool
from ..exceptions import UserError
from ..messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelResponsePart,
    ModelResponseStreamEvent,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from ..profiles import ModelProfileSpec
from ..settings import ModelSettings
from ..tools import ToolDefinition
from . import Model, ModelRequestParameters, StreamedResponse

if TYPE_CHECKING:
    from .._run_context import RunContext

__all__ = ('SUPPORTED_BUILTIN_TOOLS', 'TestModel', 'TestStreamedResponse')


@dataclass(init=False)
class TestModel(Model):
    """A model for tests: it calls the agent's tools, then answers from their results.

    By default the first response calls every function tool with arguments generated from its schema.
    The next response is the final one: text made of the tool results when text output is allowed,
    otherwise a call of an output tool with generated (or custom) arguments.
    """

    # Keep pytest from collecting this class as a test case.
    __test__ = False

    call_tools: list[str] | Literal['all'] = 'all'
    """The function tools to call on the first request: `'all'`, or a list of tool names."""
    custom_output_text: str | None = None
    """The text of the final response, instead of the JSON of the tool results."""
    custom_output_args: Any | None = None
    """The arguments of the output tool call of the final response, instead of generated ones."""
    seed: int = 0
    """Varies the generated tool arguments: numbers, characters, enum and union choices."""
    last_model_request_parameters: ModelRequestParameters | None = field(default=None, init=False)
    """The request parameters of the most recent request, for tests to inspect."""
    _model_name: str = field(default='test', repr=False)
    _system: str = field(default='test', repr=False)

    def __init__(
        self,
        *,
        call_tools: list[str] | Literal['all'] = 'all',
        custom_output_text: str | None = None,
        custom_output_args: Any | None = None,
        seed: int = 0,
        model_name: str = 'test',
        profile: ModelProfileSpec | None = None,
        settings: ModelSettings | None = None,
    ) -> None:
        """Make a test model.

        Args:
            call_tools: The function tools to call on the first request, `'all'` or a list of names.
            custom_output_text: The text of the final response.
            custom_output_args: The arguments of the final output tool call.
            seed: Varies the generated tool arguments.
            model_name: The model's name, also set on its responses.
            profile: What the model supports; the default profile if not given.
            settings: Default settings for the model's requests.
        """
        super().__init__(settings=settings, profile=profile)
        self.call_tools = call_tools
        self.custom_output_text = custom_output_text
        self.custom_output_args = custom_output_args
        self.seed = seed
        self.last_model_request_parameters = None
        self._model_name = model_name
        self._system = 'test'

    @property
    def model_name(self) -> str:
        """The model's name, `'test'` unless given."""
        return self._model_name

    @property
    def system(self) -> str:
        """The provider's name: `'test'`."""
        return self._system

    @classmethod
    def supported_builtin_tools(cls) -> frozenset[type[AbstractBuiltinTool]]:
        """Every builtin tool passes the model's check, but a request that has any is refused, as upstream."""
        return SUPPORTED_BUILTIN_TOOLS

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Answer the conversation as described on the class, with an estimated usage."""
        _, model_request_parameters = self.prepare_request(model_settings, model_request_parameters)
        self.last_model_request_parameters = model_request_parameters
        parts = self._response_parts(messages, model_request_parameters)
        response = ModelResponse(parts=parts, model_name=self._model_name)
        response.usage = estimate_usage([*messages, response])
        return response

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        """Stream the same response as `request`: text word by word, tool calls whole."""
        _, model_request_parameters = self.prepare_request(model_settings, model_request_parameters)
        self.last_model_request_parameters = model_request_parameters
        parts = self._response_parts(messages, model_request_parameters)
        yield TestStreamedResponse(
            model_request_parameters, _model_name=self._model_name, _parts=parts, _messages=messages
        )

    def gen_tool_args(self, tool_def: ToolDefinition) -> Any:
        """Make up arguments for a tool from its JSON schema, varied by `seed`."""
        schema = tool_def.parameters_json_schema
        return _SchemaSample(schema, self.seed).sample(schema)

    def _response_parts(
        self, messages: Sequence[ModelMessage], params: ModelRequestParameters
    ) -> list[ModelResponsePart]:
        if params.builtin_tools:
            raise UserError('TestModel does not support built-in tools')
        # Both are worked out up front so that a misconfigured model fails on every request, not just some.
        tools_to_call = self._tools_to_call(params)
        output = self._final_output(params)
        if tools_to_call and not any(isinstance(message, ModelResponse) for message in messages):
            return [_tool_call(tool_def.name, self.gen_tool_args(tool_def)) for tool_def in tools_to_call]
        if messages:
            last = messages[-1]
            assert isinstance(last, ModelRequest), 'Expected last message to be a `ModelRequest`.'
            # A request holding retry prompts is only ever answered with the retried calls, even none.
            retries = [part for part in last.parts if isinstance(part, RetryPromptPart)]
            if retries:
                retried = {part.tool_name for part in retries}
                return self._retry_calls(retried, tools_to_call, output, params)
        if isinstance(output, _TextOutput):
            return [TextPart(output.text if output.text is not None else _tool_results_text(messages))]
        # The seed also picks which output tool is called.
        tool_def = params.output_tools[self.seed % len(params.output_tools)]
        return [self._output_tool_call(tool_def, output)]

    def _tools_to_call(self, params: ModelRequestParameters) -> list[ToolDefinition]:
        if self.call_tools == 'all':
            return list(params.function_tools)
        by_name = {tool_def.name: tool_def for tool_def in params.function_tools}
        return [by_name[name] for name in self.call_tools]

    def _final_output(self, params: ModelRequestParameters) -> _TextOutput | _ToolOutput:
        if self.custom_output_text is not None:
            assert params.output_mode != 'tool', 'Plain response not allowed, but `custom_output_text` is set.'
            assert self.custom_output_args is None, 'Cannot set both `custom_output_text` and `custom_output_args`.'
            return _TextOutput(self.custom_output_text)
        if self.custom_output_args is not None:
            # Custom arguments are wrapped for the first output tool, whichever tool ends up being called.
            key = params.output_tools[0].outer_typed_dict_key
            return _ToolOutput({key: self.custom_output_args} if key else self.custom_output_args)
        if params.allow_text_output or not params.output_tools:
            return _TextOutput(None)
        return _ToolOutput(None, custom=False)

    def _retry_calls(
        self,
        retried: set[str | None],
        tools_to_call: list[ToolDefinition],
        output: _TextOutput | _ToolOutput,
        params: ModelRequestParameters,
    ) -> list[ModelResponsePart]:
        # Function tools are called again under fresh ids, as a model would; output tools keep theirs.
        parts: list[ModelResponsePart] = [
            ToolCallPart(tool_def.name, self.gen_tool_args(tool_def))
            for tool_def in tools_to_call
            if tool_def.name in retried
        ]
        parts.extend(
            self._output_tool_call(tool_def, output) for tool_def in params.output_tools if tool_def.name in retried
        )
        return parts

    def _output_tool_call(self, tool_def: ToolDefinition, output: _TextOutput | _ToolOutput) -> ToolCallPart:
        if isinstance(output, _ToolOutput) and output.custom:
            return _tool_call(tool_def.name, output.args)
        return _tool_call(tool_def.name, self.gen_tool_args(tool_def))


@dataclass(kw_only=True)
class TestStreamedResponse(StreamedResponse):
    """The streamed response of a `TestModel`.

    Usage: the estimate over the messages sent, plus the words of each streamed piece of text.
    """

    # Keep pytest from collecting this class as a test case.
    __test__ = False

    _model_name: str
    _parts: list[ModelResponsePart]
    _messages: Sequence[ModelMessage] = field(repr=False)
    _timestamp: datetime = field(default_factory=_utils.now_utc)

    def __post_init__(self) -> None:
        self._usage = estimate_usage(self._messages)

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        for index, part in enumerate(self._parts):
            if isinstance(part, TextPart):
                for event in self._text_events(index, part.content):
                    yield event
            else:
                yield self._parts_manager.handle_part(vendor_part_id=index, part=part)

    def _text_events(self, index: int, text: str) -> Iterator[ModelResponseStreamEvent]:
        # The part starts empty and gets one piece per word, each with the space after it; a single word of more
        # than two characters comes in two halves, so that it is still streamed.
        yield from self._parts_manager.handle_text_delta(vendor_part_id=index, content='')
        words = text.split(' ')
        if len(words) == 1 and len(text) > 2:
            half = len(text) // 2
            pieces = [text[:half], text[half:]]
        else:
            pieces = [f'{word} ' for word in words[:-1]] + [words[-1]]
        for piece in pieces:
            self._usage.output_tokens += count_tokens(piece)
            yield from self._parts_manager.handle_text_delta(vendor_part_id=index, content=piece)

    @property
    def model_name(self) -> str:
        """The name of the model."""
        return self._model_name

    @property
    def provider_name(self) -> str:
        """The provider's name: `'test'`."""
        return 'test'

    @property
    def provider_url(self) -> None:
        """A test model has no provider URL."""
        return None

    @property
    def timestamp(self) -> datetime:
        """When the stream started."""
        return self._timestamp


@dataclass
class _TextOutput:
    text: str | None


@dataclass
class _ToolOutput:
    args: Any
    custom: bool = True


def _tool_call(tool_name: str, args: Any) -> ToolCallPart:
    return ToolCallPart(tool_name, args, tool_call_id=f'pyd_ai_tool_call_id__{tool_name}')


def _tool_results_text(messages: Sequence[ModelMessage]) -> str:
    results: dict[str, Any] = {
        part.tool_name: part.content
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    }
    # As upstream, plain `to_json`: bytes are shown as UTF-8 text (and bytes that are not UTF-8 fail).
    return pydantic_core.to_json(results).decode() if results else 'success (no tool calls)'


_CHARS = string.ascii_letters + string.digits + string.punctuation
_FIRST_DATE = date(2024, 1, 1)


class _SchemaSample:
    """Makes up a value matching a JSON schema; every choice is driven by the same seed.

    Objects get their required properties only; arrays get their prefix items, then one item (or as many
    as `minItems` asks for); strings are one character (repeated `minLength` times); numbers start at the
    seed, shifted into `minimum`/`maximum`; enums, `anyOf` and booleans pick by the seed.
    """

    def __init__(self, root: dict[str, Any], seed: int) -> None:
        # `$ref`s are resolved against the root schema's `$defs` only.
        self.defs: dict[str, Any] = root.get('$defs', {})
        self.seed = seed

    def sample(self, schema: dict[str, Any]) -> Any:
        if const := schema.get('const'):
            return const
        if enum := schema.get('enum'):
            return enum[self.seed % len(enum)]
        if ref := schema.get('$ref'):
            return self.sample(self.defs[ref.removeprefix('#/$defs/')])
        if any_of := schema.get('anyOf'):
            return self.sample(any_of[self.seed % len(any_of)])
        return self._sample_type(schema, schema.get('type'))

    def _sample_type(self, schema: dict[str, Any], type_: Any) -> Any:
        if type_ is None or type_ == 'string':
            return self._string(schema)
        if type_ == 'object':
            return self._object(schema)
        if type_ == 'array':
            return self._array(schema)
        if type_ == 'integer':
            return self._number(schema)
        if type_ == 'number':
            return float(self._number(schema))
        if type_ == 'boolean':
            return self.seed % 2 == 1
        if type_ == 'null':
            return None
        raise NotImplementedError(f'Unknown type: {type_}, please submit a PR to extend JsonSchemaTestData!')

    def _object(self, schema: dict[str, Any]) -> dict[str, Any]:
        required = schema.get('required', ())
        data = {name: self.sample(prop) for name, prop in schema.get('properties', {}).items() if name in required}
        if extra := schema.get('additionalProperties'):
            key = 'additionalProperty'
            while key in data:
                key += '_'
            # `additionalProperties: true` allows any value; a string is as good as any.
            data[key] = self.sample(cast(dict[str, Any], extra) if isinstance(extra, dict) else {})
        return data

    def _array(self, schema: dict[str, Any]) -> list[Any]:
        data = [self.sample(item) for item in schema.get('prefixItems', ())]
        items = schema.get('items', {})
        min_items: int = schema.get('minItems', 0)
        max_items: int | None = schema.get('maxItems')
        if min_items > len(data):
            data.extend(self.sample(items) for _ in range(min_items - len(data)))
        elif items and (max_items is None or len(data) < max_items):
            data.append(self.sample(items))
        return data

    def _string(self, schema: dict[str, Any]) -> str:
        if (min_length := schema.get('minLength')) is not None:
            return self._text() * min_length
        if schema.get('maxLength') == 0:
            return ''
        if schema.get('format') == 'date':
            return (_FIRST_DATE + timedelta(days=self.seed)).isoformat()
        return self._text()

    def _text(self) -> str:
        """A short string that differs for every seed: one character, with more in front for big seeds."""
        base = len(_CHARS)
        prefix = ''
        rest = self.seed // base
        while rest > 0:
            prefix += _CHARS[(rest - 1) % base]
            rest //= base
        return prefix + _CHARS[self.seed % base]

    def _number(self, schema: dict[str, Any]) -> Any:
        low = schema.get('minimum')
        high = schema.get('maximum')
        if low is None and 'exclusiveMinimum' in schema:
            low = schema['exclusiveMinimum'] + 1
        if high is None and 'exclusiveMaximum' in schema:
            high = schema['exclusiveMaximum'] - 1
        if low is None:
            return self.seed if high is None else high - self.seed
        if high is None:
            return low + self.seed
        return low + self.seed % (high - low)
