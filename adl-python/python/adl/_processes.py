"""The worker processes of ``adl.Loader(..., processes=True)``.

The loader decides every batch's indices (its order, its shard, where it
resumes) and hands each batch to an idle worker process: a loader thread
writes the batch's indices on the process's socket and reads the reply,
both without the GIL. The process runs the Python code that holds the
GIL, for each index the dataset's ``__getitem__`` and the pipeline's
``sample``, then the pipeline's ``collate`` (``adl.default_collate``
without a pipeline), and sends back the batch pickled (protocol 5) with
the samples it left out (``on_error="skip"``), or the exception a sample
raised, with a note naming the process, the sample and its traceback.

Request: a flag byte (1: leave failed samples out), the number of
indices (4 bytes), the indices (8 bytes each), little-endian. Reply: a
status byte (0: ``(batch, [(index, reason), ...])``; 1: ``(exception,
index)``), the payload's length (8 bytes), the payload.

The processes are started by ``multiprocessing``'s ``spawn`` context (a
fresh interpreter: no thread of the parent's is copied, and the main
module is imported as ``multiprocessing`` does for its own workers), get
the dataset and the pipeline by pickle, and are daemonic: each ends when
its socket closes (the loader is gone) or when the interpreter exits.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import struct
import traceback
from multiprocessing.reduction import ForkingPickler
from typing import Any

REQUEST = struct.Struct("<BI")
REPLY = struct.Struct("<BQ")


def start(dataset: Any, pipeline: Any, count: int, context: str,
          limit: int | None = None) -> list[tuple[Any, int]]:
    """Start ``count`` worker processes of ``dataset`` and ``pipeline``:
    each ``(process, fd)``, ``fd`` a duplicate of the parent's end of its
    socket pair, which the caller owns. The two must pickle, and weigh at
    most ``limit`` bytes pickled where there is a limit."""
    # Pickled once here (as multiprocessing pickles what it sends, with its
    # reductions), then sent to every process as bytes.
    pickled = []
    for what, value in (("dataset", dataset), ("pipeline", pipeline)):
        try:
            pickled.append(bytes(ForkingPickler.dumps(value, protocol=5)))
        except Exception as e:  # noqa: BLE001 (any pickling failure is the user's to see)
            raise TypeError(
                f"processes=True sends the {what} to its worker processes by pickle, and this "
                f"{type(value).__qualname__} does not pickle: {type(e).__name__}: {e}. Make it picklable "
                f"(define its class at a module's top level, keep no open files or locks in it), or "
                f"leave processes off") from e
    weight = sum(len(p) for p in pickled)
    if limit is not None and weight > limit:
        raise ValueError(
            f"the dataset and pipeline weigh {weight / 2**20:.0f} MiB pickled, over the {limit / 2**20:.0f} MiB "
            f"sent to each worker process unasked (processes=True sends them whatever they weigh)")
    ctx: Any = multiprocessing.get_context(context)
    out = []
    for k in range(count):
        parent, child = ctx.Pipe(duplex=True)
        process = ctx.Process(target=serve, args=(child, *pickled, k), daemon=True,
                              name=f"adl-loader-worker-{k}")
        process.start()
        child.close()
        fd = os.dup(parent.fileno())
        parent.close()
        out.append((process, fd))
    return out


def _read_exact(fd: int, n: int) -> bytes | None:
    parts, left = [], n
    while left:
        part = os.read(fd, left)
        if not part:
            return None
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _noted(error: BaseException, note: str) -> BaseException:
    if hasattr(error, "add_note"):
        error.add_note(note)
    else:  # Python before 3.11: the list add_note fills
        error.__notes__ = [*getattr(error, "__notes__", []), note]
    return error


def serve(conn: Any, pickled_dataset: bytes, pickled_pipeline: bytes, number: int) -> None:
    """A worker process: the dataset and pipeline unpickled, then a batch
    for each request read, until its socket closes."""
    from adl import default_collate

    dataset, pipeline = pickle.loads(pickled_dataset), pickle.loads(pickled_pipeline)
    fd = conn.fileno()
    sample = None if pipeline is None else pipeline.sample
    collate = default_collate if pipeline is None else pipeline.collate
    while True:
        head = _read_exact(fd, REQUEST.size)
        if head is None:
            return
        skip, count = REQUEST.unpack(head)
        body = _read_exact(fd, 8 * count)
        if body is None:
            return
        indices = struct.unpack(f"<{count}Q", body)
        samples, skipped, failed = [], [], None
        for index in indices:
            try:
                value = dataset[index]
                if sample is not None:
                    value = sample(value)
                samples.append(value)
            except Exception as e:  # noqa: BLE001 (sent to the loader, which raises it or leaves it out)
                if skip:
                    skipped.append((index, f"{type(e).__qualname__}: {e}"))
                    continue
                failed = (e, index)
                break
        status, payload = 0, b""
        if failed is None:
            try:
                if not samples:
                    raise RuntimeError(f"every sample of the batch failed: {skipped}")
                payload = pickle.dumps((collate(samples), skipped), protocol=5)
            except Exception as e:  # noqa: BLE001
                failed = (e, None)
        if failed is not None:
            error, index = failed
            where = f"sample {index}" if index is not None else "the batch's collate"
            trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            note = (f"adl: raised in the loader's worker process {number} (pid {os.getpid()}) making "
                    f"{where}:\n{trace}")
            try:
                payload = pickle.dumps((_noted(error, note), index), protocol=5)
            except Exception:  # noqa: BLE001 (an exception that does not pickle)
                stand_in = RuntimeError(f"{type(error).__qualname__}: {error}\n{note}")
                payload = pickle.dumps((stand_in, index), protocol=5)
            status = 1
        _write_all(fd, REPLY.pack(status, len(payload)) + payload)
