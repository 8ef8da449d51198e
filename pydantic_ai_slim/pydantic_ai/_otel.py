"""The spans of instrumented runs, and the audit trail of deferred tool calls.

An agent made with `instrument=` gives its run an `InstrumentationSettings` (`GraphAgentDeps.instrumentation`);
the loop calls the functions here, which do nothing (and cost one `is None` test) when it is `None`:

- `run_span`: the `agent run` (version 3: `invoke_agent {name}`) span around a whole run;
- `tools_span` and `call_tool`: the `running tools` span of a tool-call stage, and a `running tool`
  (`execute_tool {name}`) span per call;
- `audited_handler_call` and `record_resume`: the audit trail, beyond upstream. Each call of the deferred tool
  handler is a `deferred_tool_handler` span with one `deferred_tool_decision` event per deferred call; the
  resume flow records the same events on a `deferred_tool_results` span when `deferred_tool_results` are
  applied, so a decision can be followed from the run that asked to the run that resumed by the call's id.

OpenTelemetry is only reached through the settings' tracer, so importing this module does not import it.
Instrumentation never breaks a run: an error raised while recording (by an exporter, a span processor, or in
serializing a value) is logged once with `logging` and otherwise ignored.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from . import _utils
from .exceptions import ModelRetry

if TYPE_CHECKING:
    from opentelemetry.trace import Span, SpanKind
    from opentelemetry.util.types import AttributeValue

    from ._agent_graph import GraphAgentState
    from .messages import ModelMessage, ToolCallPart
    from .models import Model
    from .models.instrumented import InstrumentationSettings
    from .tools import DeferredToolRequests, DeferredToolResults
    from .usage import RunUsage

__all__ = (
    'DECISION_EVENT',
    'POLICY_EVENT',
    'DecidingPolicy',
    'Decision',
    'RunSpan',
    'audited_handler_call',
    'call_tool',
    'guarded_span',
    'instrumented',
    'record_approval_policy',
    'record_resume',
    'record_streamed_output',
    'run_context_fields',
    'run_span',
    'safely',
    'settings_for',
    'settings_of',
    'tools_span',
)

T = TypeVar('T')

logger = logging.getLogger('pydantic_ai.instrumentation')
_current_run: ContextVar[RunSpan | None] = ContextVar('_current_run', default=None)
_logged_once: set[str] = set()

DECISION_EVENT = 'deferred_tool_decision'
"""The name of the audit trail's events: one per deferred call, on a `deferred_tool_handler` or
`deferred_tool_results` span."""


def _log_once(what: str, error: BaseException) -> None:
    if what in _logged_once:
        return
    _logged_once.add(what)
    logger.warning('Instrumentation failed while %s; the run goes on without it: %r', what, error, exc_info=error)


def safely(what: str, func: Callable[[], T], default: T) -> T:
    """`func()`, or `default` if it raises (the error is logged once): recording must never break a run."""
    try:
        return func()
    except Exception as e:
        _log_once(what, e)
        return default


def _exception_type(error: BaseException) -> str:
    cls = type(error)
    # The engine's private signal classes are public in upstream's `exceptions` module: name them as there.
    module = 'pydantic_ai.exceptions' if cls.__module__ == 'pydantic_ai._errors' else cls.__module__
    return cls.__qualname__ if module == 'builtins' else f'{module}.{cls.__qualname__}'


@contextmanager
def guarded_span(
    settings: InstrumentationSettings, name: str, attributes: dict[str, AttributeValue], kind: SpanKind | None = None
) -> Iterator[Span]:
    """A span that is current within the block and records an exception that leaves it.

    As OpenTelemetry's `start_as_current_span`, except that an error of OpenTelemetry's own (starting, ending,
    exporting) is logged once instead of raised.
    """
    from opentelemetry import context, trace

    def start() -> Span:
        if kind is None:
            return settings.tracer.start_span(name, attributes=attributes)
        return settings.tracer.start_span(name, attributes=attributes, kind=kind)

    span: Span = safely('starting a span', start, trace.INVALID_SPAN)
    token = context.attach(trace.set_span_in_context(span))
    try:
        yield span
    except BaseException as e:
        if isinstance(e, Exception):
            _record_error(span, e)
        raise
    finally:
        context.detach(token)
        safely('ending a span', span.end, None)


def _record_error(span: Span, error: Exception) -> None:
    from opentelemetry.trace import Status, StatusCode

    def record() -> None:
        span.record_exception(error, attributes={'exception.type': _exception_type(error)}, escaped=False)
        span.set_status(Status(StatusCode.ERROR, f'{type(error).__name__}: {error}'))

    safely('recording an exception', record, None)


def _json(value: Any) -> str:
    """`value` as a span attribute: a string as it is, anything else as JSON."""
    if isinstance(value, str):
        return value
    from .models.instrumented import InstrumentedModel

    return json.dumps(InstrumentedModel.serialize_any(value))


# What tools see of the instrumentation.

_NO_FIELDS: dict[str, Any] = {}


def run_context_fields(settings: InstrumentationSettings | None) -> dict[str, Any]:
    """The `RunContext` fields that tell tools how the run is traced (none, so the defaults, when it is not)."""
    if settings is None:
        return _NO_FIELDS
    return {
        'tracer': settings.tracer,
        'trace_include_content': settings.include_content,
        'instrumentation_version': settings.version,
    }


# The run span.


@dataclass
class RunSpan:
    """What the run span records when the run ends: its messages, usage and output."""

    settings: InstrumentationSettings
    span: Span
    messages: list[ModelMessage]
    usage: RunUsage
    new_message_index: int
    state: GraphAgentState | None = None
    output: Any = None
    has_output: bool = False

    def set_output(self, output: Any, *, streamed: bool = False) -> None:
        """Record the run's output (when the run ends with one).

        A streamed run's messages are recorded as they are when its output is complete, before the results
        of the response's other tool calls are added, as upstream does.
        """
        self.output, self.has_output = output, True
        if streamed:
            self.messages = list(self.messages)

    def finish(self) -> None:
        """Set the end-of-run attributes."""
        if self.span.is_recording():
            safely('recording the run', lambda: self.span.set_attributes(self._attributes()), None)

    def _attributes(self) -> dict[str, AttributeValue]:
        settings = self.settings
        attributes: dict[str, AttributeValue] = {**self.usage.opentelemetry_attributes()}
        if self.has_output and settings.include_content:
            attributes['final_result'] = _json(self.output)
        properties: dict[str, Any] = {'final_result': {'type': 'object'}}
        if settings.version == 1:
            from .models.instrumented import InstrumentedModel

            events = settings.messages_to_otel_events(self.messages)
            attributes['all_messages_events'] = json.dumps([InstrumentedModel.event_to_dict(e) for e in events])
            properties['all_messages_events'] = {'type': 'array'}
        else:
            attributes['pydantic_ai.all_messages'] = json.dumps(settings.messages_to_otel_messages(self.messages))
            properties['pydantic_ai.all_messages'] = {'type': 'array'}
            instructions = settings.system_instructions_attributes(_last_instructions(self.messages))
            attributes.update(instructions)
            properties.update({name: {'type': 'array'} for name in instructions})
        if self.new_message_index:
            attributes['pydantic_ai.new_message_index'] = self.new_message_index
            properties['pydantic_ai.new_message_index'] = {}
        metadata = self.state.metadata if self.state is not None else None
        if metadata is not None:
            attributes['metadata'] = _json(metadata)
            properties['metadata'] = {'type': 'array'}
        attributes['logfire.json_schema'] = json.dumps({'type': 'object', 'properties': properties})
        return attributes


def _last_instructions(messages: Sequence[ModelMessage]) -> str | None:
    from .messages import ModelRequest

    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            return message.instructions
    return None


def run_span(
    settings: InstrumentationSettings | None,
    agent_name: str,
    model_name: str,
    state: GraphAgentState,
    new_message_index: int,
) -> AbstractContextManager[RunSpan | None]:
    """The span of a whole run, whose children are the run's chat and tool spans (without settings: no span)."""
    if settings is None:
        return nullcontext()
    return _run_span(settings, agent_name, model_name, state, new_message_index)


