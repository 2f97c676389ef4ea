"""Synthetic traces in radarkit's format."""

import json
import os

import numpy as np


def write_sensor(path: str, timestamps: np.ndarray, channels: dict[str, np.ndarray],
                 **constants: float) -> None:
    """A sensor folder."""
    os.makedirs(path, exist_ok=True)
    np.save(os.path.join(path, "ts.npy"), timestamps.astype(np.float64))
    for name, data in channels.items():
        np.save(os.path.join(path, f"{name}.npy"), data)
    with open(os.path.join(path, "meta.json"), "w") as f:
        json.dump({"channels": list(channels), **constants}, f)


def write_trace(path: str, seed: int, seconds: float = 3.0) -> None:
    """A trace: radar at 20 Hz (jittered), lidar at 10 Hz, IMU at 100 Hz,
    starting at slightly different times."""
    rng = np.random.default_rng(seed)
    start = 1700000000.0 + seed

    def clock(rate: float, offset: float) -> np.ndarray:
        count = int(seconds * rate)
        jitter = rng.uniform(-0.1, 0.1, count) / rate
        return start + offset + np.arange(count) / rate + jitter

    radar = clock(20, 0.01)
    write_sensor(os.path.join(path, "radar"), radar,
                 {"iq": rng.integers(-2000, 2000, (len(radar), 4, 2, 16), dtype=np.int16)},
                 range_resolution=0.05 + 0.01 * seed)
    lidar = clock(10, 0.03)
    ranges = rng.integers(0, 20000, (len(lidar), 4, 16), dtype=np.uint16)
    ranges[rng.random(ranges.shape) < 0.2] = 0
    write_sensor(os.path.join(path, "lidar"), lidar, {"ranges": ranges})
    imu = clock(100, 0.0)
    write_sensor(os.path.join(path, "imu"), imu,
                 {"acc": rng.normal(0, 1, (len(imu), 3)).astype(np.float32)})
