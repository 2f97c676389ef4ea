"""The LeRobot example trains: the same script, its batches from
adl.Loader or from torch's DataLoader over adl.lerobot.LeRobotDataset,
its loss falling."""

import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.parametrize("args", [[], ["--torch-dataloader"]], ids=["adl-loader", "torch-dataloader"])
def test_the_lerobot_example_trains(args):
    out = subprocess.run([sys.executable, os.path.join(HERE, "lerobot_policy.py"), *args],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "53 frames of 3 episodes at 10 frames/s" in out.stdout
    first, last = map(float, re.search(r"loss (\S+) -> (\S+)", out.stdout).groups())
    assert last < first / 2, out.stdout
    assert "frames (16, 2, 3, 24, 32) torch.float32, actions (16, 8, 4)" in out.stdout
