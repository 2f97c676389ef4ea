#!/usr/bin/env python3
"""Write the MP4 test videos of adl-files/tests/data/video/ and what PyAV decodes of them.

    python adl-files/tests/data/video/make_videos.py           # (re)write everything here
    python adl-files/tests/data/video/make_videos.py --out DIR # write into DIR instead

Needs numpy, PyAV (`av`, whose wheels bundle FFmpeg with libx264, libx265,
libsvtav1 and libvpx) and scikit-image (only for its bundled photograph
skimage/data/astronaut.png, read as a file by PyAV: skimage is never
imported).

Every video films the same scene: a 64 x 48 window panning across the
photograph (scaled to 160 x 120), 16 frames at 10 frames/s, in yuv420p
unless said. The files, each for what it tests:

    h264.mp4          H.264 (libx264) with B-frames and a key frame every 6:
                      presentation order differs from decode order (ctts),
                      and an edit list starts the media after its first ticks
    hevc.mp4          HEVC (libx265) with B-frames, a key frame every 8
    av1.mp4           AV1 (libsvtav1) with a key frame every 2, as LeRobot writes
    vp9.mp4           VP9 (libvpx-vp9)
    h264_bt709_full.mp4  H.264 tagged BT.709, full range (yuvj420p): the
                      colour conversion follows the stream's tags
    h264_faststart.mp4   h264.mp4 with its index (moov) before the pictures
    truncated_index.mp4  h264.mp4 cut in its index at the end: no usable moov
    truncated_data.mp4   h264_faststart.mp4 cut in its pictures: the index
                      is whole, the last frames' bytes are missing

expected.npz holds, for each whole video NAME (h264_faststart.mp4 holds
h264.mp4's pictures): NAME.pts_seconds (float64,
each frame's presentation time as PyAV gives it, pts x time_base) and
NAME.rgb (uint8 [frames, 48, 64, 3], each frame as PyAV's
`frame.to_ndarray(format="rgb24")`); and av1.area_24x32.rgb, av1.mp4's
frames scaled to 32 x 24 by libswscale's area filter. PyAV bundles its own FFmpeg, newer than
the system's that adl links: the pixels may differ by the two versions'
rounding, which the tests bound.
"""

from __future__ import annotations

import argparse
import fractions
import importlib.util
import io
import sys
from pathlib import Path

import av
import numpy as np

HERE = Path(__file__).resolve().parent
PHOTO = "astronaut.png"
W, H, FRAMES, FPS = 64, 48, 16, 10


def photo() -> np.ndarray:
    spec = importlib.util.find_spec("skimage")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("make_videos.py: scikit-image is not installed (pip install scikit-image): "
                 f"its bundled photograph skimage/data/{PHOTO} is needed")
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / PHOTO
    with av.open(str(path)) as container:
        frame = next(container.decode(video=0))
        # 512 x 512 -> 160 x 120 (Lanczos, by FFmpeg's scaler).
        return frame.reformat(width=160, height=120, format="rgb24",
                              interpolation="LANCZOS").to_ndarray()


def scene(image: np.ndarray) -> list[np.ndarray]:
    """The window panning right and down, 6 and 4 pixels a frame."""
    return [np.ascontiguousarray(image[4 * i:4 * i + H, 6 * i:6 * i + W]) for i in range(FRAMES)]


def encode(path: Path, frames: list[np.ndarray], codec: str, options: dict[str, str],
           pix_fmt: str = "yuv420p", container_options: dict[str, str] | None = None,
           colour: dict[str, int] | None = None) -> None:
    with av.open(str(path), "w", format="mp4", options=container_options or {}) as out:
        stream = out.add_stream(codec, rate=FPS, options=options)
        stream.width, stream.height, stream.pix_fmt = W, H, pix_fmt
        stream.time_base = fractions.Fraction(1, 12_800)
        if colour:
            for key, value in colour.items():
                setattr(stream.codec_context, key, value)
        for i, rgb in enumerate(frames):
            frame = av.VideoFrame.from_ndarray(rgb, format="rgb24")
            if colour:
                frame = frame.reformat(format=pix_fmt, dst_colorspace=colour["colorspace"],
                                       dst_color_range=colour["color_range"])
                for key, value in colour.items():
                    setattr(frame, key, value)
            frame.pts = i
            frame.time_base = fractions.Fraction(1, FPS)
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)


def decoded(path: Path) -> tuple[np.ndarray, np.ndarray]:
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = list(container.decode(stream))
    frames.sort(key=lambda f: f.pts)
    pts = np.array([float(f.pts * f.time_base) for f in frames], dtype=np.float64)
    rgb = np.stack([f.to_ndarray(format="rgb24") for f in frames])
    return pts, rgb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE)
    out = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    frames = scene(photo())
    encode(out / "h264.mp4", frames, "libx264",
           {"g": "6", "bf": "2", "crf": "20", "preset": "medium"})
    encode(out / "h264_faststart.mp4", frames, "libx264",
           {"g": "6", "bf": "2", "crf": "20", "preset": "medium"},
           container_options={"movflags": "faststart"})
    encode(out / "hevc.mp4", frames, "libx265",
           {"x265-params": "keyint=8:min-keyint=8:bframes=2:log-level=error", "crf": "24"})
    encode(out / "av1.mp4", frames, "libsvtav1", {"g": "2", "crf": "30", "preset": "8"})
    encode(out / "vp9.mp4", frames, "libvpx-vp9", {"g": "8", "crf": "30", "b": "0"})
    bt709 = {"colorspace": 1, "color_range": 2}  # AVCOL_SPC_BT709, AVCOL_RANGE_JPEG
    encode(out / "h264_bt709_full.mp4", frames, "libx264",
           {"g": "8", "crf": "20", "x264-params": "colormatrix=bt709:range=pc"},
           pix_fmt="yuvj420p", colour=bt709)
    whole = (out / "h264.mp4").read_bytes()
    (out / "truncated_index.mp4").write_bytes(whole[:len(whole) - 200])
    fast = (out / "h264_faststart.mp4").read_bytes()
    (out / "truncated_data.mp4").write_bytes(fast[:len(fast) - 1500])
    expected = {}
    for name in ["h264", "hevc", "av1", "vp9", "h264_bt709_full"]:
        pts, rgb = decoded(out / f"{name}.mp4")
        expected[f"{name}.pts_seconds"] = pts
        expected[f"{name}.rgb"] = rgb
    with av.open(str(out / "av1.mp4")) as container:
        small = [f.reformat(width=W // 2, height=H // 2, format="rgb24", interpolation="AREA")
                 for f in container.decode(video=0)]
    small.sort(key=lambda f: f.pts)
    expected["av1.area_24x32.rgb"] = np.stack([f.to_ndarray() for f in small])
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **expected)
    (out / "expected.npz").write_bytes(buffer.getvalue())
    for path in sorted(out.glob("*.mp4")):
        print(f"{path.name}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
