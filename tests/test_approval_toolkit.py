"""The approval toolkit in `pydantic_ai_examples.approval`: policy, toolset wrapper and handler factory.

The `test_parity_*` tests each rebuild one feature of the blocking-approval package this toolkit replaces
(one per feature of its README), on the deferred tool handler.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pydantic_ai_examples.approval as toolkit
import pytest
from inline_snapshot import snapshot
from pydantic_ai import (
    Agent,
    DeferredToolHandler,
    DeferredToolRequests,
    DeferredToolResults,
    RunContext,
    Tool,
    ToolApproved,
    ToolDenied,
)
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.toolsets import FunctionToolset
from pydantic_ai.usage import RunUsage
from pydantic_ai_examples.approval import (
    ApprovalBatch,
    ApprovalBlocked,
    ApprovalConfig,
    ApprovalDecision,
    ApprovalDenied,
    ApprovalError,
    ApprovalHandler,
    ApprovalRecord,
    ApprovalRequest,
    ApprovalResult,
    ApprovalSession,
    ApprovalToolset,
    SupportsApprovalDescription,
    SupportsNeedsApproval,
    approval_handler,
    needs_approval_from_config,
    session_key,
)

from ._messages import request_parts

pytestmark = pytest.mark.anyio


# Helpers.


def make_ctx(deps: Any = None, run_step: int = 1) -> RunContext[Any]:
    return RunContext(deps=deps, model=TestModel(), usage=RunUsage(), run_step=run_step)


def requests(*calls: tuple[str, dict[str, Any], dict[str, Any]]) -> DeferredToolRequests:
    """Approvals `(tool_name, args, metadata)` with ids `c1`, `c2`, ..."""
    parts = [ToolCallPart(name, args, tool_call_id=f'c{i}') for i, (name, args, _) in enumerate(calls, start=1)]
    metadata = {f'c{i}': meta for i, (_, _, meta) in enumerate(calls, start=1) if meta}
    return DeferredToolRequests(approvals=parts, metadata=metadata)


def approve_all(_: ApprovalRequest) -> ApprovalDecision:
    return ApprovalDecision(approved=True)


def deny_all(_: ApprovalRequest) -> ApprovalDecision:
    return ApprovalDecision(approved=False, note='Strict mode')


@dataclass
class Recorder:
    """A callback that answers from a list and records what it was asked."""

    answers: list[ApprovalDecision]
    asked: list[str]

    def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(f'{request.tool_name}{request.tool_args}')
        return self.answers.pop(0)


def recorder(*answers: ApprovalDecision) -> Recorder:
    return Recorder(list(answers), [])


def get_time() -> str:
    """The time."""
    return '12:00'


def delete_file(path: str) -> str:
    """Delete a file."""
    return f'deleted {path}'


def shell_exec(command: str) -> str:
    """Run a shell command."""
    return f'ran {command}'


def tools() -> FunctionToolset[Any]:
    return FunctionToolset[Any]([get_time, delete_file, shell_exec], id='ops')


def calls_model(*calls: ToolCallPart) -> FunctionModel:
    """Makes `calls` first, then answers with the tool results it got back, one per line."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = request_parts(messages, ToolReturnPart)
        if not returns:
            return ModelResponse(parts=list(calls))
        return ModelResponse(parts=[TextPart('\n'.join(f'{p.tool_name}: {p.content}' for p in returns))])

    return FunctionModel(respond)


async def run_with(agent: Agent[Any, str], handler: DeferredToolHandler[Any], deps: Any = None) -> str:
    """Run `agent` to its text output in one run, answering deferred calls with `handler`."""
    result = await agent.run('go', deps=deps, deferred_tool_handler=handler)
    return result.output


# Policy.


