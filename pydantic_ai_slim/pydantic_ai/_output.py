"""The output engine: turns an output spec into what the model is asked for, and a response into the output.

`OutputSchema.build` reads an agent's `output_type` once. For each request, `request_parameters` says how the output
is asked for (given the model's profile) and `toolset` lists the output tools; for each response,
`process_tool_call` and `process_text` validate what the model sent. Failures the model can fix raise
`ToolRetryError` carrying the retry prompt to send back.
"""

from __future__ import annotations

import inspect
import re
import types
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, is_dataclass
from functools import cache, partial
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Generic,
    Literal,
    TypeAlias,
    TypeGuard,
    Union,
    cast,
    get_args,
    get_origin,
    get_type_hints,
)

from pydantic import BaseModel, GetCoreSchemaHandler, GetJsonSchemaHandler, TypeAdapter, ValidationError
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import SchemaValidator, core_schema
from typing_extensions import TypedDict, TypeVar, is_typeddict

from . import _function_schema, _utils
from ._errors import ToolRetryError
from ._run_context import AgentDepsT, RunContext, evolve
from .exceptions import ModelRetry, UserError
from .messages import RetryPromptPart, ToolCallPart
from .output import (
    DeferredToolRequests,
    NativeOutput,
    OutputDataT,
    OutputObjectDefinition,
    OutputSpec,
    PromptedOutput,
    TextOutput,
    ToolOutput,
)
from .tools import GenerateToolJsonSchema, ObjectJsonSchema, ToolDefinition
from .toolsets.abstract import AbstractToolset, ToolsetTool

if TYPE_CHECKING:
    from .models import Model
    from .profiles import ModelProfile

__all__ = ('OutputSchema', 'OutputToolset', 'OutputValidator')

DEFAULT_OUTPUT_TOOL_NAME = 'final_result'
DEFAULT_OUTPUT_TOOL_DESCRIPTION = 'The final response which ends this conversation'

_SchemaMode: TypeAlias = Literal['text', 'tool', 'native', 'prompted', 'auto']
_RequestMode: TypeAlias = Literal['text', 'tool', 'native', 'prompted']

# Partial validation keeps an unfinished trailing string, so a streamed field grows instead of flickering.
_PARTIAL_MODE: Literal['trailing-strings'] = 'trailing-strings'

# A JSON object in a Markdown code fence, with or without a language tag and a closing fence.
_FENCED_JSON_OBJECT = re.compile(r'```\w*\n(\{.*\})', re.DOTALL)

_T = TypeVar('_T')
_OutputT = TypeVar('_OutputT', default=str)


class _OutputJsonSchema(GenerateJsonSchema):
    """Pydantic's JSON schema, without a title on every field: titles of fields only repeat their names."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


class _ValueOrJson:
    """Accept a value, or JSON text holding it: models sometimes send a nested value as a JSON string.

    The JSON schema stays that of the value, so the model is only told about the value.
    """

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        value_schema = handler(source)
        return core_schema.union_schema([value_schema, core_schema.json_schema(value_schema)])

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        value_schema = cast(core_schema.UnionSchema, schema)['choices'][0]
        return handler(cast(core_schema.CoreSchema, value_schema))


# The object a non-object output is wrapped in, as tool arguments and structured text must be objects. (No
# docstring: it would become the schema's description.)
class _Response(TypedDict, Generic[_T]):
    response: Annotated[_T, _ValueOrJson()]


@dataclass
class UnionOutputResult:
    """The output the model chose among several: its kind (name) and its data."""

    kind: str
    data: dict[str, Any]


@dataclass
class UnionOutputModel:
    """The JSON object of native or prompted output with several possible outputs."""

    result: UnionOutputResult


@cache
def _union_adapter() -> TypeAdapter[UnionOutputModel]:
    # Built on first use, not at import: most agents have no union output.
    return TypeAdapter(UnionOutputModel)


@dataclass(kw_only=True)
class _ObjectOutput:
    """One structured output: a type or output function, validated from a JSON object."""

    name: str | None
    """The title of the schema, or the type's or function's name."""
    description: str | None
    """The type's docstring or the function's description, taken out of the schema."""
    json_schema: ObjectJsonSchema
    """The schema of the object."""
    validator: SchemaValidator
    """Validates the object: into the value, the wrapper dict, or the function's arguments."""
    outer_key: str | None = None
    """The key the value is wrapped under, for outputs that are not objects."""
    function: _function_schema.FunctionSchema | None = None
    """The output function called with the validated arguments, if any."""

    def validate(self, data: str | dict[str, Any], ctx: RunContext[Any], allow_partial: bool) -> Any:
        """Validate JSON text or a dict; raises `ValidationError`."""
        mode = _PARTIAL_MODE if allow_partial else False
        if isinstance(data, str):
            return self.validator.validate_json(data, allow_partial=mode, context=ctx.validation_context)
        return self.validator.validate_python(data, allow_partial=mode, context=ctx.validation_context)

    async def finish(self, validated: Any, ctx: RunContext[Any]) -> Any:
        """Turn the validated object into the output: unwrap it, or call the output function with it."""
        if self.function is not None:
            return await self.function.call(validated, ctx)
        if self.outer_key is not None:
            return validated[self.outer_key]
        return validated


