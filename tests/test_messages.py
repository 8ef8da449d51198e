from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import MISSING, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import pydantic
import pytest
from dirty_equals import IsNow, IsStr
from inline_snapshot import snapshot
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import (
    AgentStreamEvent,
    AudioUrl,
    BaseToolCallPart,
    BaseToolReturnPart,
    BinaryContent,
    BinaryImage,
    CachePoint,
    DocumentUrl,
    FileUrl,
    FinalResultEvent,
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    ImageUrl,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    ModelResponsePart,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
    ToolReturn,
    ToolReturnPart,
    UserPromptPart,
    VideoUrl,
    tool_return_json,
)
from pydantic_ai.usage import RequestUsage
from pydantic_core import ErrorDetails

TS = datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)

ERRORS: list[ErrorDetails] = [
    {
        'type': 'missing',
        'loc': ('a', 0),
        'msg': 'Field required',
        'input': {'b': 1},
        'ctx': {'x': 1},
        'url': 'https://errors.pydantic.dev/x',
    },
    {'type': 'int_parsing', 'loc': ('b',), 'msg': 'Input should be a valid integer', 'input': 'x'},
]


def _field_layout(cls: type[Any]) -> list[str]:
    """Each field as `name` (positional) or `*name` (keyword-only), with `=default` when it has one."""
    layout: list[str] = []
    for f in fields(cls):
        if f.default is not MISSING:
            default = f'={f.default!r}'
        elif f.default_factory is not MISSING:
            default = '=<factory>'
        else:
            default = ''
        layout.append(f'{"*" if f.kw_only else ""}{f.name}{default}')
    return layout


def test_field_layout():
    classes = [
        ImageUrl,
        BinaryContent,
        CachePoint,
        SystemPromptPart,
        UserPromptPart,
        ToolReturnPart,
        RetryPromptPart,
        ToolReturn,
        ModelRequest,
        TextPart,
        ThinkingPart,
        ToolCallPart,
        ModelResponse,
        TextPartDelta,
        ThinkingPartDelta,
        ToolCallPartDelta,
        PartStartEvent,
        PartDeltaEvent,
        PartEndEvent,
        FinalResultEvent,
        FunctionToolCallEvent,
        FunctionToolResultEvent,
    ]
    assert {cls.__name__: _field_layout(cls) for cls in classes} == snapshot(
        {
            'ImageUrl': [
                'url',
                '*force_download=False',
                '*vendor_metadata=None',
                '*_media_type=None',
                '*_identifier=None',
                "*kind='image-url'",
            ],
            'BinaryContent': ['data', '*media_type', '*vendor_metadata=None', '*_identifier=None', "*kind='binary'"],
            'CachePoint': ["kind='cache-point'", "ttl='5m'"],
            'SystemPromptPart': ['content', '*timestamp=<factory>', '*dynamic_ref=None', "*part_kind='system-prompt'"],
            'UserPromptPart': ['content', '*timestamp=<factory>', "*part_kind='user-prompt'"],
            'ToolReturnPart': [
                'tool_name',
                'content',
                'tool_call_id=<factory>',
                '*metadata=None',
                '*timestamp=<factory>',
                "*part_kind='tool-return'",
            ],
            'RetryPromptPart': [
                'content',
                '*tool_name=None',
                '*tool_call_id=<factory>',
                '*timestamp=<factory>',
                "*part_kind='retry-prompt'",
            ],
            'ToolReturn': ['return_value', '*content=None', '*metadata=None', "*kind='tool-return'"],
            'ModelRequest': [
                'parts',
                '*timestamp=None',
                '*instructions=None',
                "*kind='request'",
                '*run_id=None',
                '*metadata=None',
            ],
            'TextPart': ['content', '*id=None', '*provider_name=None', '*provider_details=None', "*part_kind='text'"],
            'ThinkingPart': [
                'content',
                '*id=None',
                '*signature=None',
                '*provider_name=None',
                '*provider_details=None',
                "*part_kind='thinking'",
            ],
            'ToolCallPart': [
                'tool_name',
                'args=None',
                'tool_call_id=<factory>',
                '*id=None',
                '*provider_name=None',
                '*provider_details=None',
                "*part_kind='tool-call'",
            ],
            'ModelResponse': [
                'parts',
                '*usage=<factory>',
                '*model_name=None',
                '*timestamp=<factory>',
                "*kind='response'",
                '*provider_name=None',
                '*provider_url=None',
                '*provider_details=None',
                '*provider_response_id=None',
                '*finish_reason=None',
                '*run_id=None',
                '*metadata=None',
            ],
            'TextPartDelta': [
                'content_delta',
                '*provider_name=None',
                '*provider_details=None',
                "*part_delta_kind='text'",
            ],
            'ThinkingPartDelta': [
                '*content_delta=None',
                '*signature_delta=None',
                '*provider_name=None',
                '*provider_details=None',
                "*part_delta_kind='thinking'",
            ],
            'ToolCallPartDelta': [
                '*tool_name_delta=None',
                '*args_delta=None',
                '*tool_call_id=None',
                '*provider_name=None',
                '*provider_details=None',
                "*part_delta_kind='tool_call'",
            ],
            'PartStartEvent': ['*index', '*part', '*previous_part_kind=None', "*event_kind='part_start'"],
            'PartDeltaEvent': ['*index', '*delta', "*event_kind='part_delta'"],
            'PartEndEvent': ['*index', '*part', '*next_part_kind=None', "*event_kind='part_end'"],
            'FinalResultEvent': ['*tool_name', '*tool_call_id', "*event_kind='final_result'"],
            'FunctionToolCallEvent': ['part', "*event_kind='function_tool_call'"],
            'FunctionToolResultEvent': ['result', '*content=None', "*event_kind='function_tool_result'"],
        }
    )


def test_file_url_signatures():
    assert str(inspect.signature(ImageUrl)) == snapshot(
        "(url: 'str', *, media_type: 'str | None' = None, identifier: 'str | None' = None, force_download: 'bool' = False, vendor_metadata: 'dict[str, Any] | None' = None, kind: \"Literal['image-url']\" = 'image-url') -> None"
    )
    assert str(inspect.signature(BinaryContent)) == snapshot(
        "(data: 'bytes', *, media_type: 'AudioMediaType | ImageMediaType | DocumentMediaType | str', identifier: 'str | None' = None, vendor_metadata: 'dict[str, Any] | None' = None, kind: \"Literal['binary']\" = 'binary') -> None"
    )