def test_config_is_secure_by_default() -> None:
    config: ApprovalConfig = {
        'get_time': {'pre_approved': True},
        'rm': {'blocked': True, 'reason': 'Too dangerous.'},
        'nuke': {'blocked': True, 'pre_approved': True},
        'deploy': {'reason': 'It ships to production.'},
    }
    assert [needs_approval_from_config(name, config) for name in ('get_time', 'rm', 'nuke', 'deploy', 'other')] == [
        ApprovalResult('pre_approved'),
        ApprovalResult('blocked', 'Too dangerous.'),
        ApprovalResult('blocked', 'The tool `nuke` is blocked by policy.'),
        ApprovalResult('needs_approval', 'It ships to production.'),
        ApprovalResult('needs_approval'),
    ]


def test_approval_result_constructors() -> None:
    results = [ApprovalResult.pre_approved(), ApprovalResult.needs_approval('why'), ApprovalResult.blocked('no')]
    assert [(r.is_pre_approved, r.is_needs_approval, r.is_blocked, r.reason) for r in results] == [
        (True, False, False, None),
        (False, True, False, 'why'),
        (False, False, True, 'no'),
    ]


# The toolset wrapper, through agent runs that end with `DeferredToolRequests`.


async def test_toolset_defers_with_metadata_conventions() -> None:
    toolset = ApprovalToolset(
        tools(),
        config={'get_time': {'pre_approved': True}, 'shell_exec': {'blocked': True, 'reason': 'No shell.'}},
        worker='ops-worker',
    )
    model = calls_model(
        ToolCallPart('get_time', {}, tool_call_id='t1'),
        ToolCallPart('delete_file', {'path': '/tmp/x'}, tool_call_id='t2'),
        ToolCallPart('shell_exec', {'command': 'ls'}, tool_call_id='t3'),
    )
    agent = Agent(model, output_type=[str, DeferredToolRequests], toolsets=[toolset])
    result = await agent.run('go')
    assert result.output == snapshot(
        DeferredToolRequests(
            approvals=[
                ToolCallPart(tool_name='delete_file', args={'path': '/tmp/x'}, tool_call_id='t2'),
                ToolCallPart(tool_name='shell_exec', args={'command': 'ls'}, tool_call_id='t3'),
            ],
            metadata={
                't2': {
                    'approval_policy': 'needs_approval',
                    'approval_description': "delete_file(path='/tmp/x')",
                    'toolset_id': 'ops',
                    'worker': 'ops-worker',
                },
                't3': {
                    'approval_policy': 'blocked',
                    'approval_description': "shell_exec(command='ls')",
                    'approval_reason': 'No shell.',
                    'toolset_id': 'ops',
                    'worker': 'ops-worker',
                },
            },
        )
    )
    # The pre-approved call ran at once.
    assert [p.content for m in result.all_messages() for p in m.parts if isinstance(p, ToolReturnPart)] == ['12:00']


async def test_toolset_id_override_and_no_optional_keys() -> None:
    agent = Agent(
        calls_model(ToolCallPart('delete_file', {'path': 'a'}, tool_call_id='t1')),
        output_type=[str, DeferredToolRequests],
        toolsets=[ApprovalToolset(FunctionToolset([tools().tools['delete_file']]), toolset_id='files')],
    )
    result = await agent.run('go')
    assert isinstance(result.output, DeferredToolRequests)
    assert result.output.metadata == snapshot(
        {
            't1': {
                'approval_policy': 'needs_approval',
                'approval_description': "delete_file(path='a')",
                'toolset_id': 'files',
            }
        }
    )


async def test_toolset_runs_approved_call() -> None:
    agent = Agent(calls_model(ToolCallPart('delete_file', {'path': 'a'})), toolsets=[ApprovalToolset(tools())])
    assert await run_with(agent, approval_handler(approve_all)) == 'delete_file: deleted a'


def approve_everything(ctx: RunContext[Any], requests: DeferredToolRequests) -> DeferredToolResults:
    """A handler that ignores `approval_policy='blocked'`."""
    return DeferredToolResults(approvals={call.tool_call_id: True for call in requests.approvals})


