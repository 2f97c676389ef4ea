"""Transforms (nrdk's pattern): a ``spec.Transform`` per modality, drawn
augmentations applied by the sample transform, ``ext.torch`` collation,
and a batch stage that is a ``torch.nn.Module``."""

from typing import Any

import numpy as np
import torch
from abstract_dataloader import abstract, spec
from abstract_dataloader.ext import augment
from abstract_dataloader.ext import torch as adl_torch

from . import types


class RadarMagnitude(spec.Transform[types.RadarFrame[np.ndarray], types.RadarInput[np.ndarray]]):
    """Magnitude of the I/Q samples, averaged over frames and chirps.

    Augmentations:
        - ``radar_scale``: multiplies the magnitude.
        - ``range_flip``: reverses the sample axis.
        - ``range_scale``: scales the range resolution.
    """

    def __call__(self, data: types.RadarFrame[np.ndarray],
                 aug: dict[str, Any] = {}) -> types.RadarInput[np.ndarray]:
        """One sample's radar input."""
        iq = data.iq.astype(np.float32)
        magnitude = np.sqrt(iq[..., 0::2] ** 2 + iq[..., 1::2] ** 2).mean(axis=(1, 2))
        magnitude = magnitude * aug.get("radar_scale", 1.0)
        if aug.get("range_flip", False):
            magnitude = magnitude[..., ::-1]
        return types.RadarInput(
            magnitude=np.ascontiguousarray(magnitude, dtype=np.float32),
            range_resolution=(data.range_resolution * aug.get("range_scale", 1.0)
                              ).astype(np.float32))


class LidarDepth(spec.Transform[types.LidarScan[np.ndarray], types.DepthTarget[np.ndarray]]):
    """Meters from millimeters, the last scan of the window, azimuth halved.

    Augmentations:
        - ``range_scale``: scales the depth (as it scales the radar's bins).
    """

    def __call__(self, data: types.LidarScan[np.ndarray],
                 aug: dict[str, Any] = {}) -> types.DepthTarget[np.ndarray]:
        """One sample's depth target."""
        ranges = data.ranges[:, -1, :, ::2].astype(np.float32)
        return types.DepthTarget(
            depth=ranges / 1000.0 * np.float32(aug.get("range_scale", 1.0)),
            valid=ranges > 0)


class Sample(spec.Transform[dict[str, Any], dict[str, Any]]):
    """A synchronized sample (``radar``, ``lidar``, ``imu``, and ``meta``
    from ``generic.DatasetMeta``) into the model's inputs and targets.

    Args:
        augmentations: drawn once per sample (when ``meta["train"]``).
    """

    def __init__(self, augmentations: augment.Augmentations) -> None:
        self.augmentations = augmentations
        self.radar = RadarMagnitude()
        self.lidar = LidarDepth()

    def __call__(self, data: dict[str, Any]) -> dict[str, Any]:
        """The transformed sample."""
        aug = self.augmentations(data.get("meta", {"train": False}))
        return {
            "radar": self.radar(data["radar"], aug),
            "lidar": self.lidar(data["lidar"], aug),
            "acc": data["imu"].acc.mean(axis=1).astype(np.float32),
            "flipped": bool(aug.get("range_flip", False)),
        }

    def children(self):
        """Its parts."""
        return [self.augmentations, self.radar, self.lidar]


class Normalize(torch.nn.Module):
    """The batch stage: radar magnitude normalized (a module, on the
    device)."""

    def __init__(self, scale: float = 100.0) -> None:
        super().__init__()
        self.register_buffer("scale", torch.tensor(scale))

    def forward(self, batch: dict[str, Any]) -> dict[str, Any]:
        """The normalized batch."""
        radar = batch["radar"]
        return {**batch, "radar": types.RadarInput(
            magnitude=radar.magnitude / self.scale,
            range_resolution=radar.range_resolution)}


def augmentations() -> augment.Augmentations:
    """The training augmentations."""
    return augment.Augmentations(
        radar_scale=augment.TruncatedLogNormal(p=0.8, std=0.2, clip=2.0),
        range_flip=augment.Bernoulli(p=0.5),
        range_scale=augment.Uniform(p=0.5, lower=0.9, upper=1.1),
        noise=augment.Normal(p=0.3, std=0.1))


def pipeline(torch_pipeline: bool = True) -> spec.Pipeline:
    """The pipeline: as an ``ext.torch.Pipeline`` (a module) or as an
    ``abstract.Pipeline``."""
    kind = adl_torch.Pipeline if torch_pipeline else abstract.Pipeline
    return kind(sample=Sample(augmentations()), collate=adl_torch.Collate(mode="concat"),
                batch=abstract.Transform([Normalize()]))
