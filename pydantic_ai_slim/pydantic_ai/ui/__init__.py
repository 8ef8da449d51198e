"""Adapters that serve agents to chat UIs over their own streaming protocols (see `pydantic_ai.ui.vercel_ai`).

The web parts (`from_request`, `dispatch_request`, `streaming_response`) need starlette: install the `ui` extra.
"""

from __future__ import annotations

from ._adapter import UIAdapter
from ._event_stream import SSE_CONTENT_TYPE, NativeEvent, OnCompleteFunc, UIEventStream
from ._messages_builder import MessagesBuilder

__all__ = (
    'DEFAULT_HTML_URL',
    'SSE_CONTENT_TYPE',
    'MessagesBuilder',
    'NativeEvent',
    'OnCompleteFunc',
    'UIAdapter',
    'UIEventStream',
)

DEFAULT_HTML_URL = 'https://cdn.jsdelivr.net/npm/@pydantic/ai-chat-ui@1.0.0/dist/index.html'
"""The chat page upstream's `Agent.to_web()` loads from a CDN by default.

Here `to_web()` serves its own bundled page instead, so nothing is fetched; pass this as `html_source` to use
upstream's page.
"""
