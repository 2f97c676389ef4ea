"""adl.ros: the repository's test bags (tests/data/ros: rosbag2 folders in
SQLite and MCAP storage, a zstd-compressed one, a standalone MCAP file and
ROS 1 bags with lz4, bz2 and no chunk compression) read by adl's Rust
reader give, for every topic and every message, what the ``rosbags``
library reads, as plain data; topics are sensors that go in an adl.Trace
and through adl.Loader; what is not there is an exception naming it."""

import os
import pathlib

import numpy as np
import pytest
from abstract_dataloader import spec
from beartype.door import is_bearable
from rosbags.highlevel import AnyReader
from rosbags.typesys import Stores, get_typestore
from rosbags.typesys.msg import denormalize_msgtype

import adl
from adl import generic, ros

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data", "ros")
BAGS = ["flight_sqlite", "flight_mcap", "flight_zstd", "flight.mcap",
        "flight.bag", "flight_bz2.bag", "flight_plain.bag"]
TIMES = ("builtin_interfaces/msg/Time", "builtin_interfaces/msg/Duration")


def bag_path(name):
    return os.path.join(DATA, name)


def plain(value, typestore, ros1):
    """A rosbags message object as plain data: its fields (not its
    constants) as a dict, lists of messages as lists, NumPy arrays kept; a
    ROS 1 time or duration with ROS 1's field names (rosbags holds them as
    ROS 2's ``builtin_interfaces`` types)."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (list, tuple)):
        return [plain(v, typestore, ros1) for v in value]
    msgtype = getattr(value, "__msgtype__", None)
    if msgtype is None:
        return value
    if ros1 and msgtype in TIMES:
        return {"secs": value.sec, "nsecs": value.nanosec}
    _, fields = typestore.fielddefs[msgtype]
    return {name: plain(getattr(value, name), typestore, ros1) for name, _ in fields}


def assert_same(ours, theirs, where):
    """adl's plain data is rosbags': the same fields in the same order,
    arrays of the same dtype and values, scalars of the same Python type
    and value."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict), where
        assert list(ours) == list(theirs), where
        for key in theirs:
            assert_same(ours[key], theirs[key], f"{where}.{key}")
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), where
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, f"{where}[{i}]")
    elif isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray) and ours.ndim == 1, where
        assert ours.dtype == theirs.dtype, (where, ours.dtype, theirs.dtype)
        assert np.array_equal(ours, theirs), where
    else:
        assert type(ours) is type(theirs), (where, type(ours), type(theirs))
        assert ours == theirs, (where, ours, theirs)


def read_with_rosbags(path):
    """{topic: (message type, [log time ns], [plain message])} as rosbags
    reads the bag, messages by log time."""
    out = {}
    store = get_typestore(Stores.ROS2_HUMBLE)  # for rosbag2 SQLite without definitions
    with AnyReader([pathlib.Path(path)], default_typestore=store) as reader:
        ros1 = not reader.is2
        for connection in reader.connections:
            assert connection.topic not in out, connection.topic
            rows = sorted(
                ((time, reader.deserialize(raw, connection.msgtype))
                 for _, time, raw in reader.messages(connections=[connection])),
                key=lambda row: row[0],
            )
            kind = denormalize_msgtype(connection.msgtype) if ros1 else connection.msgtype
            out[connection.topic] = (
                kind,
                [time for time, _ in rows],
                [plain(message, reader.typestore, ros1) for _, message in rows],
            )
    return out, ros1


