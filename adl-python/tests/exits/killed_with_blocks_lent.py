"""A loader whose worker processes write batches into shared memory,
iterated slowly, printing each batch's number: the test kills it (SIGKILL)
while blocks of shared memory are lent and named, and checks that no name
is left in /dev/shm."""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import adl  # noqa: E402
from process_datasets import Frames  # noqa: E402

if __name__ == "__main__":  # the worker processes import this module (spawn)
    # 300 kB a sample, 1.2 MB a batch: the first blocks lent (1 MiB) are
    # too small, so new ones are made, and named, during the first batches.
    loader = adl.Loader(Frames(256, side=160), batch_size=4, workers=2, processes=True)
    for number, batch in enumerate(loader.epoch(0)):
        print(number, flush=True)
        time.sleep(0.05)
