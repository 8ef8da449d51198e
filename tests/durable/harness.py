"""Start, kill and restart worker processes, and wait for what they do."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from pydantic_ai.durable_exec import PendingDeferredToolRequests
from pydantic_ai.durable_exec.dbos import DBOSApprovalClient

ROOT = Path(__file__).parents[2]
T = TypeVar('T')


@dataclass
class Workers:
    """The worker processes of one test, all on the same system database; killed when the test ends."""

    db: str
    log: Path
    timeout: float | None = None
    parallel: bool = False
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list[subprocess.Popen[bytes]])

    def start(self, *, start: str | None = None, executor_id: str | None = None) -> subprocess.Popen[bytes]:
        """Start a worker (starting workflow `start` if given)."""
        command = [sys.executable, '-m', 'tests.durable.worker', '--db', self.db, '--log', str(self.log)]
        if self.timeout is not None:
            command += ['--timeout', str(self.timeout)]
        if self.parallel:
            command.append('--parallel')
        if start is not None:
            command += ['--start', start]
        if executor_id is not None:
            command += ['--executor-id', executor_id]
        process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, 'PYTHONPATH': str(ROOT)})
        self.processes.append(process)
        return process

    def kill(self, process: subprocess.Popen[bytes]) -> None:
        """`kill -9` the worker and reap it."""
        os.kill(process.pid, signal.SIGKILL)
        process.wait()

    def close(self) -> None:
        """Kill every worker still running."""
        for process in self.processes:
            if process.poll() is None:
                self.kill(process)

    def calls(self) -> list[str]:
        """The call log so far."""
        return self.log.read_text().splitlines() if self.log.exists() else []


async def eventually(probe: Callable[[], Awaitable[T | None]], *, within: float = 30.0) -> T:
    """Poll `probe` until it returns something other than `None`."""
    deadline = time.monotonic() + within
    while True:
        value = await probe()
        if value is not None:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f'Nothing came of {probe} within {within} s.')
        await asyncio.sleep(0.05)


async def wait_pending(client: DBOSApprovalClient, workflow_id: str) -> PendingDeferredToolRequests:
    """The workflow's pending request, once it is published."""
    return await eventually(lambda: client.pending(workflow_id))
