"""MCP servers for the tests: ours (`server.py`, on the `mcp` SDK) and the npm reference filesystem server."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio

HERE = Path(__file__).parent
SERVER = str(HERE / 'server.py')
"""Our test server; run it with `sys.executable`."""
FILESYSTEM_SERVER = str(HERE / 'node_modules' / '@modelcontextprotocol' / 'server-filesystem' / 'dist' / 'index.js')
"""The reference filesystem server's entry point (installed by `make mcp-servers`); run it with `node`."""


def new_tag() -> str:
    """A unique `--tag=...` argument to find a server process by."""
    return f'--tag={uuid.uuid4().hex}'


def processes_with(tag: str) -> list[int]:
    """The pids of live processes whose command line contains `tag` (zombies have an empty command line)."""
    pids: list[int] = []
    for entry in Path('/proc').iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / 'cmdline').read_bytes()
        except OSError:
            continue
        if tag.encode() in cmdline:
            pids.append(int(entry.name))
    return pids


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


@contextmanager
def http_server(transport: str) -> Iterator[str]:
    """Run our server over `'streamable-http'` or `'sse'` on a free port; yields its URL."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, SERVER, transport, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(('127.0.0.1', port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:  # pragma: no cover
                    raise RuntimeError(f'The MCP test server did not start on port {port}.') from None
                time.sleep(0.05)
        yield f'http://127.0.0.1:{port}/{"mcp" if transport == "streamable-http" else "sse"}'
    finally:
        proc.terminate()
        proc.wait(10)


async def eventually(check: Callable[[], Awaitable[bool]], seconds: float = 10) -> None:
    """Wait until `check()` is true, polling, for at most `seconds`.

    Raises:
        TimeoutError: If it is still false after `seconds`.
    """
    for _ in range(int(seconds / 0.02)):
        if await check():
            return
        await anyio.sleep(0.02)
    raise TimeoutError(f'Still false after {seconds} seconds.')  # pragma: no cover
