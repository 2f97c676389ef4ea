#!/usr/bin/env python3
"""One run of the LeRobot benchmark, as a process of its own: one epoch of
the dataset at DATA (generate.py), batch 32, shuffled, the front camera's
window of 2 frames (`[-1/fps, 0]`), the wrist camera's frame, the state,
and a chunk of 8 actions, with the padding masks, as a policy trains on
them; every batch's tensors touched (one value in 1,024 of each read).
Prints one JSON line.

    python bench/lerobot/run.py DATA CONFIG [--workers 2] [--batch 32]

CONFIG:
    adl           adl.Loader over adl.lerobot.LeRobotDataset (read, decoded
                  and collated in Rust, `workers` threads)
    adl-torch     adl.lerobot.LeRobotDataset under torch's DataLoader
                  (`workers` worker processes)
    torchcodec    lerobot's LeRobotDataset under torch's DataLoader, its
                  default video backend (torchcodec)
    pyav          the same, video_backend="pyav"
    limit         the decode limit: the groups of pictures each batch needs
                  (each once per batch), decoded back to back by FFmpeg
                  (adl.files.Video: libavcodec and libswscale, nothing
                  else) on `workers` threads: no table, no collate, no
                  loader

The JSON line: samples/s over the epoch (the dataset made before the clock
starts), the frames decoded where known, and the process tree's resident
memory (summed RSS, MiB) after each quarter of the epoch: flat memory is
the same figure at each.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

SEED = 20261129


def tree_rss_mb() -> float:
    """The summed resident memory of this process and its descendants."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    total, todo = 0.0, [os.getpid()]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) / 1024
        except OSError:
            pass
    return total


def deltas(fps: float) -> dict[str, list[float]]:
    return {
        "observation.images.front": [-1 / fps, 0.0],
        "action": [i / fps for i in range(8)],
    }


def epoch(batches, count: int, touch) -> tuple[int, list[float]]:
    """Iterate `batches` (`count` of them), touching each; the samples and
    the memory after each quarter."""
    samples, memory = 0, []
    marks = {max(1, round(count * q / 4)) for q in (1, 2, 3, 4)}
    for n, batch in enumerate(batches, 1):
        samples += touch(batch)
        if n in marks:
            memory.append(round(tree_rss_mb(), 1))
    return samples, memory


def touch_tensors(batch) -> int:
    """Read one value in 1,024 of every tensor of the batch (a page of
    each, at least): the batch is there, in memory, as a training step
    finds it, at a cost small beside the loading."""
    total = 0.0
    for value in batch.values():
        if hasattr(value, "reshape"):
            total += float(value.reshape(-1)[::1024].float().sum())
    return len(batch["index"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data")
    parser.add_argument("config", choices=["adl", "adl-torch", "torchcodec", "pyav", "limit"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()
    import json as _json

    fps = _json.load(open(os.path.join(args.data, "meta", "info.json")))["fps"]
    made = time.perf_counter()
    decoded = None
    if args.config == "limit":
        start, samples, memory, decoded = limit(args.data, fps, args.batch, args.workers)
    else:
        import torch

        if args.config in ("adl", "adl-torch"):
            from adl.lerobot import LeRobotDataset
        else:
            from lerobot.datasets.lerobot_dataset import LeRobotDataset
        kwargs = {"video_backend": "pyav"} if args.config == "pyav" else {}
        dataset = LeRobotDataset("adl/bench_lerobot", root=args.data, delta_timestamps=deltas(fps), **kwargs)
        count = -(-len(dataset) // args.batch)
        if args.config == "adl":
            import adl

            loader = adl.Loader(dataset, batch_size=args.batch, workers=args.workers, shuffle=SEED)
            batches = loader.epoch(0)
        else:
            generator = torch.Generator().manual_seed(SEED)
            batches = torch.utils.data.DataLoader(dataset, batch_size=args.batch, shuffle=True,
                                                  num_workers=args.workers, generator=generator)
        start = time.perf_counter()
        samples, memory = epoch(batches, count, touch_tensors)
    seconds = time.perf_counter() - start
    print(json.dumps({
        "config": args.config,
        "workers": args.workers,
        "samples": samples,
        "seconds": round(seconds, 3),
        "samples_per_s": round(samples / seconds, 1),
        "open_seconds": round(start - made, 3),
        "frames_decoded": decoded,
        "rss_quarters_mb": memory,
    }))


def limit(data: str, fps: float, batch: int, workers: int):
    """The groups of pictures each batch of a shuffled epoch needs, each
    decoded once per batch (the front camera's frames t-1 and t, the wrist
    camera's t), back to back by FFmpeg through adl.files.Video on
    `workers` threads."""
    import numpy as np
    import pyarrow.parquet as pq

    from adl.files import Video

    info = json.load(open(os.path.join(data, "meta", "info.json")))
    episodes = pq.read_table(os.path.join(data, "meta", "episodes", "chunk-000", "file-000.parquet")).to_pylist()
    cameras = [k for k, f in info["features"].items() if f["dtype"] == "video"]
    videos, items = {}, []
    for ep in episodes:
        for k in range(ep["length"]):
            wanted = []
            for camera in cameras:
                path = os.path.join(data, info["video_path"].format(
                    video_key=camera, chunk_index=ep[f"videos/{camera}/chunk_index"],
                    file_index=ep[f"videos/{camera}/file_index"]))
                if path not in videos:
                    videos[path] = Video(path, layout="chw")
                first = round(ep[f"videos/{camera}/from_timestamp"] * fps)
                frames = [first + max(k - 1, 0), first + k] if camera.endswith("front") else [first + k]
                wanted.append((path, frames))
            items.append(wanted)
    order = np.random.default_rng(SEED).permutation(len(items))
    batches = []
    for b in range(0, len(order), batch):
        needed: dict[str, set[int]] = {}
        for i in order[b:b + batch]:
            for path, frames in items[i]:
                needed.setdefault(path, set()).update(frames)
        batches.append(needed)

    def decode(needed):
        n = 0
        for path, frames in needed.items():
            n += len(videos[path].frames(sorted(frames)))
        return n

    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        decoded = sum(pool.map(decode, batches))
    memory = [round(tree_rss_mb(), 1)]
    return start, len(items), memory, decoded


if __name__ == "__main__":
    sys.exit(main())
