"""adl on Ray: any adl dataset as a Ray Data dataset, and adl's loader
under Ray Train.

    import adl.ray

    rows = adl.ray.read(dataset)           # a ray.data.Dataset
    rows.map_batches(f).write_parquet("s3://bucket/out")

``read`` takes what ``adl.Loader`` takes (an ``adl.Dataset`` of traces, an
``adl.Trace``, an ``adl.files``, ``adl.px4`` or ``adl.ros`` sensor, an
``adl.lerobot.LeRobotDataset``, or any sequence of samples that pickles)
and makes one Ray read task per trace and index range. Each task runs an
``adl.Loader`` over its range: the samples are read, decoded and stacked
by adl's Rust readers with the GIL released (a LeRobot range decodes each
group of pictures once), then handed to Ray as one block per
``rows_per_block`` samples. A row is a sample, flattened: its nested keys
joined with ``.`` (``{"camera": {"image": ...}}`` is the column
``camera.image``; a tuple's fields are named by their position), arrays
as Ray's tensor columns. Every sample is read once; with
``DataContext.get_current().execution_options.preserve_order = True`` Ray
gives them in adl's order.

Under Ray Train, ``adl.Loader`` in each ``TorchTrainer`` worker shards by
the ``RANK`` and ``WORLD_SIZE`` Ray Train sets, and its ``state_dict``
(saved in a ``ray.train.Checkpoint``) resumes the epoch exactly, with the
same or another number of workers: see ``examples/python/ray_train.py``.

Ray is an extra: ``pip install 'adl-dataloader[ray]'``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

try:
    import ray.cloudpickle
    import ray.data
    from ray.data.block import BlockAccessor, BlockMetadata
    from ray.data.datasource import Datasource, ReadTask
except ImportError as missing:  # pragma: no cover - depends on the install
    raise ImportError(
        "adl.ray needs Ray Data: pip install 'adl-dataloader[ray]' (or 'ray[data]')"
    ) from missing

import adl

__all__ = ["DatasetSource", "read"]

#: Samples in a block where ``rows_per_block`` is not given.
ROWS_PER_BLOCK = 64


def read(
    dataset: Any,
    *,
    columns: Sequence[str] | None = None,
    parallelism: int | None = None,
    rows_per_block: int = ROWS_PER_BLOCK,
) -> ray.data.Dataset:
    """``dataset`` as a Ray Data dataset: one read task per trace and index
    range (about ``parallelism`` where given, else one per block of
    ``rows_per_block`` samples; none smaller than a block unless its
    trace is, and none across two traces), each sample a row of flat
    columns (``columns``: only those, by their flattened names)."""
    source = DatasetSource(dataset, columns=columns, rows_per_block=rows_per_block)
    if parallelism is None:
        # A task a block, asked of Ray as the number of blocks (the tasks
        # are as many or more: none crosses a trace). Ray's own default
        # (200 at least) would split each task's output into small blocks,
        # each then a task of its own through the object store, unfused
        # with what follows the read.
        parallelism = source.most_tasks()
    read: ray.data.Dataset = ray.data.read_datasource(source, override_num_blocks=parallelism)
    return read


class DatasetSource(Datasource):
    """An adl dataset as a Ray Data ``Datasource`` (what ``read`` reads)."""

    def __init__(
        self,
        dataset: Any,
        *,
        columns: Sequence[str] | None = None,
        rows_per_block: int = ROWS_PER_BLOCK,
    ) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # Ray's is unannotated
        if rows_per_block < 1:
            raise ValueError(f"rows_per_block is at least 1, not {rows_per_block}")
        self._dataset = dataset
        self._columns = list(columns) if columns is not None else None
        self._rows_per_block = rows_per_block
        #: The lengths of the dataset's traces, in order.
        self.traces = trace_lengths(dataset)
        self._row_bytes: int | None = None

    def get_name(self) -> str:
        return "adl"

    def estimate_inmemory_data_size(self) -> int | None:
        row = self._bytes_per_row()
        return None if row is None else row * sum(self.traces)

    def get_read_tasks(
        self,
        parallelism: int,
        per_task_row_limit: int | None = None,
        data_context: Any = None,
    ) -> list[ReadTask]:
        row = self._bytes_per_row()
        # Pickled once here: each task carries the bytes, and each Ray
        # worker process makes the dataset from them once (a LeRobot
        # dataset checks its videos when made), not once per task.
        made: bytes = ray.cloudpickle.dumps(self._dataset)  # type: ignore[no-untyped-call]
        tasks = []
        for start, stop in ranges(self.traces, min(parallelism, self.most_tasks())):
            metadata = BlockMetadata(
                num_rows=stop - start,
                size_bytes=None if row is None else row * (stop - start),
                input_files=None,
                exec_stats=None,
            )
            tasks.append(
                ReadTask(
                    _Range(made, start, stop, self._columns, self._rows_per_block),
                    metadata,
                    per_task_row_limit=per_task_row_limit,
                )
            )
        return tasks

    def most_tasks(self) -> int:
        """The tasks asked for at most: none smaller than a block (a task's
        cost beyond its rows, its scheduling and its loader, is paid per
        task)."""
        return max(1, sum(self.traces) // self._rows_per_block)

    def _bytes_per_row(self) -> int | None:
        """The first sample's size, read once on the driver."""
        if self._row_bytes is None and sum(self.traces) > 0:
            sample = self._dataset[0]
            self._row_bytes = sum(_nbytes(v) for _, v in flatten(sample))
        return self._row_bytes


