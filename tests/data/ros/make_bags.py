#!/usr/bin/env python3
"""Write the ROS bag / MCAP test fixtures of tests/data/ros/ and their expected contents.

    /work/venv/bin/python tests/data/ros/make_bags.py           # (re)write everything here
    /work/venv/bin/python tests/data/ros/make_bags.py --check   # regenerate in a temporary
        folder and compare the decoded contents with the committed expected/*.json
    /work/venv/bin/python tests/data/ros/make_bags.py --out DIR # write into DIR instead

Needs numpy, pyulog, rosbags (0.11.x), mcap, mcap-ros2-support, Pillow and
scikit-image (only for its bundled photograph skimage/data/chelsea.png, read
as a file: skimage is never imported).

Everything is deterministic: the messages come from a fixed 4 s stretch of the
real PX4 log ../px4/pixhawk4-sample-small.ulg, a fixed photograph, and a
seeded numpy Generator (integers only; every float written is either a value
from the log or a dyadic rational, so no libm function is involved).

Every bag holds the same messages; for each one the script reads it back with
rosbags' own readers (plus mcap_ros2's decoder for flight.mcap, as a cross-check),
and writes expected/<bag name>.json:

    {"topics": {topic: {"type": str, "count": int, "log_time_ns": [int],
                        "messages": [plain message]}}}

plain message: dict field -> value in definition order; numeric arrays and
uint8[] as lists of numbers; nested messages as dicts; message arrays as lists
of dicts; ROS 2 builtin_interfaces/Time as {"sec","nanosec"}, ROS 1 time as
{"secs","nsecs"} (the ROS 1 names of the two fields of the primitive `time`).
No NaN/Infinity anywhere.  NOTICE.md is also written by this script.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import importlib.util
import io
import json
import math
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ULOG_PATH = HERE.parent / "px4" / "pixhawk4-sample-small.ulg"
PHOTO_NAME = "chelsea.png"
PHOTO_SHA256 = "596aa1e7cb875eb79f437e310381d26b338a81c2da23439704a73c4651e8c4bb"

EPOCH_NS = 1_700_000_000 * 1_000_000_000  # added to PX4's microseconds-since-boot (x 1000)
WINDOW_US = (3_032_000_000, 3_036_000_000)  # 4 s of flight: descent and sideways motion
W0_NS = EPOCH_NS + WINDOW_US[0] * 1000
MAX_IMU = 100
SEED = 20240611

CAM_W, CAM_H = 32, 24  # 64x48 would not fit the 3 MB budget (see NOTICE.md)
JPEG_QUALITY = 90

ROS1_CHUNK_THRESHOLD = 16 * 1024  # bytes of uncompressed chunk data before a new chunk
MCAP_CHUNK_SIZE = 16 * 1024

ROS2_BAGS = ["flight_sqlite", "flight_mcap", "flight_zstd", "flight.mcap"]
ROS1_BAGS = ["flight.bag", "flight_bz2.bag", "flight_plain.bag"]
OUTPUTS = ROS2_BAGS + ROS1_BAGS + ["expected", "NOTICE.md"]

MS = 1_000_000  # ns


# --------------------------------------------------------------------------- helpers


def stamp(ns: int) -> dict:
    return {"sec": ns // 1_000_000_000, "nanosec": ns % 1_000_000_000}


def header(ns: int, frame: str, seq: int) -> dict:
    # "seq" exists only in ROS 1's std_msgs/Header; the ROS 2 builder drops it.
    return {"seq": seq, "stamp": stamp(ns), "frame_id": frame}


def vec3(x, y, z) -> dict:
    return {"x": float(x), "y": float(y), "z": float(z)}


def quat_px4(q) -> dict:
    """PX4 stores q as w, x, y, z; ROS wants x, y, z, w."""
    return {"x": float(q[1]), "y": float(q[2]), "z": float(q[3]), "w": float(q[0])}


def diag(values, n: int) -> list:
    out = [0.0] * (n * n)
    for i, v in enumerate(values):
        out[i * n + i] = float(v)
    return out


def latest(times: np.ndarray, t: int) -> int:
    """Index of the last sample at or before t (times sorted)."""
    i = int(np.searchsorted(times, t, side="right")) - 1
    if i < 0:
        raise ValueError(f"no sample at or before {t}")
    return i


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def photo_path() -> Path:
    spec = importlib.util.find_spec("skimage")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("make_bags.py: scikit-image is not installed (pip install scikit-image): "
                 "its bundled photograph skimage/data/chelsea.png is needed")
    return Path(list(spec.submodule_search_locations)[0]) / "data" / PHOTO_NAME


def version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


# --------------------------------------------------------------------------- messages
# Each topic: (name, ROS 2 type name, [(log_time_ns, plain dict)]).  The same
# plain dicts are turned into rosbags message objects of either typestore, or
# handed (bytes for uint8[]) to mcap_ros2's writer.


def px4_topics() -> list:
    from pyulog import ULog

    ulog = ULog(str(ULOG_PATH), ["sensor_combined", "vehicle_attitude", "vehicle_local_position",
                                 "vehicle_gps_position"])
    d = {x.name: x.data for x in ulog.data_list if x.multi_id == 0}
    hw = ulog.msg_info_dict.get("ver_hw", "PX4")
    t0, t1 = WINDOW_US

    def ns(t_us) -> int:
        return EPOCH_NS + int(t_us) * 1000

    sc, att, lp, gps = (d["sensor_combined"], d["vehicle_attitude"], d["vehicle_local_position"],
                        d["vehicle_gps_position"])
    att_t, lp_t, sc_t, gps_t = att["timestamp"], lp["timestamp"], sc["timestamp"], gps["timestamp"]

    def q_at(t):
        i = latest(att_t, t)
        return [att[f"q[{k}]"][i] for k in range(4)]

    def in_window(times):
        return [i for i in range(len(times)) if t0 <= int(times[i]) < t1]

    imu = []
    for seq, i in enumerate(in_window(sc_t)[:MAX_IMU]):
        t = int(sc_t[i])
        imu.append((ns(t), {
            "header": header(ns(t), "imu_link", seq),
            "orientation": quat_px4(q_at(t)),
            "orientation_covariance": [0.0] * 9,
            "angular_velocity": vec3(*(sc[f"gyro_rad[{k}]"][i] for k in range(3))),
            "angular_velocity_covariance": [0.0] * 9,
            "linear_acceleration": vec3(*(sc[f"accelerometer_m_s2[{k}]"][i] for k in range(3))),
            "linear_acceleration_covariance": [0.0] * 9,
        }))

    fixes = []
    for seq, i in enumerate(in_window(gps_t)):
        t = int(gps_t[i])
        eph, epv = float(gps["eph"][i]), float(gps["epv"][i])
        fixes.append((ns(t), {
            "header": header(ns(t), "gps", seq),
            "status": {"status": 0 if int(gps["fix_type"][i]) >= 3 else -1, "service": 1},
            "latitude": int(gps["lat"][i]) / 1e7,
            "longitude": int(gps["lon"][i]) / 1e7,
            "altitude": int(gps["alt_ellipsoid"][i]) / 1e3,
            "position_covariance": diag([eph * eph, eph * eph, epv * epv], 3),
            "position_covariance_type": 2,  # COVARIANCE_TYPE_DIAGONAL_KNOWN
        }))

    poses, odoms = [], []
    for seq, i in enumerate(in_window(lp_t)):
        t = int(lp_t[i])
        pose = {"position": {"x": float(lp["x"][i]), "y": float(lp["y"][i]), "z": float(lp["z"][i])},
                "orientation": quat_px4(q_at(t))}
        poses.append((ns(t), {"header": header(ns(t), "map", seq), "pose": pose}))
        j = latest(sc_t, t)
        eph, epv = float(lp["eph"][i]), float(lp["epv"][i])
        evh, evv = float(lp["evh"][i]), float(lp["evv"][i])
        odoms.append((ns(t), {
            "header": header(ns(t), "map", seq),
            "child_frame_id": "base_link",
            "pose": {"pose": pose, "covariance": diag([eph * eph, eph * eph, epv * epv], 6)},
            "twist": {"twist": {"linear": vec3(lp["vx"][i], lp["vy"][i], lp["vz"][i]),
                                "angular": vec3(*(sc[f"gyro_rad[{k}]"][j] for k in range(3)))},
                      "covariance": diag([evh * evh, evh * evh, evv * evv], 6)},
        }))

    tfs = []
    for seq, i in enumerate(in_window(att_t)):
        t = int(att_t[i])
        k = latest(lp_t, t)
        tfs.append((ns(t), {"transforms": [{
            "header": header(ns(t), "map", seq),
            "child_frame_id": "base_link",
            "transform": {"translation": vec3(lp["x"][k], lp["y"][k], lp["z"][k]),
                          "rotation": quat_px4([att[f"q[{m}]"][i] for m in range(4)])},
        }]}))

    status = []
    for seq in range(3):
        t_ns = W0_NS + (1000 + 1000 * seq) * MS
        t = (t_ns - EPOCH_NS) // 1000
        g, k = latest(gps_t, t), latest(lp_t, t)
        vz = float(lp["vz"][k])
        status.append((t_ns, {"header": header(t_ns, "", seq), "status": [
            {"level": 0, "name": "px4: gps", "message": f"fix type {int(gps['fix_type'][g])}",
             "hardware_id": hw, "values": [
                 {"key": "satellites_used", "value": str(int(gps["satellites_used"][g]))},
                 {"key": "eph", "value": f"{float(gps['eph'][g]):.3f}"},
                 {"key": "timestamp_µs", "value": str(int(gps_t[g]))}]},
            {"level": 1 if abs(vz) > 0.3 else 0, "name": "px4: estimator",
             "message": "vertical speed beyond ±0.3 m/s" if abs(vz) > 0.3 else "",
             "hardware_id": hw, "values": [
                 {"key": "z", "value": f"{float(lp['z'][k]):.2f}"},
                 {"key": "vz", "value": f"{vz:.2f}"},
                 {"key": "note", "value": ""}]},
        ]}))

    return [
        ("/imu", "sensor_msgs/msg/Imu", imu),
        ("/gps", "sensor_msgs/msg/NavSatFix", fixes),
        ("/pose", "geometry_msgs/msg/PoseStamped", poses),
        ("/odom", "nav_msgs/msg/Odometry", odoms),
        ("/tf", "tf2_msgs/msg/TFMessage", tfs),
        ("/status", "diagnostic_msgs/msg/DiagnosticArray", status),
    ]


def camera_frames() -> list:
    """6 RGB frames, 64x48: 192x144 windows panning across the photo, 3x3 box-averaged
    with integer arithmetic (no resampling library involved)."""
    from PIL import Image

    path = photo_path()
    digest = sha256(path)
    if digest != PHOTO_SHA256:
        sys.exit(f"make_bags.py: {path} has SHA-256 {digest}, expected {PHOTO_SHA256}: "
                 "another scikit-image version ships another photograph")
    photo = np.asarray(Image.open(path).convert("RGB"), dtype=np.uint16)  # 300 x 451
    frames = []
    for k in range(6):
        top, left = 60 + 20 * k, 40 + 60 * k
        win = photo[top:top + 3 * CAM_H, left:left + 3 * CAM_W]
        assert win.shape == (3 * CAM_H, 3 * CAM_W, 3)
        box = win.reshape(CAM_H, 3, CAM_W, 3, 3).sum(axis=(1, 3))
        frames.append(((box + 4) // 9).astype(np.uint8))
    return frames


def camera_topics() -> list:
    from PIL import Image

    frames = camera_frames()
    image, compressed, mono, depth = [], [], [], []
    for k, rgb in enumerate(frames):
        t = W0_NS + (100 + 200 * k) * MS  # 5 Hz
        image.append((t, {"header": header(t, "camera", k), "height": CAM_H, "width": CAM_W,
                          "encoding": "rgb8", "is_bigendian": 0, "step": 3 * CAM_W,
                          "data": rgb.tobytes()}))
        buf = io.BytesIO()
        Image.fromarray(rgb, "RGB").save(buf, "JPEG", quality=JPEG_QUALITY)
        compressed.append((t, {"header": header(t, "camera", k), "format": "jpeg",
                               "data": buf.getvalue()}))
    for k in range(3):
        t = W0_NS + (110 + 200 * k) * MS
        rgb = frames[k].astype(np.uint32)
        luma = ((299 * rgb[..., 0] + 587 * rgb[..., 1] + 114 * rgb[..., 2] + 500) // 1000)
        mono.append((t, {"header": header(t, "camera", k), "height": CAM_H, "width": CAM_W,
                         "encoding": "mono8", "is_bigendian": 0, "step": CAM_W,
                         "data": luma.astype(np.uint8).tobytes()}))
        t = W0_NS + (120 + 200 * k) * MS
        y, x = np.mgrid[0:CAM_H, 0:CAM_W]
        mm = (500 + 194 * x + 422 * y + 4096 * k).astype("<u2")  # synthetic gradient, millimetres
        depth.append((t, {"header": header(t, "camera_depth", k), "height": CAM_H,
                          "width": CAM_W, "encoding": "mono16", "is_bigendian": 0,
                          "step": 2 * CAM_W, "data": mm.tobytes()}))
    return [
        ("/camera/image", "sensor_msgs/msg/Image", image),
        ("/camera/compressed", "sensor_msgs/msg/CompressedImage", compressed),
        ("/camera/mono", "sensor_msgs/msg/Image", mono),
        ("/camera/depth", "sensor_msgs/msg/Image", depth),
    ]


def synthetic_topics() -> list:
    rng = np.random.default_rng(SEED)
    fields = [{"name": n, "offset": 4 * i, "datatype": 7, "count": 1}  # 7 = FLOAT32
              for i, n in enumerate(["x", "y", "z", "intensity"])]
    lidar, scan = [], []
    for k in range(5):
        t = W0_NS + (350 + 750 * k) * MS
        n = int(rng.integers(50, 151))
        ground = n * 3 // 5
        pts = np.zeros((n, 4), dtype="<f4")
        # Every coordinate a multiple of 1/128 m: exact in float32, no rounding anywhere.
        pts[:, 0] = rng.integers(-2560, 2561, n) / 128
        pts[:, 1] = rng.integers(-2560, 2561, n) / 128
        pts[:ground, 2] = (-192 + rng.integers(-3, 4, ground)) / 128  # ground near -1.5 m
        pts[ground:, 0] = np.where(rng.integers(0, 2, n - ground) == 0, -10.0, 10.0)  # 2 walls
        pts[ground:, 2] = rng.integers(-192, 385, n - ground) / 128
        pts[:, 3] = rng.integers(0, 256, n)
        lidar.append((t, {"header": header(t, "lidar", k), "height": 1, "width": n,
                          "fields": fields, "is_bigendian": False, "point_step": 16,
                          "row_step": 16 * n, "data": pts.tobytes(), "is_dense": True}))
        t = W0_NS + (400 + 750 * k) * MS
        scan.append((t, {"header": header(t, "laser", k),
                         "angle_min": -0.78125, "angle_max": -0.78125 + 89 * 0.017578125,
                         "angle_increment": 0.017578125, "time_increment": 2.0 ** -13,
                         "scan_time": 0.125, "range_min": 0.125, "range_max": 32.0,
                         "ranges": [float(v) / 128 for v in rng.integers(16, 4000, 90)],
                         "intensities": [float(v) / 8 for v in rng.integers(0, 8000, 90)]}))
    flag = [(W0_NS + (500 + 1000 * k) * MS, {"data": v})
            for k, v in enumerate([True, False, False, True])]
    count = [(W0_NS + (250 + 800 * k) * MS, {"data": v})
             for k, v in enumerate([0, 1, -1, 2147483647, -2147483648])]
    return [
        ("/lidar", "sensor_msgs/msg/PointCloud2", lidar),
        ("/scan", "sensor_msgs/msg/LaserScan", scan),
        ("/flag", "std_msgs/msg/Bool", flag),
        ("/count", "std_msgs/msg/Int32", count),
    ]


def all_topics() -> list:
    topics = px4_topics() + camera_topics() + synthetic_topics()
    for name, _, msgs in topics:
        times = [t for t, _ in msgs]
        assert msgs and all(a < b for a, b in zip(times, times[1:])), name
    return topics


def write_order(topics: list) -> list:
    """All messages in log-time order (ties: topic order above), as a recorder writes them."""
    items = [(t, ti, mi) for ti, (_, _, msgs) in enumerate(topics) for mi, (t, _) in enumerate(msgs)]
    return sorted(items)


# --------------------------------------------------------------------------- typestores


def typestores():
    from rosbags.typesys import Stores, get_types_from_msg, get_typestore

    ts1 = get_typestore(Stores.ROS1_NOETIC)
    # rosbags' noetic store lacks tf2_msgs; its ROS 1 definition (md5 94810edda583a504dfda3829e70d7eec):
    ts1.register(get_types_from_msg("geometry_msgs/TransformStamped[] transforms\n",
                                    "tf2_msgs/msg/TFMessage"))
    assert ts1.generate_msgdef("tf2_msgs/msg/TFMessage")[1] == "94810edda583a504dfda3829e70d7eec"
    ts2 = get_typestore(Stores.ROS2_HUMBLE)
    return ts1, ts2


def _dtype(base: str, ros1: bool):
    return {"bool": np.bool_, "byte": np.int8 if ros1 else np.uint8, "char": np.uint8,
            "int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16,
            "int32": np.int32, "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64,
            "float32": np.float32, "float64": np.float64}[base]


def build(ts, typename: str, value: dict, ros1: bool):
    """Plain dict -> rosbags message object of typestore ts (strict: every field given)."""
    from rosbags.typesys.base import Nodetype

    _, fields = ts.fielddefs[typename]
    names = [f for f, _ in fields]
    extra = set(value) - set(names) - ({"seq"} if typename == "std_msgs/msg/Header" else set())
    missing = set(names) - set(value)
    if extra or missing:
        raise ValueError(f"{typename}: extra fields {extra}, missing fields {missing}")

    def conv(node, v):
        kind, desc = node
        if kind == Nodetype.BASE:
            return v
        if kind == Nodetype.NAME:
            return build(ts, desc, v, ros1)
        sub, _ = desc  # ARRAY or SEQUENCE
        if sub[0] == Nodetype.BASE and sub[1][0] != "string":
            if isinstance(v, bytes):
                return np.frombuffer(v, dtype=np.uint8).copy()
            return np.asarray(v, dtype=_dtype(sub[1][0], ros1))
        return [conv(sub, x) for x in v]

    return ts.types[typename](**{f: conv(node, value[f]) for f, node in fields})


# --------------------------------------------------------------------------- plain data


def plain(obj, ts, ros1: bool):
    """rosbags message object of typestore ts -> JSON-ready plain data (see module docstring)."""
    if isinstance(obj, np.ndarray):
        obj = obj.tolist()
    if isinstance(obj, (list, tuple)):
        return [plain(x, ts, ros1) for x in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float):
        if not math.isfinite(obj):
            raise ValueError(f"non-finite float {obj}")
        return obj
    if isinstance(obj, (bool, int, str)):
        return obj
    msgtype = getattr(obj, "__msgtype__", None)
    if msgtype is None:
        raise TypeError(f"cannot convert {type(obj)}")
    if msgtype in ("builtin_interfaces/msg/Time", "builtin_interfaces/msg/Duration"):
        if ros1:
            return {"secs": obj.sec, "nsecs": obj.nanosec}
        return {"sec": obj.sec, "nanosec": obj.nanosec}
    return {f: plain(getattr(obj, f), ts, ros1) for f, _ in ts.fielddefs[msgtype][1]}


def source_plain(v):
    """The plain data a ROS 2 reader should give back for a source dict."""
    if isinstance(v, bytes):
        return list(v)
    if isinstance(v, dict):
        return {k: source_plain(x) for k, x in v.items() if k != "seq"}
    if isinstance(v, list):
        return [source_plain(x) for x in v]
    return v


def ros1_to_ros2_plain(v):
    if isinstance(v, dict):
        if set(v) == {"secs", "nsecs"}:
            return {"sec": v["secs"], "nanosec": v["nsecs"]}
        return {k: ros1_to_ros2_plain(x) for k, x in v.items() if k != "seq"}
    if isinstance(v, list):
        return [ros1_to_ros2_plain(x) for x in v]
    return v


def for_mcap_ros2(v):
    """Source dict -> what mcap_ros2's dynamic writer accepts (lists, bytes, dicts)."""
    if isinstance(v, dict):
        return {k: for_mcap_ros2(x) for k, x in v.items() if k != "seq"}
    if isinstance(v, list):
        return [for_mcap_ros2(x) for x in v]
    return v