def test_reprs_leave_out_defaults():
    values = [
        ImageUrl('https://x.com/a.png'),
        ImageUrl('https://x.com/b', media_type='image/webp', identifier='i', force_download=True),
        BinaryContent(b'abc', media_type='image/png'),
        BinaryContent(b'abc', media_type='audio/wav', identifier='id', vendor_metadata={'a': 1}),
        SystemPromptPart('be nice', timestamp=TS, dynamic_ref='dyn'),
        UserPromptPart(['hi', CachePoint()], timestamp=TS),
        ToolReturnPart('tool', {'a': 1}, 'c1', metadata={'m': 1}, timestamp=TS),
        RetryPromptPart('bad', tool_name='tool', tool_call_id='c2', timestamp=TS),
        ModelRequest([], instructions='ins', run_id='r'),
        TextPart('hello', id='i', provider_name='p'),
        ThinkingPart('think', signature='sig'),
        ToolCallPart('tool', None, 'c3'),
        ModelResponse([TextPart('a')], model_name='m', timestamp=TS, finish_reason='stop'),
        ToolReturn('v', content=['x'], metadata={'a': 1}),
    ]
    assert [repr(value) for value in values] == snapshot(
        [
            "ImageUrl(url='https://x.com/a.png')",
            "ImageUrl(url='https://x.com/b', force_download=True, _media_type='image/webp', _identifier='i')",
            "BinaryContent(data=b'abc', media_type='image/png')",
            "BinaryContent(data=b'abc', media_type='audio/wav', vendor_metadata={'a': 1}, _identifier='id')",
            "SystemPromptPart(content='be nice', timestamp=datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc), dynamic_ref='dyn')",
            "UserPromptPart(content=['hi', CachePoint(kind='cache-point', ttl='5m')], timestamp=datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc))",
            "ToolReturnPart(tool_name='tool', content={'a': 1}, tool_call_id='c1', metadata={'m': 1}, timestamp=datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc))",
            "RetryPromptPart(content='bad', tool_name='tool', tool_call_id='c2', timestamp=datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc))",
            "ModelRequest(parts=[], instructions='ins', run_id='r')",
            "TextPart(content='hello', id='i', provider_name='p')",
            "ThinkingPart(content='think', signature='sig')",
            "ToolCallPart(tool_name='tool', tool_call_id='c3')",
            "ModelResponse(parts=[TextPart(content='a')], usage=RequestUsage(), model_name='m', timestamp=datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc), finish_reason='stop')",
            "ToolReturn(return_value='v', content=['x'], metadata={'a': 1})",
        ]
    )
    assert [repr(x) for x in (CachePoint(), CachePoint(ttl='1h'))] == snapshot(
        ["CachePoint(kind='cache-point', ttl='5m')", "CachePoint(kind='cache-point', ttl='1h')"]
    )


def test_stream_reprs():
    assert [
        TextPartDelta('d'),
        ThinkingPartDelta(),
        ThinkingPartDelta(content_delta='c', signature_delta='s'),
        ToolCallPartDelta(tool_name_delta='t', args_delta='{', tool_call_id='c'),
        PartStartEvent(index=1, part=TextPart('a'), previous_part_kind='text'),
        PartDeltaEvent(index=0, delta=TextPartDelta('x')),
        PartEndEvent(index=0, part=TextPart('a'), next_part_kind='tool-call'),
        FinalResultEvent(tool_name=None, tool_call_id=None),
        FunctionToolCallEvent(ToolCallPart('t', None, 'c')),
        FunctionToolResultEvent(ToolReturnPart('t', 1, 'c', timestamp=TS), content='extra'),
    ] == snapshot(
        [
            TextPartDelta(content_delta='d'),
            ThinkingPartDelta(),
            ThinkingPartDelta(content_delta='c', signature_delta='s'),
            ToolCallPartDelta(tool_name_delta='t', args_delta='{', tool_call_id='c'),
            PartStartEvent(index=1, part=TextPart(content='a'), previous_part_kind='text'),
            PartDeltaEvent(index=0, delta=TextPartDelta(content_delta='x')),
            PartEndEvent(index=0, part=TextPart(content='a'), next_part_kind='tool-call'),
            FinalResultEvent(tool_name=None, tool_call_id=None),
            FunctionToolCallEvent(part=ToolCallPart(tool_name='t', tool_call_id='c')),
            FunctionToolResultEvent(
                result=ToolReturnPart(
                    tool_name='t',
                    content=1,
                    tool_call_id='c',
                    timestamp=datetime(2024, 1, 2, hour=3, minute=4, second=5, tzinfo=UTC),
                ),
                content='extra',
            ),
        ]
    )


def test_defaults_are_generated():
    part = ToolCallPart('tool')
    assert part.tool_call_id == IsStr(regex=r'pyd_ai_[0-9a-f]{32}')
    assert ToolReturnPart('tool', 1).timestamp == IsNow(tz=UTC)
    assert ModelResponse([]).timestamp == IsNow(tz=UTC)
    assert ModelResponse([]).usage == RequestUsage()


def test_equality():
    assert ImageUrl('https://x.com/a') == ImageUrl('https://x.com/a', media_type='image/png', identifier='x')
    assert ImageUrl('https://x.com/a') != AudioUrl('https://x.com/a')
    assert BinaryContent(b'a', media_type='image/png') == BinaryContent(b'a', media_type='image/png', identifier='z')
    assert BinaryImage(b'a', media_type='image/png') != BinaryContent(b'a', media_type='image/png')
    assert TextPart('a') == TextPart('a')
    assert TextPart('a') != TextPart('a', id='x')


def _full_history() -> list[ModelMessage]:
    return [
        ModelRequest(
            parts=[
                SystemPromptPart('be nice', timestamp=TS, dynamic_ref='dyn'),
                UserPromptPart(
                    [
                        'hello',
                        ImageUrl('https://x.com/a.png'),
                        ImageUrl(
                            'https://x.com/b',
                            media_type='image/jpeg',
                            identifier='img',
                            force_download=True,
                            vendor_metadata={'detail': 'low'},
                        ),
                        AudioUrl('https://x.com/a.mp3'),
                        VideoUrl('https://youtu.be/x'),
                        DocumentUrl('https://x.com/d', media_type='text/plain'),
                        BinaryContent(b'\x89PNG', media_type='image/png'),
                        BinaryContent(
                            b'%PDF', media_type='application/pdf', identifier='doc1', vendor_metadata={'a': 1}
                        ),
                        CachePoint(ttl='1h'),
                    ],
                    timestamp=TS,
                ),
            ],
            timestamp=TS,
            instructions='ins',
            run_id='run1',
            metadata={'m': 1},
        ),
        ModelResponse(
            parts=[
                TextPart('text', id='t1', provider_name='openai', provider_details={'x': 1}),
                ThinkingPart('thought', id='th', signature='sig', provider_name='anthropic'),
                ToolCallPart('tool_a', {'x': 1}, 'call1'),
                ToolCallPart('tool_b', '{"y": 2}', 'call2', id='i', provider_name='p', provider_details={'z': 3}),
                ToolCallPart('tool_c', None, 'call3'),
            ],
            usage=RequestUsage(input_tokens=10, output_tokens=5, cache_read_tokens=2, details={'reasoning_tokens': 3}),
            model_name='gpt',
            timestamp=TS,
            provider_name='openai',
            provider_url='https://api.example.com',
            provider_details={'finish': 'x'},
            provider_response_id='resp1',
            finish_reason='tool_call',
            run_id='run1',
            metadata={'r': 2},
        ),
        ModelRequest(
            parts=[
                ToolReturnPart('tool_a', {'nested': [1, {'b': 'c'}]}, 'call1', metadata={'meta': True}, timestamp=TS),
                ToolReturnPart(
                    'tool_b',
                    [ImageUrl('https://x.com/a.png'), {'file': BinaryContent(b'x', media_type='image/png')}],
                    'call2',
                    timestamp=TS,
                ),
                RetryPromptPart(ERRORS[:1], tool_name='tool_c', tool_call_id='call3', timestamp=TS),
                RetryPromptPart('try again', timestamp=TS, tool_call_id='c4'),
            ],
            timestamp=TS,
        ),
        ModelResponse(parts=[TextPart('done')], timestamp=TS),
    ]


