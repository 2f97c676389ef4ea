"""A drop-in for ``abstract_dataloader.generic`` (0.4.7): the same names,
arguments, results and exceptions, computed by adl.

The synchronization policies ``Empty``, ``Next`` and ``Nearest`` are adl's
Rust implementations, computed with the GIL released; ``Decimate`` works
over any policy, adl's or a Python one. The compositions
(``ParallelTransforms``, ``ParallelPipelines``, ``DatasetMeta``,
``SequencePipeline``) and ``Window`` (with ``Metadata``) are Python glue
over the objects they compose, as the reference's: over adl's sensors
(``adl.files``), a ``Window``'s parallel loads run at once, each sample read
without the GIL. (0.4.7 has no ``ComposedPipeline``; 0.3's is not
offered.)

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

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from adl._native import Empty, Nearest, Next

__all__ = [
    "DatasetMeta", "ParallelPipelines", "ParallelTransforms",
    "Metadata", "SequencePipeline", "Window",
    "Decimate", "Empty", "Nearest", "Next",
]


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


class ParallelTransforms:
    """Transforms applied key by key: ``{k: transforms[k](data[k])}`` for
    each transform's key, in their order (other keys of ``data`` dropped; a
    missing one a ``KeyError``)."""

    def __init__(self, **transforms) -> None:
        self.transforms = transforms

    def __call__(self, data):
        return {key: transform(data[key]) for key, transform in self.transforms.items()}


class ParallelPipelines:
    """Pipelines applied key by key: each stage (``sample``, ``collate``,
    ``batch``) runs each key's pipeline on that key's part (``collate`` on
    the list of the samples' parts), for each pipeline's key in order."""

    def __init__(self, **transforms) -> None:
        self.transforms = transforms

    def sample(self, data):
        return {key: pipeline.sample(data[key]) for key, pipeline in self.transforms.items()}

    def collate(self, data):
        return {key: pipeline.collate([sample[key] for sample in data])
                for key, pipeline in self.transforms.items()}

    def batch(self, data):
        return {key: pipeline.batch(data[key]) for key, pipeline in self.transforms.items()}


class DatasetMeta:
    """A dataset whose samples (dicts) carry ``meta`` under the key
    ``"meta"`` (a sample's own ``"meta"`` wins)."""

    def __init__(self, dataset, meta) -> None:
        self.dataset = dataset
        self.meta = meta

    def __getitem__(self, index):
        return {"meta": self.meta, **self.dataset[index]}

    def __len__(self) -> int:
        return len(self.dataset)


@dataclass
class Metadata:
    """A sensor's metadata: its timestamps (float64 seconds)."""

    timestamps: np.ndarray


class Window:
    """A sensor whose sample ``i`` is ``past + 1 + future`` consecutive
    samples of ``sensor`` (through ``collate_fn``, else a list).

    With ``crop`` (the default), sample ``i`` is the window starting at the
    sensor's sample ``i`` (so centred on ``i + past``), and the timestamps
    are the sensor's without the first ``past`` and the last ``future``;
    without it, the window is centred on ``i`` and one that does not fit is
    an ``IndexError``. ``parallel`` loads up to that many of a window's
    samples at once (threads; adl's sensors read without the GIL).
    """

    def __init__(self, sensor, collate_fn=None, past: int = 0, future: int = 0,
                 crop: bool = True, parallel: "int | None" = None) -> None:
        self.sensor = sensor
        self.past = past
        self.future = future
        self.parallel = parallel
        self.collate_fn = collate_fn if collate_fn is not None else (lambda samples: samples)
        self.cropped = crop
        timestamps = sensor.metadata.timestamps
        if crop:
            # A slice end of -0 would keep nothing: no end for no future.
            timestamps = timestamps[past:(-future if future != 0 else None)]
        self.metadata = Metadata(timestamps=timestamps)

    @classmethod
    def from_partial_sensor(cls, sensor, collate_fn=None, past: int = 0, future: int = 0,
                            crop: bool = True, parallel: "int | None" = None):
        """A constructor of windows over ``sensor(path)``, for a constructor
        of sensors ``sensor`` (one per trace)."""

        def make(path):
            return cls(sensor(path), collate_fn=collate_fn, past=past, future=future,
                       crop=crop, parallel=parallel)

        return make

    def __getitem__(self, index):
        first = index if self.cropped else index - self.past
        rows = list(range(first, first + self.past + self.future + 1))
        if rows[0] < 0 or rows[-1] >= len(self.sensor):
            raise IndexError(
                f"Requested invalid index {index} for uncropped "
                f"Window(past={self.past}, future={self.future}).")
        if self.parallel is not None:
            with ThreadPoolExecutor(min(len(rows), self.parallel)) as pool:
                return self.collate_fn(list(pool.map(self.sensor.__getitem__, rows)))
        return self.collate_fn([self.sensor[row] for row in rows])

    def __len__(self) -> int:
        return self.metadata.timestamps.shape[0]

    @property
    def duration(self) -> float:
        """Seconds from the first timestamp to the last (0 with none)."""
        timestamps = self.metadata.timestamps
        return timestamps[-1] - timestamps[0] if len(timestamps) else 0.0

    @property
    def framerate(self) -> float:
        """Samples per second."""
        return (len(self) - 1) / self.duration

    def stream(self, batch: "int | None" = None):
        """The samples one after another, or lists of ``batch`` of them."""
        if batch is None:
            for index in range(len(self)):
                yield self[index]
        else:
            for start in range(0, len(self) // batch * batch, batch):
                yield [self[index] for index in range(start, start + batch)]

    def __repr__(self) -> str:
        return f"{self.sensor!r} x [-{self.past}:+{self.future}]"


class SequencePipeline:
    """A pipeline over sequences: each stage maps ``pipeline``'s over the
    sequence axis (``collate`` over the samples' ``t``-th elements, for
    each ``t``), so batches come as a list over the sequence."""

    def __init__(self, pipeline) -> None:
        self.pipeline = pipeline

    def sample(self, data):
        return [self.pipeline.sample(item) for item in data]

    def collate(self, data):
        return [self.pipeline.collate(step) for step in zip(*data)]

    def batch(self, data):
        return [self.pipeline.batch(step) for step in data]
