"""Ready-to-use components: ``abstract_dataloader.generic`` (0.4.7) under
the same names, arguments, results and exceptions, computed by adl.

- ``adl.generic.sync``: the synchronization policies. ``Empty``, ``Next``
  and ``Nearest`` compute in Rust (adl-core) with the GIL released;
  ``Decimate`` thins any policy, adl's or a Python one. Each is an
  ``adl.abstract.Synchronization`` (``Empty`` a ``spec.Synchronization``)
  as the reference's are, so ``get_reference`` and ``apply_margin`` are
  there too.
- ``adl.generic.composition``: ``ParallelTransforms``,
  ``ParallelPipelines``, ``DatasetMeta``.
- ``adl.generic.sequence``: ``Window`` (a sensor whose samples are
  windows of another's, with ``Metadata``) and ``SequencePipeline``.
  Over adl's sensors (``adl.files``), a ``Window``'s parallel loads run at
  once, each read without the GIL.

(0.4.7 has no ``ComposedPipeline``; 0.3's is not offered.)

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

from adl.generic.composition import DatasetMeta, ParallelPipelines, ParallelTransforms
from adl.generic.sequence import Metadata, SequencePipeline, Window
from adl.generic.sync import Decimate, Empty, Nearest, Next

__all__ = [
    "DatasetMeta", "ParallelPipelines", "ParallelTransforms",
    "Metadata", "SequencePipeline", "Window",
    "Decimate", "Empty", "Nearest", "Next",
]
