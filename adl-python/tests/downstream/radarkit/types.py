"""The data types: generic dataclasses of arrays, each with a leading
batch axis (1 for a single sample) and a time axis (the frames of a
window)."""

from typing import Generic

from abstract_dataloader.ext.types import TArray, dataclass
from jaxtyping import Bool, Float, Float64, Int16, UInt16


@dataclass
class RadarFrame(Generic[TArray]):
    """Raw radar frames.

    Attributes:
        iq: complex samples as int16 pairs, chirp-rx-sample order.
        timestamps: each frame's time, in seconds.
        range_resolution: meters per range bin.
    """

    iq: Int16[TArray, "batch t chirp rx sample2"]
    timestamps: Float64[TArray, "batch t"]
    range_resolution: Float[TArray, "#batch"]


@dataclass
class LidarScan(Generic[TArray]):
    """Raw lidar ranges, in millimeters (0: no return).

    Attributes:
        ranges: beam-azimuth ranges.
        timestamps: each scan's time, in seconds.
    """

    ranges: UInt16[TArray, "batch t beam azimuth"]
    timestamps: Float64[TArray, "batch t"]


@dataclass
class IMUData(Generic[TArray]):
    """Accelerometer readings.

    Attributes:
        acc: acceleration, m/s^2.
        timestamps: each reading's time, in seconds.
    """

    acc: Float[TArray, "batch t 3"]
    timestamps: Float64[TArray, "batch t"]


@dataclass
class RadarInput(Generic[TArray]):
    """The model's radar input.

    Attributes:
        magnitude: magnitude averaged over chirps and frames.
        range_resolution: meters per range bin, after augmentation.
    """

    magnitude: Float[TArray, "batch rx sample"]
    range_resolution: Float[TArray, "batch"]


@dataclass
class DepthTarget(Generic[TArray]):
    """The depth the model learns.

    Attributes:
        depth: meters, beam-azimuth (azimuth halved).
        valid: where a return was.
    """

    depth: Float[TArray, "batch beam azimuth"]
    valid: Bool[TArray, "batch beam azimuth"]
