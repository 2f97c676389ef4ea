"""Large arrays from worker processes: `adl.Loader(processes=True)` over
camera-like samples made in Python (a 256 x 256 x 3 float32 frame, 786 kB
a sample; batches of 32, 25 MB), 2 worker processes. The first epoch
starts the processes and warms up; the second is timed. Prints the
samples/s of the timed epoch and the loader's line about its processes
(how many batches came in shared memory).

    python bench/python/bench_processes.py [--samples N]

Used to measure the shared-memory return of batches against the pickle
over the socket it replaced (docs/performance.md, "Python code under
adl.Loader"), each run a fresh process, alternated by farm-bench.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adl-python", "tests"))

import adl  # noqa: E402
from process_datasets import Frames  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=384)
    args = parser.parse_args()
    loader = adl.Loader(Frames(args.samples, side=256), batch_size=32, workers=2, processes=True)
    for _ in loader.epoch(0):
        pass
    began, seen = time.perf_counter(), 0
    for batch in loader.epoch(1):
        seen += len(batch["index"])
        batch["frame"].sum()  # the consumer reads every value
    took = time.perf_counter() - began
    line = next((l for l in loader.statistics().splitlines() if l.startswith("Processes")), "")
    print(f"{seen / took:.0f} samples/s; {line}")


if __name__ == "__main__":
    main()
