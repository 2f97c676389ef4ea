"""W4 "on-disk-multimodal": the executable reference of bench/W4.md.

What both peers share and what the spec defines exactly:

- the constants (rates, streams, tolerance, crop geometry);
- the readers of the on-disk layout, each refusing a bad file with a message
  that names the trace, the sensor and the file;
- the synchronization (abstract-dataloader 0.4.7's `Nearest`, in numpy);
- the per-sample transforms (radar log-magnitude, the verify-mode image
  transform, normalisation) and the points collation (padded + packed);
- `reference_verify`: the verify-mode digests computed by a plain loop with
  no DataLoader, against which both peers check themselves.

Only numpy and Pillow are needed here (no torch). The hash, the epoch
permutation and the digest are those of WORKLOADS.md (`../workloads.py`).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import workloads as wl  # noqa: E402  (bench/peer/workloads.py: mix64, permutation, Digest)

SPEC_VERSION = 1
WORKLOAD = "on-disk-multimodal"

# ---------------------------------------------------------------- time base
# Timestamps are generated in integer microseconds; the files hold
# float64 seconds = f64(t_us) / 1e6 (one correctly rounded division).
EPOCH_US = 1_700_000_000_000_000  # trace 0 starts here (Nov 2023, epoch time)
TRACE_SPACING_US = 3_600_000_000  # trace r starts r hours later

# sensor: (period us, jitter us, start offset us, extra readings beyond the camera's span)
CAMERA = dict(period=100_000, jitter=10_000, offset=200_000)
RADAR = dict(period=50_000, jitter=2_000, offset=0, extra=8)
IMU = dict(period=5_000, jitter=500, offset=0, extra=80)
LIDAR = dict(period=100_000, jitter=5_000, offset=30_000, extra=5)

# ---------------------------------------------------------------- streams (WORKLOADS.md's u(stream, i, j))
ST_CAM_JITTER, ST_CAM_DROPOUT, ST_CAM_PAN, ST_CAM_NOISE = 20, 21, 22, 23
ST_RADAR_JITTER, ST_RADAR = 24, 25
ST_IMU_JITTER, ST_IMU = 26, 27
ST_LIDAR_JITTER, ST_LIDAR_DROPOUT, ST_LIDAR_COUNT, ST_LIDAR = 28, 29, 30, 31
ROW_SHIFT = 20  # payload streams use i = (trace << 20) | reading

# ---------------------------------------------------------------- shapes
CAM_W, CAM_H = 640, 480
RADAR_SHAPE = (64, 256)
IMU_HEADER = ["t", "ax", "ay", "az", "gx", "gy", "gz"]
IMU_WINDOW = 20
LIDAR_MIN, LIDAR_MAX, LIDAR_C = 2000, 8000, 4
SENSORS = ("camera", "radar", "imu", "lidar")

# ---------------------------------------------------------------- pipeline
TOL = 0.05  # seconds, strict: |t_sensor - t_camera| < TOL
BATCH = 32
CROP = 224
# verify mode: center 448x448 crop, then 2x2 box average with rounding
VERIFY_CROP = 448
VERIFY_TOP, VERIFY_LEFT = (CAM_H - VERIFY_CROP) // 2, (CAM_W - VERIFY_CROP) // 2  # 16, 96
MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)

# Output fields with an exact digest; the image is checked with a tolerance.
EXACT_FIELDS = ("idx", "imu", "points", "points_mask", "points_offsets", "points_packed", "radar", "t")


class LayoutError(Exception):
    """A missing folder or a bad file in a W4 dataset, named in the message."""


def where(trace: str, sensor: str | None, path: str) -> str:
    return f"trace `{trace}`" + (f", sensor `{sensor}`" if sensor else "") + f": {path}"


# ---------------------------------------------------------------- readers
def read_ts(path: str, trace: str, sensor: str, expected: int | None = None) -> np.ndarray:
    """A sensor's timestamps: a 1-D float64 .npy of seconds, finite and strictly increasing."""
    if not os.path.isfile(path):
        raise LayoutError(f"{where(trace, sensor, path)}: no timestamps file")
    try:
        ts = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise LayoutError(f"{where(trace, sensor, path)}: not a readable .npy file ({e})") from None
    if ts.dtype != np.float64 or ts.ndim != 1:
        raise LayoutError(f"{where(trace, sensor, path)}: timestamps are a 1-D float64 array, "
                          f"found {ts.dtype} of shape {ts.shape}")
    check_times(ts, path, trace, sensor)
    if expected is not None and len(ts) != expected:
        raise LayoutError(f"{where(trace, sensor, path)}: {len(ts)} timestamps for {expected} readings")
    return ts


