"""The message parts' own OpenTelemetry renderings: `otel_event`, `otel_message_parts`, `ModelResponse.otel_events`."""

import json
from typing import Any

from _otel_probe import tracer_provider
from pydantic_ai import BinaryContent, ImageUrl
from pydantic_ai.messages import (
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.instrumented import InstrumentationSettings

request_parts = [
    SystemPromptPart('Be kind.'),
    UserPromptPart('Hi'),
    UserPromptPart(['Look', ImageUrl('https://example.com/a.png'), BinaryContent(b'abc', media_type='image/png')]),
    ToolReturnPart('add', {'sum': 3}, 'c1'),
    ToolReturnPart('add', 'plain', 'c2'),
    RetryPromptPart('bad input', tool_name='add', tool_call_id='c3'),
    RetryPromptPart('no text please', tool_call_id='c4'),
]
response = ModelResponse(
    parts=[
        ThinkingPart('hmm'),
        TextPart('Hello'),
        TextPart('again'),
        ToolCallPart('add', {'a': 1}, 'c5'),
        ToolCallPart('add', '{"a": 2}', 'c6'),
    ],
    model_name='m',
    finish_reason='tool_call',
)


def show(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


OPTIONS: list[dict[str, Any]] = [{}, dict(include_content=False), dict(include_binary_content=False), dict(version=1)]
for options in OPTIONS:
    settings = InstrumentationSettings(tracer_provider=tracer_provider, **options)
    print(f'=== {options}')
    for part in request_parts:
        event = part.otel_event(settings)
        print(type(part).__name__, 'event', show(dict(event.attributes or {})), show(event.body))
        print(type(part).__name__, 'parts', show(part.otel_message_parts(settings)))
    for event in response.otel_events(settings):
        print('response event', show(dict(event.attributes or {})), show(event.body))
    print('response parts', show(response.otel_message_parts(settings)))
    print('messages', show(settings.messages_to_otel_messages([])))
