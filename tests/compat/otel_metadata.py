"""The run span records the run's metadata (the agent's merged with the run's)."""

from _otel_probe import print_spans, tracer_provider
from pydantic_ai import Agent
from pydantic_ai.models.instrumented import InstrumentationSettings

agent = Agent('test', instrument=InstrumentationSettings(tracer_provider=tracer_provider), metadata={'tenant': 'a'})
agent.run_sync('x', metadata={'run': 1})
print_spans(skip={'model_request_parameters'})
