"""Vercel AI chunks carry `providerMetadata` (part id, signature, provider name, details) from a custom model's stream."""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ModelResponseStreamEvent, TextPart
from pydantic_ai.models import Model, ModelRequestParameters, StreamedResponse
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import RunContext
from pydantic_ai.ui.vercel_ai import VercelAIAdapter
from pydantic_ai.ui.vercel_ai.request_types import SubmitMessage


class MetaStream(StreamedResponse):
    def __init__(self, model_request_parameters: ModelRequestParameters, second: bool) -> None:
        super().__init__(model_request_parameters)
        self._second = second

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        pm = self._parts_manager
        if self._second:
            for delta in ('all ', 'done'):
                for event in pm.handle_text_delta(
                    vendor_part_id='t2', content=delta, id='msg_2', provider_name='acme', provider_details={'n': 2}
                ):
                    yield event
            return
        for delta in ('think', 'ing'):
            for event in pm.handle_thinking_delta(
                vendor_part_id='r', content=delta, id='rs_1', provider_name='acme', provider_details={'k': 'v'}
            ):
                yield event
        for event in pm.handle_thinking_delta(vendor_part_id='r', signature='sig-xyz', provider_name='acme'):
            yield event
        for event in pm.handle_thinking_delta(vendor_part_id='r', content='!', signature='sig-2', provider_name='acme'):
            yield event
        for delta in ('Hel', 'lo'):
            for event in pm.handle_text_delta(
                vendor_part_id='t', content=delta, id='msg_1', provider_name='acme', provider_details={'x': 1}
            ):
                yield event
        event = pm.handle_tool_call_delta(
            vendor_part_id='c',
            tool_name='add',
            args='{"a": 1,',
            tool_call_id='call_1',
            provider_name='acme',
            provider_details={'y': 2},
        )
        if event is not None:
            yield event
        event = pm.handle_tool_call_delta(vendor_part_id='c', args=' "b": 2}')
        if event is not None:
            yield event
        yield pm.handle_tool_call_part(
            vendor_part_id='d',
            tool_name='add',
            args={'a': 3, 'b': 4},
            tool_call_id='call_2',
            id='fc_2',
            provider_name='acme',
            provider_details={'z': 3},
        )

    @property
    def model_name(self) -> str:
        return 'meta-model'

    @property
    def provider_name(self) -> str:
        return 'acme'

    @property
    def provider_url(self) -> str | None:
        return None

    @property
    def timestamp(self) -> datetime:
        return datetime(2024, 1, 1, tzinfo=UTC)


class MetaModel(Model):
    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        return ModelResponse(parts=[TextPart('unused')])

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[None] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        second = isinstance(messages[-1], ModelRequest) and messages[-1].parts[0].part_kind == 'tool-return'
        yield MetaStream(model_request_parameters, second)

    @property
    def model_name(self) -> str:
        return 'meta-model'

    @property
    def system(self) -> str:
        return 'acme'


agent = Agent(MetaModel())


@agent.tool_plain
def add(a: int, b: int) -> int:
    return a + b


async def main() -> None:
    body = {
        'trigger': 'submit-message',
        'id': 'chat',
        'messages': [{'id': 'u1', 'role': 'user', 'parts': [{'type': 'text', 'text': 'hi'}]}],
    }
    adapter = VercelAIAdapter(agent=agent, run_input=SubmitMessage.model_validate(body))
    async for chunk in adapter.run_stream():
        print(chunk.model_dump(by_alias=True, exclude_none=True))

    print('--- load back')
    assistant = {
        'id': 'a1',
        'role': 'assistant',
        'parts': [
            {
                'type': 'reasoning',
                'text': 'thinking',
                'state': 'done',
                'providerMetadata': {
                    'pydantic_ai': {
                        'id': 'rs_1',
                        'signature': 'sig-xyz',
                        'provider_name': 'acme',
                        'provider_details': {'k': 'v'},
                    }
                },
            },
            {
                'type': 'text',
                'text': 'Hello',
                'state': 'done',
                'providerMetadata': {
                    'pydantic_ai': {'id': 'msg_1', 'provider_name': 'acme', 'provider_details': {'x': 1}}
                },
            },
            {
                'type': 'tool-add',
                'toolCallId': 'call_1',
                'state': 'output-available',
                'input': {'a': 1, 'b': 2},
                'output': 3,
                'callProviderMetadata': {
                    'pydantic_ai': {'id': 'fc_1', 'provider_name': 'acme', 'provider_details': {'y': 2}}
                },
            },
        ],
    }
    loaded = VercelAIAdapter.load_messages(SubmitMessage.model_validate({**body, 'messages': [assistant]}).messages)
    for message in loaded:
        print(type(message).__name__, [repr(p) for p in message.parts])


asyncio.run(main())
