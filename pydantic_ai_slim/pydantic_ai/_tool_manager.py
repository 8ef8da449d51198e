"""The tool manager: lists a step's tools, validates arguments, calls tools and counts their retries."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeAlias

from pydantic import ValidationError

from ._errors import ToolRetryError
from ._run_context import AgentDepsT, RunContext, evolve
from .exceptions import ModelRetry, UnexpectedModelBehavior
from .messages import RetryPromptPart, ToolCallPart
from .tools import DeferredToolResults, ToolDefinition
from .toolsets.abstract import AbstractToolset, ToolsetTool

__all__ = ('ParallelExecutionMode', 'ToolManager', 'parallel_execution_mode')

ParallelExecutionMode: TypeAlias = Literal['parallel', 'sequential', 'parallel_ordered_events']
"""How the tool calls of one response run: concurrently with events as they complete, one at a time in order, or
concurrently with their events in call order once all are done."""

_parallel_execution_mode: ContextVar[ParallelExecutionMode] = ContextVar('_parallel_execution_mode', default='parallel')


@contextmanager
def parallel_execution_mode(mode: ParallelExecutionMode) -> Iterator[None]:
    """Within the block, tool calls run as `mode` says."""
    token = _parallel_execution_mode.set(mode)
    try:
        yield
    finally:
        _parallel_execution_mode.reset(token)


def current_parallel_execution_mode() -> ParallelExecutionMode:
    """The mode set by the innermost `parallel_execution_mode` block, `'parallel'` outside any."""
    return _parallel_execution_mode.get()


@dataclass
class ToolManager(Generic[AgentDepsT]):
    """The tools of one run step, and the retry bookkeeping across steps."""

    toolset: AbstractToolset[AgentDepsT]
    """All tools of the run: function tools, user toolsets and output tools."""
    ctx: RunContext[AgentDepsT] | None = None
    """The context of the current step."""
    tools: dict[str, ToolsetTool[AgentDepsT]] = field(default_factory=dict[str, ToolsetTool[AgentDepsT]])
    """The tools of the current step, by name."""
    failed_tools: set[str] = field(default_factory=set[str])
    """Tools whose calls failed in the current step; their retry count carries into the next step."""
    default_max_retries: int = 1
    """The retry limit of calls to tools that do not exist: the agent's `retries`."""

    async def for_run_step(self, ctx: RunContext[AgentDepsT]) -> ToolManager[AgentDepsT]:
        """A manager for the step of `ctx`: retries carried over for tools that failed in the last step."""
        if self.ctx is not None:
            if self.ctx.run_step == ctx.run_step:
                return self
            retries = {name: self.ctx.retries.get(name, 0) + 1 for name in self.failed_tools}
            ctx = evolve(ctx, retries=retries)
        tools = await self.toolset.get_tools(ctx)
        return ToolManager(self.toolset, ctx, tools, default_max_retries=self.default_max_retries)

    @property
    def tool_defs(self) -> list[ToolDefinition]:
        """The definitions of the step's tools."""
        return [tool.tool_def for tool in self.tools.values()]

    def get_tool_def(self, name: str) -> ToolDefinition | None:
        """The definition of a tool of this step, or `None` if there is no such tool."""
        tool = self.tools.get(name)
        return tool.tool_def if tool is not None else None

    def unknown_tool_retry(self, call: ToolCallPart) -> RetryPromptPart:
        """The retry prompt for a call of a tool that does not exist, counted as a retry of that name.

        Raises:
            UnexpectedModelBehavior: If calls of that name have used up `default_max_retries`.
        """
        assert self.ctx is not None, 'the tool manager must be prepared with `for_run_step` first'
        if self.ctx.retries.get(call.tool_name, 0) >= self.default_max_retries:
            raise UnexpectedModelBehavior(
                f'Tool {call.tool_name!r} exceeded max retries count of {self.default_max_retries}'
            )
        self.failed_tools.add(call.tool_name)
        names = [name for name in self.tools]
        available = f'Available tools: {", ".join(repr(n) for n in names)}' if names else 'No tools available.'
        return RetryPromptPart(
            f'Unknown tool name: {call.tool_name!r}. {available}',
            tool_name=call.tool_name,
            tool_call_id=call.tool_call_id,
        )

    def validate_args(self, call: ToolCallPart, *, allow_partial: bool = False) -> dict[str, Any]:
        """Validate a call's arguments with the tool's validator.

        Raises:
            ToolRetryError: if they do not validate and the tool has retries left.
            UnexpectedModelBehavior: if they do not validate and the retries are used up.
        """
        tool = self.tools[call.tool_name]
        ctx = self._call_ctx(call, tool)
        pyd_allow_partial = 'trailing-strings' if allow_partial else 'off'
        try:
            if isinstance(call.args, str):
                return tool.args_validator.validate_json(
                    call.args or '{}', allow_partial=pyd_allow_partial, context=ctx.validation_context
                )
            return tool.args_validator.validate_python(
                call.args or {}, allow_partial=pyd_allow_partial, context=ctx.validation_context
            )
        except ValidationError as e:
            raise self._retry(call, tool, e.errors(include_url=False, include_context=False), e) from e

    async def call(
        self,
        call: ToolCallPart,
        args: dict[str, Any],
        *,
        approved: bool = False,
        metadata: Any = None,
        context: Any = None,
        deferred_tool_results: DeferredToolResults | None = None,
    ) -> Any:
        """Call a tool with validated arguments; a `ModelRetry` from it becomes a retry (or, past the limit, an error).

        The keyword arguments are what a deferred call is resumed with: they become the tool's
        `ctx.tool_call_approved`, `ctx.tool_call_metadata`, `ctx.tool_call_context` and `ctx.deferred_tool_results`.
        """
        tool = self.tools[call.tool_name]
        ctx = evolve(
            self._call_ctx(call, tool),
            tool_call_approved=approved,
            tool_call_metadata=metadata,
            tool_call_context=context,
            deferred_tool_results=deferred_tool_results,
        )
        try:
            return await self.toolset.call_tool(call.tool_name, args, ctx, tool)
        except ModelRetry as e:
            raise self._retry(call, tool, e.message, e) from e

    async def handle_call(
        self,
        call: ToolCallPart,
        *,
        approved: bool = False,
        metadata: Any = None,
        context: Any = None,
        deferred_tool_results: DeferredToolResults | None = None,
    ) -> Any:
        """Validate a call's arguments, then call the tool (see `call` for the keyword arguments)."""
        args = self.validate_args(call)
        return await self.call(
            call,
            args,
            approved=approved,
            metadata=metadata,
            context=context,
            deferred_tool_results=deferred_tool_results,
        )

    def output_call_ctx(self, call: ToolCallPart) -> RunContext[AgentDepsT]:
        """The context for processing a call of an output tool: its retry count and limit, as for other tools."""
        return self._call_ctx(call, self.tools[call.tool_name])

    def record_failure(self, call: ToolCallPart) -> None:
        """Count a failed call (e.g. of an output tool) towards the tool's retries in the next step."""
        self.failed_tools.add(call.tool_name)

    def _call_ctx(self, call: ToolCallPart, tool: ToolsetTool[AgentDepsT]) -> RunContext[AgentDepsT]:
        assert self.ctx is not None, 'the tool manager must be prepared with `for_run_step` first'
        return evolve(
            self.ctx,
            tool_name=call.tool_name,
            tool_call_id=call.tool_call_id,
            retry=self.ctx.retries.get(call.tool_name, 0),
            max_retries=tool.max_retries,
        )

    def _retry(
        self, call: ToolCallPart, tool: ToolsetTool[AgentDepsT], content: Any, error: Exception
    ) -> ToolRetryError | UnexpectedModelBehavior:
        assert self.ctx is not None
        if self.ctx.retries.get(call.tool_name, 0) >= tool.max_retries:
            return UnexpectedModelBehavior(f'Tool {call.tool_name!r} exceeded max retries count of {tool.max_retries}')
        self.failed_tools.add(call.tool_name)
        return ToolRetryError(RetryPromptPart(content, tool_name=call.tool_name, tool_call_id=call.tool_call_id))
