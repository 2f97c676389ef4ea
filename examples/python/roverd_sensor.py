"""A roverd-style sensor class in a few lines over adl's native reader.

    python examples/python/roverd_sensor.py [TRACE]

TRACE is a roverd trace (a folder of sensor folders, each with its
`meta.json`, channels and `ts`), by default the one adl's tests keep
(tests/data/rover/trace, written by roverd's own writer).

`adl.files.RoverSensor` reads a roverd sensor folder in Rust (raw, lzma,
per-frame lzma, MJPEG video, JPEG and npz blobs): no OpenCV, no Python
`lzma`, the GIL released while it reads. Its sample is roverd's
`DynamicSensor` sample, a dict of channel name to frames. A sensor class
shaped like roverd's own (`roverd.sensors.OSLidarDepth`: a typed sample
with a leading batch axis and its timestamps) wraps it in a few lines.

Under `adl.Loader` with an `adl.Pipeline`, put the `RoverSensor`s
themselves in the `adl.Trace`: the loader then reads and batches without
the GIL at all (`loader.gil_free`). A Python class around them, such as
`LidarDepth` below, is read through Python, with the GIL held around
each call (the reading inside it still releases it).
"""

import os
import sys
from typing import Generic

import numpy as np

import adl
from adl import abstract, files, generic
from adl import transforms as T
from adl.ext.types import TArray, dataclass

TRACE = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "rover", "trace")


@dataclass
class Depth(Generic[TArray]):
    """A lidar's range frames, roverd's `types.OSDepth` without intrinsics:
    `rng` is `[batch, t, el, az]`, `timestamps` `[batch, t]`."""

    rng: TArray
    timestamps: TArray


class LidarDepth(abstract.Sensor[Depth[np.ndarray], generic.Metadata]):
    """roverd's `OSLidarDepth`, over adl's native reader of the folder."""

    def __init__(self, path: str, past: int = 0, future: int = 0) -> None:
        self.frames = files.RoverSensor(path, channels=["rng"], past=past, future=future)
        self.past, self.future = past, future
        super().__init__(metadata=self.frames.metadata, name="lidar")

    def __getitem__(self, index: int | np.integer) -> Depth[np.ndarray]:
        # The reader checks the window (`past <= index < len - future`)
        # and says which index is out of it; the timestamps are sliced
        # only after that, so both always describe the same frames.
        index = int(index) + (len(self) if index < 0 else 0)
        rng = self.frames[index]["rng"]
        start = index - self.past
        ts = self.metadata.timestamps[start:start + rng.shape[0]]
        return Depth(rng=rng[None], timestamps=ts[None])


def main(trace: str) -> None:
    lidar = LidarDepth(os.path.join(trace, "lidar"), past=1)
    sample = lidar[2]
    print(f"LidarDepth: {len(lidar)} samples; sample 2: rng {sample.rng.dtype} "
          f"{sample.rng.shape}, timestamps {sample.timestamps.shape}")

    # The native path: adl's sensors in an adl.Trace, an adl.Pipeline.
    sensors = {
        "lidar": files.RoverSensor(os.path.join(trace, "lidar"), channels=["rng"]),
        "radar": files.RoverSensor(os.path.join(trace, "radar"), channels=["iq"]),
        "camera": files.RoverSensor(os.path.join(trace, "camera"), channels=["video.avi"],
                                    downscale=4),
    }
    recording = adl.Trace(sensors, generic.Nearest("lidar", tol=0.1), name=trace)
    loader = adl.Loader(
        recording, adl.Pipeline(batch={"camera/video.avi": T.ToFloat()}),
        batch_size=2, workers=2)
    print(f"adl.Loader over {len(recording)} samples, gil_free={loader.gil_free}")
    for batch in loader.epoch(0):
        print("  batch:", {sensor: {channel: (str(a.dtype), a.shape) for channel, a in value.items()}
                           for sensor, value in batch.items()})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else TRACE)
