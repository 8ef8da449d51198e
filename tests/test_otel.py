"""OpenTelemetry instrumentation: the span trees of runs, and the audit trail of deferred tool calls.

The span trees are collected with the OpenTelemetry SDK's in-memory exporter. What upstream also records is
compared with upstream itself by the `otel_*` compat programs (run here in-process as well); these tests pin the
trees of this project's own paths: the deferred tool handler, the resume flow's decisions, nested calls.
"""

from __future__ import annotations

import gc
import json
import logging
import runpy
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from dirty_equals import IsFloat, IsStr
from inline_snapshot import snapshot
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai import (
    Agent,
    CallDeferred,
    DeferredToolRequests,
    DeferredToolResults,
    ModelRetry,
    RunContext,
    ToolApproved,
    ToolDenied,
)
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings

from .compat._run import normalize

pytestmark = pytest.mark.anyio

COMPAT = Path(__file__).parent / 'compat'


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def settings(exporter: InMemorySpanExporter) -> InstrumentationSettings:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return InstrumentationSettings(tracer_provider=provider)


# What the trees show: names, and the attributes that are not the bulky message dumps.
_SHOWN = (
    'gen_ai.tool.name',
    'gen_ai.tool.call.id',
    'tools',
    'final_result',
    'tool_arguments',
    'tool_response',
    'logfire.msg',
    'pydantic_ai.deferred.tool_call_ids',
)


def _decoded(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(('[', '{')):
        return json.loads(value)
    return list(cast(tuple[Any, ...], value)) if isinstance(value, tuple) else value


def tree(exporter: InMemorySpanExporter, shown: tuple[str, ...] = _SHOWN) -> list[dict[str, Any]]:
    """The finished spans as nested dicts: name, chosen attributes, error status, events and children."""
    spans = sorted(exporter.get_finished_spans(), key=lambda s: s.start_time or 0)
    by_parent: dict[int | None, list[ReadableSpan]] = {}
    for span in spans:
        by_parent.setdefault(span.parent.span_id if span.parent else None, []).append(span)

    def node(span: ReadableSpan) -> dict[str, Any]:
        attributes = span.attributes or {}
        out: dict[str, Any] = {'name': span.name}
        out.update({key: _decoded(attributes[key]) for key in shown if key in attributes})
        if span.status.description:
            out['error'] = span.status.description
        events = [{'name': e.name, **{k: _decoded(v) for k, v in (e.attributes or {}).items()}} for e in span.events]
        if events:
            out['events'] = events
        assert span.context is not None
        children = [node(child) for child in by_parent.get(span.context.span_id, [])]
        if children:
            out['children'] = children
        return out

    return [node(root) for root in by_parent.get(None, [])]


def scripted(*responses: list[Any]) -> FunctionModel:
    """A model that gives these responses' parts in turn (streamed too: text, then tool calls)."""

    def parts(messages: list[ModelMessage]) -> list[Any]:
        return responses[min(sum(isinstance(m, ModelResponse) for m in messages), len(responses) - 1)]

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=parts(messages))

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        for index, part in enumerate(parts(messages)):
            if isinstance(part, TextPart):
                yield part.content
            else:
                yield {index: DeltaToolCall(part.tool_name, json.dumps(part.args), tool_call_id=part.tool_call_id)}

    return FunctionModel(respond, stream_function=stream)


def ops_agent(settings: InstrumentationSettings, **kwargs: Any) -> Agent[None, Any]:
    agent = Agent(
        scripted(
            [
                ToolCallPart('delete', {'path': 'a'}, 'd1'),
                ToolCallPart('delete', {'path': 'b'}, 'd2'),
                ToolCallPart('delete', {'path': 'c'}, 'd3'),
                ToolCallPart('fetch', {'url': 'u'}, 'e1'),
                ToolCallPart('fetch', {'url': 'v'}, 'e2'),
            ],
            [TextPart('done')],
        ),
        name='ops',
        instrument=settings,
        output_type=[str, DeferredToolRequests],
        **kwargs,
    )

    @agent.tool_plain(requires_approval=True)
    def delete(path: str) -> str:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        return f'deleted {path}'

    @agent.tool_plain
    def fetch(url: str) -> str:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        raise CallDeferred

    return agent


