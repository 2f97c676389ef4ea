"""How adl's objects are made again when unpickled.

Each of adl's sensors, traces, datasets, pipelines and transforms pickles
by what it was made from (its class, or the object and method that made
it, with the arguments given), never by its caches or open files:
``rebuild`` makes it again the same way, wherever it is unpickled (a
worker process, a PyTorch DataLoader worker started with ``spawn``, a Ray
task).
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Call(NamedTuple):
    """A call not made yet: what made the object another was made by (a
    log that a topic is read from, a bag that a topic is from)."""

    on: Any
    method: str | None
    args: tuple
    kwargs: dict


def rebuild(on: Any, method: str | None, args: tuple, kwargs: dict) -> Any:
    """``on(*args, **kwargs)``, or ``on.method(*args, **kwargs)``; ``on``
    made first where it is a ``Call``."""
    if isinstance(on, Call):
        on = rebuild(*on)
    call = on if method is None else getattr(on, method)
    return call(*args, **kwargs)


def native(name: str, *args: Any) -> Any:
    """``adl._native.<name>(*args)``: a class of the extension module that
    another of the same name wraps where users see it (``adl.generic``'s
    synchronization policies), so that pickle cannot name it."""
    from adl import _native

    return getattr(_native, name)(*args)
