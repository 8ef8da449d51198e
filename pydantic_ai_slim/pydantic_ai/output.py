"""Output types: how an agent's final output is described to the model and validated.

An agent's `output_type` is an output spec: a type, an output function, one of the markers below, or a list of
those. A plain type or function is given to the model in the way its profile prefers (an output tool by default);
the markers choose the way explicitly.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeAlias

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema
from typing_extensions import TypeAliasType, TypeVar

from ._run_context import RunContext
from .exceptions import UserError
from .tools import DeferredToolRequests, ObjectJsonSchema

__all__ = (
    'DeferredToolRequests',
    'NativeOutput',
    'OutputDataT',
    'OutputMode',
    'OutputObjectDefinition',
    'OutputSpec',
    'OutputTypeOrFunction',
    'PromptedOutput',
    'StructuredDict',
    'StructuredOutputMode',
    'TextOutput',
    'TextOutputFunc',
    'ToolOutput',
)

T_co = TypeVar('T_co', covariant=True)

OutputDataT = TypeVar('OutputDataT', default=str, covariant=True)
"""The type of an agent's output."""

OutputMode: TypeAlias = Literal['text', 'tool', 'native', 'prompted', 'tool_or_text', 'image', 'auto']
"""How the model is asked for the output: plain text, an output tool, native structured output, or a prompt."""

StructuredOutputMode: TypeAlias = Literal['tool', 'native', 'prompted']
"""The ways of asking for structured output; a model profile names its preferred one."""

OutputTypeOrFunction = TypeAliasType(
    'OutputTypeOrFunction', type[T_co] | Callable[..., Awaitable[T_co] | T_co], type_params=(T_co,)
)
"""A type the output is validated as, or a function whose arguments the model supplies and whose result is the
output."""

TextOutputFunc = TypeAliasType(
    'TextOutputFunc',
    Callable[[RunContext[Any], str], Awaitable[T_co] | T_co] | Callable[[str], Awaitable[T_co] | T_co],
    type_params=(T_co,),
)
"""A function that turns the model's text into the output, optionally taking the run context first."""


@dataclass(init=False)
class ToolOutput(Generic[OutputDataT]):
    """Ask for the output through an output tool the model calls, with its name and description chosen here."""

    output: OutputTypeOrFunction[OutputDataT]
    """The type or function whose schema the tool's arguments follow."""
    name: str | None
    """The tool's name; by default `final_result`, with the type's name appended when there are several."""
    description: str | None
    """The tool's description; the type's docstring is appended to it."""
    max_retries: int | None
    """Kept for compatibility: as upstream, output tools are limited by the agent's `output_retries`."""
    strict: bool | None
    """Whether to ask the model for strict schema adherence, where supported."""

    def __init__(
        self,
        type_: OutputTypeOrFunction[OutputDataT],
        *,
        name: str | None = None,
        description: str | None = None,
        max_retries: int | None = None,
        strict: bool | None = None,
    ):
        """Describe an output tool for `type_`."""
        self.output = type_
        self.name = name
        self.description = description
        self.max_retries = max_retries
        self.strict = strict


@dataclass(init=False)
class NativeOutput(Generic[OutputDataT]):
    """Ask for the output with the model's native structured output: text that follows a JSON schema.

    Needs a model whose profile supports JSON schema output. Several outputs are combined into one schema in which
    the model names the one it chose.
    """

    outputs: OutputTypeOrFunction[OutputDataT] | Sequence[OutputTypeOrFunction[OutputDataT]]
    """The type or function, or several of them."""
    name: str | None
    """The schema's name, sent to the model; by default the type's name."""
    description: str | None
    """The schema's description, sent to the model; by default the type's docstring."""
    strict: bool | None
    """Whether to ask the model for strict schema adherence, where supported."""
    template: str | None
    """Instructions that carry the schema, for models that need it repeated; `{schema}` marks where it goes."""

    def __init__(
        self,
        outputs: OutputTypeOrFunction[OutputDataT] | Sequence[OutputTypeOrFunction[OutputDataT]],
        *,
        name: str | None = None,
        description: str | None = None,
        strict: bool | None = None,
        template: str | None = None,
    ):
        """Describe native structured output for `outputs`."""
        self.outputs = outputs
        self.name = name
        self.description = description
        self.strict = strict
        self.template = template