def check_times(ts: np.ndarray, path: str, trace: str, sensor: str):
    if len(ts) == 0:
        raise LayoutError(f"{where(trace, sensor, path)}: no timestamps")
    if not np.all(np.isfinite(ts)):
        raise LayoutError(f"{where(trace, sensor, path)}: timestamp {int(np.argmin(np.isfinite(ts)))} is not finite")
    bad = np.flatnonzero(np.diff(ts) <= 0)
    if len(bad):
        k = int(bad[0])
        raise LayoutError(f"{where(trace, sensor, path)}: timestamps not strictly increasing at {k + 1} "
                          f"({float(ts[k])!r} then {float(ts[k + 1])!r})")


def numbered_files(folder: str, ext: str, trace: str, sensor: str) -> list[str]:
    """The files 000000.ext, 000001.ext, ... of a sensor folder (its ts.npy
    aside), all present, none extra."""
    names = sorted(f for f in os.listdir(folder) if f.endswith(ext) and f != "ts.npy")
    for k, name in enumerate(names):
        if name != f"{k:06d}{ext}":
            raise LayoutError(f"{where(trace, sensor, os.path.join(folder, name))}: expected file "
                              f"{k:06d}{ext} here (files are numbered from 000000 without gaps)")
    return [os.path.join(folder, n) for n in names]


def open_radar(path: str, trace: str, n: int) -> np.ndarray:
    """radar/data.npy, memory-mapped: float32 [n, 64, 256]."""
    if not os.path.isfile(path):
        raise LayoutError(f"{where(trace, 'radar', path)}: no data file")
    try:
        a = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as e:
        raise LayoutError(f"{where(trace, 'radar', path)}: not a readable .npy file ({e})") from None
    if a.dtype != np.dtype("<f4") or a.shape != (n, *RADAR_SHAPE):
        raise LayoutError(f"{where(trace, 'radar', path)}: expected float32 [{n}, 64, 256] "
                          f"(one frame per timestamp), found {a.dtype} {list(a.shape)}")
    return a


def read_imu(path: str, trace: str) -> tuple[np.ndarray, np.ndarray]:
    """imu/data.csv: header `t,ax,ay,az,gx,gy,gz`, then one row per reading.
    Returns (t float64 [n] seconds, values float32 [n, 6]); the file's values
    are exactly representable in float32, so the conversion is exact."""
    if not os.path.isfile(path):
        raise LayoutError(f"{where(trace, 'imu', path)}: no data file")
    with open(path) as f:
        lines = f.read().splitlines()
    header = [h.strip() for h in lines[0].split(",")] if lines else []
    if header != IMU_HEADER:
        raise LayoutError(f"{where(trace, 'imu', path)}: header is {','.join(header)!r}, "
                          f"expected {','.join(IMU_HEADER)!r}")
    table = np.empty((len(lines) - 1, len(IMU_HEADER)), dtype=np.float64)
    for n, line in enumerate(lines[1:]):
        fields = line.split(",")
        if len(fields) != len(IMU_HEADER):
            raise LayoutError(f"{where(trace, 'imu', path)}: line {n + 2} has {len(fields)} fields; "
                              f"the header has {len(IMU_HEADER)}")
        for c, field in enumerate(fields):
            try:
                table[n, c] = float(field)
            except ValueError:
                raise LayoutError(f"{where(trace, 'imu', path)}: line {n + 2}, column `{IMU_HEADER[c]}`: "
                                  f"{field.strip()!r} is not a number") from None
    if len(table) < IMU_WINDOW:
        raise LayoutError(f"{where(trace, 'imu', path)}: {len(table)} rows; a 20-row window needs {IMU_WINDOW}")
    check_times(table[:, 0], path, trace, "imu")
    return table[:, 0].copy(), table[:, 1:].astype(np.float32)


