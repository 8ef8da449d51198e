"""How messages are rendered for OpenTelemetry: GenAI message parts (versions 2 and 3) and GenAI events (version 1).

The message classes' `otel_message_parts()`, `otel_event()` and `otel_events()` methods call these functions.
OpenTelemetry itself is imported only when an event record is made, so that importing `pydantic_ai` never loads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

from pydantic import ConfigDict, TypeAdapter

if TYPE_CHECKING:
    from opentelemetry._logs import LogRecord

    from .messages import BaseToolReturnPart, ModelRequestPart, ModelResponse, UserContent
    from .models.instrumented import InstrumentationSettings

__all__ = ('MessagePart', 'part_event', 'part_message_parts', 'response_events', 'response_message_parts')

MessagePart: TypeAlias = dict[str, Any]
"""One part of a GenAI semantic-conventions message: `{'type': 'text', 'content': ...}`, a tool call, and so on."""

_any_adapter: TypeAdapter[Any] = TypeAdapter(Any, config=ConfigDict(defer_build=True))


def _json_value(value: Any) -> Any:
    """`value` as plain JSON-able data (dataclasses and models become dicts, bytes become base64, ...)."""
    return _any_adapter.dump_python(value, mode='json')


def _log_record(event_name: str, body: dict[str, Any]) -> LogRecord:
    from opentelemetry._logs import LogRecord

    return LogRecord(attributes={'event.name': event_name}, body=body)


# Request parts.


def part_message_parts(
    part: ModelRequestPart | BaseToolReturnPart, settings: InstrumentationSettings
) -> list[MessagePart]:
    """The GenAI message parts of a request part."""
    from .messages import BaseToolReturnPart, RetryPromptPart, SystemPromptPart, UserPromptPart

    content = settings.include_content
    if isinstance(part, SystemPromptPart):
        return [{'type': 'text', **({'content': part.content} if content else {})}]
    if isinstance(part, UserPromptPart):
        items = [part.content] if isinstance(part.content, str) else part.content
        return [_user_item_part(item, settings) for item in items]
    if isinstance(part, BaseToolReturnPart):
        result = {'result': _json_value(part.content)} if content else {}
        return [{'type': 'tool_call_response', 'id': part.tool_call_id, 'name': part.tool_name, **result}]
    assert isinstance(part, RetryPromptPart)
    if part.tool_name is None:
        # Validation feedback is the agent's own text, not the user's, so it is kept whatever `include_content` says.
        return [{'type': 'text', 'content': part.model_response()}]
    result = {'result': part.model_response()} if content else {}
    return [{'type': 'tool_call_response', 'id': part.tool_call_id, 'name': part.tool_name, **result}]


def _user_item_part(item: UserContent, settings: InstrumentationSettings) -> MessagePart:
    from .messages import BinaryContent, CachePoint

    if isinstance(item, str):
        return {'type': 'text', **({'content': item} if settings.include_content else {})}
    if isinstance(item, BinaryContent):
        data = {'content': item.base64} if settings.include_content and settings.include_binary_content else {}
        return {'type': 'binary', 'media_type': item.media_type, **data}
    if isinstance(item, CachePoint):
        return {'type': item.kind}
    return {'type': item.kind, **({'url': item.url} if settings.include_content else {})}


def part_event(part: ModelRequestPart | BaseToolReturnPart, settings: InstrumentationSettings) -> LogRecord:
    """The GenAI event (version 1) of a request part."""
    from .messages import BaseToolReturnPart, RetryPromptPart, SystemPromptPart, UserPromptPart

    content = settings.include_content
    if isinstance(part, SystemPromptPart):
        return _log_record(
            'gen_ai.system.message', {**({'content': part.content} if content else {}), 'role': 'system'}
        )
    if isinstance(part, UserPromptPart):
        return _log_record('gen_ai.user.message', {'content': _user_event_content(part, settings), 'role': 'user'})
    if isinstance(part, BaseToolReturnPart):
        body = {'role': 'tool', 'id': part.tool_call_id, 'name': part.tool_name}
        return _log_record(
            'gen_ai.tool.message', {**body, **({'content': _json_value(part.content)} if content else {})}
        )
    assert isinstance(part, RetryPromptPart)
    if part.tool_name is None:
        return _log_record('gen_ai.user.message', {'content': part.model_response(), 'role': 'user'})
    body = {'role': 'tool', 'id': part.tool_call_id, 'name': part.tool_name}
    return _log_record('gen_ai.tool.message', {**body, **({'content': part.model_response()} if content else {})})


def _user_event_content(part: Any, settings: InstrumentationSettings) -> Any:
    from .messages import BinaryContent, CachePoint

    if isinstance(part.content, str):
        return part.content if settings.include_content else {'kind': 'text'}
    content: list[Any] = []
    for item in part.content:
        if isinstance(item, str):
            content.append(item if settings.include_content else {'kind': 'text'})
        elif isinstance(item, BinaryContent):
            data = (
                {'binary_content': item.base64} if settings.include_content and settings.include_binary_content else {}
            )
            content.append({'kind': 'binary', 'media_type': item.media_type, **data})
        elif isinstance(item, CachePoint):
            content.append({'kind': item.kind})
        else:
            content.append({'kind': item.kind, **({'url': item.url} if settings.include_content else {})})
    return content


# Responses.


def response_message_parts(response: ModelResponse, settings: InstrumentationSettings) -> list[MessagePart]:
    """The GenAI message parts of a model response (builtin tool calls and returns marked `builtin`)."""
    from .messages import BuiltinToolCallPart, BuiltinToolReturnPart, FilePart, TextPart, ThinkingPart

    content = settings.include_content
    parts: list[MessagePart] = []
    for part in response.parts:
        if isinstance(part, TextPart | ThinkingPart):
            kind = 'text' if isinstance(part, TextPart) else 'thinking'
            parts.append({'type': kind, **({'content': part.content} if content else {})})
        elif isinstance(part, FilePart):
            parts.append(_user_item_part(part.content, settings))
        elif isinstance(part, BuiltinToolReturnPart):
            result = {'result': _json_value(part.content)} if content else {}
            parts.append(
                {
                    'type': 'tool_call_response',
                    'id': part.tool_call_id,
                    'name': part.tool_name,
                    'builtin': True,
                    **result,
                }
            )
        else:
            arguments = {'arguments': part.args} if content else {}
            builtin = {'builtin': True} if isinstance(part, BuiltinToolCallPart) else {}
            parts.append({'type': 'tool_call', 'id': part.tool_call_id, 'name': part.tool_name, **builtin, **arguments})
    return parts


def response_events(response: ModelResponse, settings: InstrumentationSettings) -> list[LogRecord]:
    """The GenAI events (version 1) of a model response: one assistant message."""
    from .messages import FilePart, TextPart, ThinkingPart, ToolCallPart

    include = settings.include_content
    body: dict[str, Any] = {'role': 'assistant'}
    content: list[dict[str, Any]] = []
    tool_calls: list[dict[str, Any]] = []
    for part in response.parts:
        if isinstance(part, TextPart | ThinkingPart):
            kind = 'text' if isinstance(part, TextPart) else 'thinking'
            content.append({'kind': kind, **({'text': part.content} if include else {})})
        elif isinstance(part, FilePart):
            file = part.content
            data = {'binary_content': file.base64} if include and settings.include_binary_content else {}
            content.append({'kind': 'binary', 'media_type': file.media_type, **data})
        elif isinstance(part, ToolCallPart):
            function = {'name': part.tool_name, **({'arguments': part.args} if include else {})}
            tool_calls.append({'id': part.tool_call_id, 'type': 'function', 'function': function})
        # Builtin tool calls and returns ran at the provider: the GenAI events have no place for them.
    if content:
        # A lone text is given as the plain string, as the GenAI conventions show assistant messages.
        lone_text = len(content) == 1 and content[0]['kind'] == 'text' and include
        body['content'] = content[0]['text'] if lone_text else content
    if tool_calls:
        body['tool_calls'] = tool_calls
    return [_log_record('gen_ai.assistant.message', body)]
