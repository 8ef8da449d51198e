"""Shared set-up of the `otel_*` compat programs: in-memory OpenTelemetry exporters and a printer of what they got.

Spans are printed as a tree (children indented under their parent, in start order) with their kind, status,
attributes (JSON strings decoded, keys sorted) and events; metrics and log records follow.
"""

from __future__ import annotations

import json
from typing import Any, cast

from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

spans = InMemorySpanExporter()
tracer_provider = TracerProvider()
tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
metrics = InMemoryMetricReader()
meter_provider = MeterProvider(metric_readers=[metrics])
logs = InMemoryLogRecordExporter()
logger_provider = LoggerProvider()
logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))


def _value(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in '[{':
        try:
            decoded: Any = json.loads(value)
        except ValueError:
            return value
        if isinstance(decoded, dict) and cast(dict[str, Any], decoded).get('context') == {} and 'approvals' in decoded:
            # `DeferredToolRequests.context` is this project's addition (the spec's "Preserving State with
            # Context"); empty, it says nothing, so a serialized request compares with upstream's without it.
            del decoded['context']
        return cast(Any, decoded)
    return list(cast(tuple[Any, ...], value)) if isinstance(value, tuple) else value


def _attrs(attributes: Any, indent: str, skip: frozenset[str] = frozenset()) -> list[str]:
    lines: list[str] = []
    for key in sorted(set(attributes or {}) - skip):
        raw = attributes[key]
        if key == 'exception.stacktrace':
            # The frames are the implementation's own; only that there is a traceback is comparable.
            raw = '<traceback>' if raw else ''
        value = json.dumps(_value(raw), sort_keys=True, default=str)
        lines.append(f'{indent}{key} = {value}')
    return lines


def print_spans(*, clear: bool = True, skip: set[str] | frozenset[str] = frozenset()) -> None:
    """Print the finished spans as a tree (without the attributes named in `skip`), then forget them."""
    # The audit trail's spans are this project's own, beyond upstream: only the rest is comparable.
    finished: list[ReadableSpan] = sorted(
        (s for s in spans.get_finished_spans() if not s.name.startswith('deferred_tool_')),
        key=lambda s: s.start_time or 0,
    )
    ids = {s.context.span_id for s in finished if s.context is not None}
    children: dict[int | None, list[ReadableSpan]] = {}
    for span in finished:
        parent = span.parent.span_id if span.parent is not None and span.parent.span_id in ids else None
        children.setdefault(parent, []).append(span)

    def show(span: ReadableSpan, depth: int) -> None:
        pad = '  ' * depth
        status = span.status.status_code.name
        scope = span.instrumentation_scope.name if span.instrumentation_scope is not None else None
        print(
            f'{pad}- {span.name} [{span.kind.name}] scope={scope} status={status} {span.status.description or ""}'.rstrip()
        )
        for line in _attrs(span.attributes, pad + '    ', frozenset(skip)):
            print(line)
        for event in span.events:
            print(f'{pad}    event {event.name}')
            for line in _attrs(event.attributes, pad + '        '):
                print(line)
        assert span.context is not None
        for child in children.get(span.context.span_id, []):
            show(child, depth + 1)

    for root in children.get(None, []):
        show(root, 0)
    if clear:
        spans.clear()


def print_metrics() -> None:
    """Print the metrics' data points: name, unit, attributes, count and sum."""
    data = metrics.get_metrics_data()
    if data is None:
        print('no metrics')
        return
    for resource_metrics in data.resource_metrics:
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                print(f'metric {metric.name} unit={metric.unit!r} ({scope_metrics.scope.name})')
                for point in metric.data.data_points:
                    attrs = json.dumps(dict(point.attributes or {}), sort_keys=True)
                    print(f'    {attrs} count={getattr(point, "count", None)} sum={getattr(point, "sum", None)}')


def print_logs() -> None:
    """Print the log records (events in `event_mode='logs'`)."""
    for data in logs.get_finished_logs():
        record = data.log_record
        print(f'log {getattr(record, "event_name", None)} severity={record.severity_number}')
        for line in _attrs(record.attributes, '    '):
            print(line)
        print(f'    body = {json.dumps(record.body, sort_keys=True, default=str)}')
    logs.clear()
