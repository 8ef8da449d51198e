"""Deferred tool calls: approvals, external results, the resume flow, nested calls and their context."""

# pyright: reportUnusedFunction=false
# Tools registered by decorator are only used through the agent, which pyright cannot see.

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from dirty_equals import IsNow, IsStr
from inline_snapshot import snapshot
from pydantic import BaseModel, TypeAdapter
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
    RequestUsage,
    RetryPromptPart,
    RunContext,
    RunUsage,
    TextPart,
    Tool,
    ToolApproved,
    ToolCallPart,
    ToolDefinition,
    ToolDenied,
    ToolReturn,
    ToolReturnPart,
    UsageLimitExceeded,
    UsageLimits,
    UserError,
    UserPromptPart,
)
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import ModelResponsePart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.toolsets import ExternalToolset, FunctionToolset

pytestmark = pytest.mark.anyio

IS_NOW: Any = IsNow(tz=UTC)
IS_STR: Any = IsStr()


def scripted(*responses: Sequence[ModelResponsePart]) -> FunctionModel:
    """A model that answers the n-th request of a conversation with the n-th response.

    Requests are counted by the responses already in the history, so a resumed run picks up where the first
    left off. Past the script, it answers with the text of the last tool result it was sent.
    """

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = sum(isinstance(m, ModelResponse) for m in messages)
        if done < len(responses):
            return ModelResponse(parts=list(responses[done]))
        returns = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart | RetryPromptPart)]
        return ModelResponse(parts=[TextPart(' | '.join(str(p.content) for p in returns) or 'done')])

    return FunctionModel(respond)


def call(tool_name: str, call_id: str, **args: Any) -> ToolCallPart:
    return ToolCallPart(tool_name, args, call_id)


def requests_of(output: object) -> DeferredToolRequests:
    assert isinstance(output, DeferredToolRequests)
    return output


def results_by_call(messages: Sequence[ModelMessage]) -> dict[str, int]:
    """How many result parts each tool call id has in the history."""
    counts: dict[str, int] = {}
    for message in messages:
        if isinstance(message, ModelResponse):
            for part in message.tool_calls:
                counts.setdefault(part.tool_call_id, 0)
        else:
            for part in message.parts:
                if isinstance(part, ToolReturnPart | RetryPromptPart) and part.tool_name is not None:
                    counts[part.tool_call_id] = counts.get(part.tool_call_id, 0) + 1
    return counts


# The types.


def test_reprs_show_all_fields():
    assert repr(DeferredToolRequests()) == snapshot(
        'DeferredToolRequests(calls=[], approvals=[], metadata={}, context={})'
    )
    assert repr(DeferredToolResults()) == snapshot(
        'DeferredToolResults(calls={}, approvals={}, metadata={}, context={})'
    )
    assert repr(ToolApproved()) == snapshot("ToolApproved(override_args=None, kind='tool-approved')")
    assert repr(ToolDenied()) == snapshot("ToolDenied(message='The tool call was denied.', kind='tool-denied')")


def test_signals_carry_metadata_and_context():
    nested = DeferredToolRequests(calls=[call('t', 'c1')])
    deferred = CallDeferred({'m': 1}, {'state': 2}, nested)
    assert (deferred.metadata, deferred.context, deferred.deferred_tool_requests) == ({'m': 1}, {'state': 2}, nested)
    assert (repr(deferred), str(deferred)) == ('CallDeferred()', '')
    approval = ApprovalRequired(metadata={'m': 1}, context=[1])
    assert (approval.metadata, approval.context, repr(approval)) == ({'m': 1}, [1], 'ApprovalRequired()')
    assert (ApprovalRequired().context, CallDeferred().deferred_tool_requests) == (None, None)


def test_types_are_exported_everywhere():
    import pydantic_ai
    import pydantic_ai.output
    import pydantic_ai.tools

    assert pydantic_ai.DeferredToolRequests is pydantic_ai.output.DeferredToolRequests
    assert pydantic_ai.tools.DeferredToolRequests is pydantic_ai.output.DeferredToolRequests
    assert pydantic_ai.DeferredToolResults is pydantic_ai.tools.DeferredToolResults
    assert (pydantic_ai.ToolApproved, pydantic_ai.ToolDenied) == (ToolApproved, ToolDenied)


def test_requests_json_round_trip():
    requests = DeferredToolRequests(
        calls=[call('fetch', 'p::c1', url='x')],
        approvals=[ToolCallPart('delete', '{"path": "a"}', 'c2')],
        metadata={'c2': {'reason': 'destructive'}},
        context={'p': {'messages': [{'kind': 'request'}]}},
    )
    adapter = TypeAdapter(DeferredToolRequests)
    data = adapter.dump_json(requests)
    assert json.loads(data) == snapshot(
        {
            'calls': [
                {
                    'tool_name': 'fetch',
                    'args': {'url': 'x'},
                    'tool_call_id': 'p::c1',
                    'id': None,
                    'provider_name': None,
                    'provider_details': None,
                    'part_kind': 'tool-call',
                }
            ],
            'approvals': [
                {
                    'tool_name': 'delete',
                    'args': '{"path": "a"}',
                    'tool_call_id': 'c2',
                    'id': None,
                    'provider_name': None,
                    'provider_details': None,
                    'part_kind': 'tool-call',
                }
            ],
            'metadata': {'c2': {'reason': 'destructive'}},
            'context': {'p': {'messages': [{'kind': 'request'}]}},
        }
    )
    assert adapter.validate_json(data) == requests


def test_results_json_round_trip():
    results = DeferredToolResults(
        calls={
            'plain': {'value': 1},
            'tagged-like': {'kind': 'mine', 'x': 1},
            'retry': ModelRetry('try again'),
            'return': ToolReturn(2, content='see this', metadata={'m': 1}),
            'retry-part': RetryPromptPart('bad', tool_name='t', tool_call_id='r'),
        },
        approvals={'yes': True, 'no': False, 'ok': ToolApproved(override_args={'x': 1}), 'deny': ToolDenied('never')},
        metadata={'ok': {'who': 'admin'}},
        context={'p': [1, 2]},
    )
    adapter = TypeAdapter(DeferredToolResults)
    data = adapter.dump_json(results)
    assert json.loads(data) == snapshot(
        {
            'calls': {
                'plain': {'value': 1},
                'tagged-like': {'kind': 'mine', 'x': 1},
                'retry': {'message': 'try again', 'kind': 'model-retry'},
                'return': {'return_value': 2, 'content': 'see this', 'metadata': {'m': 1}, 'kind': 'tool-return'},
                'retry-part': {
                    'content': 'bad',
                    'tool_name': 't',
                    'tool_call_id': 'r',
                    'timestamp': IS_STR,
                    'part_kind': 'retry-prompt',
                },
            },
            'approvals': {
                'yes': True,
                'no': False,
                'ok': {'override_args': {'x': 1}, 'kind': 'tool-approved'},
                'deny': {'message': 'never', 'kind': 'tool-denied'},
            },
            'metadata': {'ok': {'who': 'admin'}},
            'context': {'p': [1, 2]},
        }
    )
    back = adapter.validate_json(data)
    assert back == results
    assert [type(value).__name__ for value in back.calls.values()] == snapshot(
        ['dict', 'dict', 'ModelRetry', 'ToolReturn', 'RetryPromptPart']
    )


