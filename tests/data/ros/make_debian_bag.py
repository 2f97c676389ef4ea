"""Write flight_debian.bag with Debian's own ROS 1 writer (python3-rosbag,
1.15, with python3-sensor-msgs and the other message packages), and its
expected reading by that library: the same messages as flight.bag (read
from expected/flight.bag.json), written by the writer ROS 1 users have.

    sudo apt-get install python3-rosbag python3-sensor-msgs \\
        python3-geometry-msgs python3-std-msgs python3-nav-msgs \\
        python3-tf2-msgs python3-diagnostic-msgs
    /usr/bin/python3 tests/data/ros/make_debian_bag.py

Writes flight_debian.bag (bz2 chunks of 16 KiB) and
expected/flight_debian.bag.json, in make_bags.py's format: each topic's
type, log times and messages as plain data, as rosbag reads them back.
"""

import importlib
import json
from pathlib import Path

import genpy
import rosbag
import rospy

HERE = Path(__file__).resolve().parent


def message_class(type_name: str):
    package, name = type_name.split("/")
    return getattr(importlib.import_module(f"{package}.msg"), name)


def fill(slot_type: str, value):
    """A genpy value of `slot_type` from plain data."""
    base = slot_type.split("[")[0]
    if slot_type.endswith("]"):
        if base in ("uint8", "char"):
            return bytes(value)
        return [fill(base, v) for v in value]
    if base == "time":
        return rospy.Time(value["secs"], value["nsecs"])
    if base == "duration":
        return rospy.Duration(value["secs"], value["nsecs"])
    if isinstance(value, dict):
        cls = message_class("std_msgs/Header" if base == "Header" else base)
        return build(cls, value)
    return value


def build(cls, data: dict):
    message = cls()
    for slot, slot_type in zip(cls.__slots__, cls._slot_types):
        setattr(message, slot, fill(slot_type, data[slot]))
    return message


def plain(value):
    """A genpy value as make_bags.py's plain data."""
    if isinstance(value, genpy.Time) or isinstance(value, genpy.Duration):
        return {"secs": value.secs, "nsecs": value.nsecs}
    if isinstance(value, genpy.Message):
        return {slot: plain(getattr(value, slot)) for slot in value.__slots__}
    if isinstance(value, (bytes, bytearray)):
        return list(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def main() -> None:
    source = json.loads((HERE / "expected" / "flight.bag.json").read_text())["topics"]
    out = HERE / "flight_debian.bag"
    with rosbag.Bag(str(out), "w", compression="bz2", chunk_threshold=16 * 1024) as bag:
        stream = []
        for topic, t in source.items():
            cls = message_class(t["type"])
            for ns, data in zip(t["log_time_ns"], t["messages"]):
                stream.append((ns, topic, build(cls, data)))
        for ns, topic, message in sorted(stream, key=lambda s: (s[0], s[1])):
            bag.write(topic, message, rospy.Time(ns // 10**9, ns % 10**9))
    topics = {}
    with rosbag.Bag(str(out)) as bag:
        for topic, message, time in bag.read_messages():
            entry = topics.setdefault(
                topic, {"type": message._type, "count": 0, "log_time_ns": [], "messages": []}
            )
            entry["count"] += 1
            entry["log_time_ns"].append(time.to_nsec())
            entry["messages"].append(plain(message))
    topics = {name: topics[name] for name in sorted(topics)}
    expected = HERE / "expected" / "flight_debian.bag.json"
    expected.write_text(json.dumps({"topics": topics}, separators=(",", ":")) + "\n")
    print(f"wrote {out} ({out.stat().st_size} bytes) and {expected}")


if __name__ == "__main__":
    main()