@dataclass(kw_only=True)
class _OutputTool:
    """An output tool: its definition and the output its arguments are validated as."""

    tool_def: ToolDefinition
    output: _ObjectOutput
    max_retries: int | None


@dataclass(kw_only=True)
class _TextOutput:
    """Plain text as the output, as is or through a `TextOutput` function."""

    function: _function_schema.FunctionSchema | None = None
    """The `TextOutput` function, if any."""
    param: str = ''
    """The name of the function's text parameter."""

    async def process(self, text: str, ctx: RunContext[Any]) -> Any:
        if self.function is None:
            return text
        args = self.function.validator.validate_python({self.param: text}, context=ctx.validation_context)
        return await self.function.call(args, ctx)


@dataclass(kw_only=True)
class _JsonTextOutput:
    """Structured output sent as JSON text: one object, or a choice among several by kind."""

    outputs: dict[str, _ObjectOutput]
    """The possible outputs, by kind; a single output has the kind `''` and is not wrapped in a choice."""
    object_def: OutputObjectDefinition
    """The schema as the model receives it."""
    template: str | None = None
    """The template given with `NativeOutput` or `PromptedOutput`, if any."""

    async def process(self, text: str, ctx: RunContext[Any], allow_partial: bool) -> Any:
        data: str | dict[str, Any] = _json_in_text(text)
        output = self.outputs.get('')
        if output is None:
            mode = _PARTIAL_MODE if allow_partial else False
            choice = (
                _union_adapter()
                .validate_json(data, experimental_allow_partial=mode, context=ctx.validation_context)
                .result
            )
            output = self.outputs.get(choice.kind)
            if output is None:
                raise ModelRetry(f'Invalid kind: {choice.kind}')
            data = choice.data
        return await output.finish(output.validate(data, ctx, allow_partial), ctx)


