"""Write the roverd fixture trace of adl's tests with roverd's own writer.

Run from the repository root, with roverd installed (`pip install
"<red-rover>/format[video]"`; it is not on PyPI):

    python tests/data/rover/make_fixture.py

It writes `tests/data/rover/trace/`, a trace of five sensors that between
them hold every channel format roverd writes (`raw`, `lzma`, `lzmaf`,
`mjpg`, `jpg`, `npz`, and the `ts` channel), each sensor made by
`roverd.sensors.DynamicSensor(create=True)` and each channel written by
roverd's channel `write`/`consume`. Beside it, `expected.npz` holds what
roverd's own readers give for every frame (`<sensor>/<channel>`: the
frames `DynamicSensor(path)[i][channel]` for every `i`, concatenated), so
that adl's tests compare with roverd's arrays where roverd is not
installed. For the video channel it also stores the frames of roverd's
`stream()` (`camera/video.avi@stream`), which reads the file in order:
roverd's indexed read seeks to `start - 1`, so its frame `i > 0` is the
file's frame `i - 1` (see the tests); and each frame's JPEG decoded by
OpenCV's `imdecode` (`camera/video.avi@libjpeg`): libjpeg-turbo, where
roverd's `VideoCapture` decodes with FFmpeg (whose colour conversion
differs from libjpeg's by up to about 11 values). `expected.json` lists
the arrays, their types and shapes.

The data are deterministic (a fixed seed), the whole fixture well under
1 MB.
"""

import os
import shutil
import struct

import cv2
import numpy as np
from roverd.sensors import DynamicSensor

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)))
TRACE = os.path.join(ROOT, "trace")

rng = np.random.default_rng(20261127)


def timestamps(n: int, rate: float, start: float = 1700000000.0) -> np.ndarray:
    """`n` float64 epoch times at `rate` Hz, with a little jitter."""
    t = start + np.arange(n) / rate
    return (t + rng.uniform(0, 0.1 / rate, n)).astype(np.float64)


