"""The ROS bag example runs: it lists the bag's topics, reads a message
as a dict of NumPy arrays and scalars, and loads the synchronized IMU and
pose in batches."""

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
    assert "batch 0: imu z acceleration (8,) pose x (8,)" in out.stdout
    assert "synchronized samples loaded" in out.stdout
