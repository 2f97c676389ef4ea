"""Write flight_ros1.mcap, a standalone MCAP in ROS 1 encoding (ros1msg
schemas, ros1 messages), with Foxglove's own writer for it
(mcap-ros1-support), and its expected reading by that package's reader:
the messages of flight_debian.bag, as Debian's python3-rosbag reads them.

    /usr/bin/python3 -m venv --system-site-packages VENV   # Debian's ROS 1 packages
    VENV/bin/pip install mcap mcap-ros1-support
    VENV/bin/python tests/data/ros/make_ros1_mcap.py

Writes flight_ros1.mcap (lz4 chunks of 16 KiB) and
expected/flight_ros1.mcap.json, in make_bags.py's format.
"""

import json
from pathlib import Path

import rosbag
from mcap.writer import CompressionType
from mcap_ros1.reader import read_ros1_messages
from mcap_ros1.writer import Writer

from make_debian_bag import plain

HERE = Path(__file__).resolve().parent


def main() -> None:
    out = HERE / "flight_ros1.mcap"
    with open(out, "wb") as f, rosbag.Bag(str(HERE / "flight_debian.bag")) as bag:
        writer = Writer(f, chunk_size=16 * 1024, compression=CompressionType.LZ4)
        for topic, message, time in bag.read_messages():
            writer.write_message(topic, message, log_time=time.to_nsec(), publish_time=time.to_nsec())
        writer.finish()
    topics = {}
    for m in read_ros1_messages(str(out)):
        entry = topics.setdefault(
            m.topic, {"type": m.ros_msg._type, "count": 0, "log_time_ns": [], "messages": []}
        )
        entry["count"] += 1
        entry["log_time_ns"].append(m.log_time_ns)
        entry["messages"].append(plain(m.ros_msg))
    topics = {name: topics[name] for name in sorted(topics)}
    expected = HERE / "expected" / "flight_ros1.mcap.json"
    expected.write_text(json.dumps({"topics": topics}, separators=(",", ":")) + "\n")
    print(f"wrote {out} ({out.stat().st_size} bytes) and {expected}")


if __name__ == "__main__":
    main()
