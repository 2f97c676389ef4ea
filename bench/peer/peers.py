#!/usr/bin/env python3
"""The other loaders, side by side with adl (issue 33): PyTorch's
DataLoader, Meta's SPDL, Google's Grain, torchdata's nodes and
dataloader-rs, each over the same dataset doing the same work, one run per
process.

    python peers.py --peer grain --workload w6 --workers 2 [--mode process]
    python peers.py --peer spdl --workload w4 --workers 4 --data DIR
    python peers.py --peer torch --workload w6 --workers 0 --verify

Workloads (each peer runs the same Python ``__getitem__`` and collate):

- ``w2``: WORKLOADS.md's W2 in memory (uint8 [3, 64, 64] images, a flip and
  a division per sample, a per-channel normalisation per batch of 64).
- ``w4``: bench/W4.md's on-disk recording (Pillow decode, a random resized
  crop to 224 and a flip, the radar, IMU window and lidar per sample;
  batches of 32, the clouds padded and packed). PyTorch's peer is
  peer_torch_w4.py's (torchvision's transforms); the others use Pillow's
  resize of the crop box and NumPy, the same work.
- ``w6``: w6.py's Python transform that holds the GIL.

Timing: one iteration over three epochs' samples (so that a loader which
starts its workers per iterator pays that once, as a persistent one
does); the warm figure is the second epoch's samples per second, the cold
one the first's. The middle epoch, not the last: a loader that works far
ahead (Grain's read threads in each worker process, 16 batches in flight
each) has the start of the measured epoch half made when it begins, and,
measured on the last epoch, nothing in flight at its end to make up for
it (that read 1.45x its steady rate on W4). ``--verify`` runs one epoch in order and prints its
digest (W2: SHA-256 of the float32 batches; W6: w6.Digest) beside the
plain loop's. One JSON line.

Modes: ``thread`` or ``process`` workers where the peer offers both
(SPDL's executor, torchdata's ParallelMapper), its only kind otherwise
(PyTorch and Grain: processes; dataloader-rs: threads). 0 workers: the
loader's in-process path.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "w4"))

import workloads as wl  # noqa: E402

PEERS = ("torch", "grain", "spdl", "torchdata", "dataloader-rs", "adl")
SIZES = {"w2": wl.W2_BATCH, "w4": 32, "w6": 64}
MODES = {"torch": ("process",), "grain": ("process",), "spdl": ("thread", "process"),
         "torchdata": ("thread", "process"), "dataloader-rs": ("thread",), "adl": ("thread", "process")}


# ---------------------------------------------------------------- workloads
class W2Dataset:
    """W2 in memory: sample i is the flipped image divided by 255."""

    def __init__(self):
        self.images, self.flips = wl.w2_generate()

    def __len__(self):
        return wl.W2_N

    def __getitem__(self, i):
        return wl.w2_transform(self.images[i], bool(self.flips[i]))


def w2_collate(samples):
    return wl.w2_batch_transform_np(np.stack(samples))


class W4Dataset:
    """W4 without PyTorch: Pillow decodes, RandomResizedCrop's parameters
    drawn as torchvision draws them, Pillow resizes the crop box to 224
    (bilinear, as torchvision's on PIL images), a flip, then NumPy for
    ToTensor and Normalize; the radar, IMU and lidar as the PyTorch peer."""

    def __init__(self, root):
        import w4

        self.w4 = w4
        self.traces = w4.open_dataset(root)
        self.table = w4.sample_table(self.traces)

    def __len__(self):
        return len(self.table)

    def crop_box(self, width, height):
        area = width * height
        for _ in range(10):
            target = area * random.uniform(0.08, 1.0)
            ratio = np.exp(random.uniform(np.log(3 / 4), np.log(4 / 3)))
            w = int(round(np.sqrt(target * ratio)))
            h = int(round(np.sqrt(target / ratio)))
            if 0 < w <= width and 0 < h <= height:
                left, top = random.randint(0, width - w), random.randint(0, height - h)
                return left, top, left + w, top + h
        side = min(width, height)
        left, top = (width - side) // 2, (height - side) // 2
        return left, top, left + side, top + side

    def __getitem__(self, i):
        from PIL import Image

        w4 = self.w4
        row = self.table[i]
        _, c, r, e, li = (int(x) for x in row)
        tr = self.traces[int(row[0])]
        im = w4.decode_jpeg(tr.camera_files[c], tr.name)
        im = im.resize((w4.CROP, w4.CROP), Image.BILINEAR, box=self.crop_box(*im.size))
        if random.random() < 0.5:
            im = im.transpose(Image.FLIP_LEFT_RIGHT)
        chw = np.asarray(im, dtype=np.float32).transpose(2, 0, 1) / np.float32(255.0)
        image = (chw - w4.MEAN[:, None, None]) / w4.STD[:, None, None]
        return {"image": image, "radar": w4.radar_logmag(tr.radar[r]), "imu": w4.imu_window(tr.imu, e),
                "lidar": w4.read_lidar(tr.lidar_files[li], tr.name), "t": float(tr.camera_ts[c]), "idx": row.copy()}


def w4_collate(samples):
    import w4

    out = {k: np.stack([s[k] for s in samples]) for k in ("image", "radar", "imu", "idx")}
    out["t"] = np.array([s["t"] for s in samples])
    out.update(w4.pad_pack([s["lidar"] for s in samples]))
    return out


def workload(name, data):
    """(dataset, collate, batch size) of a workload."""
    if name == "w2":
        return W2Dataset(), w2_collate, wl.W2_BATCH
    if name == "w4":
        import w4

        return W4Dataset(data), w4_collate, w4.BATCH
    if name == "w6":
        import w6

        return w6.W6Dataset(), w6.collate, w6.BATCH
    raise SystemExit(f"peers: no workload {name!r} (w2, w4, w6)")


class Repeated:
    """`dataset`'s samples `times` over, in order."""

    def __init__(self, dataset, times):
        self.dataset, self.times = dataset, times

    def __len__(self):
        return len(self.dataset) * self.times

    def __getitem__(self, i):
        return self.dataset[i % len(self.dataset)]


_MADE = {}


class BatchMaker:
    """Batch k of a workload (its samples k*B to (k+1)*B-1 of the repeated
    dataset, collated), built in whichever process calls it: it pickles as
    its arguments, not its data, and each process makes the dataset once
    (an executor that pickles it for every call, as a process pool does,
    finds it made)."""

    def __init__(self, name, data, times):
        self.name, self.data, self.times = name, data, times

    def __call__(self, k):
        key = (self.name, self.data, self.times)
        if key not in _MADE:
            dataset, collate, size = workload(self.name, self.data)
            _MADE[key] = (Repeated(dataset, self.times), collate, size)
        dataset, collate, size = _MADE[key]
        return collate([dataset[i] for i in range(k * size, (k + 1) * size)])


# ---------------------------------------------------------------- the loaders
def torch_batches(name, data, workers, mode, times):
    """PyTorch's DataLoader: default_collate (tensors through shared
    memory from its worker processes), then the workload's batch step."""
    import torch
    from torch.utils.data import DataLoader, default_collate

    if name == "w4":
        import peer_torch_w4

        loader = DataLoader(Repeated(peer_torch_w4.W4Dataset(data, False), times), batch_size=32,
                            collate_fn=peer_torch_w4.collate, num_workers=workers, drop_last=True,
                            persistent_workers=workers > 0, prefetch_factor=2 if workers else None)
        return loader, None
    dataset, _, size = workload(name, data)
    if name == "w2":
        mean = torch.from_numpy(wl.W2_MEAN)[None, :, None, None]
        std = torch.from_numpy(wl.W2_STD)[None, :, None, None]

        def collate(samples):
            return (default_collate(samples) - mean) / std
    else:
        collate = default_collate
    loader = DataLoader(Repeated(dataset, times), batch_size=size, collate_fn=collate, num_workers=workers,
                        drop_last=True, persistent_workers=workers > 0, prefetch_factor=2 if workers else None)
    return loader, None


def grain_batches(name, data, workers, mode, times):
    """Grain: a MapDataset over the samples, batched by the workload's
    collate, as an IterDataset (its 16 read threads) prefetched by
    `workers` processes (mp_prefetch), or with none in this process. Its
    read-ahead is 32 batches: its default, 500 elements, is 500 batches
    here (9.6 GB of W4's), and a measured rate that was its buffer
    draining, not its workers working (and batched after
    `to_iter_dataset`, mp_prefetch deals samples, not batches, to its
    workers: other batches, 6x slower)."""
    import grain

    dataset, collate, size = workload(name, data)
    ds = grain.MapDataset.source(Repeated(dataset, times)).batch(size, drop_remainder=True, batch_fn=collate)
    it = ds.to_iter_dataset(grain.ReadOptions(prefetch_buffer_size=32))
    if workers:
        it = it.mp_prefetch(grain.MultiprocessingOptions(num_workers=workers))
    return it, None


def spdl_batches(name, data, workers, mode, times):
    """SPDL: a pipeline of batch numbers through the batch maker at
    concurrency `workers` (threads, or a process pool as its executor),
    in order."""
    from concurrent.futures import ProcessPoolExecutor

    from spdl.pipeline import PipelineBuilder

    count = batches(name, data, SIZES[name], times)
    make = BatchMaker(name, data, times)
    executor = ProcessPoolExecutor(workers) if mode == "process" and workers else None
    builder = (PipelineBuilder().add_source(range(count))
               .pipe(make, concurrency=max(workers, 1), executor=executor, output_order="input")
               .add_sink(max(workers, 1) * 2))
    pipeline = builder.build(num_threads=max(workers, 1))

    def run():
        with pipeline.auto_stop():
            yield from pipeline
        if executor is not None:
            executor.shutdown()
    return run(), None


def torchdata_batches(name, data, workers, mode, times):
    """torchdata's nodes: batch numbers through a ParallelMapper of the
    batch maker (threads or processes, in order), or a Mapper with none."""
    from torchdata.nodes import IterableWrapper, Loader, Mapper, ParallelMapper

    node = IterableWrapper(range(batches(name, data, SIZES[name], times)))
    make = BatchMaker(name, data, times)
    if workers:
        node = ParallelMapper(node, map_fn=make, num_workers=workers, method=mode, in_order=True)
    else:
        node = Mapper(node, make)
    return Loader(node), None


def dataloader_rs_batches(name, data, workers, mode, times):
    """dataloader-rs: its PyDataloader (thread workers, a Rust core) over
    the samples with the workload's collate."""
    import dataloader_rs

    class Samples(dataloader_rs.PyDataset):
        def __init__(self, dataset):
            self.dataset = dataset

        def __len__(self):
            return len(self.dataset)

        def __getitem__(self, i):
            return self.dataset[i]

    dataset, collate, size = workload(name, data)
    loader = dataloader_rs.PyDataloader(Samples(Repeated(dataset, times)), batch_size=size, num_workers=workers,
                                        collate_fn=collate, drop_last=True)
    return loader, None


def adl_batches(name, data, workers, mode, times):
    """adl.Loader over the same Python dataset (its epochs: `times` of
    them), adl.default_collate, then the workload's batch step."""
    import adl

    dataset, _, size = workload(name, data)
    options = {"processes": mode == "process"}
    loader = adl.Loader(dataset, batch_size=size, workers=workers, drop_last=True, **options)

    def run():
        for epoch in range(times):
            for batch in loader.epoch(epoch):
                yield wl.w2_batch_transform_np(batch) if name == "w2" else batch
    return run(), loader


def batches(name, data, size, times):
    n = {"w2": wl.W2_N, "w6": 20_000}.get(name)
    if n is None:
        import w4

        n = len(w4.sample_table(w4.open_dataset(data)))
    return n * times // size


MAKERS = {"torch": torch_batches, "grain": grain_batches, "spdl": spdl_batches, "torchdata": torchdata_batches,
          "dataloader-rs": dataloader_rs_batches, "adl": adl_batches}


def count(batch):
    if isinstance(batch, dict):
        first = batch["ids"] if "ids" in batch else batch["image"]
        return len(first)
    return len(batch)


def as_numpy(x):
    return x.numpy() if hasattr(x, "numpy") and not isinstance(x, np.ndarray) else np.asarray(x)


# ---------------------------------------------------------------- runs
def timed(args):
    times = 3
    made, _ = MAKERS[args.peer](args.workload, args.data, args.workers, args.mode, times)
    n = batches(args.workload, args.data, SIZES[args.workload], 1)
    start = time.perf_counter()
    samples, marks = 0, []
    for k, batch in enumerate(made):
        samples += count(batch)
        if (k + 1) % n == 0:
            marks.append((samples, time.perf_counter()))
    (first, first_end), (second, second_end) = marks[0], marks[1]
    return {"cold_samples_per_s": round(first / (first_end - start), 1),
            "warm_samples_per_s": round((second - first) / (second_end - first_end), 1),
            "samples": samples}


def verified(args):
    if args.workload == "w4":
        raise SystemExit("peers: W4's random crops have no digest; its verify mode is peer_torch_w4.py --verify")
    made, _ = MAKERS[args.peer](args.workload, args.data, args.workers, args.mode, 1)
    if args.workload == "w6":
        import w6

        digest = w6.Digest()
        for batch in made:
            digest.add({k: as_numpy(v) for k, v in batch.items()})
        return {"digest": digest.hex(), "reference": w6.reference(), "batches": digest.batches}
    h, reference, b = hashlib.sha256(), hashlib.sha256(), 0
    for batch in made:
        h.update(np.ascontiguousarray(as_numpy(batch), dtype="<f4").tobytes())
        b += 1
    ds = W2Dataset()
    for k in range(b):
        reference.update(w2_collate([ds[i] for i in range(k * wl.W2_BATCH, (k + 1) * wl.W2_BATCH)]).tobytes())
    return {"digest": h.hexdigest(), "reference": reference.hexdigest(), "batches": b}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peer", choices=PEERS, required=True)
    ap.add_argument("--workload", choices=("w2", "w4", "w6"), required=True)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--mode", choices=("thread", "process"))
    ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "target", "w4-data"))
    ap.add_argument("--verify", action="store_true")
    args = ap.parse_args()
    args.mode = args.mode or MODES[args.peer][0]
    if args.mode not in MODES[args.peer]:
        raise SystemExit(f"peers: {args.peer} has {' or '.join(MODES[args.peer])} workers, not {args.mode}")
    row = {"peer": args.peer, "workload": args.workload, "workers": args.workers, "mode": args.mode,
           "python": sys.version.split()[0]}
    if args.peer == "adl":
        import adl

        row["build"] = adl.BUILD  # "release" or "debug": compare.py measures release builds only
    row.update(verified(args) if args.verify else timed(args))
    row["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
