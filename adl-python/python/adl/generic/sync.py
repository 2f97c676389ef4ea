"""The synchronization policies of ``abstract_dataloader.generic`` (0.4.7):
``Empty``, ``Next`` and ``Nearest`` computed by adl-core (Rust) with the
GIL released, and ``Decimate`` over any policy.

Each is a plain Python object (its state the reference's attributes:
``reference``, ``tol``, the margin), so it pickles, subclasses and
mutates as the reference's does; the Rust policy is made from that state
when it is called, which costs microseconds against the synchronization
itself.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from jaxtyping import Float, Float64, Integer, UInt32

from adl import _native, abstract, spec

__all__ = ["Decimate", "Empty", "Nearest", "Next"]


def _margin_of(policy: abstract.Synchronization) -> Any:
    """The margin a policy reads, in the form it was given: the mapping per
    sensor, or the pair for every sensor."""
    return policy._margin if policy._margin else policy._default


class Empty(spec.Synchronization):
    """No synchronization: an empty index array for every sensor (the trace
    is only a collection of sensors, with no samples of its own)."""

    def __call__(
        self, timestamps: dict[str, Float64[np.ndarray, "_N"]]
    ) -> dict[str, UInt32[np.ndarray, "M"]]:
        """``{sensor: []}`` (``uint32``) for every sensor of ``timestamps``.

        Args:
            timestamps: each sensor's timestamps, by name.

        Returns:
            An empty index array per sensor.
        """
        return _native.Empty()(timestamps)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Next(abstract.Synchronization):
    """Each sensor's first sample at or after each reference sample, for
    the reference samples inside every sensor's span (margins applied).

    See [`adl.abstract.Synchronization`][adl.abstract.Synchronization]
    for the reference sensor and the margins.

    Args:
        reference: the reference sensor's name.
        margin: ``(start, end)`` for every sensor, or per sensor; each end
            samples (``int``) or seconds (``float``).
    """

    def __call__(
        self, timestamps: dict[str, Float64[np.ndarray, "_N"]]
    ) -> dict[str, UInt32[np.ndarray, "M"]]:
        """The indices of every sensor of ``timestamps``, computed in Rust.

        Args:
            timestamps: each sensor's timestamps, by name.

        Returns:
            ``{sensor: uint32 indices}``, in the input's order.
        """
        return _native.Next(self.reference, _margin_of(self))(timestamps)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(reference={self.reference!r}, "
                f"margin={_margin_of(self)!r})")


def _checked_tolerance(reference: str, tol: float) -> float:
    """``tol``, once it is known to be a tolerance ``Nearest`` can use: a
    negative one is the reference's ``ValueError``; adl's policy refuses
    the rest (a NaN) here rather than at the first call."""
    if tol < 0:
        raise ValueError(
            f"Synchronization tolerance must be positive: {tol} < 0")
    _native.Nearest(reference, tol=tol)
    return tol


class Nearest(abstract.Synchronization):
    """Each sensor's nearest sample to each reference sample inside every
    sensor's span (margins applied), kept where every sensor's is closer
    than ``tol`` seconds.

    See [`adl.abstract.Synchronization`][adl.abstract.Synchronization]
    for the reference sensor and the margins.

    Args:
        reference: the reference sensor's name.
        margin: ``(start, end)`` for every sensor, or per sensor; each end
            samples (``int``) or seconds (``float``).
        tol: the tolerance, in seconds (``np.inf`` keeps every sample); a
            negative one is a ``ValueError``, and so (in adl) is a NaN.
    """

    def __init__(
        self, reference: str,
        margin: Mapping[str, Sequence[int | float]]
            | Sequence[int | float] = {},  # noqa: B006 (never mutated)
        tol: float = 0.1
    ) -> None:
        self.tol = _checked_tolerance(reference, tol)
        super().__init__(reference=reference, margin=margin)

    def __call__(
        self, timestamps: dict[str, Float64[np.ndarray, "_N"]]
    ) -> dict[str, UInt32[np.ndarray, "M"]]:
        """The indices of every sensor of ``timestamps``, computed in Rust.

        Args:
            timestamps: each sensor's timestamps, by name.

        Returns:
            ``{sensor: uint32 indices}``, in the input's order.
        """
        policy = _native.Nearest(self.reference, _margin_of(self), self.tol)
        return policy(timestamps)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(reference={self.reference!r}, "
                f"margin={_margin_of(self)!r}, tol={self.tol!r})")


class Decimate(abstract.Synchronization):
    """Every ``factor``-th sample of another policy.

    - ``reference=None``: synchronize with ``sync``, then keep every
      ``factor``-th global sample.
    - ``reference="name"``: keep every ``factor``-th timestamp of sensor
      ``name``, then synchronize with ``sync``; that sensor's indices then
      count its kept samples (index ``j`` is its sample ``j * factor``),
      as in the reference.

    Args:
        sync: the policy to decimate (adl's, or any other).
        factor: keep one sample in ``factor``.
        reference: the sensor decimated before synchronizing, if any.
    """

    def __init__(
        self, sync: spec.Synchronization, factor: int,
        reference: str | None = None
    ) -> None:
        # As the reference's, a policy without margins of its own.
        self.sync = sync
        self.factor = factor
        # None (no sensor decimated first) is the reference's too, where
        # the base class's is a sensor's name: Decimate reads its own.
        self.reference: str | None = reference  # type: ignore[assignment]

    def __call__(
        self, timestamps: dict[str, Float[np.ndarray, "_N"]]
    ) -> dict[str, Integer[np.ndarray, "M"]]:
        """The decimated indices of every sensor of ``timestamps``.

        Args:
            timestamps: each sensor's timestamps, by name.

        Returns:
            ``{sensor: indices}``, as ``sync`` returns them, thinned.
        """
        if self.reference is None:
            indices = self.sync(timestamps)
            return {name: rows[::self.factor] for name, rows in indices.items()}
        thinned = dict(timestamps)
        thinned[self.reference] = timestamps[self.reference][::self.factor]
        return self.sync(thinned)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.sync!r}, factor={self.factor!r}, "
                f"reference={self.reference!r})")
