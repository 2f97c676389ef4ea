"""Types of ``adl._native``, the Rust half of ``adl`` (adl-python/src, PyO3).

Every class, function and exception the extension defines, as its
``#[pyclass]``, ``#[pymethods]`` and ``#[pyfunction]`` signatures give
them; ``tests/test_typing.py`` checks this file against the built module
(``mypy.stubtest``), so a signature changed in Rust fails there until it is
changed here too. Most of these are used under the names of the pure-Python
modules that re-export them (``adl.Loader``, ``adl.files.Npy``,
``adl.transforms.Normalize``, ...).
"""

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, Protocol, SupportsIndex, TypedDict, final, overload, type_check_only

import numpy as np
from numpy.typing import ArrayLike, NDArray
from typing_extensions import Self, TypeAlias, disjoint_base

from adl import spec

# What the module lists (PyO3 makes __all__ of what it adds, in order).
__all__ = [
    "Empty",
    "Next",
    "Nearest",
    "Trace",
    "Dataset",
    "Loader",
    "Epoch",
    "Metadata",
    "Images",
    "EncodedImages",
    "Interpolated",
    "Npy",
    "Table",
    "Stream",
    "Video",
    "NativeLeRobot",
    "RoverSensor",
    "Log",
    "Topic",
    "Bag",
    "RosTopic",
    "RosView",
    "default_collate",
    "RustLoader",
    "RustLoaderEpoch",
    "BatchMemory",
    "Pipeline",
    "Transform",
    "RandomResizedCrop",
    "Decode",
    "RandomFlip",
    "ToFloat",
    "Normalize",
    "Affine",
    "Clamp",
    "LoaderError",
    "BUILD",
    "_at_exit",
]

# Helpers of this file only (not in the module).

@type_check_only
class _Indexed(Protocol):
    """What adl reads by position: ``obj[i]`` for ``0 <= i < len(obj)``
    (a dataset, a trace, a list)."""

    def __getitem__(self, index: int, /) -> Any: ...
    def __len__(self) -> int: ...

@type_check_only
class _PythonPipeline(Protocol):
    """A pipeline of Python code, as ``abstract_dataloader.spec.Pipeline``
    (whose type variables mypy cannot read: they infer their variance)."""

    def sample(self, data: Any, /) -> Any: ...
    def collate(self, data: Sequence[Any], /) -> Any: ...
    def batch(self, data: Any, /) -> Any: ...

@type_check_only
class _LoaderState(TypedDict):
    """A loader's ``state_dict()``: where an epoch stands, what
    ``load_state_dict`` resumes from."""

    version: int
    epoch: int
    cursor: int
    sampler: str
    seed: int
    pipeline: int
    dataset_len: int

# A policy's margin: (start, end) for every sensor, or per sensor; each end
# samples (int) or seconds (float).
_Margin: TypeAlias = Mapping[str, Sequence[float]] | Sequence[float]

# Where an image's channels are: [H, W, C] or [C, H, W].
_Layout: TypeAlias = Literal["hwc", "chw"]

# The element types an Npy reads.
_NpyDtype: TypeAlias = Literal["float32", "float64", "uint8", "int16", "uint16", "int32", "int64"]

# The kinds of RosTopic.view.
_RosViewKind: TypeAlias = Literal["image", "image16", "depth", "points", "imu", "fix", "scan", "pose"]

# A sensor of the specification (``metadata.timestamps``, ``__getitem__``,
# ``__len__``): any object that has them.
_Sensor: TypeAlias = Any

# A node of an adl.Pipeline: one of adl's transforms, or a Python callable
# (given and giving dicts of NumPy arrays).
_Node: TypeAlias = Transform | Callable[[Any], Any]

# Synchronization (adl.generic's policies, computed in Rust).

@final
class Empty:
    """No synchronization: an empty index array for every sensor."""

    def __new__(cls) -> Self: ...
    def __call__(self, timestamps: Mapping[str, ArrayLike]) -> dict[str, NDArray[np.uint32]]:
        """``{sensor: []}`` (uint32) for every sensor of ``timestamps``."""
    def __repr__(self) -> str: ...

@final
class Next:
    """Each sensor's first sample at or after each reference sample inside
    every sensor's (margin-trimmed) span."""

    def __new__(cls, reference: str, margin: _Margin | None = None) -> Self: ...
    @property
    def reference(self) -> str:
        """The reference sensor's name."""
    @property
    def margin(self) -> _Margin:
        """The margin, as it was given (``{}`` when none was)."""
    def __call__(self, timestamps: Mapping[str, ArrayLike]) -> dict[str, NDArray[np.uint32]]:
        """The indices of every sensor of ``timestamps``."""
    def __repr__(self) -> str: ...

