"""A walker that rewrites JSON schemas for providers with narrower schema support.

A provider subclass says how one schema node changes (`transform`); the walker applies it to every
subschema, the `$defs` included, children before their parents.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from typing import Any, TypeAlias, cast

__all__ = ('InlineDefsJsonSchemaTransformer', 'JsonSchemaTransformer')

JsonSchema: TypeAlias = dict[str, Any]
"""A JSON schema, or one node of it."""

# Keywords whose value is one subschema, or a list of them.
_SINGLE_KEYS = ('items', 'additionalProperties', 'not')
_LIST_KEYS = ('anyOf', 'oneOf', 'allOf', 'prefixItems')


class JsonSchemaTransformer(ABC):
    """Rewrites a JSON schema node by node; subclasses implement `transform`."""

    def __init__(
        self,
        schema: JsonSchema,
        *,
        strict: bool | None = None,
        prefer_inlined_defs: bool = False,
        simplify_nullable_unions: bool = False,
    ) -> None:
        """Prepare to rewrite `schema`.

        Args:
            schema: The schema; it is copied, not changed.
            strict: `True` to make the schema fit the provider's strict mode, `False` to leave strictness alone,
                `None` to only check whether it already fits (see `is_strict_compatible`).
            prefer_inlined_defs: Replace references to `$defs` by what they refer to; only recursive definitions
                stay in `$defs` (the root then moves to `$defs.root`, referenced from the top).
            simplify_nullable_unions: Turn a union of one schema and `null` into that schema with `nullable: true`.
        """
        self.schema = schema
        self.strict = strict
        self.prefer_inlined_defs = prefer_inlined_defs
        self.simplify_nullable_unions = simplify_nullable_unions
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
        if self.prefer_inlined_defs:
            recursive: dict[str, JsonSchema] = {}
            result = self._handle(_inline_refs(schema, defs, (), recursive))
            if not recursive:
                return result
            # Recursive definitions cannot be inlined: they stay, with the root beside them.
            return {'$defs': {**recursive, 'root': result}, '$ref': '#/$defs/root'}
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
                # Moved to the end of the node, as upstream writes it.
                schema[key] = [self._handle_any(member) for member in cast(list[Any], schema.pop(key))]
        if self.simplify_nullable_unions:
            schema = _simplify_nullable_union(schema)
        return self.transform(schema)

    def _handle_any(self, schema: Any) -> Any:
        # Boolean schemas (`true` / `false`) have nothing to rewrite.
        return self._handle(cast(JsonSchema, schema)) if isinstance(schema, dict) else schema


class InlineDefsJsonSchemaTransformer(JsonSchemaTransformer):
    """Inlines the references to `$defs` of a schema, for providers that do not resolve references."""

    def __init__(self, schema: JsonSchema, *, strict: bool | None = None) -> None:
        """Prepare to inline the definitions of `schema`."""
        super().__init__(schema, strict=strict, prefer_inlined_defs=True)

    def transform(self, schema: JsonSchema) -> JsonSchema:
        """Leave the node as it is."""
        return schema


def _inline_refs(node: Any, defs: dict[str, JsonSchema], stack: tuple[str, ...], recursive: dict[str, Any]) -> Any:
    """A copy of `node` with references to `defs` replaced by the definitions, except recursive ones.

    A reference to a definition that is being inlined already stays a reference; that definition is added to
    `recursive`.
    """
    if isinstance(node, list):
        return [_inline_refs(item, defs, stack, recursive) for item in cast(list[Any], node)]
    if not isinstance(node, dict):
        return node
    schema = cast(JsonSchema, node)
    ref = schema.get('$ref')
    name = ref.removeprefix('#/$defs/') if isinstance(ref, str) else None
    if name is None or name not in defs:
        return {key: _inline_refs(value, defs, stack, recursive) for key, value in schema.items()}
    if name in stack:
        recursive[name] = defs[name]
        return schema
    rest = {key: value for key, value in schema.items() if key != '$ref'}
    inlined = _inline_refs(defs[name], defs, (*stack, name), recursive)
    return {**inlined, **_inline_refs(rest, defs, stack, recursive)}


def _simplify_nullable_union(schema: JsonSchema) -> JsonSchema:
    """`anyOf`/`oneOf` of one schema and `null` as that schema with `nullable: true`."""
    for key in ('anyOf', 'oneOf'):
        members = schema.get(key)
        if not isinstance(members, list) or len(cast(list[Any], members)) != 2:
            continue
        kinds = [member for member in cast(list[Any], members) if member != {'type': 'null'}]
        if len(kinds) == 1 and isinstance(kinds[0], dict):
            rest = {k: v for k, v in schema.items() if k != key}
            return {**cast(JsonSchema, kinds[0]), 'nullable': True, **rest}
    return schema


def inline_root_ref(schema: JsonSchema) -> JsonSchema:
    """`schema` with a root that only refers to a definition replaced by that definition.

    References to that definition become references to the root (`#`), so the root is a real schema.
    """
    defs = cast(dict[str, JsonSchema], schema.get('$defs', {}))
    ref = schema.get('$ref')
    if not (isinstance(ref, str) and ref.removeprefix('#/$defs/') in defs):
        return schema
    rest = {key: value for key, value in schema.items() if key not in ('$ref', '$defs')}
    root = _replace_ref({**defs[ref.removeprefix('#/$defs/')], **rest}, ref)
    root['$defs'] = {name: _replace_ref(definition, ref) for name, definition in defs.items()}
    return root


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
