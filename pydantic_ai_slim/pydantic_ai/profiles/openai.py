"""What OpenAI models (and servers speaking OpenAI's API) support, and the JSON schema rules of strict mode."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from .._json_schema import JsonSchema, JsonSchemaTransformer, flatten_single_union, inline_root_ref
from ..exceptions import UserError
from . import ModelProfile

__all__ = (
    'SAMPLING_PARAMS',
    'OpenAIJsonSchemaTransformer',
    'OpenAIModelProfile',
    'OpenAISystemPromptRole',
    'openai_model_profile',
)

OpenAISystemPromptRole: TypeAlias = Literal['system', 'developer', 'user']
"""The role system prompts are sent with."""

SAMPLING_PARAMS: tuple[str, ...] = (
    'temperature',
    'top_p',
    'presence_penalty',
    'frequency_penalty',
    'logit_bias',
    'openai_logprobs',
    'openai_top_logprobs',
)
"""The settings that tune sampling, which reasoning models refuse."""


@dataclass(kw_only=True)
class OpenAIModelProfile(ModelProfile):
    """A profile with the OpenAI-specific capabilities of a model or an OpenAI-compatible server."""

    openai_chat_thinking_field: str | None = None
    """The assistant message field thinking is sent back in, when `openai_chat_send_back_thinking_parts='field'`."""
    openai_chat_send_back_thinking_parts: Literal['tags', 'field', False] = 'tags'
    """How earlier thinking is sent back: inside the text between thinking tags, in a message field, or not at all."""
    openai_supports_strict_tool_definition: bool = True
    """Whether tool definitions may be marked `strict`."""
    openai_supports_sampling_settings: bool = True
    """Deprecated and ignored: use `openai_unsupported_model_settings`."""
    openai_unsupported_model_settings: Sequence[str] = ()
    """Settings that are dropped from requests because the model rejects them."""
    openai_supports_tool_choice_required: bool = True
    """Whether `tool_choice='required'` is accepted; without it, `'auto'` is sent instead."""
    openai_system_prompt_role: OpenAISystemPromptRole | None = None
    """The role of system prompts; `None` means `'system'`."""
    openai_chat_supports_web_search: bool = False
    """Whether the Chat Completions API of the model can search the web."""
    openai_chat_audio_input_encoding: Literal['base64', 'uri'] = 'base64'
    """How audio input is encoded: plain base64, or a `data:` URI."""
    openai_chat_supports_file_urls: bool = False
    """Whether document URLs may be sent as they are, instead of downloaded and sent as data."""
    openai_supports_encrypted_reasoning_content: bool = False
    """Whether the model can return its reasoning encrypted, to be sent back in later requests."""
    openai_supports_reasoning: bool = False
    """Whether the model reasons; reasoning models refuse the sampling settings."""
    openai_supports_reasoning_effort_none: bool = False
    """Whether `openai_reasoning_effort='none'` turns reasoning off (and so allows the sampling settings)."""
    openai_responses_requires_function_call_status_none: bool = False
    """Whether the Responses API needs function calls sent back without a status."""

    def __post_init__(self) -> None:
        if self.openai_chat_send_back_thinking_parts == 'field' and not self.openai_chat_thinking_field:
            raise UserError(
                'If `openai_chat_send_back_thinking_parts` is "field", '
                '`openai_chat_thinking_field` must be set to a non-None value.'
            )


_REASONING_MODEL = re.compile(r'^(o\d|gpt-5)')
_IMAGE_OUTPUT_PREFIXES = ('gpt-4o', 'gpt-4.1', 'o3', 'gpt-5', 'chatgpt-4o')


def openai_model_profile(model_name: str) -> ModelProfile:
    """The profile of an OpenAI model, from its name."""
    reasoning = bool(_REASONING_MODEL.match(model_name)) and not model_name.startswith('gpt-5-chat')
    # Only the first o1 releases refuse the system role; they accept the same text as a user message.
    system_role: OpenAISystemPromptRole | None = 'user' if model_name.startswith(('o1-mini', 'o1-preview')) else None
    image_output = model_name.startswith(_IMAGE_OUTPUT_PREFIXES) and not model_name.startswith('gpt-5.')
    return OpenAIModelProfile(
        json_schema_transformer=OpenAIJsonSchemaTransformer,
        supports_json_schema_output=True,
        supports_json_object_output=True,
        supports_image_output=image_output,
        openai_system_prompt_role=system_role,
        openai_chat_supports_web_search='search-preview' in model_name,
        openai_supports_encrypted_reasoning_content=reasoning,
        openai_supports_reasoning=reasoning,
        openai_supports_reasoning_effort_none=model_name.startswith('gpt-5.'),
    )


# Keywords strict mode rejects, in the order they are described when moved into the description.
_STRICT_INCOMPATIBLE_KEYS = (
    'minLength',
    'maxLength',
    'uniqueItems',
    'patternProperties',
    'unevaluatedProperties',
    'propertyNames',
    'minProperties',
    'maxProperties',
    'unevaluatedItems',
    'contains',
    'minContains',
    'maxContains',
)
_STRICT_STRING_FORMATS = frozenset(
    {'date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'}
)


class OpenAIJsonSchemaTransformer(JsonSchemaTransformer):
    """Adapts JSON schemas to OpenAI's structured outputs and, when asked, to its strict mode.

    Titles and discriminators are dropped. With `strict=True` every object gets `additionalProperties: false`
    and all its properties required, defaults are dropped, `oneOf` becomes `anyOf`, and the keywords strict mode
    rejects are moved into the description. With `strict=None` objects get `additionalProperties: false` where
    it is not set, and `is_strict_compatible` tells whether the schema already fits strict mode.
    """

    def walk(self) -> JsonSchema:
        """The rewritten schema; a root that only refers to a definition is replaced by it first."""
        self.schema = inline_root_ref(self.schema)
        return super().walk()

    def transform(self, schema: JsonSchema) -> JsonSchema:
        """Rewrite one node."""
        for key in ('title', '$schema', 'discriminator'):
            schema.pop(key, None)
        if self.strict:
            schema.pop('default', None)
        if '$ref' in schema and len(schema) > 1:
            # Strict mode does not allow keywords next to a reference, so the reference is wrapped in a union.
            schema['anyOf'] = [{'$ref': schema.pop('$ref')}]
        schema = flatten_single_union(schema)
        if self.strict:
            self._make_strict(schema)
        elif 'oneOf' in schema or (self.strict is None and self._has_incompatible_keys(schema)):
            self.is_strict_compatible = False
        if schema.get('type') == 'object':
            self._transform_object(schema)
        return schema

    def _has_incompatible_keys(self, schema: JsonSchema) -> bool:
        if 'default' in schema or any(key in schema for key in _STRICT_INCOMPATIBLE_KEYS):
            return True
        return 'format' in schema and schema['format'] not in _STRICT_STRING_FORMATS

    def _make_strict(self, schema: JsonSchema) -> None:
        if 'oneOf' in schema:
            schema['anyOf'] = schema.pop('oneOf')
        notes = [f'{key}={schema.pop(key)}' for key in _STRICT_INCOMPATIBLE_KEYS if key in schema]
        if 'format' in schema and schema['format'] not in _STRICT_STRING_FORMATS:
            notes.append(f'format={schema.pop("format")}')
        if notes:
            description = schema.get('description')
            schema['description'] = f'{description} ({", ".join(notes)})' if description else ', '.join(notes)

    def _transform_object(self, schema: JsonSchema) -> None:
        properties: dict[str, Any] = schema.setdefault('properties', {})
        if self.strict:
            schema['additionalProperties'] = False
            schema['required'] = list(properties)
        elif self.strict is None:
            schema.setdefault('additionalProperties', False)
            required = schema.get('required')
            if schema['additionalProperties'] is not False or required is None or set(required) != set(properties):
                self.is_strict_compatible = False
