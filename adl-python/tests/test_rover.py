"""adl.files.RoverSensor: roverd's on-disk format read by adl's native
reader, over the trace roverd's own writer made
(tests/data/rover/make_fixture.py). Compared with roverd's reads stored
beside it (expected.npz), so that CI without roverd (it is not on PyPI)
still checks the arrays; and, where roverd is importable, live against
roverd's own readers (those tests skip, saying so, only when `import
roverd` fails). Damaged copies are OSErrors naming the file; the sensors
go in adl.Trace, adl.Dataset, the reference's abstract.Trace, and
adl.Loader, whose pipeline runs without the GIL."""

import os
import shutil

import numpy as np
import pytest
from abstract_dataloader import abstract, spec
from beartype.door import is_bearable

import adl
from adl import files, generic
from adl import transforms as T

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "tests", "data", "rover")
TRACE = os.path.join(FIXTURE, "trace")
SENSORS = ["radar", "lidar", "imu", "camera", "blobs"]

# adl's frames against the same JPEG decoded by libjpeg-turbo (OpenCV's
# imdecode, as roverd's jpg channel reads): the Python build decodes with
# zune-jpeg, within a few values (none with adl-files' feature
# libjpeg-turbo: the Rust tests check that). Against roverd's video frames,
# which OpenCV's VideoCapture decodes with FFmpeg (its YUV to RGB is not
# libjpeg's: 11 values at most apart on this video), 12 more.
FROM_LIBJPEG = 8
FROM_FFMPEG = FROM_LIBJPEG + 12


@pytest.fixture(scope="module")
def expected():
    with np.load(os.path.join(FIXTURE, "expected.npz")) as npz:
        return dict(npz)


def roverd_sensors():
    """roverd's DynamicSensor, or a skip saying why there is none."""
    try:
        from roverd.sensors import DynamicSensor
    except ImportError as e:
        pytest.skip(f"roverd is not importable ({e}); it is not on PyPI: the "
                    "arrays are still compared with expected.npz, roverd's "
                    "reads stored by make_fixture.py")
    return DynamicSensor


def largest_difference(a, b):
    assert a.shape == b.shape and a.dtype == b.dtype == np.uint8
    return int(np.abs(a.astype(np.int16) - b.astype(np.int16)).max())


def test_every_array_channel_is_roverds(expected):
    for name in ["radar", "lidar", "imu", "blobs"]:
        sensor = files.RoverSensor(os.path.join(TRACE, name))
        assert sensor.name == name
        np.testing.assert_array_equal(
            sensor.metadata.timestamps, expected[f"{name}@timestamps"])
        for i in range(len(sensor)):
            sample = sensor[i]
            assert list(sample) == sensor.channels
            for channel, frames in sample.items():
                if channel == "frames":
                    continue  # a JPEG channel: below
                want = expected[f"{name}/{channel}"][i:i + 1]
                assert frames.dtype == want.dtype and frames.shape == want.shape
                np.testing.assert_array_equal(frames, want)


def test_video_and_jpeg_frames_are_libjpegs_within_zune_jpegs_few_values(expected):
    camera = files.RoverSensor(os.path.join(TRACE, "camera"))
    assert camera.formats == {"ts": "raw", "video.avi": "mjpg"}
    for i in range(len(camera)):
        frame = camera[i]["video.avi"]
        assert frame.shape == (1, 48, 64, 3)
        assert largest_difference(
            frame, expected["camera/video.avi@libjpeg"][i:i + 1]) <= FROM_LIBJPEG
        assert largest_difference(
            frame, expected["camera/video.avi@stream"][i:i + 1]) <= FROM_FFMPEG
    blobs = files.RoverSensor(os.path.join(TRACE, "blobs"), channels=["frames"])
    for i in range(len(blobs)):
        assert largest_difference(
            blobs[i]["frames"], expected["blobs/frames"][i:i + 1]) <= FROM_LIBJPEG


def test_roverds_indexed_video_read_is_the_previous_frame(expected):
    # roverd's VideoChannel.read(start=i) seeks OpenCV to i - 1: its frame
    # i > 0 is the file's frame i - 1. adl's frame i is the file's i.
    indexed, stream = expected["camera/video.avi"], expected["camera/video.avi@stream"]
    np.testing.assert_array_equal(indexed[1:], stream[:-1])
    camera = files.RoverSensor(os.path.join(TRACE, "camera"))
    assert largest_difference(camera[3]["video.avi"], stream[3:4]) <= FROM_FFMPEG
    assert largest_difference(camera[3]["video.avi"], stream[2:3]) > FROM_FFMPEG


