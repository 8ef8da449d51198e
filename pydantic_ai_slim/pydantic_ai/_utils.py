"""Small helpers shared by the engine modules."""

from __future__ import annotations

import asyncio
import atexit
import contextvars
import functools
import inspect
import signal
import socket
import threading
import uuid
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager, suppress
from dataclasses import MISSING, fields, is_dataclass
from datetime import UTC, datetime
from typing import Any, ParamSpec, TypeAlias, TypeGuard, TypeVar

from ._worker_threads import run_in_worker

__all__ = ()

P = ParamSpec('P')
R = TypeVar('R')

ObjectJsonSchema: TypeAlias = dict[str, Any]
"""A JSON schema of an object: `{'type': 'object', 'properties': {...}, ...}`."""


def now_utc() -> datetime:
    """The current time, timezone-aware in UTC."""
    return datetime.now(tz=UTC)


def generate_tool_call_id() -> str:
    """A fresh tool call id, `'pyd_ai_' + uuid4().hex`."""
    return f'pyd_ai_{uuid.uuid4().hex}'


def generate_run_id() -> str:
    """A fresh run id (a UUID string)."""
    return str(uuid.uuid4())


def dataclasses_no_defaults_repr(self: Any) -> str:
    """A dataclass `__repr__` that leaves out the fields still holding their plain default."""
    assert is_dataclass(self)
    args = ', '.join(
        f'{f.name}={getattr(self, f.name)!r}'
        for f in fields(self)
        if f.repr and (f.default is MISSING or getattr(self, f.name) != f.default)
    )
    return f'{type(self).__qualname__}({args})'


def is_async_callable(obj: Any) -> bool:
    """Whether calling `obj` returns an awaitable coroutine (functions, partials and callable objects)."""
    while isinstance(obj, functools.partial):
        obj = obj.func
    if inspect.iscoroutinefunction(obj):
        return True
    return callable(obj) and not inspect.isroutine(obj) and inspect.iscoroutinefunction(type(obj).__call__)


async def run_in_executor(func: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Run a sync function in a worker thread so it does not block the event loop."""
    return await run_in_worker(functools.partial(func, *args, **kwargs))


async def call_maybe_async(func: Callable[..., Any], *args: Any) -> Any:
    """Await `func(*args)` if it is async, else run it in a worker thread."""
    if is_async_callable(func):
        return await func(*args)
    return await run_in_executor(func, *args)


def is_set(value: Any) -> TypeGuard[Any]:
    """Whether a sentinel-defaulted value was given."""
    return value is not Unset


class _UnsetType:
    def __repr__(self) -> str:
        # Shown in signatures, e.g. `help(agent.override)`, like upstream's sentinel.
        return '<Unset>'


Unset: Any = _UnsetType()
"""Sentinel for 'not given' where `None` is a meaningful value."""

UnsetType = _UnsetType
"""The type of `Unset`, for annotations of sentinel-defaulted parameters."""


_thread_loops = threading.local()


def run_sync(coro: Coroutine[Any, Any, R]) -> R:
    """Run a coroutine on this thread's event loop, made on first use and closed at exit.

    Raises:
        RuntimeError: If called from a running event loop, as upstream's `run_sync` does.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        coro.close()
        raise RuntimeError('This event loop is already running')
    runner: asyncio.Runner | None = getattr(_thread_loops, 'runner', None)
    if runner is None:
        runner = asyncio.Runner()
        _thread_loops.runner = runner
        atexit.register(runner.close)
    # Each call runs in a copy of the caller's current context, so `override()` and other context variables
    # set after the loop was made are seen.
    with _signals_wake(runner.get_loop()):
        return runner.run(coro, context=contextvars.copy_context())


@contextmanager
def _signals_wake(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """Within the block, a signal (Ctrl-C) wakes `loop` from its wait, so that its Python handler runs at once.

    `asyncio.Runner` cancels the run from a SIGINT handler, which Python runs on the main thread when it next
    executes bytecode. A signal that lands just before the loop goes to sleep (e.g. one sent by a sync handler the
    moment it starts in its worker thread) would otherwise wait until something else woke the loop. Nothing is
    changed if a wakeup fd is set already (e.g. by `loop.add_signal_handler`), or off the main thread.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wake: socket.socket | None = getattr(_thread_loops, 'wake', None)
    if wake is None:
        read, wake = socket.socketpair()
        read.setblocking(False)
        wake.setblocking(False)
        # The bytes only wake the loop; the handler that matters is the signal's own.
        loop.add_reader(read, _drain, read)
        _thread_loops.wake = wake
    previous = signal.set_wakeup_fd(wake.fileno(), warn_on_full_buffer=False)
    if previous != -1:
        signal.set_wakeup_fd(previous)
        yield
        return
    try:
        yield
    finally:
        current = signal.set_wakeup_fd(-1)
        if current != wake.fileno():
            # Something in the run set its own (e.g. `loop.add_signal_handler`): it stays.
            signal.set_wakeup_fd(current)


def _drain(sock: socket.socket) -> None:
    with suppress(OSError):
        while sock.recv(4096):
            pass