def read_lidar(path: str, trace: str) -> np.ndarray:
    """One lidar scan: float32 [n, 4] (x, y, z, intensity)."""
    try:
        a = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise LayoutError(f"{where(trace, 'lidar', path)}: not a readable .npy file ({e})") from None
    if a.dtype != np.dtype("<f4") or a.ndim != 2 or a.shape[1] != LIDAR_C:
        raise LayoutError(f"{where(trace, 'lidar', path)}: expected float32 [n, 4], found {a.dtype} {list(a.shape)}")
    return a


def decode_jpeg(path: str, trace: str):
    """A camera frame decoded by Pillow: an RGB PIL image of 640x480."""
    from PIL import Image, UnidentifiedImageError

    try:
        im = Image.open(path)
        im.load()
    except (OSError, UnidentifiedImageError, SyntaxError) as e:
        raise LayoutError(f"{where(trace, 'camera', path)}: cannot decode JPEG ({e})") from None
    if im.mode != "RGB" or im.size != (CAM_W, CAM_H):
        raise LayoutError(f"{where(trace, 'camera', path)}: expected RGB {CAM_W}x{CAM_H}, found {im.mode} "
                          f"{im.size[0]}x{im.size[1]}")
    return im


@dataclass
class TraceFiles:
    """One trace folder, opened and checked: timestamps loaded, file lists made,
    the radar memory-mapped, the IMU table read (it is small)."""

    name: str
    number: int
    camera_files: list[str]
    camera_ts: np.ndarray
    radar: np.ndarray
    radar_ts: np.ndarray
    imu_ts: np.ndarray
    imu: np.ndarray
    lidar_files: list[str]
    lidar_ts: np.ndarray

    @classmethod
    def open(cls, root: str, name: str, number: int) -> "TraceFiles":
        d = os.path.join(root, name)
        for s in SENSORS:
            if not os.path.isdir(os.path.join(d, s)):
                raise LayoutError(f"{where(name, s, os.path.join(d, s))}: missing sensor folder")
        cam = numbered_files(os.path.join(d, "camera"), ".jpg", name, "camera")
        cam_ts = read_ts(os.path.join(d, "camera", "ts.npy"), name, "camera", len(cam))
        radar_ts = read_ts(os.path.join(d, "radar", "ts.npy"), name, "radar")
        radar = open_radar(os.path.join(d, "radar", "data.npy"), name, len(radar_ts))
        imu_ts, imu = read_imu(os.path.join(d, "imu", "data.csv"), name)
        lid = numbered_files(os.path.join(d, "lidar"), ".npy", name, "lidar")
        lid_ts = read_ts(os.path.join(d, "lidar", "ts.npy"), name, "lidar", len(lid))
        return cls(name, number, cam, cam_ts, radar, radar_ts, imu_ts, imu, lid, lid_ts)

    def sync_timestamps(self) -> dict[str, np.ndarray]:
        """The timestamps the synchronization sees; the IMU is its 20-row window
        (abstract-dataloader's Window(past=19), cropped): the rows 19.. ."""
        return {"camera": self.camera_ts, "radar": self.radar_ts,
                "imu": self.imu_ts[IMU_WINDOW - 1:], "lidar": self.lidar_ts}