@final
class Nearest:
    """Each sensor's nearest sample to each reference sample inside every
    sensor's (margin-trimmed) span, kept where every sensor's is within
    ``tol`` seconds (strictly)."""

    def __new__(cls, reference: str, margin: _Margin | None = None, tol: float | None = None) -> Self: ...
    @property
    def reference(self) -> str:
        """The reference sensor's name."""
    @property
    def tol(self) -> float:
        """The tolerance, in seconds."""
    @property
    def margin(self) -> _Margin:
        """The margin, as it was given (``{}`` when none was)."""
    def __call__(self, timestamps: Mapping[str, ArrayLike]) -> dict[str, NDArray[np.uint32]]:
        """The indices of every sensor of ``timestamps``."""
    def __repr__(self) -> str: ...

# Interpolated synchronization.

@final
class Interpolated:
    """A sensor evaluated at other times, typically another sensor's:
    sample ``i`` is ``{"value": ..., "valid": bool}``, the sensor
    interpolated at ``times[i]``. Numbers and numeric arrays linearly (as
    NumPy's ``interp``), the quaternions at the key paths named by
    ``slerp`` by spherical linear interpolation (as SciPy's ``Slerp``),
    dicts, lists and tuples part by part, anything else the nearer
    sample's. Never extrapolated: a time outside the sensor's samples, or
    in a gap longer than ``max_gap`` seconds, is masked (``gaps="mask"``)
    or refused (``gaps="refuse"``, a ``ValueError``)."""

    def __new__(
        cls,
        sensor: _Sensor,
        times: ArrayLike | _Sensor,
        max_gap: float = ...,
        gaps: Literal["mask", "refuse"] = "mask",
        slerp: Sequence[str] = ...,
        name: str | None = None,
    ) -> Self: ...
    @property
    def metadata(self) -> Metadata:
        """The times it is evaluated at (``metadata.timestamps``, seconds)."""
    @property
    def sensor(self) -> _Sensor:
        """The sensor interpolated."""
    @property
    def name(self) -> str:
        """The sensor's name, as errors give it."""
    @property
    def max_gap(self) -> float:
        """The longest gap interpolated across, in seconds."""
    @property
    def gaps(self) -> Literal["mask", "refuse"]:
        """What a time it cannot interpolate at gives."""
    @property
    def slerp(self) -> list[str]:
        """The key paths interpolated as quaternions."""
    @property
    def valid(self) -> int:
        """How many of its times have a valid interpolation."""
    def __len__(self) -> int: ...
    def __getitem__(self, key: SupportsIndex, /) -> dict[str, Any]:
        """The sensor at time ``key``: ``{"value": ..., "valid": bool}``."""
    def stream(self, batch: int | None = None) -> Stream:
        """The samples one after another, or lists of ``batch`` of them."""
    def __repr__(self) -> str: ...

# Traces and datasets.

@disjoint_base
class Trace:
    """A trace: ``sensors`` (names to sensors), their samples matched by a
    policy ``sync``, by the index arrays given, or not at all (``None``:
    sample ``i`` of each)."""

    def __new__(
        cls,
        sensors: Mapping[str, Any],
        sync: spec.Synchronization | Mapping[str, NDArray[np.integer[Any]]] | None = None,
        name: str = "trace",
    ) -> Self: ...
    @property
    def sensors(self) -> Mapping[str, Any]:
        """The sensors, as given."""
    @property
    def name(self) -> str:
        """The trace's name, for messages and inspection."""
    @property
    def indices(self) -> Mapping[str, NDArray[np.integer[Any]]] | None:
        """``None``, the index arrays given, or the policy's result."""
    @overload
    def __getitem__(self, key: str, /) -> Any:
        """The sensor named ``key``."""
    @overload
    def __getitem__(self, key: SupportsIndex, /) -> dict[str, Any]:
        """Sample ``key``: each sensor's sample at its synchronized index."""
    def __len__(self) -> int:
        """The number of synchronized samples."""
    def __repr__(self) -> str: ...
    def children(self) -> list[Any]:
        """The sensors (the trace's children in a tree of components)."""
    def draw_sync(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        reference: str | None = None,
        tolerance: float | None = None,
    ) -> str:
        """The synchronization drawn as SVG (returned, and written to
        ``path`` where given): each sensor's timestamps on one time axis,
        the reference's first; each sample's match from its reference
        stamp to every other sensor's, green, or red beyond ``tolerance``;
        the reference stamps no sample reads crossed out; another sensor's
        stretches without a stamp for over twice the tolerance shaded; an
        ``adl.Interpolated`` sensor drawn from the stamps it interpolates
        (a line to the stamp a time is at, two dashed ones to those it is
        interpolated between, an orange diamond where it is masked).
        ``reference`` and ``tolerance`` default to the policy's
        (``generic.Nearest``'s ``reference`` and ``tol``), else the first
        sensor and none."""

