"""Bodies and event streams of OpenAI's Responses API, for the scripted server of `_openai_server`.

The server answers `POST /v1/responses` like any other path; these helpers build what OpenAI would send.
Only the standard library is used, so compat programs run under other environments can import it too.
"""

from __future__ import annotations

from typing import Any

__all__ = (
    'function_call',
    'message',
    'reasoning',
    'response',
    'response_stream',
    'usage',
)


def usage(input_tokens: int = 10, output_tokens: int = 5, *, cached: int = 0, reasoning: int = 0) -> dict[str, Any]:
    """A `usage` object."""
    return {
        'input_tokens': input_tokens,
        'input_tokens_details': {'cached_tokens': cached},
        'output_tokens': output_tokens,
        'output_tokens_details': {'reasoning_tokens': reasoning},
        'total_tokens': input_tokens + output_tokens,
    }


DEFAULT_USAGE = usage()


def message(text: str, id: str = 'msg_1') -> dict[str, Any]:
    """An assistant message output item with one text part."""
    content: list[dict[str, Any]] = [{'type': 'output_text', 'text': text, 'annotations': []}]
    return {'type': 'message', 'id': id, 'status': 'completed', 'role': 'assistant', 'content': content}


def function_call(name: str, arguments: str, call_id: str, id: str | None = None) -> dict[str, Any]:
    """A function call output item."""
    return {
        'type': 'function_call',
        'id': id or f'fc_{call_id}',
        'call_id': call_id,
        'name': name,
        'arguments': arguments,
        'status': 'completed',
    }


def reasoning(*summaries: str, id: str = 'rs_1', encrypted_content: str | None = None) -> dict[str, Any]:
    """A reasoning output item with summary texts."""
    return {
        'type': 'reasoning',
        'id': id,
        'summary': [{'type': 'summary_text', 'text': s} for s in summaries],
        'encrypted_content': encrypted_content,
    }


def response(
    *output: dict[str, Any],
    model: str = 'gpt-5-2025-08-07',
    id: str = 'resp_1',
    status: str = 'completed',
    usage: dict[str, Any] | None = None,
    incomplete_reason: str | None = None,
) -> dict[str, Any]:
    """A `response` body."""
    return {
        'id': id,
        'object': 'response',
        'created_at': 1700000000,
        'status': status,
        'model': model,
        'output': list(output),
        'usage': usage if usage is not None else DEFAULT_USAGE,
        'error': None,
        'incomplete_details': None if incomplete_reason is None else {'reason': incomplete_reason},
        'instructions': None,
        'metadata': {},
        'parallel_tool_calls': True,
        'temperature': 1.0,
        'tool_choice': 'auto',
        'tools': [],
        'top_p': 1.0,
    }


def response_stream(
    *output: dict[str, Any],
    model: str = 'gpt-5-2025-08-07',
    id: str = 'resp_s1',
    usage: dict[str, Any] | None = None,
    pieces: int = 2,
) -> list[tuple[str, Any]]:
    """The named events of a streamed response with these output items, each item's text cut in `pieces`."""
    events: list[tuple[str, Any]] = []

    def add(kind: str, **data: Any) -> None:
        events.append((kind, {'type': kind, 'sequence_number': len(events), **data}))

    start = response(model=model, id=id, status='in_progress', usage=usage)
    start['output'] = []
    start['usage'] = None
    add('response.created', response=start)
    for index, item in enumerate(output):
        _item_events(add, index, item, pieces)
    add('response.completed', response=response(*output, model=model, id=id, usage=usage))
    return events


def _cut(value: str, pieces: int) -> list[str]:
    size = max(1, -(-len(value) // pieces))
    return [value[i : i + size] for i in range(0, len(value), size)] or ['']


def _item_events(add: Any, index: int, item: dict[str, Any], pieces: int) -> None:
    kind = item['type']
    item_id = item['id']
    if kind == 'message':
        add('response.output_item.added', output_index=index, item={**item, 'content': [], 'status': 'in_progress'})
        text = item['content'][0]['text']
        part = {'type': 'output_text', 'text': '', 'annotations': []}
        add('response.content_part.added', item_id=item_id, output_index=index, content_index=0, part=part)
        for piece in _cut(text, pieces):
            add(
                'response.output_text.delta',
                item_id=item_id,
                output_index=index,
                content_index=0,
                delta=piece,
                logprobs=[],
            )
        add('response.output_text.done', item_id=item_id, output_index=index, content_index=0, text=text, logprobs=[])
    elif kind == 'function_call':
        add('response.output_item.added', output_index=index, item={**item, 'arguments': '', 'status': 'in_progress'})
        for piece in _cut(item['arguments'], pieces):
            add('response.function_call_arguments.delta', item_id=item_id, output_index=index, delta=piece)
        add(
            'response.function_call_arguments.done',
            item_id=item_id,
            output_index=index,
            arguments=item['arguments'],
            name=item['name'],
        )
    else:
        add('response.output_item.added', output_index=index, item={**item, 'summary': []})
        for summary_index, summary in enumerate(item['summary']):
            part: dict[str, Any] = {'type': 'summary_text', 'text': ''}
            add(
                'response.reasoning_summary_part.added',
                item_id=item_id,
                output_index=index,
                summary_index=summary_index,
                part=part,
            )
            for piece in _cut(summary['text'], pieces):
                add(
                    'response.reasoning_summary_text.delta',
                    item_id=item_id,
                    output_index=index,
                    summary_index=summary_index,
                    delta=piece,
                )
    add('response.output_item.done', output_index=index, item=item)
