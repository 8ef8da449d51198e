"""A tool loop with instrumentation: agent run, model request and tool spans, with a tool that retries once."""

from _otel_probe import meter_provider, print_spans, tracer_provider
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.usage import RequestUsage


def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    step = len(messages)
    if step == 1:
        return ModelResponse(
            parts=[
                TextPart('let me see'),
                ToolCallPart('add', {'a': 1, 'b': 2}, 'c1'),
                ToolCallPart('flaky', '{}', 'c2'),
            ],
            usage=RequestUsage(input_tokens=10, output_tokens=5),
            model_name='fn-model',
            provider_response_id='resp-1',
            finish_reason='tool_call',
        )
    if step == 3:
        return ModelResponse(
            parts=[ToolCallPart('flaky', {}, 'c3')], usage=RequestUsage(input_tokens=20, output_tokens=3)
        )
    return ModelResponse(
        parts=[TextPart('3')], usage=RequestUsage(input_tokens=30, output_tokens=1), finish_reason='stop'
    )


settings = InstrumentationSettings(tracer_provider=tracer_provider, meter_provider=meter_provider)
agent = Agent(
    FunctionModel(respond), name='calc', instrument=settings, model_settings={'temperature': 0.5, 'max_tokens': 100}
)
calls = 0


@agent.tool_plain
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@agent.tool_plain
def flaky() -> str:
    """Fails the first time."""
    global calls
    calls += 1
    if calls == 1:
        raise ModelRetry('try again')
    return 'ok'


result = agent.run_sync('What is 1 + 2?')
print(repr(result.output))
print_spans()
