"""Tool schemas made from function signatures and docstrings, argument validation, and calling the function."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, Literal

import pytest
from inline_snapshot import snapshot
from pydantic import BaseModel, Field, TypeAdapter, ValidationError
from pydantic_ai.exceptions import UserError
from pydantic_ai.models.test import TestModel
from pydantic_ai.tools import GenerateToolJsonSchema, RunContext, Tool, ToolDefinition
from pydantic_ai.usage import RunUsage
from typing_extensions import TypedDict

pytestmark = pytest.mark.anyio


def make_ctx(deps: Any = None) -> RunContext[Any]:
    return RunContext(deps=deps, model=TestModel(), usage=RunUsage())


class Point(BaseModel):
    """A point on the plane."""

    x: int
    y: int = Field(default=0, title='Why')


ORIGIN = Point(x=0)


class Colour(str, Enum):
    red = 'red'
    blue = 'blue'


@dataclass
class Box:
    width: int
    tags: list[str]


class Options(TypedDict):
    verbose: bool


# Schemas and descriptions


def test_plain_signature():
    def fetch(url: str, retries: int = 3, timeout: float | None = None) -> str:
        """Fetch a page."""
        return url

    assert Tool(fetch).tool_def == snapshot(
        ToolDefinition(
            name='fetch',
            parameters_json_schema={
                'additionalProperties': False,
                'properties': {
                    'url': {'type': 'string'},
                    'retries': {'default': 3, 'type': 'integer'},
                    'timeout': {'anyOf': [{'type': 'number'}, {'type': 'null'}], 'default': None},
                },
                'required': ['url'],
                'type': 'object',
            },
            description='Fetch a page.',
        )
    )


def test_google_docstring():
    def move(point: Point, colour: Colour, mode: Literal['fast', 'slow'] = 'fast') -> str:
        """Move a point.

        Points are moved in place.

        Args:
            point: The point to move.
            colour: Its new colour,
                on two lines.
            mode: How to move it.
            unknown: Not a parameter.

        Returns:
            str: What happened.
        """
        return ''

    assert Tool(move).tool_def == snapshot(
        ToolDefinition(
            name='move',
            parameters_json_schema={
                '$defs': {
                    'Colour': {'enum': ['red', 'blue'], 'title': 'Colour', 'type': 'string'},
                    'Point': {
                        'description': 'A point on the plane.',
                        'properties': {'x': {'type': 'integer'}, 'y': {'default': 0, 'type': 'integer'}},
                        'required': ['x'],
                        'title': 'Point',
                        'type': 'object',
                    },
                },
                'additionalProperties': False,
                'properties': {
                    'point': {'$ref': '#/$defs/Point', 'description': 'The point to move.'},
                    'colour': {'$ref': '#/$defs/Colour', 'description': 'Its new colour,\non two lines.'},
                    'mode': {
                        'default': 'fast',
                        'description': 'How to move it.',
                        'enum': ['fast', 'slow'],
                        'type': 'string',
                    },
                },
                'required': ['point', 'colour'],
                'type': 'object',
            },
            description="""\
<summary>Move a point.

Points are moved in place.</summary>
<returns>
<type>str</type>
<description>What happened.</description>
</returns>\
""",
        )
    )


def test_numpy_docstring():
    def scale(factor: float, items: list[int]) -> list[float]:
        """Scale numbers.

        Parameters
        ----------
        factor : float
            The factor.
        items : list[int]
            The numbers.

        Returns
        -------
        list[float]
            The scaled numbers.
        """
        return []

    tool = Tool(scale)
    assert tool.description == snapshot("""\
<summary>Scale numbers.</summary>
<returns>
<type>list[float]</type>
<description>The scaled numbers.</description>
</returns>\
""")
    assert tool.tool_def.parameters_json_schema == snapshot(
        {
            'additionalProperties': False,
            'properties': {
                'factor': {'description': 'The factor.', 'type': 'number'},
                'items': {'description': 'The numbers.', 'items': {'type': 'integer'}, 'type': 'array'},
            },
            'required': ['factor', 'items'],
            'type': 'object',
        }
    )


def test_sphinx_docstring():
    def greet(name: str, polite: bool = True) -> str:
        """Greet someone.

        :param name: Who to greet.
        :param bool polite: Whether to be polite.
        :return: The greeting.
        """
        return name

    tool = Tool(greet)
    assert tool.description == snapshot("""\
