"""adl.files.Video over the MP4 files of adl-files/tests/data/video
(written by make_videos.py with PyAV), against PyAV's own decoding of them
(expected.npz): each frame's time and pixels; many frames at once; frames
by time; the errors of a missing or damaged file; a video in an adl.Trace
read by adl.Loader without the GIL."""

from pathlib import Path

import numpy as np
import pytest

import adl
from adl.files import Video

DATA = Path(__file__).resolve().parents[2] / "adl-files" / "tests" / "data" / "video"
EXPECTED = np.load(DATA / "expected.npz")


@pytest.mark.parametrize("name", ["h264", "hevc", "av1", "vp9", "h264_bt709_full"])
def test_every_frame_is_pyavs(name):
    video = Video(str(DATA / f"{name}.mp4"))
    assert video.name == name and len(video) == 16
    np.testing.assert_array_equal(video.metadata.timestamps, EXPECTED[f"{name}.pts_seconds"])
    for i in range(len(video)):
        np.testing.assert_array_equal(video[i], EXPECTED[f"{name}.rgb"][i], err_msg=f"frame {i}")
    order = [15, 3, 3, 8, 0]
    np.testing.assert_array_equal(video.frames(order), EXPECTED[f"{name}.rgb"][order])


def test_layout_size_and_frames_by_time():
    video = Video(str(DATA / "av1.mp4"), name="front", layout="chw", size=(24, 32))
    assert video.name == "front" and video.codec == "AV1"
    assert video.frame_size == (48, 64) and video.sample_shape == [3, 24, 32]
    np.testing.assert_array_equal(video[7], EXPECTED["av1.area_24x32.rgb"][7].transpose(2, 0, 1))
    assert video.frame_at(0.31, 0.02) == 3
    with pytest.raises(ValueError, match="no frame within 0.001 s of 0.35 s"):
        video.frame_at(0.35, 0.001)
    with pytest.raises(IndexError):
        video[16]


def test_a_missing_or_damaged_file_is_an_os_error_naming_it():
    with pytest.raises(OSError, match="missing.mp4 \\(sensor `missing`\\): cannot open"):
        Video(str(DATA / "missing.mp4"))
    with pytest.raises(OSError, match="it is cut short: its moov box"):
        Video(str(DATA / "truncated_index.mp4"))
    video = Video(str(DATA / "truncated_data.mp4"))
    np.testing.assert_array_equal(video[0], EXPECTED["h264.rgb"][0])
    with pytest.raises(OSError, match="past the file's end"):
        video[15]


def test_a_video_in_a_trace_is_read_by_the_loader_without_the_gil():
    video = Video(str(DATA / "h264.mp4"), name="camera")
    trace = adl.Trace({"camera": video})
    pipeline = adl.Pipeline(batch={"camera": adl.transforms.ToFloat()})
    loader = adl.Loader(trace, pipeline, batch_size=4, workers=2)
    assert loader.gil_free
    batches = list(loader.epoch(0))
    assert len(batches) == 4
    frames = np.concatenate([b["camera"] for b in batches])
    np.testing.assert_allclose(frames, EXPECTED["h264.rgb"].astype(np.float32) / 255, rtol=0, atol=1e-6)