def test_history_json_round_trip():
    history = _full_history()
    as_json = ModelMessagesTypeAdapter.dump_python(history, mode='json')
    assert as_json == snapshot(
        [
            {
                'parts': [
                    {
                        'content': 'be nice',
                        'timestamp': '2024-01-02T03:04:05Z',
                        'dynamic_ref': 'dyn',
                        'part_kind': 'system-prompt',
                    },
                    {
                        'content': [
                            'hello',
                            {
                                'url': 'https://x.com/a.png',
                                'force_download': False,
                                'vendor_metadata': None,
                                'kind': 'image-url',
                                'media_type': 'image/png',
                                'identifier': '7e49bc',
                            },
                            {
                                'url': 'https://x.com/b',
                                'force_download': True,
                                'vendor_metadata': {'detail': 'low'},
                                'kind': 'image-url',
                                'media_type': 'image/jpeg',
                                'identifier': 'img',
                            },
                            {
                                'url': 'https://x.com/a.mp3',
                                'force_download': False,
                                'vendor_metadata': None,
                                'kind': 'audio-url',
                                'media_type': 'audio/mpeg',
                                'identifier': '3acdc2',
                            },
                            {
                                'url': 'https://youtu.be/x',
                                'force_download': False,
                                'vendor_metadata': None,
                                'kind': 'video-url',
                                'media_type': 'video/mp4',
                                'identifier': 'e75c9d',
                            },
                            {
                                'url': 'https://x.com/d',
                                'force_download': False,
                                'vendor_metadata': None,
                                'kind': 'document-url',
                                'media_type': 'text/plain',
                                'identifier': '0d7327',
                            },
                            {
                                'data': 'iVBORw==',
                                'media_type': 'image/png',
                                'vendor_metadata': None,
                                'kind': 'binary',
                                'identifier': '4effda',
                            },
                            {
                                'data': 'JVBERg==',
                                'media_type': 'application/pdf',
                                'vendor_metadata': {'a': 1},
                                'kind': 'binary',
                                'identifier': 'doc1',
                            },
                            {'kind': 'cache-point', 'ttl': '1h'},
                        ],
                        'timestamp': '2024-01-02T03:04:05Z',
                        'part_kind': 'user-prompt',
                    },
                ],
                'timestamp': '2024-01-02T03:04:05Z',
                'instructions': 'ins',
                'kind': 'request',
                'run_id': 'run1',
                'metadata': {'m': 1},
            },
            {
                'parts': [
                    {
                        'content': 'text',
                        'id': 't1',
                        'provider_name': 'openai',
                        'provider_details': {'x': 1},
                        'part_kind': 'text',
                    },
                    {
                        'content': 'thought',
                        'id': 'th',
                        'signature': 'sig',
                        'provider_name': 'anthropic',
                        'provider_details': None,
                        'part_kind': 'thinking',
                    },
                    {
                        'tool_name': 'tool_a',
                        'args': {'x': 1},
                        'tool_call_id': 'call1',
                        'id': None,
                        'provider_name': None,
                        'provider_details': None,
                        'part_kind': 'tool-call',
                    },
                    {
                        'tool_name': 'tool_b',
                        'args': '{"y": 2}',
                        'tool_call_id': 'call2',
                        'id': 'i',
                        'provider_name': 'p',
                        'provider_details': {'z': 3},
                        'part_kind': 'tool-call',
                    },
                    {
                        'tool_name': 'tool_c',
                        'args': None,
                        'tool_call_id': 'call3',
                        'id': None,
                        'provider_name': None,
                        'provider_details': None,
                        'part_kind': 'tool-call',
                    },
                ],
                'usage': {
                    'input_tokens': 10,
                    'cache_write_tokens': 0,
                    'cache_read_tokens': 2,
                    'output_tokens': 5,
                    'input_audio_tokens': 0,
                    'cache_audio_read_tokens': 0,
                    'output_audio_tokens': 0,
                    'details': {'reasoning_tokens': 3},
                },
                'model_name': 'gpt',
                'timestamp': '2024-01-02T03:04:05Z',
                'kind': 'response',
                'provider_name': 'openai',
                'provider_url': 'https://api.example.com',
                'provider_details': {'finish': 'x'},
                'provider_response_id': 'resp1',
                'finish_reason': 'tool_call',
                'run_id': 'run1',
                'metadata': {'r': 2},
            },
            {
                'parts': [
                    {
                        'tool_name': 'tool_a',
                        'content': {'nested': [1, {'b': 'c'}]},
                        'tool_call_id': 'call1',
                        'metadata': {'meta': True},
                        'timestamp': '2024-01-02T03:04:05Z',
                        'part_kind': 'tool-return',
                    },
                    {
                        'tool_name': 'tool_b',
                        'content': [
                            {
                                'url': 'https://x.com/a.png',
                                'force_download': False,
                                'vendor_metadata': None,
                                'kind': 'image-url',
                                'media_type': 'image/png',
                                'identifier': '7e49bc',
                            },
                            {
                                'file': {
                                    'data': 'eA==',
                                    'media_type': 'image/png',
                                    'vendor_metadata': None,
                                    'kind': 'binary',
                                    'identifier': '11f6ad',
                                }
                            },
                        ],
                        'tool_call_id': 'call2',
                        'metadata': None,
                        'timestamp': '2024-01-02T03:04:05Z',
                        'part_kind': 'tool-return',
                    },
                    {
                        'content': [
                            {
                                'type': 'missing',
                                'loc': ['a', 0],
                                'msg': 'Field required',
                                'input': {'b': 1},
                                'ctx': {'x': 1},
                                'url': 'https://errors.pydantic.dev/x',
                            }
                        ],
                        'tool_name': 'tool_c',
                        'tool_call_id': 'call3',
                        'timestamp': '2024-01-02T03:04:05Z',
                        'part_kind': 'retry-prompt',
                    },
                    {
                        'content': 'try again',
                        'tool_name': None,
                        'tool_call_id': 'c4',
                        'timestamp': '2024-01-02T03:04:05Z',
                        'part_kind': 'retry-prompt',
                    },
                ],
                'timestamp': '2024-01-02T03:04:05Z',
                'instructions': None,
                'kind': 'request',
                'run_id': None,
                'metadata': None,
            },
            {
                'parts': [
                    {
                        'content': 'done',
                        'id': None,
                        'provider_name': None,
                        'provider_details': None,
                        'part_kind': 'text',
                    }
                ],
                'usage': {
                    'input_tokens': 0,
                    'cache_write_tokens': 0,
                    'cache_read_tokens': 0,
                    'output_tokens': 0,
                    'input_audio_tokens': 0,
                    'cache_audio_read_tokens': 0,
                    'output_audio_tokens': 0,
                    'details': {},
                },
                'model_name': None,
                'timestamp': '2024-01-02T03:04:05Z',
                'kind': 'response',
                'provider_name': None,
                'provider_url': None,
                'provider_details': None,
                'provider_response_id': None,
                'finish_reason': None,
                'run_id': None,
                'metadata': None,
            },
        ]
    )
    assert ModelMessagesTypeAdapter.dump_json(history) == pydantic.TypeAdapter(Any).dump_json(as_json)

    restored = ModelMessagesTypeAdapter.validate_json(ModelMessagesTypeAdapter.dump_json(history))
    assert restored == history
    # The inferred media type and identifier are stored, so they come back as given values.
    request = restored[0]
    assert isinstance(request, ModelRequest)
    prompt = request.parts[1]
    assert isinstance(prompt, UserPromptPart)
    assert not isinstance(prompt.content, str)
    assert repr(prompt.content[1]) == snapshot(
        "ImageUrl(url='https://x.com/a.png', _media_type='image/png', _identifier='7e49bc')"
    )
    assert ModelMessagesTypeAdapter.validate_python(ModelMessagesTypeAdapter.dump_python(history)) == history