<summary>Greet someone.</summary>
<returns>
<description>The greeting.</description>
</returns>\
""")
    assert tool.tool_def.parameters_json_schema == snapshot(
        {
            'additionalProperties': False,
            'properties': {
                'name': {'description': 'Who to greet.', 'type': 'string'},
                'polite': {'default': True, 'description': 'Whether to be polite.', 'type': 'boolean'},
            },
            'required': ['name'],
            'type': 'object',
        }
    )


def param_descriptions(tool: Tool[Any]) -> dict[str, Any]:
    return {name: prop.get('description') for name, prop in tool.tool_def.parameters_json_schema['properties'].items()}


def test_explicit_docstring_format():
    def f(a: int) -> int:
        """Summary.

        :param a: Sphinx style.

        Args:
            a: Google style.
        """
        return a

    # 'auto' picks sphinx first, which reads everything after `:param a:` as its description.
    assert param_descriptions(Tool(f)) == snapshot({'a': 'Sphinx style.\n\nArgs:\n    a: Google style.'})
    google = Tool(f, docstring_format='google')
    assert (google.description, param_descriptions(google)) == snapshot(
        ('Summary.\n\n:param a: Sphinx style.', {'a': 'Google style.'})
    )
    numpy = Tool(f, docstring_format='numpy')
    assert (numpy.description, param_descriptions(numpy)) == snapshot(
        ('Summary.\n\n:param a: Sphinx style.\n\nArgs:\n    a: Google style.', {'a': None})
    )


@pytest.mark.parametrize(
    ('doc', 'description', 'a_description'),
    [
        pytest.param('Summary.\n\nNote\n----\nA note.\n', 'Summary.\n\nNote\n----\nA note.', None, id='numpy-note'),
        pytest.param('Summary.\n\nDeprecated\n----------\nOld.\n', 'Summary.', None, id='numpy-deprecated'),
        pytest.param('Summary.\n\nArgs:\n    a: The a.\n', 'Summary.', 'The a.', id='google'),
        pytest.param('Summary.\nArgs:\n    a: The a.\n', 'Summary.\nArgs:\n    a: The a.', None, id='google-no-gap'),
        pytest.param('Summary.\n:param a: The a.\n', 'Summary.', 'The a.', id='sphinx'),
        pytest.param('Summary.\n\n:param a: The a.', 'Summary.\n\n:param a: The a.', None, id='sphinx-at-end'),
        pytest.param(
            'Summary.\n\nParameters\n----------\na : int\n    The a.\n', 'Summary.', 'The a.', id='numpy-params'
        ),
        pytest.param('Summary.\n\nArgs:\n    a:\n', 'Summary.', '', id='empty-param-description'),
        pytest.param(
            'Summary.\n\nReturns:\n    The value.\n',
            '<summary>Summary.</summary>\n<returns>\n<description>The value.</description>\n</returns>',
            None,
            id='google-returns-untyped',
        ),
        pytest.param(
            '\n\n    Returns:\n        The value.\n    ',
            '<returns>\n<description>The value.</description>\n</returns>',
            None,
            id='returns-only',
        ),
        pytest.param('', '', None, id='empty'),
    ],
)
def test_docstring_styles_auto(doc: str, description: str, a_description: str | None):
    def f(a: int) -> int:
        return a

    f.__doc__ = doc
    tool = Tool(f)
    assert (tool.description, param_descriptions(tool)) == (description, {'a': a_description})


def test_google_returns_layout():
    def f() -> None:
        """Summary.

        Returns:
            dict[str, int]: A mapping,
                over two lines.
        """

    assert Tool(f).description == snapshot("""\
<summary>Summary.</summary>
<returns>
<type>dict[str, int]</type>
<description>A mapping,
    over two lines.</description>
