"""Failing runs with instrumentation: a tool that raises, a model that raises, and exceeded output retries."""

from _otel_probe import print_spans, tracer_provider
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings

settings = InstrumentationSettings(tracer_provider=tracer_provider)


def call_boom(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart('boom', {}, 'c1')])
    return ModelResponse(parts=[TextPart('done')])


agent = Agent(FunctionModel(call_boom), instrument=settings)


@agent.tool_plain
def boom() -> str:
    """Raises."""
    raise RuntimeError('kaboom')


try:
    agent.run_sync('go')
except RuntimeError as e:
    print('raised', repr(e))
print_spans()


def model_fails(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise ValueError('model down')


agent2 = Agent(FunctionModel(model_fails), instrument=settings)
try:
    agent2.run_sync('go')
except ValueError as e:
    print('raised', repr(e))
print_spans()


def bad_output(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart('final_result', {'x': 'nope'}, 'o1')])


agent3 = Agent(FunctionModel(bad_output), output_type=int, instrument=settings)
try:
    agent3.run_sync('go')
except Exception as e:
    print('raised', type(e).__name__, e)
print_spans()
