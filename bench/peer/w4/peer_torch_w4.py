#!/usr/bin/env python3
"""PyTorch DataLoader peer for W4 "on-disk-multimodal" (bench/W4.md).

    python peer_torch_w4.py DATA_DIR                      # timing: workers 0,2,4 x 3 runs, medians, best
    python peer_torch_w4.py DATA_DIR --workers 2 --reps 1 --raw
    python peer_torch_w4.py DATA_DIR --verify [--verify-out DIR]   # digests, checked against w4.py's loop
    python peer_torch_w4.py DATA_DIR --single 2 [--cold fadvise|drop_caches|none]   # one run

What a PyTorch user writes for this dataset: a map-style Dataset over a
table of synchronized indices (w4.nearest, numpy), each sample read from the
files in __getitem__ (Pillow decode; torchvision's RandomResizedCrop(224),
RandomHorizontalFlip, ToTensor, Normalize; numpy for the radar memmap, the
IMU table read once, each lidar .npy), default_collate for the fixed-size
fields and a collate_fn that pads and packs the point clouds.

JSON lines: a run ({"workload", "peer": "torch", "num_workers", "samples",
"samples_per_s" (warm epoch 1), "cold_samples_per_s" (epoch 0 from an
evicted page cache), ...}), a summary per worker count (medians, same keys
plus "reps" and the "*_all" lists) and a "best" line; with --verify, one
line per worker count with "digest", "image_digest_pillow",
"image_u8_batch_sums" and "matches_reference".
"""

from __future__ import annotations

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, default_collate

import harness
import w4


class W4Dataset(Dataset):
    def __init__(self, root: str, verify: bool):
        self.traces = w4.open_dataset(root)
        self.table = w4.sample_table(self.traces)
        self.verify = verify
        if not verify:
            import torchvision.transforms as T

            self.image_tf = T.Compose([T.RandomResizedCrop(w4.CROP), T.RandomHorizontalFlip(), T.ToTensor(),
                                       T.Normalize(w4.MEAN.tolist(), w4.STD.tolist())])

    def __len__(self):
        return len(self.table)

    def __getitem__(self, i):
        row = self.table[i]
        _, c, r, e, li = (int(x) for x in row)
        tr = self.traces[int(row[0])]
        im = w4.decode_jpeg(tr.camera_files[c], tr.name)
        if self.verify:
            u8 = w4.center_u8(np.asarray(im))
            out = {"image": torch.from_numpy(w4.normalise_u8(u8)), "image_u8": torch.from_numpy(u8)}
        else:
            out = {"image": self.image_tf(im)}
        out.update(radar=torch.from_numpy(w4.radar_logmag(tr.radar[r])),
                   imu=torch.from_numpy(w4.imu_window(tr.imu, e)),
                   lidar=w4.read_lidar(tr.lidar_files[li], tr.name),
                   t=float(tr.camera_ts[c]), idx=torch.from_numpy(row.copy()))
        return out


def collate(samples):
    """default_collate for every field but the lidar, which is padded (with a
    mask) and packed (with offsets)."""
    out = default_collate([{k: v for k, v in s.items() if k != "lidar"} for s in samples])
    out.update({k: torch.from_numpy(v) for k, v in w4.pad_pack([s["lidar"] for s in samples]).items()})
    return out


def make_loader(root: str, workers: int, verify: bool) -> DataLoader:
    ds = W4Dataset(root, verify)
    return DataLoader(ds, collate_fn=collate, **harness.loader_options(len(ds), workers))


def count(batch) -> int:
    return len(batch["image"])


def to_fields(batch) -> dict:
    return {k: v.numpy() for k, v in batch.items()}


if __name__ == "__main__":
    harness.main("torch", __file__, make_loader, count, to_fields, __doc__)
