"""`pydantic_ai.durable_exec.dbos` in this process: workflows, steps, the durable waiting handler and its client.

DBOS runs embedded on a SQLite file; the agents are made at import, before `DBOS.launch()`, as DBOS requires.
Crash-and-recover tests with worker processes are in `test_dbos_recovery.py`.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterable, AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from dbos import DBOS, WorkflowHandleAsync
from dirty_equals import IsStr
from inline_snapshot import snapshot
from pydantic import TypeAdapter
from pydantic_ai import (
    Agent,
    AgentStreamEvent,
    DeferredToolRequests,
    DeferredToolResults,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelRetry,
    RetryPromptPart,
    RunContext,
    TextPart,
    Tool,
    ToolCallPart,
    ToolDenied,
    ToolReturnPart,
)
from pydantic_ai.durable_exec import DeferredToolResultsTimeout, PendingDeferredToolRequests
from pydantic_ai.durable_exec.dbos import (
    DBOSAgent,
    DBOSApprovalClient,
    DBOSMCPServer,
    DBOSModel,
    wait_for_deferred_tool_results,
)
from pydantic_ai.exceptions import UserError
from pydantic_ai.mcp import MCPServerStdio
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.run import AgentRunResult
from pydantic_ai.toolsets import ExternalToolset

from ._messages import request_parts
from .mcp_servers import SERVER

pytestmark = pytest.mark.anyio

IS_STR: Any = IsStr()
CALLS: list[str] = []


def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Calls every tool (again if it asked to retry), then reports what came back."""
    CALLS.append('model')
    last = messages[-1]
    retries = [p for p in last.parts if isinstance(p, RetryPromptPart)] if isinstance(last, ModelRequest) else []
    if retries:
        return ModelResponse(
            parts=[ToolCallPart(p.tool_name or '', {}, tool_call_id=f'{p.tool_call_id}+') for p in retries]
        )
    returned = request_parts(messages, ToolReturnPart)
    if returned:
        return ModelResponse(parts=[TextPart(' | '.join(f'{p.tool_name}: {p.content}' for p in returned))])
    names = sorted(tool.name for tool in info.function_tools)
    if not names:
        return ModelResponse(parts=[TextPart('Nothing to do.')])
    return ModelResponse(parts=[ToolCallPart(name, {}, tool_call_id=f'{name}-id') for name in names])


