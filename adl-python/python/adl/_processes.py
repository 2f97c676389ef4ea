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

The batch's arrays come back through shared memory: with each request
the loader lends the process a block of it (a file in ``/dev/shm`` that
the loader made and maps, named the first time the process gets it, and
unlinked by the process once it has mapped it, and by the loader once
that request is answered, whichever comes first; a process whose loader
is gone unlinks every name its loader's pool for it could have made: they
all start with the ``names`` it is started with). The process
pickles the batch with protocol 5, its arrays' buffers out of band
(``buffer_callback``), writes the buffers into the block, and sends the
rest of the pickle and where each buffer lies; the loader unpickles it
with the block's memory as the buffers, so that the batch's arrays are
NumPy arrays over the block, not copies. The block goes back to the
loader's pool when the last of them is freed. A batch whose buffers do
not fit the block comes pickled whole, with the bytes they needed (the
next block lent is that large).

Request, little-endian: a flag byte (1: leave failed samples out), the
number of indices (4 bytes), the block's number (4 bytes; 2**32 - 1:
none lent), its size (8 bytes), the length of its name (2 bytes; 0 where
the process has it already), the number of blocks the loader unmapped
(2 bytes), the name, those blocks' numbers (4 bytes each: the process
unmaps them too, so that their memory is freed), the indices (8 bytes
each).
Reply: a status byte (0: ``(batch, [(index, reason), ...])`` pickled
whole; 1: ``(exception, index)``; 2: as 0, its buffers in the block),
the payload's length (8 bytes), the bytes the buffers needed (8 bytes; 0
where they fit or there are none), the payload. A status 2 payload is
the number of buffers (4 bytes), each one's offset and length in the
block (8 bytes each), then the pickle.

