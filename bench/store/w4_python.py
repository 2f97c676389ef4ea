#!/usr/bin/env python3
"""W4's files read through Python's `adl.Loader`, from a folder or a
bucket: one run, its figures as a JSON line.

    python bench/store/w4_python.py ROOT [EPOCHS]

ROOT is the W4 dataset (a folder, or the URL it was put at, such as
`s3://adl-w4/w4` with the `AWS_*` variables set to the server): each of
its traces an `adl.Trace` of adl's own sensors (the camera's JPEGs
decoded whole by `files.Images`, the radar's rows by `files.Npy`, the
IMU's by `files.Table`) synchronized to the camera, under `adl.Loader`
with 2 worker threads, batches of 8 and no pipeline (`adl.default_collate`).
Epoch 0 warms the files and the store; `warm_samples_per_s` is over epochs
1 to EPOCHS (2). `bench/store/w4_s3.py --python` runs it from the disk
and from the S3 server in turn; the python must have a release build of
adl (target/bench-venv: see bench/compare.py)."""

import json
import sys
import time

import adl
from adl import files, generic


def dataset(root: str) -> adl.Dataset:
    traces = []
    for trace in ("trace_00", "trace_01"):
        sensors = {
            "camera": files.Images(f"{root}/{trace}/camera"),
            "radar": files.Npy.in_folder(f"{root}/{trace}/radar"),
            "imu": files.Table(f"{root}/{trace}/imu/data.csv", "t"),
        }
        traces.append(adl.Trace(sensors, generic.Nearest("camera", tol=0.1), name=trace))
    return adl.Dataset(traces)


def main() -> None:
    root = sys.argv[1]
    epochs = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    loader = adl.Loader(dataset(root), batch_size=8, workers=2)
    start = time.perf_counter()
    cold = sum(len(batch["camera"]) for batch in loader.epoch(0)) / (time.perf_counter() - start)
    samples, start = 0, time.perf_counter()
    for epoch in range(1, epochs + 1):
        samples += sum(len(batch["camera"]) for batch in loader.epoch(epoch))
    warm = samples / (time.perf_counter() - start)
    stats = loader.statistics()
    print(json.dumps({"warm_samples_per_s": warm, "cold_samples_per_s": cold, "build": adl.BUILD,
                      "read_stage": "read stage: " in stats}))


if __name__ == "__main__":
    main()
