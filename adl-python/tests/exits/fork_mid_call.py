"""Fork while one of adl's worker threads is inside a call into Python,
then let the child exit through ``atexit``.

The child has none of the parent's other threads; its exit must not wait
for the worker that was inside Python in the parent (adl's exit hook
counts the threads inside, and the count is reset in a forked child).
The child exits 3; the parent exits 0 after the child, with the child's
status checked: ``python fork_mid_call.py`` prints ``child 3``.
"""

import os
import sys
import threading
import time

import numpy as np

import adl

started = threading.Event()


class Slow:
    """A dataset whose samples take a second, with the GIL released."""

    def __len__(self):
        return 16

    def __getitem__(self, index):
        started.set()
        time.sleep(1.0)
        return np.float32(index)


def main():
    # Threads asked for: the case is a worker thread inside Python at the fork.
    loader = adl.Loader(Slow(), None, batch_size=1, workers=1, batches_ahead=1, processes=False)
    epoch = loader.epoch(0)
    waiter = threading.Thread(target=lambda: next(epoch), daemon=True)
    waiter.start()
    if not started.wait(10):
        print("the worker never called the dataset", file=sys.stderr)
        return 1
    pid = os.fork()
    if pid == 0:
        sys.exit(3)  # through atexit, as a script's end
    _, status = os.waitpid(pid, 0)
    print(f"child {os.waitstatus_to_exitcode(status)}")
    waiter.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