@disjoint_base
class Dataset:
    """A dataset: ``traces`` one after another; sample ``i`` is sample
    ``i - start`` of the trace it falls in."""

    def __new__(cls, traces: Sequence[_Indexed]) -> Self: ...
    @property
    def traces(self) -> Sequence[_Indexed]:
        """The traces, as given."""
    @property
    def indices(self) -> NDArray[np.int64]:
        """The end of each trace, as a global index."""
    def __getitem__(self, key: SupportsIndex, /) -> Any:
        """Sample ``key`` (``0 <= key < len(self)``; another is an
        ``IndexError``)."""
    def __len__(self) -> int:
        """The number of samples over every trace."""
    def children(self) -> list[Any]:
        """The traces (the dataset's children in a tree of components)."""

# The loader.

BUILD: str
"""How adl's native library was compiled: ``"release"`` or ``"debug"``."""

class LoaderError(RuntimeError):
    """A sample or batch the loader could not make: the message names the
    sample (its index) and the step; the Python exception that caused it,
    if one did, is its ``__cause__``."""

@final
class Loader:
    """adl's loader over ``dataset`` (anything with ``__getitem__`` and
    ``__len__``) and ``pipeline`` (an ``adl.Pipeline``, a
    ``spec.Pipeline``, or none: the samples collated by
    ``default_collate``). ``indices`` reads those dataset indices, in
    their order, each epoch (a part of the dataset, or an order of one's
    own; not with ``shuffle``). ``processes=True`` runs the Python code (the
    dataset's ``__getitem__``, the pipeline's ``sample`` and ``collate``)
    in ``workers`` worker processes, each making whole batches; ``None``
    (the default, with workers) chooses them after an epoch whose calls
    into Python held the GIL one at a time. ``batches_ahead`` is 2 per
    worker (at least 2, as PyTorch's ``prefetch_factor``) unless
    ``memory_budget`` (bytes) is given: the loader then sizes the batches
    ahead, the batches built at once and the read stage from what it
    measures (a batch's arrays counted by their ``nbytes``), within the
    budget, and ``statistics()`` says what it chose and why.
    ``trace="run.json"`` writes the run as a timeline, Chrome's
    trace-event JSON that Perfetto and ``chrome://tracing`` open: a track
    per thread of the loader, a span per read, decode, node, sample stage,
    collate, job and wait for a batch, with the sample indices, batch
    numbers and sensor names; written when each epoch ends and when the
    loader is dropped, keeping the last ``trace_events`` spans (200,000
    by default). The environment variable ``ADL_TRACE`` (and
    ``ADL_TRACE_EVENTS``) does the same for a script one does not edit.
    With ``processes=True`` the Python code runs in the worker
    processes: its time shows as the loader's threads waiting for them.
    ``progress=True`` (or ``ADL_PROGRESS=1``) shows each epoch's progress
    as a bar on a terminal; indexing a bag, reading a log or opening a
    LeRobot dataset shows one once it takes 0.3 s. Neither draws off a
    terminal, nor with ``ADL_PROGRESS=0``. A dataset of adl's own sensors
    (an ``adl.Dataset`` or ``adl.Trace`` of ``adl.files``, ``adl.px4``
    and roverd sensors) is read ahead by a read stage, without the GIL,
    unless worker processes make the batches; ``read_next_epoch=True``
    (the default) has each epoch's stage read the next epoch's first
    batches once its own reads are started (``False`` for a loader read
    once, or whose epochs are not read in turn)."""

    def __new__(
        cls,
        dataset: _Indexed,
        pipeline: Pipeline | _PythonPipeline | None = None,
        *,
        batch_size: int = 32,
        shuffle: int | None = None,
        indices: Sequence[int] | None = None,
        workers: int = 0,
        batches_ahead: int | None = None,
        memory_budget: int | None = None,
        drop_last: bool = False,
        on_error: Literal["raise", "skip"] = "raise",
        rank: int | None = None,
        world: int | None = None,
        processes: bool | None = None,
        trace: str | os.PathLike[str] | None = None,
        trace_events: int | None = None,
        progress: bool | None = None,
        read_next_epoch: bool = True,
    ) -> Self: ...
    def epoch(self, epoch: int) -> Epoch | RustLoaderEpoch:
        """Epoch ``epoch``: an iterator of this rank's batches, in order
        (a ``RustLoaderEpoch`` over an ``adl.Pipeline``)."""
    def __iter__(self) -> Epoch | RustLoaderEpoch:
        """The next epoch, as ``for batch in loader`` iterates it."""
    def state_dict(self) -> _LoaderState:
        """Where the loader stands: what ``load_state_dict`` resumes from."""
    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Resume from ``state`` (a ``state_dict``)."""
    def statistics(self) -> str:
        """What the loader did so far, as text."""
    def plan(self) -> str:
        """The loader's plan (its stages, pools and nodes) as Graphviz DOT."""
    @property
    def dataset(self) -> Any:
        """The dataset, as given."""
    @property
    def gil_free(self) -> bool:
        """Whether a batch is made without the GIL from the read to the
        last transform."""

