"""Tests of the agent run loop through the public API."""

# pyright: reportUnusedFunction=false
# Tools registered by decorator are only used through the agent, which pyright cannot see.

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC
from typing import Any

import pytest
from dirty_equals import IsNow, IsStr
from inline_snapshot import snapshot
from pydantic import BaseModel
from pydantic_ai import (
    Agent,
    CallDeferred,
    CallToolsNode,
    DeferredToolRequests,
    ModelMessage,
    ModelRequest,
    ModelRequestNode,
    ModelResponse,
    ModelRetry,
    RequestUsage,
    RetryPromptPart,
    RunContext,
    RunUsage,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UnexpectedModelBehavior,
    UsageLimitExceeded,
    UsageLimits,
    UserError,
    UserPromptNode,
    UserPromptPart,
    capture_run_messages,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_graph import BaseNode, End, GraphRunContext
from pydantic_graph.exceptions import GraphRuntimeError

pytestmark = pytest.mark.anyio

# Typed as `Any` so the matchers can stand in for datetimes and strings in message constructors.
IS_NOW: Any = IsNow(tz=UTC)
IS_STR: Any = IsStr()


def call_tool_then_echo(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Call tool `t` after a user prompt, then answer with the tool's return value."""
    last = messages[-1].parts[-1]
    if isinstance(last, ToolReturnPart):
        return ModelResponse(parts=[TextPart(f'echo: {last.content}')])
    return ModelResponse(parts=[ToolCallPart('t', {}, tool_call_id='c1')])


def text_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answer with the instructions the model was given."""
    request = messages[-1]
    assert isinstance(request, ModelRequest)
    return ModelResponse(parts=[TextPart(f'instructions: {request.instructions}')])


async def test_run_with_tool_messages():
    agent = Agent(FunctionModel(call_tool_then_echo))

    @agent.tool_plain
    def t() -> str:
        return 'tool result'

    result = await agent.run('hello')
    assert result.output == 'echo: tool result'
    assert result.all_messages() == snapshot(
        [
            ModelRequest(
                parts=[
                    UserPromptPart(
                        content='hello',
                        timestamp=IS_NOW,
                    )
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[ToolCallPart(tool_name='t', args={}, tool_call_id='c1')],
                usage=RequestUsage(input_tokens=51, output_tokens=2),
                model_name='function:call_tool_then_echo:',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelRequest(
                parts=[
                    ToolReturnPart(
                        tool_name='t',
                        content='tool result',
                        tool_call_id='c1',
                        timestamp=IS_NOW,
                    )
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[TextPart(content='echo: tool result')],
                usage=RequestUsage(input_tokens=53, output_tokens=5),
                model_name='function:call_tool_then_echo:',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
        ]
    )
    assert result.usage() == snapshot(RunUsage(input_tokens=104, output_tokens=7, requests=2, tool_calls=1))
    assert result.run_id == IS_STR
    assert repr(result) == snapshot("AgentRunResult(output='echo: tool result')")
    assert result.new_messages_json() == result.all_messages_json()


def test_run_sync():
    result = Agent(TestModel()).run_sync('hello')
    assert result.output == 'success (no tool calls)'
    assert result.new_messages() == result.all_messages()


async def test_iter_async_for_nodes():
    agent = Agent(TestModel())
    async with agent.iter('hello') as run:
        assert repr(run) == snapshot('<AgentRun result=<run not finished> usage=RunUsage()>')
        nodes = [type(node).__name__ async for node in run]
        assert run.result is not None
        assert run.result.output == 'success (no tool calls)'
        assert run.usage() == snapshot(RunUsage(input_tokens=51, output_tokens=4, requests=1))
        assert run.run_id == IS_STR
        assert run.new_messages() == run.all_messages()
        assert run.all_messages_json() == run.new_messages_json()
    assert nodes == snapshot(['UserPromptNode', 'ModelRequestNode', 'CallToolsNode', 'End'])


async def test_iter_next():
    agent = Agent(TestModel())
    async with agent.iter('hello') as run:
        node = run.next_node
        assert isinstance(node, UserPromptNode)
        assert run.result is None
        node = await run.next(node)
        assert isinstance(node, ModelRequestNode)
        node = await run.next(node)
        assert isinstance(node, CallToolsNode)
        await run.next(node)
    assert run.result is not None
    assert run.result.output == 'success (no tool calls)'


async def test_iter_after_a_manual_step_goes_on_from_the_returned_node():
    agent = Agent(TestModel())
    async with agent.iter('hello') as run:
        assert isinstance(run.next_node, UserPromptNode)
        await run.next(run.next_node)
        nodes = [type(node).__name__ async for node in run]
        with pytest.raises(StopAsyncIteration):
            await run.__anext__()
    assert nodes == snapshot(['CallToolsNode', 'End'])


@dataclass
class _Stranger(BaseNode[None, None, None]):
    async def run(self, ctx: GraphRunContext[None, None]) -> End[None]:
        raise AssertionError('a node outside the agent graph never runs')  # pragma: no cover


async def test_iter_next_refuses_what_is_not_an_agent_node():
    agent = Agent(TestModel())
    async with agent.iter('hello') as run:
        with pytest.raises(TypeError, match=r'^`next` must be called with a `BaseNode` instance, got 42\.$'):
            await run.next(42)  # pyright: ignore[reportArgumentType]
        with pytest.raises(GraphRuntimeError, match=r'^Node `_Stranger\(\)` is not in the graph\.$'):
            await run.next(_Stranger())  # pyright: ignore[reportArgumentType]
        async for _ in run:
            pass
        with pytest.raises(TypeError, match='got End'):
            await run.next(run.next_node)  # pyright: ignore[reportArgumentType]
        assert run.result is not None


async def test_iter_next_refuses_a_node_that_returns_something_else():
    class BadRequest(ModelRequestNode[None, str]):
        @classmethod
        def get_node_id(cls) -> str:  # pyright: ignore[reportIncompatibleVariableOverride] -- a cached classmethod upstream
            return 'ModelRequestNode'  # passes for the graph's own request node

        async def run(self, ctx: Any) -> Any:
            return 'not a node'

    agent = Agent(TestModel())
    async with agent.iter('hello') as run:
        assert isinstance(run.next_node, UserPromptNode)
        node = await run.next(run.next_node)
        assert isinstance(node, ModelRequestNode)
        with pytest.raises(
            GraphRuntimeError, match=r'^Invalid node return type: `str`\. Expected `BaseNode` or `End`\.$'
        ):
            await run.next(BadRequest(node.request))


async def test_message_history_continuation():
    counter = 0
    agent = Agent(FunctionModel(call_tool_then_echo), system_prompt='static')

    @agent.system_prompt(dynamic=True)
    def dynamic() -> str:
        nonlocal counter
        counter += 1
        return f'dynamic {counter}'

    @agent.system_prompt
    async def with_ctx(ctx: RunContext[None]) -> str:
        return f'ctx prompt {ctx.run_step}'

    @agent.tool_plain
    def t() -> str:
        return 'x'

    first = await agent.run('one')
    second = await agent.run('two', message_history=first.all_messages())
    assert second.all_messages() == snapshot(
        [
            ModelRequest(
                parts=[
                    SystemPromptPart(
                        content='static',
                        timestamp=IS_NOW,
                    ),
                    SystemPromptPart(
                        content='dynamic 2',
                        timestamp=IS_NOW,
                        dynamic_ref='test_message_history_continuation.<locals>.dynamic',
                    ),
                    SystemPromptPart(
                        content='ctx prompt 0',
                        timestamp=IS_NOW,
                    ),
                    UserPromptPart(
                        content='one',
                        timestamp=IS_NOW,
                    ),
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[ToolCallPart(tool_name='t', args={}, tool_call_id='c1')],
                usage=RequestUsage(input_tokens=57, output_tokens=2),
                model_name='function:call_tool_then_echo:',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelRequest(
                parts=[
                    ToolReturnPart(
                        tool_name='t',
                        content='x',
                        tool_call_id='c1',
                        timestamp=IS_NOW,
                    )
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[TextPart(content='echo: x')],
                usage=RequestUsage(input_tokens=58, output_tokens=4),
                model_name='function:call_tool_then_echo:',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelRequest(
                parts=[
                    UserPromptPart(
                        content='two',
                        timestamp=IS_NOW,
                    )
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[ToolCallPart(tool_name='t', args={}, tool_call_id='c1')],
                usage=RequestUsage(input_tokens=59, output_tokens=6),
                model_name='function:call_tool_then_echo:',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelRequest(
                parts=[
                    ToolReturnPart(
                        tool_name='t',
                        content='x',
                        tool_call_id='c1',
                        timestamp=IS_NOW,
                    )
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[TextPart(content='echo: x')],
                usage=RequestUsage(input_tokens=60, output_tokens=8),
                model_name='function:call_tool_then_echo:',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
        ]
    )
    assert second.new_messages() == second.all_messages()[4:]


async def test_instructions_forms():
    agent = Agent(FunctionModel(text_model), instructions=['a', lambda: 'b'])

    @agent.instructions
    def from_ctx(ctx: RunContext[None]) -> str:
        return 'c'

    @agent.instructions
    async def from_async() -> str:
        return 'e'

    result = await agent.run('x')
    assert result.output == snapshot("""\
instructions: a

b

c

e\
""")


async def test_run_instructions_order():
    agent = Agent(FunctionModel(text_model), instructions=['a', lambda: 'b'])
    result = await agent.run('x', instructions='d')
    assert result.output == 'instructions: a\nd\n\nb'


async def test_instructions_str_and_function():
    assert (await Agent(FunctionModel(text_model), instructions='plain').run('x')).output == 'instructions: plain'
    agent = Agent(FunctionModel(text_model), deps_type=int, instructions=lambda ctx: f'deps {ctx.deps}')
    assert (await agent.run('x', deps=3)).output == 'instructions: deps 3'


async def test_deps():
    agent = Agent(TestModel(), deps_type=int)

    @agent.tool
    def double(ctx: RunContext[int]) -> int:
        return ctx.deps * 2

    result = await agent.run('x', deps=21)
    assert result.output == snapshot('{"double":42}')


async def test_override():
    agent = Agent(TestModel(), deps_type=int, instructions=lambda ctx: f'deps {ctx.deps}')
    with agent.override(deps=5, instructions='over', model=FunctionModel(text_model)):
        assert (await agent.run('x', deps=1)).output == 'instructions: over'
    with agent.override(deps=5, model=FunctionModel(text_model)):
        assert (await agent.run('x', deps=1)).output == 'instructions: deps 5'
    assert (await agent.run('x', deps=1)).output == 'success (no tool calls)'


async def test_override_tools_and_toolsets():
    agent = Agent(FunctionModel(call_tool_then_echo))

    def t() -> str:
        return 'from override'

    with agent.override(tools=[t]):
        assert (await agent.run('x')).output == 'echo: from override'
    from pydantic_ai import FunctionToolset

    with agent.override(toolsets=[FunctionToolset([t])]):
        assert (await agent.run('x')).output == 'echo: from override'


def test_override_run_sync():
    agent = Agent(TestModel())
    # A run before the override makes sure the thread's event loop already exists.
    assert agent.run_sync('x').output == 'success (no tool calls)'
    with agent.override(model=FunctionModel(text_model)):
        assert agent.run_sync('x').output == 'instructions: None'


def test_capture_run_messages_sync():
    def boom(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise RuntimeError('boom')

    Agent(TestModel()).run_sync('warm up')
    with capture_run_messages() as messages, pytest.raises(RuntimeError, match='boom'):
        Agent(FunctionModel(boom)).run_sync('hi')
    assert len(messages) == 1


async def test_capture_run_messages_failing_run():
    def boom(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise RuntimeError('boom')

    with capture_run_messages() as messages, pytest.raises(RuntimeError, match='boom'):
        await Agent(FunctionModel(boom)).run('hi')
    assert messages == [
        ModelRequest(
            parts=[UserPromptPart(content='hi', timestamp=IS_NOW)],
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    ]


async def test_no_model():
    with pytest.raises(UserError, match=r'`model` must either be set on the agent or included when calling it\.'):
        await Agent(None).run('x')
    assert (await Agent(None).run('x', model=TestModel())).output == 'success (no tool calls)'


def test_unknown_provider():
    with pytest.raises(ValueError, match='Unknown provider: foo'):
        Agent('foo:bar')


def test_missing_extra():
    with pytest.raises(UserError, match='`groq`'):
        Agent('groq:llama-3.3-70b-versatile')


def test_agent_repr():
    assert repr(Agent(TestModel(), name='n')) == snapshot(
        "Agent(model=TestModel(call_tools='all', custom_output_text=None, custom_output_args=None, seed=0, last_model_request_parameters=None), name='n', end_strategy='early', model_settings=None, output_type=<class 'str'>, instrument=None)"
    )


def unknown_tool(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Call a tool that does not exist, then answer with the retry prompt the agent sent back."""
    last = messages[-1].parts[-1]
    if isinstance(last, RetryPromptPart):
        return ModelResponse(parts=[TextPart(last.model_response())])
    return ModelResponse(parts=[ToolCallPart('x', {}, tool_call_id='c1')])


def always_unknown_tool(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Always call a tool that does not exist."""
    return ModelResponse(parts=[ToolCallPart('x', {}, tool_call_id='c1')])


async def test_unknown_tool_with_tools():
    agent = Agent(FunctionModel(unknown_tool), retries=1)

    @agent.tool_plain
    def a() -> int:
        return 1  # pragma: no cover

    @agent.tool_plain
    def b() -> int:
        return 1  # pragma: no cover

    result = await agent.run('hi')
    assert result.output == snapshot("""\
Unknown tool name: 'x'. Available tools: 'a', 'b'

Fix the errors and try again.\
""")
    assert result.all_messages()[2] == snapshot(
        ModelRequest(
            parts=[
                RetryPromptPart(
                    content="Unknown tool name: 'x'. Available tools: 'a', 'b'",
                    tool_name='x',
                    tool_call_id='c1',
                    timestamp=IS_NOW,
                )
            ],
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )


async def test_unknown_tool_without_tools():
    result = await Agent(FunctionModel(unknown_tool), retries=1).run('hi')
    assert result.output == snapshot("""\
Unknown tool name: 'x'. No tools available.

Fix the errors and try again.\
""")


async def test_unknown_tool_exceeds_retries():
    with pytest.raises(UnexpectedModelBehavior, match=r'Exceeded maximum retries \(1\) for output validation'):
        await Agent(FunctionModel(always_unknown_tool), retries=1).run('hi')


async def test_empty_response_retries():
    def empty_then_text(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart('ok')] if len(messages) > 1 else [])

    result = await Agent(FunctionModel(empty_then_text), retries=1).run('hi')
    assert result.all_messages() == snapshot(
        [
            ModelRequest(
                parts=[
                    UserPromptPart(
                        content='hi',
                        timestamp=IS_NOW,
                    )
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[],
                usage=RequestUsage(input_tokens=51),
                model_name='function:empty_then_text:',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelRequest(
                parts=[],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[TextPart(content='ok')],
                usage=RequestUsage(input_tokens=51, output_tokens=1),
                model_name='function:empty_then_text:',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
        ]
    )


async def test_empty_response_exceeds_retries():
    def empty(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[])

    with pytest.raises(UnexpectedModelBehavior, match=r'Exceeded maximum retries \(1\) for output validation'):
        await Agent(FunctionModel(empty), retries=1).run('hi')


class Out(BaseModel):
    """Structured output for end-strategy tests."""

    a: int


def two_outputs(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Return two output tool calls interleaved with two function tool calls."""
    return ModelResponse(
        parts=[
            ToolCallPart('final_result', {'a': 1}, tool_call_id='o1'),
            ToolCallPart('f', {}, tool_call_id='f1'),
            ToolCallPart('final_result', {'a': 2}, tool_call_id='o2'),
            ToolCallPart('f', {}, tool_call_id='f2'),
        ]
    )


async def test_end_strategy_early():
    agent = Agent(FunctionModel(two_outputs), output_type=Out)
    calls: list[str] = []

    @agent.tool_plain
    def f() -> str:
        calls.append('f')  # pragma: no cover
        return 'fr'  # pragma: no cover

    result = await agent.run('x')
    assert result.output == Out(a=1)
    assert calls == []
    assert result.all_messages()[2] == snapshot(
        ModelRequest(
            parts=[
                ToolReturnPart(
                    tool_name='final_result',
                    content='Final result processed.',
                    tool_call_id='o1',
                    timestamp=IS_NOW,
                ),
                ToolReturnPart(
                    tool_name='final_result',
                    content='Output tool not used - a final result was already processed.',
                    tool_call_id='o2',
                    timestamp=IS_NOW,
                ),
                ToolReturnPart(
                    tool_name='f',
                    content='Tool not executed - a final result was already processed.',
                    tool_call_id='f1',
                    timestamp=IS_NOW,
                ),
                ToolReturnPart(
                    tool_name='f',
                    content='Tool not executed - a final result was already processed.',
                    tool_call_id='f2',
                    timestamp=IS_NOW,
                ),
            ],
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )


async def test_end_strategy_exhaustive():
    agent = Agent(FunctionModel(two_outputs), output_type=Out, end_strategy='exhaustive')
    calls: list[str] = []

    @agent.tool_plain
    def f() -> str:
        calls.append('f')
        return 'fr'

    result = await agent.run('x')
    assert result.output == Out(a=1)
    assert calls == ['f', 'f']
    assert result.all_messages()[2] == snapshot(
        ModelRequest(
            parts=[
                ToolReturnPart(
                    tool_name='final_result',
                    content='Final result processed.',
                    tool_call_id='o1',
                    timestamp=IS_NOW,
                ),
                ToolReturnPart(
                    tool_name='final_result',
                    content='Final result processed.',
                    tool_call_id='o2',
                    timestamp=IS_NOW,
                ),
                ToolReturnPart(
                    tool_name='f',
                    content='fr',
                    tool_call_id='f1',
                    timestamp=IS_NOW,
                ),
                ToolReturnPart(
                    tool_name='f',
                    content='fr',
                    tool_call_id='f2',
                    timestamp=IS_NOW,
                ),
            ],
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )


def one_tool_call(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Call tool `aa` once, then answer 'done'."""
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart('aa', {}, tool_call_id='c1')])
    return ModelResponse(parts=[TextPart('done')])


def limits_agent() -> Agent[None, str]:
    """An agent that calls one tool and then answers."""
    agent = Agent(FunctionModel(one_tool_call))

    @agent.tool_plain
    def aa() -> int:
        return 1

    return agent


@pytest.mark.parametrize(
    ('limits', 'message'),
    [
        (UsageLimits(request_limit=1), 'The next request would exceed the request_limit of 1'),
        (
            UsageLimits(tool_calls_limit=0),
            r'The next tool call\(s\) would exceed the tool_calls_limit of 0 \(tool_calls=1\).',
        ),
        (UsageLimits(input_tokens_limit=10), r'Exceeded the input_tokens_limit of 10 \(input_tokens=51\)'),
        (UsageLimits(output_tokens_limit=3), r'Exceeded the output_tokens_limit of 3 \(output_tokens=5\)'),
        (UsageLimits(total_tokens_limit=10), r'Exceeded the total_tokens_limit of 10 \(total_tokens=53\)'),
    ],
)
async def test_usage_limits(limits: UsageLimits, message: str):
    with pytest.raises(UsageLimitExceeded, match=message):
        await limits_agent().run('x', usage_limits=limits)


async def test_usage_within_limits():
    result = await limits_agent().run('x', usage_limits=UsageLimits(request_limit=2, tool_calls_limit=1))
    assert result.usage() == RunUsage(input_tokens=103, output_tokens=5, requests=2, tool_calls=1)
    assert result.all_messages()[1] == ModelResponse(
        parts=[ToolCallPart('aa', {}, tool_call_id='c1')],
        usage=RequestUsage(input_tokens=51, output_tokens=2),
        model_name='function:one_tool_call:',
        timestamp=IS_NOW,
        run_id=IS_STR,
    )


def call_aa(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Always call tool `aa`."""
    return ModelResponse(parts=[ToolCallPart('aa', {}, tool_call_id='c1')])


async def test_deferred_tool_requests_output():
    agent = Agent(FunctionModel(call_aa), output_type=[str, DeferredToolRequests])

    @agent.tool_plain(requires_approval=True)
    def aa() -> int:
        return 1  # pragma: no cover

    result = await agent.run('x')
    assert result.output == snapshot(
        DeferredToolRequests(approvals=[ToolCallPart(tool_name='aa', args={}, tool_call_id='c1')])
    )


async def test_call_deferred_output():
    agent = Agent(FunctionModel(call_aa), output_type=[str, DeferredToolRequests])

    @agent.tool_plain
    def aa() -> int:
        raise CallDeferred

    result = await agent.run('x')
    assert result.output == snapshot(
        DeferredToolRequests(calls=[ToolCallPart(tool_name='aa', args={}, tool_call_id='c1')])
    )


async def test_deferred_without_output_type():
    agent = Agent(FunctionModel(call_aa))

    @agent.tool_plain
    def aa() -> int:
        raise CallDeferred

    with pytest.raises(
        UserError,
        match=r'A deferred tool call was present, but `DeferredToolRequests` is not among output types\.',
    ):
        await agent.run('x')


async def test_requires_approval_without_deferred_output():
    # Unlike upstream, registering the tool is accepted whatever the output type (spec decision 3): only a run
    # that would end with its deferred call fails, and it says how to fix it.
    agent = Agent(FunctionModel(call_aa))
    agent.tool_plain(requires_approval=True, name='aa')(lambda: 1)
    with pytest.raises(
        UserError,
        match=r'^A deferred tool call was present, but `DeferredToolRequests` is not among output types\.',
    ):
        await agent.run('x')
    result = await agent.run('x', output_type=[str, DeferredToolRequests])
    assert result.output == DeferredToolRequests(approvals=[ToolCallPart(tool_name='aa', args={}, tool_call_id='c1')])


async def test_finished_run_repr():
    async with Agent(TestModel()).iter('x') as run:
        async for _ in run:
            pass
    assert repr(run) == (
        "<AgentRun result='success (no tool calls)' usage=RunUsage(input_tokens=51, output_tokens=4, requests=1)>"
    )


async def test_agent_properties_and_context_manager():
    agent = Agent(TestModel(), deps_type=int, output_type=Out)
    assert agent.deps_type is int
    assert agent.output_type is Out
    assert isinstance(agent.model, TestModel)
    assert len(agent.toolsets) == 1
    async with agent as entered:
        assert entered is agent
        result = await agent.run('x', deps=1)
    assert result.output == Out(a=0)
    assert result.timestamp() == IS_NOW


async def test_output_validator_retry():
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(f'answer {len(messages)}')])

    agent = Agent(FunctionModel(model))

    @agent.output_validator
    def check(ctx: RunContext[None], output: str) -> str:
        if output == 'answer 1':
            raise ModelRetry('not the first answer')
        return output.upper()

    result = await agent.run('x')
    assert result.output == 'ANSWER 3'
    with pytest.raises(UserError, match='Cannot set a custom run `output_type` when the agent has output validators'):
        await agent.run('x', output_type=int)


async def test_output_tool_bad_args_retry():
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        args: dict[str, Any] = {'a': 'no'} if len(messages) == 1 else {'a': 7}
        return ModelResponse(parts=[ToolCallPart('final_result', args, tool_call_id='o1')])

    result = await Agent(FunctionModel(model), output_type=Out).run('x')
    assert result.output == Out(a=7)
    assert result.all_messages()[2] == snapshot(
        ModelRequest(
            parts=[
                RetryPromptPart(
                    content=[
                        {
                            'type': 'int_parsing',
                            'loc': ('a',),
                            'msg': 'Input should be a valid integer, unable to parse string as an integer',
                            'input': 'no',
                        }
                    ],
                    tool_name='final_result',
                    tool_call_id='o1',
                    timestamp=IS_NOW,
                )
            ],
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )


async def test_history_ending_with_request():
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart('earlier')])]
    result = await Agent(TestModel()).run('now', message_history=history)
    assert [[getattr(part, 'content', None) for part in message.parts] for message in result.all_messages()] == [
        ['earlier'],
        ['now'],
        ['success (no tool calls)'],
    ]


async def test_run_ctx():
    async with Agent(TestModel()).iter('x', deps=None) as run:
        assert run.ctx.state.usage == RunUsage()


async def test_history_adjacent_messages_are_merged():
    seen: list[list[tuple[str, Any, str | None]]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(
            [
                (
                    message.kind,
                    [getattr(p, 'content', None) for p in message.parts],
                    getattr(message, 'instructions', None),
                )
                for message in messages
            ]
        )
        return ModelResponse(parts=[TextPart('done')])

    agent = Agent(FunctionModel(model), instructions='I')
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('a')], instructions='old'),
        ModelRequest(parts=[UserPromptPart('b')]),
        ModelResponse(parts=[TextPart('r1')]),
        ModelResponse(parts=[TextPart('r2')]),
        ModelRequest(parts=[UserPromptPart('c')]),
    ]
    result = await agent.run('now', message_history=history)
    # Stored: the history merged, its trailing request kept apart from the new one.
    assert [[getattr(p, 'content', None) for p in m.parts] for m in result.all_messages()] == [
        ['a', 'b'],
        ['r1', 'r2'],
        ['c'],
        ['now'],
        ['done'],
    ]
    assert len(result.new_messages()) == 2
    # Sent: requests and responses take turns.
    assert seen == [
        [
            ('request', ['a', 'b'], 'old'),
            ('response', ['r1', 'r2'], None),
            ('request', ['c', 'now'], 'I'),
        ]
    ]
    # Requests with different instructions stay apart.
    seen.clear()
    apart: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('a')], instructions='old'),
        ModelRequest(parts=[UserPromptPart('b')], instructions='new'),
    ]
    await agent.run(message_history=apart)
    assert seen == [[('request', ['a'], 'old'), ('request', ['b'], 'I')]]


