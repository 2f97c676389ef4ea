"""Long work shows progress on a terminal: indexing a ROS bag, reading a
PX4 log, opening a LeRobot dataset (its tables, its episodes' videos), an
epoch asked for (`progress=True`); silent where standard error
is not a terminal, and with ADL_PROGRESS=0. Each case runs a fresh Python
whose standard error is a pseudo-terminal (or a pipe)."""

import os
import pty
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BAG = os.path.join(ROOT, "tests", "data", "ros", "flight.mcap")
LOG = os.path.join(ROOT, "tests", "data", "px4", "pixhawk4-sample-small.ulg")
LEROBOT = os.path.join(ROOT, "tests", "data", "lerobot", "v21")
SCRIPT = f"""
import adl
from adl import px4, ros
from adl.lerobot import LeRobotDataset
bag = ros.Bag({BAG!r})
log = px4.Log({LOG!r})
robot = LeRobotDataset("adl/px4_flight", root={LEROBOT!r})
loader = adl.Loader(list(range(400)), None, batch_size=4, progress=True)
print("batches", sum(1 for _ in loader.epoch(0)))
"""


def on_terminal(env):
    """The script's output, its standard output and error a terminal."""
    main, other = pty.openpty()
    process = subprocess.Popen([sys.executable, "-c", SCRIPT], stdin=other, stdout=other, stderr=other,
                               env={**os.environ, **env}, close_fds=True)
    os.close(other)
    out = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        out += chunk
    os.close(main)
    assert process.wait(timeout=120) == 0, out.decode(errors="replace")
    return out.decode(errors="replace")


def test_on_a_terminal_indexing_reading_and_an_epoch_show_their_bars():
    out = on_terminal({"ADL_PROGRESS": "1"})
    assert "batches 100" in out
    for bar in ("indexing flight.mcap", "reading pixhawk4-sample-small.ulg", "reading v21's tables",
                "opening v21's videos", "epoch 0"):
        assert bar in out, (bar, out)
    # Cleared when done: the line is erased after the bar.
    assert "\x1b[2K" in out


def test_off_a_terminal_or_turned_off_nothing_is_drawn():
    piped = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True,
                           env={**os.environ, "ADL_PROGRESS": "1"})
    assert piped.stdout.strip() == "batches 100"
    assert "indexing" not in piped.stderr and "epoch 0" not in piped.stderr, piped.stderr
    assert "v21" not in piped.stderr, piped.stderr
    off = on_terminal({"ADL_PROGRESS": "0"})
    assert "batches 100" in off and "indexing" not in off and "epoch 0" not in off, off