def pictures(n: int, height: int, width: int) -> np.ndarray:
    """`n` RGB frames: smooth gradients that move, some noise (what a
    camera's JPEG holds, not white noise)."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    frames = []
    for i in range(n):
        r = 128 + 100 * np.sin((x + 3 * i) / 9.0)
        g = 128 + 100 * np.cos((y - 2 * i) / 7.0)
        b = 255 * (x + y) / (height + width)
        frame = np.stack([r, g, b], axis=-1)
        frame += rng.normal(0, 6, frame.shape)
        frames.append(np.clip(frame, 0, 255).astype(np.uint8))
    return np.stack(frames)


def avi_frames(path: str) -> list[bytes]:
    """The JPEG bytes of each frame of the AVI at `path`, by its `idx1`
    index (offsets from the `movi` list's type, as OpenCV's FFmpeg writer
    puts them)."""
    with open(path, "rb") as f:
        data = f.read()
    movi = data.index(b"movi")
    index = data.index(b"idx1")
    (size,) = struct.unpack("<I", data[index + 4:index + 8])
    frames = []
    for k in range(size // 16):
        _, _, offset, length = struct.unpack(
            "<4sIII", data[index + 8 + 16 * k:index + 24 + 16 * k])
        frames.append(data[movi + offset + 8:movi + offset + 8 + length])
    return frames


def sensor(name: str, ts: np.ndarray) -> DynamicSensor:
    """A new sensor folder `name` with its `ts` channel written."""
    s = DynamicSensor(os.path.join(TRACE, name), create=True)
    s.create("ts", {
        "format": "raw", "type": "f8", "shape": [],
        "desc": "timestamp, seconds"}).write(ts)
    return s


def main() -> None:
    if os.path.exists(TRACE):
        shutil.rmtree(TRACE)
    os.makedirs(TRACE)

    # Radar: raw int16 I/Q, a raw uint8 flag and a raw int32 counter.
    n = 6
    radar = sensor("radar", timestamps(n, 20.0))
    radar.create("iq", {
        "format": "raw", "type": "i2", "shape": [4, 2, 3, 8],
        "desc": "I/Q samples"}).write(
            rng.integers(-2000, 2000, (n, 4, 2, 3, 8), dtype=np.int16))
    radar.create("valid", {
        "format": "raw", "type": "u1", "shape": [],
        "desc": "frame is whole"}).write(
            np.array([1, 1, 0, 1, 1, 1], dtype=np.uint8))
    radar.create("count", {
        "format": "raw", "type": "i4", "shape": [2],
        "desc": "packet counters"}).write(
            rng.integers(-(2**31), 2**31 - 1, (n, 2), dtype=np.int32))

    # Lidar: per-frame lzma (consumed frame by frame, as roverd's
    # collector writes it), uint16 and uint8.
    n = 5
    lidar = sensor("lidar", timestamps(n, 10.0))
    rngs = rng.integers(0, 20000, (n, 8, 16), dtype=np.uint16)
    rngs[:, :2] = 0  # runs of zeros, as a lidar's missing returns
    lidar.create("rng", {
        "format": "lzmaf", "type": "u2", "shape": [8, 16],
        "desc": "range, mm"}).consume(iter(rngs), batch=2)
    lidar.create("rfl", {
        "format": "lzmaf", "type": "u1", "shape": [8, 16],
        "desc": "reflectance"}).write(
            rng.integers(0, 255, (n, 8, 16), dtype=np.uint8))

    # IMU: whole-channel lzma float32 and float64, raw complex64.
    n = 12
    imu = sensor("imu", timestamps(n, 100.0))
    imu.create("acc", {
        "format": "lzma", "type": "f4", "shape": [3],
        "desc": "acceleration"}).write(
            rng.normal(0, 9.8, (n, 3)).astype(np.float32))
    imu.create("rot", {
        "format": "lzma", "type": "f8", "shape": [3, 3],
        "desc": "rotation"}).write(rng.normal(0, 1, (n, 3, 3)))
    imu.create("phase", {
        "format": "raw", "type": "c8", "shape": [2],
        "desc": "complex phasor"}).write(
            (rng.normal(0, 1, (n, 2)) + 1j * rng.normal(0, 1, (n, 2))
             ).astype(np.complex64))

    # Camera: MJPEG video in AVI, written by roverd's VideoChannel
    # (OpenCV's writer).
    n = 7
    camera = sensor("camera", timestamps(n, 30.0))
    camera.create("video.avi", {
        "format": "mjpg", "type": "u1", "shape": [48, 64, 3],
        "desc": "RGB video"}).consume(iter(pictures(n, 48, 64)), fps=30.0)

    # Blobs: a JPEG per frame and an .npz per frame.
    n = 4
    blobs = sensor("blobs", timestamps(n, 5.0))
    blobs.create("frames", {
        "format": "jpg", "type": "u1", "shape": [40, 56, 3],
        "desc": "RGB frames"}).write(pictures(n, 40, 56))
    blobs.create("arrays", {
        "format": "npz", "type": "f4", "shape": [5, 2],
        "desc": "features"}).write(
            rng.normal(0, 1, (n, 5, 2)).astype(np.float32))

    # roverd's reads of every frame of every channel.
    expected = {}
    for name in ["radar", "lidar", "imu", "camera", "blobs"]:
        s = DynamicSensor(os.path.join(TRACE, name))
        for channel in s.channels:
            frames = [s[i][channel] for i in range(len(s))]
            expected[f"{name}/{channel}"] = np.concatenate(frames, axis=0)
        expected[f"{name}@timestamps"] = s.metadata.timestamps
    expected["camera/video.avi@stream"] = np.stack(
        list(DynamicSensor(os.path.join(TRACE, "camera"))
             .channels["video.avi"].stream()))
    expected["camera/video.avi@libjpeg"] = np.stack([
        cv2.cvtColor(cv2.imdecode(np.frombuffer(jpeg, np.uint8),
                                  cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
        for jpeg in avi_frames(os.path.join(TRACE, "camera", "video.avi"))])
    np.savez_compressed(os.path.join(ROOT, "expected.npz"), **expected)

    with open(os.path.join(ROOT, "expected.json"), "w") as f:
        f.write("{\n" + ",\n".join(
            f'  "{k}": ["{v.dtype}", {list(v.shape)}]'
            for k, v in expected.items()) + "\n}\n")


if __name__ == "__main__":
    main()
