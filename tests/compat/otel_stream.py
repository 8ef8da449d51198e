"""A streamed run with instrumentation, text output and a tool call, then structured output via an output tool."""

import asyncio

from _otel_probe import print_spans, tracer_provider
from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.models.instrumented import InstrumentationSettings

settings = InstrumentationSettings(tracer_provider=tracer_provider)
agent = Agent('test', instrument=settings)


@agent.tool_plain
def lookup(q: str) -> str:
    """Look up."""
    return f'found {q}'


class City(BaseModel):
    name: str


async def main() -> None:
    async with agent.run_stream('Hi') as result:
        print(await result.get_output())
    print_spans()
    async with agent.run_stream('Where?', output_type=City) as result:
        print(await result.get_output())
    print_spans()


asyncio.run(main())
