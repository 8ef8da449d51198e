# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
"""`JsonSchemaTransformer` options and `InlineDefsJsonSchemaTransformer`, exported from `profiles`."""

from typing import Any

from pydantic_ai.profiles import InlineDefsJsonSchemaTransformer, JsonSchemaTransformer

SCHEMAS: list[dict[str, Any]] = [
    {
        'type': 'object',
        'properties': {'a': {'$ref': '#/$defs/A'}, 'b': {'$ref': '#/$defs/A'}},
        '$defs': {'A': {'type': 'object', 'properties': {'x': {'type': 'integer'}}, 'title': 'A'}},
    },
    {
        'type': 'object',
        'properties': {'n': {'$ref': '#/$defs/N'}},
        '$defs': {
            'N': {'type': 'object', 'properties': {'child': {'anyOf': [{'$ref': '#/$defs/N'}, {'type': 'null'}]}}}
        },
    },
    {'$ref': '#/$defs/M', '$defs': {'M': {'type': 'object', 'properties': {'v': {'type': 'string'}}}}},
    {
        'type': 'object',
        'properties': {
            'maybe': {'anyOf': [{'type': 'string'}, {'type': 'null'}], 'default': None},
            'two': {'anyOf': [{'type': 'string'}, {'type': 'integer'}, {'type': 'null'}]},
            'items': {'type': 'array', 'items': {'$ref': '#/$defs/A'}},
        },
        '$defs': {'A': {'type': 'object', 'properties': {'x': {'anyOf': [{'type': 'integer'}, {'type': 'null'}]}}}},
    },
]


class Marker(JsonSchemaTransformer):
    def transform(self, schema: dict[str, Any]) -> dict[str, Any]:
        return {**schema, 'seen': True} if schema.get('type') == 'object' else schema


for schema in SCHEMAS:
    print(InlineDefsJsonSchemaTransformer(schema).walk())
    for kwargs in ({}, {'prefer_inlined_defs': True}, {'simplify_nullable_unions': True}):
        transformer = Marker(schema, **kwargs)
        print(kwargs, transformer.walk(), transformer.is_strict_compatible)
