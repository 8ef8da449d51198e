# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
"""How the Vercel AI adapter dumps builtin tool calls, their returns and files of a history, and loads them back."""

import json

from pydantic_ai.messages import (
    BinaryImage,
    BuiltinToolCallPart,
    BuiltinToolReturnPart,
    FilePart,
    ModelRequest,
    ModelResponse,
    TextPart,
    UserPromptPart,
)
from pydantic_ai.ui.vercel_ai import VercelAIAdapter

history = [
    ModelRequest(parts=[UserPromptPart('search')]),
    ModelResponse(
        parts=[
            BuiltinToolCallPart('web_search', {'query': 'x'}, 'call_1', provider_name='openai'),
            BuiltinToolReturnPart('web_search', {'results': ['a']}, 'call_1', provider_name='openai'),
            FilePart(BinaryImage(data=b'\x89PNG', media_type='image/png')),
            TextPart('found'),
        ]
    ),
]
dumped = VercelAIAdapter.dump_messages(history)
for message in dumped:
    dumped_message = message.model_dump(mode='json', by_alias=True, exclude={'id'})
    for ui_part in dumped_message['parts']:
        # Whether empty `approval`/`title` keys are dumped is the adapter's own question, not checked here.
        ui_part.pop('approval', None)
        ui_part.pop('title', None)
    print(json.dumps(dumped_message, sort_keys=True))
loaded = VercelAIAdapter.load_messages(dumped)
for message in loaded:
    for part in message.parts:
        print(type(part).__name__, {k: v for k, v in vars(part).items() if k not in ('timestamp',)})