class _Range:
    """A read task's work: the samples ``start..stop`` of the dataset
    pickled as ``made`` read by an ``adl.Loader`` (one rank: Ray Train's
    ``RANK`` does not split it), each batch a block."""

    def __init__(self, made: bytes, start: int, stop: int, columns: list[str] | None, rows: int) -> None:
        self.made, self.start, self.stop = made, start, stop
        self.columns, self.rows = columns, rows

    def __call__(self) -> Iterator[Any]:
        dataset = _dataset(self.made)
        start = self.start
        if self.made not in _UNEVEN:
            # Stacked by adl (in Rust, for adl's datasets), a block a batch.
            loader = adl.Loader(dataset, batch_size=self.rows, indices=list(range(start, self.stop)), rank=0, world=1)
            try:
                for batch in loader.epoch(0):
                    yield BlockAccessor.batch_to_block(block_of(batch, self.columns))
                    start += len(next(iter(flatten(batch)))[1])
                return
            except adl.LoaderError as error:
                if "collate" not in str(error):
                    raise
                # Samples whose arrays differ in shape (a compressed
                # image's bytes, a point cloud): from here on, and in this
                # process's other tasks of the dataset, columns of arrays
                # one per row (Ray's variable-shaped tensors).
                _UNEVEN.add(self.made)
        loader = adl.Loader(dataset, _Rows(), batch_size=self.rows, indices=list(range(start, self.stop)), rank=0, world=1)
        for samples in loader.epoch(0):
            yield BlockAccessor.batch_to_block(rows_block(samples, self.columns))


#: The datasets (as pickled) whose samples do not stack, in this process.
_UNEVEN: set[bytes] = set()


class _Rows:
    """A pipeline that leaves the samples as they are: a batch is the list
    of its samples."""

    def sample(self, data: Any) -> Any:
        return data

    def collate(self, data: Sequence[Any]) -> list[Any]:
        return list(data)

    def batch(self, data: Any) -> Any:
        return data


@functools.lru_cache(maxsize=4)
def _dataset(made: bytes) -> Any:
    """The dataset pickled as ``made``, made once in this process (a Ray
    worker runs many read tasks of the same dataset)."""
    return ray.cloudpickle.loads(made)