@contextmanager
def _run_span(
    settings: InstrumentationSettings,
    agent_name: str,
    model_name: str,
    state: GraphAgentState,
    new_message_index: int,
) -> Iterator[RunSpan]:
    name = f'invoke_agent {agent_name}' if settings.version >= 3 else 'agent run'
    attributes: dict[str, AttributeValue] = {
        'model_name': model_name,
        'agent_name': agent_name,
        'gen_ai.agent.name': agent_name,
        'logfire.msg': f'{agent_name} run',
    }
    with guarded_span(settings, name, attributes) as span:
        run = RunSpan(settings, span, state.message_history, state.usage, new_message_index, state)
        token = _current_run.set(run)
        try:
            yield run
        finally:
            _current_run.reset(token)
            run.finish()


def record_streamed_output(settings: InstrumentationSettings | None, output: Any) -> None:
    """Record the output of a streamed run, which ends outside the graph, on the current run span."""
    run = _current_run.get() if settings is not None else None
    if run is not None:
        run.set_output(output, streamed=True)


# Tool spans.


def tools_span(settings: InstrumentationSettings | None, calls: Sequence[ToolCallPart]) -> Any:
    """The `running tools` span of a tool-call stage (a no-op context without instrumentation)."""
    if settings is None or not calls:
        return nullcontext()
    names = [call.tool_name for call in calls]
    count = len(names)
    attributes: dict[str, AttributeValue] = {
        'tools': names,
        'logfire.msg': f'running {count} tool{"" if count == 1 else "s"}',
    }
    return guarded_span(settings, 'running tools', attributes)


