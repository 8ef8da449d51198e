"""A walker that rewrites JSON schemas for providers with narrower schema support.

A provider subclass says how one schema node changes (`transform`); the walker applies it to every
subschema, the `$defs` included, children before their parents.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from typing import Any, TypeAlias, cast

__all__ = ()

JsonSchema: TypeAlias = dict[str, Any]
"""A JSON schema, or one node of it."""

# Keywords whose value is one subschema, or a list of them.
_SINGLE_KEYS = ('items', 'additionalProperties', 'not')
_LIST_KEYS = ('anyOf', 'oneOf', 'allOf', 'prefixItems')


class JsonSchemaTransformer(ABC):
    """Rewrites a JSON schema node by node; subclasses implement `transform`."""

    def __init__(self, schema: JsonSchema, *, strict: bool | None = None) -> None:
        """Prepare to rewrite `schema`.

        Args:
            schema: The schema; it is copied, not changed.
            strict: `True` to make the schema fit the provider's strict mode, `False` to leave strictness alone,
                `None` to only check whether it already fits (see `is_strict_compatible`).
        """
        self.schema = schema
        self.strict = strict
        self.is_strict_compatible = True
        """Whether the schema fits strict mode; meaningful after `walk()`."""

    @abstractmethod
    def transform(self, schema: JsonSchema) -> JsonSchema:
        """Rewrite one node whose subschemas were already rewritten."""
        raise NotImplementedError

    def walk(self) -> JsonSchema:
        """The rewritten schema."""
        schema = copy.deepcopy(self.schema)
        defs = cast(dict[str, JsonSchema], schema.pop('$defs', {}))
        ref = schema.get('$ref')
        root_ref = ref if isinstance(ref, str) and ref.removeprefix('#/$defs/') in defs else None
        if root_ref is not None:
            # A root that is only a reference is replaced by what it refers to, so the root is a real schema;
            # references to it become references to the root.
            del schema['$ref']
            schema = _replace_ref({**defs[root_ref.removeprefix('#/$defs/')], **schema}, root_ref)
            defs = {name: _replace_ref(definition, root_ref) for name, definition in defs.items()}
        result = self._handle(schema)
        if defs:
            result['$defs'] = {name: self._handle(definition) for name, definition in defs.items()}
        return result

    def _handle(self, schema: JsonSchema) -> JsonSchema:
        properties = schema.get('properties')
        if isinstance(properties, dict):
            schema['properties'] = {
                name: self._handle_any(sub) for name, sub in cast(dict[str, Any], properties).items()
            }
        for key in _SINGLE_KEYS:
            if isinstance(schema.get(key), dict):
                schema[key] = self._handle(schema[key])
        for key in _LIST_KEYS:
            members = schema.get(key)
            if isinstance(members, list):
                schema[key] = [self._handle_any(member) for member in cast(list[Any], members)]
        return self.transform(schema)

    def _handle_any(self, schema: Any) -> Any:
        # Boolean schemas (`true` / `false`) have nothing to rewrite.
        return self._handle(cast(JsonSchema, schema)) if isinstance(schema, dict) else schema


def flatten_single_union(schema: JsonSchema) -> JsonSchema:
    """Replace a union of one member by that member, merged with the node's other keywords."""
    for key in ('anyOf', 'oneOf'):
        members = schema.get(key)
        if not isinstance(members, list) or len(cast(list[Any], members)) != 1:
            continue
        member = cast(list[Any], members)[0]
        rest = {k: v for k, v in schema.items() if k != key}
        # A reference cannot take sibling keywords everywhere, so it stays wrapped when there are any.
        if isinstance(member, dict) and not ('$ref' in member and rest):
            return {**cast(JsonSchema, member), **rest}
    return schema


def _replace_ref(schema: Any, ref: str) -> Any:
    """A copy of `schema` with references to `ref` pointing at the root (`#`) instead."""
    if isinstance(schema, dict):
        items = cast(dict[str, Any], schema).items()
        return {key: '#' if key == '$ref' and value == ref else _replace_ref(value, ref) for key, value in items}
    if isinstance(schema, list):
        return [_replace_ref(item, ref) for item in cast(list[Any], schema)]
    return schema