@final
class Epoch:
    """One epoch of a ``Loader`` over a Python pipeline (or none): an
    iterator of batches."""

    def __iter__(self) -> Self: ...
    def __next__(self) -> Any:
        """The next batch; a failed sample or batch is a ``LoaderError``."""
    def __len__(self) -> int:
        """The number of this rank's batches in the epoch (from where it
        started)."""
    def indices(self) -> list[int]:
        """This rank's dataset indices of the epoch, in order."""
    def skipped(self) -> list[tuple[int, str]]:
        """The samples left out so far (``on_error="skip"``): ``(index,
        reason)``."""
    def state_dict(self) -> _LoaderState:
        """Where this epoch stands, as ``Loader.state_dict`` gives it."""

@final
class RustLoader:
    """A loader built in Rust and handed to Python (made by a Rust crate's
    function, never from Python)."""

    def epoch(self, epoch: int) -> RustLoaderEpoch:
        """Epoch ``epoch``: an iterator of this rank's batches, in order."""
    def __iter__(self) -> RustLoaderEpoch:
        """The next epoch, as ``for batch in loader`` iterates it."""
    def state_dict(self) -> _LoaderState:
        """Where the loader stands."""
    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Resume from ``state`` (a ``state_dict``)."""
    def statistics(self) -> str:
        """What the loader did so far, as text."""
    def plan(self) -> str:
        """The loader's plan as Graphviz DOT."""

@final
class RustLoaderEpoch:
    """One epoch of a ``RustLoader`` (and of a ``Loader`` over an
    ``adl.Pipeline``): an iterator of batches, made without the GIL."""

    def __iter__(self) -> Self: ...
    def __next__(self) -> Any:
        """The next batch; a failed one is a ``LoaderError``."""
    def __len__(self) -> int:
        """The number of this rank's batches in the epoch (from where it
        started)."""
    def indices(self) -> list[int]:
        """This rank's dataset indices of the epoch, in order."""
    def skipped(self) -> list[tuple[int, str]]:
        """The samples left out so far (``on_error="skip"``): ``(index,
        reason)``."""
    def state_dict(self) -> _LoaderState:
        """Where this epoch stands, as the loader's ``state_dict`` gives it."""

@final
class BatchMemory:
    """A ``RustLoader``'s batch, owned by Python: the ``base`` of the NumPy
    arrays that view its buffers, which go back to the loader's pool when
    the last of them is freed."""

def default_collate(samples: Iterable[Any]) -> Any:
    """The batch of ``samples`` (of one structure), as PyTorch's
    ``default_collate`` makes it, NumPy arrays where it makes tensors."""

# adl.files: file-backed sensors.

@final
class Metadata:
    """A sensor's metadata: its timestamps, as the reference's
    ``generic.Metadata``."""

    @property
    def timestamps(self) -> NDArray[np.float64]:
        """The time of every sample, in seconds."""

@final
class Stream:
    """A sensor's samples one after another, or lists of ``batch`` of them
    (the last partial one left out)."""

    def __iter__(self) -> Self: ...
    def __next__(self) -> Any:
        """The next sample, or list of ``batch`` samples."""

