"""A DBOS worker for the crash-and-recover tests: `python -m tests.durable.worker --db URL --log PATH [...]`.

The tests start it with `multiprocessing`'s fork server, which has the imports done already, so a restart
costs a fork rather than an interpreter start.

It runs an agent whose first model response asks to approve `delete_file`, with a durable waiting handler,
and appends what it does to the call log (`model call N`, `tool delete_file PATH`), so a test can see that
nothing was done twice. `--start ID` starts a run as workflow `ID`; without it the worker only recovers the
workflows it owns. It runs until it is killed.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from dbos import DBOS, DBOSConfig
from pydantic_ai import Agent, ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.durable_exec.dbos import DBOSAgent, wait_for_deferred_tool_results
from pydantic_ai.models.function import AgentInfo, FunctionModel

APP_VERSION = 'durable-tests-1'


def build_agent(log: Path, timeout: float | None, *, parallel: bool = False) -> DBOSAgent[None, str]:
    """The agent, logging each model call and tool run to `log`; with `parallel`, it reads two files first."""

    def note(line: str) -> None:
        with log.open('a') as f:
            f.write(line + '\n')

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        note(f'model call {sum(isinstance(m, ModelResponse) for m in messages) + 1}')
        results = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
        if not results:
            delete = ToolCallPart('delete_file', {'path': 'notes.txt'}, tool_call_id='call-1')
            if not parallel:
                return ModelResponse(parts=[delete])
            reads = [ToolCallPart('read_file', {'path': p}, tool_call_id=f'call-{p[0]}') for p in ('a.txt', 'b.txt')]
            return ModelResponse(parts=[*reads, delete])
        return ModelResponse(parts=[TextPart('Done: ' + ', '.join(str(r.content) for r in results))])

    agent = Agent(
        FunctionModel(model),
        name='files',
        deferred_tool_handler=wait_for_deferred_tool_results(timeout, deny_message='Nobody answered in time.'),
    )

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:  # pyright: ignore[reportUnusedFunction]
        """Delete a file."""
        note(f'tool delete_file {path}')
        return f'deleted {path}'

    @agent.tool_plain
    async def read_file(path: str) -> str:  # pyright: ignore[reportUnusedFunction]
        """Read a file."""
        note(f'tool read_file {path}')
        return f'contents of {path}'

    return DBOSAgent(agent, tool_step_config={})


def run(argv: list[str] | None = None) -> None:
    """The worker's entry point, with `argv` as its command line (the process's own when `None`)."""
    asyncio.run(main(argv))


async def main(argv: list[str] | None = None) -> None:
    """Launch DBOS (recovering this executor's workflows), start a run if asked, and wait to be killed."""
    parser = argparse.ArgumentParser()
    parser.add_argument('--db', required=True)
    parser.add_argument('--log', required=True, type=Path)
    parser.add_argument('--executor-id')
    parser.add_argument('--timeout', type=float)
    parser.add_argument('--start')
    parser.add_argument('--parallel', action='store_true')
    args = parser.parse_args(argv)
    config: DBOSConfig = {
        'name': 'durable-tests',
        'system_database_url': args.db,
        'application_version': APP_VERSION,
        'log_level': 'WARNING',
        'notification_listener_polling_interval_sec': 0.05,
    }
    if args.executor_id:
        config['executor_id'] = args.executor_id
    DBOS(config=config)
    agent = build_agent(args.log, args.timeout, parallel=args.parallel)
    DBOS.launch()
    if args.start:
        await agent.start('Delete my notes.', workflow_id=args.start)
    await asyncio.Event().wait()


if __name__ == '__main__':
    run()