async def stream_reply(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    response = reply(messages, info)
    for index, part in enumerate(response.parts):
        if isinstance(part, TextPart):
            yield part.content
        else:
            assert isinstance(part, ToolCallPart)
            yield {index: DeltaToolCall(name=part.tool_name, json_args='{}', tool_call_id=part.tool_call_id)}


# An agent with a plain tool and a retrying tool, as steps.
simple = Agent(FunctionModel(reply, stream_function=stream_reply), name='simple')
attempts: list[int] = []


@simple.tool_plain
def check() -> str:
    CALLS.append('check')
    return 'ok'


@simple.tool_plain
def flaky() -> str:
    attempts.append(1)
    if len(attempts) == 1:
        raise ModelRetry('Try again.')
    return 'fine'


simple_dbos = DBOSAgent(simple, tool_step_config={'retries_allowed': False}, parallel_execution_mode='sequential')

# The same model, streamed to an event stream handler.
events: list[str] = []


async def collect(ctx: RunContext[Any], stream: AsyncIterable[AgentStreamEvent]) -> None:
    async for event in stream:
        events.append(event.event_kind)


streamed = Agent(FunctionModel(reply, stream_function=stream_reply), name='streamed', tools=[check])
streamed_dbos = DBOSAgent(streamed, event_stream_handler=collect)


# Two tools that need approval; a policy denies `wipe` and a person answers `rename`.
def deny_wipe(ctx: RunContext[Any], requests: DeferredToolRequests) -> DeferredToolResults:
    return DeferredToolResults(
        approvals={c.tool_call_id: ToolDenied('Never.') for c in requests.approvals if c.tool_name == 'wipe'}
    )


approving = Agent(
    FunctionModel(reply),
    name='approving',
    deferred_tool_handler=wait_for_deferred_tool_results(timedelta(minutes=5), policy=deny_wipe),
)


@approving.tool_plain(requires_approval=True)
def rename() -> str:
    CALLS.append('rename')
    return 'renamed'


@approving.tool_plain(requires_approval=True)
def wipe() -> str:
    return 'wiped'  # pragma: no cover


async def nothing_yet(ctx: RunContext[Any], requests: DeferredToolRequests) -> DeferredToolResults:
    return DeferredToolResults()


approving_dbos = DBOSAgent(approving)
# The same tools, with an async policy that answers nothing, an external toolset left as it is, and tool steps.
patient = Agent(
    FunctionModel(reply),
    name='patient',
    tools=[Tool(rename, requires_approval=True)],
    toolsets=[ExternalToolset[Any]([])],
    deferred_tool_handler=wait_for_deferred_tool_results(policy=nothing_yet),
)
patient_dbos = DBOSAgent(patient, tool_step_config={})

# A policy that answers everything, so nobody is asked.
everything = Agent(
    FunctionModel(reply),
    name='everything',
    tools=[Tool(rename, requires_approval=True)],
    deferred_tool_handler=wait_for_deferred_tool_results(
        policy=lambda ctx, requests: DeferredToolResults(approvals={c.tool_call_id: True for c in requests.approvals})
    ),
)
everything_dbos = DBOSAgent(everything)

# Nobody answers in time.
timing_out = Agent(
    FunctionModel(reply),
    name='timing_out',
    tools=[Tool(rename, requires_approval=True)],
    deferred_tool_handler=wait_for_deferred_tool_results(0, on_timeout='error'),
)
timing_out_dbos = DBOSAgent(timing_out)


async def external_lookup(ctx: RunContext[Any], city: str) -> str:
    return f'{city}: sunny'  # pragma: no cover


denying = Agent(
    FunctionModel(reply),
    name='denying',
    tools=[Tool(rename, requires_approval=True)],
    deferred_tool_handler=wait_for_deferred_tool_results(0.0),
)
denying_dbos = DBOSAgent(denying)


def use_mcp(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Calls the MCP server's failing tool, then `echo`, then reports what `echo` said."""
    CALLS.append('model')
    last = messages[-1].parts[-1]
    if isinstance(last, ToolReturnPart):
        return ModelResponse(parts=[TextPart(f'{last.content} ({len(info.function_tools)} tools)')])
    if isinstance(last, RetryPromptPart):
        return ModelResponse(parts=[ToolCallPart('echo', {'text': 'hello'}, tool_call_id='echo-id')])
    return ModelResponse(parts=[ToolCallPart('fail', {'message': 'Not today.'}, tool_call_id='fail-id')])


# An MCP server (our test server, over stdio): its tool listings and calls are steps.
notes_server = MCPServerStdio(sys.executable, [SERVER], id='notes', timeout=30)
mcp_agent = Agent(FunctionModel(use_mcp), name='mcp_agent', toolsets=[notes_server])
mcp_dbos = DBOSAgent(mcp_agent, mcp_step_config={'retries_allowed': False})


@pytest.fixture(scope='module')
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url = f'sqlite:///{tmp_path_factory.mktemp("dbos") / "dbos.sqlite"}'
    DBOS(
        config={
            'name': 'dbos-tests',
            'system_database_url': url,
            'log_level': 'WARNING',
            'notification_listener_polling_interval_sec': 0.05,
        }
    )
    DBOS.launch()
    yield url
    DBOS.destroy()


@pytest.fixture
def approvals(db: str) -> Iterator[DBOSApprovalClient]:
    client = DBOSApprovalClient(db)
    yield client
    client.close()


@pytest.fixture(autouse=True)
def clear_calls() -> None:
    CALLS.clear()
    events.clear()
    attempts.clear()


async def step_names(workflow_id: str) -> list[str]:
    return [step['function_name'] for step in await DBOS.list_workflow_steps_async(workflow_id)]


async def test_run_is_a_workflow_whose_model_requests_and_tool_calls_are_steps(db: str) -> None:
    handle = await simple_dbos.start('Go.', workflow_id='simple-1')
    result = await handle.get_result()
    assert result.output == snapshot('check: ok | flaky: fine')
    assert (await handle.get_status()).name == 'simple.run'
    assert await step_names('simple-1') == snapshot(
        [
            'simple__model.request',
            'simple__tool.check',
            'simple__tool.flaky',
            'simple__model.request',
            'simple__tool.flaky',
            'simple__model.request',
        ]
    )
    # Starting the same workflow id again gives the same run, which is not run again.
    again = await simple_dbos.start('Go.', workflow_id='simple-1')
    assert (await again.get_result()).output == result.output
    assert CALLS == ['model', 'check', 'model', 'model']


def test_run_sync_is_a_workflow_with_the_run_as_its_child(db: str) -> None:
    # In a thread of its own: DBOS gives the event loops it runs on its own thread pool, which it shuts down
    # with `DBOS.destroy()`, and the main thread's `run_sync` loop is used by later tests.
    with ThreadPoolExecutor(1) as pool:
        result = pool.submit(simple_dbos.run_sync, 'Go.').result()
    assert result.output == 'check: ok | flaky: fine'
    [parent] = DBOS.list_workflows(name='simple.run_sync')
    assert [step['function_name'] for step in DBOS.list_workflow_steps(parent.workflow_id)] == snapshot(
        ['simple.run', 'DBOS.getResult']
    )


async def test_event_stream_handler_sees_model_events_from_inside_the_step(db: str) -> None:
    result = await streamed_dbos.run('Go.')
    assert result.output == 'check: ok'
    assert events == snapshot(
        [
            'part_start',
            'part_end',
            'function_tool_call',
            'function_tool_result',
            'part_start',
            'final_result',
            'part_end',
        ]
    )
    [status] = await DBOS.list_workflows_async(name='streamed.run')
    assert await step_names(status.workflow_id) == snapshot(
        ['streamed__model.request_stream', 'streamed__model.request_stream']
    )


async def test_policy_answers_first_and_a_person_the_rest(approvals: DBOSApprovalClient) -> None:
    handle = await approving_dbos.start('Go.', workflow_id='approving-1')
    pending = await _pending(approvals, 'approving-1')
    assert pending == snapshot(
        PendingDeferredToolRequests(
            workflow_id='approving-1',
            request_id=IS_STR,
            requests=DeferredToolRequests(
                approvals=[ToolCallPart(tool_name='rename', args={}, tool_call_id='rename-id')]
            ),
            deadline=pending.deadline,
        )
    )
    assert [p.workflow_id for p in await approvals.list_pending()] == ['approving-1']
    await approvals.submit(
        'approving-1', DeferredToolResults(approvals={'rename-id': True}), request_id=pending.request_id
    )
    result = await handle.get_result()
    assert result.output == snapshot('rename: renamed | wipe: Never.')
    assert await approvals.pending('approving-1') is None
    assert await approvals.pending('no-such-workflow') is None
    assert await step_names('approving-1') == snapshot(
        [
            'approving__model.request',
            'pydantic_ai.deferred_tool_requests.policy',
            'pydantic_ai.deferred_tool_requests.open',
            'DBOS.setEvent',
            'DBOS.recv',
            'DBOS.sleep',
            'DBOS.setEvent',
            'approving__model.request',
        ]
    )


async def test_answers_that_are_not_deferred_tool_results_are_refused(approvals: DBOSApprovalClient) -> None:
    handle = await approving_dbos.start('Go.', workflow_id='approving-2')
    pending = await _pending(approvals, 'approving-2')
    await DBOS.send_async('approving-2', 'yes please', 'pydantic_ai.deferred_tool_results')
    refused = await _pending(approvals, 'approving-2', rejected=True)
    assert refused.rejection == snapshot(
        'The answer is not a message sent by `DBOSApprovalClient.submit`; it was ignored.'
    )
    message = {'request_id': pending.request_id, 'results': {'approvals': {'rename-id': 'maybe'}}}
    await DBOS.send_async('approving-2', message, 'pydantic_ai.deferred_tool_results')
    refused = await _pending(approvals, 'approving-2', rejected=True, mentioning='valid')
    assert refused.rejection is not None
    assert refused.rejection.startswith('The answer is not a valid `DeferredToolResults`:')
    await approvals.submit(
        'approving-2', DeferredToolResults(approvals={'rename-id': False}), request_id=pending.request_id
    )
    assert (await handle.get_result()).output == snapshot('rename: The tool call was denied. | wipe: Never.')


async def test_an_answer_to_another_request_is_refused(approvals: DBOSApprovalClient) -> None:
    handle = await patient_dbos.start('Go.', workflow_id='patient-1')
    pending = await _pending(approvals, 'patient-1')
    await approvals.submit('patient-1', DeferredToolResults(approvals={'rename-id': True}), request_id='old')
    refused = await _pending(approvals, 'patient-1', rejected=True)
    assert refused.rejection == (
        f"The answer is for request 'old', but the pending request is {pending.request_id!r}: "
        'answer the pending request.'
    )
    await approvals.submit(
        'patient-1', DeferredToolResults(approvals={'rename-id': True}), request_id=pending.request_id
    )
    assert (await handle.get_result()).output == 'rename: renamed'
    assert isinstance(patient_dbos.toolsets[1], ExternalToolset)


@DBOS.workflow(name='tests.stream_in_a_workflow')
async def stream_in_a_workflow() -> tuple[str, str | None, str | None, bool, str]:
    model = simple_dbos.model
    messages: list[ModelMessage] = [ModelRequest.user_text_prompt('Hi.')]
    async with model.request_stream(messages, None, ModelRequestParameters()) as stream:
        async for _ in stream:
            pass  # pragma: no cover
        response = stream.get()
        return (
            stream.model_name,
            stream.provider_name,
            stream.provider_url,
            stream.timestamp == response.timestamp,
            str(response.parts),
        )


async def test_a_streamed_request_in_a_workflow_is_a_finished_response(db: str) -> None:
    assert await stream_in_a_workflow() == snapshot(
        ('function:reply:stream_reply', None, None, True, "[TextPart(content='Nothing to do.')]")
    )


async def test_policy_that_answers_everything_asks_nobody(db: str) -> None:
    result = await everything_dbos.run('Go.')
    assert result.output == 'rename: renamed'


async def test_deadline_with_on_timeout_error_ends_the_run(db: str) -> None:
    with pytest.raises(DeferredToolResultsTimeout, match=r"No answer to the deferred tool calls \['rename-id'\]"):
        await timing_out_dbos.run('Go.')


async def test_deadline_denies_by_default(db: str) -> None:
    result = await denying_dbos.run('Go.')
    assert result.output == snapshot('rename: Nobody answered before the deadline, so the tool call was not run.')


def approve_all(ctx: RunContext[Any], requests: DeferredToolRequests) -> DeferredToolResults:
    return DeferredToolResults(approvals={call.tool_call_id: True for call in requests.approvals})


async def test_a_run_s_own_handler_goes_through_the_workflow(db: str) -> None:
    # The handler is a workflow input, so it is pickled: a module-level function is.
    result = await denying_dbos.run('Go.', deferred_tool_handler=approve_all)
    assert result.output == 'rename: renamed'
    async with denying_dbos.iter('Go.', deferred_tool_handler=approve_all) as run:
        async for _ in run:
            pass
    assert run.result is not None and run.result.output == 'rename: renamed'


async def test_waiting_handler_needs_a_workflow() -> None:
    with pytest.raises(UserError, match='waits inside a DBOS workflow'):
        await approving.run('Go.')


def test_waiting_handler_arguments() -> None:
    with pytest.raises(UserError, match=r'`timeout` must not be negative, got -1\.'):
        wait_for_deferred_tool_results(-1)
    with pytest.raises(UserError, match=r"`on_timeout` must be 'deny' or 'error', got 'ignore'\."):
        wait_for_deferred_tool_results(on_timeout='ignore')  # pyright: ignore[reportArgumentType]  # Misuse on purpose.
    assert wait_for_deferred_tool_results(timedelta(seconds=90)).timeout_seconds == 90


def test_pending_requests_survive_a_json_round_trip() -> None:
    pending = PendingDeferredToolRequests(
        'wf', 'req', DeferredToolRequests(approvals=[ToolCallPart('rename', {}, tool_call_id='x')]), rejection='No.'
    )
    adapter = TypeAdapter(PendingDeferredToolRequests)
    assert adapter.validate_json(adapter.dump_json(pending)) == pending


def test_dbos_agent_needs_a_name_and_a_model() -> None:
    with pytest.raises(UserError, match=r'An agent needs to have a unique `name` in order to be used with DBOS\.'):
        DBOSAgent(Agent(TestModel()))
    with pytest.raises(UserError, match='An agent needs to have a `model` in order to be used with DBOS'):
        DBOSAgent(Agent(name='no_model'))
    with pytest.raises(UserError, match=r'The agent name cannot be changed after creation\.'):
        simple_dbos.name = 'other'


async def test_model_cannot_be_chosen_per_run(db: str) -> None:
    with pytest.raises(UserError, match='Non-DBOS model cannot be set at agent run time inside a DBOS workflow'):
        await simple_dbos.run('Go.', model=TestModel())
    with pytest.raises(UserError, match='Non-DBOS model cannot be contextually overridden inside a DBOS workflow'):
        with simple_dbos.override(model=TestModel()):
            pass  # pragma: no cover
    # A `DBOSModel` may be given, and outside a workflow `iter` takes any model.
    with simple_dbos.override(model=simple_dbos.model, deps=None):
        assert (await simple_dbos.run('Go.')).output == 'check: ok | flaky: fine'
    async with simple_dbos.iter('Go.', model=TestModel(custom_output_text='plain')) as run:
        async for _ in run:
            pass
    assert run.result is not None and run.result.output == 'plain'


@DBOS.workflow(name='tests.streams_in_a_workflow')
async def streams_in_a_workflow() -> list[str]:
    errors: list[str] = []
    try:
        async with streamed_dbos.run_stream('Go.'):
            pass  # pragma: no cover
    except UserError as e:
        errors.append(str(e))
    try:
        streamed_dbos.run_stream_sync('Go.')
    except UserError as e:
        errors.append(str(e))
    return errors


async def test_streaming_is_refused_inside_a_workflow(db: str) -> None:
    assert await streams_in_a_workflow() == snapshot(
        [
            '`agent.run_stream()` cannot be used inside a DBOS workflow. Set an `event_stream_handler` on the agent and use `agent.run()` instead.',
            '`agent.run_stream_sync()` cannot be used inside a DBOS workflow. Set an `event_stream_handler` on the agent and use `agent.run()` instead.',
        ]
    )
    with pytest.raises(UserError, match=r'`agent.run_stream_events\(\)` cannot be used with DBOS.'):
        streamed_dbos.run_stream_events('Go.')


async def test_streaming_outside_a_workflow_is_a_plain_run(db: str) -> None:
    async with simple_dbos.run_stream('Go.') as stream:
        assert await stream.get_output() == 'check: ok | flaky: fine'
    result = await asyncio.to_thread(lambda: simple_dbos.run_stream_sync('Go.').get_output())
    assert result == 'check: ok | flaky: fine'


def test_dbos_model_is_the_wrapped_model_to_the_agent() -> None:
    model = simple_dbos.model
    assert isinstance(model, DBOSModel)
    assert repr(model) == f'DBOSModel(wrapped={model.wrapped!r})'
    wrapped = model.wrapped
    assert (model.model_name, model.system, model.base_url, model.settings) == (
        wrapped.model_name,
        wrapped.system,
        wrapped.base_url,
        wrapped.settings,
    )
    assert model.profile is wrapped.profile
    params = ModelRequestParameters()
    assert model.customize_request_parameters(params) == wrapped.customize_request_parameters(params)
    assert simple_dbos.toolsets[0] is not simple.toolsets[0]
    assert streamed_dbos.toolsets[0] is streamed.toolsets[0]
    assert streamed_dbos.event_stream_handler is collect


async def _pending(
    approvals: DBOSApprovalClient, workflow_id: str, *, rejected: bool = False, mentioning: str = ''
) -> PendingDeferredToolRequests:
    for _ in range(400):
        pending = await approvals.pending(workflow_id)
        if pending is not None and (not rejected or (pending.rejection and mentioning in pending.rejection)):
            return pending
        await asyncio.sleep(0.05)
    raise AssertionError(f'{workflow_id} published nothing')  # pragma: no cover


async def result_of(handle: WorkflowHandleAsync[AgentRunResult[str]]) -> str:
    return (await handle.get_result()).output  # pragma: no cover


async def test_mcp_tool_listings_and_calls_are_steps(db: str) -> None:
    [server] = mcp_dbos.toolsets[1:]
    assert isinstance(server, DBOSMCPServer)
    assert (server.id, server.wrapped) == ('notes', notes_server)
    assert repr(server) == f'DBOSMCPServer(wrapped={notes_server!r})'
    handle = await mcp_dbos.start('Go.', workflow_id='mcp-1')
    result = await handle.get_result()
    assert result.output == snapshot('hello (21 tools)')
    assert [p.part_kind for m in result.all_messages() for p in m.parts] == snapshot(
        ['user-prompt', 'tool-call', 'retry-prompt', 'tool-call', 'tool-return', 'text']
    )
    steps = await DBOS.list_workflow_steps_async('mcp-1')
    assert [(step['function_name'], step['error']) for step in steps] == snapshot(
        [
            ('mcp_agent__mcp_server__notes.get_tools', None),
            ('mcp_agent__model.request', None),
            ('mcp_agent__mcp_server__notes.call_tool', None),
            ('mcp_agent__mcp_server__notes.get_tools', None),
            ('mcp_agent__model.request', None),
            ('mcp_agent__mcp_server__notes.call_tool', None),
            ('mcp_agent__mcp_server__notes.get_tools', None),
            ('mcp_agent__model.request', None),
        ]
    )
    # The listing is recorded as tool definitions; the failed call as the retry it asked for.
    assert sorted(steps[0]['output'] or [])[:3] == snapshot(['add', 'add_resource', 'add_tool'])
    # Outside a workflow (`iter` is not one) the steps are plain calls.
    async with mcp_dbos.iter('Go.') as run:
        async for _ in run:
            pass
    assert run.result is not None and run.result.output == result.output
    assert CALLS == ['model'] * 6
