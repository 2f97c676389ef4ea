#!/usr/bin/env python3
"""Write the LeRobot dataset fixtures of tests/data/lerobot/ and lerobot's own readings of them.

    target/lerobot-venv/bin/python tests/data/lerobot/make_lerobot.py           # (re)write everything here
    target/lerobot-venv/bin/python tests/data/lerobot/make_lerobot.py --check   # regenerate in a
        temporary folder and compare the decoded contents with the committed expected/*
    target/lerobot-venv/bin/python tests/data/lerobot/make_lerobot.py --out DIR # write into DIR instead

Needs two virtual environments (paths relative to the repository root; see
NOTICE.md for the exact commands that create them):

    target/lerobot-venv     lerobot 0.4.4 (codebase v3.0) + pyulog + scikit-image
    target/lerobot03-venv   lerobot 0.3.3 (codebase v2.1) + pyulog + scikit-image

(--venv / --venv03 choose others), and torchcodec's FFmpeg shared libraries
(Debian 12: libavcodec59 libavformat59 libavutil57 libswscale6 libswresample4
libavdevice59 libavfilter8).  The script itself (the orchestrator) runs with the
first venv's python; every dataset is written and read back in a child process
run with the right venv, with PYTHONHASHSEED=0, HF_HUB_OFFLINE=1,
HF_DATASETS_OFFLINE=1 and HF_HOME pointing into a temporary folder (nothing is
downloaded, nothing is pushed, ~/.cache/huggingface is not touched).
scikit-image is only needed for its bundled photographs
skimage/data/chelsea.png and skimage/data/coffee.png, read as files.

Datasets (all: repo_id "adl/px4_flight", fps 10, 3 episodes of 16, 22, 15 frames):

    v30_av1/   lerobot 0.4.4, default codec (libsvtav1): all 3 episodes in one data
               parquet file and one MP4 per camera
    v30_h264/  lerobot 0.4.4, vcodec="h264" (libx264), chunks_size=2, tiny data/video
               file-size limits: one data file per episode over chunk-000 and
               chunk-001; episodes 0+1 concatenated in one MP4 per camera, episode 2
               in the next MP4
    v21/       lerobot 0.3.3 (codebase v2.1), default codec (libsvtav1): one parquet
               and one MP4 per episode and camera

Everything that goes in is deterministic: values from the real PX4 log
../px4/pixhawk4-sample-small.ulg (float32, unchanged), two fixed photographs
cut with integer arithmetic.  What comes out (MP4 bytes) depends on the encoder
builds bundled with PyAV; the decoded contents are what --check compares.

expected/<dataset>.json   everything lerobot reports (keys in order, dtypes,
                          shapes, tasks, len/num_frames/num_episodes/fps, meta,
                          parquet schemas, per-video frame timestamps, backend
                          comparison, episodes=[...] behaviour, file SHA-256s)
expected/<dataset>.npz    every item, no delta_timestamps: one array per key,
                          stacked over items (cameras as uint8 = round(x*255),
                          [N, C, H, W]; the rest in the dtype lerobot returns)
expected/<dataset>.delta.npz  a few items with delta_timestamps, same layout
                          (one array per key stacked over those items; the
                          item indices are in the JSON, "delta"/"items")
NOTICE.md is also written by this script.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
ULOG_PATH = HERE.parent / "px4" / "pixhawk4-sample-small.ulg"
ULOG_SHA256 = "0d94ea67eed1c8f3145d8b2d88e5430ab95c9be33898cbc98749c491f35a1118"
PHOTOS = {
    "chelsea.png": "596aa1e7cb875eb79f437e310381d26b338a81c2da23439704a73c4651e8c4bb",
    "coffee.png": "cc02f8ca188b167c775a7101b5d767d1e71792cf762c33d6fa15a4599b5a8de7",
}
DEFAULT_VENV = REPO / "target" / "lerobot-venv"
DEFAULT_VENV03 = REPO / "target" / "lerobot03-venv"

REPO_ID = "adl/px4_flight"
ROBOT_TYPE = "px4_multicopter"
FPS = 10
# Episode windows: start (µs since boot) and length in frames; frame k of an
# episode samples the log at start + k * 100 ms (latest sample at or before).
EPISODES = [(3_029_500_000, 16), (3_032_000_000, 22), (3_037_000_000, 15)]
# Task strings per episode: a list of (first frame, task); episode 1 has two tasks.
TASKS = [[(0, "hover")], [(0, "climb"), (11, "hover")], [(0, "descend")]]

FRONT = "observation.images.front"  # chelsea.png, 128x96 windows, 4x4 box -> 32x24
WRIST = "observation.images.wrist"  # coffee.png, 80x60 windows, 2x2 box -> 40x30
FRONT_W, FRONT_H, FRONT_K = 32, 24, 4
WRIST_W, WRIST_H, WRIST_K = 40, 30, 2

DATASETS = ["v30_av1", "v30_h264", "v21"]
VENV_OF = {"v30_av1": "venv", "v30_h264": "venv", "v21": "venv03"}

DELTA_TIMESTAMPS = {
    FRONT: [-0.1, 0.0],
    "observation.state": [-0.2, -0.1, 0.0],
    "action": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7],
}
SUBSET_EPISODES = [0, 2]
BACKENDS = ["torchcodec", "pyav"]
OUTPUTS = DATASETS + ["expected", "NOTICE.md"]


# --------------------------------------------------------------------------- helpers


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def photo_path(name: str) -> Path:
    spec = importlib.util.find_spec("skimage")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("make_lerobot.py: scikit-image is not installed (pip install scikit-image): "
                 f"its bundled photograph skimage/data/{name} is needed")
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / name
    digest = sha256(path)
    if digest != PHOTOS[name]:
        sys.exit(f"make_lerobot.py: {path} has SHA-256 {digest}, expected {PHOTOS[name]}: "
                 "another scikit-image version ships another photograph")
    return path


def latest(times: np.ndarray, t: int) -> int:
    """Index of the last sample at or before t (times sorted)."""
    i = int(np.searchsorted(times, t, side="right")) - 1
    if i < 0:
        raise ValueError(f"no sample at or before {t}")
    return i


def box(photo: np.ndarray, top: int, left: int, w: int, h: int, k: int) -> np.ndarray:
    """k x k box average of the (k*h) x (k*w) window at (top, left), integer rounding."""
    win = photo[top:top + k * h, left:left + k * w].astype(np.uint32)
    assert win.shape == (k * h, k * w, 3), (top, left, win.shape)
    s = win.reshape(h, k, w, k, 3).sum(axis=(1, 3))
    return ((s + (k * k) // 2) // (k * k)).astype(np.uint8)


def source_episodes() -> list:
    """[[(frame dict without task, task str)] per episode]; frames in lerobot's
    add_frame layout (numpy, cameras HWC uint8)."""
    from PIL import Image
    from pyulog import ULog

    if sha256(ULOG_PATH) != ULOG_SHA256:
        sys.exit(f"make_lerobot.py: {ULOG_PATH} is not the expected PX4 log")
    topics = ["vehicle_attitude", "vehicle_local_position", "actuator_motors", "battery_status"]
    ulog = ULog(str(ULOG_PATH), topics)
    d = {x.name: x.data for x in ulog.data_list if x.multi_id == 0}
    front = np.asarray(Image.open(photo_path("chelsea.png")).convert("RGB"))  # 300 x 451
    wrist = np.asarray(Image.open(photo_path("coffee.png")).convert("RGB"))  # 400 x 600

    def at(topic: str, fields: list, t: int) -> np.ndarray:
        i = latest(d[topic]["timestamp"], t)
        return np.array([d[topic][f][i] for f in fields], dtype=np.float32)

    episodes, g = [], 0
    for e, (start, n) in enumerate(EPISODES):
        frames = []
        for k in range(n):
            t = start + k * 100_000
            state = np.concatenate([at("vehicle_attitude", [f"q[{j}]" for j in range(4)], t),
                                    at("vehicle_local_position", ["x", "y", "z"], t)])
            frame = {
                "observation.state": state,
                "observation.velocity": at("vehicle_local_position", ["vx", "vy", "vz"], t),
                "observation.battery_voltage": at("battery_status", ["voltage_v"], t),
                "action": at("actuator_motors", [f"control[{j}]" for j in range(4)], t),
                "next.done": np.array([k == n - 1], dtype=bool),
                FRONT: box(front, 40 + 2 * g, 4 * g, FRONT_W, FRONT_H, FRONT_K),
                WRIST: box(wrist, 60 + 3 * g, 80 + 6 * g, WRIST_W, WRIST_H, WRIST_K),
            }
            task = [task for first, task in TASKS[e] if first <= k][-1]
            frames.append((frame, task))
            g += 1
        episodes.append(frames)
    return episodes


def features() -> dict:
    return {
        "observation.state": {"dtype": "float32", "shape": (7,),
                              "names": ["qw", "qx", "qy", "qz", "x", "y", "z"]},
        "observation.velocity": {"dtype": "float32", "shape": (3,), "names": ["vx", "vy", "vz"]},
        "observation.battery_voltage": {"dtype": "float32", "shape": (1,), "names": None},
        "action": {"dtype": "float32", "shape": (4,),
                   "names": ["motor0", "motor1", "motor2", "motor3"]},
        "next.done": {"dtype": "bool", "shape": (1,), "names": None},
        FRONT: {"dtype": "video", "shape": (FRONT_H, FRONT_W, 3),
                "names": ["height", "width", "channels"]},
        WRIST: {"dtype": "video", "shape": (WRIST_H, WRIST_W, 3),
                "names": ["height", "width", "channels"]},
    }


# --------------------------------------------------------------------------- worker: write


def write_dataset(name: str, root: Path) -> None:
    import lerobot
    from lerobot.datasets.lerobot_dataset import LeRobotDataset

    lv = version("lerobot")
    want = "0.3.3" if name == "v21" else "0.4.4"
    if lv != want:
        sys.exit(f"make_lerobot.py: {name} needs lerobot {want}, this python has {lv}")
    del lerobot
    if root.exists():
        shutil.rmtree(root)
    kwargs = {}
    if name == "v30_h264":
        kwargs["vcodec"] = "h264"
    ds = LeRobotDataset.create(repo_id=REPO_ID, fps=FPS, features=features(), root=root,
                               robot_type=ROBOT_TYPE, use_videos=True, **kwargs)
    if name == "v30_h264":
        # 2 files per chunk folder; a 0.001 MB data-file limit gives every episode its
        # own data file (chunk-000/file-000, file-001, chunk-001/file-000); with a
        # 0.008 MB video-file limit episodes 0 and 1 (~3 KB each) share an MP4 per
        # camera and episode 2 starts the next one (chunk-000/file-001).  (The data
        # check sees the size of a parquet file still being written, without footer.)
        ds.meta.update_chunk_settings(chunks_size=2, data_files_size_in_mb=0.001,
                                      video_files_size_in_mb=0.008)
    for frames in source_episodes():
        for frame, task in frames:
            frame = {k: v.copy() for k, v in frame.items()}
            if name == "v21":
                ds.add_frame(frame, task=task)
            else:
                frame["task"] = task
                ds.add_frame(frame)
        ds.save_episode()
    if hasattr(ds, "finalize"):
        ds.finalize()
    del ds
    # lerobot leaves empty images/<key>/ folders behind (git cannot hold them).
    for p in sorted(root.rglob("*"), key=lambda p: -len(p.parts)):
        if p.is_dir() and not any(p.iterdir()):
            p.rmdir()


# --------------------------------------------------------------------------- worker: read


def dumps(obj, ind: str = "") -> str:
    """JSON, one dict entry per line, lists of scalars on one line."""
    if isinstance(obj, dict) and obj:
        inner = ind + " "
        return "{\n" + ",\n".join(f"{inner}{json.dumps(k)}: {dumps(v, inner)}"
                                   for k, v in obj.items()) + "\n" + ind + "}"
    if isinstance(obj, list) and any(isinstance(v, (dict, list)) for v in obj):
        inner = ind + " "
        return "[\n" + ",\n".join(inner + dumps(v, inner) for v in obj) + "\n" + ind + "]"
    return json.dumps(obj)


def tensor_info(v) -> dict:
    import torch

    if isinstance(v, torch.Tensor):
        return {"type": "torch.Tensor", "dtype": str(v.dtype).replace("torch.", ""),
                "shape": list(v.shape)}
    return {"type": type(v).__name__}


def to_store(key: str, v, camera_keys: list):
    """numpy array to store for one value of one item, and how it was converted."""
    import torch

    if key in camera_keys:
        x = v.numpy()
        u = np.round(x * np.float32(255)).astype(np.uint8)
        # the exact floats lerobot's backends produce from uint8 frames:
        #   torchcodec: (u / 255.0).type(float32); pyav: u.type(float32) / 255
        back1 = (torch.from_numpy(u) / 255.0).type(torch.float32).numpy()
        back2 = torch.from_numpy(u).type(torch.float32).numpy() / np.float32(255)
        exact = bool(np.array_equal(back1, x) and np.array_equal(back2, x))
        return u, exact
    return v.numpy(), True


def read_items(ds, indices: list, camera_keys: list) -> tuple[list, dict, list, bool]:
    """keys (item order), {key: stacked array}, tasks, uint8 round trip exact."""
    keys, arrays, tasks, exact = None, {}, [], True
    for i in indices:
        item = ds[i]
        if keys is None:
            keys = list(item)
        elif list(item) != keys:
            raise AssertionError(f"item {i} has keys {list(item)}, item {indices[0]} {keys}")
        tasks.append(item["task"])
        for k in keys:
            if k == "task":
                continue
            a, ok = to_store(k, item[k], camera_keys)
            exact &= ok
            arrays.setdefault(k, []).append(a)
    return keys, {k: np.stack(v) for k, v in arrays.items()}, tasks, exact


PICT = {0: "NONE", 1: "I", 2: "P", 3: "B", 4: "S", 5: "SI", 6: "SP", 7: "BI"}  # AVPictureType


def video_timestamps(path: Path) -> dict:
    """What PyAV (demuxer/decoder) and torchcodec report for one MP4."""
    import av

    out = {}
    with av.open(str(path)) as c:
        s = c.streams.video[0]
        cc = s.codec_context
        out["pyav"] = {
            "codec": s.codec_context.name, "profile": s.profile, "pix_fmt": s.pix_fmt,
            "width": s.width, "height": s.height,
            "time_base": [s.time_base.numerator, s.time_base.denominator],
            "average_rate": str(s.average_rate), "base_rate": str(s.base_rate),
            "guessed_rate": str(s.guessed_rate), "frames": s.frames,
            "start_time": s.start_time, "duration": s.duration,
            "duration_seconds": float(s.duration * s.time_base) if s.duration is not None else None,
            "container_duration_us": c.duration,
            "color_range": int(cc.color_range), "colorspace": int(cc.colorspace),
            "color_primaries": int(cc.color_primaries), "color_trc": int(cc.color_trc),
            "extradata_size": cc.extradata_size,
        }
        packets = [p for p in c.demux(s) if p.size > 0]
        out["pyav"]["packet_pts"] = [p.pts for p in packets]
        out["pyav"]["packet_dts"] = [p.dts for p in packets]
        out["pyav"]["packet_duration"] = [p.duration for p in packets]
        out["pyav"]["packet_key"] = [bool(p.is_keyframe) for p in packets]
        out["pyav"]["packet_size"] = [p.size for p in packets]
    with av.open(str(path)) as c:
        s = c.streams.video[0]
        frames = [(f.pts, float(f.pts * f.time_base), bool(f.key_frame), PICT.get(int(f.pict_type), str(f.pict_type)))
                  for f in c.decode(s)]
        out["pyav"]["frame_pts"] = [f[0] for f in frames]
        out["pyav"]["frame_seconds"] = [f[1] for f in frames]
        out["pyav"]["frame_key"] = [f[2] for f in frames]
        out["pyav"]["frame_pict_type"] = [f[3] for f in frames]
    try:
        from torchcodec.decoders import VideoDecoder

        tc = {}
        for mode in ["approximate", "exact"]:
            dec = VideoDecoder(str(path), seek_mode=mode)
            m = dec.metadata
            tc[mode] = {a: (float(getattr(m, a)) if isinstance(getattr(m, a), float) else getattr(m, a))
                        for a in ["num_frames", "average_fps", "duration_seconds",
                                  "begin_stream_seconds", "end_stream_seconds", "codec"]
                        if hasattr(m, a)}
            if mode == "exact":
                n = m.num_frames
                batch = dec.get_frames_at(indices=list(range(n)))
                tc["pts_seconds"] = [float(x) for x in batch.pts_seconds]
                tc["duration_seconds"] = [float(x) for x in batch.duration_seconds]
        out["torchcodec"] = tc
    except Exception as e:  # noqa: BLE001
        out["torchcodec"] = {"error": f"{type(e).__name__}: {e}"}
    return out


def parquet_info(path: Path) -> dict:
    import pyarrow.parquet as pq

    f = pq.ParquetFile(path)
    md = f.metadata
    rgs = []
    for r in range(md.num_row_groups):
        rg = md.row_group(r)
        rgs.append({"num_rows": rg.num_rows,
                    "compression": sorted({rg.column(c).compression for c in range(rg.num_columns)}),
                    "encodings": sorted({e for c in range(rg.num_columns)
                                         for e in rg.column(c).encodings})})
    kv = md.metadata or {}
    fields = [fl for fl in f.schema_arrow if not fl.name.startswith("stats/")]
    stats = [fl for fl in f.schema_arrow if fl.name.startswith("stats/")]
    return {"schema_arrow": [f"{fl.name}: {fl.type}" for fl in fields],
            "stats_columns": ({"count": len(stats),
                               "types": sorted({str(fl.type) for fl in stats}),
                               "features": sorted({fl.name.split("/")[1] for fl in stats}),
                               "stats": sorted({fl.name.split("/")[-1] for fl in stats}),
                               "examples": {fl.name: str(fl.type) for fl in stats[:5]}}
                              if stats else None),
            "schema_metadata_keys": sorted(k.decode() for k in kv),
            "huggingface_metadata": json.loads(kv[b"huggingface"]) if b"huggingface" in kv else None,
            "num_rows": md.num_rows, "created_by": md.created_by,
            "format_version": md.format_version, "row_groups": rgs}


def read_expected(name: str, root: Path, exp_dir: Path) -> None:
    import torch
    from lerobot.datasets.lerobot_dataset import LeRobotDataset

    info_json = json.loads((root / "meta" / "info.json").read_text())
    camera_keys = [k for k, ft in info_json["features"].items() if ft["dtype"] in ("video", "image")]
    out = {"dataset": name, "repo_id": REPO_ID, "codebase_version": info_json["codebase_version"],
           "versions": {d: version(d) for d in ["lerobot", "torch", "torchvision", "torchcodec",
                                               "av", "numpy", "pyarrow", "datasets", "pandas",
                                               "scikit-image", "pyulog", "pillow"]},
           "python": sys.version.split()[0]}

    # ---- (a) every item, no delta_timestamps, each backend
    per_backend, primary = {}, None
    for backend in BACKENDS:
        try:
            ds = LeRobotDataset(REPO_ID, root=root, video_backend=backend)
            n = len(ds)
            keys, arrays, tasks, exact = read_items(ds, list(range(n)), camera_keys)
            item0 = ds[0]
            per_backend[backend] = {"keys": keys, "arrays": arrays, "tasks": tasks, "exact": exact,
                                    "item0": {k: tensor_info(v) for k, v in item0.items()},
                                    "ds": ds}
            if primary is None:
                primary = backend
        except Exception as e:  # noqa: BLE001
            per_backend[backend] = {"error": f"{type(e).__name__}: {e}",
                                    "traceback": traceback.format_exc().splitlines()[-6:]}
    if primary is None:
        raise RuntimeError(f"{name}: no backend could read the dataset: {per_backend}")
    P = per_backend[primary]
    ds = P["ds"]
    meta = ds.meta
    out["primary_backend"] = primary
    out["backends"] = {}
    for b, r in per_backend.items():
        if "error" in r:
            out["backends"][b] = {"ok": False, "error": r["error"], "traceback": r["traceback"]}
            continue
        diffs = {}
        for k in camera_keys:
            a, c = P["arrays"][k].astype(np.int16), r["arrays"][k].astype(np.int16)
            diffs[k] = {"max_abs_diff_uint8": int(np.abs(a - c).max()),
                        "items_differing": int((np.abs(a - c).reshape(len(a), -1).max(1) > 0).sum())}
        same_rest = all(np.array_equal(P["arrays"][k], r["arrays"][k])
                        for k in P["arrays"] if k not in camera_keys)
        out["backends"][b] = {"ok": True, "camera_vs_primary": diffs,
                              "non_camera_identical_to_primary": same_rest,
                              "keys_identical_to_primary": r["keys"] == P["keys"],
                              "camera_uint8_roundtrip_exact": r["exact"]}
    n = len(ds)
    out["dataset_properties"] = {
        "len": n, "num_frames": ds.num_frames, "num_episodes": ds.num_episodes, "fps": ds.fps,
        "video_backend_default": __import__("lerobot.datasets.video_utils", fromlist=["x"]).get_safe_default_codec(),
        "features": json.loads(json.dumps(ds.features)),
        "meta_total_episodes": meta.total_episodes, "meta_total_frames": meta.total_frames,
        "meta_total_tasks": meta.total_tasks, "video_keys": meta.video_keys,
        "camera_keys": meta.camera_keys,
        "hf_features": {k: repr(v) for k, v in ds.hf_dataset.features.items()},
    }
    if hasattr(meta.tasks, "index"):  # v3: DataFrame indexed by task string
        out["dataset_properties"]["meta_tasks"] = {str(t): int(i) for t, i in
                                                   zip(meta.tasks.index, meta.tasks["task_index"])}
    else:  # v2.1: {task_index: task}
        out["dataset_properties"]["meta_tasks"] = {t: int(i) for i, t in meta.tasks.items()}
    out["items"] = {
        "count": n, "keys": P["keys"], "item0": P["item0"],
        "npz": f"{name}.npz",
        "npz_arrays": {k: {"dtype": str(a.dtype), "shape": list(a.shape),
                           "stored_as": ("uint8 = round(x * 255) of lerobot's float32 [0,1]"
                                         if k in camera_keys else "as returned")}
                       for k, a in P["arrays"].items()},
        "task": P["tasks"],
        "camera_uint8_roundtrip_exact": P["exact"],
    }
    np.savez_compressed(exp_dir / f"{name}.npz", **P["arrays"])

    # ---- (b) delta_timestamps
    L = [ln for _, ln in EPISODES]
    b0, b1 = L[0], L[0] + L[1]
    delta_items = sorted({0, b0 - 1, b0, b0 + L[1] // 2, b1 - 1, b1, n - 1})
    dd = LeRobotDataset(REPO_ID, root=root, video_backend=primary, delta_timestamps=DELTA_TIMESTAMPS)
    dkeys, darrays, dtask_list, dexact = read_items(dd, delta_items, camera_keys)
    dtasks = dict(zip((str(i) for i in delta_items), dtask_list))
    np.savez_compressed(exp_dir / f"{name}.delta.npz", **darrays)
    # the other backend must agree (cameras: report the largest difference)
    other = [b for b in BACKENDS if b != primary and out["backends"].get(b, {}).get("ok")]
    dcross = {}
    for b in other:
        db = LeRobotDataset(REPO_ID, root=root, video_backend=b, delta_timestamps=DELTA_TIMESTAMPS)
        worst = 0
        bkeys, barrays, btasks, _ = read_items(db, delta_items, camera_keys)
        assert bkeys == dkeys and btasks == dtask_list, (name, b)
        for k, ref in darrays.items():
            a = barrays[k]
            if k in camera_keys:
                worst = max(worst, int(np.abs(a.astype(np.int16) - ref.astype(np.int16)).max()))
            elif not np.array_equal(a, ref):
                raise AssertionError(f"{name}: backend {b}: delta {k} differs")
        dcross[b] = {"camera_max_abs_diff_uint8_vs_primary": worst}
    first = dd[delta_items[0]]
    out["delta"] = {
        "delta_timestamps": DELTA_TIMESTAMPS,
        "delta_indices": {k: list(v) for k, v in dd.delta_indices.items()},
        "items": delta_items, "keys": dkeys,
        "item_info": {k: tensor_info(v) for k, v in first.items()},
        "npz": f"{name}.delta.npz",
        "npz_arrays": {k: {"dtype": str(a.dtype), "shape": list(a.shape)} for k, a in darrays.items()},
        "task": dtasks, "camera_uint8_roundtrip_exact": dexact, "other_backends": dcross,
    }

    # ---- (c) episodes=[...] subset: indexing, 'index' values, delta at its boundaries
    sub = {"episodes": SUBSET_EPISODES}
    try:
        ds_s = LeRobotDataset(REPO_ID, root=root, episodes=SUBSET_EPISODES, video_backend=primary)
        sub.update({"len": len(ds_s), "num_frames": ds_s.num_frames, "num_episodes": ds_s.num_episodes})
        rows = []
        for j in range(len(ds_s)):
            it = ds_s[j]
            a = int(it["index"])
            same = all(np.array_equal(to_store(k, it[k], camera_keys)[0], P["arrays"][k][a])
                       for k in P["keys"] if k != "task")
            rows.append({"i": j, "index": a, "episode_index": int(it["episode_index"]),
                         "frame_index": int(it["frame_index"]), "task": it["task"],
                         "equals_full_item_at_index": same})
        sub["items"] = rows
    except Exception as e:  # noqa: BLE001
        sub["error"] = f"{type(e).__name__}: {e}"
    try:
        dss = LeRobotDataset(REPO_ID, root=root, episodes=SUBSET_EPISODES, video_backend=primary,
                             delta_timestamps=DELTA_TIMESTAMPS)
        drows = []
        for j in [0, L[0] - 1, L[0], len(dss) - 1]:
            try:
                it = dss[j]
                drows.append({"i": j, "index": int(it["index"]),
                              "observation.state_is_pad": it["observation.state_is_pad"].tolist(),
                              "action_is_pad": it["action_is_pad"].tolist(),
                              "action": it["action"].numpy().tolist()})
            except Exception as e:  # noqa: BLE001
                drows.append({"i": j, "error": f"{type(e).__name__}: {e}"})
        sub["delta_items"] = drows
    except Exception as e:  # noqa: BLE001
        sub["delta_error"] = f"{type(e).__name__}: {e}"
    out["episodes_subset"] = sub

    # ---- files: parquet schemas, video timestamps, hashes
    out["parquet"] = {str(p.relative_to(root)): parquet_info(p) for p in sorted(root.rglob("*.parquet"))}
    out["videos"] = {str(p.relative_to(root)): video_timestamps(p) for p in sorted(root.rglob("*.mp4"))}
    out["files"] = {str(p.relative_to(root)): {"size": p.stat().st_size, "sha256": sha256(p)}
                    for p in sorted(root.rglob("*")) if p.is_file()}
    if (root / "meta" / "episodes").exists():
        import pyarrow.parquet as pq

        t = pq.read_table(sorted((root / "meta" / "episodes").rglob("*.parquet")))
        cols = [c for c in t.column_names if not c.startswith("stats/")]
        out["meta_episodes"] = {c: t.column(c).to_pylist() for c in cols}
    (exp_dir / f"{name}.json").write_text(dumps(out) + "\n")


def worker(name: str, out: Path) -> int:
    root = out / name
    write_dataset(name, root)
    exp = out / "expected"
    exp.mkdir(parents=True, exist_ok=True)
    read_expected(name, root, exp)
    return 0


# --------------------------------------------------------------------------- orchestrator


def child_env(tmp: Path) -> dict:
    env = dict(os.environ)
    env.update({
        "PYTHONHASHSEED": "0",  # lerobot orders an episode's tasks with list(set(...))
        # libx264 (in PyAV's wheel) reads uninitialised heap memory on these tiny
        # frames: without a fixed fill pattern its output changes from run to run.
        "MALLOC_PERTURB_": "85",
        "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
        "HF_HOME": str(tmp / "hf_home"), "HF_LEROBOT_HOME": str(tmp / "lerobot_home"),
        "HF_DATASETS_DISABLE_PROGRESS_BARS": "1", "TQDM_DISABLE": "1",
        "WANDB_MODE": "disabled", "TOKENIZERS_PARALLELISM": "false",
    })
    return env


def generate(out: Path, venvs: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name in OUTPUTS:
        p = out / name
        if p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()
    (out / "expected").mkdir()
    with tempfile.TemporaryDirectory() as tmp:
        for name in DATASETS:
            py = venvs[VENV_OF[name]] / "bin" / "python"
            if not py.exists():
                sys.exit(f"make_lerobot.py: {py} not found (see NOTICE.md for creating the venvs)")
            cmd = [str(py), str(Path(__file__).resolve()), "--worker", name, "--out", str(out)]
            print("+", " ".join(cmd), flush=True)
            r = subprocess.run(cmd, env=child_env(Path(tmp)), cwd=str(REPO),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if r.returncode != 0:
                print(r.stdout[-6000:], file=sys.stderr)
                sys.exit(f"make_lerobot.py: writing/reading {name} failed (exit {r.returncode})")
    write_notice(out, venvs)


def folder_size(p: Path) -> int:
    return sum(f.stat().st_size for f in p.rglob("*") if f.is_file())


def write_notice(out: Path, venvs: dict) -> None:
    infos = {n: json.loads((out / "expected" / f"{n}.json").read_text()) for n in DATASETS}
    rows = []
    for p in sorted(out.rglob("*")):
        if p.is_file() and p.name != "NOTICE.md" and "__pycache__" not in p.parts:
            rows.append(f"| `{p.relative_to(out)}` | {p.stat().st_size} | `{sha256(p)}` |")
    vers = []
    for n in DATASETS:
        v = infos[n]["versions"]
        vers.append(f"- `{n}`: " + ", ".join(f"{k} {val}" for k, val in v.items())
                    + f"; Python {infos[n]['python']}")
    back = []
    for n in DATASETS:
        i = infos[n]
        parts = []
        for b, r in i["backends"].items():
            if not r["ok"]:
                parts.append(f"{b}: fails ({r['error'][:120]})")
            else:
                d = ", ".join(f"{k.split('.')[-1]} max |Δ| {v['max_abs_diff_uint8']}"
                              for k, v in r["camera_vs_primary"].items())
                parts.append(f"{b}: {d}")
        back.append(f"- `{n}`: expected written with **{i['primary_backend']}**; " + "; ".join(parts))
    text = f"""# LeRobot dataset fixtures

