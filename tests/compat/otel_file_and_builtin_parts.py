"""How responses with files and builtin tool calls are rendered for OpenTelemetry (events and message parts)."""

import json
from typing import Any

from pydantic_ai import BinaryContent
from pydantic_ai.messages import BuiltinToolCallPart, BuiltinToolReturnPart, FilePart, ModelResponse, TextPart
from pydantic_ai.models.instrumented import InstrumentationSettings

response = ModelResponse(
    parts=[
        BuiltinToolCallPart('web_search', {'query': 'weather'}, 'b1', provider_name='openai'),
        BuiltinToolReturnPart('web_search', {'results': ['sunny']}, 'b1', provider_name='openai'),
        TextPart('It is sunny.'),
        FilePart(BinaryContent(b'\x89PNG', media_type='image/png')),
    ]
)
lone_file = ModelResponse(parts=[FilePart(BinaryContent(b'abc', media_type='image/png'))])

OPTIONS: list[dict[str, Any]] = [{}, dict(include_content=False), dict(include_binary_content=False)]
for options in OPTIONS:
    settings = InstrumentationSettings(**options)
    print(f'=== {options}')
    for r in (response, lone_file):
        for event in r.otel_events(settings):
            print(
                'event',
                json.dumps(dict(event.attributes or {}), sort_keys=True),
                json.dumps(event.body, sort_keys=True),
            )
        print('parts', json.dumps(r.otel_message_parts(settings), sort_keys=True))
