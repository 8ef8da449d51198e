# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
"""AbstractAgent/WrapperAgent: forwarding, name inference in every run method, node predicates, model setter."""

import asyncio
import inspect
from typing import Any

from pydantic_ai import Agent, RunContext
from pydantic_ai.agent import AbstractAgent, WrapperAgent
from pydantic_ai.models.test import TestModel

print(issubclass(Agent, AbstractAgent), issubclass(WrapperAgent, AbstractAgent))
print(sorted(AbstractAgent.__abstractmethods__))

inner = Agent(TestModel(), deps_type=int, output_type=str, instructions='Be brief.')


@inner.tool
def double(ctx: RunContext[int], x: int) -> int:
    return ctx.deps * x


wrapper = WrapperAgent(inner)
print(wrapper.wrapped is inner, wrapper.model is inner.model, wrapper.deps_type, wrapper.output_type)
print(wrapper.event_stream_handler, len(wrapper.toolsets) == len(inner.toolsets))
result = wrapper.run_sync('hi', deps=3)
print(result.output, inner.name, wrapper.name)
print([type(m).__name__ for m in result.all_messages()])
wrapper.name = 'renamed'
print(inner.name)
with wrapper.override(name='overridden', deps=5):
    print(inner.name, wrapper.run_sync('again', deps=1).output)
print(inner.name)


def make() -> Agent[None, str]:
    return Agent(TestModel(call_tools=[]))


async def main() -> None:
    agent_run_ = make()
    await agent_run_.run('x')
    print('run', agent_run_.name)
    agent_stream = make()
    async with agent_stream.run_stream('x') as stream:
        await stream.get_output()
    print('run_stream', agent_stream.name)
    agent_events = make()
    async for _ in agent_events.run_stream_events('x'):
        pass
    print('run_stream_events', agent_events.name)
    agent_iter = make()
    async with agent_iter.iter('x') as run:
        kinds = []
        async for node in run:
            kinds.append(
                (
                    type(node).__name__,
                    Agent.is_user_prompt_node(node),
                    Agent.is_model_request_node(node),
                    Agent.is_call_tools_node(node),
                    Agent.is_end_node(node),
                )
            )
        print(kinds)
    # Upstream's `iter` does not infer the name (it looks one frame short); ours does: not printed here.
    wrapped_iter = WrapperAgent(make())
    async with wrapped_iter.iter('x') as run:
        async for _ in run:
            pass
    async with wrapped_iter:
        print('entered')


asyncio.run(main())
agent_sync = make()
agent_sync.run_sync('x')
print('run_sync', agent_sync.name)
agent_stream_sync = make()
agent_stream_sync.run_stream_sync('x').get_output()
print('run_stream_sync', agent_stream_sync.name)
named = Agent(TestModel(), name='fixed')
named.run_sync('x')
print(named.name)
no_infer = make()
no_infer.run_sync('x', infer_name=False)
print(no_infer.name)

setter = Agent('test')
print(setter.model)
setter.model = TestModel(custom_output_text='from setter')
print(setter.run_sync('x').output)
unknown: list[dict[str, Any]] = [{'result_type': int}, {'foo': 1, 'bar': 2}]
for kwargs in unknown:
    try:
        Agent(TestModel(), **kwargs)
    except Exception as e:
        print(type(e).__name__, e)
for method in ('run', 'run_sync', 'run_stream', 'run_stream_sync', 'run_stream_events', 'iter'):
    params = inspect.signature(getattr(Agent, method)).parameters
    print(
        method,
        [p for p in params if p not in ('self', 'deferred_tool_handler', 'event_stream_handler', 'instructions')],
    )
print(list(inspect.signature(Agent.override).parameters))