def mcap_ros2_plain(obj):
    """mcap_ros2 decoded object -> plain data (for the cross-check only)."""
    if isinstance(obj, (bytes, bytearray)):
        return list(obj)
    if isinstance(obj, (list, tuple)):
        return [mcap_ros2_plain(x) for x in obj]
    if isinstance(obj, (bool, int, float, str)):
        return obj
    if hasattr(obj, "__slots__"):
        return {f: mcap_ros2_plain(getattr(obj, f)) for f in obj.__slots__}
    if hasattr(obj, "tolist"):
        return obj.tolist()
    raise TypeError(type(obj))


# --------------------------------------------------------------------------- writers


def write_rosbag2(path: Path, topics: list, ts2, storage: str, zstd: bool, version: int):
    from rosbags.rosbag2 import Writer
    from rosbags.rosbag2.enums import CompressionFormat, CompressionMode, StoragePlugin

    plugin = {"sqlite3": StoragePlugin.SQLITE3, "mcap": StoragePlugin.MCAP}[storage]
    writer = Writer(path, version=version, storage_plugin=plugin)
    if zstd:
        writer.set_compression(CompressionMode.FILE, CompressionFormat.ZSTD)
    with writer:
        conns = [writer.add_connection(name, typ, typestore=ts2) for name, typ, _ in topics]
        for t, ti, mi in write_order(topics):
            _, typ, msgs = topics[ti]
            data = ts2.serialize_cdr(build(ts2, typ, msgs[mi][1], ros1=False), typ)
            writer.write(conns[ti], t, data)


