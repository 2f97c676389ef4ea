#!/usr/bin/env python3
"""W4 "on-disk-multimodal" through the ADL Python reference (abstract-dataloader 0.4.7).

    python peer_adl_ref_w4.py DATA_DIR                    # timing: workers 0,2,4 x 3 runs, medians, best
    python peer_adl_ref_w4.py DATA_DIR --verify [--verify-out DIR]
    python peer_adl_ref_w4.py DATA_DIR --single 2 [--cold fadvise|drop_caches|none]

The same loop as peer_torch_w4.py, written the ADL way: one `abstract.Sensor`
per sensor folder (the IMU row sensor wrapped in `generic.Window(past=19)`),
an `abstract.Trace` per trace synchronized by `generic.Nearest("camera",
tol=0.05)`, an `abstract.Dataset` over the traces, a
`generic.ParallelPipelines` of one `abstract.Pipeline` per sensor (sample
transform + collate; `ext.torch.Collate("stack")` for the fixed-size fields),
and `ext.torch.TransformedDataset` under a torch DataLoader. The transforms
are the PyTorch peer's (w4.py and torchvision), so the two differ only in
how the data is found, synchronized and collated.

Each sensor returns its data with its own index (and the camera its
timestamp and trace number) so that verify mode can digest the
synchronization. JSON lines as peer_torch_w4.py, with "peer": "adl-ref".
"""

from __future__ import annotations

import numpy as np
import torch
from abstract_dataloader import abstract, generic
from abstract_dataloader.ext.torch import Collate, TransformedDataset
from torch.utils.data import DataLoader

import harness
import w4


# ---------------------------------------------------------------- sensors
class Camera(abstract.Sensor):
    def __init__(self, tr: w4.TraceFiles):
        super().__init__(generic.Metadata(timestamps=tr.camera_ts), name=f"{tr.name}/camera")
        self.tr = tr

    def __getitem__(self, i):
        # t as a 0-d float64 array: ext.torch.Collate turns a Python float
        # into a float32 tensor, which cannot hold epoch seconds
        return {"image": w4.decode_jpeg(self.tr.camera_files[i], self.tr.name), "index": int(i),
                "t": np.array(self.tr.camera_ts[i]), "trace": self.tr.number}


class Radar(abstract.Sensor):
    def __init__(self, tr: w4.TraceFiles):
        super().__init__(generic.Metadata(timestamps=tr.radar_ts), name=f"{tr.name}/radar")
        self.data = tr.radar

    def __getitem__(self, i):
        return {"data": self.data[i], "index": int(i)}


class ImuRow(abstract.Sensor):
    """One IMU row per sample; the trace sees it through a 20-row Window."""

    def __init__(self, tr: w4.TraceFiles):
        super().__init__(generic.Metadata(timestamps=tr.imu_ts), name=f"{tr.name}/imu")
        self.values = tr.imu

    def __getitem__(self, i):
        return {"data": self.values[i], "index": int(i)}


def stack_rows(rows):
    """Window collate: the rows stacked, indexed by the last (synchronized) row."""
    return {"data": np.stack([r["data"] for r in rows]), "index": rows[-1]["index"]}


class Lidar(abstract.Sensor):
    def __init__(self, tr: w4.TraceFiles):
        super().__init__(generic.Metadata(timestamps=tr.lidar_ts), name=f"{tr.name}/lidar")
        self.tr = tr

    def __getitem__(self, i):
        return {"data": w4.read_lidar(self.tr.lidar_files[i], self.tr.name), "index": int(i)}


def make_dataset(root: str) -> abstract.Dataset:
    traces = []
    for tr in w4.open_dataset(root):
        sensors = {"camera": Camera(tr), "radar": Radar(tr),
                   "imu": generic.Window(ImuRow(tr), collate_fn=stack_rows, past=w4.IMU_WINDOW - 1),
                   "lidar": Lidar(tr)}
        traces.append(abstract.Trace(sensors, sync=generic.Nearest("camera", tol=w4.TOL), name=tr.name))
    return abstract.Dataset(traces)


# ---------------------------------------------------------------- pipelines
class CameraSample:
    """Decoded frame -> normalised float32 [3, 224, 224]: torchvision's random
    crop and flip for timing, the spec's center transform for verify."""

    def __init__(self, verify: bool):
        self.verify = verify
        if not verify:
            import torchvision.transforms as T

            self.tf = T.Compose([T.RandomResizedCrop(w4.CROP), T.RandomHorizontalFlip(), T.ToTensor(),
                                 T.Normalize(w4.MEAN.tolist(), w4.STD.tolist())])

    def __call__(self, s):
        out = {"index": s["index"], "t": s["t"], "trace": s["trace"]}
        if self.verify:
            u8 = w4.center_u8(np.asarray(s["image"]))
            out.update(image=w4.normalise_u8(u8), image_u8=u8)
        else:
            out["image"] = self.tf(s["image"])
        return out


def radar_sample(s):
    return {"data": w4.radar_logmag(s["data"]), "index": s["index"]}


def lidar_collate(samples):
    out = {k: torch.from_numpy(v) for k, v in w4.pad_pack([s["data"] for s in samples]).items()}
    out["index"] = torch.tensor([s["index"] for s in samples])
    return out


def make_pipeline(verify: bool) -> generic.ParallelPipelines:
    stack = Collate(mode="stack")
    return generic.ParallelPipelines(
        camera=abstract.Pipeline(sample=CameraSample(verify), collate=stack),
        radar=abstract.Pipeline(sample=radar_sample, collate=stack),
        imu=abstract.Pipeline(collate=stack),
        lidar=abstract.Pipeline(collate=lidar_collate))


def make_loader(root: str, workers: int, verify: bool) -> DataLoader:
    pipeline = make_pipeline(verify)
    ds = TransformedDataset(make_dataset(root), pipeline.sample)
    return DataLoader(ds, collate_fn=pipeline.collate, **harness.loader_options(len(ds), workers))


def count(batch) -> int:
    return len(batch["camera"]["image"])


def to_fields(b) -> dict:
    """The nested per-sensor batch as W4's output fields."""
    cam, lidar = b["camera"], b["lidar"]
    idx = torch.stack([cam["trace"], cam["index"], b["radar"]["index"], b["imu"]["index"], lidar["index"]], dim=1)
    out = {"image": cam["image"], "image_u8": cam["image_u8"], "t": cam["t"], "idx": idx,
           "radar": b["radar"]["data"], "imu": b["imu"]["data"],
           **{k: v for k, v in lidar.items() if k != "index"}}
    return {k: v.numpy() for k, v in out.items()}


if __name__ == "__main__":
    harness.main("adl-ref", __file__, make_loader, count, to_fields, __doc__)
