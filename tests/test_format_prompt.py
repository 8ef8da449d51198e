"""`format_as_xml`: values of every supported kind, nesting, and the options."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

import pytest
from inline_snapshot import snapshot
from pydantic import BaseModel, Field
from pydantic_ai import format_as_xml


class Color(enum.Enum):
    RED = 'red'


@dataclass
class Point:
    x: int
    y: int = field(default=0, metadata={'description': 'The y coordinate', 'unit': 'cm'})


class User(BaseModel):
    name: str = Field(description='The name', title='Name')
    age: int | None = None
    tags: list[str] = []
    point: Point | None = None


def test_plain_values():
    values = [
        'a < b & c',
        b'bytes',
        bytearray(b'ba'),
        True,
        3,
        1.5,
        None,
        date(2024, 1, 2),
        datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC),
        time(1, 2),
        timedelta(days=1, seconds=3),
        Color.RED,
    ]
    assert [format_as_xml(v) for v in values] == snapshot(
        [
            '<item>a &lt; b &amp; c</item>',
            '<item>bytes</item>',
            '<item>ba</item>',
            '<item>True</item>',
            '<item>3</item>',
            '<item>1.5</item>',
            '<item>null</item>',
            '<item>2024-01-02</item>',
            '<item>2024-01-02T03:04:05+00:00</item>',
            '<item>01:02:00</item>',
            '<item>1 day, 0:00:03</item>',
            '<item>Color.RED</item>',
        ]
    )
    assert format_as_xml('x', root_tag='root') == '<root>x</root>'


def test_structures():
    value = {'name': 'John', 'nested': {'a': [1, {'b': None}]}, 'points': [Point(1)], 'empty': []}
    assert format_as_xml(value) == snapshot("""\
<name>John</name>
<nested>
  <a>
    <item>1</item>
    <item>
      <b>null</b>
    </item>
  </a>
</nested>
<points>
  <Point>
    <x>1</x>
    <y>0</y>
  </Point>
</points>
<empty />\
""")
    assert format_as_xml([1, None], root_tag='r', item_tag='n', none_str='-', indent=None) == snapshot(
        '<r><n>1</n><n>-</n></r>'
    )
    assert format_as_xml(User(name='Ann', tags=['a'], point=Point(4)), indent='\t') == snapshot("""\
<name>Ann</name>
<age>null</age>
<tags>
\t<item>a</item>
</tags>
<point>
\t<x>4</x>
\t<y>0</y>
</point>\
""")
    assert format_as_xml([]) == ''
    assert format_as_xml([], root_tag='r') == '<r />'


def test_field_info():
    assert format_as_xml(User(name='Ann', point=Point(1)), root_tag='user', include_field_info=True) == snapshot("""\
<user>
  <name title="Name" description="The name">Ann</name>
  <age>null</age>
  <tags />
  <point>
    <x>1</x>
    <y description="The y coordinate">0</y>
  </point>
</user>\
""")
    assert format_as_xml([Point(1), Point(2)], include_field_info='once', indent=None) == snapshot(
        '<Point><x>1</x><y description="The y coordinate">0</y></Point><Point><x>2</x><y>0</y></Point>'
    )


def test_unsupported_type():
    with pytest.raises(TypeError, match=r"^Unsupported type for XML formatting: <class 'decimal.Decimal'>$"):
        format_as_xml({'price': Decimal('1.10')})