class OutputSchema(Generic[OutputDataT]):
    """What an agent's output spec asks of the model, and how responses become the output."""

    mode: _SchemaMode
    """How the output is asked for; `'auto'` uses the model profile's preferred structured output mode."""
    allows_deferred_tool_requests: bool
    """Whether `DeferredToolRequests` is among the output types."""
    toolset: OutputToolset | None
    """The output tools, when the output may be asked for with tools."""

    def __init__(
        self,
        *,
        mode: _SchemaMode,
        allows_deferred_tool_requests: bool,
        text: _TextOutput | None = None,
        tools: Sequence[_OutputTool] = (),
        json_text: _JsonTextOutput | None = None,
    ):
        """Use `build`."""
        self.mode = mode
        self.allows_deferred_tool_requests = allows_deferred_tool_requests
        self._text = text
        self._tools = {tool.tool_def.name: tool for tool in tools}
        self._json_text = json_text
        self.toolset = OutputToolset(self) if mode in ('tool', 'auto') else None

    @classmethod
    def build(cls, output_spec: OutputSpec[OutputDataT]) -> OutputSchema[OutputDataT]:
        """Read an output spec.

        Raises:
            UserError: If the spec is not a valid combination of output types.
        """
        items = _flatten(output_spec)
        allows_deferred = any(item is DeferredToolRequests for item in items)
        items = [item for item in items if item is not DeferredToolRequests]
        if not items:
            if allows_deferred:
                raise UserError('At least one output type must be provided other than `DeferredToolRequests`.')
            raise UserError('At least one output type must be provided.')
        marker = next((item for item in items if _is_json_text_marker(item)), None)
        if marker is not None:
            if len(items) > 1:
                raise UserError(f'`{type(marker).__name__}` must be the only output type.')
            return cls._build_json_text(marker, allows_deferred)
        texts = [item for item in items if _is_text(item)]
        if len(texts) > 1:
            raise UserError('Only one `str` or `TextOutput` is allowed.')
        text = _text_output(texts[0]) if texts else None
        structured = [item for item in items if not _is_text(item)]
        if not structured:
            return cls(mode='text', allows_deferred_tool_requests=allows_deferred, text=text)
        tools = _output_tools(structured)
        if text is not None or any(isinstance(item, ToolOutput) for item in structured):
            return cls(mode='tool', allows_deferred_tool_requests=allows_deferred, text=text, tools=tools)
        json_text = _json_text_output([tool.output for tool in tools])
        return cls(mode='auto', allows_deferred_tool_requests=allows_deferred, tools=tools, json_text=json_text)

    @classmethod
    def _build_json_text(
        cls, marker: NativeOutput[Any] | PromptedOutput[Any], allows_deferred: bool
    ) -> OutputSchema[OutputDataT]:
        name = type(marker).__name__
        members = _flatten(marker.outputs)
        for member in members:
            if member is DeferredToolRequests:
                raise UserError(
                    f'`{name}` cannot contain `DeferredToolRequests`. Include it alongside the '
                    f'{name.removesuffix("Output").lower()} output marker instead: '
                    f'`output_type=[{name}(...), DeferredToolRequests]`'
                )
            if _is_marker(member):
                raise UserError(f'`{name}` cannot contain `{type(member).__name__}`: give it types or functions.')
        json_text = _json_text_output(
            [_object_output(member) for member in members],
            name=marker.name,
            description=marker.description,
            strict=marker.strict if isinstance(marker, NativeOutput) else None,
            template=marker.template,
        )
        mode: _SchemaMode = 'native' if isinstance(marker, NativeOutput) else 'prompted'
        return cls(mode=mode, allows_deferred_tool_requests=allows_deferred, json_text=json_text)

    @property
    def allows_text(self) -> bool:
        """Whether a plain-text response can produce the output (as text, or as JSON text for structured output)."""
        return self._text is not None or self._json_text is not None

    @property
    def allows_plain_text(self) -> bool:
        """Whether the output can be plain text (`str` or a `TextOutput`), not only structured data."""
        return self._text is not None

    def request_parameters(self, model: Model) -> dict[str, Any]:
        """The `ModelRequestParameters` fields about the output (all but the tools) for a request to `model`.

        Raises:
            UserError: If the model does not support the way the output must be asked for.
        """
        profile = model.profile
        mode = self._request_mode(profile)
        if mode == 'native' and not profile.supports_json_schema_output:
            raise UserError('Native structured output is not supported by this model.')
        if mode == 'tool' and not profile.supports_tools:
            raise UserError('Tool output is not supported by this model.')
        params: dict[str, Any] = {
            'output_mode': mode,
            'output_object': None,
            'allow_text_output': mode != 'tool' or self._text is not None,
            'prompted_output_template': None,
        }
        if mode in ('native', 'prompted'):
            assert self._json_text is not None
            params['output_object'] = self._json_text.object_def
            params['prompted_output_template'] = self._template(mode, profile)
        return params

    def max_retries_for(self, tool_name: str) -> int | None:
        """The `max_retries` given with `ToolOutput` for an output tool, if any.

        Upstream does not enforce it: the agent's output retries limit every output tool.
        """
        tool = self._tools.get(tool_name)
        return tool.max_retries if tool is not None else None

    async def process_text(self, text: str, ctx: RunContext[Any], *, allow_partial: bool = False) -> OutputDataT:
        """Turn a text response into the output.

        Raises:
            ToolRetryError: If the text is not valid output (or the output must come from a tool call).
        """
        ctx = evolve(ctx, partial_output=allow_partial)
        try:
            if self._text is not None:
                return await self._text.process(text, ctx)
            if self._json_text is not None:
                return await self._json_text.process(text, ctx, allow_partial)
            raise ModelRetry('Please include your response in a tool call.')
        except ValidationError as e:
            raise ToolRetryError(RetryPromptPart(e.errors(include_url=False))) from e
        except ModelRetry as e:
            raise ToolRetryError(RetryPromptPart(e.message)) from e

    async def process_tool_call(
        self, call: ToolCallPart, ctx: RunContext[Any], *, allow_partial: bool = False
    ) -> OutputDataT:
        """Turn a call of an output tool into the output.

        Raises:
            ToolRetryError: If the arguments are not valid, or the output function asked for a retry.
        """
        ctx = evolve(ctx, tool_name=call.tool_name, tool_call_id=call.tool_call_id, partial_output=allow_partial)
        try:
            tool = self._tools.get(call.tool_name)
            if tool is None:
                names = ', '.join(repr(name) for name in self._tools)
                raise ModelRetry(f'Unknown tool name: {call.tool_name!r}. Available tools: {names}')
            validated = tool.output.validate(call.args or {}, ctx, allow_partial)
            return await tool.output.finish(validated, ctx)
        except ValidationError as e:
            content = e.errors(include_url=False, include_context=False)
            raise ToolRetryError(
                RetryPromptPart(content, tool_name=call.tool_name, tool_call_id=call.tool_call_id)
            ) from e
        except ModelRetry as e:
            retry = RetryPromptPart(e.message, tool_name=call.tool_name, tool_call_id=call.tool_call_id)
            raise ToolRetryError(retry) from e

    def output_tools(self, profile: ModelProfile) -> list[_OutputTool]:
        """The output tools offered to a model with this profile: none unless the output is asked for with tools."""
        return list(self._tools.values()) if self._request_mode(profile) == 'tool' else []

    def _request_mode(self, profile: ModelProfile) -> _RequestMode:
        return profile.default_structured_output_mode if self.mode == 'auto' else self.mode

    def _template(self, mode: _RequestMode, profile: ModelProfile) -> str | None:
        assert self._json_text is not None
        template = self._json_text.template
        if not template and (mode == 'prompted' or profile.native_output_requires_schema_in_instructions):
            return profile.prompted_output_template
        return template


