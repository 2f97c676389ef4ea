"""Sequences (``abstract_dataloader.generic`` 0.4.7's): a sensor whose
samples are windows of another's consecutive samples, and a pipeline over
sequences of samples."""

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

import numpy as np
from jaxtyping import Float64

from adl import abstract, spec

__all__ = ["Metadata", "SequencePipeline", "Window"]

Sample = TypeVar("Sample")
SampleStack = TypeVar("SampleStack")
TMetadata = TypeVar("TMetadata", bound=spec.Metadata)


@dataclass
class Metadata(spec.Metadata):
    """Metadata that is only timestamps.

    Attributes:
        timestamps: each sample's time, in seconds.
    """

    timestamps: Float64[np.ndarray, "N"]


class Window(
    abstract.Sensor[SampleStack, Metadata],
    Generic[SampleStack, Sample, TMetadata]
):
    """A sensor whose sample ``i`` is ``past + 1 + future`` consecutive
    samples of ``sensor``, a history for any sensor::

        with_history = generic.Window(sensor, past=5, future=1, parallel=7)
        with_history[i] == [sensor[i], sensor[i + 1], ..., sensor[i + 6]]

    With ``crop`` (the default), sample ``i`` is the window starting at the
    sensor's sample ``i``, centred on (and synchronized by the timestamp
    of) ``i + past``: the timestamps are the sensor's without the first
    ``past`` and the last ``future``. Without it, the window is centred on
    ``i``, the timestamps are all the sensor's, and a window that does not
    fit is an ``IndexError``.

    Type Parameters:
        - ``SampleStack``: a window of samples, through ``collate_fn``
          (``list[Sample]`` without one).
        - ``Sample``: one sample of ``sensor``.
        - ``TMetadata``: ``sensor``'s metadata (the window's own is a
          [`Metadata`][^.]).

    Args:
        sensor: the sensor windowed.
        collate_fn: makes a window of the list of its samples; ``None``
            keeps the list.
        past: samples before the centre (``0`` for none).
        future: samples after the centre (``0`` for none).
        crop: leave out the samples whose window would not fit.
        parallel: load up to this many of a window's samples at once
            (threads; adl's sensors read without the GIL); ``None`` loads
            them one by one.
    """

    def __init__(
        self, sensor: spec.Sensor[Sample, TMetadata],
        collate_fn: Callable[[list[Sample]], SampleStack] | None = None,
        past: int = 0, future: int = 0, crop: bool = True,
        parallel: int | None = None
    ) -> None:
        self.sensor = sensor
        self.past = past
        self.future = future
        self.parallel = parallel
        self.collate_fn = collate_fn if collate_fn is not None else cast(
            Callable[[list[Sample]], SampleStack], _as_list)
        self.cropped = crop
        timestamps = sensor.metadata.timestamps
        if crop:
            # A slice end of -0 would keep nothing: no end for no future.
            timestamps = timestamps[past:(-future if future != 0 else None)]
        self.metadata = Metadata(timestamps=timestamps)

    @classmethod
    def from_partial_sensor(
        cls, sensor: Callable[[str], spec.Sensor[Sample, TMetadata]],
        collate_fn: Callable[[list[Sample]], SampleStack] | None = None,
        past: int = 0, future: int = 0, crop: bool = True,
        parallel: int | None = None
    ) -> Callable[[str], "Window[SampleStack, Sample, TMetadata]"]:
        """A constructor of windows over ``sensor(path)``, for a
        constructor of sensors (one per trace, from its path)::

            make = Window.from_partial_sensor(Camera, past=2)
            windowed = make("drive-07/camera")

        Args:
            sensor: the sensors' constructor, from a path.
            collate_fn: as for the class.
            past: as for the class.
            future: as for the class.
            crop: as for the class.
            parallel: as for the class.

        Returns:
            A constructor of windowed sensors, from a path.
        """
        def open_windowed(
            path: str
        ) -> "Window[SampleStack, Sample, TMetadata]":
            """The window over the sensor that ``sensor`` opens at
            ``path``."""
            return cls(sensor(path), collate_fn=collate_fn, past=past,
                       future=future, crop=crop, parallel=parallel)

        return open_windowed

    def __getitem__(self, index: int | np.integer) -> SampleStack:
        """The window of sample ``index``.

        Args:
            index: the window's index (with ``crop``, there are ``past``
                fewer windows than samples at the start, and ``future``
                fewer at the end).

        Returns:
            ``past + 1 + future`` consecutive samples, through
                ``collate_fn``.

        Raises:
            IndexError: the window reaches before the sensor's first sample
                or past its last.
        """
        first = index if self.cropped else index - self.past
        rows = list(range(first, first + self.past + self.future + 1))
        if rows[0] < 0 or rows[-1] >= len(self.sensor):
            raise IndexError(
                f"Requested invalid index {index} for uncropped "
                f"Window(past={self.past}, future={self.future}).")
        if self.parallel is None:
            return self.collate_fn([self.sensor[row] for row in rows])
        with ThreadPoolExecutor(min(len(rows), self.parallel)) as pool:
            return self.collate_fn(list(pool.map(self.sensor.__getitem__, rows)))

    def __repr__(self) -> str:
        """The sensor's repr, with the window."""
        return f"{self.sensor!r} x [-{self.past}:+{self.future}]"


def _as_list(samples: list[Any]) -> list[Any]:
    """A window as the list of its samples (``Window``'s default
    ``collate_fn``)."""
    return samples


TRaw = TypeVar("TRaw")
TTransformed = TypeVar("TTransformed")
TCollated = TypeVar("TCollated")
TProcessed = TypeVar("TProcessed")


class SequencePipeline(
    spec.Pipeline[
        Sequence[TRaw], Sequence[TTransformed],
        Sequence[TCollated], Sequence[TProcessed]],
    Generic[TRaw, TTransformed, TCollated, TProcessed]
):
    """A pipeline over sequences: each stage maps ``pipeline``'s over the
    sequence axis, so a batch of sequences of length ``n`` comes out as a
    list of ``n`` batches (``collate`` batches the samples' ``t``-th
    elements, for each ``t``).

    Type Parameters:
        - ``TRaw``, ``TTransformed``, ``TCollated``, ``TProcessed``: as for
          ``pipeline`` ([`Pipeline`][adl.spec.Pipeline]).

    Args:
        pipeline: the pipeline of one element of a sequence.
    """

    def __init__(
        self, pipeline: spec.Pipeline[
            TRaw, TTransformed, TCollated, TProcessed]
    ) -> None:
        self.pipeline = pipeline

    def sample(self, data: Sequence[TRaw]) -> list[TTransformed]:
        """``pipeline.sample`` on each element of one sequence."""
        return list(map(self.pipeline.sample, data))

    def collate(
        self, data: Sequence[Sequence[TTransformed]]
    ) -> list[TCollated]:
        """``pipeline.collate`` on the samples' ``t``-th elements, for each
        ``t``."""
        return list(map(self.pipeline.collate, zip(*data)))

    def batch(self, data: Sequence[TCollated]) -> list[TProcessed]:
        """``pipeline.batch`` on each step's batch."""
        return list(map(self.pipeline.batch, data))
