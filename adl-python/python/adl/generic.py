"""A drop-in for ``abstract_dataloader.generic`` (0.4.7): the same names,
arguments, results and exceptions, computed by adl.

Offered so far: the synchronization policies ``Empty``, ``Next`` and
``Nearest`` (adl's Rust implementations, with the GIL released while they
compute) and ``Decimate`` (over any policy, adl's or a Python one). Not
yet: ``Window``, ``SequencePipeline``, ``ParallelPipelines``,
``ComposedPipeline``.

Each policy is called with ``{sensor: timestamps}`` (float seconds) and
returns ``{sensor: uint32 indices}``, keys in the input's order. Margins
are ``(start, end)`` for every sensor or ``{sensor: (start, end)}``; an end
that is a Python ``int`` counts samples, anything else (a ``float``, a
numpy number) is seconds.

Where adl is stricter than the reference, it raises where the reference
goes on: unsorted or non-finite timestamps (``ValueError``), a negative
count of samples as a margin, a margin that trims every sample of a
sensor, or one naming a sensor that is not there (``IndexError`` or
``KeyError``), where the reference indexes around an array's end or
ignores the name.
"""

from adl._native import Empty, Nearest, Next

__all__ = ["Empty", "Next", "Nearest", "Decimate"]


class Decimate:
    """Every ``factor``-th sample of another synchronization policy.

    - ``reference=None``: synchronize with ``sync``, then keep every
      ``factor``-th row of its indices.
    - ``reference="name"``: keep every ``factor``-th timestamp of sensor
      ``name``, then synchronize with ``sync``. As in abstract-dataloader
      0.4.7, that sensor's indices then count its kept samples (index
      ``j`` is its sample ``j * factor``).

    Args:
        sync: the policy to decimate (adl's, or any callable from
            timestamps to indices).
        factor: keep one sample in ``factor``.
        reference: the sensor decimated before synchronizing, if any.
    """

    def __init__(self, sync, factor: int, reference: "str | None" = None) -> None:
        self.sync = sync
        self.factor = factor
        self.reference = reference

    def __call__(self, timestamps):
        """The decimated indices of every sensor of ``timestamps``."""
        if self.reference is None:
            indices = self.sync(timestamps)
            return {name: rows[:: self.factor] for name, rows in indices.items()}
        thinned = dict(timestamps)
        thinned[self.reference] = timestamps[self.reference][:: self.factor]
        return self.sync(thinned)

    def __repr__(self) -> str:
        return f"Decimate({self.sync!r}, factor={self.factor!r}, reference={self.reference!r})"
