"""Small helpers shared by the engine modules."""

from __future__ import annotations

import asyncio
import atexit
import contextvars
import functools
import inspect
import threading
import uuid
from collections.abc import Callable, Coroutine
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
    return runner.run(coro, context=contextvars.copy_context())
