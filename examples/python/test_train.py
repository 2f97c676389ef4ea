"""The training example runs: a second run with the same checkpoint goes
on from where the first stopped, and over both the loss falls."""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN = os.path.join(HERE, "train.py")


def train(*args):
    out = subprocess.run([sys.executable, TRAIN, *args], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout


def losses(stdout):
    found = re.search(r"(\d+) steps: loss ([\d.]+) in the first epoch, ([\d.]+) in the last", stdout)
    assert found, stdout
    return int(found[1]), float(found[2]), float(found[3])


def test_the_loss_falls_and_training_resumes_from_its_checkpoint(tmp_path):
    checkpoint = str(tmp_path / "train.pt")
    first_run = train("--epochs", "12", "--checkpoint", checkpoint)
    assert "leaving drive-3 out" in first_run and "timestamps are not sorted" in first_run
    steps_before, _, _ = losses(first_run)
    # Run again with the same checkpoint: it goes on from the last epoch's end.
    again = train("--epochs", "24", "--checkpoint", checkpoint)
    assert f"resuming at epoch 11, after {steps_before} steps" in again
    steps, first, last = losses(again)
    assert steps == 2 * steps_before and steps >= 100
    assert last < 0.5 * first, again
    assert "batches" in again and "samples/s" in again  # the loader's statistics
