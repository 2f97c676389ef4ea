"""Write the small recording that `cargo run --example recording` reads.

    python3 examples/data/make_recording.py   # needs numpy and Pillow

Three traces of one second, a folder each, in the layout adl's file-backed
sensors read (a folder per sensor, its timestamps beside its data):

    recording/drive-1/camera/000000.jpg ... + ts.txt   10 Hz, 64x48 JPEG
    recording/drive-1/radar/data.npy + ts.npy          20 Hz, float32 [n, 8, 16]
    recording/drive-1/imu.csv                          100 Hz, t,ax,ay,az
    recording/drive-3/...                               its radar clock jumps back

drive-3 is broken on purpose (one radar timestamp goes back): the example
leaves it out and says why.
"""

import os

import numpy as np
from PIL import Image

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "recording")
rng = np.random.default_rng(7)

for trace, start in (("drive-1", 0.0), ("drive-2", 60.0), ("drive-3", 120.0)):
    base = os.path.join(ROOT, trace)
    os.makedirs(os.path.join(base, "camera"), exist_ok=True)
    os.makedirs(os.path.join(base, "radar"), exist_ok=True)
    # Camera: a gradient that moves, 10 frames at 10 Hz.
    cam_t = start + 0.05 + np.arange(10) * 0.1
    y, x = np.mgrid[0:48, 0:64]
    for k in range(10):
        frame = np.stack([(x * 4 + k * 20) % 256, (y * 5) % 256, np.full_like(x, 40 + 20 * k)], -1)
        Image.fromarray(frame.astype(np.uint8)).save(
            os.path.join(base, "camera", f"{k:06d}.jpg"), quality=90
        )
    with open(os.path.join(base, "camera", "ts.txt"), "w") as f:
        f.write("# camera timestamps, seconds\n")
        f.writelines(f"{t:.6f}\n" for t in cam_t)
    # Radar: 20 Hz over the same second, float32 [21, 8, 16].
    radar_t = start + np.arange(21) * 0.05
    if trace == "drive-3":
        radar_t[12] = radar_t[10]  # a clock that goes back
    np.save(os.path.join(base, "radar", "data.npy"), rng.normal(size=(21, 8, 16)).astype(np.float32))
    np.save(os.path.join(base, "radar", "ts.npy"), radar_t)
    # IMU: 100 Hz, a header and one row per reading.
    with open(os.path.join(base, "imu.csv"), "w") as f:
        f.write("t,ax,ay,az\n")
        for k in range(101):
            ax, ay, az = rng.normal(size=3).round(4)
            f.write(f"{start + k * 0.01:.3f},{ax},{ay},{az + 9.81:.4f}\n")
