# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
"""Builtin tools: what the model is sent, dynamic tools, support checks, and the parts in the history."""

import warnings

from pydantic import TypeAdapter
from pydantic_ai import Agent, RunContext, UserError
from pydantic_ai.builtin_tools import (
    AbstractBuiltinTool,
    CodeExecutionTool,
    FileSearchTool,
    ImageGenerationTool,
    MCPServerTool,
    UrlContextTool,
    WebFetchTool,
    WebSearchTool,
)
from pydantic_ai.messages import (
    BinaryImage,
    BuiltinToolCallPart,
    BuiltinToolReturnPart,
    FilePart,
    ModelMessagesTypeAdapter,
    ModelResponse,
    TextPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.profiles import ModelProfile

for tool in [
    WebSearchTool(),
    CodeExecutionTool(),
    WebFetchTool(),
    ImageGenerationTool(),
    MCPServerTool(id='srv', url='u'),
    FileSearchTool(file_store_ids=['a']),
]:
    print(repr(tool), tool.unique_id, tool.label)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter('always')
    url = UrlContextTool()
print(repr(url), [str(w.message) for w in caught])
adapter = TypeAdapter(list[AbstractBuiltinTool])
print(adapter.validate_json('[{"kind":"code_execution"},{"kind":"web_search","max_uses":2}]'))
print(adapter.dump_json([MCPServerTool(id='a', url='b')]))

seen: list[object] = []


def respond(messages, info: AgentInfo) -> ModelResponse:
    seen.append(info.model_request_parameters.builtin_tools)
    return ModelResponse(
        parts=[
            BuiltinToolCallPart('web_search', {'query': 'x'}, 'call_1', provider_name='function'),
            BuiltinToolReturnPart('web_search', {'results': ['a']}, 'call_1', provider_name='function'),
            FilePart(BinaryImage(data=b'\x89PNG', media_type='image/png')),
            TextPart('found'),
        ]
    )


def maybe_code(ctx: RunContext[int]) -> CodeExecutionTool | None:
    return CodeExecutionTool() if ctx.deps else None


async def mcp(ctx: RunContext[int]) -> MCPServerTool:
    return MCPServerTool(id=str(ctx.deps), url='https://example.com')


agent = Agent(FunctionModel(respond), deps_type=int, builtin_tools=[WebSearchTool(), maybe_code])
result = agent.run_sync('search', deps=0)
print(seen.pop())
for message in result.all_messages():
    print(type(message).__name__, [repr(p) for p in message.parts])
response = result.response
print(response.usage, response.builtin_tool_calls, response.files, response.images)
print(ModelMessagesTypeAdapter.validate_json(ModelMessagesTypeAdapter.dump_json(result.all_messages()))[1].parts)
agent.run_sync('search', deps=1, builtin_tools=[mcp, WebSearchTool(max_uses=3)])
print(seen.pop())

for model in [
    FunctionModel(respond, profile=ModelProfile(supported_builtin_tools=frozenset({WebSearchTool}))),
    TestModel(),
]:
    try:
        Agent(model, builtin_tools=[CodeExecutionTool()]).run_sync('x')
    except UserError as e:
        print('UserError', e)
print(sorted(t.__name__ for t in TestModel.supported_builtin_tools()))
print(sorted(t.__name__ for t in FunctionModel.supported_builtin_tools()))