</returns>\
""")


def test_no_docstring():
    def f(a: int) -> int:
        return a

    assert Tool(f).description is None


def test_field_description_beats_docstring():
    def f(
        a: Annotated[int, Field(description='From the field.', ge=0, title='Ignored')],
        b: int = Field(default=2, description='Also from a field.'),
        c: Annotated[str, Field(alias='see')] = '',
    ) -> None:
        """Summary.

        Args:
            a: From the docstring.
            b: From the docstring.
            c: From the docstring.
        """

    assert Tool(f).tool_def.parameters_json_schema == snapshot(
        {
            'additionalProperties': False,
            'properties': {
                'a': {'description': 'From the field.', 'minimum': 0, 'type': 'integer'},
                'b': {'default': 2, 'description': 'Also from a field.', 'type': 'integer'},
                'see': {'default': '', 'description': 'From the docstring.', 'type': 'string'},
            },
            'required': ['a'],
            'type': 'object',
        }
    )


def test_var_args_and_kwargs():
    def f(first: int, /, *rest: str, **extra: float) -> None: ...

    tool = Tool(f)
    assert tool.tool_def.parameters_json_schema == snapshot(
        {
            'additionalProperties': {'type': 'number'},
            'properties': {
                'first': {'type': 'integer'},
                'rest': {'items': {'type': 'string'}, 'type': 'array'},
            },
            'required': ['first', 'rest'],
            'type': 'object',
        }
    )


def test_unannotated_parameters():
    def f(a, b=1):  # pyright: ignore[reportMissingParameterType,reportUnknownParameterType] -- unannotated on purpose
        return a  # pyright: ignore[reportUnknownVariableType] -- unannotated on purpose

    assert Tool(f).tool_def.parameters_json_schema == snapshot(  # pyright: ignore[reportUnknownArgumentType] -- as above
        {
            'additionalProperties': False,
            'properties': {'a': {}, 'b': {'default': 1}},
            'required': ['a'],
            'type': 'object',
        }
    )


def test_single_model_parameter_uses_its_schema():
    def place(point: Point) -> str:
        return repr(point)

    tool = Tool(place)
    # The model's own docstring describes the tool, and leaves the schema.
    assert tool.tool_def == snapshot(
        ToolDefinition(
            name='place',
            parameters_json_schema={
                'properties': {'x': {'type': 'integer'}, 'y': {'default': 0, 'type': 'integer'}},
                'required': ['x'],
                'title': 'Point',
                'type': 'object',
            },
            description='A point on the plane.',
        )
    )


def test_single_model_parameter_with_function_docstring():
    def place(point: Point = ORIGIN) -> str:
        """Place a point."""
        return repr(point)

    tool = Tool(place)
    assert tool.tool_def == snapshot(
        ToolDefinition(
            name='place',
            parameters_json_schema={
                'description': 'A point on the plane.',
                'properties': {'x': {'type': 'integer'}, 'y': {'default': 0, 'type': 'integer'}},
                'required': ['x'],
                'title': 'Point',
                'type': 'object',
            },
            description='Place a point.',
        )
    )


def test_single_dataclass_and_typeddict_parameters():
    def pack(box: Box) -> None: ...

    def configure(options: Options) -> None:
        """"""

    assert Tool(pack).tool_def == snapshot(
        ToolDefinition(
            name='pack',
            parameters_json_schema={
                'properties': {'width': {'type': 'integer'}, 'tags': {'items': {'type': 'string'}, 'type': 'array'}},
                'required': ['width', 'tags'],
                'title': 'Box',
                'type': 'object',
            },
        )
    )
    assert Tool(configure).tool_def == snapshot(
        ToolDefinition(
            name='configure',
            parameters_json_schema={
                'properties': {'verbose': {'type': 'boolean'}},
                'required': ['verbose'],
                'title': 'Options',
                'type': 'object',
            },
        )
    )


def test_single_parameter_not_model_like():
    def f(point: Annotated[Point, Field(description='The point.')]) -> None: ...

    def g(point: Point, **extra: int) -> None: ...

    assert Tool(f).tool_def.parameters_json_schema['properties'] == snapshot(
        {'point': {'$ref': '#/$defs/Point', 'description': 'The point.'}}
    )
    assert Tool(g).tool_def.parameters_json_schema['additionalProperties'] == snapshot({'type': 'integer'})


def test_tool_overrides():
    def f(a: int) -> int:
        """Doc."""
        return a

    assert Tool(f, name='other', description='Custom.', strict=True).tool_def == snapshot(
        ToolDefinition(
            name='other',
            parameters_json_schema={
                'additionalProperties': False,
                'properties': {'a': {'type': 'integer'}},
                'required': ['a'],
                'type': 'object',
            },
            description='Custom.',
            strict=True,
        )
    )


def test_generate_tool_json_schema_drops_property_titles():
    assert TypeAdapter(list[Point]).json_schema(schema_generator=GenerateToolJsonSchema) == snapshot(
        {
            '$defs': {
                'Point': {
                    'description': 'A point on the plane.',
                    'properties': {'x': {'type': 'integer'}, 'y': {'default': 0, 'type': 'integer'}},
                    'required': ['x'],
                    'title': 'Point',
                    'type': 'object',
                }
            },
            'items': {'$ref': '#/$defs/Point'},
            'type': 'array',
        }
    )


# The run context parameter


def test_ctx_detected():
    def with_ctx(ctx: RunContext[int], a: int) -> int:
        return ctx.deps + a

    def without_ctx(a: int) -> int:
        return a

    def no_params() -> None: ...

    assert Tool(with_ctx).takes_ctx is True
    assert Tool(without_ctx).takes_ctx is False
    assert Tool(no_params).takes_ctx is False
    assert Tool(with_ctx).tool_def.parameters_json_schema['properties'] == {'a': {'type': 'integer'}}


def test_unannotated_ctx_when_told():
    def f(ctx, a: int) -> int:  # pyright: ignore[reportMissingParameterType,reportUnknownParameterType] -- on purpose
        return a

    assert Tool(f, takes_ctx=True).tool_def.parameters_json_schema['properties'] == {'a': {'type': 'integer'}}  # pyright: ignore[reportUnknownArgumentType] -- as above
    assert Tool(f).tool_def.parameters_json_schema['required'] == ['ctx', 'a']  # pyright: ignore[reportUnknownArgumentType] -- as above


def test_ctx_not_first():
    def f(a: int, ctx: RunContext[None]) -> None: ...

    with pytest.raises(UserError) as exc_info:
        Tool(f)
    assert str(exc_info.value) == snapshot("""\
