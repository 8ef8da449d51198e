"""Behaviours matched to upstream v1.51: history shapes, the tool pipeline, finish reasons and streaming.

Each area also has a program under `tests/compat/` (`behaviour_*.py`) whose output is compared with what
upstream printed; these tests pin the same behaviours as whole-history snapshots.
"""

# pyright: reportUnusedFunction=false
# Tools registered by decorator are only used through the agent, which pyright cannot see.

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC
from typing import Any

import pytest
from dirty_equals import IsNow, IsStr
from inline_snapshot import snapshot
from pydantic_ai import (
    Agent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RequestUsage,
    RunContext,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserContent,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

pytestmark = pytest.mark.anyio

IS_NOW: Any = IsNow(tz=UTC)
IS_STR: Any = IsStr()


def call_then_text(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Call tool `show` once, then answer `done`."""
    if any(isinstance(p, ToolReturnPart) for m in messages[-1:] for p in m.parts):
        return ModelResponse(parts=[TextPart('done')])
    return ModelResponse(parts=[ToolCallPart('show', {}, tool_call_id='s1')])


@pytest.mark.parametrize(
    ('parts', 'expected'),
    [
        ([UserPromptPart('second')], 'second'),
        ([UserPromptPart(['x', 'y'])], ['x', 'y']),
        ([UserPromptPart('first'), UserPromptPart(['a', 'b'])], ['first', 'a', 'b']),
        ([ToolReturnPart('show', 'ok', 'zz')], None),
    ],
)
async def test_prompt_of_a_history_ending_with_a_request(
    parts: list[Any], expected: str | Sequence[UserContent] | None
):
    seen: list[str | Sequence[UserContent] | None] = []
    agent = Agent(FunctionModel(call_then_text))

    @agent.instructions
    def instructions(ctx: RunContext[None]) -> str:
        seen.append(ctx.prompt)
        return 'Be brief.'

    @agent.tool
    def show(ctx: RunContext[None]) -> str:
        seen.append(ctx.prompt)
        return 'ok'

    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('hi')]),
        ModelResponse(parts=[TextPart('hello')]),
        ModelRequest(parts=parts),
    ]
    result = await agent.run(message_history=history)
    assert result.output == 'done'
    assert seen and all(prompt == expected for prompt in seen)


async def test_history_ending_with_a_tool_call_response_is_continued():
    agent = Agent(FunctionModel(call_then_text))

    @agent.tool_plain
    def show() -> str:
        return 'ok'

    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('hi')]),
        ModelResponse(parts=[ToolCallPart('show', {}, tool_call_id='x1')]),
    ]
    result = await agent.run(message_history=history)
    assert result.all_messages() == snapshot(
        [
            ModelRequest(parts=[UserPromptPart(content='hi', timestamp=IS_NOW)]),
            ModelResponse(parts=[ToolCallPart(tool_name='show', args={}, tool_call_id='x1')], timestamp=IS_NOW),
            ModelRequest(
                parts=[ToolReturnPart(tool_name='show', content='ok', tool_call_id='x1', timestamp=IS_NOW)],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelResponse(
                parts=[TextPart(content='done')],
                usage=RequestUsage(input_tokens=52, output_tokens=3),
                model_name='function:call_then_text:',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
        ]
    )
