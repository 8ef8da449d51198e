"""The Vercel AI adapter's chunks and UI messages as upstream's: provider metadata, reasoning blocks, output tools."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from dirty_equals import IsStr
from inline_snapshot import snapshot
from pydantic_ai import Agent, AgentRunResult
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import (
    AgentInfo,
    DeltaThinkingCalls,
    DeltaThinkingPart,
    DeltaToolCall,
    DeltaToolCalls,
    FunctionModel,
)
from pydantic_ai.ui.vercel_ai import VercelAIAdapter
from pydantic_ai.ui.vercel_ai.request_types import SubmitMessage

pytestmark = pytest.mark.anyio

ID: Any = IsStr()


def request_body() -> SubmitMessage:
    return SubmitMessage.model_validate(
        {
            'trigger': 'submit-message',
            'id': 'chat',
            'messages': [{'id': 'u1', 'role': 'user', 'parts': [{'type': 'text', 'text': 'hi'}]}],
        }
    )


async def sent(agent: Agent[Any, Any], **kwargs: Any) -> list[dict[str, Any]]:
    adapter = VercelAIAdapter(agent=agent, run_input=request_body())
    return [c.model_dump(by_alias=True, exclude_none=True) async for c in adapter.run_stream(**kwargs)]


@dataclass
class Answer:
    value: int


async def thinking_then_output(
    messages: list[ModelMessage], info: AgentInfo
) -> AsyncIterator[DeltaThinkingCalls | DeltaToolCalls]:
    yield {0: DeltaThinkingPart(content='plan', signature='sig-1')}
    yield {1: DeltaThinkingPart(content='check')}
    yield {2: DeltaToolCall('final_result', '{"value": 42}', tool_call_id='out_1')}


async def test_thinking_parts_are_separate_blocks_and_the_output_call_gets_its_output():
    agent = Agent(FunctionModel(stream_function=thinking_then_output), output_type=Answer)
    metadata = {'pydantic_ai': {'signature': 'sig-1', 'provider_name': 'function'}}
    assert await sent(agent) == snapshot(
        [
            {'type': 'start'},
            {'type': 'start-step'},
            {'type': 'reasoning-start', 'id': ID, 'providerMetadata': metadata},
            {'type': 'reasoning-delta', 'id': ID, 'delta': 'plan', 'providerMetadata': metadata},
            {'type': 'reasoning-end', 'id': ID, 'providerMetadata': metadata},
            {'type': 'reasoning-start', 'id': ID},
            {'type': 'reasoning-delta', 'id': ID, 'delta': 'check'},
            {'type': 'reasoning-end', 'id': ID},
            {'type': 'tool-input-start', 'toolCallId': 'out_1', 'toolName': 'final_result'},
            {'type': 'tool-input-delta', 'toolCallId': 'out_1', 'inputTextDelta': '{"value": 42}'},
            {'type': 'tool-input-available', 'toolCallId': 'out_1', 'toolName': 'final_result', 'input': {'value': 42}},
            {'type': 'tool-output-available', 'toolCallId': 'out_1', 'output': 'Final result processed.'},
            {'type': 'finish-step'},
            {'type': 'finish'},
            {'type': 'done'},
        ]
    )


async def hello(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    yield 'hello'


async def test_an_exception_in_on_complete_becomes_an_error_chunk():
    async def on_complete(result: AgentRunResult[str]) -> None:
        raise RuntimeError(f'could not save {result.output!r}')

    chunks = await sent(Agent(FunctionModel(stream_function=hello)), on_complete=on_complete)
    assert chunks[-4:] == snapshot(
        [
            {'type': 'error', 'errorText': "could not save 'hello'"},
            {'type': 'finish-step'},
            {'type': 'finish', 'finishReason': 'error'},
            {'type': 'done'},
        ]
    )


HISTORY: list[ModelMessage] = [
    ModelRequest(parts=[UserPromptPart(content='hi')]),
    ModelResponse(
        parts=[
            ThinkingPart(content='hmm', id='th_1', signature='sig', provider_name='openai', provider_details={'a': 1}),
            TextPart(content='one', id='tx_1', provider_name='openai', provider_details={'b': 2}),
            TextPart(content='two'),
            ToolCallPart('add', {'a': 1}, 'call_1', id='tc_1', provider_name='openai', provider_details={'c': 3}),
            ToolCallPart('add', {'a': 2}, 'call_2'),
            ToolCallPart('add', {'a': 3}, 'call_3'),
        ]
    ),
    ModelRequest(
        parts=[
            ToolReturnPart('add', 2, 'call_1'),
            RetryPromptPart('bad args', tool_name='add', tool_call_id='call_2'),
            RetryPromptPart('please answer in JSON'),
        ]
    ),
]


def test_dump_carries_provider_metadata_joins_text_and_shows_output_feedback():
    dumped = VercelAIAdapter.dump_messages(HISTORY)
    assert [(m.role, [p.model_dump(by_alias=True) for p in m.parts]) for m in dumped] == snapshot(
        [
            ('user', [{'type': 'text', 'text': 'hi', 'state': 'done', 'providerMetadata': None}]),
            (
                'assistant',
                [
                    {
                        'type': 'reasoning',
                        'text': 'hmm',
                        'state': 'done',
                        'providerMetadata': {
                            'pydantic_ai': {
                                'id': 'th_1',
                                'signature': 'sig',
                                'provider_name': 'openai',
                                'provider_details': {'a': 1},
                            }
                        },
                    },
                    {
                        'type': 'text',
                        'text': 'onetwo',
                        'state': 'done',
                        'providerMetadata': {
                            'pydantic_ai': {'id': 'tx_1', 'provider_name': 'openai', 'provider_details': {'b': 2}}
                        },
                    },
                    {
                        'type': 'dynamic-tool',
                        'toolName': 'add',
                        'toolCallId': 'call_1',
                        'state': 'output-available',
                        'input': '{"a":1}',
                        'output': '2',
                        'callProviderMetadata': {
                            'pydantic_ai': {'id': 'tc_1', 'provider_name': 'openai', 'provider_details': {'c': 3}}
                        },
                        'preliminary': None,
                    },
                    {
                        'type': 'dynamic-tool',
                        'toolName': 'add',
                        'toolCallId': 'call_2',
                        'state': 'output-error',
                        'input': '{"a":2}',
                        'errorText': 'bad args\n\nFix the errors and try again.',
                        'callProviderMetadata': None,
                    },
                    {
                        'type': 'dynamic-tool',
                        'toolName': 'add',
                        'toolCallId': 'call_3',
                        'state': 'input-available',
                        'input': '{"a":3}',
                        'callProviderMetadata': None,
                    },
                ],
            ),
            (
                'user',
                [
                    {
                        'type': 'text',
                        'text': 'Validation feedback:\nplease answer in JSON\n\nFix the errors and try again.',
                        'state': 'done',
                        'providerMetadata': None,
                    }
                ],
            ),
        ]
    )


def test_provider_metadata_loads_back_into_the_parts():
    loaded = VercelAIAdapter.load_messages(VercelAIAdapter.dump_messages(HISTORY))
    response = loaded[1]
    assert isinstance(response, ModelResponse)
    assert response.parts[:3] == snapshot(
        [
            ThinkingPart(content='hmm', id='th_1', signature='sig', provider_name='openai', provider_details={'a': 1}),
            TextPart(content='onetwo', id='tx_1', provider_name='openai', provider_details={'b': 2}),
            ToolCallPart(
                tool_name='add',
                args={'a': 1},
                tool_call_id='call_1',
                id='tc_1',
                provider_name='openai',
                provider_details={'c': 3},
            ),
        ]
    )
