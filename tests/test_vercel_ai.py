"""The Vercel AI SDK v6 adapter: request parsing, chunk streams, load/dump, and the tool-approval protocol."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from dirty_equals import HasAttributes, IsInstance, IsStr
from inline_snapshot import snapshot
from pydantic_ai import Agent
from pydantic_ai.messages import (
    BinaryContent,
    DocumentUrl,
    ModelMessage,
    ModelRequest,
    ToolReturnPart,
)
from pydantic_ai.models.function import (
    AgentInfo,
    DeltaThinkingCalls,
    DeltaThinkingPart,
    DeltaToolCall,
    DeltaToolCalls,
    FunctionModel,
)
from pydantic_ai.run import AgentRunResult
from pydantic_ai.tools import DeferredToolRequests, ToolDefinition
from pydantic_ai.toolsets import ExternalToolset
from pydantic_ai.ui import NativeEvent, UIEventStream
from pydantic_ai.ui.vercel_ai import VercelAIAdapter
from pydantic_ai.ui.vercel_ai.request_types import (
    SubmitMessage,
    ToolApprovalRequested,
    ToolApprovalResponded,
    UIMessage,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

pytestmark = pytest.mark.anyio

SECRET = 'test-secret'


@pytest.fixture(autouse=True)
def approval_secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests that give no `approval_secret` sign with this one, not with a per-process secret and its warning."""
    monkeypatch.setenv('PYDANTIC_AI_APPROVAL_SECRET', 'env-secret')


def user(text: str) -> dict[str, Any]:
    return {'id': 'u1', 'role': 'user', 'parts': [{'type': 'text', 'text': text}]}


def body(*messages: dict[str, Any]) -> dict[str, Any]:
    return {'trigger': 'submit-message', 'id': 'chat1', 'messages': list(messages)}


def returns(messages: list[ModelMessage]) -> list[str]:
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    return [f'{p.tool_call_id}={p.content}' for p in last.parts if isinstance(p, ToolReturnPart)]


