"""The Abstract Dataloader's specification as protocols: what a sensor, a
trace, a dataset, a synchronization policy, a transform, a collate and a
pipeline are, by the methods and attributes they have
(``abstract_dataloader.spec`` 0.4.7, under the same names).

Any object with the right methods satisfies a protocol, whether it
subclasses it or not: adl's classes, the reference's, a user's own. Every
protocol here is ``runtime_checkable`` (``isinstance`` checks that the
methods are there), generic in the types it reads and returns
(``Sensor[TSample, TMetadata]``, ``Pipeline[TRaw, TTransformed, TCollated,
TProcessed]``, ...), and usable in beartype and jaxtyping annotations::

    from beartype import beartype
    from adl import spec

    @beartype
    def first(dataset: spec.Dataset[dict]) -> dict:
        return dataset[0]

Structurally the protocols are the reference's, so an annotation with
``adl.spec.Trace`` accepts the reference's traces, and one with the
reference's ``spec.Trace`` accepts adl's.
"""

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Generic, Protocol, overload, runtime_checkable

import numpy as np
from jaxtyping import Float, Integer
from typing_extensions import TypeVar

__all__ = [
    "Dataset", "Metadata", "Sensor", "Synchronization", "Trace", "Pipeline",
    "Transform", "Collate"
]


@runtime_checkable
class Metadata(Protocol):
    """What a sensor knows about its recording without reading it: at
    least its ``timestamps``.

    Metadata stays in memory for the whole of training, a copy per worker:
    keep it small, and load anything large as data instead. A dataclass, a
    ``NamedTuple`` or any object with a ``timestamps`` attribute will do.

    Attributes:
        timestamps: when each sample was measured, in seconds (float64
            gives microseconds over epoch times), sorted; consistent
            within a trace, not necessarily across traces.
    """

    if TYPE_CHECKING:
        # Read-only to a type checker, so that a sensor's metadata whose
        # ``timestamps`` is a property (adl's native sensors') is one;
        # at runtime an annotation, as the reference's, so that a
        # subclass (a dataclass, or one that sets ``self.timestamps``)
        # has the attribute of its own and no inherited property.
        @property
        def timestamps(self) -> Float[np.ndarray, "N"]:
            """When each sample was measured, in seconds."""
            ...
    else:
        timestamps: Float[np.ndarray, "N"]


TSample = TypeVar("TSample", covariant=True)
if TYPE_CHECKING:
    # Covariant to a type checker, as a read-only ``Sensor.metadata``
    # makes it; invariant at runtime, as the reference's.
    TMetadata = TypeVar("TMetadata", bound=Metadata, covariant=True)
else:
    TMetadata = TypeVar("TMetadata", bound=Metadata)


@runtime_checkable
class Sensor(Protocol, Generic[TSample, TMetadata]):
    """One sensor's recording: a time series of samples, read by index.

    ``Sensor[TSample, TMetadata]`` says what its samples and its metadata
    are (``Sensor[Point, Any]``: samples of type ``Point``, any metadata).

    Type Parameters:
        - ``TSample``: what ``sensor[i]`` returns (by convention, with a
          leading axis of one).
        - ``TMetadata``: its metadata, a [`Metadata`][^.].

    Attributes:
        metadata: the sensor's metadata, its timestamps among them.
    """

    if TYPE_CHECKING:
        # Read-only to a type checker (adl's native sensors' is a
        # property); at runtime an annotation, as the reference's, so
        # that a subclass may set ``self.metadata``.
        @property
        def metadata(self) -> TMetadata:
            """The sensor's metadata, its timestamps among them."""
            ...
    else:
        metadata: TMetadata

    def stream(self) -> Iterator[TSample]:
        """The samples, first to last.

        Returns:
            An iterator over the sensor's samples.
        """
        ...

    def __getitem__(self, index: int | np.integer) -> TSample:
        """Sample ``index`` of this sensor (an index into its timestamps).

        Args:
            index: the sample's position in this sensor's recording.

        Returns:
            The sample, read.
        """
        ...

    def __len__(self) -> int:
        """How many samples the sensor recorded."""
        ...


@runtime_checkable
class Synchronization(Protocol):
    """A rule that matches the samples of asynchronous sensors: from each
    sensor's timestamps, the index of each sensor's sample in each global
    sample.

    adl's policies (``adl.generic``): ``Empty``, ``Next``, ``Nearest``,
    computed in Rust, and ``Decimate`` over any policy.
    """

    def __call__(
        self, timestamps: dict[str, Float[np.ndarray, "_N"]]
    ) -> dict[str, Integer[np.ndarray, "M"]]:
        """Match the sensors' samples.

        Args:
            timestamps: each sensor's timestamps, by sensor name.

        Returns:
            By sensor name, an array of that sensor's indices: global
                sample ``i`` is ``{s: sensor_s[indices[s][i]]}``.
        """
        ...


@runtime_checkable
class Trace(Protocol, Generic[TSample]):
    """Sensors that recorded at the same time (a drive, a flight, a
    session), their samples synchronized into one sequence.

    (Not called ``Sequence``, which ``collections.abc`` names already.)
    A ``str`` index is a sensor's name and gives the sensor.

    Type Parameters:
        - ``TSample``: what ``trace[i]`` returns.
    """

    @overload
    def __getitem__(self, index: str) -> Sensor: ...

    @overload
    def __getitem__(self, index: int | np.integer) -> TSample: ...

    def __getitem__(self, index: int | np.integer | str) -> TSample | Sensor:
        """Global sample ``index``, or the sensor named ``index``.

        Args:
            index: a sample's index, or a sensor's name.

        Returns:
            The synchronized sample for an integer; the
                [`Sensor`][^^.] for a ``str``.
        """
        ...

    def __len__(self) -> int:
        """How many synchronized samples the trace has."""
        ...