@final
class Images:
    """A camera: JPEG or PNG frames in a folder, decoded into ``uint8``
    arrays ``[H, W, 3]`` (``layout="hwc"``) or ``[3, H, W]`` (``"chw"``),
    shrunk by ``downscale`` (1, 2, 4 or 8)."""

    def __new__(
        cls, folder: str, *, layout: _Layout = "hwc", downscale: int = 1, strict: bool = True
    ) -> Self: ...
    @property
    def name(self) -> str:
        """The sensor's name (its folder's)."""
    @property
    def metadata(self) -> Metadata:
        """The sensor's metadata (``metadata.timestamps``)."""
    @property
    def sample_shape(self) -> list[int]:
        """The shape of a sample."""
    @property
    def frames(self) -> list[str]:
        """The frames' files (paths or URLs), a sample's in its place."""
    def __len__(self) -> int: ...
    def __getitem__(self, key: SupportsIndex, /) -> NDArray[np.uint8]:
        """Frame ``key``, decoded without the GIL."""
    def stream(self, batch: int | None = None) -> Stream:
        """The samples one after another, or lists of ``batch`` of them."""
    def encoded(self) -> EncodedImages:
        """The same camera, its samples the frames' files read but not
        decoded: under an ``adl.Pipeline``, ``RandomResizedCrop`` decodes
        only the crop, ``Decode`` the whole frame."""
    def __repr__(self) -> str: ...

@final
class EncodedImages:
    """A camera whose samples are its frames' files, read but not decoded
    (``Images(...).encoded()``): in Python each sample is the file's
    bytes; under an ``adl.Pipeline`` a frame that ``RandomResizedCrop``
    decodes only the crop of and ``Decode`` decodes whole."""

    @property
    def name(self) -> str:
        """The sensor's name (its folder's)."""
    @property
    def metadata(self) -> Metadata:
        """The sensor's metadata (``metadata.timestamps``)."""
    @property
    def frames(self) -> list[str]:
        """The frames' files (paths or URLs), a sample's in its place."""
    def __len__(self) -> int: ...
    def __getitem__(self, key: SupportsIndex, /) -> bytes:
        """Frame ``key``'s file, its bytes."""
    def stream(self, batch: int | None = None) -> Stream:
        """The samples one after another, or lists of ``batch`` of them."""
    def __repr__(self) -> str: ...

@final
class Video:
    """A camera recorded as an MP4 video (H.264, HEVC, AV1, VP9): its frames
    in presentation order, each at its time in the file, decoded into
    ``uint8`` arrays ``[H, W, 3]`` (``layout="hwc"``) or ``[3, H, W]``
    (``"chw"``), scaled to ``size=(height, width)`` where given."""

    def __new__(
        cls,
        path: str,
        *,
        name: str | None = None,
        layout: _Layout = "hwc",
        size: tuple[int, int] | None = None,
    ) -> Self: ...
    @property
    def name(self) -> str:
        """The sensor's name (the file's, without its extension, unless given)."""
    @property
    def metadata(self) -> Metadata:
        """The sensor's metadata (``metadata.timestamps``: each frame's time)."""
    @property
    def codec(self) -> str:
        """The coding format: "H.264", "HEVC", "AV1" or "VP9"."""
    @property
    def frame_size(self) -> tuple[int, int]:
        """The size of the file's pictures, ``(height, width)``."""
    @property
    def sample_shape(self) -> list[int]:
        """The shape of a sample."""
    @property
    def path(self) -> str:
        """The file (a path or a URL)."""
    def __len__(self) -> int: ...
    def __getitem__(self, key: SupportsIndex, /) -> NDArray[np.uint8]:
        """Frame ``key``, decoded without the GIL."""
    def frames(self, indices: Sequence[int]) -> NDArray[np.uint8]:
        """Frames ``indices`` as one array ``[N, ...]``, each group of
        pictures decoded once."""
    def frame_at(self, time: float, tolerance: float = 1e-4) -> int:
        """The index of the frame nearest ``time`` seconds, within
        ``tolerance``."""
    def stream(self, batch: int | None = None) -> Stream:
        """The samples one after another, or lists of ``batch`` of them."""
    def __repr__(self) -> str: ...

@final
class NativeLeRobot:
    """A LeRobot dataset read natively (``adl.lerobot.LeRobotDataset``
    holds one): its items in lerobot's types, read and decoded without the
    GIL."""

    def __new__(
        cls,
        root: str,
        *,
        episodes: Sequence[int] | None = None,
        delta_timestamps: Sequence[tuple[str, Sequence[float]]] | None = None,
        tolerance_s: float = 1e-4,
        uint8: bool = False,
        layout: _Layout = "chw",
    ) -> Self: ...
    def __len__(self) -> int: ...
    def item(self, index: int, tensors: bool = True) -> dict[str, Any]:
        """Item ``index`` as a dict in lerobot's order and types."""
    @property
    def fps(self) -> float:
        """Frames per second."""
    @property
    def episode_indices(self) -> list[int]:
        """The ``episode_index`` of each episode read, in order."""
    @property
    def episodes(self) -> list[dict[str, Any]]:
        """The episodes read, in order, as their metadata describes them."""
    @property
    def keys(self) -> list[str]:
        """The keys of every item, in order."""
    @property
    def camera_keys(self) -> list[str]:
        """The cameras (features stored as videos)."""
    @property
    def tasks(self) -> list[str]:
        """The tasks, by ``task_index``."""
    @property
    def version(self) -> str:
        """The format's version ("v3.0" or "v2.1")."""
    @property
    def skipped(self) -> list[tuple[int, str]]:
        """The episodes left out, each ``(episode_index, reason)``."""
    @property
    def uint8(self) -> bool:
        """Whether cameras stay ``uint8``."""
    def __repr__(self) -> str: ...