@pytest.mark.parametrize("name", BAGS)
def test_every_message_is_what_rosbags_reads(name):
    theirs, ros1 = read_with_rosbags(bag_path(name))
    bag = ros.Bag(bag_path(name))
    assert bag.damage == []
    assert bag.topics == {topic: kind for topic, (kind, _, _) in theirs.items()}
    assert len(bag) == len(theirs) == 14 and list(bag) == sorted(theirs)
    total = 0
    for topic_name, (kind, times, messages) in theirs.items():
        topic = bag[topic_name]
        assert topic.name == topic_name and topic.message_type == kind
        assert kind.startswith(("sensor_msgs/", "geometry_msgs/", "nav_msgs/", "tf2_msgs/",
                                "diagnostic_msgs/", "std_msgs/"))
        assert ("/msg/" in kind) != ros1
        assert len(topic) == len(messages) == bag.message_count(topic_name)
        log_times = topic.log_times_ns
        assert log_times.dtype == np.uint64 and log_times.tolist() == times
        stamps = topic.metadata.timestamps
        assert stamps.dtype == np.float64
        np.testing.assert_array_equal(stamps, np.asarray(times, dtype=np.uint64).astype(np.float64) * 1e-9)
        for i, expected in enumerate(messages):
            assert_same(topic[i], expected, f"{name}:{topic_name}[{i}]")
        assert_same(topic[-1], messages[-1], f"{name}:{topic_name}[-1]")
        total += len(messages)
    assert total == 308


def test_values_have_the_fields_types():
    bag = ros.Bag(bag_path("flight.mcap"))
    image = bag["/camera/image"][0]
    assert image["data"].dtype == np.uint8 and image["data"].shape == (32 * 24 * 3,)
    assert (image["height"], image["width"], image["encoding"]) == (24, 32, "rgb8")
    assert bag["/camera/compressed"][0]["data"].dtype == np.uint8
    assert bag["/camera/depth"][0]["data"].dtype == np.uint8  # uint8[] whatever the encoding
    imu = bag["/imu"][0]
    assert imu["orientation_covariance"].dtype == np.float64 and imu["orientation_covariance"].shape == (9,)
    assert type(imu["angular_velocity"]["z"]) is float
    assert set(imu["header"]["stamp"]) == {"sec", "nanosec"}
    assert bag["/scan"][0]["ranges"].dtype == np.float32
    assert [m["data"] for m in bag["/flag"].stream()] == [True, False, False, True]
    assert [m["data"] for m in bag["/count"].stream()] == [0, 1, -1, 2147483647, -2147483648]
    status = bag["/status"][0]["status"]
    assert isinstance(status, list) and isinstance(status[0], dict) and isinstance(status[0]["values"], list)
    assert any("µ" in v["key"] for s in status for v in s["values"])
    transforms = bag["/tf"][0]["transforms"]
    assert transforms[0]["child_frame_id"] == "base_link"
    ros1 = ros.Bag(bag_path("flight.bag"))["/imu"][0]["header"]
    assert set(ros1) == {"seq", "stamp", "frame_id"} and set(ros1["stamp"]) == {"secs", "nsecs"}


def test_a_bag_is_a_mapping_of_sensors():
    path = pathlib.Path(bag_path("flight_sqlite"))
    bag = ros.Bag(path)  # os.PathLike
    assert bag.path == str(path) and "14 topics" in repr(bag)
    assert "/imu" in bag and "/nope" not in bag
    assert bag["/imu"] is bag["/imu"]
    assert bag.message_count("/imu") == 100 and bag.message_count("/nope") == 0
    imu = bag["/imu"]
    assert isinstance(imu, ros.Topic) and "/imu" in repr(imu) and "100 messages" in repr(imu)
    assert isinstance(imu, spec.Sensor) and is_bearable(imu, spec.Sensor)
    assert isinstance(imu.metadata, spec.Metadata)
    streamed = list(imu.stream())
    assert len(streamed) == len(imu) == 100
    assert_same(streamed[7], imu[7], "stream")
    batches = list(imu.stream(batch=30))
    assert [len(b) for b in batches] == [30, 30, 30]
    assert_same(imu[np.int64(3)], imu[3], "numpy index")