async def call_tool(settings: InstrumentationSettings | None, call: ToolCallPart, run: Awaitable[T]) -> T:
    """Await `run`, the call of one tool, in a `running tool` span (version 3: `execute_tool {name}`)."""
    if settings is None:
        return await run
    from ._errors import ToolRetryError

    v3 = settings.version >= 3
    args_key, result_key = (
        ('gen_ai.tool.call.arguments', 'gen_ai.tool.call.result') if v3 else ('tool_arguments', 'tool_response')
    )
    attributes: dict[str, AttributeValue] = {
        'gen_ai.tool.name': call.tool_name,
        'gen_ai.tool.call.id': call.tool_call_id,
        'logfire.msg': f'running tool: {call.tool_name}',
    }
    properties: dict[str, Any] = {'gen_ai.tool.call.id': {}, 'gen_ai.tool.name': {}}
    if settings.include_content:
        attributes[args_key] = safely('serializing tool arguments', call.args_as_json_str, '')
        properties.update({args_key: {'type': 'object'}, result_key: {'type': 'object'}})
    attributes['logfire.json_schema'] = json.dumps({'type': 'object', 'properties': properties})
    name = f'execute_tool {call.tool_name}' if v3 else 'running tool'
    with guarded_span(settings, name, attributes) as span:
        try:
            result = await run
        except ToolRetryError as e:
            if settings.include_content:
                retry = e.tool_retry.model_response()
                safely('recording a tool result', partial(span.set_attribute, result_key, retry), None)
            raise
        if settings.include_content:
            safely('recording a tool result', lambda: span.set_attribute(result_key, _json(result)), None)
        return result


# The audit trail.

Decision = Literal['approved', 'approved_with_overridden_args', 'denied', 'external_result', 'retry']
"""What was decided for one deferred call."""