@final
class Npy:
    """A NumPy array on disk: sample ``i`` is ``array[i]``, read from the
    memory-mapped file without the GIL; ``dtype`` is the file's element
    type."""

    def __new__(
        cls, path: str, timestamps: ArrayLike, *, name: str | None = None, dtype: _NpyDtype = "float32"
    ) -> Self: ...
    @staticmethod
    def in_folder(folder: str, *, dtype: _NpyDtype = "float32") -> Npy:
        """The sensor folder ``folder``: ``data.npy`` beside ``ts.npy`` or
        ``ts.txt``, named after the folder."""
    @property
    def name(self) -> str:
        """The sensor's name."""
    @property
    def metadata(self) -> Metadata:
        """The sensor's metadata (``metadata.timestamps``)."""
    @property
    def sample_shape(self) -> list[int]:
        """The shape of a sample (the file's shape without its first axis)."""
    def __len__(self) -> int: ...
    def __getitem__(self, key: SupportsIndex, /) -> NDArray[Any]:
        """Row ``key``, read without the GIL."""
    def stream(self, batch: int | None = None) -> Stream:
        """The samples one after another, or lists of ``batch`` of them."""
    def __repr__(self) -> str: ...

@final
class Table:
    """A CSV table with a header: a sample per row, its columns but the
    time as a float64 array; the time column gives the timestamps."""

    def __new__(cls, path: str, time_column: str, *, name: str | None = None) -> Self: ...
    @property
    def name(self) -> str:
        """The sensor's name."""
    @property
    def metadata(self) -> Metadata:
        """The sensor's metadata (``metadata.timestamps``)."""
    @property
    def columns(self) -> list[str]:
        """The columns of a sample, in order."""
    def __len__(self) -> int: ...
    def __getitem__(self, key: SupportsIndex, /) -> NDArray[np.float64]:
        """Row ``key``'s values."""
    def stream(self, batch: int | None = None) -> Stream:
        """The samples one after another, or lists of ``batch`` of them."""
    def __repr__(self) -> str: ...

@final
class RoverSensor:
    """A roverd sensor folder: sample ``i`` is a dict of each chosen
    channel's frames ``i - past ..= i + future`` (``[window, *shape]``)."""

    def __new__(
        cls,
        path: str,
        *,
        channels: Sequence[str] | None = None,
        downscale: int = 1,
        past: int = 0,
        future: int = 0,
    ) -> Self: ...
    @property
    def name(self) -> str:
        """The sensor's name (its folder's)."""
    @property
    def path(self) -> str:
        """The sensor's folder."""
    @property
    def metadata(self) -> Metadata:
        """The sensor's metadata (``metadata.timestamps``, from ``ts``)."""
    @property
    def channels(self) -> list[str]:
        """The channels read, in a sample's order."""
    @property
    def shapes(self) -> dict[str, tuple[int, ...]]:
        """Each channel's frame shape, by name."""
    @property
    def dtypes(self) -> dict[str, str]:
        """Each channel's NumPy dtype name, by name."""
    @property
    def formats(self) -> dict[str, str]:
        """Each channel's format in ``meta.json``, by name."""
    def __len__(self) -> int: ...
    def __getitem__(self, key: SupportsIndex, /) -> dict[str, NDArray[Any]]:
        """Sample ``key``: a dict of channel name to frames."""
    def stream(self, batch: int | None = None) -> Stream:
        """The samples one after another, or lists of ``batch`` of them."""
    def __repr__(self) -> str: ...

# adl.px4: PX4 flight logs.

