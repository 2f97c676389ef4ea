"""adl's Python objects pickle by what they were made from (issue 43):
file sensors, PX4 and ROS topics and views, interpolated sensors, traces,
datasets, synchronization policies, pipelines and transforms. Each
round-trips and reads the same samples after; what pickles is the
locations and options, not caches, open files or decoded frames; and
they reach a worker process started with ``spawn``, as PyTorch's
DataLoader workers and Ray's tasks get them.
"""

import multiprocessing
import pickle
from pathlib import Path

import numpy as np
import pytest

import adl
from adl import files, generic, px4, ros
from adl import transforms as T

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "adl-files" / "tests" / "data"
RECORDING = ROOT / "examples" / "data" / "recording" / "drive-1"
PX4_LOG = sorted((ROOT / "tests" / "data" / "px4").glob("*.ulg"))[0]
BAGS = ROOT / "tests" / "data" / "ros"
ROVER = ROOT / "tests" / "data" / "rover" / "trace"
VIDEO = DATA / "video" / "h264.mp4"


def same(a, b):
    """Two samples (arrays, dicts of them, bytes, numbers) are equal."""
    if isinstance(a, dict):
        assert list(a) == list(b)
        for key in a:
            same(a[key], b[key])
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


def round_trip(sensor, indices=(0, -1)):
    """`sensor` pickled and unpickled reads the same samples."""
    again = pickle.loads(pickle.dumps(sensor))
    assert type(again) is type(sensor)
    assert len(again) == len(sensor)
    for i in indices:
        same(again[i], sensor[i])
    return again


SENSORS = ["images", "encoded", "npy", "npy_folder", "table", "video", "rover",
           "px4", "ros_topic", "ros_view", "ros_stamped"]


def sensors():
    """One of every file sensor of adl's, by name."""
    camera = files.Images(str(RECORDING / "camera"), layout="chw", downscale=2)
    log = px4.Log(str(PX4_LOG))
    made = {
        "images": camera,
        "encoded": camera.encoded(),
        "npy": files.Npy(str(DATA / "radar.npy"), np.load(DATA / "radar_ts.npy"), name="radar"),
        "npy_folder": files.Npy.in_folder(str(RECORDING / "radar")),
        "table": files.Table(str(RECORDING / "imu.csv"), "t"),
        "video": files.Video(str(VIDEO), name="front", size=(24, 32)),
        "rover": files.RoverSensor(str(ROVER / "imu")),
        "px4": log[log.sensors[0]],
        "ros_topic": ros.Bag(str(BAGS / "flight.mcap"))["/camera/image"],
        "ros_view": ros.Bag(str(BAGS / "flight.mcap"))["/camera/image"].view("image"),
        "ros_stamped": ros.Bag(str(BAGS / "flight.bag"))["/imu"].stamped_by_header(),
    }
    assert list(made) == SENSORS
    return made


@pytest.mark.parametrize("name", SENSORS)
def test_each_sensor_round_trips_and_reads_the_same_samples(name):
    sensor = sensors()[name]
    again = round_trip(sensor)
    np.testing.assert_array_equal(again.metadata.timestamps, sensor.metadata.timestamps)
    assert again.name == sensor.name


def test_a_sensor_pickles_by_its_location_not_its_data():
    # A camera of many frames pickles to the folder and options: a few
    # hundred bytes, not its frames.
    camera = files.Images(str(RECORDING / "camera"))
    data = pickle.dumps(camera)
    assert len(data) < 1000, len(data)
    assert str(RECORDING / "camera").encode() in data


def test_a_relative_path_pickles_as_the_file_it_named(tmp_path, monkeypatch):
    # Made from a path relative to the working directory, unpickled after
    # a change of it (a worker started elsewhere): the same file.
    monkeypatch.chdir(RECORDING)
    sensors = [files.Images("camera"), files.Table("imu.csv", "t")]
    first = [sensor[0] for sensor in sensors]
    pickled = [pickle.dumps(sensor) for sensor in sensors]
    monkeypatch.chdir(tmp_path)
    for data, expected in zip(pickled, first):
        same(pickle.loads(data)[0], expected)


def test_a_log_and_a_bag_round_trip():
    log = px4.Log(str(PX4_LOG))
    again = pickle.loads(pickle.dumps(log))
    assert again.sensors == log.sensors and again.path == log.path
    bag = ros.Bag(str(BAGS / "flight.mcap"))
    again = pickle.loads(pickle.dumps(bag))
    assert list(again) == list(bag)