class OutputToolset(AbstractToolset[Any]):
    """The output tools of an output schema, as the toolset the agent lists with its other tools.

    The tools are listed only when the output is asked for with tools; the agent processes their calls with
    `OutputSchema.process_tool_call`.
    """

    max_retries: int
    """How many retries the output tools are allowed: the agent's output retries."""

    def __init__(self, schema: OutputSchema[Any], *, max_retries: int = 1):
        """Make the toolset of `schema`'s output tools."""
        self._schema = schema
        self.max_retries = max_retries

    @property
    def label(self) -> str:
        """'the agent's output tools', as upstream names them in tool-name conflict errors."""
        return "the agent's output tools"

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """The output tools, if the model in `ctx` is asked for the output with tools."""
        return {
            tool.tool_def.name: ToolsetTool(
                toolset=self,
                tool_def=tool.tool_def,
                # Upstream limits output tools by the agent's output retries whatever `ToolOutput.max_retries` says.
                max_retries=self.max_retries,
                args_validator=tool.output.validator,
            )
            for tool in self._schema.output_tools(ctx.model.profile)
        }

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        """The output from validated arguments of an output tool."""
        return await self._schema._tools[name].output.finish(tool_args, ctx)


class OutputValidator(Generic[AgentDepsT, _OutputT]):
    """A function registered with `Agent.output_validator`, that checks (and may change) the output."""

    function: Callable[..., Any]
    """The function: `(output)` or `(ctx, output)`, sync or async; it may raise `ModelRetry`."""

    def __init__(self, function: Callable[..., Any]):
        """Wrap a validator function."""
        self.function = function
        self._takes_ctx = len(inspect.signature(function).parameters) > 1
        self._is_async = _utils.is_async_callable(function)

    async def validate(
        self, output: _OutputT, ctx: RunContext[AgentDepsT], *, tool_call: ToolCallPart | None = None
    ) -> _OutputT:
        """Run the validator; sync functions run in a worker thread.

        Args:
            output: The output to check.
            ctx: The run context; when the output came from `tool_call`, its name and id are set on it.
            tool_call: The output tool call the output came from, if any.

        Raises:
            ToolRetryError: If the validator raised `ModelRetry`.
        """
        if tool_call is not None:
            ctx = evolve(ctx, tool_name=tool_call.tool_name, tool_call_id=tool_call.tool_call_id)
        args = (ctx, output) if self._takes_ctx else (output,)
        try:
            if self._is_async:
                return await cast(Awaitable[_OutputT], self.function(*args))
            return await _utils.run_in_executor(self.function, *args)
        except ModelRetry as e:
            if tool_call is None:
                raise ToolRetryError(RetryPromptPart(e.message)) from e
            retry = RetryPromptPart(e.message, tool_name=tool_call.tool_name, tool_call_id=tool_call.tool_call_id)
            raise ToolRetryError(retry) from e