def write_rosbag1(path: Path, topics: list, ts1, compression: str | None):
    from rosbags.rosbag1 import Writer

    writer = Writer(path)
    writer.chunk_threshold = ROS1_CHUNK_THRESHOLD
    if compression:
        writer.set_compression(getattr(Writer.CompressionFormat, compression.upper()))
    with writer:
        conns = [writer.add_connection(name, typ, typestore=ts1, callerid="/make_bags")
                 for name, typ, _ in topics]
        for t, ti, mi in write_order(topics):
            _, typ, msgs = topics[ti]
            data = ts1.serialize_ros1(build(ts1, typ, msgs[mi][1], ros1=True), typ)
            writer.write(conns[ti], t, data)


def write_mcap(path: Path, topics: list, ts2):
    from mcap.writer import CompressionType
    from mcap_ros2.writer import Writer

    with path.open("wb") as f:
        writer = Writer(f, chunk_size=MCAP_CHUNK_SIZE, compression=CompressionType.ZSTD)
        schemas = {}
        for _, typ, _ in topics:
            if typ not in schemas:
                schemas[typ] = writer.register_msgdef(typ, ts2.generate_msgdef(typ, ros_version=2)[0])
        for t, ti, mi in write_order(topics):
            name, typ, msgs = topics[ti]
            writer.write_message(name, schemas[typ], for_mcap_ros2(msgs[mi][1]),
                                 log_time=t, publish_time=t, sequence=mi)
        writer.finish()


