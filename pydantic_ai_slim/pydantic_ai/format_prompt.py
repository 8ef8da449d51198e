"""`format_as_xml`: Python values as XML, a form models read well in prompts (examples, records, lists)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from datetime import date, time, timedelta
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

if TYPE_CHECKING:
    from xml.etree import ElementTree

__all__ = ('format_as_xml',)

_FIELD_INFO_KEYS = ('title', 'description')


def format_as_xml(
    obj: Any,
    root_tag: str | None = None,
    item_tag: str = 'item',
    none_str: str = 'null',
    indent: str | None = '  ',
    include_field_info: Literal['once'] | bool = False,
) -> str:
    """Format a Python value as XML.

    Supports `str`, `bytes`, `bytearray`, `bool`, `int`, `float`, `date`, `datetime`, `time`, `timedelta`,
    `Enum`, mappings, other iterables, dataclasses and pydantic models, nested in any way.

    Args:
        obj: The value.
        root_tag: A tag to wrap the XML in; `None` leaves the value's elements at the top level (a single
            plain value is then wrapped in `item_tag`).
        item_tag: The tag of the items of an iterable; dataclass and model items take their class name.
        none_str: The text of `None` values.
        indent: The indentation of nested elements; `None` puts everything on one line.
        include_field_info: Whether a dataclass or model field's `title` and `description` (the `Field(...)`
            attributes of a model, the `metadata` keys of a dataclass `field()`) become XML attributes of its
            element; `'once'` adds them only to the first element of each field.

    Returns:
        The XML text.

    Raises:
        TypeError: If the value holds something of another type.
    """
    # Imported here, as in `_XmlBuilder.element`: most programs never format XML, and the import is not free.
    from xml.etree import ElementTree

    builder = _XmlBuilder(item_tag, none_str, include_field_info)
    if root_tag is not None:
        elements = [builder.element(root_tag, obj)]
    elif _is_structured(obj):
        container = builder.element('root', obj)
        elements = list(container)
    else:
        elements = [builder.element(item_tag, obj)]
    texts: list[str] = []
    for element in elements:
        element.tail = None
        if indent is not None:
            ElementTree.indent(element, space=indent)
        texts.append(ElementTree.tostring(element, encoding='unicode'))
    return ('\n' if indent is not None else '').join(texts)


def _is_structured(obj: Any) -> bool:
    """Whether `obj` has child elements rather than text."""
    if isinstance(obj, str | bytes | bytearray):
        return False
    return isinstance(obj, Mapping | Iterable | BaseModel) or _is_dataclass_instance(obj)


def _is_dataclass_instance(obj: Any) -> bool:
    return dataclasses.is_dataclass(obj) and not isinstance(obj, type)


@dataclasses.dataclass
class _XmlBuilder:
    item_tag: str
    none_str: str
    include_field_info: Literal['once'] | bool
    _described: set[tuple[type, str]] = dataclasses.field(default_factory=set[tuple[type, str]])

    def element(self, tag: str, value: Any, attributes: dict[str, str] | None = None) -> ElementTree.Element:
        """The element `tag` holding `value`."""
        from xml.etree import ElementTree

        element = ElementTree.Element(tag, attributes or {})
        text = self._text(value)
        if text is not None:
            element.text = text
        elif isinstance(value, BaseModel):
            self._add_fields(element, value, [(name, getattr(value, name)) for name in type(value).model_fields])
        elif _is_dataclass_instance(value):
            fields = [(f.name, getattr(value, f.name)) for f in dataclasses.fields(value)]
            self._add_fields(element, value, fields)
        elif isinstance(value, Mapping):
            for key, item in value.items():  # pyright: ignore[reportUnknownVariableType] -- any mapping
                element.append(self.element(str(key), item))  # pyright: ignore[reportUnknownArgumentType]
        elif isinstance(value, Iterable):
            for item in value:  # pyright: ignore[reportUnknownVariableType] -- any iterable
                element.append(self.element(self._item_tag(item), item))
        else:
            raise TypeError(f'Unsupported type for XML formatting: {type(value)}')
        return element

    def _text(self, value: Any) -> str | None:
        """The text of a plain value, `None` for a value with child elements."""
        if value is None:
            return self.none_str
        if isinstance(value, str):
            return value
        if isinstance(value, bytes | bytearray):
            return value.decode(errors='ignore')
        if isinstance(value, bool | int | float | Enum | timedelta):
            return str(value)
        if isinstance(value, date | time):
            return value.isoformat()
        return None

    def _item_tag(self, item: Any) -> str:
        if isinstance(item, BaseModel) or _is_dataclass_instance(item):
            return type(item).__name__
        return self.item_tag

    def _add_fields(self, element: ElementTree.Element, owner: object, fields: list[tuple[str, Any]]) -> None:
        owner_type: type[Any] = type(owner)
        for name, value in fields:
            element.append(self.element(name, value, self._field_attributes(owner_type, name)))

    def _field_attributes(self, owner: type[Any], name: str) -> dict[str, str]:
        if not self.include_field_info:
            return {}
        if self.include_field_info == 'once':
            if (owner, name) in self._described:
                return {}
            self._described.add((owner, name))
        if issubclass(owner, BaseModel):
            info = owner.model_fields[name]
            found = {'title': info.title, 'description': info.description}
        else:
            metadata = {f.name: f.metadata for f in dataclasses.fields(owner)}[name]
            found = {key: metadata.get(key) for key in _FIELD_INFO_KEYS}
        return {key: str(value) for key, value in found.items() if value is not None}
