"""Base classes to build on: the Abstract Dataloader's ``abstract`` module
(``abstract_dataloader.abstract`` 0.4.7, under the same names), each one
a plain Python class that a user's class subclasses with any
``__init__`` it likes, setting the attributes it likes.

They fill in what can be computed from less: a [`Sensor`][.] needs only
``__getitem__`` (its length, duration, framerate and stream follow from
its metadata); a [`Trace`][.] synchronizes its sensors with a policy
(adl's, from ``adl.generic``, computed in Rust, or any other) and reads
each sample from them; a [`Dataset`][.] finds a global index's trace by a
binary search over the traces' ends; a [`Pipeline`][.] is the identity
wherever a stage is not given; a [`Synchronization`][.] reads margins and
finds the reference sensor's timestamps inside every sensor's span.

Their results, errors included, are the reference's, except where adl is
stricter about timestamps, as ``adl.generic`` says:
``Synchronization.get_reference`` makes the checks adl's policies make
(sorted, finite timestamps that advance, no empty sensor, margins that
name sensors there and leave each a sample) and raises their errors,
where the reference reads around an array's end.

``adl.Trace`` and ``adl.Dataset``, adl's native trace and dataset (which
``adl.Loader`` reads without the GIL), behave as ``Trace`` and ``Dataset``
here but are written in Rust; to subclass, with an ``__init__`` of one's
own, use the classes here. A sensor's exception from ``Trace`` or
``Dataset`` here carries a note naming the sensor, the trace and the
samples.

``Metadata`` is the specification's protocol itself
([`adl.spec.Metadata`][adl.spec.Metadata]).
"""

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from typing import Any, TypeVar, cast, overload

import numpy as np
from jaxtyping import Float, Int64, Integer

from adl import _native, spec
from adl.spec import Metadata

__all__ = [
    "Dataset", "Metadata", "Sensor", "Synchronization", "Trace", "Pipeline",
    "Transform", "Collate"
]

TSample = TypeVar("TSample")
TMetadata = TypeVar("TMetadata", bound=spec.Metadata)
TTrace = TypeVar("TTrace", bound=spec.Trace)


