"""Start, kill and restart worker processes, and wait for what they do."""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.context
import os
import signal
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cache
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TypeVar

from pydantic_ai.durable_exec import PendingDeferredToolRequests
from pydantic_ai.durable_exec.dbos import DBOSApprovalClient

from . import worker

ROOT = Path(__file__).parents[2]
T = TypeVar('T')


@dataclass
class Workers:
    """The worker processes of one test, all on the same system database; killed when the test ends."""

    db: str
    log: Path
    timeout: float | None = None
    parallel: bool = False
    processes: list[BaseProcess] = field(default_factory=list[BaseProcess])

    def start(self, *, start: str | None = None, executor_id: str | None = None) -> BaseProcess:
        """Start a worker (starting workflow `start` if given)."""
        command = ['--db', self.db, '--log', str(self.log)]
        if self.timeout is not None:
            command += ['--timeout', str(self.timeout)]
        if self.parallel:
            command.append('--parallel')
        if start is not None:
            command += ['--start', start]
        if executor_id is not None:
            command += ['--executor-id', executor_id]
        process = _context().Process(target=worker.run, args=(command,))
        process.start()
        self.processes.append(process)
        return process

    def kill(self, process: BaseProcess) -> None:
        """`kill -9` the worker and reap it."""
        assert process.pid is not None
        os.kill(process.pid, signal.SIGKILL)
        process.join()

    def close(self) -> None:
        """Kill every worker still running."""
        for process in self.processes:
            if process.is_alive():
                self.kill(process)

    def calls(self) -> list[str]:
        """The call log so far."""
        return self.log.read_text().splitlines() if self.log.exists() else []


@cache
def _context() -> multiprocessing.context.ForkServerContext:
    # The fork server imports DBOS, the package and the worker once; each worker is then a fork of it.
    context = multiprocessing.get_context('forkserver')
    context.set_forkserver_preload(['tests.durable.worker'])
    return context


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