def test_history_accepts_legacy_names():
    response = {
        'parts': [{'part_kind': 'text', 'content': 'x'}],
        'timestamp': '2024-01-01T00:00:00Z',
        'kind': 'response',
        'vendor_id': 'v1',
        'vendor_details': {'a': 1},
        'usage': {'request_tokens': 3, 'response_tokens': 4, 'total_tokens': 7, 'details': None, 'requests': 1},
    }
    assert ModelMessagesTypeAdapter.validate_python([response]) == snapshot(
        [
            ModelResponse(
                parts=[TextPart(content='x')],
                usage=RequestUsage(input_tokens=3, output_tokens=4),
                timestamp=datetime(2024, 1, 1, tzinfo=UTC),
                provider_details={'a': 1},
                provider_response_id='v1',
            )
        ]
    )


def test_history_validation_errors():
    with pytest.raises(pydantic.ValidationError, match="Input tag 'bogus' found using 'kind'"):
        ModelMessagesTypeAdapter.validate_python([{'kind': 'bogus', 'parts': []}])
    with pytest.raises(pydantic.ValidationError, match="Input tag 'text' found using 'part_kind'"):
        ModelMessagesTypeAdapter.validate_python(
            [{'kind': 'request', 'parts': [{'part_kind': 'text', 'content': 'x'}]}]
        )


def test_tool_return_content_validation():
    ta = pydantic.TypeAdapter(ToolReturnPart)
    image = {'url': 'https://x.com/a.png', 'kind': 'image-url'}
    binary = {'data': 'eA==', 'media_type': 'image/png', 'kind': 'binary'}

    def content_of(content: Any) -> object:
        part = ta.validate_json(pydantic_json({'tool_name': 't', 'content': content, 'tool_call_id': 'c'}))
        return part.content

    assert content_of({'a': [image, 1]}) == snapshot({'a': [ImageUrl(url='https://x.com/a.png'), 1]})
    assert content_of([binary, 'x', None]) == snapshot([BinaryContent(data=b'x', media_type='image/png'), 'x', None])
    assert content_of({'kind': 'cache-point'}) == snapshot({'kind': 'cache-point'})


def pydantic_json(value: Any) -> bytes:
    return pydantic.TypeAdapter(Any).dump_json(value)


@pytest.mark.parametrize(
    ('url', 'expected'),
    [
        ('https://x.com/a.png', ('image/png', 'png', '7e49bc')),
        ('https://x.com/a.JPEG', ('image/jpeg', 'jpeg', 'a1e0ad')),
        ('https://x.com/a.webp', ('image/webp', 'webp', '6051f0')),
        ('data:image/gif;base64,AAA', ('image/gif', 'gif', IsStr())),
    ],
)
def test_image_url(url: str, expected: tuple[str, str, str]):
    image = ImageUrl(url)
    assert (image.media_type, image.format, image.identifier) == expected


def test_file_url_media_types():
    assert [AudioUrl(f'https://x.com/a.{ext}').format for ext in ('mp3', 'wav', 'ogg', 'flac', 'aiff', 'aac')] == [
        'mp3',
        'wav',
        'oga',
        'flac',
        'aiff',
        'aac',
    ]
    assert [
        VideoUrl(f'https://x.com/a.{ext}').format for ext in ('mkv', 'mov', 'mp4', 'webm', 'flv', 'mpg', 'wmv')
    ] == [
        'mkv',
        'mov',
        'mp4',
        'webm',
        'flv',
        'mpeg',
        'wmv',
    ]
    assert VideoUrl('https://x.com/a', media_type='video/3gpp').format == 'three_gp'
    document_formats = [DocumentUrl(f'https://x.com/a.{ext}').format for ext in ('pdf', 'txt', 'csv', 'md', 'html')]
    assert document_formats == ['pdf', 'txt', 'csv', 'md', 'html']
    assert DocumentUrl('https://x.com/a.xlsx').media_type == snapshot(
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'
    )
    assert DocumentUrl('https://x.com/a.yaml').media_type == 'application/yaml'
    assert DocumentUrl('gs://bucket/a.pdf').media_type == 'application/pdf'
    assert DocumentUrl('https://x.com/a', identifier='abc').identifier == 'abc'


def test_file_url_errors():
    with pytest.raises(
        ValueError,
        match=r'^Could not infer media type from image URL: https://x.com/a. Explicitly provide a `media_type` instead.$',
    ):
        _ = ImageUrl('https://x.com/a').media_type
    with pytest.raises(
        ValueError, match=r'^Could not infer media type from audio URL: https://x\.com/a\.png\?x=1\. Explicitly'
    ):
        _ = AudioUrl('https://x.com/a.png?x=1').media_type
    with pytest.raises(ValueError, match='Could not infer media type from video URL'):
        _ = VideoUrl('https://x.com/v').media_type
    with pytest.raises(ValueError, match=r'^Could not infer media type from document URL'):
        _ = DocumentUrl('https://x.com/d').media_type
    with pytest.raises(KeyError, match="'audio/mpeg'"):
        _ = ImageUrl('https://x.com/a.mp3').format
    with pytest.raises(KeyError, match="'image/png'"):
        _ = AudioUrl('https://x.com/a.png').format
    with pytest.raises(KeyError, match="'image/png'"):
        _ = VideoUrl('https://x.com/a.png').format
    with pytest.raises(ValueError, match=r'^Unknown document media type: image/png$'):
        _ = DocumentUrl('https://x.com/a.png').format


