"""Measure MCP servers as toolsets: start-up, and what a call through MCP costs over a function tool.

- `stdio_start_list_ms`: spawn the test server (`tests/mcp_servers/server.py`, Python + the `mcp` SDK's
  `FastMCP`) over stdio, initialize the session and list its tools; and the same plus stopping it again.
- `mcp_call_overhead_us`: the same trivial tool (`add`) as a function tool and as an MCP tool on a running
  stdio server, called by the agent either 100 at once in one response or one per step for 50 steps; the
  difference in wall time per call is what MCP adds (JSON-RPC over a pipe, the server's own dispatch).

Timings are printed, never asserted.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.mcp import MCPServerStdio
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

__all__ = ('mcp_call_overhead_us', 'stdio_start_list_ms')

SERVERS_DIR = Path(__file__).parent.parent / 'tests' / 'mcp_servers'
SERVER = str(SERVERS_DIR / 'server.py')
FILESYSTEM_SERVER = SERVERS_DIR / 'node_modules' / '@modelcontextprotocol' / 'server-filesystem' / 'dist' / 'index.js'
BATCH_CALLS = 100
SEQUENTIAL_STEPS = 50


def _server() -> MCPServerStdio:
    return MCPServerStdio(sys.executable, [SERVER], timeout=60)


async def _start_list(stop: bool, node: bool = False) -> float:
    server = MCPServerStdio('node', [str(FILESYSTEM_SERVER), str(SERVERS_DIR)], timeout=60) if node else _server()
    start = time.perf_counter()
    await server.__aenter__()
    await server.list_tools()
    elapsed = time.perf_counter() - start
    await server.__aexit__(None, None, None)
    if stop:
        elapsed = time.perf_counter() - start
    return elapsed * 1e3


def stdio_start_list_ms(samples: int = 5, node: bool = False) -> tuple[float, float]:
    """Median ms to start the stdio server and list its tools, and to do that and stop it again.

    With `node`, the server is the npm reference filesystem server instead of our Python one.
    """
    listed = [asyncio.run(_start_list(stop=False, node=node)) for _ in range(samples)]
    cycled = [asyncio.run(_start_list(stop=True, node=node)) for _ in range(samples)]
    return statistics.median(listed), statistics.median(cycled)


def _batch_model() -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        usage = RequestUsage(input_tokens=1, output_tokens=1)
        if len(messages) == 1:
            calls = [ToolCallPart('add', {'a': n, 'b': 1}, f'call_{n}') for n in range(BATCH_CALLS)]
            return ModelResponse(parts=calls, usage=usage)
        return ModelResponse(parts=[TextPart('done')], usage=usage)

    return FunctionModel(respond)


def _sequential_model() -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        usage = RequestUsage(input_tokens=1, output_tokens=1)
        done = (len(messages) - 1) // 2
        if done < SEQUENTIAL_STEPS:
            return ModelResponse(parts=[ToolCallPart('add', {'a': done, 'b': 1}, f'call_{done}')], usage=usage)
        return ModelResponse(parts=[TextPart('done')], usage=usage)

    return FunctionModel(respond)


def _function_agent(model: FunctionModel) -> Agent[None, str]:
    agent = Agent(model)

    @agent.tool_plain
    def add(a: int, b: int) -> int:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        return a + b

    return agent


async def _time_runs(agent: Agent[None, str], samples: int) -> float:
    limits = UsageLimits(request_limit=None)
    async with agent:
        await agent.run('go', usage_limits=limits)  # warm up (and list the MCP tools once)
        times: list[float] = []
        for _ in range(samples):
            start = time.perf_counter()
            await agent.run('go', usage_limits=limits)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def mcp_call_overhead_us(samples: int = 5) -> dict[str, tuple[float, float]]:
    """Per call, in microseconds: (function tool, MCP tool) for a batch of concurrent calls and for sequential steps."""
    out: dict[str, tuple[float, float]] = {}
    for label, make_model, calls in [
        (f'{BATCH_CALLS} calls in one response', _batch_model, BATCH_CALLS),
        (f'1 call per step, {SEQUENTIAL_STEPS} steps', _sequential_model, SEQUENTIAL_STEPS),
    ]:
        function_time = asyncio.run(_time_runs(_function_agent(make_model()), samples))
        mcp_time = asyncio.run(_time_runs(Agent(make_model(), toolsets=[_server()]), samples))
        out[label] = (function_time / calls * 1e6, mcp_time / calls * 1e6)
    return out


def main() -> None:
    """Print the MCP numbers."""
    listed, cycled = stdio_start_list_ms()
    print('MCP stdio server (tests/mcp_servers/server.py, Python + FastMCP):')
    print(f'  start + initialize + list tools: {listed:.0f} ms (with stopping it again: {cycled:.0f} ms)')
    if FILESYSTEM_SERVER.exists():
        listed, cycled = stdio_start_list_ms(node=True)
        print(f'  the same for the npm filesystem server (node): {listed:.0f} ms (with stopping: {cycled:.0f} ms)')
    for label, (function_us, mcp_us) in mcp_call_overhead_us().items():
        print(
            f'  {label}: function tool {function_us:.0f} us/call, MCP tool {mcp_us:.0f} us/call '
            f'(MCP adds {mcp_us - function_us:.0f} us/call)'
        )


if __name__ == '__main__':
    main()