@dataclass
class _Audit:
    settings: InstrumentationSettings
    source: Literal['handler', 'resume']
    events: list[tuple[str, dict[str, AttributeValue]]] = field(
        default_factory=list[tuple[str, dict[str, 'AttributeValue']]]
    )

    def decisions(self, requests: DeferredToolRequests, results: DeferredToolResults, waited: float) -> None:
        for kind, calls in (('approval', requests.approvals), ('external', requests.calls)):
            for call in calls:
                attributes = self._decision(call, kind, results, waited)
                if attributes is not None:
                    self.events.append((DECISION_EVENT, attributes))

    def _decision(
        self, call: ToolCallPart, kind: str, results: DeferredToolResults, waited: float
    ) -> dict[str, AttributeValue] | None:
        from .messages import RetryPromptPart
        from .tools import ToolApproved, ToolDenied

        call_id = call.tool_call_id
        include = self.settings.include_content
        attributes: dict[str, AttributeValue] = {
            'gen_ai.tool.name': call.tool_name,
            'gen_ai.tool.call.id': call_id,
            'pydantic_ai.deferred.kind': kind,
            'pydantic_ai.deferred.source': self.source,
            'pydantic_ai.deferred.wait_seconds': round(waited, 6),
        }
        if include:
            attributes['gen_ai.tool.call.arguments'] = call.args_as_json_str()
        if call_id in results.calls:
            value = results.calls[call_id]
            retry = isinstance(value, ModelRetry | RetryPromptPart)
            attributes['pydantic_ai.deferred.decision'] = 'retry' if retry else 'external_result'
            if include:
                shown = value.message if isinstance(value, ModelRetry) else value
                shown = shown.model_response() if isinstance(shown, RetryPromptPart) else shown
                attributes['gen_ai.tool.call.result'] = _json(shown)
            return attributes
        if call_id not in results.approvals:
            return None
        approval = results.approvals[call_id]
        if approval is False or isinstance(approval, ToolDenied):
            attributes['pydantic_ai.deferred.decision'] = 'denied'
            message = approval.message if isinstance(approval, ToolDenied) else ToolDenied().message
            attributes['pydantic_ai.deferred.denial_message'] = message
            return attributes
        override = approval.override_args if isinstance(approval, ToolApproved) else None
        attributes['pydantic_ai.deferred.decision'] = (
            'approved' if override is None else 'approved_with_overridden_args'
        )
        if override is not None and include:
            attributes['pydantic_ai.deferred.override_args'] = _json(override)
        return attributes

    def emit(self, span: Span) -> None:
        for name, attributes in self.events:
            safely('recording a decision', partial(span.add_event, name, attributes), None)


def _audit_span_attributes(requests: DeferredToolRequests, name: str) -> dict[str, AttributeValue]:
    ids = [call.tool_call_id for call in [*requests.approvals, *requests.calls]]
    count = len(ids)
    return {
        'logfire.msg': f'{name}: {count} deferred call{"" if count == 1 else "s"}',
        'pydantic_ai.deferred.tool_call_ids': ids,
        'pydantic_ai.deferred.approvals': len(requests.approvals),
        'pydantic_ai.deferred.calls': len(requests.calls),
    }


async def audited_handler_call(
    settings: InstrumentationSettings | None, requests: DeferredToolRequests, ask: Awaitable[DeferredToolResults]
) -> DeferredToolResults:
    """Await `ask`, the deferred tool handler's call, in a `deferred_tool_handler` span with its decisions."""
    if settings is None:
        return await ask
    with guarded_span(
        settings, 'deferred_tool_handler', _audit_span_attributes(requests, 'deferred tool handler')
    ) as span:
        started = time.monotonic()
        results = await ask
        waited = time.monotonic() - started
        audit = _Audit(settings, 'handler')
        safely('recording decisions', lambda: audit.decisions(requests, results, waited), None)
        audit.emit(span)
        return results


