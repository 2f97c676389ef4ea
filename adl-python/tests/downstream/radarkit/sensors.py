"""Sensors: a folder each, with ``meta.json`` (the channels' names and
the sensor's constants), ``ts.npy`` (float64 seconds) and a ``.npy`` per
channel, one row per frame. A sample is a window of frames around an
index, ``past`` before and ``future`` after it."""

import json
import os
from functools import cached_property
from typing import Any, TypeVar

import numpy as np
from abstract_dataloader import abstract, generic

from . import types

TSample = TypeVar("TSample")


class NpySensor(abstract.Sensor[TSample, generic.Metadata]):
    """A sensor folder.

    Args:
        path: the folder.
        past: frames before each index in a sample.
        future: frames after each index in a sample.

    Attributes:
        path: the folder.
        config: ``meta.json``.
        channels: each channel's array (memory-mapped).
        window: frames in a sample.
    """

    def __init__(self, path: str, past: int = 0, future: int = 0) -> None:
        self.path = path
        self.past = past
        self.future = future
        self.window = past + future + 1
        with open(os.path.join(path, "meta.json")) as f:
            self.config: dict[str, Any] = json.load(f)
        self.channels = {
            name: np.load(os.path.join(path, f"{name}.npy"), mmap_mode="r")
            for name in self.config["channels"]}
        timestamps = np.load(os.path.join(path, "ts.npy"))
        super().__init__(
            metadata=generic.Metadata(timestamps=timestamps),
            name=os.path.basename(path))

    @cached_property
    def filesize(self) -> int:
        """Bytes on disk, all channels."""
        return sum(int(c.nbytes) for c in self.channels.values())

    def frames(self, index: int | np.integer) -> slice:
        """The frames of sample ``index``."""
        index = int(index)
        if index - self.past < 0 or index + self.future >= len(self):
            raise IndexError(
                f"{self.name}: sample {index} needs frames {index - self.past} "
                f"to {index + self.future} of {len(self)}")
        return slice(index - self.past, index + self.future + 1)

    def times(self, index: int | np.integer) -> np.ndarray:
        """The window's timestamps, with a batch axis."""
        return np.array(self.metadata.timestamps[self.frames(index)])[None]


class Radar(NpySensor[types.RadarFrame[np.ndarray]]):
    """A radar: channel ``iq``; ``range_resolution`` in ``meta.json``."""

    def __getitem__(self, index: int | np.integer) -> types.RadarFrame[np.ndarray]:
        """The window's frames."""
        return types.RadarFrame(
            iq=np.array(self.channels["iq"][self.frames(index)])[None],
            timestamps=self.times(index),
            range_resolution=np.array([self.config["range_resolution"]], np.float32))


class Lidar(NpySensor[types.LidarScan[np.ndarray]]):
    """A lidar: channel ``ranges``."""

    def __getitem__(self, index: int | np.integer) -> types.LidarScan[np.ndarray]:
        """The window's scans."""
        return types.LidarScan(
            ranges=np.array(self.channels["ranges"][self.frames(index)])[None],
            timestamps=self.times(index))


class IMU(NpySensor[types.IMUData[np.ndarray]]):
    """An IMU: channel ``acc``."""

    def __getitem__(self, index: int | np.integer) -> types.IMUData[np.ndarray]:
        """The window's readings."""
        return types.IMUData(
            acc=np.array(self.channels["acc"][self.frames(index)])[None],
            timestamps=self.times(index))


KINDS = {"radar": Radar, "lidar": Lidar, "imu": IMU}