def test_sync_policies_round_trip():
    times = {"a": np.arange(0.0, 1.0, 0.1), "b": np.arange(0.0, 1.0, 0.05)}
    native = adl._native
    for policy in (
        generic.Empty(), generic.Next("a"), generic.Nearest("a", margin=[0.0, 0.1], tol=0.03),
        native.Empty(), native.Next("a", [0.0, 0.1]), native.Nearest("a", [0.0, 0.1], 0.03),
    ):
        again = pickle.loads(pickle.dumps(policy))
        assert repr(again) == repr(policy)
        for key, value in policy(times).items():
            np.testing.assert_array_equal(again(times)[key], value)


def recording():
    camera = files.Images(str(RECORDING / "camera"), layout="chw")
    imu = files.Table(str(RECORDING / "imu.csv"), "t")
    return adl.Trace({"camera": camera, "imu": imu}, generic.Nearest("camera", tol=0.05), name="drive-1")


def test_traces_and_datasets_round_trip_without_synchronizing_again():
    trace = recording()
    again = pickle.loads(pickle.dumps(trace))
    assert again.name == "drive-1" and len(again) == len(trace)
    for key, rows in trace.indices.items():
        np.testing.assert_array_equal(again.indices[key], rows)
    same(again[3], trace[3])
    dataset = adl.Dataset([trace, trace])
    again = pickle.loads(pickle.dumps(dataset))
    assert len(again) == len(dataset)
    same(again[len(trace) + 1], dataset[len(trace) + 1])


def test_interpolated_sensors_round_trip():
    imu = files.Table(str(RECORDING / "imu.csv"), "t")
    times = imu.metadata.timestamps[1:-1:3] + 0.001
    sensor = adl.Interpolated(imu, times, name="imu@camera")
    round_trip(sensor, indices=(0, 5, -1))


def test_pipelines_and_transforms_round_trip_and_run_the_same():
    transforms = [
        T.RandomResizedCrop(8, scale=(0.5, 1.0), layout="chw"),
        T.RandomFlip(0.5, layout="chw"),
        T.ToFloat(255.0),
        T.Normalize([0.5, 0.5, 0.5], [0.25, 0.25, 0.25]),
        T.Affine(2.0, 1.0),
        T.Clamp(-1.0, 1.0),
        T.Decode(),
    ]
    for transform in transforms:
        again = pickle.loads(pickle.dumps(transform))
        assert type(again) is type(transform)
        assert again.name == transform.name and again.stage == transform.stage
    pipeline = adl.Pipeline(
        sample={"camera": [T.RandomResizedCrop(8, layout="chw"), T.RandomFlip(layout="chw")]},
        batch={"camera": [T.ToFloat(), T.Normalize(0.5, 0.25)]},
    )
    again = pickle.loads(pickle.dumps(pipeline))
    dataset = adl.Dataset([recording()])
    ours = [b["camera"] for b in adl.Loader(dataset, pipeline, batch_size=4, shuffle=3).epoch(0)]
    theirs = [b["camera"] for b in adl.Loader(dataset, again, batch_size=4, shuffle=3).epoch(0)]
    assert len(ours) == len(theirs) > 0
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)


def read_in_child(dataset, indices, out):
    out.put([dataset[i] for i in indices])


def test_a_dataset_reaches_a_spawned_process_and_reads_the_same_there():
    dataset = adl.Dataset([recording()])
    indices = [0, 2, len(dataset) - 1]
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=read_in_child, args=(dataset, indices, queue))
    child.start()
    got = queue.get(timeout=120)
    child.join(timeout=60)
    assert child.exitcode == 0
    for i, sample in zip(indices, got):
        same(sample, dataset[i])


def test_pytorchs_dataloader_with_spawned_workers_reads_adls_dataset():
    pytest.importorskip("torch")
    from torch.utils.data import DataLoader

    camera = files.Images(str(RECORDING / "camera"), layout="chw")
    imu = files.Table(str(RECORDING / "imu.csv"), "t")
    dataset = adl.Dataset([
        adl.Trace({"camera": camera, "imu": imu}, generic.Nearest("camera", tol=0.05), name="drive-1"),
    ])
    loader = DataLoader(dataset, batch_size=4, num_workers=2, multiprocessing_context="spawn",
                        collate_fn=adl.default_collate)
    got = list(loader)
    assert sum(len(b["camera"]) for b in got) == len(dataset)
    expected = adl.default_collate([dataset[i] for i in range(4)])
    for key in ("camera", "imu"):
        np.testing.assert_array_equal(np.asarray(got[0][key]), np.asarray(expected[key]))
