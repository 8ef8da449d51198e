"""Pydantic dataclasses whose validator is built on first use rather than at import.

Building a validator costs a schema build, and the first build in a process also scans the installed packages for
pydantic plugins; most programs never construct most of the message classes, so `pydantic_ai` defers it. pydantic's
own `defer_build` gives the class a wrong signature, though: it computes `__signature__` when it builds the class,
from the `__init__` it finds then, which by that time is its own `(*args, **kwargs)` one rather than the declared
one. So the class is built here, on its first construction or signature query, with the declared `__init__` in
sight for that moment.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from dataclasses import field
from typing import Any, TypeVar

import pydantic
from pydantic.dataclasses import dataclass as pydantic_dataclass
from typing_extensions import dataclass_transform

__all__ = ('validated_dataclass',)

_T = TypeVar('_T')
_build_lock = threading.RLock()


@dataclass_transform(field_specifiers=(field,))
def validated_dataclass(config: pydantic.ConfigDict) -> Callable[[type[_T]], type[_T]]:
    """A pydantic dataclass decorator (arguments are validated on construction) that keeps the class's type.

    The class must declare its `__init__`: that gives its signature, and pydantic replaces it.
    """
    deferred: pydantic.ConfigDict = {**config, 'defer_build': True}

    def decorate(cls: type[_T]) -> type[_T]:
        declared_init = cls.__dict__['__init__']
        built: type[Any] = pydantic_dataclass(repr=False, config=deferred)(cls)
        pydantic_init = built.__init__

        def __init__(__dataclass_self__: Any, *args: Any, **kwargs: Any) -> None:
            _build(built, declared_init, pydantic_init)
            built.__init__(__dataclass_self__, *args, **kwargs)

        __init__.__qualname__ = f'{built.__qualname__}.__init__'
        built.__init__ = __init__
        built.__signature__ = _BuildingSignature(built, declared_init, pydantic_init)
        return built

    return decorate


def _build(cls: type[Any], declared_init: Callable[..., None], pydantic_init: Callable[..., None]) -> None:
    """Build `cls`, once, so that pydantic takes its signature from `declared_init`."""
    with _build_lock:
        if cls.__dict__['__pydantic_complete__']:
            return

        # Validating too, in case another thread constructs the class while it is being built.
        def init_with_signature(__dataclass_self__: Any, *args: Any, **kwargs: Any) -> None:
            pydantic_init(__dataclass_self__, *args, **kwargs)  # pragma: no cover -- only in that race

        init_with_signature.__wrapped__ = declared_init  # pyright: ignore[reportFunctionMemberAccess] -- a function
        cls.__init__ = init_with_signature
        # Replaces `__init__` with pydantic's validating one, and `__signature__` with the built signature.
        pydantic.dataclasses.rebuild_dataclass(cls)


class _BuildingSignature:
    """A class's `__signature__` until the class is built: asking for it builds the class."""

    def __init__(self, cls: type[Any], declared_init: Callable[..., None], pydantic_init: Callable[..., None]):
        self._cls = cls
        self._declared_init = declared_init
        self._pydantic_init = pydantic_init

    def __get__(self, instance: object, owner: type[Any]) -> inspect.Signature:
        if instance is not None:
            raise AttributeError(f"'__signature__' attribute of {owner.__name__!r} is class-only")
        _build(self._cls, self._declared_init, self._pydantic_init)
        return self._cls.__signature__
