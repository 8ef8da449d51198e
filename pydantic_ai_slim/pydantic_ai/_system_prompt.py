"""Runners for system prompt and instructions functions, with or without the run context."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Generic, cast

from . import _utils
from ._run_context import AgentDepsT, RunContext

__all__ = ('SystemPromptRunner',)


@dataclass
class SystemPromptRunner(Generic[AgentDepsT]):
    """Calls a prompt function, passing the run context if its first parameter wants it."""

    function: Callable[..., str | Awaitable[str] | None]
    """The function."""
    dynamic: bool = False
    """Whether the prompt is re-evaluated when the conversation continues from a history."""
    _takes_ctx: bool = field(init=False)
    _is_async: bool = field(init=False)

    def __post_init__(self) -> None:
        self._takes_ctx = len(inspect.signature(self.function).parameters) > 0
        self._is_async = _utils.is_async_callable(self.function)

    async def run(self, run_context: RunContext[AgentDepsT]) -> str | None:
        """Produce the prompt text."""
        args: tuple[Any, ...] = (run_context,) if self._takes_ctx else ()
        if self._is_async:
            return await cast(Callable[..., Awaitable[str | None]], self.function)(*args)
        return await _utils.run_in_executor(cast(Callable[..., str | None], self.function), *args)
