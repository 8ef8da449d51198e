"""Part order when unknown tools, output tools, function tools and deferred calls share a response."""

from pydantic import BaseModel
from pydantic_ai import Agent, ApprovalRequired, DeferredToolRequests, RunContext, capture_run_messages
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import ExternalToolset


class Out(BaseModel):
    a: int


SCRIPTS: dict[str, list[ToolCallPart]] = {
    'all kinds': [
        ToolCallPart('nope', {}, tool_call_id='u1'),
        ToolCallPart('needs_ok', {}, tool_call_id='n1'),
        ToolCallPart('final_result', {'a': 1}, tool_call_id='o1'),
        ToolCallPart('plain', {}, tool_call_id='p1'),
        ToolCallPart('ext', {}, tool_call_id='e1'),
        ToolCallPart('final_result', {'a': 2}, tool_call_id='o2'),
    ],
    'invalid output first': [
        ToolCallPart('final_result', {'a': 'x'}, tool_call_id='o1'),
        ToolCallPart('final_result', {'a': 2}, tool_call_id='o2'),
        ToolCallPart('plain', {}, tool_call_id='p1'),
    ],
    'valid output first': [
        ToolCallPart('final_result', {'a': 1}, tool_call_id='o1'),
        ToolCallPart('final_result', {'a': 'x'}, tool_call_id='o2'),
        ToolCallPart('nope', {}, tool_call_id='u1'),
    ],
    'deferred and unknown, no output': [
        ToolCallPart('ext', {}, tool_call_id='e1'),
        ToolCallPart('nope', {}, tool_call_id='u1'),
        ToolCallPart('raiser', {}, tool_call_id='r1'),
        ToolCallPart('needs_ok', {}, tool_call_id='n1'),
        ToolCallPart('plain', {}, tool_call_id='p1'),
    ],
}
current: list[ToolCallPart] = []


def model_fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(parts=list(current))
    return ModelResponse(parts=[ToolCallPart('final_result', {'a': 9}, tool_call_id='last')])


for strategy in ('early', 'exhaustive'):
    agent = Agent(
        FunctionModel(model_fn),
        output_type=[Out, DeferredToolRequests],
        end_strategy=strategy,
        retries=3,
        toolsets=[ExternalToolset([ToolDefinition(name='ext')])],
    )

    @agent.tool_plain
    def plain() -> str:
        return 'plain ran'

    @agent.tool_plain(requires_approval=True)
    def needs_ok() -> str:
        return 'ok ran'

    @agent.tool
    def raiser(ctx: RunContext[None]) -> str:
        raise ApprovalRequired()

    scripts = dict(SCRIPTS)
    if strategy == 'early':
        # With 'exhaustive', upstream leaves the call that raised without a result part (see docs/compatibility.md).
        scripts['raised beside output'] = [
            ToolCallPart('raiser', {}, tool_call_id='r1'),
            ToolCallPart('final_result', {'a': 1}, tool_call_id='o1'),
        ]
    for name, calls in scripts.items():
        current[:] = calls
        print(f'== {strategy}: {name}')
        with capture_run_messages() as messages:
            try:
                result = agent.run_sync('go')
                output = result.output
                if isinstance(output, DeferredToolRequests):
                    print('output:', output.calls, output.approvals, output.metadata)
                else:
                    print('output:', output)
            except UnexpectedModelBehavior as e:
                print('error:', e)
        for message in messages[2:]:
            if isinstance(message, ModelRequest):
                print(repr(message.parts))
            else:
                print(repr(message.parts))

for strategy in ('early', 'exhaustive'):
    for output_retries in (0, 1):
        current[:] = [
            ToolCallPart('final_result', {'a': 1}, tool_call_id='o1'),
            ToolCallPart('final_result', {'a': 'x'}, tool_call_id='o2'),
        ]
        agent = Agent(FunctionModel(model_fn), output_type=Out, end_strategy=strategy, output_retries=output_retries)
        with capture_run_messages() as messages:
            try:
                print(strategy, output_retries, 'output:', agent.run_sync('go').output)
            except UnexpectedModelBehavior as e:
                print(strategy, output_retries, 'error:', e)
        print(repr(messages[2:]))

text_agent = Agent(FunctionModel(lambda m, i: ModelResponse(parts=[TextPart('hi')])), output_type=[Out, str])
print(text_agent.run_sync('go').output)
