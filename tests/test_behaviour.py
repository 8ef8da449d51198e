"""Behaviours matched to upstream v1.51: history shapes, the tool pipeline, finish reasons and streaming.

Each area also has a program under `tests/compat/` (`behaviour_*.py`) whose output is compared with what
upstream printed; these tests pin the same behaviours as whole-history snapshots.
"""

# pyright: reportUnusedFunction=false
# Tools registered by decorator are only used through the agent, which pyright cannot see.

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from datetime import UTC
from typing import Any

import pytest
from dirty_equals import IsNow, IsStr
from inline_snapshot import snapshot
from pydantic import BaseModel
from pydantic_ai import (
    Agent,
    ApprovalRequired,
    BinaryContent,
    DeferredToolRequests,
    DeferredToolResults,
    EndStrategy,
    ImageUrl,
    IncompleteToolCall,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelRequestNode,
    ModelResponse,
    ModelRetry,
    ModelSettings,
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
    UserContent,
    UserError,
    UserPromptPart,
    capture_run_messages,
)
from pydantic_ai.exceptions import ContentFilterError
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.toolsets import ExternalToolset, FunctionToolset

pytestmark = pytest.mark.anyio

IS_NOW: Any = IsNow(tz=UTC)
IS_STR: Any = IsStr()