def test_file_url_validates_arguments():
    with pytest.raises(pydantic.ValidationError, match='Input should be a valid string'):
        ImageUrl(123)  # pyright: ignore[reportArgumentType]
    with pytest.raises(pydantic.ValidationError, match="Input should be 'image-url'"):
        ImageUrl('u', kind='audio-url')  # pyright: ignore[reportArgumentType]
    with pytest.raises(TypeError, match="Can't instantiate abstract class FileUrl"):
        FileUrl('https://x.com/a.png')  # pyright: ignore[reportAbstractUsage]


def test_youtube_urls():
    youtube = ['https://www.youtube.com/watch?v=x', 'http://youtube.com/watch?v=x', 'https://youtu.be/abc']
    assert [VideoUrl(url).is_youtube for url in youtube] == [True, True, True]
    assert [VideoUrl(url).media_type for url in youtube] == ['video/mp4'] * 3
    assert not VideoUrl('https://m.youtube.com/watch?v=a').is_youtube
    assert not VideoUrl('https://youtube.com.example.com/a.mp4').is_youtube
    assert VideoUrl('https://youtu.be/a', media_type='video/webm').media_type == 'video/webm'


def test_binary_content_properties():
    content = BinaryContent(b'hello', media_type='image/png')
    assert (content.identifier, content.base64, content.data_uri, content.format) == snapshot(
        ('aaf4c6', 'aGVsbG8=', 'data:image/png;base64,aGVsbG8=', 'png')
    )
    flags = {
        media_type: [
            content.is_image,
            content.is_audio,
            content.is_video,
            content.is_document,
        ]
        for media_type in ('image/png', 'audio/wav', 'video/mp4', 'application/pdf', 'application/json')
        for content in [BinaryContent(b'', media_type=media_type)]
    }
    assert flags == snapshot(
        {
            'image/png': [True, False, False, False],
            'audio/wav': [False, True, False, False],
            'video/mp4': [False, False, True, False],
            'application/pdf': [False, False, False, True],
            'application/json': [False, False, False, False],
        }
    )
    assert BinaryContent(b'', media_type='video/3gpp').format == 'three_gp'
    with pytest.raises(ValueError, match=r'^Unknown media type: application/json$'):
        _ = BinaryContent(b'', media_type='application/json').format


def test_binary_content_validates_arguments():
    # Like in JSON, a string is taken as base64.
    assert BinaryContent('aGk=', media_type='text/plain').data == b'hi'  # pyright: ignore[reportArgumentType]
    with pytest.raises(pydantic.ValidationError, match='media_type\n  Field required'):
        BinaryContent(b'abc')  # pyright: ignore[reportCallIssue]
    with pytest.raises(pydantic.ValidationError, match="Input should be 'binary'"):
        BinaryContent(b'abc', media_type='text/plain', kind='x')  # pyright: ignore[reportArgumentType]


def test_binary_image():
    image = BinaryContent.narrow_type(BinaryContent(b'x', media_type='image/png', vendor_metadata={'a': 1}))
    assert repr(image) == snapshot(
        "BinaryImage(data=b'x', media_type='image/png', vendor_metadata={'a': 1}, _identifier='11f6ad')"
    )
    text = BinaryContent(b'x', media_type='text/plain')
    assert BinaryContent.narrow_type(text) is text
    with pytest.raises(
        pydantic.ValidationError, match='`BinaryImage` must have a media type that starts with "image/"'
    ):
        BinaryImage(b'x', media_type='text/plain')


def test_binary_content_from_data_uri():
    assert repr(BinaryContent.from_data_uri('data:image/png;base64,aGVsbG8=')) == snapshot(
        "BinaryImage(data=b'hello', media_type='image/png', _identifier='aaf4c6')"
    )
    assert BinaryContent.from_data_uri('data:text/plain;base64,aGVsbG8=') == snapshot(
        BinaryContent(data=b'hello', media_type='text/plain')
    )
    with pytest.raises(ValueError, match=r'^Data URI must start with "data:"$'):
        BinaryContent.from_data_uri('nope')


def test_binary_content_from_path(tmp_path: Path):
    for name in ('a.png', 'a.txt', 'a.unknownext'):
        (tmp_path / name).write_bytes(b'data')
    assert [repr(BinaryContent.from_path(tmp_path / name)) for name in ('a.png', 'a.txt', 'a.unknownext')] == snapshot(
        [
            "BinaryImage(data=b'data', media_type='image/png', _identifier='a17c9a')",
            "BinaryContent(data=b'data', media_type='text/plain')",
            "BinaryContent(data=b'data', media_type='application/octet-stream')",
        ]
    )
    with pytest.raises(FileNotFoundError, match=r'^File not found: .*missing.png$'):
        BinaryContent.from_path(tmp_path / 'missing.png')


@pytest.mark.parametrize('tool_name', [None, 'my_tool'])
def test_retry_prompt_text(tool_name: str | None):
    part = RetryPromptPart('fix it', tool_name=tool_name)
    expected = 'fix it' if tool_name else 'Validation feedback:\nfix it'
    assert part.model_response() == f'{expected}\n\nFix the errors and try again.'


def test_retry_prompt_errors():
    assert RetryPromptPart(ERRORS, tool_name='t').model_response() == snapshot("""\
2 validation errors:
```json
[
  {
    "type": "missing",
    "loc": [
      "a",
      0
    ],
    "msg": "Field required",
    "input": {
      "b": 1
    },
    "url": "https://errors.pydantic.dev/x"
  },
  {
    "type": "int_parsing",
    "loc": [
      "b"
    ],
    "msg": "Input should be a valid integer",
    "input": "x"
  }
]
```

Fix the errors and try again.\
""")
    assert RetryPromptPart(ERRORS[1:]).model_response() == snapshot("""\
1 validation error:
```json
[
  {
    "type": "int_parsing",
    "loc": [
      "b"
    ],
    "msg": "Input should be a valid integer",
    "input": "x"
  }
]
```

Fix the errors and try again.\
""")


@pytest.mark.parametrize(
    ('content', 'as_str', 'as_object'),
    [
        ('s', 's', {'return_value': 's'}),
        (None, 'null', {'return_value': None}),
        ({'a': 1}, '{"a":1}', {'a': 1}),
        ([1, 'a'], '[1,"a"]', {'return_value': [1, 'a']}),
        (b'ab', '"YWI="', {'return_value': 'YWI='}),
        (TS, '"2024-01-02T03:04:05Z"', {'return_value': '2024-01-02T03:04:05Z'}),
        ({1: 2}, '{"1":2}', {'1': 2}),
    ],
)
def test_tool_return_model_response(content: Any, as_str: str, as_object: dict[str, Any]):
    part = ToolReturnPart('t', content, 'c')
    assert (part.model_response_str(), part.model_response_object()) == (as_str, as_object)
    assert tool_return_json(content) == (as_str if not isinstance(content, str) else '"s"')


