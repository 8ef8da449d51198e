"""Tests of function tools run by the agent, through the public API."""

# pyright: reportUnusedFunction=false
# Tools registered by decorator are only used through the agent, which pyright cannot see.

from __future__ import annotations

import threading
from datetime import UTC
from typing import Any

import anyio
import pytest
from dirty_equals import IsNow, IsStr
from inline_snapshot import snapshot
from pydantic_ai import (
    Agent,
    FunctionToolset,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelRetry,
    RequestUsage,
    RetryPromptPart,
    RunContext,
    TextPart,
    Tool,
    ToolCallPart,
    ToolDefinition,
    ToolReturn,
    ToolReturnPart,
    UnexpectedModelBehavior,
    UserError,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

pytestmark = pytest.mark.anyio

# Typed as `Any` so the matchers can stand in for datetimes and strings in message constructors.
IS_NOW: Any = IsNow(tz=UTC)
IS_STR: Any = IsStr()


def call_tools(*calls: tuple[str, dict[str, object]]):
    """Make a model that calls the given tools once, then answers with every tool reply it got."""

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        if len(messages) == 1:
            return ModelResponse(
                parts=[ToolCallPart(name, args, tool_call_id=f'c{i}') for i, (name, args) in enumerate(calls)]
            )
        replies = [
            part.model_response() if isinstance(part, RetryPromptPart) else str(part.content)
            for part in last.parts
            if isinstance(part, ToolReturnPart | RetryPromptPart)
        ]
        return ModelResponse(parts=[TextPart(' | '.join(replies))])

    return FunctionModel(model)


def always_call(name: str, args: dict[str, object]) -> FunctionModel:
    """Make a model that calls the same tool on every request."""

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id='c1')])

    return FunctionModel(model)


