# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
"""History processors: what they see before each request, what the model gets, and what the history keeps."""

import asyncio

from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, SystemPromptPart, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel


def show(messages: list[ModelMessage]) -> list[str]:
    out = []
    for m in messages:
        kinds = ','.join(type(p).__name__.replace('Part', '') for p in m.parts)
        out.append(f'{"Req" if isinstance(m, ModelRequest) else "Resp"}[{kinds}]')
    return out


def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    print('  model sees', show(messages))
    if len([m for m in messages if isinstance(m, ModelResponse)]) == 0 or not any(
        isinstance(p, ToolCallPart) for m in messages if isinstance(m, ModelResponse) for p in m.parts
    ):
        return ModelResponse(parts=[ToolCallPart('get', {})])
    return ModelResponse(parts=[TextPart('done')])


async def stream_model(messages: list[ModelMessage], info: AgentInfo):
    response = model(messages, info)
    part = response.parts[0]
    if isinstance(part, ToolCallPart):
        yield {0: DeltaToolCall(name=part.tool_name, json_args='{}')}
    else:
        yield 'done'


def keep_last_two(messages: list[ModelMessage]) -> list[ModelMessage]:
    print('  sync plain sees', show(messages))
    return messages[-2:] if len(messages) > 2 else messages


async def add_system(ctx: RunContext[str], messages: list[ModelMessage]) -> list[ModelMessage]:
    print(
        '  async ctx sees',
        show(messages),
        'deps',
        ctx.deps,
        'step',
        ctx.run_step,
        'len ctx.messages',
        len(ctx.messages),
    )
    return [ModelRequest(parts=[SystemPromptPart(f'sys {ctx.deps}')]), *messages]


def ctx_sync(ctx: RunContext[str], messages: list[ModelMessage]) -> list[ModelMessage]:
    print('  sync ctx sees', len(messages))
    return messages


async def plain_async(messages: list[ModelMessage]) -> list[ModelMessage]:
    print('  async plain sees', len(messages))
    return messages


agent = Agent(
    FunctionModel(model, stream_function=stream_model),
    deps_type=str,
    system_prompt='base',
    history_processors=[keep_last_two, add_system, ctx_sync, plain_async],
)


@agent.tool_plain
def get() -> str:
    return 'got'


result = agent.run_sync('first', deps='D')
print('history', show(result.all_messages()))
print('new', show(result.new_messages()))
result2 = agent.run_sync('second', deps='E', message_history=result.all_messages())
print('history2', show(result2.all_messages()))
print('new2', show(result2.new_messages()))


def drop_all_but_last(messages: list[ModelMessage]) -> list[ModelMessage]:
    return [messages[-1]]


agent2 = Agent(
    FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart('ok')])), history_processors=[drop_all_but_last]
)


async def main() -> None:
    async with agent.run_stream('streamed', deps='S') as stream:
        print('stream output', await stream.get_output())
    print('stream history', show(stream.all_messages()))


asyncio.run(main())
long_history = agent2.run_sync('one').all_messages() + agent2.run_sync('two').all_messages()
print('long', show(long_history))
result3 = agent2.run_sync('three', message_history=long_history)
print('history3', show(result3.all_messages()))
print('new3', show(result3.new_messages()))


def empty(messages: list[ModelMessage]) -> list[ModelMessage]:
    return []


try:
    Agent(FunctionModel(model), history_processors=[empty]).run_sync('x')
except Exception as e:
    print(type(e).__name__, e)


def ends_with_response(messages: list[ModelMessage]) -> list[ModelMessage]:
    return [*messages, ModelResponse(parts=[TextPart('fake')])]


try:
    Agent(FunctionModel(model), history_processors=[ends_with_response]).run_sync('x')
except Exception as e:
    print(type(e).__name__, e)
