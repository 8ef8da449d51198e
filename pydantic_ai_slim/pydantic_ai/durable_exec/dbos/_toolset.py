"""Function tool calls as DBOS steps (`DBOSAgent(tool_step_config=...)`).

A tool call that completed is recorded with its result, so a recovered workflow does not run it again: an
approved `delete_file` that ran just before a crash is not run twice. Control-flow signals a tool raises
(`ModelRetry`, `ApprovalRequired`, `CallDeferred`) are recorded as what the step returned, not as failures,
so they are never retried and are raised again, the same, on replay.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from dbos import DBOS

from ..._run_context import AgentDepsT, RunContext
from ...exceptions import ApprovalRequired, CallDeferred, ModelRetry
from ...toolsets.abstract import ToolsetTool
from ...toolsets.wrapper import WrapperToolset
from ._utils import StepConfig, step_options

__all__ = ('DBOSFunctionToolset',)

_Signal = ModelRetry | ApprovalRequired | CallDeferred
_ToolStep = Callable[[str, dict[str, Any], RunContext[Any], ToolsetTool[Any]], Awaitable[tuple[bool, Any]]]


@dataclass
class _Raised:
    """A control-flow signal the tool raised, as the step's recorded outcome."""

    signal: _Signal


@dataclass
class DBOSFunctionToolset(WrapperToolset[AgentDepsT]):
    """Runs each call of the wrapped toolset's tools in a step named `'{step_name_prefix}__tool.{tool_name}'`."""

    step_name_prefix: str = field(kw_only=True)
    """The agent's name."""
    step_config: StepConfig = field(kw_only=True)
    """The steps' retry options."""
    _steps: dict[str, _ToolStep] = field(default_factory=dict[str, _ToolStep], init=False, repr=False)

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Call the tool in its step (outside a workflow: call it)."""
        outcome = await self._step(name)(name, tool_args, ctx, tool)
        if isinstance(outcome, _Raised):
            raise outcome.signal
        return outcome

    def _step(self, name: str) -> _ToolStep:
        # One step function per tool name, made on first use: DBOS names steps when they are decorated.
        step = self._steps.get(name)
        if step is None:

            async def call(name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]) -> Any:
                try:
                    return await self.wrapped.call_tool(name, tool_args, ctx, tool)
                except (ModelRetry, ApprovalRequired, CallDeferred) as e:
                    return _Raised(e)

            step = DBOS.step(name=f'{self.step_name_prefix}__tool.{name}', **step_options(self.step_config))(call)
            self._steps[name] = step
        return step