async def test_toolset_refuses_approved_blocked_call() -> None:
    toolset = ApprovalToolset(tools(), config={'shell_exec': {'blocked': True, 'reason': 'No shell.'}})
    agent = Agent(
        calls_model(ToolCallPart('shell_exec', {'command': 'ls'})),
        output_type=[str, DeferredToolRequests],
        toolsets=[toolset],
    )
    with pytest.raises(ApprovalBlocked, match=r'^The call of `shell_exec` is blocked by policy: No shell\.$'):
        await agent.run('go', deferred_tool_handler=approve_everything)
    # The same on the resume flow.
    first = await agent.run('go')
    assert isinstance(first.output, DeferredToolRequests)
    answers = approve_everything(make_ctx(), first.output)
    with pytest.raises(ApprovalBlocked, match='No shell'):
        await agent.run(message_history=first.all_messages(), deferred_tool_results=answers)


def test_approval_handler_is_a_deferred_tool_handler() -> None:
    handler: DeferredToolHandler[None] = approval_handler(approve_all)
    assert callable(handler)


# The handler factory, called directly.


async def test_handler_approves_denies_and_blocks() -> None:
    callback = recorder(ApprovalDecision(approved=True), ApprovalDecision(approved=False, note='Not today.'))
    handler = approval_handler(callback)
    results = await handler(
        make_ctx(),
        requests(
            ('deploy', {'env': 'prod'}, {'approval_description': 'Deploy to prod', 'approval_reason': 'It ships.'}),
            ('delete_file', {'path': 'a'}, {}),
            ('shell_exec', {'command': 'rm -rf /'}, {'approval_policy': 'blocked', 'approval_reason': 'Never.'}),
        ),
    )
    assert results.approvals == {
        'c1': ToolApproved(),
        'c2': ToolDenied('Not today.'),
        'c3': ToolDenied('Blocked: Never.'),
    }
    # The blocked call was never asked about.
    assert callback.asked == ["deploy{'env': 'prod'}", "delete_file{'path': 'a'}"]
    assert [(r.request.tool_call_id, r.decision.approved, r.source) for r in handler.session.history] == [
        ('c1', True, 'user'),
        ('c2', False, 'user'),
        ('c3', False, 'policy'),
    ]


async def test_handler_denial_without_note_uses_default_message() -> None:
    handler = approval_handler(lambda _: ApprovalDecision(approved=False))
    results = await handler(make_ctx(), requests(('x', {}, {}), ('y', {}, {'approval_policy': 'blocked'})))
    assert results.approvals == {'c1': ToolDenied(), 'c2': ToolDenied('Blocked: this call is not allowed.')}


async def test_handler_remembers_for_session_by_tool_and_canonical_args() -> None:
    callback = recorder(
        ApprovalDecision(approved=True, remember='session'),
        ApprovalDecision(approved=False, note='No.', remember='session'),
        ApprovalDecision(approved=True),
    )
    handler = approval_handler(callback)
    await handler(make_ctx(), requests(('kill', {'pid': 1, 'sig': 'TERM'}, {}), ('rm', {'path': 'a'}, {})))
    # Same tool and arguments in another order: answered from the session, in a later batch.
    results = await handler(
        make_ctx(run_step=2),
        requests(('kill', {'sig': 'TERM', 'pid': 1}, {}), ('rm', {'path': 'a'}, {}), ('kill', {'pid': 2}, {})),
    )
    assert results.approvals == {'c1': ToolApproved(), 'c2': ToolDenied('No.'), 'c3': ToolApproved()}
    assert callback.asked == ["kill{'pid': 1, 'sig': 'TERM'}", "rm{'path': 'a'}", "kill{'pid': 2}"]
    assert [r.source for r in handler.session.history] == ['user', 'user', 'session', 'session', 'user']


