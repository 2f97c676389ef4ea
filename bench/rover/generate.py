"""Write an I/Q-1M-shaped roverd trace with roverd's own writer.

    python bench/rover/generate.py target/rover-data [--seconds 20]

The sensors, channels, types and shapes of an I/Q-1M recording (red-rover's
collect/roverc and docs/iq1m): a radar at 20 Hz (`iq`: raw int16 [64, 3, 4,
512], `valid`: raw uint8), an Ouster lidar at 10 Hz (`rng` and `nir`:
per-frame lzma uint16 [64, 2048], `rfl`: per-frame lzma uint8, written
with roverd's batch of 12 and preset 0 as roverc writes them), a camera at
30 Hz (1920 x 1080 MJPEG in `video.avi`, written by roverd's VideoChannel:
OpenCV's writer), an IMU at 100 Hz (`acc`, `rot`, `avel`: raw float32
[3]); each sensor's `ts`. The values are synthetic but shaped like the
real ones where it matters for the work of reading them: lidar ranges
smooth in space, drifting in time, with missing returns (what lzma
compresses), camera frames a panning scene with fine texture and noise
(what JPEG spends its bytes on).
"""

import argparse
import os
import shutil

import numpy as np
from roverd.sensors import DynamicSensor

START = 1_700_000_000.0


def timestamps(rng, n, rate):
    return START + np.arange(n) / rate + rng.uniform(0, 0.05 / rate, n)


def sensor(root, name, ts):
    s = DynamicSensor(os.path.join(root, name), create=True)
    s.create("ts", {"format": "raw", "type": "f8", "shape": [],
                    "desc": "timestamp, seconds"}).write(ts.astype(np.float64))
    return s


def radar(root, rng, seconds):
    n = int(20 * seconds)
    s = sensor(root, "radar", timestamps(rng, n, 20.0))
    shape = (64, 3, 4, 512)
    s.create("iq", {"format": "raw", "type": "i2", "shape": list(shape),
                    "desc": "Raw I/Q stream."}).consume(
        rng.normal(0, 400, shape).astype(np.int16) for _ in range(n))
    s.create("valid", {"format": "raw", "type": "u1", "shape": [],
                       "desc": "True if this frame is complete."}).write(np.ones(n, np.uint8))


def lidar(root, rng, seconds):
    n = int(10 * seconds)
    s = sensor(root, "lidar", timestamps(rng, n, 10.0))
    el, az = np.mgrid[0:64, 0:2048].astype(np.float32)
    scene = 8000 + 6000 * np.sin(az / 97.0) * np.cos(el / 23.0)

    def frames(kind):
        local = np.random.default_rng(7)
        for i in range(n):
            shifted = np.roll(scene, 9 * i, axis=1)
            if kind == "rng":
                frame = shifted + local.normal(0, 40, shifted.shape)
                frame[local.random(frame.shape) < 0.08] = 0
                yield np.clip(frame, 0, 65535).astype(np.uint16)
            elif kind == "nir":
                yield np.clip(shifted / 20 + local.normal(0, 30, shifted.shape), 0, 65535).astype(np.uint16)
            else:
                yield np.clip(shifted / 300 + local.normal(0, 6, shifted.shape), 0, 255).astype(np.uint8)

    for name, kind in [("rfl", "u1"), ("nir", "u2"), ("rng", "u2")]:
        s.create(name, {"format": "lzmaf", "type": kind, "shape": [64, 2048],
                        "desc": name}).consume(frames(name), preset=0, batch=12)


def camera(root, rng, seconds):
    n = int(30 * seconds)
    s = sensor(root, "camera", timestamps(rng, n, 30.0))
    h, w = 1080, 1920
    y, x = np.mgrid[0:h, 0:w + 4 * n].astype(np.float32)
    scene = np.stack([
        128 + 90 * np.sin(x / 41.0) * np.cos(y / 57.0),
        128 + 90 * np.cos(x / 73.0 + y / 91.0),
        255 * (y / h) * 0.8 + 20 * np.sin(x / 5.0)], axis=-1)
    scene += rng.normal(0, 10, scene.shape[:2])[..., None]
    scene = np.clip(scene, 0, 255).astype(np.uint8)

    def frames():
        local = np.random.default_rng(11)
        for i in range(n):
            frame = scene[:, 4 * i:4 * i + w].astype(np.int16)
            frame += local.integers(-4, 5, frame.shape[:2], dtype=np.int16)[..., None]
            yield np.ascontiguousarray(np.clip(frame, 0, 255).astype(np.uint8))

    s.create("video.avi", {"format": "mjpg", "type": "u1", "shape": [h, w, 3],
                           "desc": "RGB video"}).consume(frames(), fps=30.0)


def imu(root, rng, seconds):
    n = int(100 * seconds)
    s = sensor(root, "imu", timestamps(rng, n, 100.0))
    for name in ["rot", "acc", "avel"]:
        s.create(name, {"format": "raw", "type": "f4", "shape": [3], "desc": name}).write(
            rng.normal(0, 1, (n, 3)).astype(np.float32))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--seconds", type=float, default=20.0)
    args = ap.parse_args()
    if os.path.exists(args.out):
        shutil.rmtree(args.out)
    os.makedirs(args.out)
    rng = np.random.default_rng(20261127)
    for write in (radar, lidar, camera, imu):
        write(args.out, rng, args.seconds)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        f.write(f'{{"seconds": {args.seconds}}}\n')


if __name__ == "__main__":
    main()
