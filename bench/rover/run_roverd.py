"""The roverd benchmark's reference side: roverd's own sensors (on the
reference abstract_dataloader) under PyTorch's DataLoader, with the
pipeline of workload.py applied per sample in the workers.

    python bench/rover/run_roverd.py DATA WORKERS [--epochs 4] [--dump FIRST.npz] [--without-camera]

Prints one JSON line: the seconds of every epoch and the warm samples/s
(the median over the epochs after the first). Needs roverd (with its
`video` extra: OpenCV), abstract_dataloader and torch.
"""

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np
import torch
from abstract_dataloader import generic
from roverd import Trace
from roverd.sensors import Camera, DynamicSensor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workload as W  # noqa: E402


def trace(root, camera=True):
    """The four sensors (three without the camera), reading only the
    channels the pipeline uses; the camera resized by OpenCV (INTER_AREA)
    to 1/8 as roverd reads it."""
    sensors = {
        "lidar": DynamicSensor(os.path.join(root, "lidar"), subset=["rng"]),
        "radar": DynamicSensor(os.path.join(root, "radar"), subset=["iq"]),
        "camera": Camera(os.path.join(root, "camera"),
                         resolution=(1920 // W.CAMERA_SCALE, 1080 // W.CAMERA_SCALE)),
        "imu": DynamicSensor(os.path.join(root, "imu"), subset=["acc", "avel"]),
    }
    if not camera:
        del sensors["camera"]
    return Trace(sensors=sensors, sync=generic.Nearest("lidar", tol=W.SYNC_TOLERANCE))


class Training(torch.utils.data.Dataset):
    """The trace's samples through workload.py's pipeline."""

    def __init__(self, root, camera=True):
        self.trace = trace(root, camera)

    def __len__(self):
        return len(self.trace)

    def __getitem__(self, index):
        s = self.trace[index]
        out = {
            "radar": W.radar_magnitude(s["radar"]["iq"][0]),
            "lidar": W.lidar_range(s["lidar"]["rng"][0]),
            "imu": W.imu_vector(s["imu"]["acc"][0], s["imu"]["avel"][0]),
        }
        if "camera" in s:
            out["camera"] = W.camera_float(s["camera"].image[0, 0])
        return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("workers", type=int)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--dump")
    ap.add_argument("--without-camera", action="store_true",
                    help="radar, lidar and IMU only: the per-frame lzma bound")
    args = ap.parse_args()
    torch.set_num_threads(1)
    dataset = Training(args.data, camera=not args.without_camera)
    loader = torch.utils.data.DataLoader(
        dataset, batch_size=W.BATCH, shuffle=False, num_workers=args.workers,
        persistent_workers=args.workers > 0)
    seconds = []
    for epoch in range(args.epochs):
        start = time.perf_counter()
        for k, batch in enumerate(loader):
            if epoch == 0 and k == 0 and args.dump:
                np.savez(args.dump, **{key: value.numpy() for key, value in batch.items()})
        seconds.append(time.perf_counter() - start)
    warm = statistics.median(seconds[1:]) if len(seconds) > 1 else seconds[0]
    print(json.dumps({"side": "roverd", "workers": args.workers, "camera": not args.without_camera,
                      "samples": len(dataset),
                      "epoch_s": seconds, "warm_samples_per_s": len(dataset) / warm}))


if __name__ == "__main__":
    main()
