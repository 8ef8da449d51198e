"""Vercel AI chunks for thinking at two indices, text, a tool call and the output tool's call."""

import asyncio
from dataclasses import dataclass

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaThinkingPart, DeltaToolCall, FunctionModel
from pydantic_ai.ui.vercel_ai import VercelAIAdapter
from pydantic_ai.ui.vercel_ai.request_types import SubmitMessage


@dataclass
class Answer:
    value: int


async def stream(messages: list[ModelMessage], info: AgentInfo):
    last = messages[-1]
    if isinstance(last, ModelRequest) and any(isinstance(p, ToolReturnPart) for p in last.parts):
        yield {0: DeltaThinkingPart(content='first thought')}
        yield {1: DeltaThinkingPart(content='second thought')}
        yield {2: DeltaToolCall('final_result', '{"value": 42}', tool_call_id='out_1')}
        return
    yield {0: DeltaThinkingPart(content='plan', signature='sig-1')}
    yield {1: DeltaToolCall('add', '{"a": 1, "b": 2}', tool_call_id='call_1')}


agent = Agent(FunctionModel(stream_function=stream), output_type=Answer)


@agent.tool_plain
def add(a: int, b: int) -> int:
    return a + b


async def main() -> None:
    body = {
        'trigger': 'submit-message',
        'id': 'chat',
        'messages': [{'id': 'u1', 'role': 'user', 'parts': [{'type': 'text', 'text': 'hi'}]}],
    }
    adapter = VercelAIAdapter(agent=agent, run_input=SubmitMessage.model_validate(body))
    async for chunk in adapter.run_stream():
        print(chunk.model_dump(by_alias=True, exclude_none=True))


asyncio.run(main())
