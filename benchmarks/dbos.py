"""What durable execution on DBOS costs per agent step, and how long a restarted worker takes to finish a run.

`python -m benchmarks.dbos` (also run by `make bench`). Per step is one model request (a `FunctionModel`) and
one trivial tool call, measured for a plain `Agent`, a `DBOSAgent` (model requests are steps) and a `DBOSAgent`
with `tool_step_config={}` (tool calls are steps too), on SQLite and on a throwaway PostgreSQL server. Each
database is measured in a child process, since DBOS is one instance per process.

Recovery: a worker waiting for an approval is killed (`kill -9`), the approval is sent while no worker runs,
and a new worker is started (forked from a process that has the imports done); the time from starting it to the
finished run is `DBOS.launch()`, recovery, the replay and the rest of the run. A real restart adds the
interpreter start and the imports, printed separately. Timings are printed, never asserted.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dbos import DBOS, DBOSClient, WorkflowHandleAsync
from pydantic_ai import Agent, DeferredToolResults
from pydantic_ai.durable_exec.dbos import DBOSAgent, DBOSApprovalClient
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.run import AgentRunResult
from pydantic_ai.usage import RequestUsage, UsageLimits

__all__ = ('main',)

STEPS = 50
SAMPLES = 5


def _agent(name: str) -> Agent[None, str]:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = (len(messages) - 1) // 2
        usage = RequestUsage(input_tokens=1, output_tokens=1)
        if done + 1 >= STEPS:
            return ModelResponse(parts=[TextPart('done')], usage=usage)
        return ModelResponse(parts=[ToolCallPart('step', {'n': done}, f'call_{done}')], usage=usage)

    agent = Agent(FunctionModel(respond), name=name)

    @agent.tool_plain
    def step(n: int) -> int:  # pyright: ignore[reportUnusedFunction] -- registered by the decorator
        return n + 1

    return agent


async def _per_step_us(agent: Agent[None, str] | DBOSAgent[None, str]) -> float:
    limits = UsageLimits(request_limit=None)
    await agent.run('go', usage_limits=limits)  # warm up
    results: list[float] = []
    for _ in range(SAMPLES):
        start = time.perf_counter()
        await agent.run('go', usage_limits=limits)
        results.append((time.perf_counter() - start) / STEPS * 1e6)
    return statistics.median(results)


def measure_steps(db: str) -> None:
    """In this process: per-step time of the three agents on the system database `db`, one line each."""
    plain = _agent('plain')
    model_steps = DBOSAgent(_agent('model_steps'))
    all_steps = DBOSAgent(_agent('all_steps'), tool_step_config={})
    DBOS(config={'name': 'dbos-bench', 'system_database_url': db, 'log_level': 'WARNING'})
    DBOS.launch()
    try:
        for label, agent in [('plain Agent', plain), ('DBOSAgent', model_steps), ('+ tool steps', all_steps)]:
            print(f'    {label:<13} {asyncio.run(_per_step_us(agent)):9.0f} us/step')
    finally:
        DBOS.destroy()


async def _recovery_seconds(db: str, log: Path) -> float:
    from tests.durable.harness import Workers, wait_pending

    workers = Workers(db, log)
    approvals = DBOSApprovalClient(db)
    client = DBOSClient(system_database_url=db)
    try:
        worker = workers.start(start='bench-recovery')
        pending = await wait_pending(approvals, 'bench-recovery')
        workers.kill(worker)
        results = DeferredToolResults(approvals={'call-1': True})
        await approvals.submit('bench-recovery', results, request_id=pending.request_id)
        start = time.perf_counter()
        workers.start()
        handle: WorkflowHandleAsync[AgentRunResult[str]] = await client.retrieve_workflow_async('bench-recovery')
        await handle.get_result(polling_interval_sec=0.01)
        return time.perf_counter() - start
    finally:
        workers.close()
        approvals.close()
        client.destroy()


def _child(db: str) -> None:
    subprocess.run([sys.executable, '-m', 'benchmarks.dbos', '--steps', db], check=True)


def main() -> None:
    """Print the per-step overhead on SQLite and PostgreSQL, and the recovery time on SQLite."""
    from tests.durable.postgres import postgres_server

    print(f'DBOS durable execution, {STEPS}-step run (one model request and one tool call per step, median of 5):')
    with tempfile.TemporaryDirectory() as tmp:
        print('  SQLite (a file):')
        _child(f'sqlite:///{Path(tmp) / "bench.sqlite"}')
        with postgres_server('dbos_bench') as url:
            print('  PostgreSQL (local server, fsync off):')
            _child(url)
        seconds = asyncio.run(_recovery_seconds(f'sqlite:///{Path(tmp) / "recovery.sqlite"}', Path(tmp) / 'log'))
        print(f'  recovery on SQLite, from starting the new worker to the finished run: {seconds * 1e3:.0f} ms')
        print(f'  plus, in a real restart, the interpreter start and imports: {_cold_start_ms():.0f} ms')


def _cold_start_ms(samples: int = 3) -> float:
    best = float('inf')
    for _ in range(samples):
        start = time.perf_counter()
        subprocess.run([sys.executable, '-c', 'import pydantic_ai.durable_exec.dbos'], check=True)
        best = min(best, time.perf_counter() - start)
    return best * 1e3


if __name__ == '__main__':
    if sys.argv[1:2] == ['--steps']:
        measure_steps(sys.argv[2])
    else:
        main()