def call_then_text(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Call tool `show` once, then answer `done`."""
    if any(isinstance(p, ToolReturnPart) for m in messages[-1:] for p in m.parts):
        return ModelResponse(parts=[TextPart('done')])
    return ModelResponse(parts=[ToolCallPart('show', {}, tool_call_id='s1')])


@pytest.mark.parametrize(
    ('parts', 'expected'),
    [
        ([UserPromptPart('second')], 'second'),
        ([UserPromptPart(['x', 'y'])], ['x', 'y']),
        ([UserPromptPart('first'), UserPromptPart(['a', 'b'])], ['first', 'a', 'b']),
        ([ToolReturnPart('show', 'ok', 'zz')], None),
    ],
)
async def test_prompt_of_a_history_ending_with_a_request(
    parts: list[Any], expected: str | Sequence[UserContent] | None
):
    seen: list[str | Sequence[UserContent] | None] = []
    agent = Agent(FunctionModel(call_then_text))

    @agent.instructions
    def instructions(ctx: RunContext[None]) -> str:
        seen.append(ctx.prompt)
        return 'Be brief.'

    @agent.tool
    def show(ctx: RunContext[None]) -> str:
        seen.append(ctx.prompt)
        return 'ok'

    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('hi')]),
        ModelResponse(parts=[TextPart('hello')]),
        ModelRequest(parts=parts),
    ]
    result = await agent.run(message_history=history)
    assert result.output == 'done'
    assert seen and all(prompt == expected for prompt in seen)


async def test_history_ending_with_a_tool_call_response_is_continued():
    agent = Agent(FunctionModel(call_then_text))

    @agent.tool_plain
    def show() -> str:
        return 'ok'

    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('hi')]),
        ModelResponse(parts=[ToolCallPart('show', {}, tool_call_id='x1')]),
    ]
    result = await agent.run(message_history=history)
    assert result.all_messages() == snapshot(
        [
            ModelRequest(parts=[UserPromptPart(content='hi', timestamp=IS_NOW)]),
            ModelResponse(parts=[ToolCallPart(tool_name='show', args={}, tool_call_id='x1')], timestamp=IS_NOW),
            ModelRequest(
                parts=[ToolReturnPart(tool_name='show', content='ok', tool_call_id='x1', timestamp=IS_NOW)],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[TextPart(content='done')],
                usage=RequestUsage(input_tokens=52, output_tokens=3),
                model_name='function:call_then_text:',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
        ]
    )


def scripted_calls(*calls: ToolCallPart) -> FunctionModel:
    """A model that makes `calls` in its first response, then calls the output tool with `{'a': 9}`."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=list(calls))
        return ModelResponse(parts=[ToolCallPart('final_result', {'a': 9}, tool_call_id='last')])

    return FunctionModel(respond)


class Out(BaseModel):
    a: int


def part_order_agent(model: FunctionModel, end_strategy: EndStrategy) -> Agent[None, Out | DeferredToolRequests]:
    agent = Agent(
        model,
        output_type=[Out, DeferredToolRequests],
        end_strategy=end_strategy,
        toolsets=[ExternalToolset[None]([ToolDefinition(name='ext')])],
    )

    @agent.tool_plain
    def plain() -> str:
        return 'plain ran'

    @agent.tool_plain(requires_approval=True)
    def needs_ok() -> str:
        return 'ok ran'  # pragma: no cover

    @agent.tool
    def raiser(ctx: RunContext[None]) -> str:
        raise ApprovalRequired()

    return agent


ALL_KINDS = (
    ToolCallPart('nope', {}, tool_call_id='u1'),
    ToolCallPart('needs_ok', {}, tool_call_id='n1'),
    ToolCallPart('final_result', {'a': 1}, tool_call_id='o1'),
    ToolCallPart('raiser', {}, tool_call_id='r1'),
    ToolCallPart('plain', {}, tool_call_id='p1'),
    ToolCallPart('ext', {}, tool_call_id='e1'),
    ToolCallPart('final_result', {'a': 2}, tool_call_id='o2'),
)


async def test_part_order_with_every_kind_of_call_early():
    result = await part_order_agent(scripted_calls(*ALL_KINDS), 'early').run('go')
    assert result.output == Out(a=1)
    assert result.all_messages()[2:] == snapshot(
        [
            ModelRequest(
                parts=[
                    ToolReturnPart(
                        tool_name='final_result', content='Final result processed.', tool_call_id='o1', timestamp=IS_NOW
                    ),
                    ToolReturnPart(
                        tool_name='final_result',
                        content='Output tool not used - a final result was already processed.',
                        tool_call_id='o2',
                        timestamp=IS_NOW,
                    ),
                    ToolReturnPart(
                        tool_name='raiser',
                        content='Tool not executed - a final result was already processed.',
                        tool_call_id='r1',
                        timestamp=IS_NOW,
                    ),
                    ToolReturnPart(
                        tool_name='plain',
                        content='Tool not executed - a final result was already processed.',
                        tool_call_id='p1',
                        timestamp=IS_NOW,
                    ),
                    RetryPromptPart(
                        content="Unknown tool name: 'nope'. Available tools: 'final_result', 'plain', 'needs_ok', 'raiser', 'ext'",
                        tool_name='nope',
                        tool_call_id='u1',
                        timestamp=IS_NOW,
                    ),
                    ToolReturnPart(
                        tool_name='ext',
                        content='Tool not executed - a final result was already processed.',
                        tool_call_id='e1',
                        timestamp=IS_NOW,
                    ),
                    ToolReturnPart(
                        tool_name='needs_ok',
                        content='Tool not executed - a final result was already processed.',
                        tool_call_id='n1',
                        timestamp=IS_NOW,
                    ),
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            )
        ]
    )


async def test_part_order_with_every_kind_of_call_exhaustive():
    result = await part_order_agent(scripted_calls(*ALL_KINDS), 'exhaustive').run('go')
    assert result.output == Out(a=1)
    # Unlike upstream, the call that raised `ApprovalRequired` gets a result too, in its place.
    assert result.all_messages()[2:] == snapshot(
        [
            ModelRequest(
                parts=[
                    ToolReturnPart(
                        tool_name='final_result', content='Final result processed.', tool_call_id='o1', timestamp=IS_NOW
                    ),
                    ToolReturnPart(
                        tool_name='final_result', content='Final result processed.', tool_call_id='o2', timestamp=IS_NOW
                    ),
                    ToolReturnPart(
                        tool_name='raiser',
                        content='Tool not executed - a final result was already processed.',
                        tool_call_id='r1',
                        timestamp=IS_NOW,
                    ),
                    ToolReturnPart(tool_name='plain', content='plain ran', tool_call_id='p1', timestamp=IS_NOW),
                    RetryPromptPart(
                        content="Unknown tool name: 'nope'. Available tools: 'final_result', 'plain', 'needs_ok', 'raiser', 'ext'",
                        tool_name='nope',
                        tool_call_id='u1',
                        timestamp=IS_NOW,
                    ),
                    ToolReturnPart(
                        tool_name='ext',
                        content='Tool not executed - a final result was already processed.',
                        tool_call_id='e1',
                        timestamp=IS_NOW,
                    ),
                    ToolReturnPart(
                        tool_name='needs_ok',
                        content='Tool not executed - a final result was already processed.',
                        tool_call_id='n1',
                        timestamp=IS_NOW,
                    ),
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            )
        ]
    )


@pytest.mark.parametrize(
    ('output_retries', 'second'),
    [
        (0, 'Output tool not used - output failed validation.'),
        (
            1,
            [
                {
                    'type': 'int_parsing',
                    'loc': ('a',),
                    'msg': 'Input should be a valid integer, unable to parse string as an integer',
                    'input': 'x',
                }
            ],
        ),
    ],
)
async def test_invalid_output_call_after_the_output(output_retries: int, second: Any):
    model = scripted_calls(
        ToolCallPart('final_result', {'a': 1}, tool_call_id='o1'),
        ToolCallPart('final_result', {'a': 'x'}, tool_call_id='o2'),
    )
    agent = Agent(model, output_type=Out, end_strategy='exhaustive', output_retries=output_retries)
    result = await agent.run('go')
    assert result.output == Out(a=1)
    parts = result.all_messages()[-1].parts
    assert [p.content for p in parts if isinstance(p, ToolReturnPart | RetryPromptPart)] == [
        'Final result processed.',
        second,
    ]


async def test_tool_takes_the_agent_retries():
    retries_seen: list[tuple[int, int]] = []

    def always_retry(ctx: RunContext[None]) -> str:
        retries_seen.append((ctx.retry, ctx.max_retries))
        raise ModelRetry('again')

    tool = Tool(always_retry)
    agent = Agent(scripted_calls(ToolCallPart('always_retry', {})), retries=3, tools=[tool])
    assert tool.max_retries == 3
    model = FunctionModel(lambda messages, info: ModelResponse(parts=[ToolCallPart('always_retry', {})]))
    with pytest.raises(UnexpectedModelBehavior, match=r"^Tool 'always_retry' exceeded max retries count of 3$"):
        await agent.run('go', model=model)
    assert retries_seen == [(0, 3), (1, 3), (2, 3), (3, 3)]


@pytest.mark.parametrize(
    ('retries', 'output_retries', 'error', 'messages'),
    [
        (2, None, r'^Exceeded maximum retries \(2\) for output validation$', 6),
        (3, 1, r'^Exceeded maximum retries \(1\) for output validation$', 4),
        (1, 4, r"^Tool 'nope' exceeded max retries count of 1$", 4),
    ],
)
async def test_unknown_tool_calls_count_against_both_limits(
    retries: int, output_retries: int | None, error: str, messages: int
):
    model = FunctionModel(lambda m, info: ModelResponse(parts=[ToolCallPart('nope', {}, tool_call_id=f'u{len(m)}')]))
    agent = Agent(model, retries=retries, output_retries=output_retries)
    with capture_run_messages() as captured:
        with pytest.raises(UnexpectedModelBehavior, match=error):
            await agent.run('go')
    assert len(captured) == messages
    assert captured[2] == snapshot(
        ModelRequest(
            parts=[
                RetryPromptPart(
                    content="Unknown tool name: 'nope'. No tools available.",
                    tool_name='nope',
                    tool_call_id='u1',
                    timestamp=IS_NOW,
                )
            ],
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )


def returns(value: Any) -> Agent[None, str]:
    """An agent whose model calls tool `give` (which returns `value`) once, then answers `done`."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart('give', {}, tool_call_id='g1')])
        return ModelResponse(parts=[TextPart('done')])

    def give() -> Any:
        return value

    return Agent(FunctionModel(respond), tools=[give])


async def test_tool_returning_files():
    result = await returns(
        ['text', ImageUrl('https://example.com/b.png'), BinaryContent(b'abc', media_type='image/png')]
    ).run('go')
    assert result.all_messages()[2] == snapshot(
        ModelRequest(
            parts=[
                ToolReturnPart(
                    tool_name='give',
                    content=['text', 'See file a98844', 'See file a9993e'],
                    tool_call_id='g1',
                    timestamp=IS_NOW,
                ),
                UserPromptPart(
                    content=[
                        'This is file a98844:',
                        ImageUrl(url='https://example.com/b.png'),
                        'This is file a9993e:',
                        BinaryContent(data=b'abc', media_type='image/png'),
                    ],
                    timestamp=IS_NOW,
                ),
            ],
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )


async def test_tool_returning_one_file():
    result = await returns(BinaryContent(b'\x89PNG', media_type='image/png')).run('go')
    assert result.all_messages()[2] == snapshot(
        ModelRequest(
            parts=[
                ToolReturnPart(tool_name='give', content='See file 4effda', tool_call_id='g1', timestamp=IS_NOW),
                UserPromptPart(
                    content=['This is file 4effda:', BinaryContent(data=b'\x89PNG', media_type='image/png')],
                    timestamp=IS_NOW,
                ),
            ],
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )


@pytest.mark.parametrize(
    ('value', 'message'),
    [
        (
            [ToolReturn('x'), 'y'],
            "The return value of tool 'give' contains invalid nested `ToolReturn` objects. "
            '`ToolReturn` should be used directly.',
        ),
        (
            ToolReturn(['a', ImageUrl('https://example.com/e.png')]),
            "The `return_value` of tool 'give' contains invalid nested `MultiModalContent` objects. "
            'Please use `content` instead.',
        ),
    ],
)
async def test_misplaced_tool_return_or_file(value: Any, message: str):
    with pytest.raises(UserError) as exc_info:
        await returns(value).run('go')
    assert str(exc_info.value) == message


async def test_external_result_holding_a_file_is_refused():
    agent = Agent(
        FunctionModel(lambda m, i: ModelResponse(parts=[ToolCallPart('ext', {}, tool_call_id='e1')])),
        output_type=[str, DeferredToolRequests],
        toolsets=[ExternalToolset[None]([ToolDefinition(name='ext')])],
    )
    first = await agent.run('go')
    results = DeferredToolResults(calls={'e1': ImageUrl('https://example.com/x.png')})
    with pytest.raises(
        UserError, match=r"^The `return_value` of tool 'ext' contains invalid nested `MultiModalContent`"
    ):
        await agent.run(message_history=first.all_messages(), deferred_tool_results=results)


@pytest.mark.parametrize(
    ('make_agent', 'message'),
    [
        (
            lambda: Agent('test', tools=[Tool(add, name='final_result')], output_type=Out),
            "The agent defines a tool whose name conflicts with existing tool from the agent's output tools: "
            "'final_result'. Rename the tool or wrap the toolset in a `PrefixedToolset` to avoid name conflicts.",
        ),
        (
            lambda: Agent('test', tools=[add], toolsets=[FunctionToolset([add])]),
            "FunctionToolset defines a tool whose name conflicts with existing tool from the agent: 'add'. "
            'Rename the tool or wrap the toolset in a `PrefixedToolset` to avoid name conflicts.',
        ),
    ],
)
async def test_tool_name_conflicts(make_agent: Callable[[], Agent[None, Any]], message: str):
    with pytest.raises(UserError) as exc_info:
        await make_agent().run('go')
    assert str(exc_info.value) == message


def add(a: int, b: int) -> int:
    return a + b  # pragma: no cover


async def test_prepare_sees_the_step_request_and_the_tool_retries():
    seen: list[tuple[int, int, dict[str, int], int, list[str]]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = sum(isinstance(m, ModelResponse) for m in messages)
        if done < 2:
            return ModelResponse(parts=[ToolCallPart('flaky', {'x': done}, tool_call_id=f'f{done}')])
        return ModelResponse(parts=[TextPart('done')])

    async def prepare(ctx: RunContext[None], tool_def: ToolDefinition) -> ToolDefinition:
        kinds = [m.kind for m in ctx.messages]
        seen.append((ctx.retry, ctx.max_retries, dict(ctx.retries), ctx.run_step, kinds))
        return tool_def

    agent = Agent(FunctionModel(respond), retries=3)

    @agent.tool(prepare=prepare)
    def flaky(ctx: RunContext[None], x: int) -> int:
        if x < 1:
            raise ModelRetry('again')
        return x

    await agent.run('go')
    assert seen == snapshot(
        [
            (0, 3, {}, 1, ['request']),
            (1, 3, {'flaky': 1}, 2, ['request', 'response', 'request']),
            (0, 3, {}, 3, ['request', 'response', 'request', 'response', 'request']),
        ]
    )


async def test_instructions_see_the_step_before_the_request():
    seen: list[tuple[int, list[str]]] = []
    agent = Agent(FunctionModel(call_then_text))

    @agent.instructions
    def instructions(ctx: RunContext[None]) -> str:
        seen.append((ctx.run_step, [m.kind for m in ctx.messages]))
        return 'Be brief.'

    @agent.tool_plain
    def show() -> str:
        return 'ok'

    await agent.run('go')
    assert seen == snapshot([(0, []), (1, ['request', 'response'])])


class StepValidator:
    """A callable instance that takes the run context."""

    async def __call__(self, ctx: RunContext[None], output: str) -> str:
        return f'{output} at step {ctx.run_step}'


class StepInstructions:
    """A callable instance that takes the run context."""

    def __call__(self, ctx: RunContext[None]) -> str:
        return f'Step {ctx.run_step}.'


async def test_callable_instances_taking_run_context():
    agent = Agent(TestModel(custom_output_text='out'), instructions=StepInstructions())
    agent.output_validator(StepValidator())
    result = await agent.run('go')
    assert result.output == 'out at step 1'
    assert [getattr(m, 'instructions', None) for m in result.all_messages()] == ['Step 0.', None]


def script(*responses: ModelResponse) -> FunctionModel:
    """A model that answers with `responses` in turn, repeating the last one."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = sum(isinstance(m, ModelResponse) for m in messages)
        return responses[min(done, len(responses) - 1)]

    return FunctionModel(respond)


def show_x(x: int) -> int:
    return x


@pytest.mark.parametrize(
    ('settings', 'limit'), [({'max_tokens': 50}, '50'), (None, 'provider default')], ids=['max_tokens', 'default']
)
async def test_output_tool_call_cut_off_by_the_token_limit(settings: ModelSettings | None, limit: str):
    model = script(ModelResponse(parts=[ToolCallPart('final_result', '{"a": 1', 'o1')], finish_reason='length'))
    with pytest.raises(IncompleteToolCall) as exc_info:
        await Agent(model, output_type=Out, model_settings=settings).run('go')
    assert str(exc_info.value) == (
        f'Model token limit ({limit}) exceeded while generating a tool call, resulting in incomplete arguments. '
        'Increase the `max_tokens` model setting, or simplify the prompt to result in a shorter response that will '
        'fit within the limit.'
    )


async def test_empty_response_cut_off_by_the_token_limit():
    model = script(ModelResponse(parts=[], finish_reason='length'))
    model_with_settings = FunctionModel(model.function, settings={'max_tokens': 7})
    with pytest.raises(UnexpectedModelBehavior, match=r'^Model token limit \(9\) exceeded before any response'):
        await Agent(model_with_settings).run('go', model_settings={'max_tokens': 9})
    with pytest.raises(UnexpectedModelBehavior, match=r'^Model token limit \(7\) exceeded before any response'):
        await Agent(model_with_settings).run('go')


async def test_empty_response_stopped_by_a_content_filter():
    model = script(ModelResponse(parts=[], finish_reason='content_filter', model_name='m'))
    with capture_run_messages() as messages:
        with pytest.raises(ContentFilterError) as exc_info:
            await Agent(model).run('go')
    assert exc_info.value.message == "Content filter triggered. Finish reason: 'content_filter'"
    assert exc_info.value.body is not None
    assert ModelMessagesTypeAdapter.validate_json(exc_info.value.body) == messages[1:]


async def test_text_of_a_content_filtered_response_is_the_output():
    model = script(ModelResponse(parts=[TextPart('partial')], finish_reason='content_filter'))
    assert (await Agent(model).run('go')).output == 'partial'


async def test_empty_response_after_text_and_a_tool_call_ends_with_that_text():
    model = script(
        ModelResponse(parts=[TextPart('thinking aloud'), ToolCallPart('show_x', {'x': 1}, tool_call_id='c1')]),
        ModelResponse(parts=[]),
    )
    result = await Agent(model, tools=[show_x]).run('go')
    assert result.output == 'thinking aloud'
    assert result.all_messages()[2:] == snapshot(
        [
            ModelRequest(
                parts=[ToolReturnPart(tool_name='show_x', content=1, tool_call_id='c1', timestamp=IS_NOW)],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[],
                usage=RequestUsage(input_tokens=52, output_tokens=6),
                model_name='function:respond:',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
        ]
    )


async def test_empty_response_after_a_tool_call_asks_again():
    model = script(
        ModelResponse(parts=[TextPart('thinking aloud'), ToolCallPart('show_x', {'x': 1}, tool_call_id='c1')]),
        ModelResponse(parts=[]),
        ModelResponse(parts=[ToolCallPart('final_result', {'a': 1}, tool_call_id='o1')]),
    )
    result = await Agent(model, tools=[show_x], output_type=Out).run('go')
    assert result.output == Out(a=1)
    assert [m.parts for m in result.all_messages()[3:5]] == [[], []]


@pytest.mark.parametrize(
    'parts',
    [
        [ToolCallPart('final_result', '{"a": "x"}', 'o1')],
        [ToolCallPart('final_result', '{"a": 1', 'o1'), TextPart('x')],
    ],
    ids=['complete-arguments', 'text-last'],
)
async def test_token_limit_without_a_cut_off_tool_call_is_an_output_retry(parts: list[Any]):
    model = script(ModelResponse(parts=parts, finish_reason='length'))
    with pytest.raises(UnexpectedModelBehavior, match=r'^Exceeded maximum retries \(1\) for output validation$'):
        await Agent(model, output_type=Out).run('go')


class Box(BaseModel):
    items: list[int]


async def test_streamed_output_function_runs_once_per_output_and_outputs_are_copies():
    made: list[list[int]] = []

    def make_box(items: list[int]) -> Box:
        made.append(list(items))
        return Box(items=items)

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[DeltaToolCalls]:
        name = info.output_tools[0].name
        yield {0: DeltaToolCall(name=name, json_args='{"items": [1', tool_call_id='o1')}
        yield {0: DeltaToolCall(json_args=', 2]}')}

    agent = Agent(FunctionModel(call_then_text, stream_function=stream), output_type=make_box)
    async with agent.run_stream('go') as result:
        streamed = [output async for output in result.stream_output(debounce_by=None)]
        first = await result.get_output()
        first.items.append(99)
        second = await result.get_output()
    assert streamed == [Box(items=[1]), Box(items=[1, 2]), Box(items=[1, 2])]
    assert made == [[1], [1, 2], [1, 2]]
    assert second == Box(items=[1, 2])
    assert streamed[-1] == Box(items=[1, 2])


async def test_instructions_are_made_when_the_request_is_built():
    calls: list[str] = []
    agent = Agent(FunctionModel(call_then_text), instructions='Static.')

    @agent.system_prompt
    def system_prompt() -> str:
        calls.append('system prompt')
        return 'System.'

    @agent.instructions
    def instructions(ctx: RunContext[None]) -> str:
        calls.append(f'instructions {ctx.run_step}')
        return 'Dynamic.'

    @agent.tool_plain
    def show() -> str:
        return 'ok'

    seen: list[str | None] = []
    async with agent.iter('go') as run:
        async for node in run:
            if isinstance(node, ModelRequestNode):
                seen.append(node.request.instructions)
    assert calls == ['instructions 0', 'system prompt', 'instructions 1']
    assert seen == ['Static.\n\nDynamic.', 'Static.\n\nDynamic.']


async def test_adjacent_responses_of_a_model_stay_apart():
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('hi')]),
        ModelResponse(parts=[TextPart('a')], model_name='m'),
        ModelResponse(parts=[TextPart('b')], model_name='m'),
        ModelResponse(parts=[TextPart('c')]),
        ModelResponse(parts=[TextPart('d')], finish_reason='stop'),
    ]
    model = FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart('done')]))
    result = await Agent(model).run('next', message_history=history)
    assert [[getattr(p, 'content', None) for p in m.parts] for m in result.all_messages()[1:4]] == [
        ['a'],
        ['b'],
        ['c', 'd'],
    ]


