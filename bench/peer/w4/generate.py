#!/usr/bin/env python3
"""Write the W4 "on-disk-multimodal" dataset of bench/W4.md.

    python generate.py OUT_DIR [--traces N] [--seconds S] [--small] [--jobs J] [--force]

Default: 4 traces of 60 s (about 0.8 GB); --small: 2 traces of 3 s (for tests).
Every value comes from WORKLOADS.md's counter hash, except the camera
frames, which are crops of photographs shipped inside the scikit-image wheel,
resized and JPEG-encoded by Pillow: the files are byte-identical for the same
Pillow (libjpeg-turbo) and scikit-image versions, recorded in
OUT_DIR/manifest.json with the SHA-256 of OUT_DIR/SHA256SUMS (every data
file's hash). Traces are written in parallel (--jobs, default: all cores);
the bytes do not depend on it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import time
from multiprocessing import Pool

import numpy as np

import w4
from w4 import wl

# Photographs from skimage/data inside the scikit-image wheel (none is downloaded):
# trace r uses PHOTOS[r % 6].
PHOTOS = ["motorcycle_left.png", "coffee.png", "astronaut.png", "chelsea.png", "rocket.jpg", "motorcycle_right.png"]
CANVAS_W, CANVAS_H = 800, 600  # photo resized to cover this; frames are 640x480 windows of it
PAN_X, PAN_Y = CANVAS_W - w4.CAM_W, CANVAS_H - w4.CAM_H  # 160, 120
JPEG_OPTIONS = dict(quality=90, subsampling=2, optimize=False, progressive=False)  # 4:2:0, baseline


def u(stream, i, j):
    return wl.hash_u64(stream, i, j)


def seconds(t_us: np.ndarray) -> np.ndarray:
    return t_us.astype(np.float64) / 1e6


def jitter(stream: int, r: int, n: int, j: int) -> np.ndarray:
    """Uniform integer jitter on [-j, +j] us for readings 0..n-1 of trace r."""
    return (u(stream, r, np.arange(n)) % np.uint64(2 * j + 1)).astype(np.int64) - j


def times_us(spec: dict, stream: int, r: int, n: int) -> np.ndarray:
    t0 = w4.EPOCH_US + r * w4.TRACE_SPACING_US + spec["offset"]
    return t0 + np.arange(n, dtype=np.int64) * spec["period"] + jitter(stream, r, n, spec["jitter"])


def dropout(stream: int, r: int, frames: int) -> tuple[int, int]:
    """(first nominal index, length) of a stretch of missing readings."""
    length = min(15, frames // 10)
    return frames // 4 + int(u(stream, r, 0) % np.uint64(frames // 2)), length


def photo_dir() -> str:
    import importlib.util

    spec = importlib.util.find_spec("skimage")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("generate: scikit-image is not installed (pip install scikit-image): "
                         "its bundled sample photographs are the camera's scenes")
    return os.path.join(spec.submodule_search_locations[0], "data")


def canvas(r: int) -> np.ndarray:
    """Trace r's scene: its photograph resized (Lanczos) to cover 800x600, center-cropped."""
    from PIL import Image

    path = os.path.join(photo_dir(), PHOTOS[r % len(PHOTOS)])
    if not os.path.isfile(path):
        raise SystemExit(f"generate: {path} is missing from the scikit-image install")
    im = Image.open(path).convert("RGB")
    w, h = im.size
    if w * CANVAS_H >= h * CANVAS_W:  # wider than 4:3: fit the height
        size = (-(-w * CANVAS_H // h), CANVAS_H)
    else:
        size = (CANVAS_W, -(-h * CANVAS_W // w))
    im = im.resize(size, Image.LANCZOS)
    x, y = (size[0] - CANVAS_W) // 2, (size[1] - CANVAS_H) // 2
    return np.asarray(im.crop((x, y, x + CANVAS_W, y + CANVAS_H)))


def triangle(a: int, m: int) -> int:
    """A triangle wave in [0, m] with period 2m."""
    return abs(a % (2 * m) - m)


def write_camera(d: str, r: int, frames: int):
    from PIL import Image

    scene = canvas(r).astype(np.int16)
    # sensor noise: a fixed per-trace field of values in [-4, 3], seen through a moving window
    noise = ((u(w4.ST_CAM_NOISE, r, np.arange(CANVAS_H * CANVAS_W * 3)) >> np.uint64(61)).astype(np.int16) - 4)
    noise = noise.reshape(CANVAS_H, CANVAS_W, 3)
    d0, dn = dropout(w4.ST_CAM_DROPOUT, r, frames)
    keep = np.array([not (d0 <= k < d0 + dn) for k in range(frames)])
    pan = u(w4.ST_CAM_PAN, r, np.arange(frames))
    out = os.path.join(d, "camera")
    os.makedirs(out)
    for f, k in enumerate(np.flatnonzero(keep)):
        p = int(pan[k])
        ox = min(max(triangle(3 * k + 53 * r, PAN_X) + p % 9 - 4, 0), PAN_X)
        oy = min(max(triangle(2 * k + 29 * r, PAN_Y) + (p >> 16) % 9 - 4, 0), PAN_Y)
        nx, ny = (p >> 32) % (PAN_X + 1), (p >> 48) % (PAN_Y + 1)
        frame = scene[oy:oy + w4.CAM_H, ox:ox + w4.CAM_W] + noise[ny:ny + w4.CAM_H, nx:nx + w4.CAM_W]
        Image.fromarray(np.clip(frame, 0, 255).astype(np.uint8)).save(
            os.path.join(out, f"{f:06d}.jpg"), "JPEG", **JPEG_OPTIONS)
    np.save(os.path.join(out, "ts.npy"), seconds(times_us(w4.CAMERA, w4.ST_CAM_JITTER, r, frames)[keep]))
    return {"frames": int(keep.sum()), "dropout_nominal": [d0, dn]}


def write_radar(d: str, r: int, n: int):
    out = os.path.join(d, "radar")
    os.makedirs(out)
    data = np.lib.format.open_memmap(os.path.join(out, "data.npy"), "w+", np.float32, (n, *w4.RADAR_SHAPE))
    j = np.arange(w4.RADAR_SHAPE[0] * w4.RADAR_SHAPE[1], dtype=np.uint64)
    for s in range(0, n, 64):
        i = (np.uint64(r << w4.ROW_SHIFT) | np.arange(s, min(s + 64, n), dtype=np.uint64))[:, None]
        counts = (u(w4.ST_RADAR, i, j) >> np.uint64(51)).astype(np.int64) - 4096  # 13-bit ADC counts
        data[s:s + len(i)] = counts.astype(np.float32).reshape(-1, *w4.RADAR_SHAPE)
    data.flush()
    del data
    np.save(os.path.join(out, "ts.npy"), seconds(times_us(w4.RADAR, w4.ST_RADAR_JITTER, r, n)))
    return {"frames": n}


def write_imu(d: str, r: int, n: int):
    out = os.path.join(d, "imu")
    os.makedirs(out)
    t = seconds(times_us(w4.IMU, w4.ST_IMU_JITTER, r, n))
    i = (np.uint64(r << w4.ROW_SHIFT) | np.arange(n, dtype=np.uint64))[:, None]
    q = (u(w4.ST_IMU, i, np.arange(6, dtype=np.uint64)) >> np.uint64(50)).astype(np.int64) - 8192
    q[:, 2] += 10045  # gravity on az: 9.8095703125 m/s^2
    values = q.astype(np.float64) / 1024.0  # multiples of 2^-10, exact in float32 and in decimal
    with open(os.path.join(out, "data.csv"), "w") as f:
        f.write(",".join(w4.IMU_HEADER) + "\n")
        for tk, row in zip(t.tolist(), values.tolist()):
            f.write(",".join(repr(x) for x in [tk, *row]) + "\n")
    return {"rows": n}


def write_lidar(d: str, r: int, scans: int, frames: int):
    out = os.path.join(d, "lidar")
    os.makedirs(out)
    e0, en = dropout(w4.ST_LIDAR_DROPOUT, r, frames)
    keep = np.array([not (e0 <= m < e0 + en) for m in range(scans)])
    counts = w4.LIDAR_MIN + (u(w4.ST_LIDAR_COUNT, r, np.arange(scans)) % np.uint64(w4.LIDAR_MAX - w4.LIDAR_MIN + 1))
    scale = np.array([100.0, 100.0, 6.0, 1.0], dtype=np.float32)
    shift = np.array([50.0, 50.0, 3.0, 0.0], dtype=np.float32)
    points = 0
    for f, m in enumerate(np.flatnonzero(keep)):
        n = int(counts[m])
        unit = wl.unit_f32(u(w4.ST_LIDAR, (r << w4.ROW_SHIFT) | int(m), np.arange(n * 4, dtype=np.uint64)))
        np.save(os.path.join(out, f"{f:06d}.npy"), unit.reshape(n, 4) * scale - shift)  # x, y, z, intensity
        points += n
    np.save(os.path.join(out, "ts.npy"), seconds(times_us(w4.LIDAR, w4.ST_LIDAR_JITTER, r, scans)[keep]))
    return {"scans": int(keep.sum()), "dropout_nominal": [e0, en], "points": points}


def write_trace(args) -> dict:
    root, r, secs = args
    name = f"trace_{r:02d}"
    d = os.path.join(root, name)
    frames = 10 * secs
    info = {"name": name, "photo": PHOTOS[r % len(PHOTOS)],
            "camera": write_camera(d, r, frames),
            "radar": write_radar(d, r, 20 * secs + w4.RADAR["extra"]),
            "imu": write_imu(d, r, 200 * secs + w4.IMU["extra"]),
            "lidar": write_lidar(d, r, frames + w4.LIDAR["extra"], frames)}
    # read it back through the peers' checked readers, and count its samples
    tr = w4.TraceFiles.open(root, name, r)
    info["samples"] = len(w4.nearest(tr.sync_timestamps())["camera"])
    return info


def sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def versions() -> dict:
    from importlib.metadata import version

    from PIL import features

    return {"python": sys.version.split()[0], "numpy": np.__version__, "pillow": version("pillow"),
            "libjpeg_turbo": features.version("libjpeg_turbo"), "scikit_image": version("scikit-image")}


def prepare(out: str, force: bool):
    """OUT_DIR must be new or empty; --force removes what an earlier run wrote there."""
    if os.path.isdir(out) and os.listdir(out):
        if not force:
            raise SystemExit(f"generate: {out} is not empty (pass --force to replace an earlier dataset)")
        for n in os.listdir(out):
            p = os.path.join(out, n)
            if n.startswith("trace_") and os.path.isdir(p):
                shutil.rmtree(p)
            elif n in ("manifest.json", "SHA256SUMS"):
                os.remove(p)
            else:
                raise SystemExit(f"generate: {p} was not written by generate.py; not removing it")
    os.makedirs(out, exist_ok=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--traces", type=int, default=4)
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--small", action="store_true", help="2 traces of 3 s (tests)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args()
    traces, secs = (2, 3) if a.small else (a.traces, a.seconds)
    if not 1 <= traces <= 4096 or not 3 <= secs <= 5000:
        raise SystemExit("generate: --traces is 1..4096 and --seconds 3..5000")
    t0 = time.perf_counter()
    prepare(a.out_dir, a.force)
    jobs = [(a.out_dir, r, secs) for r in range(traces)]
    with Pool(max(1, min(a.jobs, traces))) as pool:
        infos = pool.map(write_trace, jobs)
    files = w4.dataset_files(a.out_dir)
    sums = "".join(f"{sha256(p)}  {os.path.relpath(p, a.out_dir)}\n" for p in files)
    with open(os.path.join(a.out_dir, "SHA256SUMS"), "w") as f:
        f.write(sums)
    size = sum(os.path.getsize(p) for p in files)
    manifest = {
        "workload": w4.WORKLOAD, "spec_version": w4.SPEC_VERSION, "traces": traces, "seconds": secs,
        "versions": versions(),
        "photos": {p: sha256(os.path.join(photo_dir(), p)) for p in PHOTOS[:traces]},
        "jpeg": JPEG_OPTIONS, "files": len(files), "bytes": size,
        "samples": sum(t["samples"] for t in infos),
        "sha256sums_sha256": hashlib.sha256(sums.encode()).hexdigest(),
        "trace_info": infos,
    }
    with open(os.path.join(a.out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print(json.dumps({"generated": a.out_dir, "traces": traces, "seconds": secs, "files": len(files),
                      "bytes": size, "samples": manifest["samples"],
                      "sha256sums_sha256": manifest["sha256sums_sha256"],
                      "wall_s": round(time.perf_counter() - t0, 2)}), flush=True)


if __name__ == "__main__":
    main()