def test_stamped_by_header():
    bag = ros.Bag(bag_path("flight.bag"))
    mono = bag["/camera/mono"]
    stamped = mono.stamped_by_header()
    assert isinstance(stamped, ros.Topic) and len(stamped) == len(mono)
    expected = [m["header"]["stamp"]["secs"] + m["header"]["stamp"]["nsecs"] * 1e-9 for m in mono.stream()]
    np.testing.assert_allclose(stamped.metadata.timestamps, expected, rtol=0, atol=1e-6)
    # The log times stay, and the topic itself is unchanged.
    np.testing.assert_array_equal(stamped.log_times_ns, mono.log_times_ns)
    np.testing.assert_array_equal(mono.metadata.timestamps, mono.log_times_ns.astype(np.float64) * 1e-9)
    with pytest.raises(ValueError, match="/flag"):  # std_msgs/Bool has no header
        bag["/flag"].stamped_by_header()


def test_errors_name_what_and_where(tmp_path):
    with pytest.raises(FileNotFoundError, match="no-such.mcap"):
        ros.Bag(str(tmp_path / "no-such.mcap"))
    with pytest.raises(FileNotFoundError, match="no-such-folder"):
        ros.Bag(tmp_path / "no-such-folder")
    junk = tmp_path / "junk.mcap"
    junk.write_bytes(b"not an mcap file at all" * 10)
    with pytest.raises(OSError, match="junk.mcap"):
        ros.Bag(junk)
    junk_bag = tmp_path / "junk.bag"
    junk_bag.write_bytes(b"not a ROS 1 bag either" * 10)
    with pytest.raises(OSError, match="junk.bag"):
        ros.Bag(junk_bag)
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(OSError, match="notes.txt"):
        ros.Bag(text)
    empty = tmp_path / "empty_folder"
    empty.mkdir()
    with pytest.raises(OSError, match="empty_folder"):
        ros.Bag(empty)
    bag = ros.Bag(bag_path("flight.mcap"))
    with pytest.raises(KeyError, match="/no_such_topic") as missing:
        bag["/no_such_topic"]
    assert "/imu" in str(missing.value) and "/camera/image" in str(missing.value)
    with pytest.raises(IndexError, match="out of range for sensor `/gps`"):
        bag["/gps"][8]
    with pytest.raises(IndexError, match="/gps"):
        bag["/gps"][-9]
    with pytest.raises(ValueError, match="batch"):
        bag["/gps"].stream(batch=0)


def test_topics_in_a_trace_through_the_loader():
    bag = ros.Bag(bag_path("flight.mcap"))
    trace = adl.Trace({"imu": bag["/imu"], "pose": bag["/pose"]},
                      sync=generic.Nearest("imu", tol=0.1), name="flight")
    assert len(trace) > 10
    sample = trace[0]
    assert set(sample) == {"imu", "pose"} and set(sample["pose"]) == {"header", "pose"}
    loader = adl.Loader(adl.Dataset([trace]), batch_size=4, shuffle=1, workers=2, drop_last=True)
    epoch = loader.epoch(0)
    batch = next(iter(epoch))
    assert batch["imu"]["orientation_covariance"].shape == (4, 9)
    assert batch["pose"]["pose"]["position"]["x"].shape == (4,)
    index = epoch.indices()[0]
    np.testing.assert_array_equal(batch["imu"]["linear_acceleration"]["z"][0],
                                  trace[index]["imu"]["linear_acceleration"]["z"])


# Typed views: topic.view(kind) as NumPy arrays and dicts of them.

VIEW_BAGS = ["flight.mcap", "flight.bag", "flight_sqlite"]