def test_tool_return_model_response_of_files():
    part = ToolReturnPart('t', ImageUrl('https://x/a.png'), 'c')
    assert part.model_response_str() == snapshot(
        '{"url":"https://x/a.png","force_download":false,"vendor_metadata":null,"kind":"image-url","media_type":"image/png","identifier":"50173a"}'
    )
    assert ToolReturnPart('t', pydantic_model(), 'c').model_response_object() == {'b': 'x'}


def pydantic_model() -> pydantic.BaseModel:
    class Model(pydantic.BaseModel):
        b: str

    return Model(b='x')


def test_tool_return_has_content():
    assert not ToolReturnPart('t', None).has_content()
    assert ToolReturnPart('t', '').has_content()
    assert isinstance(ToolReturnPart('t', 1), BaseToolReturnPart)


@pytest.mark.parametrize(
    ('args', 'as_dict', 'as_json', 'has_content'),
    [
        (None, {}, '{}', False),
        ('', {}, '{}', False),
        ('{}', {}, '{}', True),
        ('{"a": 1}', {'a': 1}, '{"a": 1}', True),
        ({'a': 1}, {'a': 1}, '{"a":1}', True),
        ({}, {}, '{}', False),
        ({'a': None, 'b': ''}, {'a': None, 'b': ''}, '{"a":null,"b":""}', False),
    ],
)
def test_tool_call_args(args: str | dict[str, Any] | None, as_dict: dict[str, Any], as_json: str, has_content: bool):
    part = ToolCallPart('t', args, 'c')
    assert (part.args_as_dict(), part.args_as_json_str(), part.has_content()) == (as_dict, as_json, has_content)
    assert isinstance(part, BaseToolCallPart)


def test_tool_call_args_errors():
    with pytest.raises(AssertionError, match='args should be a dict'):
        ToolCallPart('t', '[1]').args_as_dict()
    with pytest.raises(ValueError, match='expected ident at line 1 column 2'):
        ToolCallPart('t', 'not json').args_as_dict()


def test_text_and_thinking_has_content():
    assert [TextPart('').has_content(), TextPart('x').has_content()] == [False, True]
    assert [ThinkingPart('').has_content(), ThinkingPart('x').has_content()] == [False, True]


@pytest.mark.parametrize(
    ('parts', 'text', 'thinking'),
    [
        ([], None, None),
        ([TextPart('a'), TextPart('b')], 'ab', None),
        ([TextPart('a'), ThinkingPart('x'), TextPart('b'), TextPart('c')], 'a\n\nbc', 'x'),
        ([TextPart(''), ToolCallPart('t', None, 'c'), TextPart('')], '\n\n', None),
        ([ThinkingPart('a'), TextPart('q'), ThinkingPart(''), ThinkingPart('b')], 'q', 'a\n\n\n\nb'),
    ],
)
def test_response_text_and_thinking(parts: list[ModelResponsePart], text: str | None, thinking: str | None):
    response = ModelResponse(parts, timestamp=TS)
    assert (response.text, response.thinking) == (text, thinking)


def test_response_tool_calls():
    calls = [ToolCallPart('x', None, 'c1'), ToolCallPart('y', {}, 'c2')]
    response = ModelResponse([TextPart('a'), calls[0], ThinkingPart('t'), calls[1]])
    assert response.tool_calls == calls


def test_response_deprecated_properties():
    response = ModelResponse([], provider_response_id='rid', provider_details={'d': 1})
    with pytest.warns(DeprecationWarning, match='`vendor_id` is deprecated, use `provider_response_id` instead'):
        assert response.vendor_id == 'rid'  # pyright: ignore[reportDeprecated] -- testing the deprecated name
    with pytest.warns(DeprecationWarning, match='`vendor_details` is deprecated, use `provider_details` instead'):
        assert response.vendor_details == {'d': 1}  # pyright: ignore[reportDeprecated] -- testing the deprecated name
    with pytest.warns(DeprecationWarning, match='`provider_request_id` is deprecated, use `provider_response_id`'):
        assert response.provider_request_id == 'rid'  # pyright: ignore[reportDeprecated] -- testing the deprecated name


def test_user_text_prompt():
    assert ModelRequest.user_text_prompt('hi', instructions='ins') == snapshot(
        ModelRequest(
            parts=[UserPromptPart(content='hi', timestamp=IsNow(tz=UTC))],  # pyright: ignore[reportArgumentType] -- dirty-equals matcher
            instructions='ins',
        )
    )


def test_text_part_delta():
    part = TextPart('ab', id='i', provider_name='p1', provider_details={'a': 1, 'b': 2})
    assert TextPartDelta('c').apply(part) == TextPart(
        'abc', id='i', provider_name='p1', provider_details={'a': 1, 'b': 2}
    )
    assert TextPartDelta('c', provider_name='p2', provider_details={'b': 3}).apply(part) == snapshot(
        TextPart(content='abc', id='i', provider_name='p2', provider_details={'a': 1, 'b': 3})
    )
    # Empty details merge to `None`, and an empty provider name does not replace the part's.
    assert TextPartDelta('c', provider_name='', provider_details={}).apply(
        TextPart('x', provider_name='n')
    ) == snapshot(TextPart(content='xc', provider_name='n'))
    assert part == TextPart('ab', id='i', provider_name='p1', provider_details={'a': 1, 'b': 2})
    with pytest.raises(ValueError, match=r'^Cannot apply TextPartDeltas to non-TextParts$'):
        TextPartDelta('c').apply(ThinkingPart('x'))


def test_thinking_part_delta_on_part():
    part = ThinkingPart('ab', id='i', signature='s1', provider_name='p1', provider_details={'a': 1})
    assert ThinkingPartDelta().apply(part) == part
    assert ThinkingPartDelta(content_delta='c', signature_delta='s2', provider_details={'b': 2}).apply(
        part
    ) == snapshot(
        ThinkingPart(content='abc', id='i', signature='s2', provider_name='p1', provider_details={'a': 1, 'b': 2})
    )
    assert ThinkingPartDelta(signature_delta='', provider_name='').apply(part) == snapshot(
        ThinkingPart(content='ab', id='i', signature='', provider_name='', provider_details={'a': 1})
    )
    assert ThinkingPartDelta(content_delta='c').apply(ThinkingPart('x', provider_details={})) == ThinkingPart('xc')