async def test_arg_validation_retry():
    agent = Agent(call_tools(('f', {'x': 'no'})))

    @agent.tool_plain
    def f(x: int) -> int:
        return x  # pragma: no cover

    result = await agent.run('x')
    assert result.all_messages()[2] == snapshot(
        ModelRequest(
            parts=[
                RetryPromptPart(
                    content=[
                        {
                            'type': 'int_parsing',
                            'loc': ('x',),
                            'msg': 'Input should be a valid integer, unable to parse string as an integer',
                            'input': 'no',
                        }
                    ],
                    tool_name='f',
                    tool_call_id='c0',
                    timestamp=IS_NOW,
                )
            ],
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )


async def test_arg_validation_exceeds_retries():
    agent = Agent(always_call('f', {'x': 'no'}), retries=1)

    @agent.tool_plain
    def f(x: int) -> int:
        return x  # pragma: no cover

    with pytest.raises(UnexpectedModelBehavior, match="Tool 'f' exceeded max retries count of 1"):
        await agent.run('x')


async def test_model_retry_from_tool():
    agent = Agent(call_tools(('f', {})))

    @agent.tool
    def f(ctx: RunContext[None]) -> str:
        raise ModelRetry(f'try again, retry {ctx.retry}')

    result = await agent.run('x')
    assert result.output == snapshot("""\
try again, retry 0

Fix the errors and try again.\
""")


async def test_tool_retries_option():
    agent = Agent(always_call('f', {}), retries=5)
    attempts: list[int] = []

    @agent.tool(retries=2)
    def f(ctx: RunContext[None]) -> str:
        attempts.append(ctx.retry)
        raise ModelRetry('again')

    with pytest.raises(UnexpectedModelBehavior, match="Tool 'f' exceeded max retries count of 2"):
        await agent.run('x')
    assert attempts == [0, 1, 2]


async def test_tool_return_with_content_and_metadata():
    agent = Agent(call_tools(('f', {})))

    @agent.tool_plain
    def f() -> ToolReturn:
        return ToolReturn(return_value='value', content='extra', metadata={'m': 1})

    result = await agent.run('x')
    assert result.all_messages()[2] == snapshot(
        ModelRequest(
            parts=[
                ToolReturnPart(
                    tool_name='f',
                    content='value',
                    tool_call_id='c0',
                    metadata={'m': 1},
                    timestamp=IS_NOW,
                ),
                UserPromptPart(
                    content='extra',
                    timestamp=IS_NOW,
                ),
            ],
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )


async def test_tools_run_concurrently_results_in_call_order():
    agent = Agent(call_tools(('a', {}), ('b', {})))
    a_started = anyio.Event()
    b_started = anyio.Event()

    @agent.tool_plain
    async def a() -> str:
        a_started.set()
        # Waiting on the other tool only finishes if both run at the same time.
        with anyio.fail_after(5):
            await b_started.wait()
        await anyio.sleep(0.01)
        return 'a done'

    @agent.tool_plain
    async def b() -> str:
        b_started.set()
        with anyio.fail_after(5):
            await a_started.wait()
        return 'b done'

    result = await agent.run('x')
    assert result.output == 'a done | b done'


async def test_sequential_tool_runs_alone():
    agent = Agent(call_tools(('a', {}), ('b', {})))
    events: list[str] = []

    @agent.tool_plain(sequential=True)
    async def a() -> str:
        events.append('a start')
        await anyio.sleep(0.01)
        events.append('a end')
        return 'a'

    @agent.tool_plain
    async def b() -> str:
        events.append('b start')
        await anyio.lowlevel.checkpoint()
        events.append('b end')
        return 'b'

    result = await agent.run('x')
    assert result.output == 'a | b'
    assert events == snapshot(['a start', 'a end', 'b start', 'b end'])


async def test_sync_tool_runs_in_worker_thread():
    agent = Agent(call_tools(('f', {})))

    @agent.tool_plain
    def f() -> bool:
        return threading.get_ident() != threading.main_thread().ident

    assert (await agent.run('x')).output == 'True'


async def test_tool_exception_propagates():
    agent = Agent(call_tools(('f', {})))

    @agent.tool_plain
    def f() -> str:
        raise ZeroDivisionError('plain failure')

    with pytest.raises(ZeroDivisionError, match='plain failure'):
        await agent.run('x')


async def test_tool_timeout():
    agent = Agent(call_tools(('f', {})))

    @agent.tool_plain(timeout=0.01)
    async def f() -> str:
        await anyio.sleep(5)
        return 'late'  # pragma: no cover

    result = await agent.run('x')
    assert result.output == snapshot("""\
Timed out after 0.01 seconds.

Fix the errors and try again.\
""")


def plain_tool() -> str:
    """A tool registered by name."""
    return 'plain'


def other_tool() -> str:
    """A second tool registered through `Tool`."""
    return 'other'


def test_function_toolset_duplicates():
    toolset = FunctionToolset[None]()
    toolset.tool(plain_tool)
    with pytest.raises(UserError, match="Tool name conflicts with existing tool: 'plain_tool'"):
        toolset.add_function(other_tool, name='plain_tool')
    with pytest.raises(UserError, match="Tool name conflicts with existing tool: 'plain_tool'"):
        toolset.add_tool(Tool(plain_tool))


def test_agent_tools_duplicates():
    with pytest.raises(UserError, match="Tool name conflicts with existing tool: 'plain_tool'"):
        Agent(call_tools(), tools=[plain_tool, Tool(plain_tool)])


async def test_agent_tools_argument():
    agent = Agent(call_tools(('plain_tool', {}), ('other', {})), tools=[plain_tool, Tool(other_tool, name='other')])
    assert (await agent.run('x')).output == 'plain | other'


async def test_toolsets_argument():
    toolset = FunctionToolset[None]([plain_tool])
    toolset.add_function(other_tool)
    agent = Agent(call_tools(('plain_tool', {}), ('other_tool', {})), toolsets=[toolset])
    assert (await agent.run('x')).output == 'plain | other'


async def test_prepare_hides_tool():
    seen: list[list[str]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append([tool.name for tool in info.function_tools])
        return ModelResponse(parts=[TextPart('done')])

    async def hide(ctx: RunContext[None], tool_def: ToolDefinition) -> ToolDefinition | None:
        return None

    agent = Agent(FunctionModel(model))
    agent.tool_plain(prepare=hide)(plain_tool)
    agent.tool_plain(other_tool)
    await agent.run('x')
    assert seen == [['other_tool']]


async def test_prepare_tools():
    seen: list[list[str]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append([f'{tool.name}: {tool.description}' for tool in info.function_tools])
        return ModelResponse(parts=[TextPart('done')])

    async def prepare(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [tool_def for tool_def in tool_defs if tool_def.name != 'other_tool']

    agent = Agent(FunctionModel(model), tools=[plain_tool, other_tool], prepare_tools=prepare)
    await agent.run('x')
    assert seen == snapshot([['plain_tool: A tool registered by name.']])


async def test_tool_call_messages():
    agent = Agent(call_tools(('plain_tool', {})), tools=[plain_tool])
    result = await agent.run('x')
    assert result.all_messages() == snapshot(
        [
            ModelRequest(
                parts=[
                    UserPromptPart(
                        content='x',
                        timestamp=IS_NOW,
                    )
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[ToolCallPart(tool_name='plain_tool', args={}, tool_call_id='c0')],
                usage=RequestUsage(input_tokens=51, output_tokens=2),
                model_name='function:model:',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelRequest(
                parts=[
                    ToolReturnPart(
                        tool_name='plain_tool',
                        content='plain',
                        tool_call_id='c0',
                        timestamp=IS_NOW,
                    )
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[TextPart(content='plain')],
                usage=RequestUsage(input_tokens=52, output_tokens=3),
                model_name='function:model:',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
        ]
    )
