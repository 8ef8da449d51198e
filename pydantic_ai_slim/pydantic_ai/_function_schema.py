"""Turn a Python function's signature and docstring into a JSON schema and an argument validator.

PLACEHOLDER interface, to be replaced by the real implementation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import SchemaValidator, core_schema

__all__ = ('FunctionSchema', 'function_schema', 'passthrough_validator')


@dataclass(kw_only=True)
class FunctionSchema:
    """The schema of a function, and how to call it with validated arguments."""

    function: Callable[..., Any]
    description: str | None
    validator: SchemaValidator
    json_schema: dict[str, Any]
    takes_ctx: bool
    is_async: bool

    async def call(self, args_dict: dict[str, Any], ctx: Any) -> Any:
        """Call the function with validated arguments (sync functions run in a worker thread)."""
        raise NotImplementedError


def passthrough_validator() -> SchemaValidator:
    """A validator that accepts any JSON object as is."""
    return SchemaValidator(core_schema.dict_schema(core_schema.str_schema(), core_schema.any_schema()))


def function_schema(
    function: Callable[..., Any],
    schema_generator: type[GenerateJsonSchema],
    takes_ctx: bool | None = None,
    docstring_format: str = 'auto',
    require_parameter_descriptions: bool = False,
) -> FunctionSchema:
    """Build the schema of `function`."""
    raise NotImplementedError