def test_options_channels_windows_and_downscale(expected):
    lidar = files.RoverSensor(
        os.path.join(TRACE, "lidar"), channels=["rng", "ts"], past=1, future=1)
    assert lidar.channels == ["rng", "ts"]
    assert lidar.shapes == {"rng": (8, 16), "ts": ()}
    assert lidar.dtypes == {"rng": "uint16", "ts": "float64"}
    np.testing.assert_array_equal(lidar[2]["rng"], expected["lidar/rng"][1:4])
    np.testing.assert_array_equal(lidar[-2]["ts"], expected["lidar/ts"][2:5])
    with pytest.raises(ValueError, match="window of 1 past and 1 future frames"):
        lidar[0]
    with pytest.raises(IndexError):
        lidar[5]
    camera = files.RoverSensor(os.path.join(TRACE, "camera"), downscale=8)
    assert camera[0]["video.avi"].shape == (1, 6, 8, 3)
    with pytest.raises(ValueError, match="the factors are 1, 2, 4 and 8"):
        files.RoverSensor(os.path.join(TRACE, "camera"), downscale=3)
    with pytest.raises(OSError, match=r"meta\.json \(sensor `lidar`\): has no channel `nir`"):
        files.RoverSensor(os.path.join(TRACE, "lidar"), channels=["nir"])


def test_an_array_owns_adls_buffer_and_is_writable():
    frames = files.RoverSensor(os.path.join(TRACE, "radar"))[0]["iq"]
    assert frames.flags.writeable and frames.flags.c_contiguous
    frames[...] = 0  # the caller's own array
    assert files.RoverSensor(os.path.join(TRACE, "radar"))[0]["iq"].any()


def test_live_against_roverds_own_readers():
    DynamicSensor = roverd_sensors()
    for name in SENSORS:
        path = os.path.join(TRACE, name)
        ours, theirs = files.RoverSensor(path), DynamicSensor(path)
        assert len(ours) == len(theirs)
        np.testing.assert_array_equal(
            ours.metadata.timestamps, theirs.metadata.timestamps)
        for i in range(len(ours)):
            a, b = ours[i], theirs[i]
            assert list(a) == list(b)
            for channel in a:
                assert a[channel].shape == b[channel].shape, channel
                assert a[channel].dtype == b[channel].dtype, channel
                if theirs.config[channel]["format"] == "mjpg":
                    # roverd's frame i is the file's i - 1 (see above).
                    frame = theirs.channels[channel].read(0, -1)[i:i + 1]
                    assert largest_difference(a[channel], frame) <= FROM_FFMPEG
                elif theirs.config[channel]["format"] == "jpg":
                    assert largest_difference(a[channel], b[channel]) <= FROM_LIBJPEG
                else:
                    np.testing.assert_array_equal(a[channel], b[channel])
    # A subset and a window, as roverd's `subset`, `past`, `future`.
    path = os.path.join(TRACE, "radar")
    ours = files.RoverSensor(path, channels=["valid", "iq"], past=2, future=1)
    theirs = DynamicSensor(path, subset=["valid", "iq"], past=2, future=1)
    for i in range(2, len(ours) - 1):
        a, b = ours[i], theirs[i]
        assert list(a) == list(b)
        for channel in a:
            np.testing.assert_array_equal(a[channel], b[channel])


def copy(tmp_path, sensor):
    folder = tmp_path / sensor
    shutil.copytree(os.path.join(TRACE, sensor), folder)
    return folder


