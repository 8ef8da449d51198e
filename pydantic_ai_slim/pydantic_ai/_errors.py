"""Engine-internal exceptions that carry a retry prompt back to the model (public in `exceptions`)."""

from __future__ import annotations

from .exceptions import ToolRetryError

__all__ = ('ToolRetryError',)
