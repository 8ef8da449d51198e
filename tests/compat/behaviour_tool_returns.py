"""What a tool's return value becomes: files, `ToolReturn` in a list, bytes; tool-name conflict errors."""

from collections.abc import Callable
from typing import Any

from pydantic_ai import (
    Agent,
    AudioUrl,
    BinaryContent,
    DeferredToolRequests,
    DeferredToolResults,
    DocumentUrl,
    ImageUrl,
    Tool,
    ToolReturn,
    VideoUrl,
)
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import ExternalToolset, FunctionToolset

RETURNS: dict[str, Any] = {
    'binary': BinaryContent(b'\x89PNG', media_type='image/png'),
    'binary_id': BinaryContent(b'abc', media_type='application/pdf', identifier='my-doc'),
    'image_url': ImageUrl('https://example.com/a.png'),
    'doc_url': DocumentUrl('https://example.com/a.pdf'),
    'audio_url': AudioUrl('https://example.com/a.mp3'),
    'video_url': VideoUrl('https://example.com/a.mp4'),
    'list_of_files': ['text', ImageUrl('https://example.com/b.png'), 3],
    'dict_with_file': {'img': ImageUrl('https://example.com/c.png')},
    'bytes': b'hello',
    'bytes_non_utf8': b'\xff\xfe',
    'list_with_tool_return': [ToolReturn('x'), 'y'],
    'tool_return_with_file': ToolReturn('rv', content=[ImageUrl('https://example.com/d.png')]),
    'tool_return_value_file': ToolReturn(ImageUrl('https://example.com/e.png')),
}


def model_fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart('give', {}, tool_call_id='g1')])
    return ModelResponse(parts=[TextPart('done')])


def giver(value: Any) -> Callable[[], Any]:
    def give() -> Any:
        return value

    return give


for name, value in RETURNS.items():
    agent = Agent(FunctionModel(model_fn), tools=[giver(value)])

    print('==', name)
    try:
        result = agent.run_sync('go')
        for message in result.all_messages()[2:3]:
            print(repr(message.parts))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')

print('== name conflicts')


def twice() -> int:
    return 1


for attempt in range(4):
    try:
        if attempt == 0:
            a = Agent('test', tools=[twice])
            a.tool_plain(twice)
        elif attempt == 1:
            FunctionToolset([twice, Tool(twice)])
        elif attempt == 2:
            a = Agent('test', tools=[twice], toolsets=[FunctionToolset([twice])])
            a.run_sync('x')
        else:
            a = Agent('test', output_type=int, tools=[Tool(twice, name='final_result')])
            a.run_sync('x')
    except UserError as e:
        print(f'{attempt}: UserError: {e}')


RETURNS_MORE: dict[str, Any] = {
    'two files': [ImageUrl('https://example.com/b.png'), BinaryContent(b'abc', media_type='image/png')],
    'tr list file': ToolReturn(['a', ImageUrl('https://example.com/e.png')]),
    'tr dict file': ToolReturn({'k': ImageUrl('https://example.com/e.png')}),
    'tr content str': ToolReturn('rv', content='more'),
    'tuple': ('a', ImageUrl('https://example.com/b.png')),
    'nested list': [['a', ImageUrl('https://example.com/b.png')]],
    'list tr only': [ToolReturn('x')],
}
for name, value in RETURNS_MORE.items():
    agent = Agent(FunctionModel(model_fn), tools=[giver(value)])

    print('==', name)
    try:
        result = agent.run_sync('go')
        print(repr(result.all_messages()[2].parts))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
print('== external')
for name, value in {
    'file': ImageUrl('https://example.com/x.png'),
    'list': [ToolReturn('x')],
    'tr file': ToolReturn(ImageUrl('https://example.com/x.png')),
    'bytes': b'hi',
}.items():
    agent = Agent(
        FunctionModel(model_fn),
        output_type=[str, DeferredToolRequests],
        toolsets=[ExternalToolset([ToolDefinition(name='give')])],
    )
    r = agent.run_sync('go')
    try:
        r2 = agent.run_sync(
            message_history=r.all_messages(), deferred_tool_results=DeferredToolResults(calls={'g1': value})
        )
        print(name, repr(r2.all_messages()[2].parts))
    except Exception as e:
        print(name, f'{type(e).__name__}: {e}')

print('== bytes as the model sees them')
for data in (b'hello', b'\xff\xfe'):
    part = ToolReturnPart('give', data, 'g1')
    print(repr(part.model_response_str()), repr(part.model_response_object()))
    print(ModelMessagesTypeAdapter.dump_json([ModelRequest(parts=[part])]).decode()[:0] or 'dumped')
    print(ModelMessagesTypeAdapter.dump_python([ModelRequest(parts=[part])], mode='json')[0]['parts'][0]['content'])
