# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
"""`format_as_xml` on many kinds of values and options."""

import enum
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, Field
from pydantic_ai import format_as_xml


class Color(enum.Enum):
    RED = 'red'
    ONE = 1


@dataclass
class Point:
    x: int
    y: int = field(default=0, metadata={'description': 'The y coordinate', 'unit': 'cm'})


class User(BaseModel):
    name: str = Field(description='The name', title='Name')
    age: int | None = None
    tags: list[str] = []
    point: Point | None = None


class Empty(BaseModel):
    pass


values: list[Any] = [
    'text',
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
    Color.ONE,
    Decimal('1.10'),
    [1, 2],
    (1, 'a'),
    {1, 2},
    {'name': 'John', 'height': 6, 'nested': {'a': [1, {'b': None}]}},
    Point(1, 2),
    [Point(1), Point(2, 3)],
    User(name='Ann', tags=['a', 'b'], point=Point(4)),
    [User(name='A'), User(name='B', age=3)],
    Empty(),
    {'users': [User(name='X')], 'empty': [], 'empty_dict': {}},
    'a < b & c > "d"',
    {'with space': 1, '1start': 2},
]
for value in values:
    options: list[dict[str, Any]] = [{}, {'root_tag': 'root'}, {'indent': None}]
    for kwargs in options:
        try:
            print(repr(format_as_xml(value, **kwargs)))
        except Exception as e:
            print(type(e).__name__, e)
print(format_as_xml([1, None], item_tag='n', none_str='-'))
print(format_as_xml(User(name='Ann', point=Point(1)), root_tag='user', include_field_info=True))
print(format_as_xml([User(name='A'), User(name='B')], include_field_info='once'))
print(format_as_xml([Point(1), Point(2)], include_field_info='once', indent='\t'))
print(format_as_xml({'points': [Point(1)]}, include_field_info=True, root_tag='r'))
try:
    print(format_as_xml(object()))
except Exception as e:
    print(type(e).__name__, str(e).replace(hex(id(e)), ''))
