"""The worker threads that sync functions (tools, model functions, handlers) run in, off the event loop.

A sync tool costs one hop to a worker thread and one back per call, which in a loop of short steps is most of
the step. `anyio.to_thread.run_sync` spends an extra trip round the event loop (a checkpoint) and a capacity
limiter on top of the two thread switches; this pool does only the switches. It keeps what callers can see of
anyio's workers: the call runs in a copy of the caller's context, `anyio.from_thread.run(...)` works inside it,
at most `MAX_WORKERS` calls run at once (anyio's default limit), an anyio cancellation waits for the call to
return (a thread can't be interrupted) and then lands at the caller's next checkpoint, and the interpreter's exit
waits for a call still running.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import sys
import threading
import weakref
from collections import deque
from collections.abc import Callable
from functools import partial
from queue import Empty, SimpleQueue
from typing import Any, TypeVar

import anyio
import anyio.lowlevel

try:
    # Where anyio keeps the token that `anyio.from_thread` finds the event loop by; set in our workers too, so
    # a sync tool can call back into the loop as it can in anyio's own workers.
    from anyio._core._eventloop import threadlocals as _anyio_threadlocals
except ImportError:  # pragma: no cover - a future anyio may move it; `from_thread` then needs a token
    _anyio_threadlocals = threading.local()

__all__ = ('MAX_WORKERS', 'in_anyio_cancel_scope', 'run_in_worker')

R = TypeVar('R')

MAX_WORKERS = 40
"""How many calls run at once; more wait their turn (as with anyio's default thread limiter)."""

IDLE_SECONDS = 10.0
"""How long a worker waits for a call before its thread ends."""

_Reply = Callable[['asyncio.Future[Any]', Any, 'BaseException | None'], None]
"""How a worker hands a call's outcome back to the caller's loop (see `_replier`); callable from any thread."""

_Job = tuple[_Reply, 'asyncio.Future[Any]', contextvars.Context, Callable[[], Any], Any]
"""A call for a worker: how to reply, the caller's future, the context to run in, the function, anyio's token."""


class _Pool:
    """Worker threads taking calls from one queue; a thread is started when a call finds none idle.

    `running` counts the calls holding one of the `MAX_WORKERS` slots; calls beyond wait in `waiting`, each as a
    future on its own event loop. Both are shared by every event loop of the process, so they change under
    `lock` only.
    """

    def __init__(self) -> None:
        self.jobs: SimpleQueue[_Job | None] = SimpleQueue()
        self.lock = threading.Lock()
        self.threads = 0
        self.idle = 0
        self.running = 0
        self.closed = False
        self.waiting: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = deque()

    def slot(self, loop: asyncio.AbstractEventLoop) -> asyncio.Future[None] | None:
        """Take a slot, or return the future to await for one."""
        with self.lock:
            if self.running < MAX_WORKERS:
                self.running += 1
                return None
            ready = loop.create_future()
            self.waiting.append((loop, ready))
            return ready

    def release(self) -> None:
        """Give a slot back, or hand it to the first waiting call whose loop still runs."""
        while True:
            with self.lock:
                if not self.waiting:
                    self.running -= 1
                    return
                loop, ready = self.waiting.popleft()
            try:
                loop.call_soon_threadsafe(self._hand_over, ready)
            except RuntimeError:  # pragma: no cover - that caller's loop was closed while it waited
                continue
            return

    def _hand_over(self, ready: asyncio.Future[None]) -> None:
        if ready.done():
            # That call was cancelled while it waited: the slot goes on.
            self.release()
        else:
            ready.set_result(None)

    def submit(self, job: _Job) -> None:
        """Queue a call, starting a thread for it if none is idle.

        Raises:
            RuntimeError: If the interpreter is shutting down.
        """
        with self.lock:
            if self.closed:
                raise RuntimeError('Cannot run a sync function in a worker thread after interpreter shutdown.')
            start_thread = self.idle == 0
            if start_thread:
                self.threads += 1
            else:
                self.idle -= 1
        if start_thread:
            try:
                threading.Thread(target=self._work, name='pydantic-ai-worker', daemon=not _JOINED_AT_EXIT).start()
            except BaseException:  # pragma: no cover - the system refused a new thread
                with self.lock:
                    self.threads -= 1
                raise
        self.jobs.put(job)

    def close(self) -> None:
        """Let every thread end once it has finished its call (the interpreter is exiting)."""
        with self.lock:
            self.closed = True
            threads = self.threads
        for _ in range(threads):
            self.jobs.put(None)

    def _work(self) -> None:
        jobs = self.jobs
        # `anyio.from_thread.check_cancelled()` finds no cancel scope to check here (the call can't be cancelled).
        _anyio_threadlocals.current_cancel_scope = None
        while True:
            try:
                job = jobs.get(timeout=IDLE_SECONDS)
            except Empty:
                with self.lock:
                    if self.idle == 0:
                        # A call was handed to this thread just as it timed out: take it.
                        continue
                    self.idle -= 1
                    self.threads -= 1
                return
            if job is None:
                # The interpreter is exiting (see `close`); this thread had finished its calls.
                with self.lock:
                    self.idle -= 1
                    self.threads -= 1
                return
            reply, future, context, func, token = job
            _anyio_threadlocals.current_token = token
            result: Any = None
            error: BaseException | None = None
            try:
                # A call whose caller stopped waiting before it started (a native cancellation) is not made.
                if not future.cancelled():
                    result = context.run(func)
            except BaseException as e:
                error = e
            del _anyio_threadlocals.current_token, context, func, token
            with self.lock:
                self.idle += 1
            self.release()
            try:
                reply(future, result, error)
            except RuntimeError:  # pragma: no cover - the loop was closed while the call ran; nobody waits
                pass
            # Drop the references now, not when the next call arrives.
            del job, reply, future, result, error


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if isinstance(error, StopIteration):
        # A future can't hold `StopIteration`; wrapped as anyio's workers wrap it (upstream's error, word for word).
        wrapped = RuntimeError('coroutine raised StopIteration')
        wrapped.__cause__ = error
        error = wrapped
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class _Waker:
    """Hands the outcomes of calls back to one event loop: queued, with the loop woken through an eventfd.

    What `loop.call_soon_threadsafe` does, for less: asyncio's own wake-up reads its socket until it would block
    (a second system call and an exception each time) and its write is a socket send. Outcomes that arrive
    together are settled in one wake-up.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.done: deque[tuple[asyncio.Future[Any], Any, BaseException | None]] = deque()
        self.fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        try:
            loop.add_reader(self.fd, self.drain)
        except BaseException:
            os.close(self.fd)
            raise
        # The descriptor lives as long as the loop object: a call finishing after the loop closed still has it.
        weakref.finalize(loop, os.close, self.fd)

    def reply(self, future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
        """Queue a call's outcome and wake the loop (from a worker thread)."""
        self.done.append((future, result, error))
        os.eventfd_write(self.fd, 1)

    def drain(self) -> None:
        """Settle every queued outcome (in the loop)."""
        try:
            os.eventfd_read(self.fd)
        except BlockingIOError:  # pragma: no cover - an earlier drain took this wake-up's outcome already
            pass
        done = self.done
        while done:
            _settle(*done.popleft())


_wakers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Waker | None] = weakref.WeakKeyDictionary()
"""The waker of each loop that has handed out a call; `None` for a loop that can't have one."""