def test_session_key_is_canonical_json() -> None:
    assert session_key('t', {'b': [1, {'y': 2, 'x': 1}], 'a': 'é'}) == ('t', '{"a":"é","b":[1,{"x":1,"y":2}]}')
    assert session_key('t', {'when': object}) == ('t', '{"when":"<class \'object\'>"}')


async def test_shared_session_between_handlers() -> None:
    session = ApprovalSession()
    await approval_handler(lambda _: ApprovalDecision(True, remember='session'), session=session)(
        make_ctx(), requests(('x', {}, {}))
    )
    second = approval_handler(deny_all, session=session)
    assert (await second(make_ctx(), requests(('x', {}, {})))).approvals == {'c1': ToolApproved()}
    assert second.session is session


async def test_on_batch_sees_the_whole_batch_before_any_question() -> None:
    events: list[str] = []

    def on_batch(batch: ApprovalBatch) -> None:
        statuses = [(e.request.tool_name, e.status) for e in batch.entries]
        events.append(f'batch step={batch.run_step} {statuses} ask={[r.tool_name for r in batch.to_ask]}')

    def callback(request: ApprovalRequest) -> ApprovalDecision:
        events.append(f'ask {request.tool_name}')
        return ApprovalDecision(approved=True, remember='session')

    handler = approval_handler(callback, on_batch=on_batch)
    await handler(make_ctx(run_step=3), requests(('a', {}, {}), ('b', {}, {'approval_policy': 'blocked'})))
    await handler(make_ctx(run_step=4), requests(('a', {}, {}), ('c', {}, {})))
    assert events == snapshot(
        [
            "batch step=3 [('a', 'ask'), ('b', 'blocked')] ask=['a']",
            'ask a',
            "batch step=4 [('a', 'remembered'), ('c', 'ask')] ask=['c']",
            'ask c',
        ]
    )


