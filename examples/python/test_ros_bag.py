"""The ROS bag example runs: it lists the bag's topics, reads a message
as a dict of NumPy arrays and scalars, and loads camera images with the
IMU and pose interpolated to them, in batches with their masks."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def test_the_ros_bag_example_lists_reads_and_loads():
    out = subprocess.run([sys.executable, os.path.join(HERE, "ros_bag.py")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "/imu" in out.stdout and "sensor_msgs/msg/Imu" in out.stdout
    assert "covariance float64" in out.stdout
    assert "IMU interpolated at 3 of 6 camera stamps" in out.stdout
    assert ("batch 0: camera (2, 24, 32, 3) imu angular velocity (2, 3) valid (2,) pose x (2,)"
            in out.stdout), out.stdout
    assert "synchronized samples loaded" in out.stdout
