"""The approval toolkit's audit trail: which policy decided each call, and the CLI's `--trace FILE`."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from dirty_equals import IsFloat
from inline_snapshot import snapshot
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.toolsets import FunctionToolset
from pydantic_ai_examples.approval import (
    POLICY_EVENT,
    ApprovalDecision,
    ApprovalRequest,
    ApprovalToolset,
    approval_handler,
)
from pydantic_ai_examples.approval.cli import main


def decisions(lines: list[dict[str, Any]]) -> list[tuple[str, list[tuple[str, Any]]]]:
    """Each span with events other than exceptions: its name and (event, policy or decision) pairs."""
    out: list[tuple[str, list[tuple[str, Any]]]] = []
    for span in lines:
        events = [
            (e['name'], e['attributes'].get('approval.policy') or e['attributes'].get('pydantic_ai.deferred.decision'))
            for e in span['events']
            if e['name'] != 'exception'
        ]
        if events:
            out.append((span['name'], events))
    return out


def test_cli_trace_file_holds_the_session_with_who_decided(tmp_path: Path):
    path = tmp_path / 'session.jsonl'
    out = io.StringIO()
    assert main(['--delay', '0', '--answers', 'y,a,y', '--trace', str(path)], out=out) == 0
    assert out.getvalue().endswith(f'Trace written to {path} (one span per line, as JSON).\n')
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[-1]['name'] == 'agent run'
    assert {line['trace_id'] for line in lines} == {lines[-1]['trace_id']}
    assert decisions(lines) == snapshot(
        [
            ('running tool', [('approval_policy', 'pre-approved')]),
            ('running tool', [('approval_policy', 'pre-approved')]),
            ('running tool', [('approval_policy', 'pre-approved')]),
            (
                'deferred_tool_handler',
                [
                    ('approval_policy', 'asked'),
                    ('approval_policy', 'blocked'),
                    ('deferred_tool_decision', 'approved'),
                    ('deferred_tool_decision', 'denied'),
                ],
            ),
            (
                'deferred_tool_handler',
                [
                    ('approval_policy', 'asked'),
                    ('approval_policy', 'asked'),
                    ('deferred_tool_decision', 'approved'),
                    ('deferred_tool_decision', 'approved'),
                ],
            ),
            ('running tool', [('approval_policy', 'pre-approved')]),
            ('running tool', [('approval_policy', 'pre-approved')]),
            ('deferred_tool_handler', [('approval_policy', 'asked'), ('deferred_tool_decision', 'approved')]),
            ('running tool', [('approval_policy', 'pre-approved')]),
        ]
    )


def test_a_remembered_decision_is_recorded_as_remembered():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if sum(isinstance(m, ModelResponse) for m in messages) < 2:
            return ModelResponse(parts=[ToolCallPart('restart', {'name': 'web'})])
        return ModelResponse(parts=[TextPart('restarted twice')])

    def restart(name: str) -> str:
        return f'{name} restarted'

    tools = FunctionToolset[None]([restart])

    asked: list[str] = []

    def callback(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request.tool_call_id)
        return ApprovalDecision(approved=True, remember='session')

    agent = Agent(
        FunctionModel(respond),
        toolsets=[ApprovalToolset[None](tools)],
        instrument=InstrumentationSettings(tracer_provider=provider),
        deferred_tool_handler=approval_handler(callback),
    )
    assert agent.run_sync('restart web twice').output == 'restarted twice'
    assert len(asked) == 1
    policies = [
        e.attributes.get('approval.policy')
        for s in exporter.get_finished_spans()
        for e in s.events
        if e.name == POLICY_EVENT and e.attributes is not None
    ]
    assert policies == snapshot(['asked', 'remembered'])
    waits = [
        e.attributes.get('approval.wait_seconds')
        for s in exporter.get_finished_spans()
        for e in s.events
        if e.name == POLICY_EVENT and e.attributes is not None
    ]
    assert waits == [IsFloat(ge=0), IsFloat(ge=0)]
