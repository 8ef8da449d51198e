"""Adapters that serve agents to chat UIs over their own streaming protocols (see `pydantic_ai.ui.vercel_ai`).

The web parts (`from_request`, `dispatch_request`, `streaming_response`) need starlette: install the `ui` extra.
"""

from __future__ import annotations

from ._adapter import StateDeps, StateHandler, UIAdapter
from ._event_stream import SSE_CONTENT_TYPE, NativeEvent, OnCompleteFunc, UIEventStream
from ._messages_builder import MessagesBuilder

__all__ = (
    'SSE_CONTENT_TYPE',
    'MessagesBuilder',
    'NativeEvent',
    'OnCompleteFunc',
    'StateDeps',
    'StateHandler',
    'UIAdapter',
    'UIEventStream',
)
