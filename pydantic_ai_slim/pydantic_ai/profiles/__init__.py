"""What a model supports, so the agent can ask for output in a way it understands."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, Self, TypeAlias

from .._json_schema import InlineDefsJsonSchemaTransformer, JsonSchemaTransformer
from ..builtin_tools import SUPPORTED_BUILTIN_TOOLS, AbstractBuiltinTool

__all__ = (
    'DEFAULT_PROFILE',
    'InlineDefsJsonSchemaTransformer',
    'JsonSchemaTransformer',
    'ModelProfile',
    'ModelProfileSpec',
)


@dataclass(kw_only=True)
class ModelProfile:
    """Capabilities of a model that change how requests are built and responses are read."""

    supports_tools: bool = True
    """Whether the model can call tools; without them, tool output is refused."""
    supports_json_schema_output: bool = False
    """Whether the model supports native structured output with a JSON schema (`NativeOutput`)."""
    supports_json_object_output: bool = False
    """Whether the model supports a plain JSON-object output mode."""
    supports_image_output: bool = False
    """Whether the model can answer with an image."""
    default_structured_output_mode: Literal['tool', 'native', 'prompted'] = 'tool'
    """How structured output is requested when the output type is a plain type or function, not a marker."""
    prompted_output_template: str = (
        '\n'
        "Always respond with a JSON object that's compatible with this schema:\n"
        '\n'
        '{schema}\n'
        '\n'
        "Don't include any text or Markdown fencing before or after.\n"
    )
    """The instructions added for prompted output; `{schema}` is replaced by the output's JSON schema."""
    native_output_requires_schema_in_instructions: bool = False
    """Whether native structured output also needs the schema in the instructions, as prompted output does."""
    json_schema_transformer: type[Any] | None = None
    """A class that adapts tool and output JSON schemas to what the provider accepts, if it needs that."""
    thinking_tags: tuple[str, str] = ('<think>', '</think>')
    """The tags that mark thinking inside text, for models that think in plain text."""
    ignore_streamed_leading_whitespace: bool = False
    """Whether whitespace streamed before the first real content should be dropped."""
    supported_builtin_tools: frozenset[type[AbstractBuiltinTool]] = SUPPORTED_BUILTIN_TOOLS
    """The builtin tools the model supports; a model class can narrow them with `Model.supported_builtin_tools`."""

    @classmethod
    def from_profile(cls, profile: ModelProfile | None) -> Self:
        """A profile of this class with the fields of `profile` that it shares, or the defaults for `None`."""
        if isinstance(profile, cls):
            return profile
        return cls().update(profile)

    def update(self, profile: ModelProfile | None) -> Self:
        """A copy of this profile with the fields that `profile` sets to non-default values taken from it."""
        if profile is None:
            return self
        changed = {
            f.name: getattr(profile, f.name)
            for f in fields(profile)
            if f.init and getattr(profile, f.name) != _default_of(type(profile), f.name)
        }
        own = {f.name for f in fields(self)}
        return replace(self, **{name: value for name, value in changed.items() if name in own})


def _default_of(cls: type[ModelProfile], name: str) -> Any:
    return getattr(cls(), name)


ModelProfileSpec: TypeAlias = ModelProfile | Callable[[str], ModelProfile | None]
"""A profile, or a function that gives the profile of a model name (or `None` when it does not know it)."""

DEFAULT_PROFILE = ModelProfile()
"""The profile of a model that says nothing about itself."""