async def test_async_on_batch_and_callback() -> None:
    seen: list[int] = []

    async def on_batch(batch: ApprovalBatch) -> None:
        seen.append(len(batch.entries))

    async def callback(request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision(approved=request.tool_name == 'ok')

    handler = approval_handler(callback, on_batch=on_batch)
    results = await handler(make_ctx(), requests(('ok', {}, {}), ('bad', {}, {})))
    assert results.approvals == {'c1': ToolApproved(), 'c2': ToolDenied()}
    assert seen == [2]


async def test_handler_answers_external_calls_and_keeps_context() -> None:
    reqs = DeferredToolRequests(
        calls=[ToolCallPart('lookup', {'q': 'x'}, tool_call_id='e1')],
        approvals=[ToolCallPart('a', {}, tool_call_id='c1')],
        context={'c1': {'cursor': 3}},
    )
    default = await approval_handler(approve_all)(make_ctx(), reqs)
    assert default.calls == {'e1': 'The external tool `lookup` cannot be run here: no one is set up to handle it.'}
    assert default.context == {'c1': {'cursor': 3}}
    custom = await approval_handler(approve_all, external_call=lambda call: f'{call.tool_name} done')(make_ctx(), reqs)
    assert custom.calls == {'e1': 'lookup done'}


def test_request_from_call_with_json_args_and_no_metadata() -> None:
    request = ApprovalRequest.from_call(ToolCallPart('kill', '{"pid": 42}', tool_call_id='k'))
    assert request == ApprovalRequest(
        tool_name='kill', tool_args={'pid': 42}, tool_call_id='k', description='kill(pid=42)'
    )
    meta = {'approval_policy': 'blocked', 'approval_reason': 'r', 'toolset_id': 't', 'worker': 'w', 'extra': 1}
    blocked = ApprovalRequest.from_call(ToolCallPart('kill', {}, tool_call_id='k'), meta)
    assert (blocked.blocked, blocked.reason, blocked.toolset_id, blocked.worker, blocked.metadata) == (
        True,
        'r',
        't',
        'w',
        meta,
    )


# Parity: one test per feature of the blocking-approval package's README.


async def test_parity_quick_start_wrap_toolset_with_config_and_callback() -> None:
    """Quick start: `ApprovalToolset` with a per-tool config; unlisted tools need approval (secure by default)."""
    callback = recorder(ApprovalDecision(approved=True))
    toolset = ApprovalToolset(tools(), config={'get_time': {'pre_approved': True}})
    agent = Agent(
        calls_model(ToolCallPart('get_time', {}), ToolCallPart('delete_file', {'path': 'a'})),
        toolsets=[toolset],
    )
    assert await run_with(agent, approval_handler(callback)) == 'get_time: 12:00\ndelete_file: deleted a'
    assert callback.asked == ["delete_file{'path': 'a'}"]


async def test_parity_callback_returns_approval_decision() -> None:
    """The callback returns `ApprovalDecision(approved, note, remember)`."""
    assert ApprovalDecision(approved=False, note='why', remember='session') == ApprovalDecision(False, 'why', 'session')
    results = await approval_handler(lambda _: ApprovalDecision(False, note='why'))(make_ctx(), requests(('a', {}, {})))
    assert results.approvals == {'c1': ToolDenied('why')}


async def test_parity_bare_bool_is_rejected() -> None:
    """Returning a bare `bool` from the callback is rejected."""
    handler = approval_handler(lambda _: True)  # pyright: ignore[reportArgumentType] -- the misuse under test
    with pytest.raises(TypeError, match="must return an `ApprovalDecision`, not 'bool'"):
        await handler(make_ctx(), requests(('a', {}, {})))


async def test_parity_denied_raises_approval_denied_with_decision() -> None:
    """A denial raises `ApprovalDenied` carrying the decision (opt-in here: by default the model is told)."""
    handler = approval_handler(deny_all, raise_on_deny=True)
    with pytest.raises(ApprovalDenied, match=r'^The call of `a` was denied: Strict mode$') as exc_info:
        await handler(make_ctx(), requests(('a', {}, {})))
    assert (exc_info.value.tool_name, exc_info.value.decision) == ('a', ApprovalDecision(False, 'Strict mode'))
    assert str(ApprovalDenied('a', ApprovalDecision(False))) == 'The call of `a` was denied.'


async def test_parity_policy_block_raises_approval_blocked() -> None:
    """A policy block raises `ApprovalBlocked` with the reason (opt-in); by default it is denied without asking."""
    handler = approval_handler(approve_all, raise_on_deny=True)
    with pytest.raises(ApprovalBlocked, match=r'^The call of `a` is blocked by policy: Nope\.$') as exc_info:
        await handler(make_ctx(), requests(('a', {}, {'approval_policy': 'blocked', 'approval_reason': 'Nope.'})))
    assert exc_info.value.reason == 'Nope.'


async def test_parity_example_patterns_approve_all_and_deny_all() -> None:
    """The README's example callbacks: approve everything (tests/CI) and deny everything (strict safety)."""
    reqs = requests(('a', {}, {}), ('b', {}, {}))
    assert (await approval_handler(approve_all)(make_ctx(), reqs)).approvals == {
        'c1': ToolApproved(),
        'c2': ToolApproved(),
    }
    assert (await approval_handler(deny_all)(make_ctx(), reqs)).approvals == {
        'c1': ToolDenied('Strict mode'),
        'c2': ToolDenied('Strict mode'),
    }


async def test_parity_pattern_1_config_based() -> None:
    """Pattern 1: `pre_approved` tools skip approval, every other tool needs it."""
    toolset = ApprovalToolset(
        tools(), config={'get_time': {'pre_approved': True}, 'shell_exec': {'pre_approved': True}}
    )
    agent = Agent(
        calls_model(ToolCallPart('get_time', {}), ToolCallPart('shell_exec', {'command': 'ls'})),
        output_type=[str, DeferredToolRequests],
        toolsets=[toolset],
    )
    result = await agent.run('go')
    assert result.output == 'get_time: 12:00\nshell_exec: ran ls'


class SmartToolset(FunctionToolset[Any]):
    """The README's protocol-based inner toolset, with the user's role in `ctx.deps`."""

    SAFE_COMMANDS = frozenset({'ls', 'pwd', 'echo', 'date'})
    BLOCKED_COMMANDS = frozenset({'rm -rf /', 'shutdown'})

    def __init__(self) -> None:
        super().__init__(list(tools().tools.values()))

    def needs_approval(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], config: ApprovalConfig
    ) -> ApprovalResult:
        base = needs_approval_from_config(name, config)
        if base.is_pre_approved:
            return base
        if name == 'shell_exec':
            command = str(tool_args['command'])
            if command in self.BLOCKED_COMMANDS:
                return ApprovalResult.blocked(f'Command {command!r} is forbidden.')
            if command.split()[0] in self.SAFE_COMMANDS:
                return ApprovalResult.pre_approved()
        if ctx.deps == 'admin':
            return ApprovalResult.pre_approved()
        return ApprovalResult.needs_approval()

    def get_approval_description(self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any]) -> str:
        if name == 'shell_exec':
            return f'Execute: {tool_args["command"]}'
        return f'{name}({tool_args})'


