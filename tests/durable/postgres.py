"""A throwaway PostgreSQL server for the durable tests and benchmarks, from Debian's `postgresql` package.

`make test` installs the package if it is missing (`make pg-deps`). The server lives in a temporary directory,
listens on 127.0.0.1 on a free port, trusts local connections, and is stopped and deleted afterwards.
PostgreSQL refuses to run as root, so as root it runs as the `postgres` user the package creates.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ('postgres_server',)


def _bin_dir() -> Path:
    found = shutil.which('initdb')
    if found is not None:
        return Path(found).resolve().parent
    versions = sorted(Path('/usr/lib/postgresql').glob('*/bin/initdb'))
    assert versions, "PostgreSQL's server programs are not installed: run `make pg-deps`."
    return versions[-1].parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


@contextmanager
def postgres_server(database: str = 'dbos_tests') -> Iterator[str]:
    """Start a server and yield the URL of `database` on it (DBOS makes the database on first use)."""
    bin_dir = _bin_dir()
    as_user = ['runuser', '-u', 'postgres', '--'] if os.getuid() == 0 else []
    base = Path(tempfile.mkdtemp(prefix='pydantic-ai-pg-'))
    if as_user:
        shutil.chown(base, 'postgres')
    data, port = base / 'data', _free_port()

    def pg(*args: str) -> None:
        subprocess.run([*as_user, *args], check=True, capture_output=True)

    pg(str(bin_dir / 'initdb'), '-D', str(data), '-U', 'postgres', '--auth=trust', '-E', 'UTF8')
    options = f'-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off'
    pg(str(bin_dir / 'pg_ctl'), '-D', str(data), '-l', str(base / 'log'), '-o', options, '-w', 'start')
    try:
        yield f'postgresql://postgres@127.0.0.1:{port}/{database}'
    finally:
        pg(str(bin_dir / 'pg_ctl'), '-D', str(data), '-m', 'immediate', '-w', 'stop')
        shutil.rmtree(base, ignore_errors=True)