DECISIONS = DeferredToolResults(
    approvals={'d1': True, 'd2': ToolApproved(override_args={'path': 'B'}), 'd3': ToolDenied('not that one')},
    calls={'e1': 'page', 'e2': ModelRetry('try another url')},
)


def decide(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
    return DECISIONS


def test_a_handler_call_is_a_span_with_one_decision_event_per_call(
    exporter: InMemorySpanExporter, settings: InstrumentationSettings
):
    def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        return DECISIONS

    result = ops_agent(settings, deferred_tool_handler=handler).run_sync('clean up')
    assert result.output == 'done'
    assert tree(exporter) == snapshot(
        [
            {
                'name': 'agent run',
                'final_result': 'done',
                'logfire.msg': 'ops run',
                'children': [
                    {'name': 'chat function:respond:stream'},
                    {
                        'name': 'running tools',
                        'tools': ['fetch', 'fetch'],
                        'logfire.msg': 'running 2 tools',
                        'children': [
                            {
                                'name': 'running tool',
                                'gen_ai.tool.name': 'fetch',
                                'gen_ai.tool.call.id': 'e1',
                                'tool_arguments': {'url': 'u'},
                                'logfire.msg': 'running tool: fetch',
                                'error': 'CallDeferred: ',
                                'events': [
                                    {
                                        'name': 'exception',
                                        'exception.type': 'pydantic_ai.exceptions.CallDeferred',
                                        'exception.message': '',
                                        'exception.stacktrace': IsStr(),
                                        'exception.escaped': 'False',
                                    }
                                ],
                            },
                            {
                                'name': 'running tool',
                                'gen_ai.tool.name': 'fetch',
                                'gen_ai.tool.call.id': 'e2',
                                'tool_arguments': {'url': 'v'},
                                'logfire.msg': 'running tool: fetch',
                                'error': 'CallDeferred: ',
                                'events': [
                                    {
                                        'name': 'exception',
                                        'exception.type': 'pydantic_ai.exceptions.CallDeferred',
                                        'exception.message': '',
                                        'exception.stacktrace': IsStr(),
                                        'exception.escaped': 'False',
                                    }
                                ],
                            },
                        ],
                    },
                    {
                        'name': 'deferred_tool_handler',
                        'logfire.msg': 'deferred tool handler: 5 deferred calls',
                        'pydantic_ai.deferred.tool_call_ids': ['d1', 'd2', 'd3', 'e1', 'e2'],
                        'events': [
                            {
                                'name': 'deferred_tool_decision',
                                'gen_ai.tool.name': 'delete',
                                'gen_ai.tool.call.id': 'd1',
                                'pydantic_ai.deferred.kind': 'approval',
                                'pydantic_ai.deferred.source': 'handler',
                                'pydantic_ai.deferred.wait_seconds': IsFloat(ge=0),
                                'gen_ai.tool.call.arguments': {'path': 'a'},
                                'pydantic_ai.deferred.decision': 'approved',
                            },
                            {
                                'name': 'deferred_tool_decision',
                                'gen_ai.tool.name': 'delete',
                                'gen_ai.tool.call.id': 'd2',
                                'pydantic_ai.deferred.kind': 'approval',
                                'pydantic_ai.deferred.source': 'handler',
                                'pydantic_ai.deferred.wait_seconds': IsFloat(ge=0),
                                'gen_ai.tool.call.arguments': {'path': 'b'},
                                'pydantic_ai.deferred.decision': 'approved_with_overridden_args',
                                'pydantic_ai.deferred.override_args': {'path': 'B'},
                            },
                            {
                                'name': 'deferred_tool_decision',
                                'gen_ai.tool.name': 'delete',
                                'gen_ai.tool.call.id': 'd3',
                                'pydantic_ai.deferred.kind': 'approval',
                                'pydantic_ai.deferred.source': 'handler',
                                'pydantic_ai.deferred.wait_seconds': IsFloat(ge=0),
                                'gen_ai.tool.call.arguments': {'path': 'c'},
                                'pydantic_ai.deferred.decision': 'denied',
                                'pydantic_ai.deferred.denial_message': 'not that one',
                            },
                            {
                                'name': 'deferred_tool_decision',
                                'gen_ai.tool.name': 'fetch',
                                'gen_ai.tool.call.id': 'e1',
                                'pydantic_ai.deferred.kind': 'external',
                                'pydantic_ai.deferred.source': 'handler',
                                'pydantic_ai.deferred.wait_seconds': IsFloat(ge=0),
                                'gen_ai.tool.call.arguments': {'url': 'u'},
                                'pydantic_ai.deferred.decision': 'external_result',
                                'gen_ai.tool.call.result': 'page',
                            },
                            {
                                'name': 'deferred_tool_decision',
                                'gen_ai.tool.name': 'fetch',
                                'gen_ai.tool.call.id': 'e2',
                                'pydantic_ai.deferred.kind': 'external',
                                'pydantic_ai.deferred.source': 'handler',
                                'pydantic_ai.deferred.wait_seconds': IsFloat(ge=0),
                                'gen_ai.tool.call.arguments': {'url': 'v'},
                                'pydantic_ai.deferred.decision': 'retry',
                                'gen_ai.tool.call.result': 'try another url',
                            },
                        ],
                    },
                    {
                        'name': 'running tools',
                        'tools': ['delete', 'delete', 'delete', 'fetch', 'fetch'],
                        'logfire.msg': 'running 5 tools',
                        'children': [
                            {
                                'name': 'running tool',
                                'gen_ai.tool.name': 'delete',
                                'gen_ai.tool.call.id': 'd1',
                                'tool_arguments': {'path': 'a'},
                                'tool_response': 'deleted a',
                                'logfire.msg': 'running tool: delete',
                            },
                            {
                                'name': 'running tool',
                                'gen_ai.tool.name': 'delete',
                                'gen_ai.tool.call.id': 'd2',
                                'tool_arguments': {'path': 'B'},
                                'tool_response': 'deleted B',
                                'logfire.msg': 'running tool: delete',
                            },
                        ],
                    },
                    {'name': 'chat function:respond:stream'},
                ],
            }
        ]
    )


def test_without_content_the_decisions_keep_no_arguments_or_results(exporter: InMemorySpanExporter):
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    settings = InstrumentationSettings(tracer_provider=provider, include_content=False)
    ops_agent(settings, deferred_tool_handler=decide).run_sync('clean up')
    (handler_span,) = [s for s in exporter.get_finished_spans() if s.name == 'deferred_tool_handler']
    assert [dict(e.attributes or {}) for e in handler_span.events] == snapshot(
        [
            {
                'gen_ai.tool.name': 'delete',
                'gen_ai.tool.call.id': 'd1',
                'pydantic_ai.deferred.kind': 'approval',
                'pydantic_ai.deferred.source': 'handler',
                'pydantic_ai.deferred.wait_seconds': IsFloat(ge=0),
                'pydantic_ai.deferred.decision': 'approved',
            },
            {
                'gen_ai.tool.name': 'delete',
                'gen_ai.tool.call.id': 'd2',
                'pydantic_ai.deferred.kind': 'approval',
                'pydantic_ai.deferred.source': 'handler',
                'pydantic_ai.deferred.wait_seconds': IsFloat(ge=0),
                'pydantic_ai.deferred.decision': 'approved_with_overridden_args',
            },
            {
                'gen_ai.tool.name': 'delete',
                'gen_ai.tool.call.id': 'd3',
                'pydantic_ai.deferred.kind': 'approval',
                'pydantic_ai.deferred.source': 'handler',
                'pydantic_ai.deferred.wait_seconds': IsFloat(ge=0),
                'pydantic_ai.deferred.decision': 'denied',
                'pydantic_ai.deferred.denial_message': 'not that one',
            },
            {
                'gen_ai.tool.name': 'fetch',
                'gen_ai.tool.call.id': 'e1',
                'pydantic_ai.deferred.kind': 'external',
                'pydantic_ai.deferred.source': 'handler',
                'pydantic_ai.deferred.wait_seconds': IsFloat(ge=0),
                'pydantic_ai.deferred.decision': 'external_result',
            },
            {
                'gen_ai.tool.name': 'fetch',
                'gen_ai.tool.call.id': 'e2',
                'pydantic_ai.deferred.kind': 'external',
                'pydantic_ai.deferred.source': 'handler',
                'pydantic_ai.deferred.wait_seconds': IsFloat(ge=0),
                'pydantic_ai.deferred.decision': 'retry',
            },
        ]
    )


def test_the_resume_flow_records_the_same_decisions(exporter: InMemorySpanExporter, settings: InstrumentationSettings):
    agent = ops_agent(settings)
    first = agent.run_sync('clean up')
    assert isinstance(first.output, DeferredToolRequests)
    exporter.clear()
    second = agent.run_sync(message_history=first.all_messages(), deferred_tool_results=DECISIONS)
    assert second.output == 'done'
    shown = ('gen_ai.tool.call.id', 'pydantic_ai.deferred.tool_call_ids', 'tools')
    spans = tree(exporter, shown)
    decisions = spans[0]['children'][0]
    assert decisions['name'] == 'deferred_tool_results'
    assert [
        (e['gen_ai.tool.call.id'], e['pydantic_ai.deferred.decision'], e['pydantic_ai.deferred.source'])
        for e in decisions.pop('events')
    ] == snapshot(
        [
            ('d1', 'approved', 'resume'),
            ('d2', 'approved_with_overridden_args', 'resume'),
            ('d3', 'denied', 'resume'),
            ('e1', 'external_result', 'resume'),
            ('e2', 'retry', 'resume'),
        ]
    )
    assert spans == snapshot(
        [
            {
                'name': 'agent run',
                'children': [
                    {
                        'name': 'deferred_tool_results',
                        'pydantic_ai.deferred.tool_call_ids': ['d1', 'd2', 'd3', 'e1', 'e2'],
                    },
                    {
                        'name': 'running tools',
                        'tools': ['fetch', 'fetch', 'delete', 'delete', 'delete'],
                        'children': [
                            {'name': 'running tool', 'gen_ai.tool.call.id': 'd1'},
                            {'name': 'running tool', 'gen_ai.tool.call.id': 'd2'},
                        ],
                    },
                    {'name': 'chat function:respond:stream'},
                ],
            }
        ]
    )


def test_nested_deferred_calls_are_recorded_under_their_composite_ids(
    exporter: InMemorySpanExporter, settings: InstrumentationSettings
):
    sub_agent = Agent(
        scripted([ToolCallPart('drop_table', {'name': 'old'}, 'c1')], [TextPart('dropped')]),
        name='sub',
        output_type=[str, DeferredToolRequests],
    )

    @sub_agent.tool_plain(requires_approval=True)
    def drop_table(name: str) -> str:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        return f'dropped {name}'

    agent = Agent(
        scripted([ToolCallPart('delegate', {'task': 'clean'}, 'd1')], [TextPart('all done')]),
        name='boss',
        instrument=settings,
    )

    @agent.tool
    async def delegate(ctx: RunContext, task: str) -> str:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        saved = ctx.tool_call_context
        history = None if saved is None else ModelMessagesTypeAdapter.validate_python(saved)
        result = await sub_agent.run(
            task if history is None else None, message_history=history, deferred_tool_results=ctx.deferred_tool_results
        )
        if isinstance(result.output, DeferredToolRequests):
            raise CallDeferred(deferred_tool_requests=result.output, context=result.all_messages())
        return f'{task}: {result.output}'

    def handler(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        return DeferredToolResults(approvals={'d1::c1': ToolDenied('keep it')})

    assert agent.run_sync('go', deferred_tool_handler=handler).output == 'all done'
    spans = tree(exporter, ('gen_ai.tool.call.id', 'pydantic_ai.deferred.tool_call_ids'))
    (handler_span,) = [c for c in spans[0]['children'] if c['name'] == 'deferred_tool_handler']
    assert handler_span == snapshot(
        {
            'name': 'deferred_tool_handler',
            'pydantic_ai.deferred.tool_call_ids': ['d1::c1'],
            'events': [
                {
                    'name': 'deferred_tool_decision',
                    'gen_ai.tool.name': 'drop_table',
                    'gen_ai.tool.call.id': 'd1::c1',
                    'pydantic_ai.deferred.kind': 'approval',
                    'pydantic_ai.deferred.source': 'handler',
                    'pydantic_ai.deferred.wait_seconds': IsFloat(ge=0),
                    'gen_ai.tool.call.arguments': {'name': 'old'},
                    'pydantic_ai.deferred.decision': 'denied',
                    'pydantic_ai.deferred.denial_message': 'keep it',
                }
            ],
        }
    )


def test_a_streamed_run_with_a_handler(exporter: InMemorySpanExporter, settings: InstrumentationSettings):
    async def approve(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        return DeferredToolResults(approvals={'d1': True, 'd2': False, 'd3': True}, calls={'e1': 'x', 'e2': 'y'})

    async def main() -> str:
        async with ops_agent(settings, deferred_tool_handler=approve).run_stream('go') as streamed:
            return await streamed.get_output()

    import anyio

    assert anyio.run(main) == 'done'
    assert [(s['name'], s.get('final_result')) for s in tree(exporter)] == snapshot([('agent run', 'done')])
    names = [c['name'] for c in tree(exporter)[0]['children']]
    assert names == snapshot(
        [
            'chat function:respond:stream',
            'running tools',
            'deferred_tool_handler',
            'running tools',
            'chat function:respond:stream',
        ]
    )


class _FailingExporter(SpanExporter):
    def export(self, spans: Any) -> SpanExportResult:
        raise RuntimeError('collector down')


class _FailingProcessor(SimpleSpanProcessor):
    def on_end(self, span: ReadableSpan) -> None:
        raise RuntimeError('processor down')


def test_an_exporter_or_processor_that_raises_never_breaks_a_run(caplog: pytest.LogCaptureFixture):
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(_FailingExporter()))
    provider.add_span_processor(_FailingProcessor(InMemorySpanExporter()))
    settings = InstrumentationSettings(tracer_provider=provider)
    agent = ops_agent(settings, deferred_tool_handler=decide)
    with caplog.at_level(logging.WARNING, logger='pydantic_ai.instrumentation'):
        assert agent.run_sync('go').output == 'done'
        assert agent.run_sync('again').output == 'done'
    ours = [r.getMessage() for r in caplog.records if r.name == 'pydantic_ai.instrumentation']
    assert ours == snapshot(
        ["Instrumentation failed while ending a span; the run goes on without it: RuntimeError('processor down')"]
    )


def test_without_opentelemetry_an_instrumented_agent_runs_uninstrumented(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    from pydantic_ai import _otel

    monkeypatch.setattr(_otel, '_logged_once', set[str]())
    # A module set to `None` in `sys.modules` cannot be imported: as if `opentelemetry-api` were not installed.
    monkeypatch.setitem(sys.modules, 'pydantic_ai.models.instrumented', None)
    agent = Agent('test', instrument=True)
    with caplog.at_level(logging.WARNING, logger='pydantic_ai.instrumentation'):
        assert agent.run_sync('x').output == 'success (no tool calls)'
        assert agent.run_sync('y').output == 'success (no tool calls)'
    assert [r.getMessage() for r in caplog.records] == snapshot(
        [
            'Instrumentation failed while importing OpenTelemetry (install `pydantic-ai-slim[otel]`); the run goes '
            "on without it: ModuleNotFoundError('import of pydantic_ai.models.instrumented halted; None in sys.modules')"
        ]
    )


def test_importing_pydantic_ai_does_not_import_the_instrumentation():
    import subprocess

    code = 'import sys, pydantic_ai; print(sorted(m for m in sys.modules if "instrumented" in m or "_otel" in m))'
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['pydantic_ai._otel']"


@pytest.fixture
def compat_path() -> Iterator[None]:
    sys.path.insert(0, str(COMPAT))
    yield
    sys.path.remove(str(COMPAT))
    sys.modules.pop('_otel_probe', None)
    Agent.instrument_all(False)


OTEL_PROGRAMS = sorted(p for p in COMPAT.glob('otel_*.py') if p.with_suffix('.upstream.txt').exists())


@pytest.mark.filterwarnings('ignore::pytest.PytestUnraisableExceptionWarning')
@pytest.mark.parametrize('program', OTEL_PROGRAMS, ids=[p.stem for p in OTEL_PROGRAMS])
def test_otel_compat_programs_in_process(program: Path, compat_path: None, capsys: pytest.CaptureFixture[str]):
    """The `otel_*` compat programs print what upstream printed when run in this process too (for coverage)."""
    sys.modules.pop('_otel_probe', None)
    runpy.run_path(str(program), run_name='__main__')
    # A program's HTTP client keeps its connection open, as a program would until it exits: collect it here, so
    # its "unclosed socket" warning is raised (and ignored) now rather than during a later test.
    gc.collect()
    out = capsys.readouterr()
    expected = program.with_suffix('.upstream.txt').read_text()
    assert normalize(out.out + out.err + '[exit 0]\n') == expected


def test_a_sampled_out_run_records_nothing_and_runs_as_usual(exporter: InMemorySpanExporter):
    from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

    provider = TracerProvider(sampler=ALWAYS_OFF)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    agent = ops_agent(InstrumentationSettings(tracer_provider=provider), deferred_tool_handler=decide)
    assert agent.run_sync('go').output == 'done'
    assert exporter.get_finished_spans() == ()


def test_a_model_that_cannot_stream_fails_its_chat_span(
    exporter: InMemorySpanExporter, settings: InstrumentationSettings
):
    agent = Agent(FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart('x')])), instrument=settings)

    async def main() -> None:
        async with agent.run_stream('go'):
            pass  # pragma: no cover

    import anyio

    with pytest.raises(AssertionError, match='stream_function'):
        anyio.run(main)
    assert [(s['name'], s.get('error')) for s in tree(exporter)[0]['children']] == snapshot(
        [
            (
                'chat function:<lambda>:',
                'AssertionError: FunctionModel must receive a `stream_function` to support streamed requests',
            )
        ]
    )


