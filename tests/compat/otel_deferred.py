"""Deferred calls with instrumentation: a run that ends with `DeferredToolRequests`, then the resume run."""

from _otel_probe import print_spans, tracer_provider
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ToolApproved, ToolDenied
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings


def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(
            parts=[
                ToolCallPart('delete', {'path': 'a'}, 'd1'),
                ToolCallPart('delete', {'path': 'b'}, 'd2'),
                ToolCallPart('delete', {'path': 'c'}, 'd3'),
                ToolCallPart('fetch', {'url': 'u'}, 'e1'),
            ]
        )
    return ModelResponse(parts=[TextPart('done')])


settings = InstrumentationSettings(tracer_provider=tracer_provider)
agent = Agent(FunctionModel(respond), output_type=[str, DeferredToolRequests], instrument=settings, name='ops')


@agent.tool_plain(requires_approval=True)
def delete(path: str) -> str:
    """Delete a file."""
    return f'deleted {path}'


@agent.tool_plain
def fetch(url: str) -> str:
    """Fetched elsewhere."""
    from pydantic_ai import CallDeferred

    raise CallDeferred


first = agent.run_sync('clean up')
assert isinstance(first.output, DeferredToolRequests)
print(first.output.calls, first.output.approvals)
print_spans()

results = DeferredToolResults(
    approvals={'d1': True, 'd2': ToolApproved(override_args={'path': 'B'}), 'd3': ToolDenied('not that one')},
    calls={'e1': 'page'},
)
second = agent.run_sync(message_history=first.all_messages(), deferred_tool_results=results)
print(second.output)
print_spans()