def record_resume(
    settings: InstrumentationSettings | None,
    pending: Sequence[ToolCallPart],
    results: DeferredToolResults,
    requested_at: datetime,
) -> None:
    """Record the decisions of a resumed run on a `deferred_tool_results` span.

    `pending` are the unanswered calls of the history's last response. A nested call's decision is listed
    under its composite id, with its parent's tool name. The wait is the time from that response to now.
    """
    if settings is None:
        return
    requests = _resume_requests(pending, results)
    waited = max(0.0, (_utils.now_utc() - requested_at).total_seconds())
    attributes = _audit_span_attributes(requests, 'deferred tool results')
    with guarded_span(settings, 'deferred_tool_results', attributes) as span:
        audit = _Audit(settings, 'resume')
        safely('recording decisions', lambda: audit.decisions(requests, results, waited), None)
        audit.emit(span)


def _resume_requests(pending: Sequence[ToolCallPart], results: DeferredToolResults) -> DeferredToolRequests:
    from dataclasses import replace

    from ._tool_calls import NESTED_ID_SEPARATOR
    from .tools import DeferredToolRequests

    requests = DeferredToolRequests()
    for call in pending:
        prefix = call.tool_call_id + NESTED_ID_SEPARATOR
        for keys, listed in ((results.approvals, requests.approvals), (results.calls, requests.calls)):
            listed.extend(
                replace(call, tool_call_id=key) for key in keys if key == call.tool_call_id or key.startswith(prefix)
            )
    return requests


# The agent's settings.


def settings_for(instrument: Any) -> InstrumentationSettings | None:
    """The settings an agent's `instrument` (or `Agent.instrument_all`'s default) stands for, or `None` for off.

    `True` means `InstrumentationSettings()` with the global providers. Without the `opentelemetry-api` package
    the run goes on uninstrumented, and that is logged once.
    """
    if not instrument:
        return None
    try:
        from .models.instrumented import InstrumentationSettings
    except ImportError as e:
        _log_once('importing OpenTelemetry (install `pydantic-ai-slim[otel]`)', e)
        return None
    if isinstance(instrument, InstrumentationSettings):
        return instrument
    return safely('making the instrumentation settings', InstrumentationSettings, None)


def instrumented(model: Model, settings: InstrumentationSettings | None) -> Model:
    """`model` wrapped in an `InstrumentedModel` with these settings, unless it is one already or `settings` is None."""
    if settings is None:
        return model
    from .models.instrumented import instrument_model

    return instrument_model(model, settings)


def settings_of(model: Model, default: InstrumentationSettings | None) -> InstrumentationSettings | None:
    """The settings of an instrumented model (even in an agent that is not), else `default`."""
    if default is None and sys.modules.get('pydantic_ai.models.instrumented') is None:
        # No model can be instrumented yet: OpenTelemetry is not even imported.
        return None
    from .models.instrumented import InstrumentedModel

    return model.instrumentation_settings if isinstance(model, InstrumentedModel) else default


# The approval toolkit's part of the audit trail.

DecidingPolicy = Literal['pre-approved', 'blocked', 'remembered', 'asked']
"""Which policy of the approval toolkit decided a call."""

POLICY_EVENT = 'approval_policy'
"""The name of the events that say which policy of the approval toolkit decided a call."""


def record_approval_policy(
    tool_name: str, tool_call_id: str | None, policy: DecidingPolicy, wait_seconds: float | None = None
) -> None:
    """Add an `approval_policy` event to the current span, if one is recording.

    Called by the approval toolkit: `pre-approved` on the call's `running tool` span; `blocked`, `remembered` and
    `asked` on the `deferred_tool_handler` span, with `wait_seconds`, the time that one call took to decide.
    """
    trace = sys.modules.get('opentelemetry.trace')
    if trace is None:
        # OpenTelemetry is not even imported: nothing can be recording.
        return
    span = trace.get_current_span()
    if not span.is_recording():
        return
    attributes: dict[str, AttributeValue] = {
        'gen_ai.tool.name': tool_name,
        'gen_ai.tool.call.id': tool_call_id or '',
        'approval.policy': policy,
    }
    if wait_seconds is not None:
        attributes['approval.wait_seconds'] = round(wait_seconds, 6)
    safely('recording an approval policy', partial(span.add_event, POLICY_EVENT, attributes), None)
