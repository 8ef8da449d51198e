"""Histories of runs that end with deferred calls, of resumed runs, and a new prompt over unprocessed calls."""

import asyncio
from collections.abc import AsyncIterator, Callable

from pydantic_ai import Agent, ApprovalRequired, DeferredToolRequests, DeferredToolResults, RunContext, ToolDenied
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import ExternalToolset

CALLS: list[ToolCallPart] = []


def model_fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(parts=list(CALLS))
    return ModelResponse(parts=[TextPart('done')])


async def stream_fn(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    if len(messages) == 1:
        for index, call in enumerate(CALLS):
            yield {
                index: DeltaToolCall(
                    name=call.tool_name, json_args=call.args_as_json_str(), tool_call_id=call.tool_call_id
                )
            }
    else:
        yield 'done'


agent = Agent(
    FunctionModel(model_fn, stream_function=stream_fn),
    output_type=[str, DeferredToolRequests],
    toolsets=[ExternalToolset([ToolDefinition(name='ext', parameters_json_schema={'type': 'object'})])],
)


@agent.tool_plain
def plain(x: int) -> int:
    return x


@agent.tool_plain(requires_approval=True)
def needs_ok(x: int) -> int:
    return x * 10


@agent.tool
def raiser(ctx: RunContext[None], x: int) -> int:
    print(f'raiser ran: approved={ctx.tool_call_approved}')
    if not ctx.tool_call_approved or ctx.tool_call_metadata == {'again': True}:
        raise ApprovalRequired(metadata={'m': x})
    return x


def show(title: str, output: object, messages: list[ModelMessage]) -> None:
    print(f'== {title}')
    if isinstance(output, DeferredToolRequests):
        print('calls:', output.calls)
        print('approvals:', output.approvals)
        print('metadata:', output.metadata)
    else:
        print('output:', repr(output))
    for message in messages:
        print(repr(message))


def attempt(title: str, fn: Callable[[], object]) -> None:
    try:
        fn()
    except Exception as e:
        print(f'{title}: {type(e).__name__}: {e}')


async def streamed(history: list[ModelMessage] | None = None) -> None:
    async with agent.run_stream('go', message_history=history) as result:
        output = await result.get_output()
        show('run_stream', output, result.all_messages())


CALLS[:] = [ToolCallPart('needs_ok', {'x': 2}, tool_call_id='c2'), ToolCallPart('raiser', {'x': 4}, tool_call_id='c4')]
only = agent.run_sync('go')
show('only deferred calls', only.output, only.all_messages())
print('new == all:', only.new_messages() == only.all_messages())
attempt('new prompt', lambda: agent.run_sync('again', message_history=only.all_messages()))
asyncio.run(streamed())

again = agent.run_sync(
    message_history=only.all_messages(),
    deferred_tool_results=DeferredToolResults(approvals={'c2': True, 'c4': True}, metadata={'c4': {'again': True}}),
)
show('resume, deferred again', again.output, again.all_messages())
final = agent.run_sync(
    message_history=again.all_messages(), deferred_tool_results=DeferredToolResults(approvals={'c4': True})
)
show('resume the re-deferred call', final.output, final.new_messages())

prompted = agent.run_sync(
    'and then',
    message_history=only.all_messages(),
    deferred_tool_results=DeferredToolResults(approvals={'c2': True, 'c4': True}, metadata={'c4': {'again': True}}),
)
show('resume with prompt, deferred again', prompted.output, prompted.new_messages())
denied = agent.run_sync(
    'and then',
    message_history=only.all_messages(),
    deferred_tool_results=DeferredToolResults(approvals={'c2': False, 'c4': ToolDenied('no')}),
)
show('resume with prompt, all denied', denied.output, denied.new_messages())

CALLS[:] = [
    ToolCallPart('plain', {'x': 1}, tool_call_id='c1'),
    ToolCallPart('ext', {'x': 3}, tool_call_id='c3'),
    ToolCallPart('needs_ok', {'x': 2}, tool_call_id='c2'),
]
mixed = agent.run_sync('go')
show('mixed', mixed.output, mixed.all_messages())
resumed = agent.run_sync(
    message_history=mixed.all_messages(),
    deferred_tool_results=DeferredToolResults(approvals={'c2': True}, calls={'c3': 33}),
)
show('mixed resumed', resumed.output, resumed.new_messages())
asyncio.run(streamed())
