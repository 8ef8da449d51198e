"""Property-based tests: random model scripts, handler decisions and run methods, against the run's guarantees.

Each example is a script of model responses (0-6 tool calls each, of every kind of tool), a list of decisions
the handler (or the caller of the resume flow) makes, a run method and a way of answering deferred calls. The
guarantees checked on every example are listed on `check_guarantees`. Hypothesis runs from a fixed seed (the
same examples on every machine and every run; `PYDANTIC_AI_PROPERTY_SEED` picks another, and pytest's header
prints it): `PROPERTY_EXAMPLES` examples per test, 1,000 unless `PYDANTIC_AI_PROPERTY_EXAMPLES` says otherwise.
"""

# pyright: reportUnusedFunction=false
# Tools registered by decorator are only used through the agent, which pyright cannot see.

from __future__ import annotations

import asyncio
import itertools
import os
import re
import zlib
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import anyio
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from pydantic_ai import (
    Agent,
    ApprovalRequired,
    CallDeferred,
    DeferredToolRequests,
    DeferredToolResults,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    ModelRetry,
    RetryPromptPart,
    RunContext,
    TextPart,
    ToolApproved,
    ToolCallPart,
    ToolDenied,
    ToolReturn,
    ToolReturnPart,
    UserError,
    capture_run_messages,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import ExternalToolset

PROPERTY_EXAMPLES = int(os.environ.get('PYDANTIC_AI_PROPERTY_EXAMPLES', '1000'))
PROPERTY_SEED = int(os.environ.get('PYDANTIC_AI_PROPERTY_SEED', '20260124'))
"""The seed every property test runs with (printed in pytest's header), so CI runs the same examples each time."""
PROPERTY_SETTINGS = settings(
    max_examples=PROPERTY_EXAMPLES,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def properties(test: Any) -> Any:
    """Run `test` as a property test: `PROPERTY_EXAMPLES` examples drawn from `PROPERTY_SEED`."""
    return seed(PROPERTY_SEED)(PROPERTY_SETTINGS(test))


Kind = Literal[
    'plain', 'plain_sync', 'retrying', 'approval', 'external', 'call_deferred', 'approval_required', 'unknown',
    'output', 'sequential', 'nested',
]  # fmt: skip
KINDS: list[Kind] = [
    'plain', 'plain_sync', 'retrying', 'approval', 'external', 'call_deferred', 'approval_required', 'unknown',
    'output', 'sequential', 'nested',
]  # fmt: skip
DEFERRED_KINDS: set[Kind] = {'approval', 'external', 'call_deferred', 'approval_required', 'nested'}
TOOL_NAMES: dict[Kind, str] = {
    'plain': 'plain',
    'plain_sync': 'plain_sync',
    'retrying': 'retrying',
    'approval': 'guarded',
    'external': 'outside',
    'call_deferred': 'fetch',
    'approval_required': 'write',
    'unknown': 'no_such_tool',
    'output': 'final_result',
    'sequential': 'in_turn',
    'nested': 'delegate',
}
Method = Literal['run', 'run_sync', 'run_stream', 'run_stream_sync', 'iter']
METHODS: list[Method] = ['run', 'run_sync', 'run_stream', 'run_stream_sync', 'iter']
Flow = Literal['sync_handler', 'async_handler', 'resume']
Decision = Literal['approve', 'deny', 'override', 'value', 'retry', 'tool_return']
APPROVAL_DECISIONS: list[Decision] = ['approve', 'deny', 'override']
EXTERNAL_DECISIONS: list[Decision] = ['value', 'retry', 'tool_return']


# The world an example runs in: what ran, and the tools that record it.


@dataclass
class World:
    """What the tools and the handler saw during one example."""

    runs: Counter[str] = field(default_factory=Counter[str])
    """How many times each call's function body ran past its approval check, by (composite) call id."""
    active: set[str] = field(default_factory=set[str])
    """The call ids of the tools running now."""
    overlaps: list[str] = field(default_factory=list[str])
    """Sequential tools that ran while another tool was running."""
    handler_batches: list[set[str]] = field(default_factory=list[set[str]])
    """The ids each handler call was asked about."""
    decisions: list[int] = field(default_factory=list[int])
    """The decisions to draw from, by the call id's checksum."""
    sub_histories: dict[str, list[ModelMessage]] = field(default_factory=dict[str, list[ModelMessage]])
    """The history of the sub-agent each `delegate` call ran, by its call id, to resume it with the answers."""

    def decide(self, call_id: str, options: Sequence[Decision]) -> Decision:
        index = zlib.crc32(call_id.encode()) % max(len(self.decisions), 1)
        return options[self.decisions[index] % len(options)] if self.decisions else options[0]

    async def enter(self, call_id: str, *, sequential: bool = False) -> None:
        if sequential and self.active:
            self.overlaps.append(f'{call_id} started while {sorted(self.active)} ran')
        self.active.add(call_id)
        self.runs[call_id] += 1
        # Give other tools of the batch the chance to overlap this one.
        await anyio.lowlevel.checkpoint()
        if sequential and self.active != {call_id}:
            self.overlaps.append(f'{sorted(self.active - {call_id})} started while {call_id} ran')
        self.active.discard(call_id)


def scripted_model(script: Sequence[Sequence[ToolCallPart]], *, earlier: int = 0) -> FunctionModel:
    """The n-th response makes the n-th batch of calls; after the script, the model answers with text.

    `earlier` is the number of responses in the history before the run, which the script does not count.
    """

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = sum(isinstance(m, ModelResponse) for m in messages) - earlier
        if done < len(script):
            return ModelResponse(parts=list(script[done]))
        return ModelResponse(parts=[TextPart('done')])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        for index, part in enumerate(respond(messages, info).parts):
            if isinstance(part, TextPart):
                yield part.content
            else:
                assert isinstance(part, ToolCallPart)
                yield {index: DeltaToolCall(part.tool_name, part.args_as_json_str(), tool_call_id=part.tool_call_id)}

    return FunctionModel(respond, stream_function=stream)


def sub_agent(world: World) -> Agent[str, Any]:
    """The agent the `delegate` tool runs: its one call needs approval, which it passes up as a nested call."""
    agent = Agent(
        scripted_model([[ToolCallPart('inner', {'n': 1}, 'in1')]]),
        deps_type=str,
        output_type=[str, DeferredToolRequests],
    )

    @agent.tool(requires_approval=True)
    async def inner(ctx: RunContext[str], n: int) -> str:
        await world.enter(f'{ctx.deps}::{ctx.tool_call_id}')
        return f'inner {n}'

    return agent


def build_agent(world: World, output_type: Any) -> Agent[None, Any]:
    external = ExternalToolset([ToolDefinition(name='outside', parameters_json_schema={'type': 'object'})])
    agent = Agent[None, Any](None, output_type=output_type, toolsets=[external], retries=100)
    nested_agent = sub_agent(world)

    @agent.tool
    async def plain(ctx: RunContext[None], n: int) -> str:
        await world.enter(str(ctx.tool_call_id))
        return f'plain {n}'

    @agent.tool
    def plain_sync(ctx: RunContext[None], n: int) -> str:
        world.runs[str(ctx.tool_call_id)] += 1
        return f'plain_sync {n}'

    @agent.tool
    async def retrying(ctx: RunContext[None], n: int) -> str:
        await world.enter(str(ctx.tool_call_id))
        raise ModelRetry(f'try again {n}')

    @agent.tool(requires_approval=True)
    async def guarded(ctx: RunContext[None], n: int) -> str:
        await world.enter(str(ctx.tool_call_id))
        return f'guarded {n}'

    @agent.tool_plain
    async def fetch(n: int) -> str:
        raise CallDeferred(metadata={'n': n})

    @agent.tool
    async def write(ctx: RunContext[None], n: int) -> str:
        if not ctx.tool_call_approved:
            raise ApprovalRequired(metadata={'n': n})
        await world.enter(str(ctx.tool_call_id))
        return f'write {n}'

    @agent.tool(sequential=True)
    async def in_turn(ctx: RunContext[None], n: int) -> str:
        await world.enter(str(ctx.tool_call_id), sequential=True)
        return f'in_turn {n}'

    @agent.tool
    async def delegate(ctx: RunContext[None], n: int) -> str:
        parent = str(ctx.tool_call_id)
        if ctx.deferred_tool_results is None:
            first = await nested_agent.run('sub', deps=parent)
            assert isinstance(first.output, DeferredToolRequests)
            world.sub_histories[parent] = first.all_messages()
            raise CallDeferred(deferred_tool_requests=first.output)
        resumed = await nested_agent.run(
            deps=parent, message_history=world.sub_histories[parent], deferred_tool_results=ctx.deferred_tool_results
        )
        return f'delegate {n}: {resumed.output}'

    return agent


def answer(world: World, requests: DeferredToolRequests) -> DeferredToolResults:
    """The decisions for `requests`, as the handler or the caller of the resume flow makes them."""
    results = DeferredToolResults()
    for call in requests.approvals:
        decision = world.decide(call.tool_call_id, APPROVAL_DECISIONS)
        if decision == 'approve':
            results.approvals[call.tool_call_id] = True
        elif decision == 'deny':
            results.approvals[call.tool_call_id] = ToolDenied(f'no to {call.tool_call_id}')
        else:
            results.approvals[call.tool_call_id] = ToolApproved(override_args={'n': 99})
    for call in requests.calls:
        decision = world.decide(call.tool_call_id, EXTERNAL_DECISIONS)
        if decision == 'value':
            results.calls[call.tool_call_id] = f'value for {call.tool_call_id}'
        elif decision == 'retry':
            results.calls[call.tool_call_id] = ModelRetry(f'retry {call.tool_call_id}')
        else:
            results.calls[call.tool_call_id] = ToolReturn(f'return for {call.tool_call_id}', content='extra')
    return results


# Running an example.


@dataclass
class Example:
    script: list[list[ToolCallPart]]
    method: Method
    flow: Flow
    decisions: list[int]


@st.composite
def examples(draw: st.DrawFn) -> Example:
    # A response without tool calls is the text that closes every script (a streamed response cannot be empty).
    responses = draw(st.lists(st.lists(st.sampled_from(KINDS), min_size=1, max_size=6), max_size=3))
    script = [
        [ToolCallPart(TOOL_NAMES[kind], {'n': i}, f'r{r}c{i}') for i, kind in enumerate(kinds)]
        for r, kinds in enumerate(responses)
    ]
    return Example(
        script=script,
        method=draw(st.sampled_from(METHODS)),
        flow=draw(st.sampled_from(['sync_handler', 'async_handler', 'resume'])),
        decisions=draw(st.lists(st.integers(0, 5), min_size=1, max_size=8)),
    )


@dataclass
class Out:
    """The output of a run that ends with the `final_result` output tool."""

    n: int


def run_example(example: Example, world: World) -> list[ModelMessage]:
    """Run the example to its end (resuming as often as needed) and return the final history."""
    if example.flow == 'resume':
        agent = build_agent(world, [str, Out, DeferredToolRequests])
        kwargs: dict[str, Any] = {}
    else:
        agent = build_agent(world, [str, Out])

        def sync_handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
            world.handler_batches.append({c.tool_call_id for c in [*requests.calls, *requests.approvals]})
            return answer(world, requests)

        async def async_handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
            return sync_handler(ctx, requests)

        kwargs = {'deferred_tool_handler': sync_handler if example.flow == 'sync_handler' else async_handler}
    model = scripted_model(example.script)
    output, messages = execute(example.method, agent, 'go', model=model, **kwargs)
    resumes = 0
    while isinstance(output, DeferredToolRequests):
        resumes += 1
        assert resumes <= 10, 'a run that keeps deferring'
        world.handler_batches.append({c.tool_call_id for c in [*output.calls, *output.approvals]})
        results = answer(world, output)
        output, messages = execute(
            example.method, agent, None, model=model, message_history=messages, deferred_tool_results=results
        )
    return messages


def execute(method: Method, agent: Agent[None, Any], prompt: str | None, **kwargs: Any) -> tuple[Any, list[Any]]:
    if method == 'run_sync':
        result = agent.run_sync(prompt, **kwargs)
        return result.output, result.all_messages()
    if method == 'run_stream_sync':
        streamed = agent.run_stream_sync(prompt, **kwargs)
        return streamed.get_output(), streamed.all_messages()
    return anyio.run(execute_async, method, agent, prompt, kwargs)


async def execute_async(
    method: Method, agent: Agent[None, Any], prompt: str | None, kwargs: dict[str, Any]
) -> tuple[Any, list[Any]]:
    if method == 'run':
        result = await agent.run(prompt, **kwargs)
        return result.output, result.all_messages()
    if method == 'run_stream':
        async with agent.run_stream(prompt, **kwargs) as streamed:
            output = await streamed.get_output()
        return output, streamed.all_messages()
    async with agent.iter(prompt, **kwargs) as agent_run:
        async for _ in agent_run:
            pass
    assert agent_run.result is not None
    return agent_run.result.output, agent_run.result.all_messages()


# The guarantees.


def check_guarantees(example: Example, world: World, messages: list[ModelMessage]) -> None:
    """Every guarantee the example can break.

    - every tool call of every response has exactly one result part, and no request is empty (but the one that
      follows an empty response, as upstream);
    - a denied call's function never runs, an approved one runs exactly once (also across resumes, and for
      nested calls of a sub-agent), and plain tools run once per call unless the run skipped them;
    - sequential tools never overlap another tool;
    - the handler is asked once per response with deferred calls, about exactly those calls, and never otherwise
      (the resume flow: one resume per such response);
    - the history survives a JSON round trip unchanged.
    """
    check_results(messages)
    check_runs(world, messages)
    assert world.overlaps == []
    check_handler_calls(world, messages)
    assert ModelMessagesTypeAdapter.validate_json(ModelMessagesTypeAdapter.dump_json(messages)) == messages


def check_results(messages: list[ModelMessage]) -> None:
    results: Counter[str] = Counter()
    calls: list[str] = []
    for index, message in enumerate(messages):
        if isinstance(message, ModelRequest):
            # As upstream, an empty response is answered with an empty request (asking the model again).
            after_empty_response = index > 0 and not messages[index - 1].parts
            assert message.parts or after_empty_response, f'an empty request in {messages}'
            results.update(p.tool_call_id for p in message.parts if isinstance(p, ToolReturnPart | RetryPromptPart))
        else:
            calls.extend(c.tool_call_id for c in message.tool_calls)
    assert sorted(calls) == sorted(results.elements()), 'every call has exactly one result part'


SKIPPED = 'Tool not executed - a final result was already processed.'


def result_parts(messages: list[ModelMessage]) -> dict[str, ToolReturnPart | RetryPromptPart]:
    return {
        p.tool_call_id: p
        for m in messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart | RetryPromptPart)
    }


def check_runs(world: World, messages: list[ModelMessage]) -> None:
    returns = result_parts(messages)
    skipped = {SKIPPED}
    expected: Counter[str] = Counter()
    for message in messages:
        if not isinstance(message, ModelResponse):
            continue
        for call in message.tool_calls:
            result = returns[call.tool_call_id]
            if call.tool_name in ('guarded', 'write'):
                approved = world.decide(call.tool_call_id, APPROVAL_DECISIONS) != 'deny'
                expected[call.tool_call_id] = int(approved and result.content not in skipped)
            elif call.tool_name == 'delegate' and result.content not in skipped:
                inner = f'{call.tool_call_id}::in1'
                expected[inner] = int(world.decide(inner, APPROVAL_DECISIONS) != 'deny')
            elif call.tool_name in ('plain', 'plain_sync', 'retrying', 'in_turn'):
                expected[call.tool_call_id] = int(result.content not in skipped)
    assert +world.runs == +expected, 'approved and plain calls run exactly once, denied or skipped ones never'


def check_handler_calls(world: World, messages: list[ModelMessage]) -> None:
    deferred_names = {TOOL_NAMES[kind] for kind in DEFERRED_KINDS}
    results = result_parts(messages)
    expected: list[set[str]] = []
    for message in messages:
        if not isinstance(message, ModelResponse):
            continue
        # Calls skipped because the response gave a final result (an output tool call, or in `run_stream` without
        # a handler, a call deferred by definition that ends the stream, as upstream) are not asked about.
        batch = {
            f'{c.tool_call_id}::in1' if c.tool_name == 'delegate' else c.tool_call_id
            for c in message.tool_calls
            if c.tool_name in deferred_names and results[c.tool_call_id].content != SKIPPED
        }
        if batch:
            expected.append(batch)
    assert world.handler_batches == expected, 'the handler is asked once per response with deferred calls'


@properties
@given(examples())
def test_random_scripts_keep_every_guarantee(example: Example):
    world = World(decisions=example.decisions)
    messages = run_example(example, world)
    check_guarantees(example, world, messages)


# Bad answers: a clear error, nothing of the batch run, and the caller's history untouched.

BadAnswer = Literal['missing', 'unknown_id', 'bad_value', 'approve_external', 'result_for_approval', 'not_results']
BAD_ANSWERS: list[BadAnswer] = [
    'missing',
    'unknown_id',
    'bad_value',
    'approve_external',
    'result_for_approval',
    'not_results',
]
RESUME_BAD_ANSWERS: list[BadAnswer] = ['missing', 'unknown_id', 'bad_value']
BAD_VALUES: list[Any] = ['yes', None, 1, 0, 2.5, [], {'approved': True}]


def spoil(results: DeferredToolResults, requests: DeferredToolRequests, how: BadAnswer, value: Any) -> Any:
    """`results` made wrong in the way `how` says (each way needs the calls it spoils to exist)."""
    if how == 'missing':
        first = next(iter([*results.approvals, *results.calls]))
        results.approvals.pop(first, None)
        results.calls.pop(first, None)
    elif how == 'unknown_id':
        results.calls['not_a_call'] = 'value'
    elif how == 'bad_value':
        results.approvals[requests.approvals[0].tool_call_id] = value
    elif how == 'approve_external':
        results.approvals[requests.calls[0].tool_call_id] = True
    elif how == 'result_for_approval':
        call_id = requests.approvals[0].tool_call_id
        del results.approvals[call_id]
        results.calls[call_id] = 'a result'
    else:
        return value
    return results


def applies(how: BadAnswer, requests: DeferredToolRequests) -> bool:
    if how in ('bad_value', 'result_for_approval'):
        return bool(requests.approvals)
    if how == 'approve_external':
        return bool(requests.calls)
    return True


ERRORS: dict[BadAnswer, str] = {
    'missing': r'^Tool call results need to be provided for all deferred tool calls\. Expected: ',
    'unknown_id': r'^Tool call results need to be provided for all deferred tool calls\. Expected: ',
    'bad_value': r"^The approval for tool call '.+' must be `True`, `False`, `ToolApproved\(\.\.\.\)` or `ToolDenied",
    'approve_external': r"^Tool call '.+' is an external call",
    'result_for_approval': r"^Tool call '.+' needs approval: answer it in `DeferredToolResults\.approvals`",
    'not_results': r'^The deferred tool handler must return a `DeferredToolResults`, not ',
}


@properties
@given(
    kinds=st.lists(st.sampled_from(sorted(DEFERRED_KINDS | {cast(Kind, 'plain')})), min_size=1, max_size=6).filter(
        lambda kinds: any(k in DEFERRED_KINDS for k in kinds)
    ),
    how=st.sampled_from(BAD_ANSWERS),
    value=st.sampled_from(BAD_VALUES),
    method=st.sampled_from(METHODS),
    flow=st.sampled_from(['sync_handler', 'async_handler', 'resume']),
    decisions=st.lists(st.integers(0, 5), min_size=1, max_size=8),
)
def test_bad_answers_raise_a_clear_error_and_run_nothing(
    kinds: list[Kind], how: BadAnswer, value: Any, method: Method, flow: Flow, decisions: list[int]
):
    world = World(decisions=decisions)
    script = [[ToolCallPart(TOOL_NAMES[kind], {'n': i}, f'c{i}') for i, kind in enumerate(kinds)]]
    model = scripted_model(script, earlier=1)
    earlier: list[ModelMessage] = [
        ModelRequest.user_text_prompt('earlier'),
        ModelResponse(parts=[TextPart('earlier answer')]),
    ]
    history = list(earlier)
    if flow == 'resume' and how not in RESUME_BAD_ANSWERS:
        # As upstream, the resume flow takes a result for any call, and re-runs a `CallDeferred` call it is told
        # to approve; only a handler is held to decision 1 of the spec.
        how = 'missing'
    if flow == 'resume':
        agent = build_agent(world, [str, DeferredToolRequests])
        output, messages = execute(method, agent, 'go', model=model, message_history=history)
        assert isinstance(output, DeferredToolRequests)
        if not applies(how, output):
            return
        before = list(messages)
        ran = +world.runs
        with pytest.raises(UserError, match=ERRORS[how]):
            execute(
                method,
                agent,
                None,
                model=model,
                message_history=messages,
                deferred_tool_results=spoil(answer(world, output), output, how, value),
            )
        assert messages == before
        assert +world.runs == ran
    else:
        agent = build_agent(world, str)
        skipped: list[bool] = []

        def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> Any:
            skipped.append(not applies(how, requests))
            if skipped[-1]:
                return answer(world, requests)
            return spoil(answer(world, requests), requests, how, value)

        async def async_handler(ctx: RunContext[None], requests: DeferredToolRequests) -> Any:
            return handler(ctx, requests)

        chosen = handler if flow == 'sync_handler' else async_handler
        plain_ids = {f'c{i}' for i, kind in enumerate(kinds) if kind == 'plain'}
        try:
            execute(method, agent, 'go', model=model, message_history=history, deferred_tool_handler=chosen)
        except UserError as e:
            assert skipped == [False]
            assert re.search(ERRORS[how], str(e)), str(e)
        else:
            assert skipped == [True]
        # Only the plain tools of the batch ran (before the handler was asked).
        if skipped == [False]:
            assert set(world.runs) == plain_ids
    assert history == earlier


# Cancellation at a random point: nothing left running, no half-written history, no tool started afterwards.


@dataclass
class CancellingWorld(World):
    """A world that cancels the run at its `cancel_at`-th point (a model request, a handler call, a tool start)."""

    cancel_at: int = 0
    scope: anyio.CancelScope | None = None
    """The scope the run is in; made on the event loop."""
    points: int = 0
    late_starts: list[str] = field(default_factory=list[str])

    def point(self, what: str) -> None:
        assert self.scope is not None
        self.points += 1
        if self.scope.cancel_called and what.startswith('tool '):
            self.late_starts.append(what)
        if self.points == self.cancel_at:
            self.scope.cancel()

    async def enter(self, call_id: str, *, sequential: bool = False) -> None:
        self.point(f'tool {call_id}')
        await super().enter(call_id, sequential=sequential)


def cancelling_model(script: Sequence[Sequence[ToolCallPart]], world: CancellingWorld) -> FunctionModel:
    scripted = scripted_model(script)
    assert scripted.function is not None and scripted.stream_function is not None
    respond, stream = scripted.function, scripted.stream_function

    async def respond_async(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        world.point('model')
        response = respond(messages, info)
        assert isinstance(response, ModelResponse)
        return response

    async def stream_async(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        world.point('model')
        async for item in stream(messages, info):
            yield item  # pyright: ignore[reportReturnType] -- the script only streams text and tool calls

    return FunctionModel(respond_async, stream_function=stream_async)


def check_not_half_written(messages: list[ModelMessage]) -> None:
    """A request that follows a response with tool calls answers all of them, or there is no such request yet."""
    for response, request in itertools.pairwise(messages):
        if isinstance(response, ModelResponse) and response.tool_calls:
            answered = {p.tool_call_id for p in request.parts if isinstance(p, ToolReturnPart | RetryPromptPart)}
            assert answered == {c.tool_call_id for c in response.tool_calls}, f'half-written: {messages}'


@properties
@given(
    example=examples().filter(lambda e: e.method in ('run', 'run_stream', 'iter') and e.flow != 'resume'),
    cancel_at=st.integers(1, 12),
)
def test_cancelling_at_a_random_point_leaves_nothing_behind(example: Example, cancel_at: int):
    world = CancellingWorld(decisions=example.decisions, cancel_at=cancel_at)
    agent = build_agent(world, [str, Out])

    async def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        world.point('handler')
        await anyio.lowlevel.checkpoint()
        return answer(world, requests)

    def sync_handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        anyio.from_thread.run_sync(world.point, 'handler')
        return answer(world, requests)

    chosen = handler if example.flow == 'async_handler' else sync_handler
    earlier: list[ModelMessage] = [ModelRequest.user_text_prompt('earlier')]
    history = list(earlier)

    async def main() -> None:
        before = asyncio.all_tasks()
        world.scope = anyio.CancelScope()
        with capture_run_messages() as messages:
            with world.scope:
                await execute_async(
                    example.method,
                    agent,
                    'go',
                    {
                        'model': cancelling_model(example.script, world),
                        'message_history': history,
                        'deferred_tool_handler': chosen,
                    },
                )
        for _ in range(3):
            await anyio.lowlevel.checkpoint()
        assert asyncio.all_tasks() == before, 'no task is left running'
        check_not_half_written(messages)

    anyio.run(main)
    assert world.late_starts == []
    assert history == earlier