class Sensor(ABC, spec.Sensor[TSample, TMetadata]):
    """A sensor whose subclass gives ``__getitem__``; the rest follows from
    its metadata's timestamps.

    Type Parameters:
        - ``TSample``: what ``sensor[i]`` returns (by convention, with a
          leading axis of one).
        - ``TMetadata``: its metadata, a
          [`Metadata`][adl.spec.Metadata].

    Args:
        metadata: the sensor's metadata, with its ``timestamps``.
        name: a name for messages and inspection.

    Attributes:
        metadata: the sensor's metadata (settable, where the protocol's
            is read-only).
        name: its name.
    """

    metadata: TMetadata
    name: str

    def __init__(self, metadata: TMetadata, name: str = "sensor") -> None:
        self.metadata = metadata
        self.name = name

    @overload
    def stream(self, batch: None = None) -> Iterator[TSample]: ...

    @overload
    def stream(self, batch: int) -> Iterator[list[TSample]]: ...

    def stream(
        self, batch: int | None = None
    ) -> Iterator[TSample | list[TSample]]:
        """The samples in order, read one by one with ``__getitem__``.

        Args:
            batch: ``None`` for samples one at a time; else lists of
                ``batch`` consecutive samples (a last, shorter list is
                left out).

        Returns:
            An iterator over samples, or over lists of them.
        """
        count = len(self)
        if batch is None:
            for index in range(count):
                yield self[index]
            return
        for first in range(0, count // batch * batch, batch):
            yield [self[index] for index in range(first, first + batch)]

    @abstractmethod
    def __getitem__(
        self, index: int | np.integer
    ) -> TSample:
        """Sample ``index`` of this sensor.

        Args:
            index: the sample's position in the sensor's recording.

        Returns:
            The sample, read.
        """
        ...

    def __len__(self) -> int:
        """How many samples the sensor recorded: as many as its metadata
        has timestamps."""
        return int(self.metadata.timestamps.shape[0])

    @property
    def duration(self) -> float:
        """Seconds from the first sample to the last (``0.0`` for a sensor
        without samples)."""
        timestamps = self.metadata.timestamps
        if len(timestamps) == 0:
            return 0.0
        span: float = timestamps[-1] - timestamps[0]
        return span

    @property
    def framerate(self) -> float:
        """Samples per second: ``n`` samples span ``n - 1`` periods."""
        return (len(self) - 1) / self.duration

    def __repr__(self) -> str:  # noqa: D105
        return f"{type(self).__name__}({self.name}, n={len(self)})"


def _note(error: BaseException, where: str) -> None:
    """Add ``where`` to ``error``'s notes (its class and message stay the
    sensor's own). Python 3.10 has no ``add_note``: the same ``__notes__``
    list is kept there, which its tracebacks do not show but
    ``adl.LoaderError``'s message does, as for ``adl.Trace``."""
    if hasattr(error, "add_note"):
        error.add_note(where)
        return
    try:
        notes = error.__dict__.setdefault("__notes__", [])
        notes.append(where)
    except (AttributeError, TypeError):
        pass  # an exception that takes no attribute keeps its message


def _first_value(mapping: Mapping[str, Any], what: str, trace: str) -> Any:
    """The first value of ``mapping``; an ``IndexError`` naming ``what`` of
    ``trace`` when it has none."""
    for value in mapping.values():
        return value
    raise IndexError(f"trace {trace!r} has no {what}: it has no length")


def _indices_by(
    sync: (spec.Synchronization | Mapping[str, Integer[np.ndarray, "N"]]
           | None),
    sensors: Mapping[str, spec.Sensor[Any, Any]],
) -> Mapping[str, Integer[np.ndarray, "N"]] | None:
    """A trace's indices from its ``sync`` argument: given indices (or
    ``None``, synchronous sensors) as they are; a policy's, from every
    sensor's timestamps."""
    if sync is not None and not isinstance(sync, Mapping):
        every_timestamp = {}
        for sensor_name in sensors:
            every_timestamp[sensor_name] = (
                sensors[sensor_name].metadata.timestamps)
        return sync(every_timestamp)
    return sync


class Trace(spec.Trace[TSample]):
    """Sensors that recorded together, their samples synchronized.

    ``trace[i]`` is ``{name: sensor[indices[name][i]]}`` for each sensor,
    in the order of ``sensors`` (``{name: sensor[i]}`` without indices);
    ``trace["name"]`` is the sensor.

    Type Parameters:
        - ``TSample``: what ``trace[i]`` returns.

    Args:
        sensors: the sensors, by name.
        sync: a policy ([`Synchronization`][adl.spec.Synchronization],
            called once here with every sensor's timestamps: adl's policies
            compute in Rust), the indices themselves (``{name: array}``,
            used as they are), or ``None`` when the sensors are synchronous
            already (sample ``i`` of each).
        name: a name for messages and inspection.
    """

    def __init__(
        self, sensors: Mapping[str, spec.Sensor],
        sync: (
            spec.Synchronization | Mapping[str, Integer[np.ndarray, "N"]]
            | None) = None,
        name: str = "trace"
    ) -> None:
        self.sensors = sensors
        self.name = name
        self.indices = _indices_by(sync, sensors)

    @overload
    def __getitem__(self, index: str) -> Sensor: ...

    @overload
    def __getitem__(self, index: int | np.integer) -> TSample: ...

    def __getitem__(
        self, index: int | np.integer | str
    ) -> TSample | spec.Sensor:
        """Global sample ``index`` (each sensor's sample at its synchronized
        index), or the sensor named ``index``.

        Args:
            index: a sample's index (negative counts from the end), or a
                sensor's name.

        Returns:
            ``{name: sample}`` for an integer; the sensor for a ``str``.

        A sensor's exception is raised as it is, with a note naming the
        sensor, its sample and the trace.
        """
        if isinstance(index, str):
            return self.sensors[index]
        indices = self.indices
        sample = {}
        for name, sensor in self.sensors.items():
            row = index if indices is None else indices[name][index].item()
            try:
                sample[name] = sensor[row]
            except Exception as error:
                _note(error, f"reading sample {row} of sensor '{name}' for "
                             f"sample {index} of trace '{self.name}'")
                raise
        return cast(TSample, sample)

    def __len__(self) -> int:
        """How many synchronized samples: the length of the indices (of the
        first sensor, when the sensors are synchronous already)."""
        if self.indices is None:
            return len(_first_value(self.sensors, "sensors", self.name))
        return int(_first_value(self.indices, "indices", self.name).shape[0])

    def __repr__(self) -> str:  # noqa: D105
        names = ", ".join(self.sensors.keys())
        return f"{type(self).__name__}({self.name}, {len(self)}x[{names}])"

    def children(self) -> Iterable[Any]:
        """The sensors (the trace's children in a tree of components)."""
        return self.sensors.values()


class Dataset(spec.Dataset[TSample]):
    """Traces (or any datasets) one after another: global sample ``i`` is
    sample ``i - start`` of the trace it falls in.

    Type Parameters:
        - ``TSample``: what ``dataset[i]`` returns.

    Args:
        traces: the traces, in order.
    """

    def __init__(self, traces: Sequence[spec.Trace[TSample]]) -> None:
        self.traces = traces

    @cached_property
    def indices(self) -> Int64[np.ndarray, "N"]:
        """Each trace's end as a global index (the running sum of their
        lengths, int64), computed on first use."""
        lengths = np.fromiter((len(trace) for trace in self.traces),
                              dtype=np.int64, count=len(self.traces))
        return np.cumsum(lengths, dtype=np.int64)

    def __getitem__(self, index: int | np.integer) -> TSample:
        """Global sample ``index``, read from its trace.

        The trace is found by a binary search over [`indices`][^.]; a
        numpy index is taken as ``int64`` first (numpy would make the
        difference of unsigned integers a float).

        Args:
            index: the sample's global index, in ``[0, len(self))``.

        Returns:
            The sample, read.

        Raises:
            IndexError: ``index`` is negative or past the last sample.
                A trace's exception is raised as it is, with a note naming
                the trace and its sample.
        """
        length = len(self)
        if index < 0 or index >= length:
            raise IndexError(
                f"Index {index} is out of bounds for dataset with length "
                f"{length}.")
        if isinstance(index, np.integer):
            index = np.int64(index)
        ends = self.indices
        trace = int(np.searchsorted(ends, index, side="right"))
        local = index - ends[trace - 1] if trace > 0 else index
        try:
            return self.traces[trace][local]
        except Exception as error:
            name = getattr(self.traces[trace], "name", None)
            _note(error, f"reading sample {local} of trace {trace}"
                         f"{f' ({name!r})' if isinstance(name, str) else ''} for "
                         f"sample {index} of the dataset")
            raise

    def __len__(self) -> int:
        """How many samples, over every trace."""
        ends = self.indices
        return ends[-1].item() if ends.shape[0] > 0 else 0

    def __repr__(self) -> str:  # noqa: D105
        return f"{type(self).__name__}({len(self.traces)} traces, n={len(self)})"

    def children(self) -> Iterable[Any]:
        """The traces (the dataset's children in a tree of components)."""
        return self.traces


TRaw = TypeVar("TRaw")
TTransformed = TypeVar("TTransformed")
TCollated = TypeVar("TCollated")
TProcessed = TypeVar("TProcessed")


class Transform(spec.Transform[TRaw, TTransformed]):
    """Transforms applied one after another, each to the previous one's
    result (their types are checked only when they run, by a runtime type
    checker if there is one).

    Type Parameters:
        - ``TRaw``: what the first takes.
        - ``TTransformed``: what the last returns.

    Args:
        transforms: the transforms, in the order they apply.
    """

    def __init__(self, transforms: Sequence[spec.Transform]) -> None:
        self.transforms = transforms

    def __call__(self, data: TRaw) -> TTransformed:
        """Apply every transform in turn.

        Args:
            data: a ``TRaw`` sample or batch.

        Returns:
            The last transform's ``TTransformed`` result.
        """
        result: Any = data
        for transform in self.transforms:
            result = transform(result)
        return cast(TTransformed, result)

    def children(self) -> Iterable[Any]:
        """The transforms (this one's children in a tree of components)."""
        return self.transforms


class Collate(spec.Collate[TTransformed, TCollated]):
    """A collate that keeps the samples as they are: the batch is the
    sequence of samples. Subclasses override ``__call__``.

    Type Parameters:
        - ``TTransformed``: one sample.
        - ``TCollated``: the batch.
    """

    def __call__(self, data: Sequence[TTransformed]) -> TCollated:
        """The samples, as the batch.

        Args:
            data: the samples of one batch.

        Returns:
            ``data`` itself.
        """
        return cast(TCollated, data)


class Pipeline(
    spec.Pipeline[TRaw, TTransformed, TCollated, TProcessed]
):
    """A pipeline from its stages; a stage not given is the class's own
    method (the identity here, or a subclass's override).

    Type Parameters:
        - ``TRaw``: a sample as the dataset gives it.
        - ``TTransformed``: a sample after ``sample``.
        - ``TCollated``: a batch after ``collate``.
        - ``TProcessed``: a batch after ``batch``.

    Args:
        sample: each sample's transform; ``None`` for the class's
            ``sample``.
        collate: the collate; ``None`` for the class's ``collate`` (the
            identity here: the batch is the list of samples).
        batch: each batch's transform; ``None`` for the class's ``batch``.
    """

    def __init__(
        self, sample: spec.Transform[TRaw, TTransformed] | None = None,
        collate: spec.Collate[TTransformed, TCollated] | None = None,
        batch: spec.Transform[TCollated, TProcessed] | None = None
    ) -> None:
        self._children = []
        for stage, given in (("sample", sample), ("collate", collate),
                             ("batch", batch)):
            if given is not None:
                # An instance attribute, in front of the class's method.
                setattr(self, stage, given)
                self._children.append(given)

    def sample(self, data: TRaw) -> TTransformed:
        """One sample's transform: the identity, unless given or
        overridden.

        Args:
            data: one ``TRaw`` sample.

        Returns:
            The ``TTransformed`` sample.
        """
        return cast(TTransformed, data)

    def collate(self, data: Sequence[TTransformed]) -> TCollated:
        """The batch of ``data``: the samples as they are, unless given or
        overridden.

        Args:
            data: the ``TTransformed`` samples of one batch.

        Returns:
            The ``TCollated`` batch.
        """
        return cast(TCollated, data)

    def batch(self, data: TCollated) -> TProcessed:
        """A batch's transform: the identity, unless given or overridden.
        (A pipeline with GPU state is better an ``adl.ext.torch.Pipeline``,
        a ``torch.nn.Module``.)

        Args:
            data: a ``TCollated`` batch, where the model runs.

        Returns:
            The ``TProcessed`` batch.
        """
        return cast(TProcessed, data)

    def children(self) -> Iterable[Any]:
        """The stages given (this one's children in a tree of
        components)."""
        return self._children


class Synchronization(ABC, spec.Synchronization):
    """A policy that synchronizes to a reference sensor, inside margins.

    The reference sensor's timestamps, inside every sensor's span, are
    what the other sensors' samples are matched to
    ([`get_reference`][^.]). A margin leaves out samples at the start and
    the end of each sensor: ``(start, end)``, each end a number of samples
    (an ``int``) or of seconds (anything else, a ``float``); one pair for
    every sensor, or ``{sensor: (start, end)}`` (a sensor not named has
    none). Any sequence of two will do as a pair (configuration systems
    such as Hydra give lists); another length is a ``TypeError``.

    Args:
        reference: the reference sensor's name.
        margin: ``(start, end)`` for every sensor, or per sensor.
    """

    def __init__(
        self, reference: str,
        margin: Mapping[str, Sequence[int | float]]
            | Sequence[int | float] = {}  # noqa: B006 (never mutated)
    ) -> None:
        default: Sequence[int | float]
        per_sensor: Mapping[str, Sequence[int | float]]
        if isinstance(margin, Sequence):
            if len(margin) != 2:
                raise TypeError(
                    f"Margin must be a sequence of length 2, got "
                    f"{len(margin)}: {margin}")
            default, per_sensor = margin, {}
        else:
            for sensor, pair in margin.items():
                if len(pair) != 2:
                    raise TypeError(
                        f"Margin for sensor {sensor} must be a sequence of "
                        f"length 2, got {len(pair)}: {pair}")
            default, per_sensor = (0, 0), margin
        self.reference = reference
        # The reference's names: a subclass may read them.
        self._default = default
        self._margin = per_sensor

    def apply_margin(
        self, timestamps: Mapping[str, Float[np.ndarray, "_N"]],
    ) -> tuple[dict[str, int], dict[str, int]]:
        """Each sensor's first and last sample inside its margin.

        An end in samples counts from the sensor's first (last) sample;
        one in seconds is the first sample at or after the first timestamp
        plus it (the last at or before the last timestamp minus it). Like
        the reference's, the indices are not checked against the sensor's
        length here (``get_reference`` checks them).

        Args:
            timestamps: each sensor's timestamps, by name.

        Returns:
            ``(start, end)``: by sensor name, the first and the last index
                kept (``end`` inclusive).
        """
        starts: dict[str, int] = {}
        ends: dict[str, int] = {}
        for name, times in timestamps.items():
            before, after = self._margin.get(name, self._default)
            if isinstance(before, int):
                starts[name] = before
            else:
                starts[name] = int(np.searchsorted(
                    times, times[0] + before, side="left"))
            if isinstance(after, int):
                ends[name] = len(times) - 1 - after
            else:
                ends[name] = int(np.searchsorted(
                    times, times[-1] - after, side="right")) - 1
        return starts, ends

    def get_reference(
        self, timestamps: Mapping[str, Float[np.ndarray, "_N"]]
    ) -> Float[np.ndarray, "_M"]:
        """The reference sensor's timestamps from the latest first sample to
        the earliest last sample of every sensor, margins applied.

        Args:
            timestamps: each sensor's timestamps, by name.

        Returns:
            The reference's timestamps inside every sensor's span.

        Raises:
            KeyError: the reference sensor is not in ``timestamps``, or a
                margin names a sensor that is not.
            ValueError: a sensor's timestamps are not sorted or not finite,
                or all equal (a clock that does not advance).
            IndexError: a sensor has no samples, or a margin is a negative
                count of samples or leaves a sensor none.
        """
        if self.reference not in timestamps:
            raise KeyError(
                f"Reference sensor {self.reference} was not provided in "
                f"timestamps, with keys: {list(timestamps.keys())}")
        # adl's checks, as its policies make them (the same errors, in the
        # same words): sorted, finite timestamps, a clock that advances, no
        # empty sensor, margins that name sensors there and leave each one
        # a sample.
        _native.Next(self.reference, self._margin or self._default)(timestamps)
        starts, ends = self.apply_margin(timestamps)
        latest_start = max(timestamps[name][starts[name]] for name in timestamps)
        earliest_end = min(timestamps[name][ends[name]] for name in timestamps)
        reference = timestamps[self.reference]
        first = np.searchsorted(reference, latest_start, side="left")
        last = np.searchsorted(reference, earliest_end, side="right")
        return reference[first:last]

    @abstractmethod
    def __call__(
        self, timestamps: dict[str, Float[np.ndarray, "_N"]]
    ) -> dict[str, Integer[np.ndarray, "M"]]:
        """Match the sensors' samples.

        Args:
            timestamps: each sensor's timestamps, by name.

        Returns:
            By sensor name, that sensor's indices: global sample ``i`` is
                ``{s: sensor_s[indices[s][i]]}``.
        """
        ...