@pytest.mark.parametrize(
    ('parts', 'output_type', 'retry'),
    [
        ([], str, None),
        ([TextPart('')], str, 'Please return text or call a tool.'),
        ([ThinkingPart('hmm')], str, 'Please return text or call a tool.'),
        ([TextPart('')], Out, 'Please return text or include your response in a tool call.'),
        ([], Out, None),
    ],
)
async def test_response_without_text_or_tool_calls(parts: list[Any], output_type: Any, retry: str | None):
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=list(parts))
        if info.output_tools:
            return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {'a': 1})])
        return ModelResponse(parts=[TextPart('ok')])

    result = await Agent(FunctionModel(model), output_type=output_type).run('x')
    assert result.output in ('ok', Out(a=1))
    second_request = result.all_messages()[2]
    assert isinstance(second_request, ModelRequest)
    assert second_request.parts == (
        [] if retry is None else [RetryPromptPart(retry, tool_call_id=IS_STR, timestamp=IS_NOW)]
    )


async def test_always_empty_response_exhausts_output_retries():
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[])

    with capture_run_messages() as messages:
        with pytest.raises(UnexpectedModelBehavior, match=r'Exceeded maximum retries \(2\) for output validation'):
            await Agent(FunctionModel(model), output_retries=2).run('x')
    assert len(messages) == 6