def write_image_bag(path, rows):
    """A rosbag2 folder (MCAP storage) of ``sensor_msgs/msg/Image`` topics
    written by rosbags: each row ``(topic, seconds, encoding, [H, W, C]
    pixels)``, the pixels' bytes as they are in memory (little-endian)."""
    from rosbags.rosbag2 import Writer
    from rosbags.rosbag2.enums import StoragePlugin

    store = get_typestore(Stores.ROS2_HUMBLE)
    time, header, image = (store.types[t] for t in (
        "builtin_interfaces/msg/Time", "std_msgs/msg/Header", "sensor_msgs/msg/Image"))
    with Writer(path, version=8, storage_plugin=StoragePlugin.MCAP) as writer:
        connections = {}
        for topic, seconds, encoding, pixels in rows:
            if topic not in connections:
                connections[topic] = writer.add_connection(topic, image.__msgtype__, typestore=store)
            height, width = pixels.shape[:2]
            data = np.ascontiguousarray(pixels).view(np.uint8).reshape(-1)
            message = image(header=header(stamp=time(sec=seconds, nanosec=0), frame_id="camera"),
                            height=height, width=width, encoding=encoding, is_bigendian=0,
                            step=data.size // height, data=data)
            writer.write(connections[topic], seconds * 10**9,
                         store.serialize_cdr(message, image.__msgtype__))


def quaternion(q):
    """A message's quaternion as [x, y, z, w], normalized as adl's views
    normalize it (the bags' were float32, unit to about 1e-7)."""
    parts = np.array([q["x"], q["y"], q["z"], q["w"]])
    assert abs(np.linalg.norm(parts) - 1) < 1e-6
    return parts / np.linalg.norm(parts)


def vector(v):
    return [v["x"], v["y"], v["z"]]


@pytest.mark.parametrize("name", VIEW_BAGS)
def test_image_views_are_the_messages_pixels(name):
    bag = ros.Bag(bag_path(name))
    image, mono, depth = bag["/camera/image"], bag["/camera/mono"], bag["/camera/depth"]
    view = image.view("image")
    assert len(view) == len(image) == 6
    for i, message in enumerate(image.stream()):
        assert message["encoding"] == "rgb8"
        pixels = view[i]
        assert isinstance(pixels, np.ndarray) and pixels.dtype == np.uint8
        np.testing.assert_array_equal(pixels, message["data"].reshape(message["height"], message["width"], 3))
    assert view[-1].shape == (24, 32, 3)
    for i, message in enumerate(mono.stream()):
        pixels = mono.view("image")[i]
        assert pixels.shape == (24, 32, 1)
        np.testing.assert_array_equal(pixels, message["data"].reshape(24, 32, 1))
    for i, message in enumerate(depth.stream()):
        assert message["encoding"] == "mono16"
        pixels = depth.view("image16")[i]
        assert pixels.dtype == np.uint16 and pixels.shape == (24, 32, 1)
        np.testing.assert_array_equal(pixels, np.frombuffer(message["data"], "<u2").reshape(24, 32, 1))
    compressed = bag["/camera/compressed"].view("image")
    assert len(compressed) == len(view)
    for i in range(len(view)):
        decoded = compressed[i]
        assert decoded.dtype == np.uint8 and decoded.shape == view[i].shape
        assert np.abs(decoded.astype(np.int16) - view[i]).mean() < 8, i


@pytest.mark.parametrize("name", VIEW_BAGS)
def test_points_view_is_the_clouds_floats(name):
    lidar = ros.Bag(bag_path(name))["/lidar"]
    assert lidar.point_columns == ["x", "y", "z", "intensity"]
    points = lidar.view("points")
    for i, message in enumerate(lidar.stream()):
        assert message["point_step"] == 16 and [f["name"] for f in message["fields"]] == lidar.point_columns
        cloud = points[i]
        assert cloud.dtype == np.float32 and cloud.shape == (message["width"] * message["height"], 4)
        np.testing.assert_array_equal(cloud, np.frombuffer(message["data"], "<f4").reshape(-1, 4))


@pytest.mark.parametrize("name", VIEW_BAGS)
def test_motion_views_are_the_messages_fields(name):
    bag = ros.Bag(bag_path(name))
    imu = bag["/imu"].view("imu")
    for i, message in enumerate(bag["/imu"].stream()):
        sample = imu[i]
        assert list(sample) == ["orientation", "angular_velocity", "linear_acceleration"]
        assert all(v.dtype == np.float64 for v in sample.values())
        np.testing.assert_allclose(sample["orientation"], quaternion(message["orientation"]), rtol=0, atol=1e-15)
        np.testing.assert_array_equal(sample["angular_velocity"], vector(message["angular_velocity"]))
        np.testing.assert_array_equal(sample["linear_acceleration"], vector(message["linear_acceleration"]))
    for topic in ("/pose", "/odom"):
        pose = bag[topic].view("pose")
        for i, message in enumerate(bag[topic].stream()):
            expected = message["pose"]["pose"] if topic == "/odom" else message["pose"]
            sample = pose[i]
            assert list(sample) == ["position", "orientation"]
            assert sample["position"].dtype == np.float64 and sample["orientation"].shape == (4,)
            np.testing.assert_array_equal(sample["position"], vector(expected["position"]))
            np.testing.assert_allclose(sample["orientation"], quaternion(expected["orientation"]), rtol=0, atol=1e-15)
    fix = bag["/gps"].view("fix")
    for i, message in enumerate(bag["/gps"].stream()):
        sample = fix[i]
        assert sample == {"latitude": message["latitude"], "longitude": message["longitude"],
                          "altitude": message["altitude"], "status": message["status"]["status"]}
        assert type(sample["latitude"]) is float and type(sample["status"]) is int
    scan = bag["/scan"].view("scan")
    for i, message in enumerate(bag["/scan"].stream()):
        sample = scan[i]
        assert list(sample) == ["ranges", "intensities", "angle_min", "angle_increment"]
        assert sample["ranges"].dtype == sample["intensities"].dtype == np.float32
        np.testing.assert_array_equal(sample["ranges"], message["ranges"])
        np.testing.assert_array_equal(sample["intensities"], message["intensities"])
        assert sample["angle_min"] == message["angle_min"]
        assert sample["angle_increment"] == message["angle_increment"]
        assert type(sample["angle_min"]) is float


def test_depth_and_bgr_views(tmp_path):
    rng = np.random.default_rng(7)
    depth = [rng.random((3, 4, 1), dtype=np.float32) * 10 for _ in range(2)]
    bgr = rng.integers(0, 256, (3, 4, 3), dtype=np.uint8)
    bgra = rng.integers(0, 256, (2, 5, 4), dtype=np.uint8)
    wide = rng.integers(0, 2**16, (2, 2, 3), dtype=np.uint16)
    write_image_bag(tmp_path / "made", [
        ("/depth", 1, "32FC1", depth[0]), ("/bgr", 1, "bgr8", bgr), ("/bgra", 1, "bgra8", bgra),
        ("/wide", 1, "16UC3", wide), ("/depth", 2, "32FC1", depth[1]),
    ])
    bag = ros.Bag(tmp_path / "made")
    view = bag["/depth"].view("depth")
    assert len(view) == 2
    for i in range(2):
        assert view[i].dtype == np.float32 and view[i].shape == (3, 4, 1)
        np.testing.assert_array_equal(view[i], depth[i])
    np.testing.assert_array_equal(bag["/bgr"].view("image")[0], bgr[:, :, ::-1])  # RGB
    np.testing.assert_array_equal(bag["/bgra"].view("image")[0], bgra[:, :, [2, 1, 0, 3]])
    np.testing.assert_array_equal(bag["/wide"].view("image16")[0], wide)
    with pytest.raises(OSError, match="/depth") as wrong:
        bag["/depth"].view("image")[0]  # a 32-bit encoding: "depth" reads it
    assert "32FC1" in str(wrong.value)


def test_a_view_is_a_sensor():
    bag = ros.Bag(bag_path("flight.mcap"))
    topic = bag["/imu"]
    view = topic.view("imu")
    assert isinstance(view, ros.View) and view.kind == "imu" and view.name == "/imu"
    assert view.message_type == "sensor_msgs/msg/Imu"
    assert "/imu" in repr(view) and "imu" in repr(view) and "100 messages" in repr(view)
    assert isinstance(view, spec.Sensor) and is_bearable(view, spec.Sensor)
    np.testing.assert_array_equal(view.metadata.timestamps, topic.metadata.timestamps)
    stamped = topic.stamped_by_header().view("imu")
    np.testing.assert_array_equal(stamped.metadata.timestamps, topic.stamped_by_header().metadata.timestamps)
    streamed = list(view.stream())
    assert len(streamed) == len(view) == 100
    np.testing.assert_array_equal(streamed[-1]["angular_velocity"], view[-1]["angular_velocity"])
    np.testing.assert_array_equal(view[np.int64(3)]["orientation"], view[3]["orientation"])
    assert [len(b) for b in view.stream(batch=40)] == [40, 40]
    images = bag["/camera/image"].view("image")
    trace = adl.Trace({"camera": images, "imu": view}, sync=generic.Nearest("camera", tol=0.5), name="flight")
    loader = adl.Loader(adl.Dataset([trace]), batch_size=2, workers=2, drop_last=True)
    batch = next(iter(loader.epoch(0)))
    assert batch["camera"].shape == (2, 24, 32, 3) and batch["camera"].dtype == np.uint8
    assert batch["imu"]["orientation"].shape == (2, 4)


def test_view_errors_name_the_topic_and_its_type():
    bag = ros.Bag(bag_path("flight.mcap"))
    with pytest.raises(ValueError, match="image, image16, depth, points, imu, fix, scan, pose"):
        bag["/imu"].view("picture")
    for topic, kind in [("/imu", "image"), ("/camera/image", "imu"), ("/gps", "points"),
                        ("/count", "pose"), ("/lidar", "scan"), ("/scan", "fix")]:
        with pytest.raises(ValueError, match=topic) as wrong:
            bag[topic].view(kind)
        assert bag.topics[topic] in str(wrong.value), (topic, kind)
    with pytest.raises(ValueError, match="/imu"):
        bag["/imu"].point_columns
    with pytest.raises(OSError, match="/camera/image") as wrong:
        bag["/camera/image"].view("image16")[0]  # rgb8 is 8-bit
    assert "rgb8" in str(wrong.value)
    with pytest.raises(OSError, match="/camera/depth"):
        bag["/camera/depth"].view("image")[0]  # mono16 is 16-bit
    with pytest.raises(OSError, match="/camera/depth"):
        bag["/camera/depth"].view("depth")[0]
    with pytest.raises(IndexError, match="/gps"):
        bag["/gps"].view("fix")[8]
    with pytest.raises(IndexError, match="/gps"):
        bag["/gps"].view("fix")[-9]


@pytest.mark.parametrize("storage", ["MCAP", "SQLITE3"])
def test_a_topic_declared_with_no_messages_is_listed_with_none(tmp_path, storage):
    # As ROS 2's talker records /parameter_events: a connection, no
    # message. rosbags lists it with 0 messages; so does adl.
    from rosbags.rosbag2 import Writer
    from rosbags.rosbag2.enums import StoragePlugin

    path = tmp_path / "bag"
    store = get_typestore(Stores.ROS2_HUMBLE)
    events = "rcl_interfaces/msg/ParameterEvent"
    string = store.types["std_msgs/msg/String"]
    with Writer(path, version=8, storage_plugin=getattr(StoragePlugin, storage)) as writer:
        writer.add_connection("/parameter_events", events, typestore=store)
        chatter = writer.add_connection("/chatter", string.__msgtype__, typestore=store)
        for k in range(3):
            writer.write(chatter, (k + 1) * 10**9,
                         store.serialize_cdr(string(data=f"hello {k}"), string.__msgtype__))
    with AnyReader([path], default_typestore=store) as reader:
        theirs = {c.topic: c.msgcount for c in reader.connections}
    bag = ros.Bag(path)
    assert theirs == {"/parameter_events": 0, "/chatter": 3}
    assert bag.topics == {"/parameter_events": events, "/chatter": "std_msgs/msg/String"}
    assert {topic: bag.message_count(topic) for topic in bag.topics} == theirs
    assert len(bag["/parameter_events"]) == 0
    assert [m["data"] for m in bag["/chatter"]] == ["hello 0", "hello 1", "hello 2"]