def trace_names(root: str) -> list[str]:
    """The trace folders of a dataset: every sub-folder, in name order."""
    if not os.path.isdir(root):
        raise LayoutError(f"{root}: no such dataset folder (make one with generate.py)")
    names = sorted(n for n in os.listdir(root) if os.path.isdir(os.path.join(root, n)))
    if not names:
        raise LayoutError(f"{root}: no trace folders in the dataset")
    return names


def open_dataset(root: str) -> list[TraceFiles]:
    return [TraceFiles.open(root, n, k) for k, n in enumerate(trace_names(root))]


def dataset_files(root: str) -> list[str]:
    """Every file under the trace folders (for page-cache eviction and checks)."""
    out = []
    for n in trace_names(root):
        for dirpath, _, files in os.walk(os.path.join(root, n)):
            out += [os.path.join(dirpath, f) for f in files]
    return sorted(out)


# ---------------------------------------------------------------- synchronization
def nearest(timestamps: dict[str, np.ndarray], reference: str = "camera", tol: float = TOL) -> dict[str, np.ndarray]:
    """abstract-dataloader 0.4.7 `Nearest(reference, tol=tol)` with no margins:
    the reference restricted to [max first, min last] of all sensors (inclusive);
    per sensor the nearest sample by midpoints (t[j] + t[j+1]) / 2 in float64,
    a reference time exactly on a midpoint going to the earlier sample; rows
    kept where every sensor is strictly within `tol`. Returns int64 indices."""
    t_start = max(t[0] for t in timestamps.values())
    t_end = min(t[-1] for t in timestamps.values())
    ref = timestamps[reference]
    ref = ref[np.searchsorted(ref, t_start, "left"):np.searchsorted(ref, t_end, "right")]
    idx = {k: np.searchsorted((t[:-1] + t[1:]) / 2, ref, "left") for k, t in timestamps.items()}
    valid = np.all([np.abs(timestamps[k][i] - ref) < tol for k, i in idx.items()], axis=0)
    return {k: v[valid].astype(np.int64) for k, v in idx.items()}


def sample_table(traces: list[TraceFiles]) -> np.ndarray:
    """All samples of the dataset, in global order (traces in name order, each
    trace's synchronized rows in order): int64 [N, 5] =
    (trace, camera frame, radar frame, last IMU row of the window, lidar scan)."""
    rows = []
    for tr in traces:
        s = nearest(tr.sync_timestamps())
        n = len(s["camera"])
        rows.append(np.stack([np.full(n, tr.number), s["camera"], s["radar"],
                              s["imu"] + (IMU_WINDOW - 1), s["lidar"]], axis=1).astype(np.int64))
    return np.concatenate(rows)


# ---------------------------------------------------------------- transforms
def radar_logmag(frame: np.ndarray) -> np.ndarray:
    """log(1 + |x|): computed in float64, rounded to float32 (exact for the
    generator's integer-valued radar; see W4.md)."""
    return np.log(np.abs(frame).astype(np.float64) + 1.0).astype(np.float32)


def imu_window(values: np.ndarray, last: int) -> np.ndarray:
    """The 20 IMU rows ending at row `last` (inclusive): float32 [20, 6]."""
    return values[last - IMU_WINDOW + 1:last + 1]


def center_u8(img: np.ndarray) -> np.ndarray:
    """Verify-mode image transform on a decoded uint8 [480, 640, 3] frame:
    rows 16..463, columns 96..543 (448x448), then each 2x2 block averaged as
    (a + b + c + d + 2) >> 2; returns uint8 [3, 224, 224] (CHW)."""
    c = img[VERIFY_TOP:VERIFY_TOP + VERIFY_CROP, VERIFY_LEFT:VERIFY_LEFT + VERIFY_CROP].astype(np.uint16)
    s = c.reshape(CROP, 2, CROP, 2, 3).sum(axis=(1, 3), dtype=np.uint16)
    return ((s + 2) >> 2).astype(np.uint8).transpose(2, 0, 1)


