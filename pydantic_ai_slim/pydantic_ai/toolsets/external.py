"""`ExternalToolset`: tools the model can call whose calls are run outside the agent."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic_core import SchemaValidator, core_schema
from typing_extensions import deprecated

from .._run_context import AgentDepsT, RunContext
from ..tools import ToolDefinition
from .abstract import AbstractToolset, ToolsetTool

__all__ = ('DeferredToolset', 'ExternalToolset')

# The schema of an external tool is enforced by whoever runs it, so the agent passes the arguments on as they are.
_PASSTHROUGH_VALIDATOR = SchemaValidator(core_schema.any_schema())


class ExternalToolset(AbstractToolset[AgentDepsT]):
    """Tools defined by their definitions alone, to be run outside the agent (e.g. in a browser).

    Their calls end the run with `DeferredToolRequests.calls` (or go to the deferred tool handler); the results
    come back as `DeferredToolResults.calls`.
    """

    tool_defs: list[ToolDefinition]
    """The definitions of the tools; they are offered with kind `'external'` whatever kind they have."""

    def __init__(self, tool_defs: list[ToolDefinition], *, id: str | None = None):
        """Make a toolset from tool definitions.

        Args:
            tool_defs: The definitions of the tools.
            id: An id for the toolset, unique among the agent's toolsets.
        """
        self.tool_defs = tool_defs
        self._id = id

    @property
    def id(self) -> str | None:
        """The id given to the constructor."""
        return self._id

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The tools, each with kind `'external'` and no retries."""
        return {
            tool_def.name: ToolsetTool(
                toolset=self,
                tool_def=replace(tool_def, kind='external'),
                max_retries=0,
                args_validator=_PASSTHROUGH_VALIDATOR,
            )
            for tool_def in self.tool_defs
        }

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """External tools are never called by the agent.

        Raises:
            NotImplementedError: Always.
        """
        raise NotImplementedError('External tools cannot be called directly')


@deprecated('`DeferredToolset` is deprecated, use `ExternalToolset` instead')
class DeferredToolset(ExternalToolset[AgentDepsT]):
    """The former name of `ExternalToolset`."""
