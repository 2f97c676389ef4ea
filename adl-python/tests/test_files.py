"""adl.files: adl's file-backed sensors from Python, over the repository's
real files (JPEG frames written by Pillow, .npy arrays written by NumPy,
CSV tables): the same pixels as Pillow decodes (within zune-jpeg's few
values), the same rows as NumPy reads, arrays that own adl's buffers,
errors that name the file, and a recording on disk through adl.Trace,
adl.Dataset and adl.Loader."""

import os
import shutil

import numpy as np
import pytest
from abstract_dataloader import spec
from beartype.door import is_bearable

import adl
from adl import files, generic

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "adl-files", "tests", "data")
RECORDING = os.path.join(ROOT, "examples", "data", "recording")


def test_frames_decode_as_pillow_decodes_them():
    camera = files.Images(os.path.join(DATA, "camera"))
    assert camera.name == "camera" and len(camera) == 4
    assert [os.path.basename(f) for f in camera.frames] == ["frame_1.jpg", "frame_2.jpg", "frame_9.jpg", "frame_10.jpg"]
    np.testing.assert_array_equal(camera.metadata.timestamps, [0.0, 0.1, 0.2, 0.3])
    pillow = np.load(os.path.join(DATA, "camera_pillow.npy"))
    for i in range(4):
        frame = camera[i]
        assert frame.dtype == np.uint8 and frame.shape == (24, 32, 3)
        assert np.abs(frame.astype(int) - pillow[i]).max() <= 6
    np.testing.assert_array_equal(camera[-1], camera[3])
    with pytest.raises(IndexError, match="out of range for sensor `camera` of 4 samples"):
        camera[4]
    planes = files.Images(os.path.join(DATA, "camera"), layout="chw", downscale=2)
    assert planes[0].shape == (3, 12, 16) and planes.sample_shape == [3, 12, 16]
    assert is_bearable(camera, spec.Sensor)
    streamed = list(camera.stream())
    assert len(streamed) == 4 and np.array_equal(streamed[2], camera[2])
    assert [len(b) for b in camera.stream(3)] == [3]


def test_an_array_owns_adls_buffer():
    frame = files.Images(os.path.join(DATA, "camera"))[0]
    # Handed over, not copied: numpy's base is the Rust buffer's owner.
    assert frame.base is not None and not frame.flags.owndata
    assert frame.flags.writeable and frame.flags.c_contiguous
    frame[0, 0, 0] = 7
    assert frame[0, 0, 0] == 7


def test_npy_rows_are_numpys():
    radar = files.Npy(os.path.join(DATA, "radar.npy"), np.load(os.path.join(DATA, "radar_ts.npy")))
    expected = np.load(os.path.join(DATA, "radar.npy"))
    assert radar.name == "radar" and len(radar) == 5 and radar.sample_shape == [2, 3]
    for i in range(5):
        row = radar[i]
        assert row.dtype == np.float32
        np.testing.assert_array_equal(row, expected[i])
    folder = files.Npy.in_folder(os.path.join(RECORDING, "drive-1", "radar"))
    np.testing.assert_array_equal(folder[3], np.load(os.path.join(RECORDING, "drive-1", "radar", "data.npy"))[3])
    with pytest.raises(OSError, match="radar.npy") as refused:
        files.Npy(os.path.join(DATA, "radar.npy"), np.arange(5.0), dtype="float64")
    assert "f4" in str(refused.value) or "float32" in str(refused.value)
    with pytest.raises(ValueError, match="dtype"):
        files.Npy(os.path.join(DATA, "radar.npy"), np.arange(5.0), dtype="complex64")


def test_table_rows():
    imu = files.Table(os.path.join(RECORDING, "drive-1", "imu.csv"), "t")
    assert imu.name == "imu" and imu.columns == ["ax", "ay", "az"]
    np.testing.assert_allclose(imu[1], [1.0444, -0.3406, 10.4800])
    assert imu.metadata.timestamps[1] == pytest.approx(0.01)
    assert is_bearable(imu, spec.Sensor) and len(list(imu.stream())) == len(imu)


def test_a_corrupt_frame_is_an_oserror_naming_it(tmp_path):
    folder = tmp_path / "camera"
    shutil.copytree(os.path.join(DATA, "camera"), folder)
    shutil.copy(os.path.join(DATA, "corrupt.jpg"), folder / "frame_9.jpg")
    camera = files.Images(str(folder))
    camera[0]
    with pytest.raises(OSError, match=r"frame_9\.jpg.*camera.*sample 2|frame_9\.jpg"):
        camera[2]
    with pytest.raises(OSError, match="nothing-here"):
        files.Images(str(tmp_path / "nothing-here"))


def test_a_recording_on_disk_through_the_loader():
    traces = []
    for drive in ("drive-1", "drive-2"):
        folder = os.path.join(RECORDING, drive)
        sensors = {
            "camera": files.Images(os.path.join(folder, "camera"), layout="chw"),
            "radar": files.Npy.in_folder(os.path.join(folder, "radar")),
            "imu": files.Table(os.path.join(folder, "imu.csv"), "t"),
        }
        traces.append(adl.Trace(sensors, generic.Nearest("camera", tol=0.05), name=drive))
    dataset = adl.Dataset(traces)

    class Stack:
        def sample(self, s):
            return s

        def collate(self, samples):
            return {k: np.stack([s[k] for s in samples]) for k in samples[0]}

        def batch(self, b):
            return b

    loader = adl.Loader(dataset, Stack(), batch_size=4, shuffle=2, workers=2)
    batches = list(loader.epoch(0))
    assert sum(len(b["camera"]) for b in batches) == len(dataset) > 0
    first = batches[0]
    assert first["camera"].dtype == np.uint8 and first["camera"].shape[1] == 3
    assert first["radar"].dtype == np.float32 and first["radar"].shape[1:] == (8, 16)
    assert first["imu"].shape[1:] == (3,)
    # The same samples as read one by one.
    order = loader.epoch(0).indices()
    np.testing.assert_array_equal(first["radar"][1], dataset[order[1]]["radar"])