def trace_lengths(dataset: Any) -> list[int]:
    """The lengths of ``dataset``'s traces, in order: an ``adl.Dataset``'s
    traces, a LeRobot dataset's episodes, else the whole as one."""
    if isinstance(dataset, adl.Dataset):
        return [len(trace) for trace in dataset.traces]
    native = getattr(dataset, "_native", None)
    if native is not None and isinstance(native, adl._native.NativeLeRobot):
        return [int(e["length"]) for e in native.episodes]
    return [len(dataset)]


def ranges(lengths: Sequence[int], parallelism: int) -> list[tuple[int, int]]:
    """Index ranges over traces of ``lengths``: each trace split into
    equal parts of about ``total / parallelism`` samples, none crossing a
    trace's end; empty traces give none."""
    total = sum(lengths)
    if total == 0:
        return []
    per_task = max(1, math.ceil(total / max(1, parallelism)))
    out = []
    start = 0
    for length in lengths:
        parts = max(1, math.ceil(length / per_task)) if length else 0
        for part in range(parts):
            out.append((start + length * part // parts, start + length * (part + 1) // parts))
        start += length
    return out


def flatten(sample: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """A (collated) sample's leaves with their names: nested keys joined
    with ``.``, a tuple's or list's fields named by position (a list of
    strings or numbers, as ``default_collate`` makes of them, is a leaf)."""
    if isinstance(sample, Mapping):
        for key, value in sample.items():
            yield from flatten(value, f"{prefix}{key}.")
    elif dataclasses.is_dataclass(sample) and not isinstance(sample, type):
        for field in dataclasses.fields(sample):
            yield from flatten(getattr(sample, field.name), f"{prefix}{field.name}.")
    elif isinstance(sample, tuple) and hasattr(sample, "_asdict"):
        yield from flatten(sample._asdict(), prefix)
    elif isinstance(sample, (list, tuple)) and not all(
        isinstance(v, (str, bytes, int, float, bool, np.generic)) for v in sample
    ):
        for position, value in enumerate(sample):
            yield from flatten(value, f"{prefix}{position}.")
    else:
        yield prefix[:-1] if prefix else "value", sample


def block_of(batch: Any, columns: list[str] | None) -> dict[str, Any]:
    """A collated batch as Ray's batch format: flat names to arrays
    (PyTorch tensors as NumPy arrays over the same memory)."""
    flat = dict(flatten(batch))
    return {name: _array(flat[name]) for name in chosen(list(flat), columns)}


def chosen(names: list[str], columns: list[str] | None) -> list[str]:
    """The columns asked for (all where none are), each checked to be one
    of the samples'."""
    if columns is None:
        return names
    missing = [c for c in columns if c not in names]
    if missing:
        raise KeyError(
            f"adl.ray.read: no column {', '.join(map(repr, missing))} in the samples; "
            f"their columns are {', '.join(map(repr, names))}"
        )
    return columns


def rows_block(samples: Sequence[Any], columns: list[str] | None) -> dict[str, Any]:
    """Samples that do not stack as Ray's batch format: each column
    stacked where its arrays agree in shape and dtype, else an array of
    one array per row."""
    rows = [dict(flatten(sample)) for sample in samples]
    out: dict[str, Any] = {}
    for name in chosen(list(rows[0]) if rows else [], columns):
        values = [_array(row[name]) for row in rows]
        if len({(v.shape, v.dtype) for v in values}) == 1:
            out[name] = np.stack(values)
        else:
            column = np.empty(len(values), dtype=object)
            for i, value in enumerate(values):
                column[i] = value
            out[name] = column
    return out


def _array(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value
    numpy = getattr(value, "numpy", None)
    if callable(numpy) and type(value).__module__.startswith("torch"):
        return value.numpy()
    return np.asarray(value)


def _nbytes(value: Any) -> int:
    size = getattr(value, "nbytes", None)
    if isinstance(size, int):
        return size
    if isinstance(value, (str, bytes)):
        return len(value)
    return 8