# The first run: which calls are deferred, and how the run ends.


async def test_requires_approval_everywhere():
    def via_tool(x: int) -> int:
        return x  # pragma: no cover

    def via_add_function(x: int) -> int:
        return x  # pragma: no cover

    toolset = FunctionToolset[None]()
    toolset.add_function(via_add_function, requires_approval=True)

    @toolset.tool(requires_approval=True)
    def via_toolset(x: int) -> int:
        return x  # pragma: no cover

    kinds: dict[str, str] = {}

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        kinds.update({t.name: t.kind for t in info.function_tools})
        return ModelResponse(parts=[call(name, f'id_{name}', x=1) for name in sorted(kinds)])

    agent = Agent(
        FunctionModel(respond),
        output_type=[str, DeferredToolRequests],
        tools=[Tool(via_tool, requires_approval=True)],
        toolsets=[toolset],
    )

    @agent.tool(requires_approval=True)
    def via_agent_tool(ctx: RunContext, x: int) -> int:
        return x  # pragma: no cover

    @agent.tool_plain(requires_approval=True)
    def via_agent_tool_plain(x: int) -> int:
        return x  # pragma: no cover

    result = await agent.run('go')
    assert kinds == snapshot(
        {
            'via_tool': 'unapproved',
            'via_agent_tool': 'unapproved',
            'via_agent_tool_plain': 'unapproved',
            'via_add_function': 'unapproved',
            'via_toolset': 'unapproved',
        }
    )
    assert [c.tool_call_id for c in requests_of(result.output).approvals] == snapshot(
        ['id_via_add_function', 'id_via_agent_tool', 'id_via_agent_tool_plain', 'id_via_tool', 'id_via_toolset']
    )


async def test_requires_approval_is_accepted_whatever_the_output_type():
    agent = Agent(scripted([TextPart('no tools needed')], [call('guarded', 'g1')]))

    @agent.tool_plain(requires_approval=True)
    def guarded() -> str:
        return 'ran'  # pragma: no cover

    assert (await agent.run('first')).output == 'no tools needed'
    history = (await agent.run('first')).all_messages()
    with pytest.raises(
        UserError,
        match=r'^A deferred tool call was present, but `DeferredToolRequests` is not among output types\. To resolve '
        r'this, add `DeferredToolRequests` to the list of output types for this agent\.$',
    ):
        await agent.run('second', message_history=history)
    result = await agent.run('second', message_history=history, output_type=[str, DeferredToolRequests])
    assert result.output == snapshot(
        DeferredToolRequests(approvals=[ToolCallPart(tool_name='guarded', args={}, tool_call_id='g1')])
    )


def test_tool_definition_defer():
    kinds = ('function', 'output', 'external', 'unapproved')
    assert [ToolDefinition(name='t', kind=kind).defer for kind in kinds] == [False, False, True, True]


async def test_approved_context_makes_the_tool_a_function():
    def delete(path: str) -> str:
        return path  # pragma: no cover

    tool = Tool[None](delete, requires_approval=True)
    ctx = RunContext[None](deps=None, model=scripted(), usage=RunUsage())
    tool_defs = [await tool.prepare_tool_def(c) for c in (ctx, replace(ctx, tool_call_approved=True))]
    assert [tool_def.kind for tool_def in tool_defs if tool_def is not None] == ['unapproved', 'function']


@pytest.mark.parametrize('where', ['agent', 'run'])
async def test_deferred_tool_requests_alone_is_an_error(where: str):
    message = r'^At least one output type must be provided other than `DeferredToolRequests`\.$'
    with pytest.raises(UserError, match=message):
        if where == 'agent':
            Agent(scripted(), output_type=DeferredToolRequests)
        else:
            await Agent(scripted()).run('x', output_type=DeferredToolRequests)


def mixed_agent(**kwargs: Any) -> Agent[None, str | DeferredToolRequests]:
    """An agent whose one response calls a plain tool, tools deferred by definition and tools that raise."""
    model = scripted(
        [
            call('approve_me', 'a1', x=1),
            call('external', 'x1', q='?'),
            call('lookup', 'l1', key='k'),
            call('guard', 'g1', path='.env'),
            call('background', 'b1', job='report'),
            call('guard', 'g2', path='README'),
        ]
    )
    external = ExternalToolset[None]([ToolDefinition(name='external', parameters_json_schema={'type': 'object'})])
    agent = Agent(model, output_type=[str, DeferredToolRequests], toolsets=[external], **kwargs)

    @agent.tool_plain(requires_approval=True)
    def approve_me(x: int) -> int:
        return x * 10

    @agent.tool_plain
    def lookup(key: str) -> str:
        return f'value of {key}'

    @agent.tool
    def guard(ctx: RunContext, path: str) -> str:
        if path.startswith('.') and not ctx.tool_call_approved:
            raise ApprovalRequired(metadata={'path': path}, context={'attempt': 1})
        return f'wrote {path} (metadata={ctx.tool_call_metadata}, context={ctx.tool_call_context})'

    @agent.tool
    def background(ctx: RunContext, job: str) -> str:
        raise CallDeferred(metadata={'job_id': f'job-{ctx.tool_call_id}'})

    return agent


