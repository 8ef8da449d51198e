# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
"""`AgentRunResult.response`, `output_tool_return_content=` on the message accessors, `AgentRunResultEvent`."""

import asyncio
import json

from pydantic import BaseModel
from pydantic_ai import Agent, AgentRunResultEvent
from pydantic_ai.models.test import TestModel


class Answer(BaseModel):
    value: int


tool_agent = Agent(TestModel(), output_type=Answer)
result = tool_agent.run_sync('x')
print(repr(result.response))
print([repr(p) for p in result.all_messages()[-1].parts])
for kwargs in ({}, {'output_tool_return_content': 'Thanks!'}):
    print([repr(p) for p in result.all_messages(**kwargs)[-1].parts])
    print([repr(p) for p in result.new_messages(**kwargs)[-1].parts])
    print(json.loads(result.all_messages_json(**kwargs))[-1]['parts'][0]['content'])
    print(json.loads(result.new_messages_json(**kwargs))[-1]['parts'][0]['content'])
print([repr(p) for p in result.all_messages()[-1].parts])

text_agent = Agent(TestModel())
text_result = text_agent.run_sync('x')
print(repr(text_result.response))
try:
    text_result.all_messages(output_tool_return_content='Thanks!')
except Exception as e:
    print(type(e).__name__, e)


async def main() -> None:
    async with tool_agent.iter('x') as run:
        async for _ in run:
            pass
        print(json.loads(run.all_messages_json(output_tool_return_content='iter'))[-1]['parts'][0]['content'])
    async with tool_agent.run_stream('x') as stream:
        await stream.get_output()
        try:
            stream.all_messages(output_tool_return_content='stream')
        except NotImplementedError as e:
            print('NotImplementedError', e)
    events = [e async for e in text_agent.run_stream_events('x')]
    print(type(events[-1]) is AgentRunResultEvent, repr(events[-1]))


asyncio.run(main())
