"""Finish reasons: a response cut off by the token limit, one stopped by a content filter, and an empty response."""

from typing import Any

from pydantic import BaseModel
from pydantic_ai import Agent, capture_run_messages, exceptions
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.settings import ModelSettings

print(
    [
        name
        for name in ('IncompleteToolCall', 'ContentFilterError', 'UnexpectedModelBehavior')
        if hasattr(exceptions, name)
    ]
)


class Out(BaseModel):
    a: int


def t(x: int) -> int:
    return x


def run(title: str, responses: list[ModelResponse], output_type: Any = str) -> None:
    def model_fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = sum(isinstance(m, ModelResponse) for m in messages)
        return responses[min(done, len(responses) - 1)]

    agent = Agent(FunctionModel(model_fn), output_type=output_type, tools=[t])

    print('==', title)
    with capture_run_messages() as messages:
        try:
            result = agent.run_sync('go')
            print('output:', repr(result.output))
        except Exception as e:
            print(f'{type(e).__name__}: {e}')
            print('bases:', [c.__name__ for c in type(e).__mro__[:4]])
            body = getattr(e, 'body', None)
            print('body:', body)
    for m in messages[1:]:
        print(repr(m))


run(
    'length, cut-off tool call',
    [ModelResponse(parts=[ToolCallPart('t', '{"x": 1', tool_call_id='c1')], finish_reason='length')],
)
run(
    'length, complete tool call',
    [
        ModelResponse(parts=[ToolCallPart('t', '{"x": 1}', tool_call_id='c1')], finish_reason='length'),
        ModelResponse(parts=[TextPart('done')]),
    ],
)
run('length, text', [ModelResponse(parts=[TextPart('partial')], finish_reason='length')])
run(
    'length, cut-off output tool',
    [ModelResponse(parts=[ToolCallPart('final_result', '{"a": 1', tool_call_id='o1')], finish_reason='length')],
    Out,
)
run('length, empty', [ModelResponse(parts=[], finish_reason='length')])
run('content_filter, empty', [ModelResponse(parts=[], finish_reason='content_filter')])
run('content_filter, text', [ModelResponse(parts=[TextPart('bad')], finish_reason='content_filter')])
run(
    'content_filter, details',
    [
        ModelResponse(
            parts=[], finish_reason='content_filter', provider_details={'finish_reason': 'content_filter', 'x': 1}
        )
    ],
)
run(
    'empty after text and tool call',
    [
        ModelResponse(parts=[TextPart('thinking aloud'), ToolCallPart('t', {'x': 1}, tool_call_id='c1')]),
        ModelResponse(parts=[]),
    ],
)
run(
    'empty after tool call only',
    [
        ModelResponse(parts=[ToolCallPart('t', {'x': 1}, tool_call_id='c1')]),
        ModelResponse(parts=[]),
        ModelResponse(parts=[TextPart('ok')]),
    ],
)
run(
    'empty after text and tool call, structured',
    [
        ModelResponse(parts=[TextPart('thinking aloud'), ToolCallPart('t', {'x': 1}, tool_call_id='c1')]),
        ModelResponse(parts=[]),
        ModelResponse(parts=[ToolCallPart('final_result', {'a': 1})]),
    ],
    Out,
)


print('== max_tokens in the messages')


def f(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(
        parts=[TextPart('x'), ToolCallPart('final_result', '{"a": 1', tool_call_id='o1')], finish_reason='length'
    )


settings_options: list[ModelSettings | None] = [{'max_tokens': 50}, None]
for settings in settings_options:
    try:
        Agent(FunctionModel(f), output_type=Out, model_settings=settings).run_sync(
            'go', model_settings={'temperature': 0.1}
        )
    except Exception as e:
        print(type(e).__name__, e)


def g(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[], finish_reason='length')


try:
    Agent(FunctionModel(g, settings={'max_tokens': 7})).run_sync('go', model_settings={'max_tokens': 9})
except Exception as e:
    print(type(e).__name__, e)


def h(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(
        parts=[ToolCallPart('final_result', '{"a": 1', tool_call_id='o1'), TextPart('x')], finish_reason='length'
    )


try:
    Agent(FunctionModel(h), output_type=Out).run_sync('go')
except Exception as e:
    print(type(e).__name__, e)


def k(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart('final_result', '{"a": "x"}', tool_call_id='o1')], finish_reason='length')


try:
    Agent(FunctionModel(k), output_type=Out).run_sync('go')
except Exception as e:
    print(type(e).__name__, e)
