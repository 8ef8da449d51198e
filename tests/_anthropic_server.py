"""Bodies and event streams of Anthropic's Messages API, for the scripted server of `_openai_server`.

The server answers `POST /v1/messages` like any other path; these helpers build what Anthropic would send.
Only the standard library is used, so compat programs run under other environments can import it too.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = (
    'message',
    'message_stream',
    'text',
    'thinking',
    'tool_use',
    'usage',
)


def usage(input_tokens: int = 10, output_tokens: int = 5, **extra: Any) -> dict[str, Any]:
    """A `usage` object; `extra` may hold `cache_creation_input_tokens` and `cache_read_input_tokens`."""
    return {'input_tokens': input_tokens, 'output_tokens': output_tokens, **extra}


def text(content: str) -> dict[str, Any]:
    """A text content block."""
    return {'type': 'text', 'text': content}


def thinking(content: str, signature: str = 'sig-1') -> dict[str, Any]:
    """A thinking content block with its signature."""
    return {'type': 'thinking', 'thinking': content, 'signature': signature}


def tool_use(name: str, input: dict[str, Any], id: str) -> dict[str, Any]:
    """A tool use content block."""
    return {'type': 'tool_use', 'id': id, 'name': name, 'input': input}


def message(
    *content: dict[str, Any],
    stop_reason: str = 'end_turn',
    model: str = 'claude-sonnet-4-5-20250929',
    id: str = 'msg_1',
    usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A `message` body."""
    return {
        'id': id,
        'type': 'message',
        'role': 'assistant',
        'model': model,
        'content': list(content),
        'stop_reason': stop_reason,
        'stop_sequence': None,
        'usage': usage or {'input_tokens': 10, 'output_tokens': 5},
    }


def message_stream(
    *content: dict[str, Any],
    stop_reason: str = 'end_turn',
    model: str = 'claude-sonnet-4-5-20250929',
    id: str = 'msg_s1',
    input_usage: dict[str, Any] | None = None,
    output_tokens: int = 5,
    pieces: int = 2,
) -> list[tuple[str, Any]]:
    """The named events of a streamed message with these content blocks, each block's text cut in `pieces`."""
    start = message(model=model, id=id, stop_reason='', usage=input_usage or {'input_tokens': 10, 'output_tokens': 1})
    start['stop_reason'] = None
    events: list[tuple[str, Any]] = [('message_start', {'type': 'message_start', 'message': start})]
    for index, block in enumerate(content):
        events.extend(_block_events(index, block, pieces))
    delta = {'stop_reason': stop_reason, 'stop_sequence': None}
    events.append(
        ('message_delta', {'type': 'message_delta', 'delta': delta, 'usage': {'output_tokens': output_tokens}})
    )
    events.append(('message_stop', {'type': 'message_stop'}))
    return events


def _cut(value: str, pieces: int) -> list[str]:
    size = max(1, -(-len(value) // pieces))
    return [value[i : i + size] for i in range(0, len(value), size)] or ['']


def _block_events(index: int, block: dict[str, Any], pieces: int) -> list[tuple[str, Any]]:
    kind = block['type']
    if kind == 'text':
        start: dict[str, Any] = {'type': 'text', 'text': ''}
        deltas = [{'type': 'text_delta', 'text': piece} for piece in _cut(block['text'], pieces)]
    elif kind == 'thinking':
        start = {'type': 'thinking', 'thinking': '', 'signature': ''}
        deltas: list[dict[str, Any]] = [
            {'type': 'thinking_delta', 'thinking': piece} for piece in _cut(block['thinking'], pieces)
        ]
        deltas.append({'type': 'signature_delta', 'signature': block['signature']})
    elif kind == 'tool_use':
        start = {**block, 'input': {}}
        args = json.dumps(block['input'])
        deltas = [{'type': 'input_json_delta', 'partial_json': piece} for piece in _cut(args, pieces)]
    else:
        # Blocks like `redacted_thinking` arrive whole.
        start, deltas = block, []
    events: list[tuple[str, Any]] = [
        ('content_block_start', {'type': 'content_block_start', 'index': index, 'content_block': start})
    ]
    events.extend(
        ('content_block_delta', {'type': 'content_block_delta', 'index': index, 'delta': delta}) for delta in deltas
    )
    events.append(('content_block_stop', {'type': 'content_block_stop', 'index': index}))
    return events