def normalise_u8(chw: np.ndarray) -> np.ndarray:
    """uint8 [3, H, W] -> float32: v = f32(px) / 255, then (v - MEAN[c]) / STD[c]."""
    v = chw.astype(np.float32) / np.float32(255.0)
    return (v - MEAN[:, None, None]) / STD[:, None, None]


def pad_pack(clouds: list[np.ndarray]) -> dict[str, np.ndarray]:
    """Points of a batch, both ways: padded to the batch's largest cloud with a
    mask (zeros past each cloud's end), and packed with offsets."""
    counts = np.array([len(c) for c in clouds], dtype=np.int64)
    padded = np.zeros((len(clouds), int(counts.max()), LIDAR_C), dtype=np.float32)
    mask = np.zeros((len(clouds), int(counts.max())), dtype=bool)
    for b, c in enumerate(clouds):
        padded[b, :len(c)] = c
        mask[b, :len(c)] = True
    offsets = np.zeros(len(clouds) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return {"points": padded, "points_mask": mask,
            "points_packed": np.concatenate(clouds), "points_offsets": offsets}


# ---------------------------------------------------------------- verify digests
class VerifyDigest:
    """The verify-mode check of one loader: exact digests (WORKLOADS.md's
    definition, f64 read as u64) of every field but the image; for the image,
    the digest of the normalised float32 batch (exact only between two users
    of the same decoder), the sum of each batch's uint8 pixels before
    normalisation, and the first batch's uint8 pixels kept for an elementwise
    comparison."""

    def __init__(self):
        self.exact = wl.Digest()
        self.image = wl.Digest()
        self.u8_sums: list[int] = []
        self.first_u8: np.ndarray | None = None
        self.samples = 0

    def add(self, batch: dict[str, np.ndarray]):
        self.exact.add({k: batch[k] for k in EXACT_FIELDS})
        self.image.add({"image": batch["image"]})
        u8 = batch["image_u8"]
        self.u8_sums.append(int(u8.sum(dtype=np.uint64)))
        if self.first_u8 is None:
            self.first_u8 = np.ascontiguousarray(u8)
        self.samples += len(u8)

    def result(self) -> dict:
        return {"samples": self.samples, "batches": self.exact.b, "digest": self.exact.hex(),
                "image_digest_pillow": self.image.hex()["image"], "image_u8_batch_sums": self.u8_sums}


def verify_sample(tr: TraceFiles, row: np.ndarray) -> dict[str, np.ndarray]:
    """One verify-mode sample, straight from the files (the reference path)."""
    _, c, r, e, li = (int(x) for x in row)
    u8 = center_u8(np.asarray(decode_jpeg(tr.camera_files[c], tr.name)))
    return {"image_u8": u8, "image": normalise_u8(u8), "radar": radar_logmag(tr.radar[r]),
            "imu": imu_window(tr.imu, e), "lidar": read_lidar(tr.lidar_files[li], tr.name),
            "t": tr.camera_ts[c], "idx": row}


def collate_np(samples: list[dict]) -> dict[str, np.ndarray]:
    """Stack every field but the lidar, which is padded and packed."""
    out = {k: np.stack([s[k] for s in samples]) for k in samples[0] if k != "lidar"}
    out.update(pad_pack([s["lidar"] for s in samples]))
    return out


def reference_verify(root: str) -> VerifyDigest:
    """The verify-mode digests by the plain loop: epoch-0 order, batches of 32."""
    traces = open_dataset(root)
    table = sample_table(traces)
    order = wl.permutation(len(table), 0)
    dg = VerifyDigest()
    for s in range(0, len(order), BATCH):
        rows = table[order[s:s + BATCH]]
        dg.add(collate_np([verify_sample(traces[int(r[0])], r) for r in rows]))
    return dg