@dataclass(init=False)
class PromptedOutput(Generic[OutputDataT]):
    """Ask for the output as JSON text by putting its schema in the instructions; works with any model."""

    outputs: OutputTypeOrFunction[OutputDataT] | Sequence[OutputTypeOrFunction[OutputDataT]]
    """The type or function, or several of them."""
    name: str | None
    """The schema's name, shown to the model as its title."""
    description: str | None
    """The schema's description, shown to the model; the type's docstring is appended to it."""
    template: str | None
    """The instructions; `{schema}` marks where the schema goes. By default the model profile's template."""

    def __init__(
        self,
        outputs: OutputTypeOrFunction[OutputDataT] | Sequence[OutputTypeOrFunction[OutputDataT]],
        *,
        name: str | None = None,
        description: str | None = None,
        template: str | None = None,
    ):
        """Describe prompted output for `outputs`."""
        self.outputs = outputs
        self.name = name
        self.description = description
        self.template = template


@dataclass
class TextOutput(Generic[OutputDataT]):
    """Take the model's plain text as the output, passed through a function that may transform or reject it."""

    output_function: TextOutputFunc[OutputDataT]
    """The function: it takes the text (after the run context, if it wants that) and may raise `ModelRetry`."""


@dataclass
class OutputObjectDefinition:
    """The JSON schema of native or prompted structured output, as a model receives it."""

    json_schema: ObjectJsonSchema
    """The schema of the JSON object the model must produce."""
    name: str | None = None
    """The schema's name."""
    description: str | None = None
    """The schema's description."""
    strict: bool | None = None
    """Whether to ask the model for strict schema adherence, where supported."""


_OutputSpecItem = TypeAliasType(
    '_OutputSpecItem',
    OutputTypeOrFunction[T_co] | ToolOutput[T_co] | NativeOutput[T_co] | PromptedOutput[T_co] | TextOutput[T_co],
    type_params=(T_co,),
)

OutputSpec = TypeAliasType('OutputSpec', _OutputSpecItem[T_co] | Sequence['OutputSpec[T_co]'], type_params=(T_co,))
"""What an agent's `output_type` may be: a type, function or marker, or a (nested) list of them."""


def StructuredDict(
    json_schema: JsonSchemaValue, name: str | None = None, description: str | None = None
) -> type[JsonSchemaValue]:
    """A `dict` type whose JSON schema is the one given, for output whose shape is only known as a schema.

    The output is validated only as a JSON object; the schema is what the model is shown.

    Args:
        json_schema: The JSON schema of an object; its `$defs` are inlined.
        name: The schema's title, used as the output's name.
        description: The schema's description.

    Returns:
        A `dict` subclass to use as (part of) an output type.

    Raises:
        UserError: If the schema is not that of an object.
    """
    schema = _inline_defs(json_schema)
    if schema.get('type') != 'object':
        raise UserError('Schema must be an object')
    if name:
        schema['title'] = name
    if description:
        schema['description'] = description

    class _StructuredDict(dict[str, Any]):
        __is_model_like__ = True

        @classmethod
        def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
            return core_schema.dict_schema(core_schema.str_schema(), core_schema.any_schema())

        @classmethod
        def __get_pydantic_json_schema__(
            cls, core: core_schema.CoreSchema, handler: GetJsonSchemaHandler
        ) -> JsonSchemaValue:
            return dict(schema)

    return _StructuredDict


def _inline_defs(json_schema: JsonSchemaValue) -> JsonSchemaValue:
    """A copy of the schema with each `$ref` to its `$defs` replaced by the definition (siblings of a `$ref` go).

    Raises:
        UserError: If a definition in use refers to itself, directly or not.
    """
    defs: dict[str, Any] = dict(json_schema.get('$defs', {}))

    def resolve(node: Any, expanding: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [resolve(item, expanding) for item in node]  # pyright: ignore[reportUnknownVariableType] -- raw JSON
        if not isinstance(node, dict):
            return node
        ref = node.get('$ref')  # pyright: ignore[reportUnknownMemberType,reportUnknownVariableType] -- raw JSON
        name = ref.removeprefix('#/$defs/') if isinstance(ref, str) and ref.startswith('#/$defs/') else None
        if name is None or name not in defs:
            return {key: resolve(value, expanding) for key, value in node.items() if key != '$defs'}  # pyright: ignore[reportUnknownVariableType] -- raw JSON
        if name in expanding:
            raise UserError(
                '`StructuredDict` does not currently support recursive `$ref`s and `$defs`. '
                'See https://github.com/pydantic/pydantic/issues/12145 for more information.'
            )
        return resolve(defs[name], (*expanding, name))

    return resolve(json_schema, ())
