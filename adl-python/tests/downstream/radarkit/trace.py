"""Traces (a folder of sensor folders) and datasets of them."""

import os
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TypeVar, overload

import numpy as np
from abstract_dataloader import abstract, generic, spec

from .sensors import KINDS, NpySensor

TSample = TypeVar("TSample")


class Trace(abstract.Trace[TSample]):
    """A recording: its sensors, synchronized.

    Args:
        sensors: the sensors by name.
        sync: a synchronization, the indices per sensor, or ``None``.
        name: the trace's name.
        path: the folder it was read from.
    """

    def __init__(
        self, sensors: Mapping[str, spec.Sensor],
        sync: spec.Synchronization | Mapping[str, np.ndarray] | None = None,
        name: str = "trace", path: str | None = None
    ) -> None:
        self.path = path
        self.windows = {k: getattr(s, "window", 1) for k, s in sensors.items()}
        super().__init__(sensors=sensors, sync=sync, name=name)

    @classmethod
    def from_directory(
        cls, path: str, sync: spec.Synchronization = generic.Empty(),
        past: Mapping[str, int] = {}
    ) -> "Trace":
        """The trace of a folder: a sensor per subfolder with a
        ``meta.json`` of a known kind."""
        sensors = {}
        for name in sorted(os.listdir(path)):
            if os.path.exists(os.path.join(path, name, "meta.json")):
                sensors[name] = KINDS[name](
                    os.path.join(path, name), past=past.get(name, 0))
        return cls(sensors=sensors, sync=sync, name=os.path.basename(path), path=path)

    @cached_property
    def filesize(self) -> int:
        """Bytes on disk, all sensors."""
        return sum(s.filesize for s in self.sensors.values()
                   if isinstance(s, NpySensor))

    @overload
    def __getitem__(self, index: str) -> spec.Sensor: ...

    @overload
    def __getitem__(self, index: int | np.integer) -> TSample: ...

    def __getitem__(self, index: int | np.integer | str) -> TSample | spec.Sensor:
        """A sample, or a sensor by name."""
        return super().__getitem__(index)


class Dataset(abstract.Dataset[TSample]):
    """Traces as one dataset.

    Args:
        traces: the traces.
    """

    def __init__(self, traces: Sequence[Trace[TSample]]) -> None:
        self.traces = traces

    @classmethod
    def from_directories(
        cls, paths: Sequence[str], sync: spec.Synchronization = generic.Empty(),
        past: Mapping[str, int] = {}
    ) -> "Dataset":
        """A dataset of the traces of these folders."""
        return cls([Trace.from_directory(p, sync=sync, past=past) for p in paths])


def split(dataset: Dataset, start: float, end: float) -> Dataset:
    """The part of each trace from ``start`` to ``end`` (fractions)."""
    if not 0 <= start < end <= 1:
        raise ValueError(f"split: need 0 <= start < end <= 1, got {start}, {end}")
    traces = []
    for trace in dataset.traces:
        indices = trace.indices if trace.indices is not None else {
            k: np.arange(len(s)) for k, s in trace.sensors.items()}
        count = len(next(iter(indices.values())))
        first, last = int(count * start), int(count * end)
        traces.append(Trace(
            sensors=trace.sensors, name=trace.name, path=trace.path,
            sync={k: np.copy(v[first:last]) for k, v in indices.items()}))
    return Dataset(traces)
