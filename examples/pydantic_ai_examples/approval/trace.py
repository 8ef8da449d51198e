"""Tracing for the approval toolkit: which policy decided each call, and a trace file readable without a service.

An agent made with `instrument=` records each deferred tool handler call as a `deferred_tool_handler` span with a
`deferred_tool_decision` event per call (what was decided). The toolkit adds *who* decided (`record_policy`): an
`approval_policy` event per call with `approval.policy` set to

- `pre-approved`: the policy let the call run without asking (on the call's `running tool` span);
- `blocked`: the policy refused it without asking;
- `remembered`: a decision given earlier with `remember='session'` answered it;
- `asked`: the approval callback (a person) answered it

(the last three on the `deferred_tool_handler` span, with `approval.wait_seconds`, the time this one call
took to decide). `trace_to_file(path)` gives `InstrumentationSettings` that
write every span of the session to `path` as JSON lines; `python -m pydantic_ai_examples.approval --trace FILE`
uses it.

OpenTelemetry is optional here: without `opentelemetry-api` nothing is recorded, and without the
`opentelemetry-sdk` `trace_to_file` logs why and returns `None`.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic_ai._otel import POLICY_EVENT, DecidingPolicy
from pydantic_ai._otel import record_approval_policy as record_policy

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan
    from pydantic_ai.models.instrumented import InstrumentationSettings

__all__ = ('POLICY_EVENT', 'DecidingPolicy', 'record_policy', 'span_to_dict', 'trace_to_file')

logger = logging.getLogger(__name__)


def span_to_dict(span: ReadableSpan) -> dict[str, Any]:
    """One finished span as plain JSON data: ids (hex), parent, name, times (ns), status, attributes and events."""
    context = span.context
    parent = span.parent
    return {
        'name': span.name,
        'trace_id': f'{context.trace_id:032x}' if context is not None else None,
        'span_id': f'{context.span_id:016x}' if context is not None else None,
        'parent_id': f'{parent.span_id:016x}' if parent is not None else None,
        'start_time': span.start_time,
        'end_time': span.end_time,
        'status': span.status.status_code.name,
        'status_description': span.status.description,
        'attributes': dict(span.attributes or {}),
        'events': [
            {'name': event.name, 'time': event.timestamp, 'attributes': dict(event.attributes or {})}
            for event in span.events
        ],
    }


def trace_to_file(path: str | Path) -> InstrumentationSettings | None:
    """Settings that write every span to `path`, one JSON object per line, as each span ends.

    Returns `None` (and logs why) if the OpenTelemetry SDK is not installed.
    """
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
    except ImportError as e:  # pragma: no cover - the examples are tested with the SDK installed
        logger.error('Cannot write a trace file without the OpenTelemetry SDK (`pip install opentelemetry-sdk`): %s', e)
        return None
    from pydantic_ai.models.instrumented import InstrumentationSettings

    target = Path(path)
    target.write_text('')
    lock = threading.Lock()

    class JsonLinesExporter(SpanExporter):
        def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
            lines = ''.join(json.dumps(span_to_dict(span), default=str) + '\n' for span in spans)
            with lock, target.open('a') as file:
                file.write(lines)
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(JsonLinesExporter()))
    return InstrumentationSettings(tracer_provider=provider)