Written by `make_lerobot.py` (this folder), which also wrote this file; do not
edit by hand. Regenerate and check with

    target/lerobot-venv/bin/python tests/data/lerobot/make_lerobot.py
    target/lerobot-venv/bin/python tests/data/lerobot/make_lerobot.py --check

`--check` regenerates everything in a temporary folder with lerobot's own
writer and compares what lerobot's own `LeRobotDataset` reads back
(`expected/*.npz`, and `expected/*.json` minus file hashes, sizes and PyAV
packet sizes) with the committed files. The MP4 bytes depend on the encoders
bundled in the PyAV wheel (SVT-AV1, x264); with other versions the decoded
frames may differ by a few levels and `--check` says so.

## Datasets

All three hold the same 53 frames: repo_id `{REPO_ID}`, robot_type
`{ROBOT_TYPE}`, fps {FPS}, 3 episodes of {', '.join(str(n) for _, n in EPISODES)}
frames; tasks per episode: ep0 "hover"; ep1 "climb" (frames 0-10) then "hover"
(11-21, so the episode has two tasks); ep2 "descend" (task_index: hover 0,
climb 1, descend 2).

| folder | writer | layout |
|---|---|---|
| `v30_av1/` | lerobot 0.4.4, codebase v3.0, default `vcodec="libsvtav1"` | all 3 episodes in `data/chunk-000/file-000.parquet` and one MP4 per camera (`videos/<key>/chunk-000/file-000.mp4`, episodes concatenated, `from_timestamp` 0 / 1.6 / 3.8 s) |
| `v30_h264/` | lerobot 0.4.4, codebase v3.0, `vcodec="h264"` (libx264) | `meta.update_chunk_settings(chunks_size=2, data_files_size_in_mb=0.001, video_files_size_in_mb=0.008)` right after `create`: one data file per episode (`data/chunk-000/file-000`, `chunk-000/file-001`, `chunk-001/file-000`); per camera, episodes 0 and 1 concatenated in `chunk-000/file-000.mp4` (`from_timestamp` 0 / 1.6 s) and episode 2 alone in `chunk-000/file-001.mp4` (`from_timestamp` 0) |
| `v21/` | lerobot 0.3.3, codebase v2.1, default libsvtav1 | `data/chunk-000/episode_00000N.parquet`, `videos/chunk-000/<key>/episode_00000N.mp4`, `meta/{{info.json,episodes.jsonl,episodes_stats.jsonl,tasks.jsonl}}` |