def test_incomplete_handler_results_are_recorded_as_far_as_they_go(
    exporter: InMemorySpanExporter, settings: InstrumentationSettings
):
    from pydantic_ai import UserError

    def partial_answer(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        return DeferredToolResults(approvals={'d1': True})

    with pytest.raises(UserError, match='Tool call results need to be provided for all deferred tool calls'):
        ops_agent(settings, deferred_tool_handler=partial_answer).run_sync('go')
    (handler_span,) = [s for s in exporter.get_finished_spans() if s.name == 'deferred_tool_handler']
    assert [(e.attributes or {}).get('gen_ai.tool.call.id') for e in handler_span.events] == ['d1']


def test_a_retried_tool_without_content_keeps_no_response(exporter: InMemorySpanExporter):
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    settings = InstrumentationSettings(tracer_provider=provider, include_content=False, version=3)
    agent = Agent(scripted([ToolCallPart('flaky', {}, 'c1')], [TextPart('ok')]), instrument=settings)

    @agent.tool_plain
    def flaky() -> str:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        raise ModelRetry('not now')

    agent.run_sync('go')
    (tool_span,) = [s for s in exporter.get_finished_spans() if s.name == 'execute_tool flaky']
    assert dict(tool_span.attributes or {}) == snapshot(
        {
            'gen_ai.tool.name': 'flaky',
            'gen_ai.tool.call.id': 'c1',
            'logfire.msg': 'running tool: flaky',
            'logfire.json_schema': '{"type": "object", "properties": {"gen_ai.tool.call.id": {}, "gen_ai.tool.name": {}}}',
        }
    )
    assert tool_span.status.description == 'ToolRetryError: not now'


def test_model_attributes_name_the_server():
    from pydantic_ai.models.instrumented import InstrumentedModel
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    model = OpenAIChatModel('gpt-4o', provider=OpenAIProvider(base_url='http://localhost:8080/v1', api_key='x'))
    assert InstrumentedModel.model_attributes(model) == snapshot(
        {
            'gen_ai.provider.name': 'openai',
            'gen_ai.system': 'openai',
            'gen_ai.request.model': 'gpt-4o',
            'server.address': 'localhost',
            'server.port': 8080,
        }
    )


def test_serialize_any_falls_back_to_str():
    from pydantic_ai.models.instrumented import InstrumentedModel

    assert InstrumentedModel.serialize_any(object) == "<class 'object'>"


def test_message_renderings_without_instructions_and_with_cache_points(settings: InstrumentationSettings):
    from pydantic_ai.messages import CachePoint, ModelRequest, UserPromptPart

    response_only: list[ModelMessage] = [ModelResponse(parts=[TextPart('hi')])]
    assert [event_dict(e) for e in settings.messages_to_otel_events(response_only)] == snapshot(
        [{'role': 'assistant', 'content': 'hi', 'gen_ai.message.index': 0, 'event.name': 'gen_ai.assistant.message'}]
    )
    part = UserPromptPart(['look', CachePoint()])
    assert part.otel_message_parts(settings) == snapshot([{'type': 'text', 'content': 'look'}, {'type': 'cache-point'}])
    assert event_dict(part.otel_event(settings)) == snapshot(
        {'content': ['look', {'kind': 'cache-point'}], 'role': 'user', 'event.name': 'gen_ai.user.message'}
    )
    assert settings.messages_to_otel_messages([ModelRequest(parts=[part])]) == snapshot(
        [{'role': 'user', 'parts': [{'type': 'text', 'content': 'look'}, {'type': 'cache-point'}]}]
    )


def event_dict(event: Any) -> dict[str, Any]:
    from pydantic_ai.models.instrumented import InstrumentedModel

    return InstrumentedModel.event_to_dict(event)


async def test_a_wrapper_model_delegates_everything_to_the_wrapped_model():
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.models.wrapper import WrapperModel

    inner = TestModel(settings={'temperature': 0.0})
    model = WrapperModel(inner)
    agent = Agent(model)
    assert (await agent.run('hi')).output == snapshot('success (no tool calls)')
    async with agent.run_stream('hi') as streamed:
        assert await streamed.get_output() == snapshot('success (no tool calls)')
    params = ModelRequestParameters()
    assert model.customize_request_parameters(params) is params
    assert (model.settings, model.base_url, model.profile) == (inner.settings, None, inner.profile)
    # Attributes the wrapper does not define are the wrapped model's.
    assert model.last_model_request_parameters is inner.last_model_request_parameters
    with pytest.raises(AttributeError):
        WrapperModel.__new__(WrapperModel).wrapped  # noqa: B018 -- the attribute access is the test


def test_tools_see_how_the_run_is_traced(settings: InstrumentationSettings):
    seen: list[tuple[bool, bool, int]] = []

    def record(ctx: RunContext[None]) -> str:
        seen.append((ctx.tracer is settings.tracer, ctx.trace_include_content, ctx.instrumentation_version))
        return 'ok'

    Agent('test', tools=[record], instrument=settings).run_sync('go')
    Agent('test', tools=[record]).run_sync('go')
    assert seen == [(True, True, 2), (False, False, 2)]
