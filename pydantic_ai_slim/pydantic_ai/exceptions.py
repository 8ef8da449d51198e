"""Exceptions raised by the agent, and the control-flow signals tools raise."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic_core import core_schema

if TYPE_CHECKING:
    from .messages import RetryPromptPart
    from .tools import DeferredToolRequests

__all__ = (
    'AgentRunError',
    'ApprovalRequired',
    'CallDeferred',
    'ContentFilterError',
    'FallbackExceptionGroup',
    'IncompleteToolCall',
    'ModelAPIError',
    'ModelHTTPError',
    'ModelRetry',
    'UnexpectedModelBehavior',
    'UsageLimitExceeded',
    'UserError',
)


class ModelRetry(Exception):
    """Raise from a tool, output function or output validator to ask the model to try again.

    The message is sent back to the model as a retry prompt.
    """

    message: str
    """The text the model is shown."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, type(self)) and other.message == self.message

    def __hash__(self) -> int:
        return hash((type(self), self.message))

    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, _handler: Any) -> core_schema.CoreSchema:
        """Let pydantic serialize a `ModelRetry` (inside `DeferredToolResults`) as `{'message': ..., 'kind': 'model-retry'}`."""
        dict_schema = core_schema.typed_dict_schema(
            {
                'message': core_schema.typed_dict_field(core_schema.str_schema()),
                'kind': core_schema.typed_dict_field(core_schema.literal_schema(['model-retry'])),
            }
        )
        # A lambda keeps pydantic's error title the same as upstream's: `function-after[<lambda>(), typed-dict]`.
        return core_schema.no_info_after_validator_function(
            lambda value: cls(value['message']),
            dict_schema,
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda retry: {'message': retry.message, 'kind': 'model-retry'}
            ),
        )


class CallDeferred(Exception):
    """Raise from a tool to defer its call: the result will be produced outside this run.

    The run ends with `DeferredToolRequests` listing the call (or a deferred tool handler answers it).
    A tool that runs deferrable work of its own (e.g. a sub-agent) passes that work's requests as
    `deferred_tool_requests`: its calls are then listed in the parent's requests under composite ids
    `'{parent_id}::{child_id}'`, and on resume the tool is called again with their answers in
    `ctx.deferred_tool_results`.
    """

    metadata: dict[str, Any] | None
    """Information for whoever answers the call, in `DeferredToolRequests.metadata` under the call's id."""
    context: Any
    """Opaque state to be given back unchanged (via `DeferredToolResults.context`) as `ctx.tool_call_context`."""
    deferred_tool_requests: DeferredToolRequests | None
    """Nested deferred calls to surface in place of this call."""

    def __init__(
        self,
        metadata: dict[str, Any] | None = None,
        context: Any = None,
        deferred_tool_requests: DeferredToolRequests | None = None,
    ):
        self.metadata = metadata
        self.context = context
        self.deferred_tool_requests = deferred_tool_requests
        super().__init__()


class ApprovalRequired(Exception):
    """Raise from a tool to ask for human approval before it runs.

    The run ends with `DeferredToolRequests` listing the call (or a deferred tool handler answers it).
    Once approved, the tool is called again with `ctx.tool_call_approved` set.
    """

    metadata: dict[str, Any] | None
    """Information for whoever approves the call, in `DeferredToolRequests.metadata` under the call's id."""
    context: Any
    """Opaque state to be given back unchanged (via `DeferredToolResults.context`) as `ctx.tool_call_context`."""

    def __init__(self, metadata: dict[str, Any] | None = None, context: Any = None):
        self.metadata = metadata
        self.context = context
        super().__init__()


class UserError(RuntimeError):
    """The library was used wrongly: the message says how to fix it."""

    message: str
    """The description of the misuse."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


class AgentRunError(RuntimeError):
    """Base class for errors that end an agent run."""

    message: str
    """The description of the error."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)

    def __str__(self) -> str:
        return self.message


class UsageLimitExceeded(AgentRunError):
    """A usage limit of the run was exceeded."""


class UnexpectedModelBehavior(AgentRunError):
    """The model answered in a way the agent cannot handle, e.g. too many retries."""

    body: str | None
    """The body of the response, if any."""

    def __init__(self, message: str, body: str | None = None):
        self.message = message
        if body is None:
            self.body = None
        else:
            try:
                self.body = json.dumps(json.loads(body), indent=2)
            except ValueError:
                self.body = body
        super().__init__(message)

    def __str__(self) -> str:
        if self.body:
            return f'{self.message}, body:\n{self.body}'
        return self.message


class ContentFilterError(UnexpectedModelBehavior):
    """The provider's content filter stopped the response."""


class IncompleteToolCall(UnexpectedModelBehavior):
    """The model's response ended in the middle of a tool call, e.g. because it hit the token limit."""


class ModelAPIError(AgentRunError):
    """A model provider's API failed."""

    model_name: str
    """The name of the model whose API failed."""

    def __init__(self, model_name: str, message: str):
        self.model_name = model_name
        super().__init__(message)


class ModelHTTPError(ModelAPIError):
    """A model provider answered with an HTTP 4xx or 5xx status."""

    status_code: int
    """The HTTP status code."""
    body: object | None
    """The body of the response, if any."""

    def __init__(self, status_code: int, model_name: str, body: object | None = None):
        self.status_code = status_code
        self.body = body
        message = f'status_code: {status_code}, model_name: {model_name}, body: {body}'
        super().__init__(model_name, message)


class FallbackExceptionGroup(ExceptionGroup[Any]):
    """Every model of a fallback chain failed; `exceptions` holds each model's error."""


class ToolRetryError(Exception):
    """A tool call or output failed in a way the model can fix; `tool_retry` is what it is told.

    Raised inside the run's engine and turned into a `RetryPromptPart`; users do not see it escape a run.
    """

    def __init__(self, tool_retry: RetryPromptPart):
        """Carry `tool_retry` back to the model."""
        self.tool_retry = tool_retry
        content = tool_retry.content
        super().__init__(content if isinstance(content, str) else tool_retry.model_response())