Features (`info.json`): `observation.state` float32[7] (qw qx qy qz x y z),
`observation.velocity` float32[3], `observation.battery_voltage` float32 shape
[1] (a scalar column), `action` float32[4], `next.done` bool shape [1] (true on
each episode's last frame), `{FRONT}` video {FRONT_H}x{FRONT_W}x3 (H, W, C), `{WRIST}` video
{WRIST_H}x{WRIST_W}x3 (odd chroma height 15), plus lerobot's own
timestamp/frame_index/episode_index/index/task_index. Frames are this small to
keep the folder near 1.5 MB: the expected arrays hold every decoded frame.
The empty `images/<key>/` folders lerobot leaves behind are removed.

What the MP4s look like (details per file in `expected/<name>.json`, "videos"):
yuv420p, time base 1/10240, frame k at pts 1024 k, GOP 2 (every other frame a
key frame); AV1 (SVT-AV1, crf 30; preset 12 from lerobot 0.4.4): color_range tv (1),
colorspace/primaries/trc unspecified (2), edit list media_time 0; H.264
(libx264 High, crf 30, g 2, bframes 1): color_range unspecified, `ctts`
present, first dts -1024 and an edit list with media_time 1024 (a reader that
ignores the edit list shifts every frame by +0.1 s); where lerobot concatenated
episodes (`concatenate_video_files`, stream copy through FFmpeg's concat demuxer,
`movflags=faststart`) the H.264 samples carry in-band SPS/PPS before each IDR.

## Expected readings (`expected/`)

Read back with lerobot's own `LeRobotDataset(repo_id, root=<folder>)`, with
each video backend:

{chr(10).join(back)}

- `<name>.npz`: every item without delta_timestamps; one array per item key,
  stacked over the items in index order (cameras uint8 [N, C, H, W] =
  round(x * 255) of lerobot's float32 [C, H, W] in [0, 1]; this is exact:
  u / 255 gives back lerobot's floats bit for bit; the rest as lerobot returns
  them, 0-d tensors stacked to [N]).
- `<name>.delta.npz`: items {infos['v30_av1']['delta']['items']} with
  delta_timestamps `{json.dumps(DELTA_TIMESTAMPS)}`; one array per item key
  stacked over those items, as above (including the `*_is_pad` masks).
- `<name>.json`: item key order, dtypes, shapes, task strings, dataset
  properties, `episodes={SUBSET_EPISODES}` behaviour, parquet schemas and row
  groups, per-MP4 frame timestamps as PyAV (pts x time_base) and torchcodec
  report them, meta/episodes rows (v3), file sizes and SHA-256s.

## Sources

- **PX4 flight log**: `tests/data/px4/pixhawk4-sample-small.ulg` (see
  `tests/data/px4/NOTICE.md`: from crate `ulog-rs` 0.0.4, MIT; originally a
  PX4 sample log; Pixhawk 4 / FMU-v5), SHA-256 `{ULOG_SHA256}`.
  Episode k starts at boot time {', '.join(str(s) for s, _ in EPISODES)} µs;
  frame j samples every topic at start + j x 100 ms (latest sample at or
  before): `observation.state` = `vehicle_attitude` q[0..3] (w, x, y, z) +
  `vehicle_local_position` x, y, z (NED, m); `observation.velocity` =
  `vehicle_local_position` vx, vy, vz; `observation.battery_voltage` =
  `battery_status` voltage_v; `action` = `actuator_motors` control[0..3]
  (normalized motor thrust). float32 log values are stored unchanged.
- **Photographs** (from the scikit-image {version('scikit-image')} wheel, read as files):
  `skimage/data/chelsea.png` ("Chelsea the cat", 451x300), SHA-256
  `{PHOTOS['chelsea.png']}`, "No copyright restrictions. CC0 by the
  photographer (Stefan van der Walt)"; `skimage/data/coffee.png` ("Coffee
  cup", 600x400), SHA-256 `{PHOTOS['coffee.png']}`, "No copyright
  restrictions. CC0 by the photographer (Rachel Michetti)" (scikit-image's
  `skimage.data.chelsea` / `skimage.data.coffee` docstrings). Frame g
  (0..52, counted over the whole dataset): `{FRONT}` = {FRONT_K}x{FRONT_K} box average
  (integer, (sum+{FRONT_K * FRONT_K // 2})//{FRONT_K * FRONT_K}) of the {FRONT_K * FRONT_W}x{FRONT_K * FRONT_H} window of chelsea.png at
  (left, top) = (4g, 40+2g); `{WRIST}` = {WRIST_K}x{WRIST_K} box average ((sum+{WRIST_K * WRIST_K // 2})//{WRIST_K * WRIST_K}) of the
  {WRIST_K * WRIST_W}x{WRIST_K * WRIST_H} window of coffee.png at (80+6g, 60+3g). No resampling library is
  involved.

## Determinism

Inputs are exact (log values, integer image arithmetic). The children run with
`PYTHONHASHSEED=0` (lerobot orders an episode's tasks as `list(set(tasks))`,
which decides task_index order and the `tasks` lists in the metadata) and
`MALLOC_PERTURB_=85`: libx264 in PyAV's wheel reads uninitialised heap memory on
frames this small, and without a fixed fill pattern its output (and the decoded
pixels, by up to ~30 levels) changes from run to run. With both set, every file
is byte-identical from run to run with the versions below.

## Versions used for the committed files

{chr(10).join(vers)}

The v3.0 datasets and their readings come from `target/lerobot-venv`, v2.1
from `target/lerobot03-venv`. torchcodec decodes with the system FFmpeg 5.1
(Debian 12 libavcodec59, libdav1d for AV1); PyAV with the FFmpeg bundled in its
wheel. The venvs (Python 3.11; `requirements-*.txt` here are their `pip freeze`):

    # torchcodec's FFmpeg 5.1 (Debian 12):
    apt-get install -y --no-install-recommends libavcodec59 libavformat59 libavutil57 libswscale6 libswresample4 libavdevice59 libavfilter8
    python3.11 -m venv target/lerobot-venv
    target/lerobot-venv/bin/pip install lerobot==0.4.4 pyulog scikit-image
    python3.11 -m venv target/lerobot03-venv
    target/lerobot03-venv/bin/pip install lerobot==0.3.3 pyulog scikit-image "numpy<2.4"

(or `pip install -r tests/data/lerobot/requirements-lerobot044.txt` /
`requirements-lerobot033.txt` for exactly these versions). `numpy<2.4`: with
numpy 2.4 lerobot 0.3.3's `save_episode` fails on shape-[1] features
("only 0-dimensional arrays can be converted to Python scalars").

## Files

Total {folder_size(out) // 1024} KiB before this NOTICE.md was written.

| file | bytes | SHA-256 |
|---|---|---|
{chr(10).join(rows)}
"""
    (out / "NOTICE.md").write_text(text, encoding="utf-8")


VOLATILE = {"files", "versions", "python"}


def strip_volatile(obj, path=""):
    """Drop what legitimately changes with encoder/library versions."""
    if isinstance(obj, dict):
        return {k: strip_volatile(v, f"{path}/{k}") for k, v in obj.items()
                if not (path == "" and k in VOLATILE)
                and k not in ("size", "packet_size", "created_by", "extradata_size", "fingerprint")}
    if isinstance(obj, list):
        return [strip_volatile(v, path) for v in obj]
    return obj


def first_difference(a, b, path="") -> str:
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return f"{path}/{k}: only in {'committed' if k in a else 'regenerated'}"
            if a[k] != b[k]:
                return first_difference(a[k], b[k], f"{path}/{k}")
        return f"{path}: key order differs"
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: length {len(a)} vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
    return f"{path}: {a!r} vs {b!r}"


def compare_npz(a: Path, b: Path) -> list:
    problems = []
    za, zb = np.load(a), np.load(b)
    if sorted(za.files) != sorted(zb.files):
        return [f"{a.name}: arrays {sorted(za.files)} vs {sorted(zb.files)}"]
    for k in za.files:
        x, y = za[k], zb[k]
        if x.dtype != y.dtype or x.shape != y.shape:
            problems.append(f"{a.name}[{k}]: {x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)}")
        elif not np.array_equal(x, y):
            d = np.abs(x.astype(np.float64) - y.astype(np.float64)).max()
            problems.append(f"{a.name}[{k}]: values differ (max |diff| {d})")
    return problems


def check(venvs: dict) -> int:
    committed = HERE / "expected"
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp), venvs)
        fresh = Path(tmp) / "expected"
        names = sorted(p.name for p in fresh.iterdir())
        have = sorted(p.name for p in committed.iterdir()) if committed.is_dir() else []
        if names != have:
            problems.append(f"expected/ holds {have}, the script writes {names}")
        for name in names:
            if not (committed / name).exists():
                continue
            if name.endswith(".npz"):
                problems += compare_npz(committed / name, fresh / name)
            else:
                ja = strip_volatile(json.loads((committed / name).read_text()))
                jb = strip_volatile(json.loads((fresh / name).read_text()))
                if ja != jb:
                    problems.append(f"expected/{name} differs: first at {first_difference(ja, jb)}")
        for ds in DATASETS:
            a = json.loads((committed / f"{ds}.json").read_text())["files"] if (committed / f"{ds}.json").exists() else {}
            b = json.loads((fresh / f"{ds}.json").read_text())["files"]
            changed = [f for f in b if f in a and a[f]["sha256"] != b[f]["sha256"]]
            if changed:
                print(f"note: {ds}: bytes differ from the committed files (decoded contents "
                      f"compared above): {changed}", file=sys.stderr)
    if problems:
        print("make_lerobot.py --check FAILED:", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    print("make_lerobot.py --check: OK")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temporary folder and compare expected/*")
    ap.add_argument("--out", type=Path, default=HERE, help="output folder (default: this folder)")
    ap.add_argument("--venv", type=Path, default=DEFAULT_VENV, help="lerobot 0.4.4 venv")
    ap.add_argument("--venv03", type=Path, default=DEFAULT_VENV03, help="lerobot 0.3.3 venv")
    ap.add_argument("--worker", choices=DATASETS, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker, args.out.resolve())
    venvs = {"venv": args.venv.resolve(), "venv03": args.venv03.resolve()}
    if args.check:
        return check(venvs)
    generate(args.out.resolve(), venvs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
