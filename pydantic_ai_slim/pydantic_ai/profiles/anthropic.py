"""What Anthropic's Claude models support."""

from __future__ import annotations

from . import ModelProfile

__all__ = ('anthropic_model_profile',)

# The models that take a JSON schema for their output (Anthropic's structured outputs), by name prefix.
_STRUCTURED_OUTPUT_MODELS = ('claude-sonnet-4-5', 'claude-opus-4-1', 'claude-opus-4-5', 'claude-haiku-4-5')


def anthropic_model_profile(model_name: str) -> ModelProfile | None:
    """The profile of a Claude model: thinking in `<thinking>` tags, and native output on the models that have it."""
    return ModelProfile(
        thinking_tags=('<thinking>', '</thinking>'),
        supports_json_schema_output=model_name.startswith(_STRUCTURED_OUTPUT_MODELS),
    )
