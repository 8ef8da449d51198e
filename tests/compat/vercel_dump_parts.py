"""Vercel AI `dump_messages` / `load_messages`: provider metadata, tool part keys, retry feedback, consecutive text."""

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.ui.vercel_ai import VercelAIAdapter

messages = [
    ModelRequest(parts=[UserPromptPart(content='hi')]),
    ModelResponse(
        parts=[
            ThinkingPart(content='hmm', id='th_1', signature='sig', provider_name='openai', provider_details={'a': 1}),
            TextPart(content='one', id='tx_1', provider_name='openai', provider_details={'b': 2}),
            TextPart(content='two'),
            ToolCallPart('add', {'a': 1}, 'call_1', id='tc_1', provider_name='openai', provider_details={'c': 3}),
            ToolCallPart('add', {'a': 2}, 'call_2'),
        ]
    ),
    ModelRequest(
        parts=[
            ToolReturnPart('add', 2, 'call_1'),
            RetryPromptPart('bad args', tool_name='add', tool_call_id='call_2'),
            RetryPromptPart('please answer in JSON'),
        ]
    ),
    ModelResponse(parts=[TextPart(content='first'), TextPart(content='second')]),
]

dumped = VercelAIAdapter.dump_messages(messages)
for message in dumped:
    print(message.role, [part.model_dump(by_alias=True, exclude_none=True) for part in message.parts])
loaded = VercelAIAdapter.load_messages(dumped)
for message in loaded:
    print(type(message).__name__, [repr(p) for p in message.parts if not isinstance(p, UserPromptPart)])
