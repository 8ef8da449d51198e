"""`AgentRun` (a run driven node by node) and `AgentRunResult` (a finished run)."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any, Generic, Literal

from pydantic_graph import End
from typing_extensions import TypeVar

from . import _agent_graph, _utils
from .messages import ModelMessage, ModelMessagesTypeAdapter, ModelRequest, ModelResponse, ToolReturnPart
from .result import FinalResult
from .usage import RunUsage

__all__ = ('AgentRun', 'AgentRunResult', 'AgentRunResultEvent')

AgentDepsT = TypeVar('AgentDepsT', default=None)
OutputDataT = TypeVar('OutputDataT', default=str)


@dataclasses.dataclass(repr=False)
class AgentRun(Generic[AgentDepsT, OutputDataT]):
    """A run in progress: iterate over it (`async for node in run`) or drive it with `next(node)`."""

    _graph_run: _agent_graph.AgentGraphRun[AgentDepsT, OutputDataT]

    @property
    def ctx(self) -> Any:
        """The graph run context: `ctx.state` and `ctx.deps` of the run."""
        from pydantic_graph import GraphRunContext

        return GraphRunContext(state=self._graph_run.state, deps=self._graph_run.deps)

    @property
    def next_node(self) -> _agent_graph.AgentNode[AgentDepsT, OutputDataT] | End[FinalResult[OutputDataT]]:
        """The node that runs next, or `End` when the run is over."""
        return self._graph_run.next_node

    @property
    def result(self) -> AgentRunResult[OutputDataT] | None:
        """The result once the run is over, else `None`."""
        final = self._graph_run.output
        if final is None:
            return None
        return AgentRunResult(
            final.output,
            final.tool_name,
            self._graph_run.state,
            self._graph_run.deps.new_message_index,
        )

    def __aiter__(
        self,
    ) -> AsyncIterator[_agent_graph.AgentNode[AgentDepsT, OutputDataT] | End[FinalResult[OutputDataT]]]:
        return self

    async def __anext__(self) -> _agent_graph.AgentNode[AgentDepsT, OutputDataT] | End[FinalResult[OutputDataT]]:
        """Run the next node and return the node after it."""
        return await self._graph_run.__anext__()

    async def next(
        self, node: _agent_graph.AgentNode[AgentDepsT, OutputDataT]
    ) -> _agent_graph.AgentNode[AgentDepsT, OutputDataT] | End[FinalResult[OutputDataT]]:
        """Run `node` (possibly one you changed or made) and return the node after it."""
        return await self._graph_run.next(node)

    def all_messages(self) -> list[ModelMessage]:
        """Every message of the conversation so far."""
        return self._graph_run.state.message_history

    def all_messages_json(self, *, output_tool_return_content: str | None = None) -> bytes:
        """`all_messages()` as JSON.

        Args:
            output_tool_return_content: Accepted for compatibility and ignored: a run in progress is dumped as is.
        """
        return ModelMessagesTypeAdapter.dump_json(self.all_messages())

    def new_messages(self) -> list[ModelMessage]:
        """The messages of this run so far."""
        return self.all_messages()[self._graph_run.deps.new_message_index :]

    def new_messages_json(self) -> bytes:
        """`new_messages()` as JSON."""
        return ModelMessagesTypeAdapter.dump_json(self.new_messages())

    def usage(self) -> RunUsage:
        """What the run has used so far."""
        return self._graph_run.state.usage

    @property
    def run_id(self) -> str:
        """The id of the run."""
        return self._graph_run.state.run_id

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The metadata of the run (given to the agent, the run or `override`), computed when the run started."""
        return self._graph_run.state.metadata

    def __repr__(self) -> str:
        final = self._graph_run.output
        result_repr = '<run not finished>' if final is None else repr(final.output)
        return f'<{type(self).__name__} result={result_repr} usage={self.usage()}>'


@dataclasses.dataclass
class AgentRunResult(Generic[OutputDataT]):
    """The result of a finished run: its output, messages and usage."""

    output: OutputDataT
    """The output of the run."""
    _output_tool_name: str | None = dataclasses.field(default=None, repr=False)
    _state: _agent_graph.GraphAgentState = dataclasses.field(default_factory=_agent_graph.GraphAgentState, repr=False)
    _new_message_index: int = dataclasses.field(default=0, repr=False)

    def all_messages(self, *, output_tool_return_content: str | None = None) -> list[ModelMessage]:
        """Every message of the conversation, including the history the run started from.

        Args:
            output_tool_return_content: If given, a copy of the history in which the return of the output tool
                call says this instead of the default text (e.g. to continue the conversation naturally).

        Raises:
            ValueError: If `output_tool_return_content` is given and the output did not come from an output tool.
        """
        if output_tool_return_content is None:
            return self._state.message_history
        return self._with_output_tool_return(output_tool_return_content)

    def all_messages_json(self, *, output_tool_return_content: str | None = None) -> bytes:
        """`all_messages()` as JSON, e.g. to store and later pass back as `message_history`."""
        messages = self.all_messages(output_tool_return_content=output_tool_return_content)
        return ModelMessagesTypeAdapter.dump_json(messages)

    def new_messages(self, *, output_tool_return_content: str | None = None) -> list[ModelMessage]:
        """The messages made by this run (see `all_messages` for `output_tool_return_content`)."""
        messages = self.all_messages(output_tool_return_content=output_tool_return_content)
        return messages[self._new_message_index :]

    def new_messages_json(self, *, output_tool_return_content: str | None = None) -> bytes:
        """`new_messages()` as JSON."""
        messages = self.new_messages(output_tool_return_content=output_tool_return_content)
        return ModelMessagesTypeAdapter.dump_json(messages)

    def _with_output_tool_return(self, content: str) -> list[ModelMessage]:
        if self._output_tool_name is None:
            raise ValueError('Cannot set output tool return content when the return type is `str`.')
        messages = list(self._state.message_history)
        last = messages[-1]
        assert isinstance(last, ModelRequest), 'an output tool call is answered by a request'
        parts = [
            dataclasses.replace(part, content=content)
            if isinstance(part, ToolReturnPart) and part.tool_name == self._output_tool_name
            else part
            for part in last.parts
        ]
        messages[-1] = dataclasses.replace(last, parts=parts)
        return messages

    @property
    def response(self) -> ModelResponse:
        """The last response of the run: the one that gave the output."""
        for message in reversed(self.all_messages()):
            if isinstance(message, ModelResponse):
                return message
        raise ValueError('This run has no model response.')  # pragma: no cover

    def usage(self) -> RunUsage:
        """What the run used."""
        return self._state.usage

    def timestamp(self) -> datetime:
        """When the last response was received."""
        return self.response.timestamp

    @property
    def run_id(self) -> str:
        """The id of the run."""
        return self._state.run_id

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The metadata of the run, as computed when the run ended."""
        return self._state.metadata


@dataclasses.dataclass(repr=False)
class AgentRunResultEvent(Generic[OutputDataT]):
    """The last event of `Agent.run_stream_events`: the finished run's result."""

    result: AgentRunResult[OutputDataT]
    """The result of the run."""
    _: dataclasses.KW_ONLY
    event_kind: Literal['agent_run_result'] = 'agent_run_result'
    """Event type discriminator."""

    __repr__ = _utils.dataclasses_no_defaults_repr
