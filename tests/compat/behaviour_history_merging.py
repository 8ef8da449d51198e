"""Adjacent messages of a given history: which merge, the merged fields and part order, and what the model gets."""

from datetime import UTC, datetime
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

T = datetime(2024, 1, 1, tzinfo=UTC)
T2 = datetime(2024, 1, 2, tzinfo=UTC)
sent: list[list[ModelMessage]] = []
kept: list[list[ModelMessage]] = []


def model_fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    sent.append(list(messages))
    kept.append(messages)
    return ModelResponse(parts=[TextPart('done')])


def when(ts: datetime | None) -> str:
    return {None: 'none', T: 'T', T2: 'T2'}.get(ts, 'now')


def summary(message: ModelMessage) -> str:
    parts = [type(p).__name__ for p in message.parts]
    if isinstance(message, ModelRequest):
        return f'request {parts} ts={when(message.timestamp)} ins={message.instructions} run={message.run_id}'
    return f'response {parts}'


agent = Agent(FunctionModel(model_fn))
instructed = Agent(FunctionModel(model_fn), instructions='agent-ins')

print('== responses')
RESPONSE_FIELDS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    'same': ({}, {}),
    'model_name first': ({'model_name': 'm1'}, {}),
    'model_name second': ({}, {'model_name': 'm2'}),
    'model_name both': ({'model_name': 'm'}, {'model_name': 'm'}),
    'usage': ({'usage': RequestUsage(input_tokens=1)}, {'usage': RequestUsage(output_tokens=2)}),
    'provider_name': ({'provider_name': 'p'}, {'provider_name': 'p'}),
    'provider_url': ({'provider_url': 'u'}, {}),
    'response id': ({'provider_response_id': 'x'}, {'provider_response_id': 'x'}),
    'finish_reason': ({'finish_reason': 'stop'}, {}),
    'timestamps': ({'timestamp': T}, {'timestamp': T2}),
    'run ids': ({'run_id': 'a'}, {'run_id': 'b'}),
    'details': ({'provider_details': {'a': 1}}, {}),
}
for name, (first, second) in RESPONSE_FIELDS.items():
    first_fields: dict[str, Any] = {'timestamp': T, **first}
    second_fields: dict[str, Any] = {'timestamp': T, **second}
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('hi', timestamp=T)]),
        ModelResponse(parts=[TextPart('a')], **first_fields),
        ModelResponse(parts=[TextPart('b')], **second_fields),
    ]
    result = agent.run_sync('next', message_history=history)
    print(name, 'stored', len(result.all_messages()), 'sent', len(sent[-1]))
    if len(result.all_messages()) == 4:
        print('   ', repr(result.all_messages()[1]))

print('== requests')
REQUEST_FIELDS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    'plain': ({}, {}),
    'ts first': ({'timestamp': T}, {}),
    'ts second': ({}, {'timestamp': T2}),
    'ts both': ({'timestamp': T}, {'timestamp': T2}),
    'ins first': ({'instructions': 'x'}, {}),
    'ins second': ({}, {'instructions': 'y'}),
    'ins same': ({'instructions': 'x'}, {'instructions': 'x'}),
    'ins differ': ({'instructions': 'x'}, {'instructions': 'y'}),
    'run ids': ({'run_id': 'a'}, {'run_id': 'b'}),
}
for which, runner in (('no instructions', agent), ('agent instructions', instructed)):
    print('#', which)
    for name, (first, second) in REQUEST_FIELDS.items():
        history = [
            ModelRequest(parts=[UserPromptPart('one', timestamp=T)], **first),
            ModelRequest(parts=[UserPromptPart('two', timestamp=T)], **second),
        ]
        for prompt in (None, 'three'):
            result = runner.run_sync(prompt, message_history=list(history))
            stored = [summary(m) for m in result.all_messages()[:-1]]
            print(name, prompt, 'stored', stored, 'sent', [summary(m) for m in sent[-1]])

print('== part order')
history = [
    ModelRequest(parts=[UserPromptPart('one', timestamp=T)]),
    ModelResponse(parts=[ToolCallPart('t', {}, 't1'), ToolCallPart('u', {}, 'u1')], timestamp=T),
    ModelRequest(parts=[UserPromptPart('extra', timestamp=T)]),
    ModelRequest(
        parts=[
            RetryPromptPart('r', tool_name='u', tool_call_id='u1', timestamp=T),
            SystemPromptPart('s', timestamp=T),
            ToolReturnPart('t', 1, 't1', timestamp=T),
            RetryPromptPart('no tool', timestamp=T),
        ]
    ),
]
result = agent.run_sync('x', message_history=history)
print([summary(m) for m in result.all_messages()])
print('sent', [summary(m) for m in sent[-1]])

print('== the model gets a list of its own')
result = agent.run_sync(message_history=[ModelRequest(parts=[UserPromptPart('one', timestamp=T)])])
print(len(kept[-1]), len(result.all_messages()))
