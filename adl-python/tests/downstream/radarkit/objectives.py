"""Objectives (nrdk's pattern): ``ext.objective.Objective``
implementations combined by a ``MultiObjective`` that indexes the batch
and the model's output by key and attribute path."""

import numpy as np
import torch
from abstract_dataloader.ext.objective import (
    MultiObjective,
    Objective,
    VisualizationConfig,
)
from jaxtyping import Bool, Float, Shaped, UInt8
from torch import Tensor

from . import types


class DepthL1(Objective[Tensor, types.DepthTarget[Tensor], Float[Tensor, "batch beam azimuth"]]):
    """L1 depth error where there is a return.

    Metrics: ``rmse`` (no gradient), ``coverage`` (``train=False`` only).
    """

    def __init__(self, config: VisualizationConfig = VisualizationConfig(cols=2)) -> None:
        self.config = config

    def __call__(self, y_true: types.DepthTarget[Tensor], y_pred: Float[Tensor, "batch beam azimuth"],
                 train: bool = True, valid: Bool[Tensor, "batch beam azimuth"] | None = None
                 ) -> tuple[Float[Tensor, "batch"], dict[str, Float[Tensor, "batch"]]]:
        """Loss and metrics per sample."""
        mask = (y_true.valid if valid is None else valid).float()
        error = (y_pred - y_true.depth).abs() * mask
        loss = error.sum(dim=(1, 2)) / mask.sum(dim=(1, 2)).clamp(min=1)
        with torch.no_grad():
            metrics = {"rmse": ((error ** 2).sum(dim=(1, 2))
                                / mask.sum(dim=(1, 2)).clamp(min=1)).sqrt()}
            if not train:
                metrics["coverage"] = mask.mean(dim=(1, 2))
        return loss, metrics

    def visualizations(self, y_true: types.DepthTarget[Tensor], y_pred: Tensor,
                       valid=None) -> dict[str, UInt8[np.ndarray, "H W 3"]]:
        """The predicted depth of the first samples, tiled, gray."""
        tiles = y_pred[: self.config.cols].detach().cpu().numpy()
        row = np.concatenate(list(tiles), axis=1)
        gray = np.clip(row / max(row.max(), 1e-6) * 255, 0, 255).astype(np.uint8)
        return {"depth": np.repeat(gray[..., None], 3, axis=2)}

    def render(self, y_true: types.DepthTarget[Tensor], y_pred: Tensor,
               render_gt: bool = False, valid=None) -> dict[str, Shaped[np.ndarray, "batch ..."]]:
        """The predicted (and true) depth, per sample."""
        out = {"depth": y_pred.detach().cpu().numpy()}
        if render_gt:
            out["depth_gt"] = y_true.depth.cpu().numpy()
        return out


class Power(Objective[Tensor, Float[Tensor, "batch rx sample"], Float[Tensor, "batch"]]):
    """Squared error of the predicted mean radar power."""

    def __call__(self, y_true: Tensor, y_pred: Tensor, train: bool = True
                 ) -> tuple[Float[Tensor, "batch"], dict[str, Float[Tensor, "batch"]]]:
        """Loss and metrics per sample."""
        target = y_true.mean(dim=(1, 2))
        loss = (y_pred - target) ** 2
        return loss, {"bias": (y_pred - target).detach()}


def objective(strict: bool = True) -> MultiObjective:
    """Depth from ``lidar`` (valid mask as an aux input, by path) and power
    from ``radar.magnitude`` (by attribute path); a third objective that
    reads a key the model does not output (skipped unless strict)."""
    return MultiObjective(
        strict=strict,
        depth={"objective": DepthL1(), "y_true": "lidar", "y_pred": "depth",
               "aux": {"valid": ["lidar", "valid"]}},
        power={"objective": Power(), "weight": 0.5, "y_true": ["radar", "magnitude"],
               "y_pred": "power"},
        velocity={"objective": Power(), "y_true": "acc", "y_pred": "velocity"})


class Model(torch.nn.Module):
    """A fixed (parameter-free) model: depth from the radar magnitude's
    profile, power from its mean."""

    def forward(self, batch: dict) -> dict[str, Tensor]:
        """Predictions for a batch."""
        profile = batch["radar"].magnitude.mean(dim=1)  # batch, sample
        beams, azimuth = batch["lidar"].depth.shape[1:]
        depth = torch.nn.functional.interpolate(
            profile[:, None, :], size=azimuth, mode="linear", align_corners=True)
        return {"depth": depth.expand(-1, beams, -1) * batch["radar"].range_resolution[:, None, None],
                "power": batch["radar"].magnitude.mean(dim=(1, 2)) * 1.1}
