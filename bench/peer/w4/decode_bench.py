#!/usr/bin/env python3
"""JPEG decode alone with Pillow (libjpeg-turbo), one core, over W4's camera frames.

    python decode_bench.py DATA_DIR [--frames N] [--reps 3] [--cpu K]

The frames' bytes are read into memory first (warm: no I/O is timed), the
process is pinned to one core (--cpu, default the last one), and each rep
decodes every frame once, in file order. Modes, one JSON line each:

- "decode": Image.open + load(): the decoded image in Pillow's own buffer;
- "decode_to_array": the same plus np.asarray(image), a contiguous uint8
  [480, 640, 3] array (what a loader hands on);
- "draft_half": Pillow's draft mode, libjpeg-turbo scaling the DCT to decode
  at 320x240 directly (decode-time downscaling).

Line: {"bench": "jpeg-decode", "decoder": "pillow", "mode", "frames", "reps",
"cpu", "frames_per_s" (median), "frames_per_s_all", "in_mb_per_s" (JPEG
bytes, 1e6), "out_mb_per_s" (decoded RGB bytes), "mpix_per_s" (decoded
pixels), "mean_jpeg_kb", "pillow", "libjpeg_turbo"}.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import time

import numpy as np
from PIL import Image, features

import w4


def decode(b: bytes):
    im = Image.open(io.BytesIO(b))
    im.load()
    return im


def decode_to_array(b: bytes):
    return np.asarray(decode(b))


def draft_half(b: bytes):
    im = Image.open(io.BytesIO(b))
    im.draft("RGB", (w4.CAM_W // 2, w4.CAM_H // 2))
    im.load()
    return im


# mode: (function, decoded width x height)
MODES = {"decode": (decode, (w4.CAM_W, w4.CAM_H)), "decode_to_array": (decode_to_array, (w4.CAM_W, w4.CAM_H)),
         "draft_half": (draft_half, (w4.CAM_W // 2, w4.CAM_H // 2))}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data_dir")
    ap.add_argument("--frames", type=int, default=0, help="decode only the first N frames (default: all)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cpu", type=int, default=None, help="core to pin to (default: the last allowed one)")
    a = ap.parse_args()
    try:
        traces = w4.open_dataset(a.data_dir)
    except w4.LayoutError as e:
        raise SystemExit(f"decode_bench: bad W4 dataset: {e}") from None
    paths = [p for tr in traces for p in tr.camera_files]
    if a.frames:
        paths = paths[:a.frames]
    blobs = []
    for p in paths:
        with open(p, "rb") as f:
            blobs.append(f.read())
    cpu = a.cpu if a.cpu is not None else max(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    in_bytes = sum(len(b) for b in blobs)
    for name, (fn, (w, h)) in MODES.items():
        fn(blobs[0])  # first call outside the timing (imports, allocations)
        rates = []
        for _ in range(a.reps):
            t0 = time.perf_counter()
            for b in blobs:
                fn(b)
            rates.append(len(blobs) / (time.perf_counter() - t0))
        fps = statistics.median(rates)
        print(json.dumps({
            "bench": "jpeg-decode", "decoder": "pillow", "mode": name, "frames": len(blobs), "reps": a.reps,
            "cpu": cpu, "frames_per_s": round(fps, 1), "frames_per_s_all": [round(r, 1) for r in rates],
            "in_mb_per_s": round(fps * in_bytes / len(blobs) / 1e6, 1),
            "out_mb_per_s": round(fps * w * h * 3 / 1e6, 1), "mpix_per_s": round(fps * w * h / 1e6, 1),
            "mean_jpeg_kb": round(in_bytes / len(blobs) / 1e3, 1),
            "pillow": Image.__version__, "libjpeg_turbo": features.version("libjpeg_turbo"),
        }), flush=True)


if __name__ == "__main__":
    main()
