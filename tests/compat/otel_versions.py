"""The same tool-loop run under each instrumentation `version`, `event_mode='logs'`, and without content."""

import warnings
from typing import Any

from _otel_probe import logger_provider, print_logs, print_spans, tracer_provider
from pydantic_ai import Agent, BinaryContent
from pydantic_ai.models.instrumented import InstrumentationSettings


def make_agent(settings: InstrumentationSettings) -> Agent[None, str]:
    agent = Agent('test', instructions='Be brief.', system_prompt='Sys.', name='ver', instrument=settings)

    @agent.tool_plain
    def double(x: int) -> int:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        """Double it."""
        return 2 * x

    return agent


prompt = ['Look:', BinaryContent(data=b'\x89PNG', media_type='image/png')]
OPTIONS: list[dict[str, Any]] = [
    dict(version=1),
    dict(version=1, event_mode='logs'),
    dict(version=2, event_mode='logs'),
    dict(version=3),
    dict(version=3, include_content=False),
    dict(version=2, include_binary_content=False),
    dict(version=1, include_content=False),
]
for options in OPTIONS:
    print(f'=== {options}')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        settings = InstrumentationSettings(tracer_provider=tracer_provider, logger_provider=logger_provider, **options)
    print([str(w.message) for w in caught])
    print(repr(settings))
    make_agent(settings).run_sync(prompt)
    print_spans()
    print_logs()