async def test_first_run_ends_with_requests_and_keeps_other_results():
    result = await mixed_agent().run('go')
    assert result.output == snapshot(
        DeferredToolRequests(
            calls=[
                ToolCallPart(tool_name='background', args={'job': 'report'}, tool_call_id='b1'),
                ToolCallPart(tool_name='external', args={'q': '?'}, tool_call_id='x1'),
            ],
            approvals=[
                ToolCallPart(tool_name='guard', args={'path': '.env'}, tool_call_id='g1'),
                ToolCallPart(tool_name='approve_me', args={'x': 1}, tool_call_id='a1'),
            ],
            metadata={'g1': {'path': '.env'}, 'b1': {'job_id': 'job-b1'}},
            context={'g1': {'attempt': 1}},
        )
    )
    assert result.new_messages()[-1] == snapshot(
        ModelRequest(
            parts=[
                ToolReturnPart(tool_name='lookup', content='value of k', tool_call_id='l1', timestamp=IS_NOW),
                ToolReturnPart(
                    tool_name='guard',
                    content='wrote README (metadata=None, context=None)',
                    tool_call_id='g2',
                    timestamp=IS_NOW,
                ),
            ],
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )
    assert result.usage() == snapshot(RunUsage(input_tokens=51, output_tokens=29, requests=1, tool_calls=2))


async def test_external_toolset_tools_cannot_be_called_directly():
    toolset = ExternalToolset[None]([ToolDefinition(name='browser_alert', description='Show an alert.')])
    with pytest.raises(NotImplementedError, match=r'^External tools cannot be called directly$'):
        await toolset.call_tool('browser_alert', {}, None, None)  # pyright: ignore[reportArgumentType] -- never used


async def test_approval_required_toolset_predicate():
    seen: list[tuple[str, dict[str, Any], bool]] = []

    def needs_approval(ctx: RunContext, tool_def: ToolDefinition, tool_args: dict[str, Any]) -> bool:
        seen.append((tool_def.name, tool_args, ctx.tool_call_approved))
        return tool_args['amount'] > 100

    payments = FunctionToolset[None]()

    @payments.tool
    def pay(amount: int) -> str:
        return f'paid {amount}'

    agent = Agent(
        scripted([call('pay', 'small', amount=5), call('pay', 'large', amount=500)]),
        output_type=[str, DeferredToolRequests],
        toolsets=[payments.approval_required(needs_approval)],
    )
    first = await agent.run('pay')
    assert requests_of(first.output).approvals == snapshot(
        [ToolCallPart(tool_name='pay', args={'amount': 500}, tool_call_id='large')]
    )
    second = await agent.run(
        message_history=first.all_messages(), deferred_tool_results=DeferredToolResults(approvals={'large': True})
    )
    assert second.output == snapshot('paid 5 | paid 500')
    # The predicate is asked about calls that are not approved yet, and not again once they are.
    assert seen == snapshot([('pay', {'amount': 5}, False), ('pay', {'amount': 500}, False)])


async def test_exhaustive_strategy_answers_every_call():
    class Answer(BaseModel):
        value: int

    agent = Agent(
        scripted([call('approve_me', 'a1'), call('final_result', 'o1', value=1), call('defer', 'd1')]),
        output_type=[Answer, DeferredToolRequests],
        end_strategy='exhaustive',
    )

    @agent.tool_plain(requires_approval=True)
    def approve_me() -> int:
        return 1  # pragma: no cover

    @agent.tool_plain
    def defer() -> int:
        raise CallDeferred

    result = await agent.run('go')
    assert result.output == Answer(value=1)
    assert result.new_messages()[-1].parts == snapshot(
        [
            ToolReturnPart(
                tool_name='final_result', content='Final result processed.', tool_call_id='o1', timestamp=IS_NOW
            ),
            ToolReturnPart(
                tool_name='defer',
                content='Tool not executed - a final result was already processed.',
                tool_call_id='d1',
                timestamp=IS_NOW,
            ),
            ToolReturnPart(
                tool_name='approve_me',
                content='Tool not executed - a final result was already processed.',
                tool_call_id='a1',
                timestamp=IS_NOW,
            ),
        ]
    )
    assert set(results_by_call(result.all_messages()).values()) == {1}


# The resume flow.


async def test_resume_runs_approved_calls_and_orders_parts():
    agent = mixed_agent()
    first = await agent.run('go')
    results = DeferredToolResults(
        calls={'b1': ToolReturn('report ready', content='the report is attached'), 'x1': 'external answer'},
        approvals={'g1': ToolApproved(override_args={'path': '.env.local'}), 'a1': True},
        metadata={'g1': {'approved_by': 'ops'}},
        context={'g1': {'attempt': 1}},
    )
    second = await agent.run('and then?', message_history=first.all_messages(), deferred_tool_results=results)
    assert second.new_messages() == snapshot(
        [
            ModelRequest(
                parts=[
                    ToolReturnPart(
                        tool_name='guard',
                        content="wrote .env.local (metadata={'approved_by': 'ops'}, context={'attempt': 1})",
                        tool_call_id='g1',
                        timestamp=IS_NOW,
                    ),
                    ToolReturnPart(tool_name='background', content='report ready', tool_call_id='b1', timestamp=IS_NOW),
                    ToolReturnPart(
                        tool_name='external', content='external answer', tool_call_id='x1', timestamp=IS_NOW
                    ),
                    ToolReturnPart(tool_name='approve_me', content=10, tool_call_id='a1', timestamp=IS_NOW),
                    UserPromptPart(content='the report is attached', timestamp=IS_NOW),
                    UserPromptPart(content='and then?', timestamp=IS_NOW),
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[
                    TextPart(
                        content="value of k | wrote README (metadata=None, context=None) | wrote .env.local (metadata={'approved_by': 'ops'}, context={'attempt': 1}) | report ready | external answer | 10"
                    )
                ],
                usage=RequestUsage(input_tokens=76, output_tokens=53),
                model_name='function:respond:',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
        ]
    )
    assert second.usage() == snapshot(RunUsage(input_tokens=76, output_tokens=53, requests=1, tool_calls=2))
    assert set(results_by_call(second.all_messages()).values()) == {1}


async def test_resume_denials_and_external_results():
    agent = mixed_agent()
    first = await agent.run('go')
    results = DeferredToolResults(
        calls={
            'b1': ModelRetry('the job failed'),
            'x1': RetryPromptPart('bad input', tool_name='other', tool_call_id='z'),
        },
        approvals={'g1': False, 'a1': ToolDenied('Not today.')},
    )
    second = await agent.run(message_history=first.all_messages(), deferred_tool_results=results)
    assert second.new_messages()[0] == snapshot(
        ModelRequest(
            parts=[
                ToolReturnPart(
                    tool_name='guard', content='The tool call was denied.', tool_call_id='g1', timestamp=IS_NOW
                ),
                RetryPromptPart(content='the job failed', tool_name='background', tool_call_id='b1', timestamp=IS_NOW),
                RetryPromptPart(content='bad input', tool_name='external', tool_call_id='x1', timestamp=IS_NOW),
                ToolReturnPart(tool_name='approve_me', content='Not today.', tool_call_id='a1', timestamp=IS_NOW),
            ],
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )


async def test_tools_see_only_results_metadata():
    seen: list[tuple[bool, Any, Any, int]] = []
    agent = Agent(scripted([call('guard', 'g1')]), output_type=[str, DeferredToolRequests])

    @agent.tool
    def guard(ctx: RunContext) -> str:
        seen.append((ctx.tool_call_approved, ctx.tool_call_metadata, ctx.tool_call_context, ctx.run_step))
        if not ctx.tool_call_approved:
            raise ApprovalRequired(metadata={'from': 'request'}, context='saved')
        return 'ok'

    first = await agent.run('go')
    assert requests_of(first.output).metadata == {'g1': {'from': 'request'}}
    history = first.all_messages()
    await agent.run(message_history=history, deferred_tool_results=DeferredToolResults(approvals={'g1': True}))
    await agent.run(
        message_history=history,
        deferred_tool_results=DeferredToolResults(
            approvals={'g1': True}, metadata={'g1': {'from': 'results'}}, context={'g1': 'saved'}
        ),
    )
    assert seen == snapshot([(False, None, None, 1), (True, None, None, 0), (True, {'from': 'results'}, 'saved', 0)])


async def test_history_is_kept_separate_and_model_sees_one_request():
    seen: list[list[str]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append([type(m).__name__ for m in messages])
        if len(messages) == 1:
            return ModelResponse(parts=[call('plain', 'p1'), call('approve_me', 'a1')])
        return ModelResponse(parts=[TextPart('done')])

    agent = Agent(FunctionModel(respond), output_type=[str, DeferredToolRequests])

    @agent.tool_plain
    def plain() -> str:
        return 'plain'

    @agent.tool_plain(requires_approval=True)
    def approve_me() -> str:
        return 'approved'

    first = await agent.run('go')
    second = await agent.run(
        message_history=first.all_messages(), deferred_tool_results=DeferredToolResults(approvals={'a1': True})
    )
    assert [type(m).__name__ for m in second.all_messages()] == snapshot(
        ['ModelRequest', 'ModelResponse', 'ModelRequest', 'ModelRequest', 'ModelResponse']
    )
    assert seen[-1] == snapshot(['ModelRequest', 'ModelResponse', 'ModelRequest'])
    assert len(second.new_messages()) == 2


async def resume_errors_agent() -> tuple[Agent[None, str | DeferredToolRequests], list[ModelMessage]]:
    agent = Agent(
        scripted([call('later', 'e1'), call('approve_me', 'a1'), call('plain', 'p1')]),
        output_type=[str, DeferredToolRequests],
        toolsets=[ExternalToolset[None]([ToolDefinition(name='later')])],
    )

    @agent.tool_plain(requires_approval=True)
    def approve_me() -> int:
        return 1  # pragma: no cover

    @agent.tool_plain
    def plain() -> int:
        return 2

    return agent, (await agent.run('go')).all_messages()


@pytest.mark.parametrize(
    ('history', 'results', 'prompt', 'message'),
    [
        ('empty', {}, None, r'Tool call results were provided, but the message history is empty\.'),
        ('request', {}, None, r'the message history does not contain a `ModelResponse`\.'),
        ('answered', {}, None, r'the message history does not contain any unprocessed tool calls\.'),
        (
            'full',
            {'calls': {'e1': 1, 'p1': 2}, 'approvals': {'a1': True}},
            None,
            r"Tool call 'p1' was already executed and its result cannot be overridden\.",
        ),
        (
            'full',
            {'approvals': {'a1': True}},
            None,
            r'^Tool call results need to be provided for all deferred tool calls\. Expected: \{.*\}, got: \{.*\}$',
        ),
        (
            'full',
            {'calls': {'e1': 1, 'zz': 3}, 'approvals': {'a1': True}},
            None,
            r"Expected: \{.*\}, got: \{.*'zz'.*\}",
        ),
        (None, None, 'new prompt', r'Cannot provide a new user prompt when the message history contains unprocessed'),
        ('full', {'approvals': {'e1': True, 'a1': True}}, None, r'^External tools cannot be called$'),
    ],
)
async def test_resume_errors(history: str | None, results: dict[str, Any] | None, prompt: str | None, message: str):
    agent, messages = await resume_errors_agent()
    histories: dict[str | None, list[ModelMessage]] = {
        'empty': [],
        'request': messages[:1],
        'answered': [
            *messages[:2],
            ModelRequest(
                parts=[
                    ToolReturnPart(c.tool_name, 1, c.tool_call_id)
                    for c in messages[1].parts
                    if isinstance(c, ToolCallPart)
                ]
            ),
        ],
        'full': messages,
        None: messages[:2],
    }
    deferred_tool_results = None if results is None else DeferredToolResults(**results)
    with pytest.raises(UserError, match=message):
        await agent.run(prompt, message_history=histories[history], deferred_tool_results=deferred_tool_results)


async def test_incomplete_results_message():
    agent, messages = await resume_errors_agent()
    with pytest.raises(UserError) as exc_info:
        await agent.run(message_history=messages, deferred_tool_results=DeferredToolResults(calls={'e1': 1}))
    assert str(exc_info.value).startswith(
        'Tool call results need to be provided for all deferred tool calls. Expected: {'
    )
    expected, got = str(exc_info.value).split('Expected: ')[1].split(', got: ')
    assert (eval(expected), eval(got)) == ({'e1', 'a1', 'p1'}, {'e1', 'p1'})


async def test_resume_a_history_that_ends_with_the_response():
    agent, messages = await resume_errors_agent()
    # Without a request after it, every call of the response needs a result, including `plain`.
    results = DeferredToolResults(calls={'e1': 'E', 'p1': 'P'}, approvals={'a1': True})
    result = await agent.run(message_history=messages[:2], deferred_tool_results=results)
    assert result.new_messages()[0].parts == snapshot(
        [
            ToolReturnPart(tool_name='plain', content='P', tool_call_id='p1', timestamp=IS_NOW),
            ToolReturnPart(tool_name='later', content='E', tool_call_id='e1', timestamp=IS_NOW),
            ToolReturnPart(tool_name='approve_me', content=1, tool_call_id='a1', timestamp=IS_NOW),
        ]
    )
    # With no results and no prompt, the response's calls are handled as in the first run.
    again = await agent.run(message_history=messages[:2])
    assert requests_of(again.output).approvals == snapshot(
        [ToolCallPart(tool_name='approve_me', args={}, tool_call_id='a1')]
    )


async def test_resume_usage_limit_and_usage():
    agent, messages = await resume_errors_agent()
    results = DeferredToolResults(calls={'e1': 1}, approvals={'a1': True})
    with pytest.raises(
        UsageLimitExceeded, match=r'^The next tool call\(s\) would exceed the tool_calls_limit of 1 \(tool_calls=2\)\.$'
    ):
        await agent.run(
            message_history=messages, deferred_tool_results=results, usage_limits=UsageLimits(tool_calls_limit=1)
        )
    result = await agent.run(message_history=messages, deferred_tool_results=results, usage=RunUsage(tool_calls=3))
    assert result.usage().tool_calls == 4


async def test_resume_retries_and_failures():
    agent = Agent(
        scripted([call('flaky', 'f1', n=1), call('flaky', 'f2', n=2), call('gone', 'u1')]),
        output_type=[str, DeferredToolRequests],
    )

    @agent.tool_plain(requires_approval=True, retries=1)
    def flaky(n: int) -> int:
        if n == 1:
            raise ModelRetry('once more')
        return n

    def gone() -> int:
        return 0  # pragma: no cover

    # `gone` is offered in the first run only, so its approved call finds no tool on resume.
    first = await agent.run('go', toolsets=[FunctionToolset([gone], requires_approval=True)])
    results = DeferredToolResults(approvals={'f1': True, 'f2': ToolApproved(override_args={'n': 'two'}), 'u1': True})
    second = await agent.run(message_history=first.all_messages(), deferred_tool_results=results)
    assert second.new_messages()[0].parts == snapshot(
        [
            RetryPromptPart(
                content="Unknown tool name: 'gone'. Available tools: 'flaky'",
                tool_name='gone',
                tool_call_id='u1',
                timestamp=IS_NOW,
            ),
            RetryPromptPart(content='once more', tool_name='flaky', tool_call_id='f1', timestamp=IS_NOW),
            RetryPromptPart(
                content=[
                    {
                        'type': 'int_parsing',
                        'loc': ('n',),
                        'msg': 'Input should be a valid integer, unable to parse string as an integer',
                        'input': 'two',
                    }
                ],
                tool_name='flaky',
                tool_call_id='f2',
                timestamp=IS_NOW,
            ),
        ]
    )
    agent_no_retries = Agent(scripted([call('flaky', 'f1', n=1)]), output_type=[str, DeferredToolRequests])
    agent_no_retries.tool_plain(requires_approval=True, retries=0)(flaky)
    first = await agent_no_retries.run('go')
    with pytest.raises(UnexpectedModelBehavior, match=r"^Tool 'flaky' exceeded max retries count of 0$"):
        await agent_no_retries.run(
            message_history=first.all_messages(), deferred_tool_results=DeferredToolResults(approvals={'f1': True})
        )


async def test_redeferral_and_second_resume():
    agent = Agent(
        scripted([call('twice', 't1'), call('once', 'o1'), call('plain', 'p1')]),
        output_type=[str, DeferredToolRequests],
    )
    approvals_seen: dict[str, int] = {}

    @agent.tool
    def twice(ctx: RunContext) -> str:
        approvals_seen['twice'] = approvals_seen.get('twice', 0) + ctx.tool_call_approved
        if approvals_seen['twice'] < 2:
            raise ApprovalRequired(metadata={'round': approvals_seen['twice']})
        return 'twice approved'

    @agent.tool_plain(requires_approval=True)
    def once() -> ToolReturn:
        return ToolReturn('once approved', content='a note from once')

    @agent.tool_plain
    def plain() -> str:
        return 'plain'

    first = await agent.run('go')
    history = first.all_messages()
    # Deferred again, with nothing else resolved: the run ends at once and adds no message.
    only_again = await agent.run(
        message_history=history, deferred_tool_results=DeferredToolResults(approvals={'t1': True, 'o1': False})
    )
    assert only_again.output == snapshot(
        DeferredToolRequests(
            approvals=[ToolCallPart(tool_name='twice', args={}, tool_call_id='t1')], metadata={'t1': {'round': 1}}
        )
    )
    # Deferred again beside resolved calls: those results are kept; the new prompt is dropped, as upstream does.
    approvals_seen.clear()
    partly = await agent.run(
        'ignored',
        message_history=history,
        deferred_tool_results=DeferredToolResults(approvals={'t1': True, 'o1': True}),
    )
    assert partly.new_messages() == snapshot(
        [
            ModelRequest(
                parts=[
                    ToolReturnPart(tool_name='once', content='once approved', tool_call_id='o1', timestamp=IS_NOW),
                    UserPromptPart(content='a note from once', timestamp=IS_NOW),
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            )
        ]
    )
    assert requests_of(partly.output).approvals == [ToolCallPart('twice', {}, 't1')]
    done = await agent.run(
        message_history=partly.all_messages(), deferred_tool_results=DeferredToolResults(approvals={'t1': True})
    )
    assert done.output == snapshot('plain | once approved | twice approved')
    assert results_by_call(done.all_messages()) == {'t1': 1, 'o1': 1, 'p1': 1}


async def test_resume_parity_between_run_methods():
    async def via_run(agent: Agent[None, Any], **kwargs: Any) -> list[ModelMessage]:
        return (await agent.run(**kwargs)).new_messages()

    async def via_iter(agent: Agent[None, Any], **kwargs: Any) -> list[ModelMessage]:
        async with agent.iter(**kwargs) as agent_run:
            nodes = [type(node).__name__ async for node in agent_run]
        assert nodes == ['UserPromptNode', 'CallToolsNode', 'ModelRequestNode', 'CallToolsNode', 'End']
        assert agent_run.result is not None
        return agent_run.result.new_messages()

    async def via_run_sync(agent: Agent[None, Any], **kwargs: Any) -> list[ModelMessage]:
        return await asyncio.to_thread(lambda: agent.run_sync(**kwargs).new_messages())

    outcomes: list[list[ModelMessage]] = []
    for runner in (via_run, via_iter, via_run_sync):
        agent = mixed_agent()
        first = await agent.run('go')
        results = DeferredToolResults(calls={'b1': 'B', 'x1': 'X'}, approvals={'g1': True, 'a1': ToolDenied('no')})
        outcomes.append(
            await runner(agent, user_prompt='more', message_history=first.all_messages(), deferred_tool_results=results)
        )
    parts = [[[type(p).__name__, getattr(p, 'content', None)] for m in o for p in m.parts] for o in outcomes]
    assert parts[0] == parts[1] == parts[2]


def test_resume_from_json_in_a_fresh_process(tmp_path: Path):
    program = textwrap.dedent(
        """
        import sys
        from pathlib import Path

        from pydantic import TypeAdapter
        from pydantic_ai import (
            Agent, ApprovalRequired, DeferredToolRequests, DeferredToolResults, ModelMessagesTypeAdapter, RunContext
        )
        from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
        from pydantic_ai.models.function import FunctionModel


        def respond(messages, info):
            if len(messages) == 1:
                return ModelResponse(parts=[
                    ToolCallPart('transfer', {'amount': 500}, 'tr1'), ToolCallPart('fetch_rate', {}, 'fr1')
                ])
            returns = [p.content for m in messages[2:] for p in m.parts if isinstance(p, ToolReturnPart)]
            return ModelResponse(parts=[TextPart(repr(returns))])


        agent = Agent(FunctionModel(respond), output_type=[str, DeferredToolRequests])


        @agent.tool
        def transfer(ctx: RunContext, amount: int) -> str:
            if not ctx.tool_call_approved:
                raise ApprovalRequired(metadata={'amount': amount}, context={'ticket': 7})
            return f'sent {amount} (ticket {ctx.tool_call_context["ticket"]}, by {ctx.tool_call_metadata["by"]})'


        @agent.tool_plain
        def fetch_rate() -> float:
            if 'resume' in sys.argv:
                raise ValueError('only the first process fetches rates')
            return 1.5


        folder = Path(sys.argv[1])
        if 'resume' not in sys.argv:
            result = agent.run_sync('send 500')
            (folder / 'history.json').write_bytes(ModelMessagesTypeAdapter.dump_json(result.all_messages()))
            (folder / 'requests.json').write_bytes(TypeAdapter(DeferredToolRequests).dump_json(result.output))
        else:
            history = ModelMessagesTypeAdapter.validate_json((folder / 'history.json').read_bytes())
            results = TypeAdapter(DeferredToolResults).validate_json((folder / 'results.json').read_bytes())
            print(agent.run_sync(message_history=history, deferred_tool_results=results).output)
        """
    )
    script = tmp_path / 'app.py'
    script.write_text(program)
    subprocess.run([sys.executable, str(script), str(tmp_path)], check=True)
    requests = TypeAdapter(DeferredToolRequests).validate_json((tmp_path / 'requests.json').read_bytes())
    assert requests == snapshot(
        DeferredToolRequests(
            approvals=[ToolCallPart(tool_name='transfer', args={'amount': 500}, tool_call_id='tr1')],
            metadata={'tr1': {'amount': 500}},
            context={'tr1': {'ticket': 7}},
        )
    )
    results = DeferredToolResults(context=requests.context, metadata={'tr1': {'by': 'alice'}})
    results.approvals['tr1'] = True
    (tmp_path / 'results.json').write_bytes(TypeAdapter(DeferredToolResults).dump_json(results))
    resumed = subprocess.run(
        [sys.executable, str(script), str(tmp_path), 'resume'], check=True, capture_output=True, text=True
    )
    assert resumed.stdout == snapshot("[1.5, 'sent 500 (ticket 7, by alice)']\n")


async def test_approved_calls_run_concurrently():
    count = 5
    agent = Agent(
        scripted(
            [call('slow_async', f'a{i}') for i in range(count)] + [call('slow_sync', f's{i}') for i in range(count)]
        ),
        output_type=[str, DeferredToolRequests],
    )

    @agent.tool_plain(requires_approval=True)
    async def slow_async() -> str:
        await asyncio.sleep(0.1)
        return 'a'

    @agent.tool_plain(requires_approval=True)
    def slow_sync() -> str:
        time.sleep(0.1)
        return 's'

    first = await agent.run('go')
    results = DeferredToolResults(approvals={c.tool_call_id: True for c in requests_of(first.output).approvals})
    start = time.perf_counter()
    await agent.run(message_history=first.all_messages(), deferred_tool_results=results)
    # Ten calls of 0.1 s each: run one after another they would take a second.
    assert time.perf_counter() - start < 0.5


async def test_sequential_tools_run_in_turn():
    order: list[str] = []
    agent = Agent(scripted([call('step', 's1', n=1), call('step', 's2', n=2)]), output_type=[str, DeferredToolRequests])

    @agent.tool_plain(requires_approval=True, sequential=True)
    async def step(n: int) -> int:
        order.append(f'start {n}')
        await asyncio.sleep(0.01 * (3 - n))
        order.append(f'end {n}')
        return n

    first = await agent.run('go')
    await agent.run(
        message_history=first.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={'s1': True, 's2': True}),
    )
    assert order == ['start 1', 'end 1', 'start 2', 'end 2']


async def test_tool_errors_propagate_from_resumed_calls():
    agent = Agent(scripted([call('boom', 'b1'), call('boom', 'b2')]), output_type=[str, DeferredToolRequests])

    @agent.tool_plain(requires_approval=True, sequential=True)
    def boom() -> str:
        raise RuntimeError('broken tool')

    first = await agent.run('go')
    with pytest.raises(RuntimeError, match=r'^broken tool$'):
        await agent.run(
            message_history=first.all_messages(),
            deferred_tool_results=DeferredToolResults(approvals={'b1': True, 'b2': True}),
        )
    concurrent = Agent(scripted([call('boom', 'b1')]), output_type=[str, DeferredToolRequests])
    concurrent.tool_plain(requires_approval=True)(boom)
    first = await concurrent.run('go')
    with pytest.raises(RuntimeError, match=r'^broken tool$'):
        await concurrent.run(
            message_history=first.all_messages(), deferred_tool_results=DeferredToolResults(approvals={'b1': True})
        )


# Nested deferred calls.


def delegating_agent(sub_agent: Agent[None, Any], *calls: Sequence[ModelResponsePart]) -> Agent[None, Any]:
    """An agent with a `delegate` tool that runs `sub_agent`, surfacing its deferred calls as nested ones.

    The sub-agent's history is kept in the call's context, so that on resume it continues where it stopped.
    """
    agent = Agent(scripted(*calls), output_type=[str, DeferredToolRequests])

    @agent.tool
    async def delegate(ctx: RunContext, task: str) -> str:
        saved = ctx.tool_call_context
        history = None if saved is None else ModelMessagesTypeAdapter.validate_python(saved['messages'])
        result = await sub_agent.run(
            task if history is None else None,
            message_history=history,
            deferred_tool_results=ctx.deferred_tool_results,
        )
        if isinstance(result.output, DeferredToolRequests):
            messages = ModelMessagesTypeAdapter.dump_python(result.all_messages(), mode='json')
            raise CallDeferred(deferred_tool_requests=result.output, context={'messages': messages})
        return f'{task}: {result.output}'

    return agent


def leaf_agent() -> Agent[None, Any]:
    agent = Agent(
        scripted([call('drop_table', 'c1', name='old'), call('lookup', 'l1', key='owner')]),
        output_type=[str, DeferredToolRequests],
    )

    @agent.tool_plain(requires_approval=True)
    def drop_table(name: str) -> str:
        return f'dropped {name}'

    @agent.tool_plain
    def lookup(key: str) -> str:
        raise CallDeferred(metadata={'asks': key})

    return agent


def round_trip(value: Any, type_: Any) -> Any:
    adapter: TypeAdapter[Any] = TypeAdapter(type_)
    return adapter.validate_json(adapter.dump_json(value))


async def test_nested_sub_agent():
    agent = delegating_agent(leaf_agent(), [call('delegate', 'd1', task='clean up')])
    first = await agent.run('go')
    requests = round_trip(first.output, DeferredToolRequests)
    assert requests.calls == snapshot([ToolCallPart(tool_name='lookup', args={'key': 'owner'}, tool_call_id='d1::l1')])
    assert requests.approvals == snapshot(
        [ToolCallPart(tool_name='drop_table', args={'name': 'old'}, tool_call_id='d1::c1')]
    )
    assert requests.metadata == snapshot({'d1::l1': {'asks': 'owner'}})
    assert list(requests.context) == ['d1']
    results = DeferredToolResults(calls={'d1::l1': 'alice'}, approvals={'d1::c1': True}, context=requests.context)
    history = round_trip(first.all_messages(), list[ModelMessage])
    second = await agent.run(message_history=history, deferred_tool_results=round_trip(results, DeferredToolResults))
    assert second.output == snapshot('clean up: alice | dropped old')
    assert second.new_messages()[0] == snapshot(
        ModelRequest(
            parts=[
                ToolReturnPart(
                    tool_name='delegate', content='clean up: alice | dropped old', tool_call_id='d1', timestamp=IS_NOW
                )
            ],
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )


async def test_nested_depth_two():
    middle = delegating_agent(leaf_agent(), [call('delegate', 'm1', task='inner')])
    top = delegating_agent(middle, [call('delegate', 'd1', task='outer'), call('local', 'x1')])

    @top.tool_plain(requires_approval=True)
    def local() -> str:
        return 'local done'

    first = await top.run('go')
    requests = round_trip(first.output, DeferredToolRequests)
    assert [c.tool_call_id for c in requests.calls] == snapshot(['d1::m1::l1'])
    assert [c.tool_call_id for c in requests.approvals] == snapshot(['d1::m1::c1', 'x1'])
    assert requests.metadata == snapshot({'d1::m1::l1': {'asks': 'owner'}})
    assert list(requests.context) == snapshot(['d1', 'd1::m1'])
    results = DeferredToolResults(
        calls={'d1::m1::l1': 'bob'},
        approvals={'d1::m1::c1': ToolDenied('not that table'), 'x1': True},
        context=requests.context,
    )
    second = await top.run(
        message_history=round_trip(first.all_messages(), list[ModelMessage]),
        deferred_tool_results=round_trip(results, DeferredToolResults),
    )
    assert second.output == snapshot('outer: inner: bob | not that table | local done')
    assert set(results_by_call(second.all_messages()).values()) == {1}


async def test_nested_redeferral_surfaces_new_calls():
    leaf = Agent(
        scripted([call('drop_table', 'c1', name='a')], [call('drop_table', 'c2', name='b')]),
        output_type=[str, DeferredToolRequests],
    )

    @leaf.tool_plain(requires_approval=True)
    def drop_table(name: str) -> str:
        return f'dropped {name}'

    agent = delegating_agent(leaf, [call('delegate', 'd1', task='t')])
    first = await agent.run('go')
    results = DeferredToolResults(approvals={'d1::c1': True}, context=requests_of(first.output).context)
    second = await agent.run(message_history=first.all_messages(), deferred_tool_results=results)
    assert requests_of(second.output).approvals == snapshot(
        [ToolCallPart(tool_name='drop_table', args={'name': 'b'}, tool_call_id='d1::c2')]
    )
    assert second.new_messages() == []
    results = DeferredToolResults(approvals={'d1::c2': True}, context=requests_of(second.output).context)
    third = await agent.run(message_history=second.all_messages(), deferred_tool_results=results)
    assert third.output == snapshot('t: dropped b')


async def test_nested_missing_answer_fails_in_the_sub_agent():
    agent = delegating_agent(leaf_agent(), [call('delegate', 'd1', task='t')])
    first = await agent.run('go')
    results = DeferredToolResults(approvals={'d1::c1': True}, context=requests_of(first.output).context)
    with pytest.raises(UserError, match=r'^Tool call results need to be provided for all deferred tool calls\.'):
        await agent.run(message_history=first.all_messages(), deferred_tool_results=results)


async def test_nested_spec_semantics():
    seen: list[tuple[Any, Any, Any, bool]] = []
    agent = Agent(scripted([call('parent', 'p1'), call('empty', 'e1')]), output_type=[str, DeferredToolRequests])

    @agent.tool
    def parent(ctx: RunContext) -> str:
        seen.append((ctx.deferred_tool_results, ctx.tool_call_metadata, ctx.tool_call_context, ctx.tool_call_approved))
        if ctx.deferred_tool_results is None:
            nested = DeferredToolRequests(
                approvals=[ToolCallPart('delete_database', {'name': 'prod'}, tool_call_id='delete_db')],
                metadata={'delete_db': {'reason': 'destructive'}},
                context={'delete_db': 'child state'},
            )
            raise CallDeferred(metadata={'parent': True}, context='parent state', deferred_tool_requests=nested)
        (approval,) = ctx.deferred_tool_results.approvals.values()
        return f'denied: {approval.message}' if isinstance(approval, ToolDenied) else 'approved'

    @agent.tool
    def empty(ctx: RunContext) -> str:
        if ctx.tool_call_approved:
            return 'approved itself'
        # Nested requests with nothing in them: the call itself is deferred.
        raise CallDeferred(deferred_tool_requests=DeferredToolRequests())

    first = await agent.run('go')
    assert first.output == snapshot(
        DeferredToolRequests(
            calls=[ToolCallPart(tool_name='empty', args={}, tool_call_id='e1')],
            approvals=[ToolCallPart(tool_name='delete_database', args={'name': 'prod'}, tool_call_id='p1::delete_db')],
            metadata={'p1': {'parent': True}, 'p1::delete_db': {'reason': 'destructive'}},
            context={'p1': 'parent state', 'p1::delete_db': 'child state'},
        )
    )
    results = DeferredToolResults(
        calls={'e1': 'answered outside'},
        approvals={'p1::delete_db': ToolDenied('too risky')},
        metadata={'p1': {'from': 'results'}, 'p1::delete_db': {'child': 1}},
        context=requests_of(first.output).context,
    )
    second = await agent.run(message_history=first.all_messages(), deferred_tool_results=results)
    assert second.output == snapshot('denied: too risky | answered outside')
    assert seen[1] == snapshot(
        (
            DeferredToolResults(
                approvals={'delete_db': ToolDenied(message='too risky')},
                metadata={'delete_db': {'child': 1}},
                context={'delete_db': 'child state'},
            ),
            {'from': 'results'},
            'parent state',
            True,
        )
    )


# The entry points a deferred tool handler resolves a batch's calls through.


async def resolve_in_run(
    deferred_calls: list[Any], results: DeferredToolResults, response_calls: list[ToolCallPart]
) -> Any:
    """Resolve `deferred_calls` inside a run of `mixed_agent`, as a handler would after its tool-call stage."""
    from pydantic_ai import _deferred

    agent = mixed_agent()
    async with agent.iter('go') as agent_run:
        async for node in agent_run:
            if type(node).__name__ == 'CallToolsNode':
                break
        return await _deferred.resolve_deferred_calls(
            deferred_calls, results, response_calls, agent_run.ctx.state, agent_run.ctx.deps
        )


async def test_handler_path_resolution():
    from pydantic_ai._tool_calls import DeferredCall

    calls = [
        call('approve_me', 'a1', x=2),
        call('guard', 'g1', path='.env'),
        call('external', 'x1'),
        call('guard', 'p1', path='x'),
    ]
    nested = DeferredToolRequests(calls=[call('external', 'n1')], context={'n1': 'kept'})
    deferred = [
        DeferredCall(calls[1], 'unapproved', context={'from': 'raise'}),
        DeferredCall(calls[3], 'external', nested=nested, context='parent'),
        DeferredCall(calls[0], 'unapproved'),
        DeferredCall(calls[2], 'external'),
    ]
    results = DeferredToolResults(
        calls={'x1': ToolReturn('X', content='extra'), 'p1::n1': 'nested'}, approvals={'a1': True, 'g1': True}
    )
    resolution = await resolve_in_run(deferred, results, calls)
    # In call order, with the context the calls saved filled in where the results leave it out.
    assert resolution.parts == snapshot(
        [
            ToolReturnPart(tool_name='approve_me', content=20, tool_call_id='a1', timestamp=IS_NOW),
            ToolReturnPart(
                tool_name='guard',
                content="wrote .env (metadata=None, context={'from': 'raise'})",
                tool_call_id='g1',
                timestamp=IS_NOW,
            ),
            ToolReturnPart(tool_name='external', content='X', tool_call_id='x1', timestamp=IS_NOW),
            ToolReturnPart(
                tool_name='guard',
                content='wrote x (metadata=None, context=parent)',
                tool_call_id='p1',
                timestamp=IS_NOW,
            ),
        ]
    )
    assert resolution.user_parts == snapshot([UserPromptPart(content='extra', timestamp=IS_NOW)])
    assert resolution.deferred == []


@pytest.mark.parametrize(
    ('results', 'message'),
    [
        (
            DeferredToolResults(approvals={'a1': True}),
            r"^Tool call results need to be provided for all deferred tool calls\. Expected: \{'a1', 'x1'\}|\{'x1', 'a1'\}",
        ),
        (
            DeferredToolResults(approvals={'a1': True, 'x1': True, 'zz': True}),
            r'^Tool call results need to be provided for all deferred tool calls\.',
        ),
        (
            DeferredToolResults(approvals={'a1': True, 'x1': ToolDenied()}),
            r"^Tool call 'x1' is an external call: give its result in `DeferredToolResults\.calls`, not an approval\.$",
        ),
        (
            DeferredToolResults(calls={'a1': 1, 'x1': 2}),
            r"^Tool call 'a1' needs approval: answer it in `DeferredToolResults\.approvals`, not with a result\.$",
        ),
    ],
)
async def test_handler_path_checks(results: DeferredToolResults, message: str):
    from pydantic_ai._tool_calls import DeferredCall

    calls = [call('approve_me', 'a1', x=2), call('external', 'x1')]
    deferred = [DeferredCall(calls[0], 'unapproved'), DeferredCall(calls[1], 'external')]
    with pytest.raises(UserError, match=message):
        await resolve_in_run(deferred, results, calls)


async def test_handler_path_redeferral():
    from pydantic_ai._tool_calls import DeferredCall

    calls = [call('guard', 'g1', path='.env'), call('background', 'b1', job='j')]
    deferred = [DeferredCall(calls[0], 'unapproved'), DeferredCall(calls[1], 'external')]
    results = DeferredToolResults(calls={'b1': 'done'}, approvals={'g1': ToolApproved(override_args={'path': '.x'})})
    resolution = await resolve_in_run(deferred, results, calls)
    assert resolution.parts == snapshot(
        [
            ToolReturnPart(
                tool_name='guard', content='wrote .x (metadata=None, context=None)', tool_call_id='g1', timestamp=IS_NOW
            ),
            ToolReturnPart(tool_name='background', content='done', tool_call_id='b1', timestamp=IS_NOW),
        ]
    )
    approved_background = DeferredToolResults(approvals={'b1': True, 'g1': True})
    resolution = await resolve_in_run(
        [DeferredCall(calls[0], 'unapproved'), DeferredCall(calls[1], 'unapproved')], approved_background, calls
    )
    assert [(d.call.tool_call_id, d.kind, d.metadata) for d in resolution.deferred] == snapshot(
        [('b1', 'external', {'job_id': 'job-b1'})]
    )


async def test_run_ending_with_only_deferred_calls_leaves_no_empty_request():
    agent = Agent(
        scripted([call('approve_me', 'a1'), call('later', 'e1')]),
        output_type=[str, DeferredToolRequests],
        toolsets=[ExternalToolset[None]([ToolDefinition(name='later')])],
    )

    @agent.tool_plain(requires_approval=True)
    def approve_me() -> str:
        return 'approved'

    result = await agent.run('go')
    assert result.all_messages() == snapshot(
        [
            ModelRequest(parts=[UserPromptPart(content='go', timestamp=IS_NOW)], timestamp=IS_NOW, run_id=IS_STR),
            ModelResponse(
                parts=[
                    ToolCallPart(tool_name='approve_me', args={}, tool_call_id='a1'),
                    ToolCallPart(tool_name='later', args={}, tool_call_id='e1'),
                ],
                usage=RequestUsage(input_tokens=51, output_tokens=4),
                model_name='function:respond:',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
        ]
    )
    with pytest.raises(
        UserError,
        match=r'^Cannot provide a new user prompt when the message history contains unprocessed tool calls\.$',
    ):
        await agent.run('next', message_history=result.all_messages())

    resumed = await agent.run(
        message_history=result.all_messages(),
        deferred_tool_results=DeferredToolResults(calls={'e1': 'later done'}, approvals={'a1': True}),
    )
    assert resumed.new_messages() == snapshot(
        [
            ModelRequest(
                parts=[
                    ToolReturnPart(tool_name='later', content='later done', tool_call_id='e1', timestamp=IS_NOW),
                    ToolReturnPart(tool_name='approve_me', content='approved', tool_call_id='a1', timestamp=IS_NOW),
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[TextPart(content='later done | approved')],
                usage=RequestUsage(input_tokens=54, output_tokens=8),
                model_name='function:respond:',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
        ]
    )


async def test_resume_that_defers_everything_again_leaves_no_empty_request():
    agent = Agent(scripted([call('gate', 'g1')]), output_type=[str, DeferredToolRequests])

    @agent.tool
    def gate(ctx: RunContext[None]) -> str:
        raise ApprovalRequired(metadata={'round': 2 if ctx.tool_call_approved else 1})

    first = await agent.run('go')
    second = await agent.run(
        message_history=first.all_messages(), deferred_tool_results=DeferredToolResults(approvals={'g1': True})
    )
    assert second.output == snapshot(
        DeferredToolRequests(
            approvals=[ToolCallPart(tool_name='gate', args={}, tool_call_id='g1')], metadata={'g1': {'round': 2}}
        )
    )
    assert second.new_messages() == []
    assert second.all_messages() == first.all_messages()


async def test_new_prompt_over_partly_answered_response_is_refused():
    agent = Agent(scripted([call('approve_me', 'a1'), call('plain', 'p1')]), output_type=[str, DeferredToolRequests])

    @agent.tool_plain(requires_approval=True)
    def approve_me() -> str:
        return 'approved'  # pragma: no cover

    @agent.tool_plain
    def plain() -> str:
        return 'plain done'

    result = await agent.run('go')
    assert [type(m).__name__ for m in result.all_messages()] == snapshot(
        ['ModelRequest', 'ModelResponse', 'ModelRequest']
    )
    with pytest.raises(
        UserError,
        match=r'^Cannot provide a new user prompt when the message history contains unprocessed tool calls\.$',
    ):
        await agent.run('next', message_history=result.all_messages())
    answered = [
        *result.all_messages(),
        ModelRequest(parts=[ToolReturnPart('approve_me', 'answered by hand', 'a1')]),
    ]
    later = await agent.run('next', message_history=answered)
    assert later.output == snapshot('plain done | answered by hand')