Error generating schema for test_ctx_not_first.<locals>.f:
  RunContext annotations can only be used with tools that take context\
""")
    with pytest.raises(UserError) as exc_info:
        Tool(f, takes_ctx=True)
    assert str(exc_info.value) == snapshot("""\
Error generating schema for test_ctx_not_first.<locals>.f:
  First parameter of tools that take context must be annotated with RunContext[...]
  RunContext annotations can only be used as the first argument\
""")


def test_ctx_when_told_no_ctx():
    def f(ctx: RunContext[None], a: int) -> None: ...

    with pytest.raises(UserError, match='RunContext annotations can only be used with tools that take context'):
        Tool(f, takes_ctx=False)


def test_second_ctx():
    def f(ctx: RunContext[None], other: RunContext[None]) -> None: ...

    with pytest.raises(UserError, match=r'f:\n  RunContext annotations can only be used as the first argument$'):
        Tool(f)


def test_takes_ctx_without_ctx_parameter():
    def f(a: int) -> None: ...

    with pytest.raises(
        UserError, match=r'\n  First parameter of tools that take context must be annotated with RunContext\[\.\.\.\]$'
    ):
        Tool(f, takes_ctx=True)


def test_all_parameters_described():
    def f(ctx, a: int, b: int = Field(description='The b.')) -> None:  # pyright: ignore[reportMissingParameterType,reportUnknownParameterType] -- with `takes_ctx=True` the context needs no annotation
        """Doc.

        Args:
            a: The a.
            b:
        """

    tool = Tool(f, takes_ctx=True, require_parameter_descriptions=True)  # pyright: ignore[reportUnknownArgumentType] -- as above
    assert tool.tool_def.parameters_json_schema['properties'] == snapshot(
        {'a': {'description': 'The a.', 'type': 'integer'}, 'b': {'description': 'The b.', 'type': 'integer'}}
    )


def test_missing_parameter_descriptions_error():
    def f(ctx: RunContext[None], a: int, b: int) -> None:
        """Doc.

        Args:
            a: The a.
        """

    with pytest.raises(UserError) as exc_info:
        Tool(f, require_parameter_descriptions=True)
    assert str(exc_info.value) == snapshot("""\
Error generating schema for test_missing_parameter_descriptions_error.<locals>.f:
  Missing parameter descriptions for b\
""")


def test_errors_are_listed_together():
    def f(a: int, ctx: RunContext[None]) -> None: ...

    with pytest.raises(UserError) as exc_info:
        Tool(f, require_parameter_descriptions=True)
    assert str(exc_info.value) == snapshot("""\
Error generating schema for test_errors_are_listed_together.<locals>.f:
  RunContext annotations can only be used with tools that take context
  Missing parameter descriptions for a\
""")


def test_no_signature():
    with pytest.raises(UserError) as exc_info:
        Tool(getattr, name='get')
    assert str(exc_info.value) == snapshot("""\
Error generating schema for getattr:
  no signature found for builtin <built-in function getattr>\
