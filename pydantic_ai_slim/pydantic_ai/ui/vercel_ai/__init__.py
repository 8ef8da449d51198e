"""Serve an agent to a web page built with the Vercel AI SDK (`useChat`, UI message stream protocol v1)."""

from __future__ import annotations

from ._adapter import VercelAIAdapter
from ._event_stream import VercelAIEventStream

__all__ = ('VercelAIAdapter', 'VercelAIEventStream')