# Reading the output spec.


def _flatten(spec: Any) -> list[Any]:
    """The items of a spec: lists are flattened, and so are unions of types at the top level."""
    if isinstance(spec, Sequence) and not isinstance(spec, str):
        return [item for member in cast(Sequence[Any], spec) for item in _flatten(member)]
    if get_origin(spec) in (Union, types.UnionType):
        return [item for member in get_args(spec) for item in _flatten(member)]
    return [spec]


def _text_output(item: Any) -> _TextOutput:
    if item is str:
        return _TextOutput()
    function = cast(TextOutput[Any], item).output_function
    schema = _function_schema.function_schema(function, GenerateToolJsonSchema)
    properties: dict[str, Any] = schema.json_schema.get('properties', {})
    if len(properties) != 1 or next(iter(properties.values())).get('type') != 'string':
        raise UserError('TextOutput must take a function taking a single `str` argument')
    return _TextOutput(function=schema, param=next(iter(properties)))


def _output_tools(items: list[Any]) -> list[_OutputTool]:
    """The output tools: `final_result` for one output, `final_result_{name}` for each of several."""
    several = len(items) > 1
    taken: set[str] = set()
    tools: list[_OutputTool] = []
    for item in items:
        spec = cast(ToolOutput[Any], item) if isinstance(item, ToolOutput) else ToolOutput[Any](item)
        inner: Any = spec.output
        if _is_marker(inner):
            raise UserError(f'`ToolOutput` cannot contain `{type(inner).__name__}`: give it a type or function.')
        output = _object_output(inner)
        name = spec.name
        if name is None:
            suffix = re.sub(r'[^a-zA-Z0-9_-]', '', output.name or '')
            name = f'{DEFAULT_OUTPUT_TOOL_NAME}_{suffix}' if several else DEFAULT_OUTPUT_TOOL_NAME
        description = _join_descriptions(spec.description, output.description)
        if description is None:
            prefix = f'{output.name}: ' if several else ''
            description = prefix + DEFAULT_OUTPUT_TOOL_DESCRIPTION
        tool_def = ToolDefinition(
            name=_unique_name(name, taken),
            parameters_json_schema=output.json_schema,
            description=description,
            outer_typed_dict_key=output.outer_key,
            strict=spec.strict,
            kind='output',
        )
        tools.append(_OutputTool(tool_def=tool_def, output=output, max_retries=spec.max_retries))
    return tools