async def test_merged_request_fields_and_part_order():
    sent: list[list[ModelMessage]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent.append(messages)
        return ModelResponse(parts=[TextPart('done')])

    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('hi')]),
        ModelResponse(parts=[ToolCallPart('t', {}, 't1'), ToolCallPart('u', {}, 'u1')]),
        ModelRequest(parts=[UserPromptPart('extra')], instructions='Old.', run_id='r1'),
        ModelRequest(
            parts=[RetryPromptPart('again', tool_name='u', tool_call_id='u1'), ToolReturnPart('t', 1, 't1')],
            run_id='r2',
        ),
    ]
    result = await Agent(FunctionModel(respond)).run('next', message_history=history)
    assert result.all_messages()[2] == snapshot(
        ModelRequest(
            parts=[
                RetryPromptPart(content='again', tool_name='u', tool_call_id='u1', timestamp=IS_NOW),
                ToolReturnPart(tool_name='t', content=1, tool_call_id='t1', timestamp=IS_NOW),
                UserPromptPart(content='extra', timestamp=IS_NOW),
            ],
            instructions='Old.',
        )
    )
    assert len(sent[0]) == 3
    assert sent[0][2] == snapshot(
        ModelRequest(
            parts=[
                RetryPromptPart(content='again', tool_name='u', tool_call_id='u1', timestamp=IS_NOW),
                ToolReturnPart(tool_name='t', content=1, tool_call_id='t1', timestamp=IS_NOW),
                UserPromptPart(content='extra', timestamp=IS_NOW),
                UserPromptPart(content='next', timestamp=IS_NOW),
            ],
            timestamp=IS_NOW,
            instructions='Old.',
        )
    )


async def test_test_model_shows_returned_bytes_as_text():
    def give() -> bytes:
        return b'hello'

    result = await Agent(TestModel(), tools=[give]).run('go')
    assert result.output == '{"give":"hello"}'