@final
class Log:
    """A PX4 flight log (ULog) at ``path`` (a local file, or an object's
    URL such as ``s3://bucket/flight.ulg``, read whole): each topic
    instance with usable timestamps a sensor, ``log[name]``."""

    def __new__(cls, path: str) -> Self: ...
    @property
    def path(self) -> str:
        """The file the log was read from."""
    @property
    def sensors(self) -> list[str]:
        """The sensors' names, sorted by topic then instance."""
    @property
    def rejected(self) -> list[tuple[str, str]]:
        """The topic instances that are not sensors, ``(name, why)`` each."""
    @property
    def complete(self) -> bool:
        """Whether the file's data section was read to its end."""
    @property
    def incomplete(self) -> str | None:
        """``None`` for a whole file, else how it ended."""
    def __len__(self) -> int: ...
    def __contains__(self, key: str, /) -> bool: ...
    def __getitem__(self, key: str, /) -> Topic:
        """The sensor ``key``; a ``KeyError`` listing the log's sensors if
        there is none."""
    def __repr__(self) -> str: ...

@final
class Topic:
    """One topic instance of a ``Log`` as a sensor: sample ``i`` is a dict
    of its fields, each a float64 array."""

    @property
    def name(self) -> str:
        """The sensor's name: ``topic``, or ``topic/N`` for instance N > 0."""
    @property
    def topic(self) -> str:
        """The uORB topic (``sensor_accel``)."""
    @property
    def instance(self) -> int:
        """The topic's instance (ULog's ``multi_id``), 0 for the first."""
    @property
    def metadata(self) -> Metadata:
        """The sensor's metadata (``metadata.timestamps``, seconds)."""
    @property
    def fields(self) -> list[str]:
        """The fields' names, in a sample's order."""
    def field(self, name: str) -> NDArray[np.float64]:
        """Every sample of field ``name``: ``[samples, width]``."""
    def __len__(self) -> int: ...
    def __getitem__(self, key: SupportsIndex, /) -> dict[str, NDArray[np.float64]]:
        """Sample ``key``: a dict of each field's values."""
    def stream(self, batch: int | None = None) -> Stream:
        """The samples one after another, or lists of ``batch`` of them."""
    def __repr__(self) -> str: ...

# adl.ros: robot logs (rosbag2 folders, MCAP files, ROS 1 bags).

@final
class Bag:
    """A robot log (a rosbag2 folder, an ``.mcap`` file or a ROS 1
    ``.bag``): ``topics`` is ``{topic: message type}``, ``bag[topic]`` one
    topic as a sensor."""

    def __new__(cls, path: str | os.PathLike[str]) -> Self: ...
    @property
    def path(self) -> str:
        """The bag's path, as it was opened."""
    @property
    def topics(self) -> dict[str, str]:
        """Every topic and its message type, as the bag names it."""
    @property
    def damage(self) -> list[str]:
        """Where the bag is damaged; empty for a whole bag."""
    def message_count(self, topic: str) -> int:
        """How many messages topic ``topic`` has (0 for a topic the bag
        lacks)."""
    def __len__(self) -> int: ...
    def __contains__(self, key: str, /) -> bool: ...
    def __iter__(self) -> Iterator[str]:
        """The topics' names, in order."""
    def __getitem__(self, key: str, /) -> RosTopic:
        """Topic ``key`` as a sensor; a ``KeyError`` naming the bag's topics
        if there is none."""
    def __repr__(self) -> str: ...

@final
class RosTopic:
    """One topic of a ``Bag`` as a sensor (``adl.ros.Topic``): sample ``i``
    is its ``i``-th message by log time, a dict of its fields."""

    @property
    def name(self) -> str:
        """The topic's name (``/imu``)."""
    @property
    def message_type(self) -> str:
        """The message type, as the bag names it."""
    @property
    def metadata(self) -> Metadata:
        """The sensor's metadata (``metadata.timestamps``, seconds)."""
    @property
    def log_times_ns(self) -> NDArray[np.uint64]:
        """Each message's log time, in nanoseconds."""
    def stamped_by_header(self) -> RosTopic:
        """The same topic timed by its messages' ``header.stamp``."""
    def view(self, kind: _RosViewKind) -> RosView:
        """The topic as a sensor of typed views of its messages (``image``,
        ``image16``, ``depth``, ``points``: NumPy arrays; ``imu``, ``fix``,
        ``scan``, ``pose``: dicts); a ``ValueError`` for an unknown kind or
        one that does not read the topic's message type."""
    @property
    def point_columns(self) -> list[str]:
        """A ``PointCloud2`` topic's column names in its ``view("points")``,
        from its first message."""
    def __len__(self) -> int: ...
    def __getitem__(self, key: SupportsIndex, /) -> dict[str, Any]:
        """Message ``key``: a dict of its fields (numbers, 1-D arrays,
        strings, dicts, lists)."""
    def stream(self, batch: int | None = None) -> Stream:
        """The samples one after another, or lists of ``batch`` of them."""
    def __repr__(self) -> str: ...

