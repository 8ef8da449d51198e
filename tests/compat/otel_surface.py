"""The instrumentation surface: reprs, `Agent.instrument_all`, `instrument_model`, and the settings' helpers."""

import warnings

from _otel_probe import print_spans, tracer_provider
from opentelemetry import trace
from pydantic_ai import Agent
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.instrumented import InstrumentationSettings, InstrumentedModel, instrument_model
from pydantic_ai.models.test import TestModel

trace.set_tracer_provider(tracer_provider)

settings = InstrumentationSettings(include_content=False, version=3)
print(repr(settings))
model = InstrumentedModel(TestModel(), settings)
print(repr(model))
print(model.model_name, model.system, type(model.wrapped).__name__)
print(repr(InstrumentedModel('test').instrumentation_settings))
print(type(instrument_model(TestModel(), True)).__name__, type(instrument_model(TestModel(), False)).__name__)
print(instrument_model(model, True) is model)

agent = Agent('test', instrument=True)
print(repr(agent))
print(agent.instrument, Agent('test').instrument)

print('--- not instrumented')
Agent('test', name='plain').run_sync('x')
print_spans()
print('--- instrument_all')
Agent.instrument_all()
Agent('test', name='everywhere').run_sync('x')
print_spans(skip={'model_request_parameters'})
print('--- instrument=False wins over instrument_all')
Agent('test', name='opted_out', instrument=False).run_sync('x')
print_spans()
Agent.instrument_all(False)
print('--- off again')
Agent('test', name='off').run_sync('x')
print_spans()
print('--- model given at run time, already instrumented')
Agent(name='given', instrument=InstrumentationSettings(version=3)).run_sync('x', model=model)
print_spans(skip={'model_request_parameters'})

messages = [ModelRequest(parts=[UserPromptPart('hi')], instructions='Be brief.'), ModelResponse(parts=[TextPart('yo')])]
for s in [InstrumentationSettings(), InstrumentationSettings(include_content=False)]:
    print(s.messages_to_otel_messages(messages))
    print(s.system_instructions_attributes('Be brief.'), s.system_instructions_attributes(None))
    print([InstrumentedModel.event_to_dict(e) for e in s.messages_to_otel_events(messages)])
print(
    InstrumentedModel.serialize_any('s'),
    InstrumentedModel.serialize_any({'a': [1, 2]}),
    InstrumentedModel.serialize_any(3),
)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter('always')
    print(InstrumentationSettings(event_mode='logs').version, [str(w.message) for w in caught])
print('--- an instrumented model in an agent that is not')
Agent(model, name='model_only').run_sync('x')
print_spans(skip={'model_request_parameters'})
