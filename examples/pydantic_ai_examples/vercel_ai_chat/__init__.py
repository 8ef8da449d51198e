"""A chat web app for the Vercel AI SDK's `useChat`, where the user approves file deletions in the page.

Run it with `python -m pydantic_ai_examples.vercel_ai_chat` and point a `useChat` page at `/api/chat`.
"""

from __future__ import annotations

from .app import FileStore, create_agent, create_app, scripted_model

__all__ = ('FileStore', 'create_agent', 'create_app', 'scripted_model')
