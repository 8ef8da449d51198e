"""Files in tool results (as MCP image results are): `See file ...` in the return, the file in a user part."""

from typing import Any

from pydantic_ai import Agent, BinaryContent, ImageUrl, ToolReturn
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel


def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart(name, {}) for name in ('files', 'url', 'mapping', 'extra')])
    return ModelResponse(parts=[TextPart('done')])


agent = Agent(FunctionModel(model))


@agent.tool_plain
def files() -> list[Any]:
    return [
        'hello',
        BinaryContent(data=b'\x89PNG', media_type='image/png'),
        BinaryContent(b'abc', media_type='audio/wav'),
    ]


@agent.tool_plain
def url() -> ImageUrl:
    return ImageUrl('https://example.com/a.png')


@agent.tool_plain
def mapping() -> dict[str, Any]:
    return {'a': BinaryContent(data=b'x', media_type='image/png')}


@agent.tool_plain
def extra() -> ToolReturn:
    return ToolReturn(return_value='ok', content=[BinaryContent(data=b'y', media_type='image/png')])


result = agent.run_sync('x')
for message in result.all_messages()[2:]:
    print(repr(message))

bad = Agent(FunctionModel(lambda m, i: ModelResponse(parts=[ToolCallPart('bad', {})])))


@bad.tool_plain
def bad_tool() -> ToolReturn:
    return ToolReturn(return_value=[BinaryContent(data=b'x', media_type='image/png')])


bad_tool.__name__ = 'bad'
bad = Agent(FunctionModel(lambda m, i: ModelResponse(parts=[ToolCallPart('bad_tool', {})])), tools=[bad_tool])
try:
    bad.run_sync('x')
except Exception as e:
    print(type(e).__name__, e)
