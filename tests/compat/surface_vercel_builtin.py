# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
"""The Vercel AI event stream's chunks for builtin tool calls, their returns, and files in a response."""

import asyncio
from collections.abc import AsyncIterator

from pydantic_ai.messages import (
    BinaryContent,
    BinaryImage,
    BuiltinToolCallPart,
    BuiltinToolReturnPart,
    FilePart,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    TextPart,
    ToolCallPartDelta,
)
from pydantic_ai.ui.vercel_ai import VercelAIEventStream
from pydantic_ai.ui.vercel_ai.request_types import SubmitMessage, TextUIPart, UIMessage

call = BuiltinToolCallPart('web_search', {'query': 'x'}, 'call_1', provider_name='openai')
ret = BuiltinToolReturnPart('web_search', {'results': ['a']}, 'call_1', provider_name='openai')
ret_text = BuiltinToolReturnPart('code_execution', 'printed 2', 'call_2', provider_name='openai')
call_str = BuiltinToolCallPart('code_execution', '', 'call_2', provider_name='openai')


async def events() -> AsyncIterator:
    yield PartStartEvent(index=0, part=call)
    yield PartEndEvent(index=0, part=call, next_part_kind='builtin-tool-return')
    yield PartStartEvent(index=1, part=ret, previous_part_kind='builtin-tool-call')
    yield PartStartEvent(index=2, part=call_str, previous_part_kind='builtin-tool-return')
    yield PartDeltaEvent(index=2, delta=ToolCallPartDelta(args_delta='{"code": "1+1"}', tool_call_id='call_2'))
    yield PartEndEvent(
        index=2, part=BuiltinToolCallPart('code_execution', '{"code": "1+1"}', 'call_2', provider_name='openai')
    )
    yield PartStartEvent(index=3, part=ret_text)
    yield PartStartEvent(index=4, part=FilePart(BinaryImage(data=b'\x89PNG', media_type='image/png')))
    yield PartStartEvent(index=5, part=FilePart(BinaryContent(data=b'%PDF', media_type='application/pdf')))
    yield PartStartEvent(index=6, part=TextPart('done'), previous_part_kind='file')
    yield PartEndEvent(index=6, part=TextPart('done'))


async def main() -> None:
    request = SubmitMessage(
        id='req', messages=[UIMessage(id='m1', role='user', parts=[TextUIPart(text='hi')])], trigger='submit-message'
    )
    stream = VercelAIEventStream(request)
    async for chunk in stream.transform_stream(events()):
        print(stream.encode_event(chunk).strip())


asyncio.run(main())
