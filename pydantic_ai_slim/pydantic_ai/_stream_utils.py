"""Helpers for streamed results: grouping stream items by time, and driving async iterators from sync code."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Callable, Coroutine, Iterator
from typing import Any, TypeVar

__all__ = ('group_by_temporal', 'sync_iterator')

T = TypeVar('T')


async def group_by_temporal(items: AsyncIterable[T], soft_max_interval: float | None) -> AsyncGenerator[list[T], None]:
    """Group the items of a stream by time: a group starts with an item and closes `soft_max_interval` later.

    The items that arrive while a group is open are yielded with it, so a consumer that redraws on every group
    redraws at most once per interval; a group is yielded as soon as its interval is over, even if the stream is
    quiet. With `soft_max_interval=None`, every item is a group of its own.
    """
    iterator = aiter(items)
    if soft_max_interval is None:
        async for item in iterator:
            yield [item]
        return
    loop = asyncio.get_running_loop()
    # The next item is awaited in a task of its own, so that waiting for it can time out without cancelling the
    # stream it comes from.
    pending: asyncio.Future[T] | None = None
    group: list[T] = []
    deadline: float | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(anext(iterator))
            timeout = None if deadline is None else max(deadline - loop.time(), 0)
            done, _ = await asyncio.wait((pending,), timeout=timeout)
            if not done:
                yield group
                group, deadline = [], None
                continue
            try:
                item = pending.result()
            except StopAsyncIteration:
                pending = None
                break
            pending = None
            group.append(item)
            if deadline is None:
                deadline = loop.time() + soft_max_interval
        if group:
            yield group
    finally:
        if pending is not None:
            pending.cancel()
            # Wait for the cancellation, so that no task is left running once the grouping is closed.
            await asyncio.wait((pending,))


def sync_iterator(items: AsyncIterator[T], run: Callable[[Coroutine[Any, Any, Any]], Any]) -> Iterator[T]:
    """Iterate over an async iterator from sync code, each step run to completion by `run` on an event loop."""

    async def step() -> T | _End:
        try:
            return await anext(items)
        except StopAsyncIteration:
            return _END

    while not isinstance(item := run(step()), _End):
        yield item


class _End:
    """The end of an iteration, as a value: a coroutine run by an event loop cannot raise `StopAsyncIteration`."""


_END = _End()
