"""A training script that leaves an adl.Loader's epoch open and exits.

Run as ``python leave_epoch_open.py MODE WORKERS [--no-exit-hook]``; the
test (tests/test_exit.py) runs it in fresh processes, many times, and
checks that the process ends with the script's own status: never a signal
(SIGABRT was what a worker thread asking for the GIL during the
interpreter's finalization gave), never a hang.

MODE:
- ``break``: a ``break`` after two batches, as at ``max_steps``; exit 0.
- ``global``: the same, the epoch and its iterator kept in globals at exit.
- ``caught``: a sample raises; the ``LoaderError`` is caught; exit 0.
- ``uncaught``: the ``LoaderError`` is not caught (Python's status 1).
- ``interrupt``: a real Ctrl-C (SIGINT to itself) mid-epoch, not caught:
  Python's own ending for it (the status of SIGINT re-raised).
- ``exit``: ``sys.exit(7)`` from inside the loop; status 7.
- ``skip``: ``on_error="skip"`` over samples of which every third
  raises (the workers record each reason), a ``break``; exit 0.
- ``native``: a ``break`` under an ``adl.Pipeline`` (adl's engine in Rust)
  over the Python dataset, read through the GIL by the workers; exit 0.
- ``processes``: a ``break`` with ``processes=True`` (the Python code in
  worker processes, started by spawn from this script); exit 0.
- ``processes-uncaught``: with ``processes=True``, a sample raises in a
  worker process and the ``LoaderError`` is not caught (status 1).

``--no-exit-hook`` unregisters adl's ``atexit`` hook first: the ending
without it (how the abort is reproduced by hand; not used by the tests).
"""

import atexit
import os
import signal
import sys
import time

import numpy as np

import adl


class Samples:
    """A list-like dataset: each sample a small array, made with numpy."""

    def __init__(self, n, bad=None, every=None):
        self.n = n
        self.bad = bad
        self.every = every

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        if index == self.bad or (self.every and index % self.every == 0):
            raise ValueError(f"sample {index} is bad")
        return np.full((64, 64), index, dtype=np.float32)


class Pipeline:
    """A pipeline of Python code that takes a while per sample."""

    def sample(self, data):
        end = time.perf_counter() + 0.002
        out = data
        while time.perf_counter() < end:
            out = np.sqrt(out * out + 1.0)
        return out

    def collate(self, data):
        return np.stack(data)

    def batch(self, data):
        return data


def main():
    mode, workers = sys.argv[1], int(sys.argv[2])
    # Ctrl-C as a terminal gives it: a process started in the background
    # (`nohup`, `cmd &`) inherits SIGINT ignored, and Python then installs
    # no handler for it, so the `interrupt` mode's Ctrl-C would be lost
    # whatever adl does.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if "--no-exit-hook" in sys.argv:
        atexit.unregister(adl._native._at_exit)
    bad = 5 if mode in ("caught", "uncaught", "processes-uncaught") else None
    pipeline = adl.Pipeline() if mode == "native" else Pipeline()
    every = 3 if mode == "skip" else None
    loader = adl.Loader(Samples(4096, bad, every), pipeline, batch_size=4,
                        workers=workers, batches_ahead=8,
                        on_error="skip" if mode == "skip" else "raise",
                        processes=mode.startswith("processes"))
    epoch = loader.epoch(0)
    if mode == "global":
        global KEPT, ITERATOR
        KEPT = epoch
        ITERATOR = iter(epoch)
        for step, _ in enumerate(ITERATOR):
            if step == 1:
                break
        return 0
    try:
        for step, _ in enumerate(epoch):
            if step == 1 and mode in ("break", "native", "skip", "processes"):
                break
            if step == 1 and mode == "interrupt":
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1)
            if step == 1 and mode == "exit":
                sys.exit(7)
    except adl.LoaderError:
        if mode != "caught":
            raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
