"""A ROS 2 bag from Python: each topic a sensor (`adl.ros.Bag`); the
camera's images as the reference, the IMU and the pose interpolated to
its stamps (`adl.Interpolated`: linear, slerp for the orientations, a gap
masked), in an `adl.Trace` batched by `adl.Loader`'s workers.

    python examples/python/ros_bag.py [BAG]

BAG defaults to tests/data/ros/flight_mcap (a rosbag2 folder written by
tests/data/ros/make_bags.py from a real PX4 flight log); an `.mcap` or a
ROS 1 `.bag` reads the same way. A message is a dict keyed by field name:
numbers as Python scalars, numeric arrays as NumPy arrays of the field's
type, nested messages as dicts.
"""

import sys
from pathlib import Path

import adl
from adl import generic, ros

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests/data/ros/flight_mcap"
    bag = ros.Bag(path)
    for topic, message_type in bag.topics.items():
        print(f"{topic:<20} {message_type:<36} {bag.message_count(topic)} messages")

    imu, pose = bag["/imu"], bag["/pose"]
    first = imu[0]
    print("first IMU message: angular velocity",
          {k: round(v, 4) for k, v in first["angular_velocity"].items()},
          "covariance", first["angular_velocity_covariance"].dtype)

    camera = bag["/camera/image"].view("image")
    imu = adl.Interpolated(imu.view("imu"), camera, max_gap=0.1, slerp=["orientation"])
    pose = adl.Interpolated(pose, camera, max_gap=0.5, slerp=["pose.orientation"])
    print(f"IMU interpolated at {imu.valid} of {len(imu)} camera stamps "
          f"(the rest in gaps over {imu.max_gap} s, masked)")
    trace = adl.Trace({"camera": camera, "imu": imu, "pose": pose},
                      sync=generic.Nearest("camera"), name="flight")
    loader = adl.Loader(adl.Dataset([trace]), batch_size=2, shuffle=1, workers=2)
    for k, batch in enumerate(loader.epoch(0)):
        if k == 0:
            print("batch 0: camera", batch["camera"].shape,
                  "imu angular velocity", batch["imu"]["value"]["angular_velocity"].shape,
                  "valid", batch["imu"]["valid"].shape,
                  "pose x", batch["pose"]["value"]["pose"]["position"]["x"].shape)
    print(f"{len(trace)} synchronized samples loaded")

if __name__ == "__main__":
    main()