@final
class RosView:
    """A topic as a sensor of typed views of its messages
    (``topic.view(kind)``, ``adl.ros.View``), each read and decoded without
    the GIL: ``image`` a uint8 ``[H, W, C]`` array (BGR as RGB; JPEG and
    PNG decoded), ``image16`` uint16, ``depth`` float32 ``[H, W, C]``,
    ``points`` float32 ``[N, C]``; ``imu``, ``fix``, ``scan`` and ``pose``
    dicts of arrays and floats."""

    @property
    def name(self) -> str:
        """The topic's name."""
    @property
    def kind(self) -> _RosViewKind:
        """The view's kind."""
    @property
    def message_type(self) -> str:
        """The topic's message type, as the bag names it."""
    @property
    def metadata(self) -> Metadata:
        """The sensor's metadata (``metadata.timestamps``, seconds)."""
    def __len__(self) -> int: ...
    def __getitem__(self, key: SupportsIndex, /) -> Any:
        """Message ``key`` as the view's sample: a NumPy array (image,
        image16, depth, points) or a dict (imu, fix, scan, pose)."""
    def stream(self, batch: int | None = None) -> Stream:
        """The samples one after another, or lists of ``batch`` of them."""
    def __repr__(self) -> str: ...

# adl.Pipeline and adl.transforms.

@final
class Pipeline:
    """A pipeline of adl's transforms: ``sample`` and ``batch`` map keys of
    the sample (``"camera"``, ``"imu/acc"``) to the transforms applied
    there, in order (a list, or one)."""

    def __new__(
        cls,
        sample: dict[str, _Node | Sequence[_Node]] | None = None,
        batch: dict[str, _Node | Sequence[_Node]] | None = None,
    ) -> Self: ...
    @property
    def native(self) -> bool:
        """Whether every transform is adl's own."""
    def sample(self, sample: Any) -> Any:
        """``sample`` (a dict of NumPy arrays) through the sample transforms."""
    def collate(self, samples: Iterable[Any]) -> Any:
        """``samples`` stacked into a batch."""
    def batch(self, batch: Any) -> Any:
        """``batch`` (a collated batch) through the batch transforms."""
    def __repr__(self) -> str: ...

@disjoint_base
class Transform:
    """A transform of adl's, to list in an ``adl.Pipeline``; it runs in
    Rust, without the GIL."""

    @property
    def name(self) -> str:
        """The node's name, as statistics and plans show it."""
    @property
    def stage(self) -> Literal["sample", "batch"]:
        """The stage the transform belongs in."""
    def __repr__(self) -> str: ...

@final
class RandomResizedCrop(Transform):
    """torchvision's ``RandomResizedCrop`` on uint8 images: a random
    region, resized to ``size`` (an int, or ``(height, width)``). On a
    frame still in its file (``files.Images(...).encoded()``) it decodes
    only the crop, at a reduced scale where the crop is twice ``size``
    unless ``scaled_decode=False``. A sample transform."""

    def __new__(
        cls,
        size: int | tuple[int, int],
        *,
        scale: tuple[float, float] = (0.08, 1.0),
        ratio: tuple[float, float] = (0.75, 4.0 / 3.0),
        layout: _Layout = "hwc",
        scaled_decode: bool = True,
    ) -> Self: ...

@final
class Decode(Transform):
    """A frame still in its file (``files.Images(...).encoded()``)
    decoded whole, as its sensor decodes it. A sample transform."""

    def __new__(cls) -> Self: ...

@final
class RandomFlip(Transform):
    """A horizontal mirror image with probability ``p``. A sample transform."""

    def __new__(cls, p: float = 0.5, *, layout: _Layout = "hwc") -> Self: ...

@final
class ToFloat(Transform):
    """uint8 to float32, divided by ``divide``. A batch kernel."""

    def __new__(cls, divide: float = 255.0) -> Self: ...

@final
class Normalize(Transform):
    """``(v - mean[c]) / std[c]`` on float32 batches, ``c`` along axis 1.
    A batch kernel."""

    def __new__(cls, mean: float | Sequence[float], std: float | Sequence[float]) -> Self: ...

@final
class Affine(Transform):
    """``v * scale + offset`` on float32 batches. A batch kernel."""

    def __new__(cls, scale: float, offset: float) -> Self: ...

@final
class Clamp(Transform):
    """float32 values clamped into ``[low, high]``. A batch kernel."""

    def __new__(cls, low: float, high: float) -> Self: ...

# The interpreter's exit.

def _at_exit() -> None:
    """Python's ``atexit`` hook: no new call into Python from adl's
    threads, then wait for those inside one to leave."""
