# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
"""`Agent.output_json_schema()` for each kind of output type."""

import json
from typing import Literal

from pydantic import BaseModel
from pydantic_ai import (
    Agent,
    NativeOutput,
    PromptedOutput,
    StructuredDict,
    TextOutput,
    ToolOutput,
)
from pydantic_ai.agent import WrapperAgent
from pydantic_ai.models.test import TestModel


class City(BaseModel):
    """A city."""

    name: str
    population: int | None = None


class Country(BaseModel):
    name: str


def upper(text: str) -> str:
    return text.upper()


def make_city(name: str, population: int) -> City:
    """Make a city."""
    return City(name=name, population=population)


outputs = [
    str,
    int,
    City,
    [City, Country],
    [str, City],
    City | None,
    list[City],
    Literal['a', 'b'],
    ToolOutput(City, name='city', description='Give the city'),
    [ToolOutput(City), ToolOutput(Country)],
    NativeOutput(City),
    NativeOutput([City, Country], name='place'),
    PromptedOutput(City, description='Prompted'),
    TextOutput(upper),
    make_city,
    StructuredDict({'type': 'object', 'properties': {'a': {'type': 'integer'}}}, name='AnA'),
    dict[str, int],
    bool,
]
agent = Agent(TestModel(), output_type=City)
for output in outputs:
    try:
        print(json.dumps(agent.output_json_schema(output), sort_keys=True))
    except Exception as e:
        print(type(e).__name__, e)
print(json.dumps(agent.output_json_schema(), sort_keys=True))
print(json.dumps(WrapperAgent(agent).output_json_schema(int), sort_keys=True))