def test_thinking_part_delta_on_delta():
    earlier = ThinkingPartDelta(content_delta='q', signature_delta='s0', provider_name='p0', provider_details={'z': 0})
    assert ThinkingPartDelta(content_delta='c', provider_details={'b': 2}).apply(earlier) == snapshot(
        ThinkingPartDelta(
            content_delta='qc', signature_delta='s0', provider_name='p0', provider_details={'z': 0, 'b': 2}
        )
    )
    assert ThinkingPartDelta(signature_delta='s2').apply(ThinkingPartDelta(content_delta='c')) == snapshot(
        ThinkingPartDelta(content_delta='c', signature_delta='s2')
    )
    assert ThinkingPartDelta(content_delta='').apply(ThinkingPartDelta()) == ThinkingPartDelta(content_delta='')
    assert ThinkingPartDelta(content_delta='c', provider_details={'b': 2}).apply(ThinkingPartDelta()) == snapshot(
        ThinkingPartDelta(content_delta='c', provider_details={'b': 2})
    )
    assert ThinkingPartDelta(content_delta='c').apply(ThinkingPartDelta(provider_details={})) == snapshot(
        ThinkingPartDelta(content_delta='c', provider_details={})
    )
    with pytest.raises(ValueError, match=r'^Cannot apply ThinkingPartDelta with no content or signature$'):
        ThinkingPartDelta(provider_name='q').apply(earlier)
    with pytest.raises(
        ValueError,
        match=r'^Cannot apply ThinkingPartDeltas to non-ThinkingParts or non-ThinkingPartDeltas '
        r"\(part=TextPart\(content='x'\), self=ThinkingPartDelta\(content_delta='c'\)\)$",
    ):
        ThinkingPartDelta(content_delta='c').apply(TextPart('x'))


def _wrap(key: str) -> Callable[[dict[str, Any] | None], dict[str, Any]]:
    return lambda details: {key: details}


def test_thinking_part_delta_with_details_function():
    part = ThinkingPart('p', provider_details={'h': 1})
    assert ThinkingPartDelta(content_delta='c', provider_details=_wrap('w')).apply(part) == snapshot(
        ThinkingPart(content='pc', provider_details={'h': 1, 'w': {'h': 1}})
    )
    assert ThinkingPartDelta(provider_details=lambda _: None).apply(part) == part

    both = ThinkingPartDelta(content_delta='c', provider_details=_wrap('g')).apply(
        ThinkingPartDelta(content_delta='x', provider_details=_wrap('f'))
    )
    assert isinstance(both, ThinkingPartDelta)
    assert both.apply(part) == snapshot(ThinkingPart(content='pxc', provider_details={'h': 1, 'g': {'f': {'h': 1}}}))

    dict_after_function = ThinkingPartDelta(content_delta='c', provider_details={'r': 1}).apply(
        ThinkingPartDelta(content_delta='x', provider_details=_wrap('f'))
    )
    assert isinstance(dict_after_function, ThinkingPartDelta)
    assert dict_after_function.apply(ThinkingPart('p')) == snapshot(
        ThinkingPart(content='pxc', provider_details={'f': None, 'r': 1})
    )

    function = _wrap('only')
    function_after_dict = ThinkingPartDelta(content_delta='c', provider_details=function).apply(
        ThinkingPartDelta(content_delta='x', provider_details={'q': 1})
    )
    assert isinstance(function_after_dict, ThinkingPartDelta)
    assert function_after_dict.provider_details is function
    function_after_nothing = ThinkingPartDelta(content_delta='c').apply(
        ThinkingPartDelta(content_delta='x', provider_details=function)
    )
    assert isinstance(function_after_nothing, ThinkingPartDelta)
    assert function_after_nothing.provider_details is function


def test_tool_call_part_delta_as_part():
    assert ToolCallPartDelta(args_delta='{}', tool_call_id='c').as_part() is None
    assert ToolCallPartDelta(tool_name_delta='t', tool_call_id='').as_part() == ToolCallPart(
        't',
        tool_call_id=IsStr(regex=r'pyd_ai_\w+'),  # pyright: ignore[reportArgumentType] -- dirty-equals matcher
    )
    delta = ToolCallPartDelta(tool_name_delta='t', args_delta='{"a"', tool_call_id='c', provider_details={'x': 1})
    assert delta.as_part() == snapshot(
        ToolCallPart(tool_name='t', args='{"a"', tool_call_id='c', provider_details={'x': 1})
    )


def test_tool_call_part_delta_on_part():
    part = ToolCallPart('tool', '{"a":', 'c1', id='i', provider_name='p1', provider_details={'k': 1, 'q': 9})
    assert ToolCallPartDelta(tool_name_delta='_x', args_delta=' 1}', tool_call_id='c2').apply(part) == snapshot(
        ToolCallPart(
            tool_name='tool_x',
            args='{"a": 1}',
            tool_call_id='c2',
            id='i',
            provider_name='p1',
            provider_details={'k': 1, 'q': 9},
        )
    )
    assert ToolCallPartDelta(tool_call_id='', provider_name='', provider_details={}).apply(part) == part
    assert ToolCallPartDelta(provider_name='p2', provider_details={'k': 2}).apply(part) == snapshot(
        ToolCallPart(
            tool_name='tool',
            args='{"a":',
            tool_call_id='c1',
            id='i',
            provider_name='p2',
            provider_details={'k': 2, 'q': 9},
        )
    )
    assert ToolCallPartDelta(args_delta={'b': 2}).apply(ToolCallPart('t', {'a': 1}, 'c')) == snapshot(
        ToolCallPart(tool_name='t', args={'a': 1, 'b': 2}, tool_call_id='c')
    )
    assert ToolCallPartDelta(args_delta={}).apply(ToolCallPart('t', None, 'c')) == ToolCallPart('t', {}, 'c')
    assert ToolCallPartDelta(args_delta='').apply(ToolCallPart('t', None, 'c')) == ToolCallPart('t', '', 'c')
    assert ToolCallPartDelta().apply(ToolCallPart('t', None, 'c', provider_details={})) == snapshot(
        ToolCallPart(tool_name='t', tool_call_id='c', provider_details={})
    )


def test_tool_call_part_delta_on_delta():
    assert ToolCallPartDelta(args_delta=': 1}').apply(ToolCallPartDelta(args_delta='{"a"')) == snapshot(
        ToolCallPartDelta(args_delta='{"a": 1}')
    )
    assert ToolCallPartDelta(args_delta={'b': 2}).apply(ToolCallPartDelta(args_delta={'a': 1})) == snapshot(
        ToolCallPartDelta(args_delta={'a': 1, 'b': 2})
    )
    earlier = ToolCallPartDelta(tool_call_id='c0', provider_name='p0', provider_details={'z': 0})
    assert ToolCallPartDelta(tool_call_id='c2', provider_name='p2', provider_details={'y': 1}).apply(
        earlier
    ) == snapshot(ToolCallPartDelta(tool_call_id='c2', provider_name='p2', provider_details={'z': 0, 'y': 1}))
    # An empty name delta does not make the tool name known.
    assert ToolCallPartDelta(tool_name_delta='', args_delta='x').apply(ToolCallPartDelta()) == snapshot(
        ToolCallPartDelta(args_delta='x')
    )
    # Once the tool name is known, merging deltas gives a part.
    assert ToolCallPartDelta(tool_name_delta='ol', tool_call_id='c3').apply(
        ToolCallPartDelta(tool_name_delta='to', args_delta='{}')
    ) == snapshot(ToolCallPart(tool_name='tool', args='{}', tool_call_id='c3'))
    assert ToolCallPartDelta(args_delta='x').apply(ToolCallPartDelta(tool_name_delta='t')) == ToolCallPart(
        't',
        'x',
        IsStr(),  # pyright: ignore[reportArgumentType] -- dirty-equals matcher
    )


