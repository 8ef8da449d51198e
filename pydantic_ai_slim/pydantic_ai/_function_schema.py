"""Turn a Python function's signature and docstring into a JSON schema and an argument validator.

The parameters of a tool function become the fields of one object: the model sends that object as the call's
arguments, the validator checks it and turns it into keyword arguments, and `FunctionSchema.call` spreads them
back over the function's positional and keyword parameters.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, is_dataclass
from inspect import Parameter, signature
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast, get_origin

from pydantic import BaseModel, ConfigDict
from pydantic._internal import _config, _decorators, _generate_schema, _typing_extra
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import SchemaValidator, core_schema
from typing_extensions import is_typeddict

from . import _utils
from ._run_context import RunContext
from .exceptions import UserError

if TYPE_CHECKING:
    from griffe import DocstringOptions

    from .tools import DocstringFormat

__all__ = ('FunctionSchema', 'function_schema', 'passthrough_validator')


@dataclass(kw_only=True)
class FunctionSchema:
    """The schema of a function, and how to call it with validated arguments."""

    function: Callable[..., Any]
    """The function itself."""
    description: str | None
    """The description read from the docstring (or from the lone model parameter's schema)."""
    validator: SchemaValidator
    """Validates the model's arguments (a dict, or JSON text) into what `call` expects."""
    json_schema: dict[str, Any]
    """The JSON schema of the arguments, shown to the model."""
    takes_ctx: bool
    """Whether the function takes the run context as its first argument."""
    is_async: bool
    """Whether the function must be awaited."""
    single_arg_name: str | None = None
    """Set when the function's only parameter is an object type whose schema is used as the arguments schema:
    the validator then returns that object, and it is passed under this name."""
    positional_fields: list[str] = field(default_factory=list[str])
    """Names of the parameters that must be passed positionally, in order."""
    var_positional_field: str | None = None
    """The name of the `*args` parameter, whose list of values is spread positionally."""
    before_var_positional_fields: list[str] = field(default_factory=list[str], repr=False)
    """Parameters that could be named but come before `*args`: they are passed positionally too, so the `*args`
    values land after them rather than clashing with them."""

    async def call(self, args_dict: dict[str, Any], ctx: RunContext[Any]) -> Any:
        """Call the function with validated arguments.

        Async functions are awaited; sync functions run in a worker thread so they do not block the event loop.

        Args:
            args_dict: The validator's output.
            ctx: The run context, passed first when the function takes it.

        Returns:
            What the function returned.
        """
        args, kwargs = self._call_args(args_dict, ctx)
        if self.is_async:
            return await self.function(*args, **kwargs)
        return await _utils.run_in_executor(self.function, *args, **kwargs)

    def _call_args(self, args_dict: Any, ctx: RunContext[Any]) -> tuple[list[Any], dict[str, Any]]:
        kwargs: dict[str, Any] = {self.single_arg_name: args_dict} if self.single_arg_name else {**args_dict}
        args: list[Any] = [ctx] if self.takes_ctx else []
        args.extend(kwargs.pop(name) for name in self.positional_fields)
        if self.var_positional_field is not None:
            args.extend(kwargs.pop(name) for name in self.before_var_positional_fields)
            args.extend(kwargs.pop(self.var_positional_field))
        return args, kwargs


def passthrough_validator() -> SchemaValidator:
    """A validator that passes any value through unchanged (any JSON value, when validating JSON text).

    For tools built from a hand-written JSON schema, whose arguments are the function's business to check.
    """
    return SchemaValidator(core_schema.any_schema())


def function_schema(
    function: Callable[..., Any],
    schema_generator: type[GenerateJsonSchema],
    takes_ctx: bool | None = None,
    docstring_format: DocstringFormat = 'auto',
    require_parameter_descriptions: bool = False,
) -> FunctionSchema:
    """Build the schema of `function` from its signature and docstring.

    Args:
        function: The function to describe.
        schema_generator: The JSON schema generator class to use.
        takes_ctx: Whether the first parameter is the run context; `None` detects it from the annotation.
        docstring_format: The docstring style, or `'auto'` to guess it.
        require_parameter_descriptions: Whether a parameter missing from the docstring is an error.

    Returns:
        The function's schema and validator.

    Raises:
        UserError: If the signature cannot be used for a tool, listing every problem found.
    """
    if takes_ctx is None:
        takes_ctx = _takes_ctx(function)
    config_wrapper = _config.ConfigWrapper(ConfigDict(title=function.__name__))
    hints = _typing_extra.get_function_type_hints(function)
    builder = _FieldsBuilder(_generate_schema.GenerateSchema(config_wrapper), takes_ctx, hints)
    try:
        sig_params = list(signature(function).parameters.values())
    except ValueError as e:
        builder.errors.append(str(e))
        sig_params = []
    description, param_descriptions = _describe(function, docstring_format)
    builder.add_all(sig_params, param_descriptions)
    if require_parameter_descriptions:
        builder.check_descriptions(sig_params, param_descriptions)
    if builder.errors:
        details = '\n  '.join(builder.errors)
        raise UserError(f'Error generating schema for {function.__qualname__}:\n  {details}')

    schema, single_arg_name = builder.arguments_schema()
    validator = SchemaValidator(schema, config_wrapper.core_config(None))
    json_schema = schema_generator().generate(schema)
    if single_arg_name is not None and not description:
        # The lone object parameter's own docstring then describes the tool.
        description = json_schema.pop('description', None)
    return FunctionSchema(
        function=function,
        description=description,
        validator=validator,
        json_schema=json_schema,
        takes_ctx=takes_ctx,
        is_async=_utils.is_async_callable(function),
        single_arg_name=single_arg_name,
        positional_fields=builder.positional_fields,
        var_positional_field=builder.var_positional_field,
        before_var_positional_fields=builder.before_var_positional_fields,
    )


class _FieldsBuilder:
    """Collects the typed-dict fields of the arguments object, and the problems found on the way."""

    def __init__(self, gen: _generate_schema.GenerateSchema, takes_ctx: bool, hints: dict[str, Any]):
        self.gen = gen
        self.takes_ctx = takes_ctx
        self.hints = hints
        self.errors: list[str] = []
        self.fields: dict[str, core_schema.TypedDictField] = {}
        self.model_like: dict[str, bool] = {}
        self.var_kwargs_schema: core_schema.CoreSchema | None = None
        self.positional_fields: list[str] = []
        self.var_positional_field: str | None = None
        self.before_var_positional_fields: list[str] = []
        self._decorators = _decorators.DecoratorInfos()

    def add_all(self, params: list[Parameter], descriptions: Mapping[str, str]) -> None:
        for index, param in enumerate(params):
            if param.annotation is Parameter.empty:
                if index == 0 and self.takes_ctx:
                    continue  # The unannotated context parameter.
                annotation: Any = Any
            else:
                annotation = self.hints[param.name]
                if self._misplaced_ctx(index, annotation):
                    continue
            self._add(param, annotation, descriptions.get(param.name))
        if self.var_positional_field is not None:
            self.before_var_positional_fields = [
                p.name for p in params if p.kind is Parameter.POSITIONAL_OR_KEYWORD and p.name in self.fields
            ]

    def _misplaced_ctx(self, index: int, annotation: Any) -> bool:
        """Whether this parameter is (or should be) the context, recording an error where it is misplaced."""
        is_ctx = _is_run_context(annotation)
        if index == 0 and self.takes_ctx:
            if not is_ctx:
                self.errors.append('First parameter of tools that take context must be annotated with RunContext[...]')
            return True
        if is_ctx:
            if not self.takes_ctx:
                self.errors.append('RunContext annotations can only be used with tools that take context')
            else:
                self.errors.append('RunContext annotations can only be used as the first argument')
        return is_ctx

    def _add(self, param: Parameter, annotation: Any, description: str | None) -> None:
        if param.kind is Parameter.VAR_KEYWORD:
            self.var_kwargs_schema = self.gen.generate_schema(annotation)
            return
        if param.kind is Parameter.VAR_POSITIONAL:
            annotation = list[annotation]
            self.var_positional_field = param.name
        elif param.kind is Parameter.POSITIONAL_ONLY:
            self.positional_fields.append(param.name)
        required = param.default is Parameter.empty
        if required:
            field_info = FieldInfo.from_annotation(annotation)
        else:
            field_info = FieldInfo.from_annotated_attribute(annotation, param.default)
        if field_info.description is None:
            field_info.description = description
        # pydantic's own typed-dict field rules give aliases, defaults, constraints and descriptions.
        self.fields[param.name] = self.gen._generate_td_field_schema(
            param.name, field_info, self._decorators, required=required
        )
        self.model_like[param.name] = _is_model_like(annotation)

    def check_descriptions(self, params: list[Parameter], descriptions: Mapping[str, str]) -> None:
        """Record an error naming the parameters (other than the context) the docstring does not describe."""
        missing = {
            p.name
            for index, p in enumerate(params)
            if not (index == 0 and self.takes_ctx)
            and not _is_run_context(self.hints.get(p.name))
            and p.name not in descriptions
        }
        if missing:
            self.errors.append(f'Missing parameter descriptions for {", ".join(missing)}')

    def arguments_schema(self) -> tuple[core_schema.CoreSchema, str | None]:
        """The schema of the arguments object, and the lone parameter's name if its own schema is used."""
        if len(self.fields) == 1 and self.var_kwargs_schema is None:
            (name, td_field), *_ = self.fields.items()
            if self.model_like[name]:
                schema = td_field['schema']
                if schema['type'] == 'default':
                    # The object itself is the arguments, so a parameter default has no place to apply.
                    schema = cast(core_schema.WithDefaultSchema, schema)['schema']
                return self.gen.clean_schema(schema), name
        if self.var_kwargs_schema is None:
            schema = core_schema.typed_dict_schema(self.fields, extra_behavior='forbid')
        else:
            schema = core_schema.typed_dict_schema(
                self.fields, extra_behavior='allow', extras_schema=self.var_kwargs_schema
            )
        return self.gen.clean_schema(schema), None


def _takes_ctx(function: Callable[..., Any]) -> bool:
    """Whether the function's first parameter is annotated as the run context."""
    try:
        params = list(signature(function).parameters.values())
    except ValueError:
        return False
    if not params or params[0].annotation is Parameter.empty:
        return False
    hints = _typing_extra.get_function_type_hints(function)
    return _is_run_context(hints.get(params[0].name))


def _is_run_context(annotation: Any) -> bool:
    return annotation is RunContext or get_origin(annotation) is RunContext


def _is_model_like(annotation: Any) -> bool:
    """Whether a type validates from a JSON object into an instance: a model, dataclass or TypedDict class."""
    if not isinstance(annotation, type):
        return False
    cls = cast(type[Any], annotation)
    return issubclass(cls, BaseModel) or is_dataclass(cls) or is_typeddict(cls)


# Docstrings: griffe parses them; the style is guessed from the raw text when asked for 'auto'.

_Style: TypeAlias = Literal['google', 'numpy', 'sphinx']

# For each style, in the order they are tried: how a section marker looks, and the section names that count.
_SPHINX_FIELDS = 'param parameter arg argument key keyword type var ivar cvar vartype returns return rtype raises raise'
_GOOGLE_SECTIONS = 'args arguments params parameters raises exceptions returns yields receives examples attributes'
_NUMPY_SECTIONS = 'deprecated parameters returns yields receives raises warns attributes functions methods classes'
_STYLE_MARKERS: tuple[tuple[_Style, str, list[str]], ...] = (
    ('sphinx', r'\n[ \t]*:(?:{})(?:[ \t]+\w+)*:(?:[ \t]+.+)?\n', [*_SPHINX_FIELDS.split(), 'except', 'exception']),
    (
        'google',
        r'\n[ \t]*(?:{}):(?:[ \t]+.+)?\n[ \t]+.+',
        [
            *_GOOGLE_SECTIONS.split(),
            *'functions methods classes modules warns warnings'.split(),
            *('keyword args', 'keyword arguments', 'other args', 'other arguments', 'other params', 'other parameters'),
        ],
    ),
    ('numpy', r'\n[ \t]*(?:{})\n[ \t]*---+\n', [*_NUMPY_SECTIONS.split(), 'modules', 'other parameters']),
)
_STYLE_PATTERNS: list[tuple[_Style, re.Pattern[str]]] = [
    (style, re.compile(template.format('|'.join(names)), re.IGNORECASE)) for style, template, names in _STYLE_MARKERS
]


def _guess_style(doc: str) -> _Style:
    """The first style whose section markers appear in the docstring; Google when none do."""
    for style, pattern in _STYLE_PATTERNS:
        if pattern.search(doc):
            return style
    return 'google'


def _describe(function: Callable[..., Any], docstring_format: DocstringFormat) -> tuple[str | None, dict[str, str]]:
    """The function's description and its parameters' descriptions, from its docstring."""
    doc = function.__doc__
    if doc is None:
        return None, {}
    # griffe is imported on first use: it is a good part of the import time of the package otherwise.
    from griffe import Docstring, DocstringSectionKind, GoogleOptions

    style = _guess_style(doc) if docstring_format == 'auto' else docstring_format
    options: DocstringOptions = {'warnings': False}
    if style == 'google':
        # A Google `Returns:` section is one value whose type comes before the colon.
        options = GoogleOptions(warnings=False, returns_named_value=False, returns_multiple_items=False)
    sections = Docstring(doc, lineno=1, parser=style, parser_options=options).parse()
    params = {
        param.name: param.description
        for section in sections
        if section.kind is DocstringSectionKind.parameters
        for param in section.value
    }
    main = next((section.value for section in sections if section.kind is DocstringSectionKind.text), '')
    returns = next((section.value for section in sections if section.kind is DocstringSectionKind.returns), None)
    if returns:
        main = _with_returns(main, returns[0].description, returns[0].annotation)
    return main, params


def _with_returns(main: str, description: str, annotation: Any) -> str:
    """The description with the documented return value appended, in the tagged layout models are shown."""
    type_line = f'<type>{annotation}</type>\n' if annotation else ''
    returns = f'<returns>\n{type_line}<description>{description}</description>\n</returns>'
    return f'<summary>{main}</summary>\n{returns}' if main else returns
