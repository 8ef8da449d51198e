"""What OpenAI models support, and how JSON schemas are adapted to OpenAI's structured outputs and strict mode."""

from __future__ import annotations

from typing import Any

import pytest
from inline_snapshot import snapshot
from pydantic_ai.exceptions import UserError
from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer, OpenAIModelProfile, openai_model_profile


def test_openai_model_profiles() -> None:
    names = ['gpt-4o', 'gpt-4.1', 'o1-mini', 'o3-mini', 'gpt-5', 'gpt-5-chat-latest', 'gpt-5.1', 'llama3']
    summary = {
        name: (p.openai_supports_reasoning, p.openai_supports_reasoning_effort_none, p.openai_system_prompt_role)
        for name in names
        if isinstance(p := openai_model_profile(name), OpenAIModelProfile)
    }
    assert summary == snapshot(
        {
            'gpt-4o': (False, False, None),
            'gpt-4.1': (False, False, None),
            'o1-mini': (True, False, 'user'),
            'o3-mini': (True, False, None),
            'gpt-5': (True, False, None),
            'gpt-5-chat-latest': (False, False, None),
            'gpt-5.1': (True, True, None),
            'llama3': (False, False, None),
        }
    )


def test_strict_profile_field_requires_field_name() -> None:
    with pytest.raises(UserError, match='`openai_chat_thinking_field` must be set'):
        OpenAIModelProfile(openai_chat_send_back_thinking_parts='field')


def _transform(schema: dict[str, Any], strict: bool | None) -> tuple[bool, dict[str, Any]]:
    transformer = OpenAIJsonSchemaTransformer(schema, strict=strict)
    result = transformer.walk()
    return transformer.is_strict_compatible, result


def test_schema_checked_for_strict_mode() -> None:
    compatible = {'type': 'object', 'properties': {'a': {'type': 'string', 'title': 'A'}}, 'required': ['a']}
    optional = {'type': 'object', 'properties': {'a': {'type': 'string', 'default': 'x'}}}
    loose = {'type': 'object', 'properties': {'a': {'type': 'object', 'additionalProperties': {'type': 'integer'}}}}
    bad_format = {'type': 'object', 'properties': {'a': {'type': 'string', 'format': 'uri'}}, 'required': ['a']}

    assert [_transform(schema, None) for schema in (compatible, optional, loose, bad_format)] == snapshot(
        [
            (
                True,
                {
                    'type': 'object',
                    'properties': {'a': {'type': 'string'}},
                    'required': ['a'],
                    'additionalProperties': False,
                },
            ),
            (
                False,
                {
                    'type': 'object',
                    'properties': {'a': {'type': 'string', 'default': 'x'}},
                    'additionalProperties': False,
                },
            ),
            (
                False,
                {
                    'type': 'object',
                    'properties': {
                        'a': {'type': 'object', 'additionalProperties': {'type': 'integer'}, 'properties': {}}
                    },
                    'additionalProperties': False,
                },
            ),
            (
                False,
                {
                    'type': 'object',
                    'properties': {'a': {'type': 'string', 'format': 'uri'}},
                    'required': ['a'],
                    'additionalProperties': False,
                },
            ),
        ]
    )


def test_schema_made_strict() -> None:
    schema = {
        'type': 'object',
        'title': 'Thing',
        'properties': {
            'a': {'type': 'string', 'minLength': 1, 'format': 'uri', 'description': 'An address'},
            'b': {'oneOf': [{'type': 'integer'}, {'type': 'string'}], 'default': 1},
            'c': {'$ref': '#/$defs/Inner', 'description': 'Inner thing'},
            'd': {'type': 'array', 'items': {'type': 'object'}, 'uniqueItems': True},
            'e': {'oneOf': [{'type': 'integer'}], 'description': 'Only one'},
        },
        '$defs': {'Inner': {'type': 'object', 'properties': {'x': {'type': 'integer'}}, 'title': 'Inner'}},
    }

    assert _transform(schema, True) == snapshot(
        (
            True,
            {
                'type': 'object',
                'properties': {
                    'a': {'type': 'string', 'description': 'An address (minLength=1, format=uri)'},
                    'b': {'anyOf': [{'type': 'integer'}, {'type': 'string'}]},
                    'c': {'description': 'Inner thing', 'anyOf': [{'$ref': '#/$defs/Inner'}]},
                    'd': {
                        'type': 'array',
                        'items': {'type': 'object', 'properties': {}, 'additionalProperties': False, 'required': []},
                        'description': 'uniqueItems=True',
                    },
                    'e': {'type': 'integer', 'description': 'Only one'},
                },
                'additionalProperties': False,
                'required': ['a', 'b', 'c', 'd', 'e'],
                '$defs': {
                    'Inner': {
                        'type': 'object',
                        'properties': {'x': {'type': 'integer'}},
                        'additionalProperties': False,
                        'required': ['x'],
                    }
                },
            },
        )
    )
    assert _transform(schema, False) == snapshot(
        (
            False,
            {
                'type': 'object',
                'properties': {
                    'a': {'type': 'string', 'minLength': 1, 'format': 'uri', 'description': 'An address'},
                    'b': {'oneOf': [{'type': 'integer'}, {'type': 'string'}], 'default': 1},
                    'c': {'description': 'Inner thing', 'anyOf': [{'$ref': '#/$defs/Inner'}]},
                    'd': {'type': 'array', 'items': {'type': 'object', 'properties': {}}, 'uniqueItems': True},
                    'e': {'type': 'integer', 'description': 'Only one'},
                },
                '$defs': {'Inner': {'type': 'object', 'properties': {'x': {'type': 'integer'}}}},
            },
        )
    )


def test_schema_root_reference() -> None:
    schema = {
        '$ref': '#/$defs/Node',
        '$defs': {
            'Node': {
                'type': 'object',
                'properties': {'next': {'anyOf': [{'$ref': '#/$defs/Node'}, {'type': 'null'}]}},
                'required': ['next'],
            }
        },
    }

    assert _transform(schema, None) == snapshot(
        (
            True,
            {
                'type': 'object',
                'properties': {'next': {'anyOf': [{'$ref': '#'}, {'type': 'null'}]}},
                'required': ['next'],
                'additionalProperties': False,
                '$defs': {
                    'Node': {
                        'type': 'object',
                        'properties': {'next': {'anyOf': [{'$ref': '#'}, {'type': 'null'}]}},
                        'required': ['next'],
                        'additionalProperties': False,
                    }
                },
            },
        )
    )