def test_tool_call_part_delta_errors():
    with pytest.raises(
        ValueError,
        match=r'^Can only apply ToolCallPartDeltas to ToolCallParts, BuiltinToolCallParts, or ToolCallPartDeltas, '
        r"not TextPart\(content='x'\)$",
    ):
        ToolCallPartDelta().apply(TextPart('x'))
    with pytest.raises(UnexpectedModelBehavior) as json_on_dict:
        ToolCallPartDelta(args_delta='x').apply(ToolCallPart('t', {'a': 1}, 'c'))
    assert str(json_on_dict.value) == snapshot(
        "Cannot apply JSON deltas to non-JSON tool arguments (part=ToolCallPart(tool_name='t', args={'a': 1}, tool_call_id='c'), self=ToolCallPartDelta(args_delta='x'))"
    )
    with pytest.raises(UnexpectedModelBehavior) as dict_on_json:
        ToolCallPartDelta(args_delta={'a': 1}).apply(ToolCallPart('t', '', 'c'))
    assert str(dict_on_json.value) == snapshot(
        "Cannot apply dict deltas to non-dict tool arguments (part=ToolCallPart(tool_name='t', args='', tool_call_id='c'), self=ToolCallPartDelta(args_delta={'a': 1}))"
    )
    with pytest.raises(UnexpectedModelBehavior, match=r'^Cannot apply JSON deltas to non-JSON tool arguments \(delta='):
        ToolCallPartDelta(args_delta='x').apply(ToolCallPartDelta(args_delta={'a': 1}))
    with pytest.raises(UnexpectedModelBehavior, match=r'^Cannot apply dict deltas to non-dict tool arguments \(delta='):
        ToolCallPartDelta(args_delta={'a': 1}).apply(ToolCallPartDelta(args_delta='x'))


def test_tool_event_ids():
    call = FunctionToolCallEvent(ToolCallPart('t', None, 'call-1'))
    assert call.tool_call_id == 'call-1'
    with pytest.warns(DeprecationWarning, match=r'^`call_id` is deprecated, use `tool_call_id` instead\.$'):
        assert call.call_id == 'call-1'  # pyright: ignore[reportDeprecated] -- testing the deprecated name
    assert FunctionToolResultEvent(RetryPromptPart('x', tool_call_id='call-2')).tool_call_id == 'call-2'


def test_events_json_round_trip():
    # pyright does not take a discriminated union of discriminated unions as a type form.
    ta = cast(
        'pydantic.TypeAdapter[AgentStreamEvent]',
        pydantic.TypeAdapter(AgentStreamEvent),  # pyright: ignore[reportArgumentType]
    )
    events: list[AgentStreamEvent] = [
        PartStartEvent(index=1, part=ToolCallPart('t', {'a': 1}, 'c'), previous_part_kind='text'),
        PartDeltaEvent(index=0, delta=ThinkingPartDelta(content_delta='x', signature_delta='s')),
        PartDeltaEvent(index=0, delta=ToolCallPartDelta(args_delta='{}', tool_call_id='c')),
        PartEndEvent(index=0, part=ThinkingPart('t'), next_part_kind='tool-call'),
        FinalResultEvent(tool_name=None, tool_call_id=None),
        FunctionToolCallEvent(ToolCallPart('t', None, 'c')),
        FunctionToolResultEvent(ToolReturnPart('t', 1, 'c', timestamp=TS), content=['x', ImageUrl('https://a/b.png')]),
        FunctionToolResultEvent(RetryPromptPart('bad', tool_name='t', tool_call_id='c', timestamp=TS)),
    ]
    assert [ta.dump_python(event, mode='json') for event in events] == snapshot(
        [
            {
                'index': 1,
                'part': {
                    'tool_name': 't',
                    'args': {'a': 1},
                    'tool_call_id': 'c',
                    'id': None,
                    'provider_name': None,
                    'provider_details': None,
                    'part_kind': 'tool-call',
                },
                'previous_part_kind': 'text',
                'event_kind': 'part_start',
            },
            {
                'index': 0,
                'delta': {
                    'content_delta': 'x',
                    'signature_delta': 's',
                    'provider_name': None,
                    'provider_details': None,
                    'part_delta_kind': 'thinking',
                },
                'event_kind': 'part_delta',
            },
            {
                'index': 0,
                'delta': {
                    'tool_name_delta': None,
                    'args_delta': '{}',
                    'tool_call_id': 'c',
                    'provider_name': None,
                    'provider_details': None,
                    'part_delta_kind': 'tool_call',
                },
                'event_kind': 'part_delta',
            },
            {
                'index': 0,
                'part': {
                    'content': 't',
                    'id': None,
                    'signature': None,
                    'provider_name': None,
                    'provider_details': None,
                    'part_kind': 'thinking',
                },
                'next_part_kind': 'tool-call',
                'event_kind': 'part_end',
            },
            {'tool_name': None, 'tool_call_id': None, 'event_kind': 'final_result'},
            {
                'part': {
                    'tool_name': 't',
                    'args': None,
                    'tool_call_id': 'c',
                    'id': None,
                    'provider_name': None,
                    'provider_details': None,
                    'part_kind': 'tool-call',
                },
                'event_kind': 'function_tool_call',
            },
            {
                'result': {
                    'tool_name': 't',
                    'content': 1,
                    'tool_call_id': 'c',
                    'metadata': None,
                    'timestamp': '2024-01-02T03:04:05Z',
                    'part_kind': 'tool-return',
                },
                'content': [
                    'x',
                    {
                        'url': 'https://a/b.png',
                        'force_download': False,
                        'vendor_metadata': None,
                        'kind': 'image-url',
                        'media_type': 'image/png',
                        'identifier': 'ff01c9',
                    },
                ],
                'event_kind': 'function_tool_result',
            },
            {
                'result': {
                    'content': 'bad',
                    'tool_name': 't',
                    'tool_call_id': 'c',
                    'timestamp': '2024-01-02T03:04:05Z',
                    'part_kind': 'retry-prompt',
                },
                'content': None,
                'event_kind': 'function_tool_result',
            },
        ]
    )
    assert [ta.validate_json(ta.dump_json(event)) for event in events] == events