# --------------------------------------------------------------------------- readers


def read_expected(path: Path, ts1, ts2) -> tuple[dict, dict]:
    """Read a bag back with rosbags; returns (expected json object, info for NOTICE)."""
    from rosbags.typesys.msg import denormalize_msgtype

    info = {}
    if path.suffix == ".bag":
        from rosbags.rosbag1 import Reader

        ros1 = True
        reader = Reader(path)
    else:
        from rosbags.rosbag2 import Reader

        ros1 = False
        reader = Reader(path)
    out = {}
    with reader:
        if ros1:
            info["chunks"] = len(reader.chunk_infos)
            from rosbags.rosbag1.reader import decompressors

            names = {id(f): name for name, f in decompressors.items()}
            info["compression"] = sorted({names[id(c.decompressor)] for c in reader.chunks.values()})
        for conn in sorted(reader.connections, key=lambda c: c.topic):
            if conn.topic in out:
                raise ValueError(f"{path}: several connections on {conn.topic}")
            rows = []
            for _, t, raw in reader.messages(connections=[conn]):
                msg = (ts1.deserialize_ros1(raw, conn.msgtype) if ros1
                       else ts2.deserialize_cdr(raw, conn.msgtype))
                rows.append((t, plain(msg, ts1 if ros1 else ts2, ros1)))
            rows.sort(key=lambda r: r[0])
            out[conn.topic] = {
                "type": denormalize_msgtype(conn.msgtype) if ros1 else conn.msgtype,
                "count": len(rows),
                "log_time_ns": [t for t, _ in rows],
                "messages": [m for _, m in rows],
            }
    return {"topics": out}, info