The processes are started by ``multiprocessing``'s ``spawn`` context (a
fresh interpreter: no thread of the parent's is copied, and the main
module is imported as ``multiprocessing`` does for its own workers), get
the dataset and the pipeline pickled on their socket (two
``Connection.send_bytes`` messages, once they run), say once that they unpickled (an
empty message through ``Connection.send_bytes``; else the error's text)
before the first request, and are daemonic: each ends when
its socket closes (the loader is gone) or when the interpreter exits.
"""

from __future__ import annotations

import mmap
import multiprocessing
import os
import pickle
import struct
import traceback
from multiprocessing.reduction import ForkingPickler
from typing import Any, NamedTuple

REQUEST = struct.Struct("<BIIQHH")
REPLY = struct.Struct("<BQQ")
NO_BLOCK = 2**32 - 1
# A reply's status: a batch pickled whole, an exception, a batch whose
# buffers are in the block lent.
WHOLE, RAISED, IN_BLOCK = 0, 1, 2
# Each buffer starts at a multiple of this in its block: the arrays over
# it are aligned for any dtype and SIMD load.
ALIGN = 64


def start(dataset: Any, pipeline: Any, count: int, context: str,
          limit: int | None = None, names: list[str] | None = None) -> list[tuple[Any, int]]:
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
    started = []
    try:
        for k in range(count):
            parent, child = ctx.Pipe(duplex=True)
            lent = names[k] if names is not None else None
            # The dataset and pipeline go on the socket once the process
            # runs, not in its arguments: `spawn` writes those into a pipe
            # whose reading end the parent holds until the write ends, so a
            # process that dies before reading them all (a script without
            # `if __name__ == "__main__":`) would leave the parent blocked.
            process = ctx.Process(target=serve, args=(child, k, lent), daemon=True,
                                  name=f"adl-loader-worker-{k}")
            started.append((process, parent))
            process.start()
            child.close()
        # Each process says whether the dataset and pipeline unpickled
        # there (a module the parent imported may be missing in a fresh
        # interpreter): the loader learns it here, not at the first batch.
        for k, (process, parent) in enumerate(started):
            try:
                for payload in pickled:
                    parent.send_bytes(payload)
                answer = parent.recv_bytes()
            except (EOFError, OSError):
                process.join(5)
                answer = (f"it exited with code {process.exitcode} before it was ready"
                          f"{_exit_hint(context, process.exitcode)}").encode()
            if answer:
                raise RuntimeError(
                    f"the loader's worker process {k} (pid {process.pid}) could not take the dataset and "
                    f"pipeline it was sent: {answer.decode(errors='replace')}")
        out = []
        for process, parent in started:
            out.append((process, os.dup(parent.fileno())))
            parent.close()
        return out
    except BaseException:
        for process, parent in started:
            parent.close()
            if process.is_alive():
                process.terminate()
            # One whose start failed has nothing to wait for (and joining
            # it would raise over the failure the user must see).
            if process.pid is not None:
                process.join(5)
        raise


def _read_exact(fd: int, n: int) -> bytes | None:
    parts, left = [], n
    while left:
        try:
            part = os.read(fd, left)
        except ConnectionResetError:  # the loader died with replies unread
            return None
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


def _aligned(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def _pickled(value: Any, block: mmap.mmap | None) -> tuple[int, bytes, int]:
    """``value`` pickled: ``(IN_BLOCK, payload, 0)`` with its buffers
    written into ``block``, where they fit; else ``(WHOLE, the whole
    pickle, bytes the buffers needed)``."""
    if block is not None:
        buffers: list[pickle.PickleBuffer] = []
        head = pickle.dumps(value, protocol=5, buffer_callback=buffers.append)
        try:
            raws = [b.raw() for b in buffers]
        except BufferError:  # a buffer that is not contiguous: pickled whole
            raws = None
        if raws is not None:
            needed = sum(_aligned(r.nbytes) for r in raws)
            if needed <= len(block):
                table, offset = [], 0
                for raw in raws:
                    block[offset:offset + raw.nbytes] = raw
                    table.append((offset, raw.nbytes))
                    offset += _aligned(raw.nbytes)
                where = struct.pack(f"<I{2 * len(table)}Q", len(table), *(x for t in table for x in t))
                return IN_BLOCK, where + head, 0
            return WHOLE, pickle.dumps(value, protocol=5), needed
    return WHOLE, pickle.dumps(value, protocol=5), 0


def _mapped(path: str, size: int) -> mmap.mmap | None:
    """The block at ``path`` mapped, its name unlinked (the loader's
    mapping and this one keep it); ``None`` where it cannot be opened (the
    loader unlinked it already: it is gone)."""
    try:
        block_fd = os.open(path, os.O_RDWR)
    except OSError:
        return None
    try:
        return mmap.mmap(block_fd, size)
    finally:
        os.close(block_fd)
        try:
            os.unlink(path)
        except OSError:
            pass


class _Request(NamedTuple):
    """A request, read (see the module's docs)."""

    skip: bool
    indices: tuple[int, ...]
    block_number: int
    block_size: int
    name: str | None
    forgotten: tuple[int, ...]


def _next_request(fd: int) -> _Request | None:
    """The next request on ``fd``; ``None`` once it is closed."""
    head = _read_exact(fd, REQUEST.size)
    if head is None:
        return None
    skip, count, number, size, name_len, forgotten = REQUEST.unpack(head)
    body = _read_exact(fd, name_len + 4 * forgotten + 8 * count)
    if body is None:
        return None
    return _Request(
        skip=bool(skip),
        indices=struct.unpack_from(f"<{count}Q", body, name_len + 4 * forgotten),
        block_number=number,
        block_size=size,
        name=body[:name_len].decode() if name_len else None,
        forgotten=struct.unpack_from(f"<{forgotten}I", body, name_len),
    )


def _unlink_lent(names: str | None) -> None:
    """Unlink every block name that starts with ``names``: the loader that
    lends them is gone (its last requests may never be read: a socket
    whose peer died with replies unread is reset, and what was in it is
    lost)."""
    if names is None:
        return
    folder, start = os.path.split(names)
    try:
        found = [f for f in os.listdir(folder) if f.startswith(start)]
    except OSError:
        return
    for name in found:
        try:
            os.unlink(os.path.join(folder, name))
        except OSError:
            pass


def _exit_hint(context: str, code: int | None) -> str:
    """What a worker process that exited before it was ready most likely
    means, where the start method runs the main module again."""
    if code == 1 and context in ("spawn", "forkserver"):
        return (f" (its error is on stderr; with the {context!r} start method each worker process imports "
                f"the main module again, so a script that makes the loader at its top level must do so under "
                f"`if __name__ == \"__main__\":`)")
    return ""


def serve(conn: Any, number: int, names: str | None = None) -> None:
    """A worker process: the dataset and pipeline read from its socket and
    unpickled, then a batch for each request read, until its socket
    closes; then the names of the blocks of shared memory lent to it
    (which start with ``names``) that are left are unlinked."""
    try:
        try:
            pickled_dataset, pickled_pipeline = conn.recv_bytes(), conn.recv_bytes()
        except (EOFError, OSError):
            # The loader is gone before it sent them.
            return
        _serve(conn, pickled_dataset, pickled_pipeline, number)
    finally:
        _unlink_lent(names)


def _serve(conn: Any, pickled_dataset: bytes, pickled_pipeline: bytes, number: int) -> None:
    """``serve``'s loop."""
    from adl import default_collate

    try:
        dataset, pipeline = pickle.loads(pickled_dataset), pickle.loads(pickled_pipeline)
    except Exception as e:  # noqa: BLE001 (told to the loader, which raises it or falls back)
        conn.send_bytes(f"unpickling them raised {type(e).__qualname__}: {e}".encode())
        return
    conn.send_bytes(b"")
    fd = conn.fileno()
    sample = None if pipeline is None else pipeline.sample
    collate = default_collate if pipeline is None else pipeline.collate
    # The blocks of shared memory lent so far, by number.
    blocks: dict[int, mmap.mmap | None] = {}
    while (request := _next_request(fd)) is not None:
        for gone in request.forgotten:
            mapped = blocks.pop(gone, None)
            if mapped is not None:
                mapped.close()
        block = None
        if request.block_number != NO_BLOCK:
            if request.name:
                blocks[request.block_number] = _mapped(request.name, request.block_size)
            block = blocks.get(request.block_number)
        skip, indices = request.skip, request.indices
        samples: list[Any] = []
        skipped: list[tuple[int, str]] = []
        failed: tuple[BaseException, int | None] | None = None
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
        status, payload, needed = WHOLE, b"", 0
        if failed is None:
            try:
                if not samples:
                    raise RuntimeError(f"every sample of the batch failed: {skipped}")
                status, payload, needed = _pickled((collate(samples), skipped), block)
            except Exception as e:  # noqa: BLE001
                failed = (e, None)
        if failed is not None:
            error, at = failed
            where = f"sample {at}" if at is not None else "the batch's collate"
            trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            note = (f"adl: raised in the loader's worker process {number} (pid {os.getpid()}) making "
                    f"{where}:\n{trace}")
            try:
                payload = pickle.dumps((_noted(error, note), at), protocol=5)
            except Exception:  # noqa: BLE001 (an exception that does not pickle)
                stand_in = RuntimeError(f"{type(error).__qualname__}: {error}\n{note}")
                payload = pickle.dumps((stand_in, at), protocol=5)
            status, needed = RAISED, 0
        try:
            _write_all(fd, REPLY.pack(status, len(payload), needed) + payload)
        except OSError:
            # The loader is gone (killed, say): `serve` unlinks what names
            # it had lent.
            return
