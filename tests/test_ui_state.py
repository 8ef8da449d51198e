"""The UI adapter base: frontend state (`StateDeps`, `StateHandler`), frontend toolsets, and builtin tools."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import cached_property
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_ai import Agent, FunctionToolset, ModelResponse, RunContext, TextPart, WebSearchTool
from pydantic_ai.messages import ModelMessage, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.toolsets.abstract import AbstractToolset
from pydantic_ai.ui import StateDeps, StateHandler
from pydantic_ai.ui.vercel_ai import VercelAIAdapter
from pydantic_ai.ui.vercel_ai.request_types import SubmitMessage, TextUIPart, UIMessage
from pydantic_ai.ui.vercel_ai.response_types import TextDeltaChunk

pytestmark = pytest.mark.anyio


class Counter(BaseModel):
    count: int = 0


def frontend_tool(ctx: RunContext[StateDeps[Counter]]) -> str:
    return f'count is {ctx.deps.state.count}'


class StatefulAdapter(VercelAIAdapter[StateDeps[Counter], str]):
    @cached_property
    def state(self) -> dict[str, Any] | None:
        return {'count': 3}

    @cached_property
    def toolset(self) -> AbstractToolset[StateDeps[Counter]] | None:
        return FunctionToolset[StateDeps[Counter]]([frontend_tool])


def request() -> SubmitMessage:
    return SubmitMessage(
        id='r', messages=[UIMessage(id='m', role='user', parts=[TextUIPart(text='hi')])], trigger='submit-message'
    )


async def test_state_and_frontend_toolset():
    seen: list[Any] = []

    async def answer(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        seen.append(([t.name for t in info.function_tools], info.model_request_parameters.builtin_tools))
        returns = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart)]
        if returns:
            yield str(returns[0].content)
        else:
            yield {0: DeltaToolCall(name='frontend_tool', json_args='{}')}

    agent = Agent(FunctionModel(stream_function=answer), deps_type=StateDeps[Counter])
    adapter = StatefulAdapter(agent, request())
    deps = StateDeps(Counter())
    chunks = [chunk async for chunk in adapter.run_stream(deps=deps, builtin_tools=[WebSearchTool()])]
    deltas = [chunk.delta for chunk in chunks if isinstance(chunk, TextDeltaChunk)]
    assert deltas == ['count is 3']
    assert seen == [(['frontend_tool'], [WebSearchTool()])] * 2
    # The run got a copy of the deps with the request's state; the caller's deps are unchanged.
    assert deps.state == Counter()
    assert isinstance(deps, StateHandler)
    assert not isinstance(object(), StateHandler)


async def test_state_dict_deps_and_base_defaults():
    adapter = VercelAIAdapter(Agent(FunctionModel(lambda m, i: ModelResponse(parts=[TextPart('x')]))), request())
    assert (adapter.state, adapter.toolset) == (None, None)
    assert repr(StateDeps(Counter(count=1))) == 'StateDeps(state=Counter(count=1))'