@runtime_checkable
class Dataset(Protocol, Generic[TSample]):
    """Samples by global index: traces one after another, or any other
    indexable collection.

    A [`Trace`][^.] and a [`Sensor`][^.] are datasets too (they index by
    integer and have a length), so a dataset of datasets is as valid as
    a dataset of traces.

    Type Parameters:
        - ``TSample``: what ``dataset[i]`` returns.
    """

    def __getitem__(self, index: int | np.integer) -> TSample:
        """Global sample ``index``.

        Args:
            index: the sample's global index.

        Returns:
            The sample, read.
        """
        ...

    def __len__(self) -> int:
        """How many samples the dataset has."""
        ...


if TYPE_CHECKING:
    # mypy reads no ``infer_variance`` on a type variable made by a call
    # (only on Python 3.12's ``class Pipeline[TRaw, ...]``), so a type
    # checker sees each protocol's parameters with the variance its
    # methods give them: the public names are ``Pipeline``'s (a raw
    # sample goes in, a processed batch comes out, the transformed
    # samples and the collated batch go both ways); ``Transform`` and
    # ``Collate`` take one type in and give one out.
    TRaw = TypeVar("TRaw", contravariant=True)
    TTransformed = TypeVar("TTransformed")
    TCollated = TypeVar("TCollated")
    TProcessed = TypeVar("TProcessed", covariant=True)
    _TransformIn = TypeVar("_TransformIn", contravariant=True)
    _TransformOut = TypeVar("_TransformOut", covariant=True)
    _CollateIn = TypeVar("_CollateIn", contravariant=True)
    _CollateOut = TypeVar("_CollateOut", covariant=True)
else:
    # At runtime the reference's own, their variance inferred: each
    # protocol's ``__parameters__`` are these, under these names.
    TRaw = TypeVar("TRaw", infer_variance=True)
    TTransformed = TypeVar("TTransformed", infer_variance=True)
    TCollated = TypeVar("TCollated", infer_variance=True)
    TProcessed = TypeVar("TProcessed", infer_variance=True)
    _TransformIn, _TransformOut = TRaw, TTransformed
    _CollateIn, _CollateOut = TTransformed, TCollated


@runtime_checkable
class Transform(Protocol, Generic[_TransformIn, _TransformOut]):
    """A function of one sample (or one batch): ``Callable[[TRaw],
    TTransformed]`` under a name that says what it is for.

    Type Parameters:
        - ``TRaw``: what it takes.
        - ``TTransformed``: what it returns.
    """

    def __call__(self, data: _TransformIn) -> _TransformOut:
        """Transform ``data``.

        Args:
            data: one ``TRaw`` sample or batch.

        Returns:
            Its ``TTransformed`` result.
        """
        ...


@runtime_checkable
class Collate(Protocol, Generic[_CollateIn, _CollateOut]):
    """Samples into a batch: ``Callable[[Sequence[TTransformed]],
    TCollated]``, a [`Transform`][^.] whose input is a sequence.

    Type Parameters:
        - ``TTransformed``: one sample.
        - ``TCollated``: the batch.
    """

    def __call__(self, data: Sequence[_CollateIn]) -> _CollateOut:
        """Collate ``data`` into one batch.

        Args:
            data: the samples of the batch.

        Returns:
            The ``TCollated`` batch.
        """
        ...


@runtime_checkable
class Pipeline(
    Protocol, Generic[TRaw, TTransformed, TCollated, TProcessed]
):
    """What happens to samples between the dataset and the model, in
    three stages:

    | method | from | to |
    |---|---|---|
    | ``sample`` | ``TRaw`` | ``TTransformed`` (each sample, on the CPU, in the workers) |
    | ``collate`` | a sequence of ``TTransformed`` | ``TCollated`` (a batch) |
    | ``batch`` | ``TCollated`` | ``TProcessed`` (the batch, where the model is) |

    ``sample`` and ``batch`` may each be several [`Transform`][^.]s in a
    row; ``collate`` is exactly one [`Collate`][^.].

    Type Parameters:
        - ``TRaw``: a sample as the dataset gives it.
        - ``TTransformed``: a sample after ``sample``.
        - ``TCollated``: a batch after ``collate``.
        - ``TProcessed``: a batch after ``batch``, what the model takes.
    """

    def sample(self, data: TRaw) -> TTransformed:
        """Transform one sample (on the CPU, in a loader's worker).

        Args:
            data: one ``TRaw`` sample.

        Returns:
            The ``TTransformed`` sample.
        """
        ...

    def collate(self, data: Sequence[TTransformed]) -> TCollated:
        """Collate transformed samples into a batch (on the CPU; the
        ``collate_fn`` of a PyTorch ``DataLoader``).

        Args:
            data: the ``TTransformed`` samples of one batch.

        Returns:
            The ``TCollated`` batch.
        """
        ...

    def batch(self, data: TCollated) -> TProcessed:
        """Transform a batch (where the model runs, a GPU nominally).

        A pipeline with state on the GPU may be a ``torch.nn.Module``
        whose ``batch`` calls the module, so that its hooks run.

        Args:
            data: a ``TCollated`` batch.

        Returns:
            The ``TProcessed`` batch, what the model takes.
        """
        ...
