"""Vercel AI `dump_messages`: the keys of dumped tool parts, without and with approval state."""

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.ui.vercel_ai import VercelAIAdapter

messages = [
    ModelRequest(parts=[UserPromptPart(content='hi')]),
    ModelResponse(
        parts=[
            ToolCallPart('add', {'a': 1}, 'call_1'),
            ToolCallPart('add', {'a': 2}, 'call_2'),
            ToolCallPart('add', {'a': 3}, 'call_3'),
        ]
    ),
    ModelRequest(
        parts=[ToolReturnPart('add', 2, 'call_1'), RetryPromptPart('bad', tool_name='add', tool_call_id='call_2')]
    ),
]
for message in VercelAIAdapter.dump_messages(messages):
    for part in message.parts:
        dumped = part.model_dump(by_alias=True)
        print(
            message.role,
            part.type,
            sorted(dumped),
            {k: v for k, v in dumped.items() if k not in ('input', 'toolCallId')},
        )
