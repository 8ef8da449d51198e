"""Reading message histories in tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelRequestPart

PartT = TypeVar('PartT', bound=ModelRequestPart)


def request_parts(messages: Sequence[ModelMessage], kind: type[PartT]) -> list[PartT]:
    """The parts of type `kind` in the requests of `messages`, oldest first."""
    return [
        part
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, kind)
    ]
