"""Import `pydantic_graph` without paying for `httpx`, which it needs only to render Mermaid images over HTTP.

`pydantic_graph.mermaid` imports `httpx` at module level and uses it only inside its image functions, and
`httpx` (with its command line, which pulls in `rich`, `click` and `pygments` when they are installed) is a
large part of a cold `import pydantic_ai`. While `pydantic_graph` is imported, `sys.modules['httpx']` holds a
`_DeferredModule`; it is removed again right after, so the only holder of the proxy is `pydantic_graph.mermaid`'s
global, and every other `import httpx` gets the real module. The proxy imports the real `httpx` on its first
attribute access and forwards to it from then on.

Failure modes are benign by construction: if another thread imports `httpx` inside that short window, it gets the
proxy, which behaves as the module for every attribute access; if the real import fails, the error surfaces at
that first access, where `httpx` would have failed at import anyway.
"""

from __future__ import annotations

import importlib
import sys
import threading
from types import ModuleType
from typing import Any

__all__ = ()

_lock = threading.Lock()


class _DeferredModule(ModuleType):
    """A stand-in for a module that imports the real one on first attribute access and forwards to it."""

    def __getattr__(self, name: str) -> Any:
        return getattr(_load(self), name)

    def __dir__(self) -> list[str]:
        return dir(_load(self))


def _load(proxy: _DeferredModule) -> ModuleType:
    module = proxy.__dict__.get('_deferred_real')
    if module is None:
        with _lock:
            _discard(proxy)
            module = importlib.import_module(proxy.__name__)
        proxy.__dict__['_deferred_real'] = module
    return module


def _discard(proxy: _DeferredModule) -> None:
    if sys.modules.get(proxy.__name__) is proxy:
        del sys.modules[proxy.__name__]


def import_deferring(name: str, deferred: str) -> None:
    """Import module `name` with its module-level imports of `deferred` bound to a proxy.

    If either module is imported already, `name` is imported plainly: the proxy would have nothing to save.
    """
    if name in sys.modules or deferred in sys.modules:
        importlib.import_module(name)
        return
    proxy = _DeferredModule(deferred)
    with _lock:
        sys.modules.setdefault(deferred, proxy)
    try:
        importlib.import_module(name)
    finally:
        with _lock:
            _discard(proxy)


import_deferring('pydantic_graph', 'httpx')
