"""The approval demo's agent as a chat: `Agent.to_cli()` in the terminal, `Agent.to_web()` in the browser.

The same scripted sysadmin works on the same simulated machine, but the chat front ends ask the approvals,
not a program written for the demo. The model streams its words, so the chat shows them as they come.

    python -m pydantic_ai_examples.approval.chat          # terminal chat
    python -m pydantic_ai_examples.approval.chat --web    # browser chat on http://127.0.0.1:7932
    pai-chat --agent pydantic_ai_examples.approval.chat:agent [--web]

Whatever you ask, the scripted model works on freeing port 8080.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool, WrapperToolset

from ..vercel_ai_chat.app import FileStore, create_agent
from .cli import INSTRUCTIONS
from .machine import MACHINE_CONFIG, Machine, MachineToolset
from .scripted import plan
from .toolset import ApprovalToolset

__all__ = ('MachineBound', 'agent', 'build_chat_agent', 'files_agent', 'main', 'streaming_scripted_model')


@dataclass
class MachineBound(WrapperToolset[Any]):
    """Runs the wrapped toolset against one `Machine`, whatever the run's deps, so the agent needs no deps."""

    machine: Machine
    """The simulated machine the tools act on."""

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """The wrapped toolset's tools, as seen with the machine as deps."""
        return await super().get_tools(replace(ctx, deps=self.machine))

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        """Call a tool with the machine as deps."""
        return await super().call_tool(name, tool_args, replace(ctx, deps=self.machine), tool)


def streaming_scripted_model(delay: float = 0.0) -> FunctionModel:
    """The demo's scripted model, streaming its words (`delay` seconds apart) and then its calls."""

    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return plan(messages)

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        response = plan(messages)
        turn = sum(isinstance(message, ModelResponse) for message in messages)
        calls = [part for part in response.parts if isinstance(part, ToolCallPart)]
        for part in response.parts:
            if isinstance(part, TextPart):
                for word in part.content.split(' '):
                    await asyncio.sleep(delay)
                    yield word if word is part.content.split(' ')[0] else ' ' + word
        if calls:
            yield {
                index: DeltaToolCall(call.tool_name, call.args_as_json_str(), tool_call_id=f'call_{turn}_{index}')
                for index, call in enumerate(calls)
            }

    return FunctionModel(respond, stream_function=stream, model_name='scripted-sysadmin')


def build_chat_agent(machine: Machine | None = None, delay: float = 0.0) -> Agent[None, str]:
    """The demo's agent for a chat front end: no deps (the machine is bound), a streaming model."""
    toolset: AbstractToolset[Any] = ApprovalToolset[Machine](MachineToolset(), config=MACHINE_CONFIG)
    return Agent(
        streaming_scripted_model(delay),
        instructions=INSTRUCTIONS,
        toolsets=[MachineBound(toolset, machine or Machine())],
    )


agent = build_chat_agent(delay=0.03)
"""The chat agent `pai-chat --agent pydantic_ai_examples.approval.chat:agent` loads."""

files_agent = create_agent(FileStore())
"""The file manager of `pydantic_ai_examples.vercel_ai_chat`: its deletions need approval, and nothing is blocked."""


def main(argv: Sequence[str] | None = None) -> None:
    """Chat in the terminal, or serve the browser chat with `--web`."""
    parser = argparse.ArgumentParser(prog='python -m pydantic_ai_examples.approval.chat')
    parser.add_argument('--web', action='store_true', help='serve the browser chat instead')
    parser.add_argument('--port', type=int, default=7932, help='the port --web listens on (default: 7932)')
    parser.add_argument('--delay', type=float, default=0.03, help='seconds between streamed words')
    args = parser.parse_args(argv)
    chat_agent = build_chat_agent(delay=args.delay)
    if args.web:
        import uvicorn

        uvicorn.run(chat_agent.to_web(), host='127.0.0.1', port=args.port, log_level='warning')
    else:
        chat_agent.to_cli_sync(prog_name='sysadmin')


if __name__ == '__main__':
    main()
