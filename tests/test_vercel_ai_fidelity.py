"""The Vercel AI adapter's chunks and UI messages as upstream's: provider metadata, reasoning blocks, output tools."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from dirty_equals import IsStr
from inline_snapshot import snapshot
from pydantic_ai import Agent, AgentRunResult
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelResponseStreamEvent,
    RetryPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import Model, ModelRequestParameters, StreamedResponse
from pydantic_ai.models.function import (
    AgentInfo,
    DeltaThinkingCalls,
    DeltaThinkingPart,
    DeltaToolCall,
    DeltaToolCalls,
    FunctionModel,
)
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import RunContext
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


class MetadataStream(StreamedResponse):
    """A provider's stream whose parts carry ids, a signature, the provider's name and details."""

    def __init__(self, model_request_parameters: ModelRequestParameters, answered: bool) -> None:
        super().__init__(model_request_parameters)
        self._answered = answered

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        pm = self._parts_manager
        if self._answered:
            for event in pm.handle_text_delta(vendor_part_id='t', content='done'):
                yield event
            return
        for content in ('think', 'ing'):
            for event in pm.handle_thinking_delta(
                vendor_part_id='r', content=content, id='rs_1', provider_name='acme', provider_details={'k': 1}
            ):
                yield event
        for event in pm.handle_thinking_delta(vendor_part_id='r', content='!', signature='sig', provider_name='acme'):
            yield event
        for content in ('Hel', 'lo'):
            for event in pm.handle_text_delta(
                vendor_part_id='t', content=content, id='msg_1', provider_name='acme', provider_details={'x': 1}
            ):
                yield event
        event = pm.handle_tool_call_delta(
            vendor_part_id='c', tool_name='add', args='{"a": 1}', tool_call_id='call_1', provider_name='acme'
        )
        assert event is not None
        yield event
        yield pm.handle_tool_call_part(
            vendor_part_id='d', tool_name='add', args={'a': 2}, tool_call_id='call_2', id='fc_2', provider_name='acme'
        )

    @property
    def model_name(self) -> str:
        return 'metadata'

    @property
    def provider_name(self) -> str:
        return 'acme'

    @property
    def provider_url(self) -> str | None:
        return None

    @property
    def timestamp(self) -> datetime:
        return datetime(2024, 1, 1, tzinfo=UTC)


class MetadataModel(Model):
    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        raise NotImplementedError('This model only streams.')

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        last = messages[-1]
        answered = isinstance(last, ModelRequest) and isinstance(last.parts[0], ToolReturnPart)
        yield MetadataStream(model_request_parameters, answered)

    @property
    def model_name(self) -> str:
        return 'metadata'

    @property
    def system(self) -> str:
        return 'acme'


async def test_streamed_chunks_carry_the_parts_provider_metadata():
    def add(a: int) -> int:
        return a + 1

    agent = Agent(MetadataModel(), tools=[add])

    thinking = {'pydantic_ai': {'id': 'rs_1', 'provider_name': 'acme', 'provider_details': {'k': 1}}}
    text = {'pydantic_ai': {'id': 'msg_1', 'provider_name': 'acme', 'provider_details': {'x': 1}}}
    first_call = {'pydantic_ai': {'provider_name': 'acme'}}
    second_call = {'pydantic_ai': {'id': 'fc_2', 'provider_name': 'acme'}}
    assert await sent(agent) == snapshot(
        [
            {'type': 'start'},
            {'type': 'start-step'},
            {'type': 'reasoning-start', 'id': ID, 'providerMetadata': thinking},
            {'type': 'reasoning-delta', 'id': ID, 'delta': 'think', 'providerMetadata': thinking},
            {
                'type': 'reasoning-delta',
                'id': ID,
                'delta': 'ing',
                'providerMetadata': {'pydantic_ai': {'provider_details': {'k': 1}}},
            },
            {
                'type': 'reasoning-delta',
                'id': ID,
                'delta': '!',
                'providerMetadata': {'pydantic_ai': {'signature': 'sig'}},
            },
            {
                'type': 'reasoning-end',
                'id': ID,
                'providerMetadata': {
                    'pydantic_ai': {
                        'id': 'rs_1',
                        'signature': 'sig',
                        'provider_name': 'acme',
                        'provider_details': {'k': 1},
                    }
                },
            },
            {'type': 'text-start', 'id': ID, 'providerMetadata': text},
            {'type': 'text-delta', 'delta': 'Hel', 'id': ID, 'providerMetadata': text},
            {
                'type': 'text-delta',
                'delta': 'lo',
                'id': ID,
                'providerMetadata': {'pydantic_ai': {'provider_details': {'x': 1}}},
            },
            {'type': 'text-end', 'id': ID, 'providerMetadata': text},
            {'type': 'tool-input-start', 'toolCallId': 'call_1', 'toolName': 'add', 'providerMetadata': first_call},
            {'type': 'tool-input-delta', 'toolCallId': 'call_1', 'inputTextDelta': '{"a": 1}'},
            {
                'type': 'tool-input-available',
                'toolCallId': 'call_1',
                'toolName': 'add',
                'input': {'a': 1},
                'providerMetadata': first_call,
            },
            {'type': 'tool-input-start', 'toolCallId': 'call_2', 'toolName': 'add', 'providerMetadata': second_call},
            {'type': 'tool-input-delta', 'toolCallId': 'call_2', 'inputTextDelta': '{"a":2}'},
            {
                'type': 'tool-input-available',
                'toolCallId': 'call_2',
                'toolName': 'add',
                'input': {'a': 2},
                'providerMetadata': second_call,
            },
            {'type': 'tool-output-available', 'toolCallId': 'call_1', 'output': 2},
            {'type': 'tool-output-available', 'toolCallId': 'call_2', 'output': 3},
            {'type': 'finish-step'},
            {'type': 'start-step'},
            {'type': 'text-start', 'id': ID},
            {'type': 'text-delta', 'delta': 'done', 'id': ID},
            {'type': 'text-end', 'id': ID},
            {'type': 'finish-step'},
            {'type': 'finish'},
            {'type': 'done'},
        ]
    )