""")


# Validation


def test_validate_dict_and_json():
    def f(a: int, b: str = 'x', *, c: Annotated[int, Field(alias='see')] = 0) -> None: ...

    validator = Tool(f).function_schema.validator
    assert validator.validate_python({'a': '1'}) == {'a': 1, 'b': 'x', 'c': 0}
    assert validator.validate_json('{"a": 2, "see": 3}') == {'a': 2, 'b': 'x', 'c': 3}


def test_validation_errors():
    def f(a: int, b: list[Point]) -> None: ...

    validator = Tool(f).function_schema.validator
    with pytest.raises(ValidationError) as exc_info:
        validator.validate_python({'a': 'one', 'b': [{'x': 1}, {'x': 'two'}], 'c': 3})
    assert exc_info.value.title == 'f'
    assert exc_info.value.errors(include_url=False) == snapshot(
        [
            {
                'type': 'int_parsing',
                'loc': ('a',),
                'msg': 'Input should be a valid integer, unable to parse string as an integer',
                'input': 'one',
            },
            {
                'type': 'int_parsing',
                'loc': ('b', 1, 'x'),
                'msg': 'Input should be a valid integer, unable to parse string as an integer',
                'input': 'two',
            },
            {'type': 'extra_forbidden', 'loc': ('c',), 'msg': 'Extra inputs are not permitted', 'input': 3},
        ]
    )
    with pytest.raises(ValidationError) as exc_info:
        validator.validate_json('{}')
    assert exc_info.value.errors(include_url=False) == snapshot(
        [
            {'type': 'missing', 'loc': ('a',), 'msg': 'Field required', 'input': {}},
            {'type': 'missing', 'loc': ('b',), 'msg': 'Field required', 'input': {}},
        ]
    )


def test_single_model_validation():
    def f(point: Point) -> None: ...

    validator = Tool(f).function_schema.validator
    assert validator.validate_json('{"x": 1}') == Point(x=1)
    with pytest.raises(ValidationError) as exc_info:
        validator.validate_python({'point': {'x': 1}})
    assert exc_info.value.errors(include_url=False) == snapshot(
        [{'type': 'missing', 'loc': ('x',), 'msg': 'Field required', 'input': {'point': {'x': 1}}}]
    )


def test_kwargs_validation():
    def f(**extra: int) -> None: ...

    validator = Tool(f).function_schema.validator
    assert validator.validate_python({'k': '1'}) == {'k': 1}
    with pytest.raises(ValidationError, match='Input should be a valid integer'):
        validator.validate_python({'k': 'x'})


# Calling


async def call(tool: Tool[Any], args: dict[str, Any] | str, deps: Any = None) -> Any:
    schema = tool.function_schema
    validated = (
        schema.validator.validate_json(args) if isinstance(args, str) else schema.validator.validate_python(args)
    )
    return await schema.call(validated, make_ctx(deps))


async def test_call_sync_in_worker_thread():
    def f(a: int, b: int = 2) -> tuple[int, bool]:
        return a * b, threading.current_thread() is threading.main_thread()

    assert await call(Tool(f), {'a': 3}) == (6, False)


async def test_call_async():
    async def f(a: int) -> tuple[int, bool]:
        return a + 1, threading.current_thread() is threading.main_thread()

    tool = Tool(f)
    assert tool.function_schema.is_async is True
    assert await call(tool, '{"a": 1}') == (2, True)


async def test_call_with_ctx():
    def sync_f(ctx: RunContext[int], a: int) -> int:
        return ctx.deps + a

    async def async_f(ctx: RunContext[int], a: int) -> int:
        return ctx.deps * a

    assert await call(Tool(sync_f), {'a': 1}, deps=10) == 11
    assert await call(Tool(async_f), {'a': 2}, deps=10) == 20


async def test_call_single_model():
    def f(ctx: RunContext[str], point: Point) -> str:
        return f'{ctx.deps}: {point!r}'

    assert await call(Tool(f), {'x': 1, 'y': 2}, deps='at') == 'at: Point(x=1, y=2)'


async def test_call_positional_and_var_args():
    def f(a: int, /, b: int, *rest: int, c: int = 0, **extra: str) -> str:
        return f'{a} {b} {rest} {c} {extra}'

    # `b` could be named, but it is passed positionally so that the `*rest` values follow it.
    args = {'a': 1, 'b': 2, 'rest': [3, 4], 'c': 5, 'd': 'e'}
    assert await call(Tool(f), args) == "1 2 (3, 4) 5 {'d': 'e'}"


async def test_call_positional_only_with_ctx():
    def f(ctx: RunContext[None], a: int, /) -> int:
        return a

    assert await call(Tool(f), {'a': 4}) == 4


async def test_from_schema_passes_arguments_through():
    def f(**kwargs: Any) -> dict[str, Any]:
        return kwargs

    tool = Tool.from_schema(f, name='raw', description=None, json_schema={'type': 'object'})
    assert await call(tool, '{"anything": [1, {"b": null}]}') == {'anything': [1, {'b': None}]}
    assert tool.function_schema.validator.validate_python([1]) == [1]