def mcap_info_and_crosscheck(path: Path, expected: dict) -> dict:
    """Chunk statistics of an MCAP file, and mcap_ros2's own decoding == rosbags' decoding."""
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory

    with path.open("rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        summary = reader.get_summary()
        chunks = summary.chunk_indexes
        got = {}
        for schema, channel, message, decoded in reader.iter_decoded_messages(log_time_order=True):
            assert schema.encoding == "ros2msg" and channel.message_encoding == "cdr"
            got.setdefault(channel.topic, []).append(mcap_ros2_plain(decoded))
    for topic, entry in expected["topics"].items():
        if got.get(topic) != entry["messages"]:
            raise AssertionError(f"{path}: mcap_ros2 decodes {topic} differently from rosbags")
    return {"chunks": len(chunks), "compression": sorted({c.compression for c in chunks})}


# --------------------------------------------------------------------------- main


def dumps(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False) + "\n"


def generate(out: Path) -> dict:
    ts1, ts2 = typestores()
    topics = all_topics()
    out.mkdir(parents=True, exist_ok=True)
    for name in OUTPUTS:
        p = out / name
        if name == "expected":
            # Only this script's files: make_debian_bag.py writes its own.
            for bag in ROS2_BAGS + ROS1_BAGS:
                (p / f"{bag}.json").unlink(missing_ok=True)
        elif p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()

    write_rosbag2(out / "flight_sqlite", topics, ts2, "sqlite3", zstd=False, version=9)
    write_rosbag2(out / "flight_mcap", topics, ts2, "mcap", zstd=False, version=9)
    write_rosbag2(out / "flight_zstd", topics, ts2, "sqlite3", zstd=True, version=8)
    write_mcap(out / "flight.mcap", topics, ts2)
    write_rosbag1(out / "flight.bag", topics, ts1, "lz4")
    write_rosbag1(out / "flight_bz2.bag", topics, ts1, "bz2")
    write_rosbag1(out / "flight_plain.bag", topics, ts1, None)

    # What every reader must give back, derived from the source dicts.
    truth = {name: [source_plain(m) for _, m in msgs] for name, _, msgs in topics}
    truth_t = {name: [t for t, _ in msgs] for name, _, msgs in topics}

    (out / "expected").mkdir(exist_ok=True)
    infos = {}
    for bag in ROS2_BAGS + ROS1_BAGS:
        expected, info = read_expected(out / bag, ts1, ts2)
        ros1 = bag.endswith(".bag")
        assert sorted(expected["topics"]) == sorted(truth), bag
        for name, entry in expected["topics"].items():
            msgs = [ros1_to_ros2_plain(m) for m in entry["messages"]] if ros1 else entry["messages"]
            if msgs != truth[name] or entry["log_time_ns"] != truth_t[name]:
                raise AssertionError(f"{bag}: {name} does not read back as written")
            if ros1:
                seqs = [m["header"]["seq"] if "header" in m else None for m in entry["messages"]]
                assert all(s is None for s in seqs) or seqs == list(range(len(seqs))), (bag, name)
        if bag == "flight.mcap":
            info = mcap_info_and_crosscheck(out / bag, expected)
        elif bag == "flight_mcap":
            info = mcap_info_and_crosscheck(out / bag / "flight_mcap.mcap", expected)
        infos[bag] = info
        (out / "expected" / f"{bag}.json").write_text(dumps(expected), encoding="utf-8")

    write_notice(out, topics, infos, ts1)
    return infos


def files_table(out: Path) -> list:
    rows = []
    for p in sorted(out.rglob("*")):
        if p.is_file() and p.name != "NOTICE.md" and "__pycache__" not in p.parts:
            rows.append(f"| `{p.relative_to(out)}` | {p.stat().st_size} |")
    return rows


def write_notice(out: Path, topics: list, infos: dict, ts1):
    from rosbags.typesys.msg import denormalize_msgtype
    import PIL.features

    n = {name: len(msgs) for name, _, msgs in topics}
    by_name = {name: msgs for name, _, msgs in topics}
    levels = ", ".join(str(m["status"][1]["level"]) for _, m in by_name["/status"])
    widths = ", ".join(str(m["width"]) for _, m in by_name["/lidar"])
    jpeg_sizes = ", ".join(str(len(m["data"])) for _, m in by_name["/camera/compressed"])
    notes = {
        "/imu": f"PX4 `sensor_combined` gyro_rad, accelerometer_m_s2 at its native ~197 Hz: the "
                f"first {MAX_IMU} samples of the window; orientation = latest `vehicle_attitude` "
                "q; all covariances 0",
        "/gps": "PX4 `vehicle_gps_position` (2 Hz): latitude/longitude = lat/1e7, lon/1e7 deg, "
                "altitude = alt_ellipsoid/1000 m, covariance diag(eph², eph², epv²), type 2 "
                "(DIAGONAL_KNOWN); status 0 (STATUS_FIX, fix_type 4), service 1",
        "/pose": "PX4 `vehicle_local_position` x,y,z (10 Hz) + latest `vehicle_attitude` q; "
                 "frame `map`",
        "/odom": "same stamps and pose as /pose; twist.linear = vx,vy,vz, twist.angular = latest "
                 "gyro; covariances diag(eph²,eph²,epv²,0,0,0), diag(evh²,evh²,evv²,0,0,0); "
                 "child_frame_id `base_link`",
        "/tf": "one `map` -> `base_link` transform per `vehicle_attitude` sample (~20 Hz), "
               "translation = latest local position",
        "/status": f"1 Hz; 2 statuses each (gps: level 0; estimator: levels {levels}), 3 "
                   "key/values each, from the log; non-ASCII (`µ`, `±`) and empty strings, "
                   "empty frame_id",
        "/camera/image": f"{CAM_W}x{CAM_H} rgb8, step {3 * CAM_W}, 5 Hz: crops panning across "
                         "the photograph",
        "/camera/compressed": f"format `jpeg`: Pillow, quality {JPEG_QUALITY}, 4:2:0, of the same "
                              f"6 frames, same stamps as /camera/image; {jpeg_sizes} bytes",
        "/camera/mono": f"{CAM_W}x{CAM_H} mono8, step {CAM_W} (integer luma of frames 0-2), "
                        "stamps +10 ms",
        "/camera/depth": f"{CAM_W}x{CAM_H} mono16, step {2 * CAM_W}, is_bigendian 0, synthetic "
                         "gradient 500+194x+422y+4096k (mm), stamps +20 ms, frame `camera_depth`",
        "/lidar": "height 1, fields x,y,z,intensity (offsets 0,4,8,12, FLOAT32 = 7, count 1), "
                  f"point_step 16, is_dense, is_bigendian false; {widths} points (seeded); every "
                  "value a multiple of 1/128",
        "/scan": "90 ranges and 90 intensities; all values dyadic rationals (exact in float32)",
        "/flag": "[true, false, false, true]",
        "/count": "[0, 1, -1, 2147483647, -2147483648]",
    }
    topic_rows = "\n".join(
        f"| `{name}` | `{typ}` | `{denormalize_msgtype(typ)}` | {n[name]} | {notes[name]} |"
        for name, typ, _ in topics)
    comp = {
        "flight_sqlite": "rosbag2 v9, sqlite3 storage (`flight_sqlite.db3`), no compression",
        "flight_mcap": "rosbag2 v9, mcap storage (`flight_mcap.mcap`; rosbags starts a new "
                       "chunk only after 1 MiB and compresses none)",
        "flight_zstd": "rosbag2 **v8**, sqlite3 storage, compression_mode `file`, compression_format "
                       "`zstd` (`flight_zstd.db3.zstd` = zstd frame of the whole .db3; zstd is the only "
                       "format rosbags' rosbag2 Writer.set_compression offers)",
        "flight.mcap": "standalone MCAP (profile `ros2`, written by mcap_ros2's Writer: schema "
                       f"encoding `ros2msg`, message encoding `cdr`, zstd chunks, chunk_size {MCAP_CHUNK_SIZE // 1024} KiB)",
        "flight.bag": f"ROS 1 bag v2.0, lz4 chunks ({ROS1_CHUNK_THRESHOLD // 1024} KiB threshold)",
        "flight_bz2.bag": f"ROS 1 bag v2.0, bz2 chunks ({ROS1_CHUNK_THRESHOLD // 1024} KiB threshold)",
        "flight_plain.bag": f"ROS 1 bag v2.0, uncompressed chunks ({ROS1_CHUNK_THRESHOLD // 1024} KiB threshold)",
    }
    bag_rows = []
    for bag in ROS2_BAGS + ROS1_BAGS:
        info = infos[bag]
        extra = ""
        if "chunks" in info:
            kinds = ", ".join(x or "none" for x in info["compression"])
            plural = "s" if info["chunks"] != 1 else ""
            extra = f"; {info['chunks']} chunk{plural}, chunk compression: {kinds}"
        bag_rows.append(f"| `{bag}` | {comp[bag]}{extra} | `expected/{bag}.json` |")
    libs = ", ".join(f"{d} {version(d)}" for d in
                     ["rosbags", "mcap", "mcap-ros2-support", "pyulog", "numpy", "pillow",
                      "scikit-image"])
    text = f"""# ROS bag / MCAP test fixtures

Written by `make_bags.py` (this folder), which also wrote this file; do not edit
by hand. Regenerate and check with

    /work/venv/bin/python tests/data/ros/make_bags.py
    /work/venv/bin/python tests/data/ros/make_bags.py --check

`--check` regenerates everything in a temporary folder and compares the decoded
contents (`expected/*.json`) with the committed ones: the bag bytes may change
with the writer libraries' versions, the decoded contents must not.

## Sources

- **PX4 flight log**: `tests/data/px4/pixhawk4-sample-small.ulg` (see
  `tests/data/px4/NOTICE.md`: from crate `ulog-rs` 0.0.4, MIT; originally a
  PX4 sample log; Pixhawk 4 / FMU-v5). SHA-256 `{sha256(ULOG_PATH)}`.
  The window is boot time [{WINDOW_US[0]}, {WINDOW_US[1]}) µs (4 s: the vehicle,
  with a 3D GPS fix of 31 satellites, descends ~1.5 m and drifts sideways).
  Every PX4-derived message has log time = header stamp =
  ULog `timestamp` (µs since boot) × 1000 + {EPOCH_NS} ns. Values are PX4's own
  (NED world frame, FRD body frame), not rotated to ROS conventions; PX4's
  quaternion (w,x,y,z) is reordered into geometry_msgs/Quaternion (x,y,z,w).
  float32 log values are widened exactly to float64.
- **Photograph**: `skimage/data/chelsea.png` ("Chelsea the cat", 451x300) from
  the scikit-image {version("scikit-image")} wheel, SHA-256 `{PHOTO_SHA256}`;
  "No copyright restrictions. CC0 by the photographer (Stefan van der Walt)"
  (scikit-image's `skimage.data.chelsea` docstring). Frames:
  {3 * CAM_W}x{3 * CAM_H} windows at (left, top) = (40+60k, 60+20k), k = 0..5,
  3x3 box-averaged with integer rounding (sum+4)//9 to {CAM_W}x{CAM_H}; the PNG is
  decoded by Pillow (lossless), no resampling library is involved.
- **Synthetic**: depth gradient, point clouds, laser scans, /flag, /count: from
  `numpy.random.default_rng({SEED})` integers (see the script); stamps inside the
  same 4 s window, epoch as above.

Libraries used for the committed files: {libs}; Pillow's JPEG encoder is
libjpeg-turbo {PIL.features.version('libjpeg_turbo')} (the /camera/compressed
bytes depend on it); Python {sys.version.split()[0]}.

## Size budget

The folder must stay under 3 MB, and every one of the 7 files has its own
expected JSON in which each uint8[] byte is a JSON number (~3.6 characters per
byte). Six 64x48 rgb8 frames alone would take ~200 KB of JSON per file (1.4 MB
over 7 files), so the camera frames are {CAM_W}x{CAM_H} (not 64x48), /imu keeps
{MAX_IMU} messages (not 200) and point clouds have 50..150 points (not 100..300).
Everything else is as first specified.

## Topics (identical in every file)

ROS 2 files name the types `pkg/msg/Name`; ROS 1 files `pkg/Name`. ROS 1
headers carry `seq` = index of the message in its topic (0-based); flight.mcap
sets each MCAP message's `sequence` the same way and publish_time = log_time.

| topic | ROS 2 type | ROS 1 type | count | content |
|---|---|---|---|---|
{topic_rows}

Total: {sum(n.values())} messages per file. Log time order is strict within each
topic; /pose and /odom share stamps, as do /camera/image and /camera/compressed.

For ROS 1, `tf2_msgs/TFMessage` is not in rosbags' noetic typestore: it is
registered from its definition (`geometry_msgs/TransformStamped[] transforms`,
md5 94810edda583a504dfda3829e70d7eec, the real one).

## Debian's writer

`flight_debian.bag` is written by `make_debian_bag.py`, run with Debian's
`/usr/bin/python3` and its ROS 1 packages (python3-rosbag 1.15 and the
message packages): the messages of `flight.bag` (from its expected JSON)
written by the library ROS 1 users record with, bz2 chunks of 16 KiB;
`expected/flight_debian.bag.json` is that library's reading of it.

`flight_ros1.mcap` is written by `make_ros1_mcap.py` (a venv over
Debian's Python with its ROS 1 packages, and mcap-ros1-support from
PyPI): the messages of `flight_debian.bag` in a standalone MCAP in ROS 1
encoding (ros1msg schemas, lz4 chunks of 16 KiB), by Foxglove's own
writer for it; `expected/flight_ros1.mcap.json` is its reader's reading.

## Files

| file | format | expected contents |
|---|---|---|
{chr(10).join(bag_rows)}

Expected JSON (one line): `{{"topics": {{topic: {{"type", "count", "log_time_ns",
"messages"}}}}}}`, messages in log-time order as rosbags' readers decode them:
fields in definition order, numeric and uint8[] arrays as lists of numbers,
nested messages as objects, ROS 2 `builtin_interfaces/Time` as
`{{"sec", "nanosec"}}`, ROS 1 `time` as `{{"secs", "nsecs"}}`, bool as true/false,
strings as UTF-8 strings. Floats are the decoded float64 values (float32 fields
widened) and round-trip exactly. No NaN or infinity anywhere. Every expected file
was also checked against the source messages, ROS 1 against ROS 2 (modulo `seq`
and time field names), and the two MCAP files against mcap_ros2's own decoder.
rosbags holds a ROS 1 `time` as a builtin_interfaces/msg/Time object (sec,
nanosec); the ROS 1 JSON renames them to the ROS 1 names secs/nsecs.

Sizes (bytes):

| file | size |
|---|---|
{chr(10).join(files_table(out))}
"""
    (out / "NOTICE.md").write_text(text, encoding="utf-8")


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


def check() -> int:
    committed = HERE / "expected"
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp))
        fresh = Path(tmp) / "expected"
        names = sorted(p.name for p in fresh.glob("*.json"))
        # make_debian_bag.py's and make_ros1_mcap.py's expected files are
        # those scripts' to check.
        theirs = ("flight_debian.bag.json", "flight_ros1.mcap.json")
        have = (
            sorted(p.name for p in committed.glob("*.json") if p.name not in theirs)
            if committed.is_dir()
            else []
        )
        problems = []
        if names != have:
            problems.append(f"expected/ holds {have}, the script writes {names}")
        for name in names:
            if not (committed / name).exists():
                continue
            a = (committed / name).read_text(encoding="utf-8")
            b = (fresh / name).read_text(encoding="utf-8")
            if a != b:
                ja, jb = json.loads(a), json.loads(b)
                where = first_difference(ja, jb) if ja != jb else "formatting only"
                hint = ""
                if "/camera/compressed" in where:
                    hint = (" (JPEG bytes: Pillow/libjpeg-turbo differ from the ones in NOTICE.md?)")
                problems.append(f"expected/{name} differs (committed vs regenerated): first at {where}{hint}")
    if problems:
        print("make_bags.py --check FAILED:", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    print(f"make_bags.py --check OK: {len(names)} expected files match")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temporary folder and compare expected/*.json")
    ap.add_argument("--out", type=Path, default=HERE, help="output folder (default: this folder)")
    args = ap.parse_args()
    if args.check:
        return check()
    infos = generate(args.out)
    for bag, info in infos.items():
        print(bag, info)
    return 0


if __name__ == "__main__":
    sys.exit(main())
