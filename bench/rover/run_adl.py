"""The roverd benchmark's adl side: adl.files.RoverSensor (roverd's format
read in Rust, no OpenCV, no Python lzma) in an adl.Trace under adl.Loader,
with the pipeline of workload.py: the camera's 1/8 scale and its float
conversion done by adl (decode-time scaling, ToFloat), the radar, lidar
and IMU steps as the same NumPy functions, once per batch.

    python bench/rover/run_adl.py DATA WORKERS [--epochs 4] [--dump FIRST.npz] [--without-camera]
    python bench/rover/run_adl.py DATA --profile
    python bench/rover/run_adl.py DATA --limit PROCESSES [--without-camera]

Prints one JSON line: the seconds of every epoch and the warm samples/s
(the median over the epochs after the first). With --profile, the CPU
seconds per sample of each part of the work, one thread, no loader. With
--limit, the readers' bound measured (issue 44): the same reads, batches
and steps with no loader, in one process per core at once, summed.
"""

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

import adl
from adl import files, generic
from adl import transforms as T

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "peer"))
import plain_loops  # noqa: E402
import workload as W  # noqa: E402


def sensors(root, camera=True):
    """The four sensors (three without the camera), reading only the
    channels the pipeline uses."""
    chosen = {
        "lidar": files.RoverSensor(os.path.join(root, "lidar"), channels=["rng"]),
        "radar": files.RoverSensor(os.path.join(root, "radar"), channels=["iq"]),
        "camera": files.RoverSensor(os.path.join(root, "camera"), channels=["video.avi"],
                                    downscale=W.CAMERA_SCALE),
        "imu": files.RoverSensor(os.path.join(root, "imu"), channels=["acc", "avel"]),
    }
    if not camera:
        del chosen["camera"]
    return chosen


def trace(root, camera=True):
    return adl.Trace(sensors(root, camera), generic.Nearest("lidar", tol=W.SYNC_TOLERANCE), name=root)


def synchronized(sensor):
    """The trace's samples over ``sensor`` (a dict of sensors): how many,
    and each sensor's index for each of them."""
    sync = adl.Trace(sensor, generic.Nearest("lidar", tol=W.SYNC_TOLERANCE))
    return len(sync), {name: np.asarray(sync.indices[name]) for name in sensor}


def pipeline(camera=True):
    """workload.py's steps, on batches (`[batch, window = 1, ...]`)."""
    steps = {
        "radar/iq": lambda iq: W.radar_magnitude(iq[:, 0]),
        "lidar/rng": lambda rng: W.lidar_range(rng[:, 0]),
        "imu": lambda imu: W.imu_vector(imu["acc"][:, 0], imu["avel"][:, 0]),
    }
    if camera:
        steps["camera/video.avi"] = T.ToFloat()
    return adl.Pipeline(batch=steps)


def flat(batch):
    """A batch as the reference side's: one array per sensor."""
    out = {"radar": batch["radar"]["iq"], "lidar": batch["lidar"]["rng"], "imu": batch["imu"]}
    if "camera" in batch:
        out["camera"] = batch["camera"]["video.avi"][:, 0]
    return out


def profile(root):
    """CPU seconds per sample of each part of the work, one thread, no
    loader: each sensor's reads at the trace's synchronized indices, and
    the NumPy steps of the pipeline on batches of W.BATCH samples (as the
    loader runs them: on one sample at a time they stay in the caches and
    took half the time a sample)."""
    sensor = sensors(root)
    n, index = synchronized(sensor)
    parts = {}

    def clock(name, work):
        work(0)  # the caches warm
        start = time.process_time()
        for i in range(n):
            work(i)
        parts[name] = (time.process_time() - start) / n

    for name, s in sensor.items():
        clock(f"read {name}", lambda i, s=s, name=name: s[int(index[name][i])])
    # The NumPy steps on a batch, as the loader runs them (their arrays
    # W.BATCH times larger than a sample's, out of the caches): one batch
    # every W.BATCH samples.
    radar = np.stack([sensor["radar"][k]["iq"] for k in range(W.BATCH)])
    clock("radar magnitude (NumPy)", lambda i: W.radar_magnitude(radar) if i % W.BATCH == 0 else None)
    rng = np.stack([sensor["lidar"][k]["rng"] for k in range(W.BATCH)])
    clock("lidar downsample (NumPy)", lambda i: W.lidar_range(rng) if i % W.BATCH == 0 else None)
    print(json.dumps({"side": "adl", "profile_s_per_sample": parts, "samples": n}))


def _plain_loop(root, camera, rank, processes, barrier, results):
    """One process of ``limit``: its batches (``k % processes == rank``)
    read, stacked and through workload.py's steps by a plain loop."""
    sensor = sensors(root, camera)
    n, index = synchronized(sensor)
    batches = range(rank, (n + W.BATCH - 1) // W.BATCH, processes)

    def stacked(name, channel, ks):
        return np.stack([sensor[name][int(index[name][k])][channel] for k in ks])

    def batch(b):
        ks = range(b * W.BATCH, min((b + 1) * W.BATCH, n))
        out = {"radar": W.radar_magnitude(stacked("radar", "iq", ks)),
               "lidar": W.lidar_range(stacked("lidar", "rng", ks)),
               "imu": W.imu_vector(stacked("imu", "acc", ks), stacked("imu", "avel", ks))}
        if camera:
            out["camera"] = W.camera_float(stacked("camera", "video.avi", ks))
        return len(out["lidar"])

    plain_loops.timed_twice(lambda: sum(batch(b) for b in batches), barrier, results)


def limit(root, processes, camera=True):
    """The readers' bound, measured: what the loader does (each sensor's
    reads at the synchronized indices, the batch's stacking, workload.py's
    steps on it, the camera's float conversion) as a plain loop with no
    loader, in ``processes`` processes at once (no GIL between them), each
    over its share of the batches, started together; the second of two
    passes timed. ``warm_samples_per_s`` is the sum of the processes'
    rates, as W6's limit."""
    # Spawned, not forked: adl's native threads are not carried into a fork.
    return {"side": "limit", "camera": camera,
            **plain_loops.run(_plain_loop, (root, camera), processes, "spawn")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("workers", type=int, nargs="?", default=2)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--dump")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--limit", type=int, metavar="PROCESSES",
                    help="the readers' bound: the work with no loader in this many processes at once")
    ap.add_argument("--without-camera", action="store_true",
                    help="radar, lidar and IMU only: the per-frame lzma bound")
    args = ap.parse_args()
    if args.profile:
        profile(args.data)
        return
    camera = not args.without_camera
    if args.limit:
        print(json.dumps(limit(args.data, args.limit, camera)))
        return
    t = trace(args.data, camera)
    # The steps are NumPy functions without state: thread-safe, so their
    # calls may run at once (processes=False).
    loader = adl.Loader(t, pipeline(camera), batch_size=W.BATCH, workers=args.workers, processes=False)
    seconds = []
    for epoch in range(args.epochs):
        start = time.perf_counter()
        for k, batch in enumerate(loader.epoch(epoch)):
            if epoch == 0 and k == 0 and args.dump:
                np.savez(args.dump, **flat(batch))
        seconds.append(time.perf_counter() - start)
    warm = statistics.median(seconds[1:]) if len(seconds) > 1 else seconds[0]
    print(json.dumps({"side": "adl", "workers": args.workers, "camera": camera, "samples": len(t),
                      "gil_free": loader.gil_free, "epoch_s": seconds,
                      "warm_samples_per_s": len(t) / warm}))


if __name__ == "__main__":
    main()
