"""adl's built-in ROS 2 message definitions (adl-files/src/ros/builtin/
humble.msg), which decode bags that carry none, are what the `rosbags`
library's Humble type store holds: their generator, rerun here with the
installed rosbags, must reproduce the committed file."""

import subprocess
import sys
from pathlib import Path

GENERATOR = (
    Path(__file__).resolve().parents[2] / "adl-files" / "src" / "ros" / "builtin" / "generate.py"
)


def test_the_builtin_definitions_are_rosbags_humble_types() -> None:
    done = subprocess.run(
        [sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "99 types agree" in done.stdout
