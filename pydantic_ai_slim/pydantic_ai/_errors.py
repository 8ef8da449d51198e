"""Engine-internal exceptions that carry a retry prompt back to the model."""

from __future__ import annotations

from .messages import RetryPromptPart

__all__ = ('ToolRetryError',)


class ToolRetryError(Exception):
    """A tool call or output failed in a way the model can fix; `tool_retry` is what it is told."""

    def __init__(self, tool_retry: RetryPromptPart):
        self.tool_retry = tool_retry
        content = tool_retry.content
        super().__init__(content if isinstance(content, str) else tool_retry.model_response())