def _json_text_output(
    outputs: list[_ObjectOutput],
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool | None = None,
    template: str | None = None,
) -> _JsonTextOutput:
    """The JSON text form of structured output: the output's own schema, or a choice among several."""
    if len(outputs) == 1:
        output = outputs[0]
        object_def = OutputObjectDefinition(
            json_schema=output.json_schema,
            name=name or output.name,
            description=_join_descriptions(description, output.description),
            strict=strict,
        )
        return _JsonTextOutput(outputs={'': output}, object_def=object_def, template=template)
    taken: set[str] = set()
    by_kind = {_unique_name(output.name or '', taken): output for output in outputs}
    object_def = OutputObjectDefinition(
        json_schema=_union_json_schema(by_kind),
        name=name,
        # The description of a choice describes its last option, as upstream's does.
        description=outputs[-1].description if outputs else None,
        strict=strict,
    )
    return _JsonTextOutput(outputs=by_kind, object_def=object_def, template=template)


def _union_json_schema(by_kind: dict[str, _ObjectOutput]) -> ObjectJsonSchema:
    """The schema of `{"result": {"kind": ..., "data": ...}}`, with the definitions of all options at the top."""
    options: list[dict[str, Any]] = []
    defs: dict[str, Any] = {}
    for kind, output in by_kind.items():
        data = {key: value for key, value in output.json_schema.items() if key not in ('title', '$defs')}
        defs.update(output.json_schema.get('$defs', {}))
        option: dict[str, Any] = {
            'type': 'object',
            'properties': {'kind': {'type': 'string', 'const': kind}, 'data': data},
            'required': ['kind', 'data'],
            'additionalProperties': False,
            'title': output.name,
        }
        if output.description:
            option['description'] = output.description
        options.append(option)
    schema: dict[str, Any] = {
        'type': 'object',
        'properties': {'result': {'anyOf': options}},
        'required': ['result'],
        'additionalProperties': False,
    }
    if defs:
        schema['$defs'] = defs
    return schema


def _object_output(output: Any) -> _ObjectOutput:
    """The structured output of a type or function."""
    if inspect.isroutine(output) or isinstance(output, partial):
        return _function_output(cast(Callable[..., Any], output))
    if _is_model_like(output):
        return _model_output(cast(type[Any], output))
    return _wrapped_output(output)


def _function_output(function: Callable[..., Any]) -> _ObjectOutput:
    schema = _function_schema.function_schema(function, GenerateToolJsonSchema)
    json_schema = dict(schema.json_schema)
    json_schema.pop('description', None)
    return _ObjectOutput(
        name=json_schema.get('title') or getattr(function, '__name__', None),
        description=schema.description,
        json_schema=json_schema,
        validator=schema.validator,
        function=schema,
    )


def _model_output(output: type[Any]) -> _ObjectOutput:
    adapter = TypeAdapter[Any](output)
    json_schema = _inline_top_ref(adapter.json_schema(schema_generator=_OutputJsonSchema))
    if json_schema.get('type', 'object') != 'object':
        raise UserError('Schema must be an object')
    description = json_schema.pop('description', None)
    return _ObjectOutput(
        name=json_schema.get('title') or output.__name__,
        description=description,
        json_schema=json_schema,
        validator=SchemaValidator(adapter.core_schema),
    )