def _replier(loop: asyncio.AbstractEventLoop) -> _Reply:
    """How workers hand outcomes back to `loop`.

    Through its `_Waker` where the loop can watch an eventfd (Linux selector loops, uvloop), else with
    `call_soon_threadsafe`.
    """
    try:
        waker = _wakers[loop]
    except KeyError:
        try:
            waker = _Waker(loop)
        except (AttributeError, NotImplementedError, OSError):  # no eventfd here, or a loop that can't watch one
            waker = None
        _wakers[loop] = waker
    if waker is None:
        return partial(_call_soon_threadsafe, loop)
    return waker.reply


def _call_soon_threadsafe(
    loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], result: Any, error: BaseException | None
) -> None:
    loop.call_soon_threadsafe(_settle, future, result, error)


_pool = _Pool()
# anyio's token for the loop that last handed out a call (a token refers to its loop, so one is kept, not many).
_last_token: tuple[asyncio.AbstractEventLoop, Any] | None = None


def _reset_after_fork() -> None:  # pragma: no cover - runs in forked children, which coverage does not follow
    # The threads are gone in a forked child, and with them the slots they held.
    global _pool
    _pool = _Pool()
    _wakers.clear()


os.register_at_fork(after_in_child=_reset_after_fork)


def _close_at_exit() -> None:
    _pool.close()


def _join_at_exit() -> bool:
    """Have the interpreter let workers finish their calls as it exits; whether it can (else they are daemons)."""
    try:
        # Called as the interpreter exits, before it joins the threads that are not daemons: idle workers end
        # then, and one still running a call finishes it first (as anyio's workers do) rather than being cut off.
        register = threading._register_atexit  # pyright: ignore[reportAttributeAccessIssue,reportUnknownMemberType,reportUnknownVariableType]
    except AttributeError:  # pragma: no cover - an interpreter without the hook
        return False
    register(_close_at_exit)
    return True


_JOINED_AT_EXIT = _join_at_exit()


def _token(loop: asyncio.AbstractEventLoop) -> Any:
    global _last_token
    last = _last_token
    if last is not None and last[0] is loop:
        return last[1]
    token = anyio.lowlevel.current_token()
    _last_token = (loop, token)
    return token


async def run_in_worker(func: Callable[[], R]) -> R:
    """Call `func` in a worker thread, in a copy of the current context, and return what it returns.

    An anyio cancellation (a cancel scope) waits for the call to return and then reaches the caller at its next
    checkpoint; a native `task.cancel()` stops waiting at once and lets the call finish unseen, as anyio does.
    """
    loop = asyncio.get_running_loop()
    pool = _pool
    ready = pool.slot(loop)
    if ready is not None:
        try:
            await ready
        except asyncio.CancelledError:
            if ready.done() and not ready.cancelled():
                # The slot was handed over just as the wait was cancelled: give it back.
                pool.release()
            raise
    future: asyncio.Future[R] = loop.create_future()
    try:
        pool.submit((_replier(loop), future, contextvars.copy_context(), func, _token(loop)))
    except BaseException:
        pool.release()
        raise
    if in_anyio_cancel_scope():
        with anyio.CancelScope(shield=True):
            await future
    else:
        # No anyio cancel scope covers this task, so only a native cancellation can reach the wait.
        await future
    return future.result()


def in_anyio_cancel_scope() -> bool:
    """Whether the current task is inside an anyio cancel scope (its own or one its task group put it in).

    A task outside every scope can't be cancelled by anyio, so it needs neither a shield nor anyio's cancellation
    checks, which cost more than the rest of a hop to a worker. anyio keeps the scope of each task in its asyncio
    backend; while that isn't loaded no scope exists, and if its bookkeeping ever changes the answer is yes.
    """
    backend = sys.modules.get('anyio._backends._asyncio')
    if backend is None:
        return False
    task_states = getattr(backend, '_task_states', None)
    if task_states is None:  # pragma: no cover - an anyio that keeps its scopes elsewhere
        return True
    state = task_states.get(asyncio.current_task())
    return state is not None and getattr(state, 'cancel_scope', True) is not None