async def test_output_tool_retries_follow_output_retries():
    seen: list[tuple[int, int, str | None, dict[str, int]]] = []

    def out(ctx: RunContext[None], a: int) -> int:
        seen.append((ctx.retry, ctx.max_retries, ctx.tool_name, dict(ctx.retries)))
        if ctx.retry < 2:
            raise ModelRetry('again')
        return a

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {'a': len(messages)})])

    result = await Agent(FunctionModel(model), output_type=out, retries=5, output_retries=2).run('x')
    assert result.output == 5
    assert seen == [
        (0, 2, 'final_result', {}),
        (1, 2, 'final_result', {'final_result': 1}),
        (2, 2, 'final_result', {'final_result': 2}),
    ]
    seen.clear()
    with pytest.raises(UnexpectedModelBehavior, match=r'Exceeded maximum retries \(1\) for output validation'):
        await Agent(FunctionModel(model), output_type=out).run('x')
    assert [retry for retry, *_ in seen] == [0, 1]


async def test_run_sync_inside_a_running_loop():
    with pytest.raises(RuntimeError, match='This event loop is already running'):
        Agent(TestModel()).run_sync('x')


async def test_nothing_to_send():
    with pytest.raises(UserError, match='No message history, user prompt, or instructions provided'):
        await Agent(TestModel()).run()
    # Instructions or a system prompt alone are something to send.
    assert (await Agent(TestModel(), instructions='I').run()).output == 'success (no tool calls)'
    assert (await Agent(TestModel(), system_prompt='S').run()).output == 'success (no tool calls)'