def test_damaged_channels_are_oserrors_naming_the_file(tmp_path):
    radar = copy(tmp_path, "radar")
    with open(radar / "iq", "r+b") as f:
        f.truncate(1000)
    with pytest.raises(OSError, match=r"iq \(sensor `radar`\): holds 2 frames .* for 6 timestamps: truncated"):
        files.RoverSensor(str(radar))

    lidar = copy(tmp_path, "lidar")
    offsets = np.fromfile(lidar / "rng_i", dtype="<u8")
    data = bytearray((lidar / "rng").read_bytes())
    data[(int(offsets[1]) + int(offsets[2])) // 2] ^= 0x5A
    (lidar / "rng").write_bytes(bytes(data))
    sensor = files.RoverSensor(str(lidar), channels=["rng"])
    sensor[0]
    with pytest.raises(OSError, match=rf"rng \(sensor `lidar`, sample 1\): frame 1 \(bytes {offsets[1]}\.\.{offsets[2]}\)"):
        sensor[1]

    camera = copy(tmp_path, "camera")
    (camera / "video.avi").write_bytes(b"RIFX" + (camera / "video.avi").read_bytes()[4:])
    with pytest.raises(OSError, match=r"video\.avi \(sensor `camera`\): not an AVI file"):
        files.RoverSensor(str(camera))

    (tmp_path / "empty").mkdir()
    with pytest.raises(OSError, match=r"meta\.json \(sensor `empty`\): cannot read"):
        files.RoverSensor(str(tmp_path / "empty"))


def rover_trace(**sensors):
    """An adl.Trace of roverd sensors, synchronized to the lidar."""
    return adl.Trace(
        {name: files.RoverSensor(os.path.join(TRACE, name), **options)
         for name, options in sensors.items()},
        generic.Nearest("lidar", tol=0.2), name=TRACE)


def test_a_trace_and_dataset_of_rover_sensors():
    trace = rover_trace(lidar={"channels": ["rng"]}, radar={"channels": ["iq"]},
                        camera={"downscale": 2})
    assert is_bearable(trace["lidar"], spec.Sensor)
    dataset = adl.Dataset([trace, trace])
    assert len(dataset) == 2 * len(trace) > 0
    sample = dataset[len(trace) + 1]
    assert set(sample) == {"lidar", "radar", "camera"}
    assert sample["camera"]["video.avi"].shape == (1, 24, 32, 3)
    # The reference's own Trace takes them too.
    reference = abstract.Trace(
        {"lidar": trace["lidar"], "radar": trace["radar"]},
        sync=__import__("abstract_dataloader").generic.Nearest("lidar", tol=0.2))
    np.testing.assert_array_equal(reference[1]["radar"]["iq"], trace[1]["radar"]["iq"])


def test_the_loader_reads_them_without_the_gil(expected):
    trace = rover_trace(lidar={"channels": ["rng", "rfl"]}, radar={"channels": ["iq", "valid"]},
                        camera={"downscale": 4})
    pipeline = adl.Pipeline(batch={"camera/video.avi": T.ToFloat()})
    loader = adl.Loader(trace, pipeline, batch_size=2, shuffle=3, workers=2)
    assert loader.gil_free
    epoch = loader.epoch(0)
    order = epoch.indices()
    seen = 0
    for batch in epoch:
        for row in range(len(batch["lidar"]["rng"])):
            sample = trace[order[seen + row]]
            np.testing.assert_array_equal(batch["lidar"]["rng"][row], sample["lidar"]["rng"])
            np.testing.assert_array_equal(batch["radar"]["iq"][row], sample["radar"]["iq"])
            np.testing.assert_allclose(
                batch["camera"]["video.avi"][row],
                sample["camera"]["video.avi"].astype(np.float32) / np.float32(255.0), rtol=1e-6)
        seen += len(batch["lidar"]["rng"])
    assert seen == len(trace)

    # A complex channel is not an adl.Pipeline's (it says so, naming it);
    # a Python pipeline batches it, the sensor read on the workers.
    imu = adl.Trace({"imu": files.RoverSensor(os.path.join(TRACE, "imu"))}, name="imu")
    loader = adl.Loader(imu, adl.Pipeline(), batch_size=4)
    assert not loader.gil_free
    with pytest.raises(adl.LoaderError, match=r'sample\["imu"\]\["phase"\] is a complex64 array'):
        next(iter(loader.epoch(0)))

    class Stack:
        def sample(self, s):
            return s["imu"]

        def collate(self, samples):
            return {k: np.stack([s[k] for s in samples]) for k in samples[0]}

        def batch(self, b):
            return b

    batches = list(adl.Loader(imu, Stack(), batch_size=4, workers=2).epoch(0))
    np.testing.assert_array_equal(
        np.concatenate([b["phase"] for b in batches])[:, 0], expected["imu/phase"])


def test_the_roverd_style_example_runs(capsys):
    import runpy
    example = runpy.run_path(os.path.join(ROOT, "examples", "python", "roverd_sensor.py"))
    lidar = example["LidarDepth"](os.path.join(TRACE, "lidar"), past=1)
    sample = lidar[3]
    assert sample.rng.shape == (1, 2, 8, 16) and sample.timestamps.shape == (1, 2)
    assert is_bearable(lidar, spec.Sensor)
    example["main"](TRACE)
    assert "gil_free=True" in capsys.readouterr().out
