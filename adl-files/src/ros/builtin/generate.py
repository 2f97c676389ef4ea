"""Write humble.msg: the ROS 2 message definitions adl knows without a
bag's help, for bags that carry none (rosbag2's sqlite3 storage before
Iron): every type of the standard packages below, as the `rosbags`
library's type store for ROS 2 Humble holds them (its definitions are
those of ros2/common_interfaces, Apache-2.0), one `MSG: pkg/msg/Type`
section each, in the format MCAP's ros2msg schemas use.

    python generate.py            # writes humble.msg beside this file
    python generate.py --check    # fails if humble.msg differs
"""

import sys
from pathlib import Path

from rosbags.typesys import Stores, get_typestore

PACKAGES = (
    "builtin_interfaces",
    "std_msgs",
    "geometry_msgs",
    "sensor_msgs",
    "nav_msgs",
    "tf2_msgs",
    "stereo_msgs",
    "diagnostic_msgs",
)
OUT = Path(__file__).resolve().parent / "humble.msg"


def text() -> str:
    store = get_typestore(Stores.ROS2_HUMBLE)
    names = sorted(t for t in store.types if t.split("/")[0] in PACKAGES)
    sections = []
    for name in names:
        own, _ = store.gendefhash(name, {}, 2)
        sections.append(f"{'=' * 80}\nMSG: {name}\n{own.rstrip()}\n")
    return "".join(sections)


def main() -> None:
    fresh = text()
    if "--check" in sys.argv:
        if OUT.read_text() != fresh:
            sys.exit(f"{OUT} differs from rosbags' Humble type store: rerun generate.py")
        print(f"{OUT.name}: {fresh.count('MSG: ')} types agree")
        return
    OUT.write_text(fresh)
    print(f"wrote {OUT}: {fresh.count('MSG: ')} types")


if __name__ == "__main__":
    main()