async def text_model(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    yield 'Hello '
    yield 'world'


async def approval_model(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    done = returns(messages) if isinstance(messages[-1], ModelRequest) else []
    if done:
        yield 'Done: ' + '; '.join(done)
        return
    yield {0: DeltaToolCall(name='delete_file', json_args='{"path": "a.txt"}', tool_call_id='call_a')}
    yield {1: DeltaToolCall(name='delete_file', json_args='{"path": "b.txt"}', tool_call_id='call_b')}


deleted: list[str] = []


def approval_agent() -> Agent[None, str | DeferredToolRequests]:
    agent = Agent(FunctionModel(stream_function=approval_model), output_type=[str, DeferredToolRequests])

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        """Delete a file."""
        deleted.append(path)
        return f'deleted {path}'

    return agent


def app_for(agent: Agent[Any, Any], **options: Any) -> Starlette:
    async def chat(request: Request) -> Response:
        return await VercelAIAdapter.dispatch_request(request, agent=agent, **options)

    return Starlette(routes=[Route('/chat', chat, methods=['POST'])])


async def post(app: Starlette, payload: Any) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url='http://127.0.0.1') as client:
        content = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        return await client.post('/chat', content=content)


def chunks(response: httpx.Response) -> list[Any]:
    events = [line.removeprefix('data: ') for line in response.text.split('\n\n') if line]
    assert events[-1] == '[DONE]'
    return [json.loads(e) for e in events[:-1]]


async def test_text_stream_over_sse():
    response = await post(app_for(Agent(FunctionModel(stream_function=text_model))), body(user('hi')))
    assert response.status_code == 200
    assert response.headers['x-vercel-ai-ui-message-stream'] == 'v1'
    assert response.headers['content-type'] == 'text/event-stream; charset=utf-8'
    assert response.text.endswith('data: [DONE]\n\n')
    assert chunks(response) == snapshot(
        [
            {'type': 'start'},
            {'type': 'start-step'},
            {'type': 'text-start', 'id': IsStr()},
            {'type': 'text-delta', 'delta': 'Hello ', 'id': IsStr()},
            {'type': 'text-delta', 'delta': 'world', 'id': IsStr()},
            {'type': 'text-end', 'id': IsStr()},
            {'type': 'finish-step'},
            {'type': 'finish'},
        ]
    )


async def test_tool_call_and_result_chunks():
    async def model(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        if isinstance(messages[-1], ModelRequest) and returns(messages):
            yield 'It is ' + returns(messages)[0]
            return
        yield {0: DeltaToolCall(name='weather', json_args='{"city":', tool_call_id='c1')}
        yield {0: DeltaToolCall(json_args=' "Paris"}')}

    agent = Agent(FunctionModel(stream_function=model))

    @agent.tool_plain
    def weather(city: str) -> dict[str, str]:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        """Weather."""
        return {'sky': 'sunny', 'city': city}

    adapter = VercelAIAdapter(agent=agent, run_input=SubmitMessage.model_validate(body(user('weather?'))))
    sent = [c.model_dump(by_alias=True, exclude_none=True) async for c in adapter.run_stream()]
    assert sent == snapshot(
        [
            {'type': 'start'},
            {'type': 'start-step'},
            {'type': 'tool-input-start', 'toolCallId': 'c1', 'toolName': 'weather'},
            {'type': 'tool-input-delta', 'toolCallId': 'c1', 'inputTextDelta': '{"city":'},
            {'type': 'tool-input-delta', 'toolCallId': 'c1', 'inputTextDelta': ' "Paris"}'},
            {'type': 'tool-input-available', 'toolCallId': 'c1', 'toolName': 'weather', 'input': {'city': 'Paris'}},
            {'type': 'tool-output-available', 'toolCallId': 'c1', 'output': {'sky': 'sunny', 'city': 'Paris'}},
            {'type': 'finish-step'},
            {'type': 'start-step'},
            {'type': 'text-start', 'id': IsStr()},
            {'type': 'text-delta', 'delta': "It is c1={'sky': 'sunny', 'city': 'Paris'}", 'id': IsStr()},
            {'type': 'text-end', 'id': IsStr()},
            {'type': 'finish-step'},
            {'type': 'finish'},
            {'type': 'done'},
        ]
    )


async def test_model_error_becomes_error_chunk():
    async def model(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield 'partial'
        raise RuntimeError('the model broke')

    response = await post(app_for(Agent(FunctionModel(stream_function=model))), body(user('hi')))
    assert chunks(response)[-3:] == snapshot(
        [
            {'type': 'error', 'errorText': 'the model broke'},
            {'type': 'finish-step'},
            {'type': 'finish', 'finishReason': 'error'},
        ]
    )


@pytest.mark.parametrize(
    'payload,error_type',
    [
        (b'not json', 'json_invalid'),
        ({'id': 'x', 'messages': []}, 'union_tag_not_found'),
        ({'trigger': 'bogus', 'id': 'x', 'messages': []}, 'union_tag_invalid'),
        (body({'id': 'u', 'role': 'user', 'parts': [{'type': 'text', 'text': 'hi', 'extra': 1}]}), 'extra_forbidden'),
        (body({'id': 'u', 'role': 'user', 'parts': [{'type': 'nonsense'}]}), 'invalid_ui_part'),
        (body({'id': 'u', 'role': 'robot', 'parts': []}), 'literal_error'),
    ],
)
async def test_bad_bodies_are_422(payload: Any, error_type: str):
    response = await post(app_for(Agent(FunctionModel(stream_function=text_model))), payload)
    assert response.status_code == 422
    assert response.headers['content-type'] == 'application/json'
    assert response.json()[0]['type'] == error_type


async def test_request_parsing_all_part_kinds():
    request = VercelAIAdapter.build_run_input(
        json.dumps(
            {
                'trigger': 'regenerate-message',
                'id': 'chat',
                'messageId': 'a1',
                'extraAppField': True,
                'messages': [
                    {'id': 's', 'role': 'system', 'parts': [{'type': 'text', 'text': 'Be brief.'}]},
                    {
                        'id': 'u',
                        'role': 'user',
                        'parts': [
                            {'type': 'text', 'text': 'look'},
                            {'type': 'file', 'mediaType': 'image/png', 'url': 'data:image/png;base64,YWJj'},
                            {'type': 'file', 'mediaType': 'application/pdf', 'url': 'https://x/d.pdf'},
                            {'type': 'data-note', 'data': {'k': 1}},
                        ],
                    },
                    {
                        'id': 'a',
                        'role': 'assistant',
                        'parts': [
                            {'type': 'step-start'},
                            {'type': 'reasoning', 'text': 'hmm', 'state': 'done'},
                            {'type': 'text', 'text': 'ok', 'state': 'done'},
                            {'type': 'source-url', 'sourceId': 's1', 'url': 'https://x'},
                        ],
                    },
                ],
            }
        ).encode()
    )
    assert request.trigger == 'regenerate-message'
    assert shape(VercelAIAdapter.load_messages(request.messages)) == snapshot(
        [
            (
                'request',
                [
                    ('system-prompt', {'content': 'Be brief.'}),
                    (
                        'user-prompt',
                        {
                            'content': [
                                'look',
                                IsInstance(BinaryContent) & HasAttributes(data=b'abc', media_type='image/png'),
                                IsInstance(DocumentUrl)
                                & HasAttributes(url='https://x/d.pdf', media_type='application/pdf'),
                            ]
                        },
                    ),
                ],
            ),
            ('response', [('thinking', {'content': 'hmm'}), ('text', {'content': 'ok'})]),
        ]
    )


def shape(messages: list[ModelMessage]) -> list[Any]:
    """Messages without timestamps and run ids, for snapshots."""
    out: list[Any] = []
    for message in messages:
        parts: list[Any] = []
        for part in message.parts:
            fields = {k: v for k, v in vars(part).items() if k not in {'timestamp', 'part_kind'} and v is not None}
            parts.append((part.part_kind, fields))
        out.append((message.kind, parts))
    return out


TOOL_STATES_UI: list[dict[str, Any]] = [
    user('clean up'),
    {
        'id': 'a1',
        'role': 'assistant',
        'parts': [
            {'type': 'step-start'},
            {'type': 'tool-ls', 'toolCallId': 't1', 'state': 'input-available', 'input': {'dir': '/'}},
            {'type': 'tool-ls', 'toolCallId': 't2', 'state': 'output-available', 'input': {}, 'output': 'a'},
            {'type': 'tool-rm', 'toolCallId': 't3', 'state': 'output-error', 'input': {'p': 'a'}, 'errorText': 'no'},
            {
                'type': 'tool-rm',
                'toolCallId': 't4',
                'state': 'output-denied',
                'input': {'p': 'b'},
                'approval': {'id': 'ap4', 'approved': False, 'reason': 'keep b'},
            },
            {
                'type': 'dynamic-tool',
                'toolName': 'rm',
                'toolCallId': 't5',
                'state': 'approval-requested',
                'input': {'p': 'c'},
                'approval': {'id': 'ap5'},
            },
            {
                'type': 'tool-rm',
                'toolCallId': 't6',
                'state': 'approval-responded',
                'input': {'p': 'd'},
                'approval': {'id': 'ap6', 'approved': True},
            },
            {'type': 'tool-rm', 'toolCallId': 't7', 'state': 'input-streaming', 'input': {'p': 'e'}},
        ],
    },
]


async def test_load_every_tool_state():
    messages = [UIMessage.model_validate(m) for m in TOOL_STATES_UI]
    assert shape(VercelAIAdapter.load_messages(messages)) == snapshot(
        [
            ('request', [('user-prompt', {'content': 'clean up'})]),
            (
                'response',
                [
                    ('tool-call', {'tool_name': 'ls', 'args': {'dir': '/'}, 'tool_call_id': 't1'}),
                    ('tool-call', {'tool_name': 'ls', 'args': {}, 'tool_call_id': 't2'}),
                ],
            ),
            ('request', [('tool-return', {'tool_name': 'ls', 'content': 'a', 'tool_call_id': 't2'})]),
            ('response', [('tool-call', {'tool_name': 'rm', 'args': {'p': 'a'}, 'tool_call_id': 't3'})]),
            ('request', [('retry-prompt', {'content': 'no', 'tool_name': 'rm', 'tool_call_id': 't3'})]),
            ('response', [('tool-call', {'tool_name': 'rm', 'args': {'p': 'b'}, 'tool_call_id': 't4'})]),
            ('request', [('tool-return', {'tool_name': 'rm', 'content': 'keep b', 'tool_call_id': 't4'})]),
            (
                'response',
                [
                    ('tool-call', {'tool_name': 'rm', 'args': {'p': 'c'}, 'tool_call_id': 't5'}),
                    ('tool-call', {'tool_name': 'rm', 'args': {'p': 'd'}, 'tool_call_id': 't6'}),
                    ('tool-call', {'tool_name': 'rm', 'args': {'p': 'e'}, 'tool_call_id': 't7'}),
                ],
            ),
        ]
    )


async def test_dump_every_tool_state_and_load_back():
    history = VercelAIAdapter.load_messages([UIMessage.model_validate(m) for m in TOOL_STATES_UI])
    approvals = {
        't4': ToolApprovalResponded(id='ap4', approved=False, reason='keep b'),
        't5': ToolApprovalRequested(id='ap5'),
        't6': ToolApprovalResponded(id='ap6', approved=True),
    }
    dumped = VercelAIAdapter.dump_messages(history, approvals=approvals)
    assert [m.model_dump(by_alias=True, exclude_none=True) for m in dumped] == snapshot(
        [
            {
                'id': IsStr(),
                'role': 'user',
                'parts': [{'type': 'text', 'text': 'clean up', 'state': 'done'}],
            },
            {
                'id': IsStr(),
                'role': 'assistant',
                'parts': [
                    {
                        'type': 'dynamic-tool',
                        'toolName': 'ls',
                        'toolCallId': 't1',
                        'state': 'input-available',
                        'input': '{"dir":"/"}',
                    },
                    {
                        'type': 'dynamic-tool',
                        'toolName': 'ls',
                        'toolCallId': 't2',
                        'state': 'output-available',
                        'input': '{}',
                        'output': 'a',
                    },
                ],
            },
            {
                'id': IsStr(),
                'role': 'assistant',
                'parts': [
                    {
                        'type': 'dynamic-tool',
                        'toolName': 'rm',
                        'toolCallId': 't3',
                        'state': 'output-error',
                        'input': '{"p":"a"}',
                        'errorText': """\
no

Fix the errors and try again.\
""",
                    }
                ],
            },
            {
                'id': IsStr(),
                'role': 'assistant',
                'parts': [
                    {
                        'type': 'dynamic-tool',
                        'toolName': 'rm',
                        'toolCallId': 't4',
                        'state': 'output-denied',
                        'input': '{"p":"b"}',
                        'approval': {'id': 'ap4', 'approved': False, 'reason': 'keep b'},
                    }
                ],
            },
            {
                'id': IsStr(),
                'role': 'assistant',
                'parts': [
                    {
                        'type': 'dynamic-tool',
                        'toolName': 'rm',
                        'toolCallId': 't5',
                        'state': 'approval-requested',
                        'input': '{"p":"c"}',
                        'approval': {'id': 'ap5'},
                    },
                    {
                        'type': 'dynamic-tool',
                        'toolName': 'rm',
                        'toolCallId': 't6',
                        'state': 'approval-responded',
                        'input': '{"p":"d"}',
                        'approval': {'id': 'ap6', 'approved': True},
                    },
                    {
                        'type': 'dynamic-tool',
                        'toolName': 'rm',
                        'toolCallId': 't7',
                        'state': 'input-available',
                        'input': '{"p":"e"}',
                    },
                ],
            },
        ]
    )
    # Upstream's dump adds the retry instruction to an error's text, so only that part differs on the way back.
    reloaded = shape(VercelAIAdapter.load_messages(dumped))
    assert reloaded[4] == snapshot(
        (
            'request',
            [
                (
                    'retry-prompt',
                    {
                        'content': """\
no

Fix the errors and try again.\
""",
                        'tool_name': 'rm',
                        'tool_call_id': 't3',
                    },
                )
            ],
        )
    )
    assert reloaded[:4] + reloaded[5:] == shape(history)[:4] + shape(history)[5:]


def fold(messages: list[dict[str, Any]], sent: list[Any]) -> dict[str, Any]:
    """Fold chunks into the assistant message, as the AI SDK client does (tool parts only)."""
    last = messages[-1] if messages and messages[-1]['role'] == 'assistant' else None
    message = last or {'id': 'a1', 'role': 'assistant', 'parts': []}
    parts: dict[str, dict[str, Any]] = {p['toolCallId']: p for p in message['parts'] if 'toolCallId' in p}
    for chunk in sent:
        kind = chunk['type']
        if kind == 'tool-input-available':
            part = {'type': f'tool-{chunk["toolName"]}', 'toolCallId': chunk['toolCallId']}
            part.update(state='input-available', input=chunk['input'])
            parts[chunk['toolCallId']] = part
            message['parts'].append(part)
        elif kind == 'tool-approval-request':
            parts[chunk['toolCallId']].update(state='approval-requested', approval={'id': chunk['approvalId']})
        elif kind == 'tool-output-available':
            parts[chunk['toolCallId']].update(state='output-available', output=chunk['output'])
        elif kind == 'tool-output-denied':
            parts[chunk['toolCallId']].update(state='output-denied')
        elif kind == 'text-delta':
            message['parts'].append({'type': 'text', 'text': chunk['delta']})
    return message


def answer(message: dict[str, Any], decisions: dict[str, tuple[bool, str | None]]) -> None:
    for part in message['parts']:
        if part.get('toolCallId') in decisions:
            approved, reason = decisions[part['toolCallId']]
            part['state'] = 'approval-responded'
            part['approval'] = {**part['approval'], 'approved': approved, **({'reason': reason} if reason else {})}


async def test_approve_one_deny_one_round_trip():
    deleted.clear()
    app = app_for(approval_agent(), tool_approval=True, approval_secret=SECRET)
    first = chunks(await post(app, body(user('delete a and b'))))
    assert first[2:] == snapshot(
        [
            {'type': 'tool-input-start', 'toolCallId': 'call_a', 'toolName': 'delete_file'},
            {'type': 'tool-input-delta', 'toolCallId': 'call_a', 'inputTextDelta': '{"path": "a.txt"}'},
            {
                'type': 'tool-input-available',
                'toolCallId': 'call_a',
                'toolName': 'delete_file',
                'input': {'path': 'a.txt'},
            },
            {'type': 'tool-input-start', 'toolCallId': 'call_b', 'toolName': 'delete_file'},
            {'type': 'tool-input-delta', 'toolCallId': 'call_b', 'inputTextDelta': '{"path": "b.txt"}'},
            {
                'type': 'tool-input-available',
                'toolCallId': 'call_b',
                'toolName': 'delete_file',
                'input': {'path': 'b.txt'},
            },
            {
                'type': 'tool-approval-request',
                'approvalId': 'aprv_bMMjsfXald17sGzuvL5B58iUExdndi5wp5UDzdtrTHM',
                'toolCallId': 'call_a',
            },
            {
                'type': 'tool-approval-request',
                'approvalId': 'aprv_LtrFkQ_rCRbZK02TQ_vqYyMp9Y-_3GV_88fxqZCRrWw',
                'toolCallId': 'call_b',
            },
            {'type': 'finish-step'},
            {'type': 'finish'},
        ]
    )
    message = fold([user('delete a and b')], first)
    answer(message, {'call_a': (True, None), 'call_b': (False, 'keep b')})
    second = chunks(await post(app, body(user('delete a and b'), message)))
    assert second == snapshot(
        [
            {'type': 'start'},
            {'type': 'tool-output-denied', 'toolCallId': 'call_b'},
            {'type': 'tool-output-available', 'toolCallId': 'call_a', 'output': 'deleted a.txt'},
            {'type': 'start-step'},
            {'type': 'text-start', 'id': IsStr()},
            {
                'type': 'text-delta',
                'delta': 'Done: call_a=deleted a.txt; call_b=keep b',
                'id': IsStr(),
            },
            {'type': 'text-end', 'id': IsStr()},
            {'type': 'finish-step'},
            {'type': 'finish'},
        ]
    )
    assert deleted == ['a.txt']


async def test_deny_without_reason_uses_default_message():
    deleted.clear()
    app = app_for(approval_agent(), tool_approval=True)
    first = chunks(await post(app, body(user('go'))))
    message = fold([user('go')], first)
    answer(message, {'call_a': (False, None), 'call_b': (False, None)})
    second = chunks(await post(app, body(user('go'), message)))
    assert [c for c in second if c['type'] in {'tool-output-denied', 'text-delta'}] == snapshot(
        [
            {'type': 'tool-output-denied', 'toolCallId': 'call_a'},
            {'type': 'tool-output-denied', 'toolCallId': 'call_b'},
            {
                'type': 'text-delta',
                'delta': 'Done: call_a=The tool call was denied.; call_b=The tool call was denied.',
                'id': IsStr(),
            },
        ]
    )
    assert deleted == []


async def test_forged_and_altered_approvals_are_refused():
    deleted.clear()
    app = app_for(approval_agent(), tool_approval=True, approval_secret=SECRET)
    first = chunks(await post(app, body(user('go'))))
    message = fold([user('go')], first)
    answer(message, {'call_a': (True, None), 'call_b': (True, None)})
    altered = json.loads(json.dumps(message))
    altered['parts'][1]['input'] = {'path': '/etc/passwd'}
    refused = chunks(await post(app, body(user('go'), altered)))
    assert refused == snapshot(
        [
            {'type': 'start'},
            {
                'type': 'error',
                'errorText': "The approval of tool call 'call_b' (`delete_file`) does not match a call this server asked to approve: the call or its arguments were changed. The call was not run; ask again.",
            },
            {'type': 'finish-step'},
            {'type': 'finish', 'finishReason': 'error'},
        ]
    )
    forged = json.loads(json.dumps(message))
    forged['parts'][0]['approval']['id'] = 'aprv_' + 'A' * 43
    assert chunks(await post(app, body(user('go'), forged)))[1]['type'] == 'error'
    assert deleted == []


async def test_without_tool_approval_no_approval_chunks():
    app = app_for(approval_agent())
    sent = chunks(await post(app, body(user('go'))))
    assert {c['type'] for c in sent} == snapshot(
        {'finish', 'finish-step', 'start', 'start-step', 'tool-input-available', 'tool-input-delta', 'tool-input-start'}
    )


async def test_external_tool_call_round_trip():
    async def model(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        if isinstance(messages[-1], ModelRequest) and returns(messages):
            yield 'Location: ' + returns(messages)[0]
            return
        yield {0: DeltaToolCall(name='get_location', json_args='{}', tool_call_id='loc1')}

    external = ExternalToolset([ToolDefinition(name='get_location', parameters_json_schema={'type': 'object'})])
    agent = Agent(FunctionModel(stream_function=model), output_type=[str, DeferredToolRequests], toolsets=[external])
    app = app_for(agent, tool_approval=True)
    first = chunks(await post(app, body(user('where am I?'))))
    assert [c['type'] for c in first][-3:] == snapshot(['tool-input-available', 'finish-step', 'finish'])
    message = fold([user('where am I?')], first)
    message['parts'][0].update(state='output-available', output='Paris')
    second = chunks(await post(app, body(user('where am I?'), message)))
    assert [c for c in second if c['type'] == 'text-delta'] == snapshot(
        [{'type': 'text-delta', 'delta': 'Location: loc1=Paris', 'id': IsStr()}]
    )


async def thinking_model(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaThinkingCalls]:
    yield {0: DeltaThinkingPart(content='let me ')}
    yield {0: DeltaThinkingPart(content='think')}
    yield 'answer'


async def test_reasoning_chunks_and_on_complete():
    completed: list[str] = []

    async def on_complete(result: AgentRunResult[Any]) -> None:
        completed.append(result.output)

    adapter = VercelAIAdapter(
        agent=Agent(FunctionModel(stream_function=thinking_model)),
        run_input=SubmitMessage.model_validate(body(user('q'))),
    )
    sent = [c.model_dump(by_alias=True, exclude_none=True) async for c in adapter.run_stream(on_complete=on_complete)]
    assert [c['type'] for c in sent] == snapshot(
        [
            'start',
            'start-step',
            'reasoning-start',
            'reasoning-delta',
            'reasoning-delta',
            'reasoning-end',
            'text-start',
            'text-delta',
            'text-end',
            'finish-step',
            'finish',
            'done',
        ]
    )
    assert completed == ['answer']
    encoded = [s async for s in adapter.encode_stream(adapter.run_stream())]
    assert encoded[0] == 'data: {"type":"start"}\n\n'
    assert encoded[-1] == 'data: [DONE]\n\n'


class RecordingStream(UIEventStream[str, str]):
    """Uses every default hook of the base class and records the events it is given."""

    def encode_event(self, event: str) -> str:
        return event

    async def handle_event(self, event: NativeEvent) -> AsyncIterator[str]:
        yield type(event).__name__
        async for chunk in super().handle_event(event):
            yield chunk  # pragma: no cover


async def test_base_event_stream_defaults():
    agent = approval_agent()
    stream = RecordingStream('input')
    assert stream.response_headers is None
    assert stream.content_type == 'text/event-stream'
    old_id = stream.message_id
    assert stream.new_message_id() != old_id
    events = [e async for e in stream.transform_stream(agent.run_stream_events('go'))]
    assert events == snapshot(
        [
            'PartStartEvent',
            'FinalResultEvent',
            'PartEndEvent',
            'PartStartEvent',
            'PartEndEvent',
            'FunctionToolCallEvent',
            'FunctionToolCallEvent',
            'AgentRunResultEvent',
        ]
    )


async def test_from_request_with_starlette_request():
    async def chat(request: Request) -> Response:
        adapter = await VercelAIAdapter[None, str | DeferredToolRequests].from_request(
            request, agent=approval_agent(), tool_approval=True
        )
        assert adapter.accept == 'text/event-stream'
        assert shape(adapter.messages) == snapshot([('request', [('user-prompt', {'content': 'go'})])])
        return adapter.streaming_response(adapter.run_stream())

    app = Starlette(routes=[Route('/chat', chat, methods=['POST'])])
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url='http://127.0.0.1') as client:
        response = await client.post('/chat', json=body(user('go')), headers={'accept': 'text/event-stream'})
    assert [c['type'] for c in chunks(response)].count('tool-approval-request') == 2
