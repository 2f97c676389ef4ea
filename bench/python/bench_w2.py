"""W2 through Python: adl-bench's W2 loader (the module adl_bench, built
from bench/python) iterated from Python as adl-bench times it: a cold
epoch, then a warm one timed; each batch a NumPy array (float32
[64, 3, 64, 64], no copy) touched once. One JSON line, as adl-bench's:

    python bench/python/bench_w2.py [--workers 2] [--samples 20000]
"""

import argparse
import json
import resource
import time

import adl_bench


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--samples", type=int, default=20_000)
    args = ap.parse_args()
    setup = time.perf_counter()
    loader = adl_bench.w2(args.samples, args.workers)
    setup = time.perf_counter() - setup
    figures = []
    for epoch in (0, 1):
        samples = 0
        start = time.perf_counter()
        for batch in loader.epoch(epoch):
            samples += batch.shape[0]
            assert batch.dtype.name == "float32" and batch.shape[1:] == (3, 64, 64)
        figures.append(samples / (time.perf_counter() - start))
    print(json.dumps({
        "workload": "w2", "front": "python", "build": adl_bench.BUILD, "workers": args.workers, "samples": samples,
        "cold_samples_per_s": round(figures[0], 1), "warm_samples_per_s": round(figures[1], 1),
        "setup_s": round(setup, 3),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }))


if __name__ == "__main__":
    main()
