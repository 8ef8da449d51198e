"""History processors, `prepare_output_tools=`, and dynamic toolsets (`@agent.toolset`)."""

# pyright: reportUnusedFunction=false
# Tools and toolset functions registered by decorator are only used through the agent.

from __future__ import annotations

from dataclasses import replace
from datetime import UTC
from typing import Any

import pytest
from dirty_equals import IsInstance, IsNow, IsStr
from inline_snapshot import snapshot
from pydantic import BaseModel
from pydantic_ai import (
    Agent,
    FunctionToolset,
    ModelRequest,
    ModelResponse,
    RunContext,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserError,
    capture_run_messages,
)
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import RequestUsage

pytestmark = pytest.mark.anyio

IS_NOW: Any = IsNow(tz=UTC)
IS_STR: Any = IsStr()
IS_ANY: Any = IsInstance(RequestUsage)


def call_then_answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if any(isinstance(p, ToolReturnPart) for p in messages[-1].parts):
        return ModelResponse(parts=[TextPart(f'saw {len(messages)} messages')])
    return ModelResponse(parts=[ToolCallPart('get', {}, 'call_1')])


async def stream_call_then_answer(messages: list[ModelMessage], info: AgentInfo):
    part = call_then_answer(messages, info).parts[0]
    if isinstance(part, ToolCallPart):
        calls: DeltaToolCalls = {0: DeltaToolCall(name=part.tool_name, json_args='{}', tool_call_id='call_1')}
        yield calls
    else:
        assert isinstance(part, TextPart)
        yield part.content


seen: list[str] = []


def keep_last_two(messages: list[ModelMessage]) -> list[ModelMessage]:
    seen.append(f'plain {len(messages)}')
    return messages[-2:]


async def add_system(ctx: RunContext[str], messages: list[ModelMessage]) -> list[ModelMessage]:
    seen.append(f'ctx {len(messages)} step={ctx.run_step} deps={ctx.deps}')
    return [ModelRequest(parts=[SystemPromptPart(f'sys {ctx.deps}')]), *messages]


def make_agent() -> Agent[str, str]:
    agent = Agent(
        FunctionModel(call_then_answer, stream_function=stream_call_then_answer),
        deps_type=str,
        history_processors=[keep_last_two, add_system],
    )

    @agent.tool_plain
    def get() -> str:
        return 'got'

    return agent


def expected_history(deps: str, args: str | dict[str, Any] | None = None) -> list[ModelMessage]:
    return [
        ModelRequest(parts=[SystemPromptPart(content=f'sys {deps}', timestamp=IS_NOW)]),
        ModelResponse(
            parts=[ToolCallPart(tool_name='get', args={} if args is None else args, tool_call_id='call_1')],
            usage=IS_ANY,
            model_name='function:call_then_answer:stream_call_then_answer',
            timestamp=IS_NOW,
            run_id=IS_STR,
        ),
        ModelRequest(
            parts=[ToolReturnPart(tool_name='get', content='got', tool_call_id='call_1', timestamp=IS_NOW)],
            timestamp=IS_NOW,
            run_id=IS_STR,
        ),
        ModelResponse(
            parts=[TextPart(content='saw 3 messages')],
            usage=IS_ANY,
            model_name='function:call_then_answer:stream_call_then_answer',
            timestamp=IS_NOW,
            run_id=IS_STR,
        ),
    ]


async def test_processors_rewrite_the_history_before_each_request():
    seen.clear()
    agent = make_agent()
    result = await agent.run('first', deps='D')
    assert seen == snapshot(['plain 1', 'ctx 1 step=1 deps=D', 'plain 4', 'ctx 2 step=2 deps=D'])
    assert result.all_messages() == expected_history('D')
    assert result.new_messages() == result.all_messages()
    # A continued conversation: the history the processors return replaces the run's, and the new messages are
    # counted from the same distance to the end.
    seen.clear()
    again = await agent.run('second', deps='E', message_history=result.all_messages())
    assert seen == snapshot(['plain 5', 'ctx 2 step=1 deps=E', 'plain 5', 'ctx 2 step=2 deps=E'])
    assert again.all_messages() == expected_history('E')
    assert again.new_messages() == again.all_messages()


async def test_processors_in_streamed_runs_and_captured_messages():
    agent = make_agent()
    with capture_run_messages() as captured:
        async with agent.run_stream('streamed', deps='S') as stream:
            assert await stream.get_output() == 'saw 3 messages'
    assert stream.all_messages() == captured == expected_history('S', args='{}')


async def test_processed_history_must_end_with_a_request():
    def empty(messages: list[ModelMessage]) -> list[ModelMessage]:
        return []

    def ends_with_response(messages: list[ModelMessage]) -> list[ModelMessage]:
        return [*messages, ModelResponse(parts=[TextPart('fake')])]

    with pytest.raises(UserError, match=r'^Processed history cannot be empty\.$'):
        await Agent(FunctionModel(call_then_answer), history_processors=[empty]).run('x')
    with pytest.raises(UserError, match=r'^Processed history must end with a `ModelRequest`\.$'):
        await Agent(FunctionModel(call_then_answer), history_processors=[ends_with_response]).run('x')


class A(BaseModel):
    a: int


class B(BaseModel):
    b: str


async def test_prepare_output_tools():
    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        tools = info.model_request_parameters.output_tools
        return ModelResponse(parts=[ToolCallPart(tools[0].name, {'b': tools[0].description})])

    async def prepare(ctx: RunContext[bool], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [replace(t, description=f'step {ctx.run_step}') for t in tool_defs if ctx.deps or t.name.endswith('B')]

    agent = Agent(FunctionModel(answer), deps_type=bool, output_type=[A, B], prepare_output_tools=prepare)
    assert (await agent.run('x', deps=False)).output == B(b='step 1')


async def test_dynamic_toolsets():
    calls: list[str] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        names = [t.name for t in info.function_tools]
        if len(messages) < 5:
            return ModelResponse(parts=[ToolCallPart(names[0], {})])
        return ModelResponse(parts=[TextPart(' '.join(names))])

    def from_init(ctx: RunContext[str]) -> FunctionToolset[str]:
        return FunctionToolset[str]([lambda: 'i'], id='init')

    agent = Agent(FunctionModel(answer), deps_type=str, toolsets=[from_init])

    @agent.toolset
    def per_step(ctx: RunContext[str]) -> FunctionToolset[str]:
        calls.append(f'per_step {ctx.run_step}')
        toolset = FunctionToolset[str]()
        toolset.add_function(lambda: ctx.deps, name=f'{ctx.deps}{ctx.run_step}')
        return toolset

    @agent.toolset(per_run_step=False, id='once')
    async def once(ctx: RunContext[str]) -> FunctionToolset[str] | None:
        calls.append(f'once {ctx.run_step}')
        return None

    result = await agent.run('x', deps='a')
    assert result.output == snapshot('<lambda> a3')
    assert calls == snapshot(['per_step 1', 'once 1', 'per_step 2', 'once 2', 'per_step 3', 'once 3'])
    assert [getattr(t, 'id', None) for t in agent.toolsets] == ['<agent>', None, None, 'once']