def _wrapped_output(output: Any) -> _ObjectOutput:
    wrapper: Any = _Response
    adapter = TypeAdapter[Any](wrapper[output])
    json_schema = adapter.json_schema(schema_generator=_OutputJsonSchema)
    json_schema.pop('title', None)
    return _ObjectOutput(
        name=getattr(output, '__name__', None),
        description=None,
        json_schema=json_schema,
        validator=SchemaValidator(adapter.core_schema),
        outer_key='response',
    )


def _inline_top_ref(json_schema: JsonSchemaValue) -> JsonSchemaValue:
    """The definition itself when the schema only refers to its single definition (as a simple root model's does).

    A schema with more definitions is kept as it is, as upstream does.
    """
    ref = json_schema.get('$ref')
    defs: dict[str, Any] = json_schema.get('$defs', {})
    if isinstance(ref, str) and len(defs) == 1 and ref == f'#/$defs/{next(iter(defs))}':
        return dict(next(iter(defs.values())))
    return json_schema


def _is_json_text_marker(item: Any) -> TypeGuard[NativeOutput[Any] | PromptedOutput[Any]]:
    return isinstance(item, NativeOutput | PromptedOutput)


def _is_marker(item: Any) -> bool:
    return isinstance(item, ToolOutput | NativeOutput | PromptedOutput | TextOutput)


def _is_text(item: Any) -> bool:
    return item is str or isinstance(item, TextOutput)


def _is_model_like(item: Any) -> bool:
    """Whether a type validates from a JSON object of its own: a model, dataclass, TypedDict or `StructuredDict`."""
    if not isinstance(item, type) or isinstance(item, types.GenericAlias):
        return False
    output = cast(type[Any], item)
    return (
        issubclass(output, BaseModel)
        or is_dataclass(output)
        or is_typeddict(output)
        or bool(getattr(output, '__is_model_like__', False))
    )


def _json_in_text(text: str) -> str:
    """The JSON object in a text response: the text itself, or the object in a Markdown code fence in it."""
    if text.startswith('{'):
        return text
    match = _FENCED_JSON_OBJECT.search(text)
    return match.group(1) if match else text


def _join_descriptions(*descriptions: str | None) -> str | None:
    return '. '.join(d for d in descriptions if d) or None


def _unique_name(name: str, taken: set[str]) -> str:
    """`name`, or `name_2`, `name_3`, ... if it is taken; the result is added to `taken`."""
    unique, number = name, 2
    while unique in taken:
        unique = f'{name}_{number}'
        number += 1
    taken.add(unique)
    return unique


def output_json_schema(spec: Any) -> dict[str, Any]:
    """The JSON schema of the values a run with output spec `spec` can give.

    Each output type (an output function stands for its return type) has its own schema; several are combined
    as `anyOf`, with their `$defs` gathered at the top, as upstream does.
    """
    schemas = [TypeAdapter(data_type).json_schema() for data_type in _output_data_types(spec)]
    if len(schemas) == 1:
        return schemas[0]
    defs: dict[str, Any] = {}
    for schema in schemas:
        defs.update(schema.pop('$defs', {}))
    return {'$defs': defs, 'anyOf': schemas} if defs else {'anyOf': schemas}


def _output_data_types(spec: Any) -> list[Any]:
    data_types: list[Any] = []
    for item in _flatten(spec):
        if isinstance(item, ToolOutput):
            data_types.extend(_output_data_types(cast(ToolOutput[Any], item).output))
        elif isinstance(item, NativeOutput | PromptedOutput):
            data_types.extend(_output_data_types(cast(NativeOutput[Any] | PromptedOutput[Any], item).outputs))
        elif isinstance(item, TextOutput):
            data_types.append(_return_type(cast(TextOutput[Any], item).output_function))
        elif inspect.isfunction(item) or inspect.ismethod(item):
            data_types.append(_return_type(item))
        else:
            data_types.append(item)
    return data_types


def _return_type(function: Callable[..., Any]) -> Any:
    return get_type_hints(function).get('return', Any)