SMART_CALLS = (
    ToolCallPart('get_time', {}, tool_call_id='t1'),
    ToolCallPart('shell_exec', {'command': 'ls -la'}, tool_call_id='t2'),
    ToolCallPart('shell_exec', {'command': 'rm -rf /'}, tool_call_id='t3'),
    ToolCallPart('shell_exec', {'command': 'make deploy'}, tool_call_id='t4'),
)


async def test_parity_pattern_2_protocol_based() -> None:
    """Pattern 2: an inner toolset implementing `SupportsNeedsApproval` decides per call, using `ctx.deps` too."""
    assert isinstance(SmartToolset(), SupportsNeedsApproval)
    toolset = ApprovalToolset(SmartToolset(), config={'get_time': {'pre_approved': True}})
    agent = Agent(calls_model(*SMART_CALLS), deps_type=str, output_type=[str, DeferredToolRequests], toolsets=[toolset])
    result = await agent.run('go', deps='user')
    assert isinstance(result.output, DeferredToolRequests)
    assert result.output.metadata == snapshot(
        {
            't3': {
                'approval_policy': 'blocked',
                'approval_description': 'Execute: rm -rf /',
                'approval_reason': "Command 'rm -rf /' is forbidden.",
            },
            't4': {'approval_policy': 'needs_approval', 'approval_description': 'Execute: make deploy'},
        }
    )
    admin = await agent.run('go', deps='admin')
    assert isinstance(admin.output, DeferredToolRequests)
    assert [call.tool_call_id for call in admin.output.approvals] == ['t3']


async def test_parity_get_approval_description() -> None:
    """`get_approval_description` gives the approval prompt a human-readable description."""
    assert isinstance(SmartToolset(), SupportsApprovalDescription)
    callback = recorder(ApprovalDecision(approved=False, note='Later.'))
    descriptions: list[str] = []
    handler = approval_handler(lambda request: descriptions.append(request.description) or callback(request))
    agent = Agent(calls_model(SMART_CALLS[3]), toolsets=[ApprovalToolset(SmartToolset())])
    assert await run_with(agent, handler) == 'shell_exec: Later.'
    assert descriptions == ['Execute: make deploy']


class AsyncPolicyToolset(FunctionToolset[Any]):
    """Decides and describes asynchronously."""

    def __init__(self) -> None:
        super().__init__(list(tools().tools.values()))

    async def needs_approval(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], config: ApprovalConfig
    ) -> ApprovalResult:
        return ApprovalResult.pre_approved() if name == 'get_time' else ApprovalResult.needs_approval('Async says so.')

    async def get_approval_description(self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any]) -> str:
        return f'async {name}'


