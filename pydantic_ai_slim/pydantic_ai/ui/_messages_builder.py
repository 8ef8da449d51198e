"""`MessagesBuilder`: collects request and response parts into alternating `ModelRequest`s and `ModelResponse`s."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..messages import ModelMessage, ModelRequest, ModelRequestPart, ModelResponse, ModelResponsePart

__all__ = ('MessagesBuilder',)

_REQUEST_PART_KINDS = frozenset({'system-prompt', 'user-prompt', 'tool-return', 'retry-prompt'})


@dataclass
class MessagesBuilder:
    """Builds a message history part by part: a part joins the last message when it is of the same kind."""

    messages: list[ModelMessage] = field(default_factory=list[ModelMessage])
    """The messages built so far."""

    def add(self, part: ModelRequestPart | ModelResponsePart) -> None:
        """Add a part to the last message, or to a new message if the last one is of the other kind."""
        last = self.messages[-1] if self.messages else None
        if part.part_kind in _REQUEST_PART_KINDS:
            request_part: ModelRequestPart = part  # pyright: ignore[reportAssignmentType] -- narrowed by `part_kind`
            if isinstance(last, ModelRequest):
                last.parts = [*last.parts, request_part]
            else:
                self.messages.append(ModelRequest(parts=[request_part]))
        else:
            response_part: ModelResponsePart = part  # pyright: ignore[reportAssignmentType] -- narrowed by `part_kind`
            if isinstance(last, ModelResponse):
                last.parts = [*last.parts, response_part]
            else:
                self.messages.append(ModelResponse(parts=[response_part]))
