"""A plain run on TestModel with instrumentation: the span tree, the token metrics."""

from _otel_probe import meter_provider, print_metrics, print_spans, tracer_provider
from pydantic_ai import Agent
from pydantic_ai.models.instrumented import InstrumentationSettings

settings = InstrumentationSettings(tracer_provider=tracer_provider, meter_provider=meter_provider)
agent = Agent('test', instructions='Be brief.', system_prompt='You are a bot.', instrument=settings)
result = agent.run_sync('Hello')
print(repr(result.output))
print_spans()
print_metrics()
