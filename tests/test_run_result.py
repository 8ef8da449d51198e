"""`AgentRunResult.response`, `output_tool_return_content=`, prices, and the JSON schema transformers."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from inline_snapshot import snapshot
from pydantic import BaseModel
from pydantic_ai import (
    Agent,
    AgentRunResultEvent,
    InlineDefsJsonSchemaTransformer,
    JsonSchemaTransformer,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolReturnPart,
)
from pydantic_ai.models.test import TestModel
from pydantic_ai.usage import RequestUsage

pytestmark = pytest.mark.anyio


class Answer(BaseModel):
    value: int


def output_return(messages: list[Any]) -> Any:
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    part = last.parts[0]
    assert isinstance(part, ToolReturnPart)
    return part.content


async def test_output_tool_return_content():
    result = await Agent(TestModel(), output_type=Answer).run('x')
    assert output_return(result.all_messages()) == 'Final result processed.'
    assert output_return(result.all_messages(output_tool_return_content='Thanks!')) == 'Thanks!'
    assert output_return(result.new_messages(output_tool_return_content='New')) == 'New'
    assert json.loads(result.all_messages_json(output_tool_return_content='J'))[-1]['parts'][0]['content'] == 'J'
    assert json.loads(result.new_messages_json(output_tool_return_content='K'))[-1]['parts'][0]['content'] == 'K'
    # The run's own history is not changed.
    assert output_return(result.all_messages()) == 'Final result processed.'
    assert result.response.parts == result.all_messages()[-2].parts
    assert result.timestamp() == result.response.timestamp


async def test_output_tool_return_content_needs_an_output_tool():
    agent = Agent(TestModel())
    result = await agent.run('x')
    assert result.response.parts == [TextPart('success (no tool calls)')]
    with pytest.raises(ValueError, match=r'^Cannot set output tool return content when the return type is `str`\.$'):
        result.all_messages(output_tool_return_content='Thanks!')
    async with agent.iter('x') as run:
        async for _ in run:
            pass
        # As upstream, a run in progress is dumped as it is.
        assert run.all_messages_json(output_tool_return_content='ignored') == run.all_messages_json()
    events = [event async for event in agent.run_stream_events('x')]
    assert isinstance(events[-1], AgentRunResultEvent)


def test_cost_from_genai_prices():
    response = ModelResponse(
        parts=[TextPart('x')],
        usage=RequestUsage(input_tokens=1000, output_tokens=500, cache_read_tokens=100),
        model_name='gpt-4o',
        provider_name='openai',
        timestamp=datetime(2025, 6, 1, tzinfo=UTC),
    )
    cost = response.cost()
    assert (cost.total_price, cost.model.id, cost.provider.id) == snapshot((Decimal('0.007375'), 'gpt-4o', 'openai'))
    with pytest.warns(DeprecationWarning, match='`price` is deprecated, use `cost` instead'):
        assert response.price().total_price == cost.total_price  # pyright: ignore[reportDeprecated] -- tested
    by_url = ModelResponse(
        parts=[], usage=RequestUsage(input_tokens=1000), model_name='gpt-4o', provider_url='https://api.openai.com/v1'
    )
    assert by_url.cost().provider.id == 'openai'
    with pytest.raises(LookupError, match="Unable to find model with model_ref='nope-model' in openai"):
        ModelResponse(parts=[], model_name='nope-model', provider_name='openai').cost()
    with pytest.raises(AssertionError, match='Model name is required to calculate price'):
        ModelResponse(parts=[]).cost()


SCHEMA: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'maybe': {'anyOf': [{'type': 'string'}, {'type': 'null'}], 'default': None},
        'node': {'$ref': '#/$defs/Node'},
        'leaf': {'$ref': '#/$defs/Leaf', 'description': 'A leaf.'},
    },
    '$defs': {
        'Node': {'type': 'object', 'properties': {'child': {'anyOf': [{'$ref': '#/$defs/Node'}, {'type': 'null'}]}}},
        'Leaf': {'type': 'object', 'properties': {'v': {'type': 'integer'}}},
    },
}


class Marker(JsonSchemaTransformer):
    def transform(self, schema: dict[str, Any]) -> dict[str, Any]:
        return {**schema, 'seen': True} if schema.get('type') == 'object' else schema


def test_inline_defs_transformer():
    assert InlineDefsJsonSchemaTransformer(SCHEMA).walk() == snapshot(
        {
            '$defs': {
                'Node': {
                    'type': 'object',
                    'properties': {'child': {'anyOf': [{'$ref': '#/$defs/Node'}, {'type': 'null'}]}},
                },
                'root': {
                    'type': 'object',
                    'properties': {
                        'maybe': {'default': None, 'anyOf': [{'type': 'string'}, {'type': 'null'}]},
                        'node': {
                            'type': 'object',
                            'properties': {'child': {'anyOf': [{'$ref': '#/$defs/Node'}, {'type': 'null'}]}},
                        },
                        'leaf': {'type': 'object', 'properties': {'v': {'type': 'integer'}}, 'description': 'A leaf.'},
                    },
                },
            },
            '$ref': '#/$defs/root',
        }
    )
    flat = {'type': 'array', 'items': {'$ref': '#/$defs/Leaf'}, '$defs': SCHEMA['$defs']}
    assert InlineDefsJsonSchemaTransformer(flat).walk() == snapshot(
        {'type': 'array', 'items': {'type': 'object', 'properties': {'v': {'type': 'integer'}}}}
    )


def test_transformer_options():
    assert Marker(SCHEMA, simplify_nullable_unions=True).walk() == snapshot(
        {
            'type': 'object',
            'properties': {
                'maybe': {'type': 'string', 'nullable': True, 'default': None},
                'node': {'$ref': '#/$defs/Node'},
                'leaf': {'$ref': '#/$defs/Leaf', 'description': 'A leaf.'},
            },
            'seen': True,
            '$defs': {
                'Node': {
                    'type': 'object',
                    'properties': {'child': {'$ref': '#/$defs/Node', 'nullable': True}},
                    'seen': True,
                },
                'Leaf': {'type': 'object', 'properties': {'v': {'type': 'integer'}}, 'seen': True},
            },
        }
    )
    root_ref = {'$ref': '#/$defs/Leaf', '$defs': SCHEMA['$defs']}
    assert Marker(root_ref, prefer_inlined_defs=True).walk() == snapshot(
        {'type': 'object', 'properties': {'v': {'type': 'integer'}}, 'seen': True}
    )