async def test_parity_needs_approval_sync_or_async() -> None:
    """`needs_approval()` (and the description) may be sync or async; async ones are awaited."""
    agent = Agent(
        calls_model(
            ToolCallPart('get_time', {}, tool_call_id='t1'),
            ToolCallPart('delete_file', {'path': 'a'}, tool_call_id='t2'),
        ),
        output_type=[str, DeferredToolRequests],
        toolsets=[ApprovalToolset(AsyncPolicyToolset())],
    )
    result = await agent.run('go')
    assert isinstance(result.output, DeferredToolRequests)
    assert result.output.metadata == {
        't2': {
            'approval_policy': 'needs_approval',
            'approval_description': 'async delete_file',
            'approval_reason': 'Async says so.',
        }
    }


async def test_parity_callback_sync_or_async() -> None:
    """The approval callback may be sync (blocking on `input()`) or async."""

    async def async_callback(request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision(approved=True)

    agent = Agent(
        calls_model(ToolCallPart('delete_file', {'path': 'a'})),
        toolsets=[ApprovalToolset(tools())],
    )
    assert await run_with(agent, approval_handler(async_callback)) == 'delete_file: deleted a'
    assert await run_with(agent, approval_handler(approve_all)) == 'delete_file: deleted a'


async def test_parity_session_approval_caching() -> None:
    """Approve-for-session: `remember='session'` answers identical later calls without asking (built in here)."""
    callback = recorder(ApprovalDecision(approved=True, remember='session'))
    handler = approval_handler(callback)
    agent = Agent(
        calls_model(ToolCallPart('delete_file', {'path': 'a'})),
        toolsets=[ApprovalToolset(tools())],
    )
    assert await run_with(agent, handler) == 'delete_file: deleted a'
    assert await run_with(agent, handler) == 'delete_file: deleted a'
    assert callback.asked == ["delete_file{'path': 'a'}"]
    assert handler.session.remembered == {('delete_file', '{"path":"a"}'): ApprovalDecision(True, None, 'session')}


async def test_parity_auto_detects_inner_capabilities() -> None:
    """The wrapper asks the inner toolset if it implements the protocol, else falls back to the config."""
    plain = ApprovalToolset(tools(), config={'shell_exec': {'pre_approved': True}})
    smart = ApprovalToolset(SmartToolset(), config={'shell_exec': {'pre_approved': True}})
    ctx = make_ctx()
    assert not isinstance(plain.wrapped, SupportsNeedsApproval)
    assert await plain.check('shell_exec', {'command': 'rm -rf /'}, ctx) == ApprovalResult.pre_approved()
    assert await smart.check('get_time', {}, ctx) == ApprovalResult.needs_approval()
    assert await plain.describe('shell_exec', {'command': 'ls'}, ctx) == "shell_exec(command='ls')"
    assert await smart.describe('shell_exec', {'command': 'ls'}, ctx) == 'Execute: ls'


async def test_parity_exploratory_multi_step_task() -> None:
    """Exploratory tasks: the model sees each approved result and plans the next step from it."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = request_parts(messages, ToolReturnPart)
        if not returns:
            return ModelResponse(parts=[ToolCallPart('shell_exec', {'command': 'lsof -i :8080'})])
        if len(returns) == 1:
            pid = str(returns[0].content).split()[-1]
            return ModelResponse(parts=[ToolCallPart('shell_exec', {'command': f'kill {pid}'})])
        return ModelResponse(parts=[TextPart(f'Done: {returns[-1].content}')])

    def lsof_or_kill(command: str) -> str:
        """Run a shell command."""
        return 'node 1234' if command.startswith('lsof') else f'ran {command}'

    toolset = FunctionToolset[Any]([Tool(lsof_or_kill, name='shell_exec')])

    callback = recorder(ApprovalDecision(approved=True), ApprovalDecision(approved=True))
    agent = Agent(FunctionModel(respond), toolsets=[ApprovalToolset(toolset)])
    result = await agent.run(
        'Find and kill the process hogging port 8080.', deferred_tool_handler=approval_handler(callback)
    )
    assert result.output == 'Done: ran kill 1234'
    # One run: each approved result went back to the model, which planned the next call from it.
    assert [type(m).__name__ for m in result.all_messages()] == ['ModelRequest', 'ModelResponse'] * 3
    assert callback.asked == ["shell_exec{'command': 'lsof -i :8080'}", "shell_exec{'command': 'kill 1234'}"]


async def test_parity_nested_worker_calls() -> None:
    """Nested calls: a tool runs a sub-agent whose tools need approval; the same handler answers both levels."""
    asked: list[tuple[str, str | None]] = []

    def callback(request: ApprovalRequest) -> ApprovalDecision:
        asked.append((request.tool_name, request.worker))
        return ApprovalDecision(approved=True)

    handler = approval_handler(callback)
    worker = Agent(
        calls_model(ToolCallPart('delete_file', {'path': 'cache'})),
        toolsets=[ApprovalToolset(tools(), worker='cleaner')],
    )

    async def call_worker(ctx: RunContext[ApprovalHandler], task: str) -> str:
        """Hand a focused task to a worker agent."""
        result = await worker.run(task, deferred_tool_handler=ctx.deps)
        return result.output

    lead = Agent(
        calls_model(ToolCallPart('call_worker', {'task': 'clear the cache'})),
        deps_type=ApprovalHandler,
        toolsets=[ApprovalToolset(FunctionToolset([call_worker]), worker='lead')],
    )
    result = await lead.run('Tidy up.', deps=handler, deferred_tool_handler=handler)
    assert result.output == 'call_worker: delete_file: deleted cache'
    assert asked == [('call_worker', 'lead'), ('delete_file', 'cleaner')]


def test_parity_exceptions_are_permission_errors() -> None:
    """`ApprovalError` subclasses `PermissionError`; `ApprovalDenied` and `ApprovalBlocked` subclass it."""
    assert issubclass(ApprovalError, PermissionError)
    assert issubclass(ApprovalDenied, ApprovalError)
    assert issubclass(ApprovalBlocked, ApprovalError)


def test_parity_api_reference_names() -> None:
    """Every name of the README's API reference exists here (the handler replaces the callback parameter)."""
    names = ['ApprovalResult', 'ApprovalRequest', 'ApprovalDecision', 'ApprovalCallback', 'SupportsNeedsApproval']
    names += ['SupportsApprovalDescription', 'ApprovalError', 'ApprovalDenied', 'ApprovalBlocked', 'ApprovalToolset']
    names += ['needs_approval_from_config']
    assert [name for name in names if name not in toolkit.__all__] == []


def _isort_key(name: str) -> tuple[int, str]:
    # The order ruff's RUF022 keeps: CONSTANTS, then Classes, then the rest.
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2), name


MODULES = ['', '.policy', '.toolset', '.handler', '.exceptions', '.machine', '.scripted', '.cli']


@pytest.mark.parametrize('suffix', MODULES)
def test_all_is_sorted_complete_and_importable(suffix: str) -> None:
    import importlib
    import inspect

    module = importlib.import_module(f'pydantic_ai_examples.approval{suffix}')
    names: Sequence[str] = module.__all__
    assert list(names) == sorted(names, key=_isort_key)
    assert not [name for name in names if name.startswith('_') or not hasattr(module, name)]
    defined = [
        name
        for name, value in vars(module).items()
        if not name.startswith('_')
        and (inspect.isclass(value) or inspect.isfunction(value))
        and value.__module__ == module.__name__
    ]
    assert not [name for name in defined if name not in names]


def test_record_is_a_value() -> None:
    request = ApprovalRequest(tool_name='a', tool_args={}, tool_call_id='c', description='a()')
    assert ApprovalRecord(request, ApprovalDecision(True), 'user') == ApprovalRecord(
        request, ApprovalDecision(True), 'user'
    )
