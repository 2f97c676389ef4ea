"""The LeRobot benchmark (issue 41): a 640 x 480 two-camera LeRobot v3.0
dataset (AV1) written by lerobot's own writer (generate.py), one epoch of
batches of 32 with the front camera's window `[-1/fps, 0]` and an action
chunk of 8 (run.py), read by

- adl: adl.Loader over adl.lerobot.LeRobotDataset, 2 threads;
- adl under torch: adl.lerobot.LeRobotDataset under torch's DataLoader, 2
  worker processes;
- lerobot: lerobot's LeRobotDataset under torch's DataLoader, 2 worker
  processes, with torchcodec (its default) and with pyav;
- the decode limit: the groups of pictures the epoch's batches need, each
  once per batch, decoded back to back by FFmpeg on 2 threads;

alternating, each run a fresh process after the machine is quiet, its
process tree's memory watched from outside (peak summed RSS and PSS).
Driven by

    python3 bench/compare.py --workloads lerobot [--rounds 3]

The Python it runs is LEROBOT_PYTHON (default target/lerobot-venv/bin/python:
lerobot 0.4.4, pyulog, scikit-image), into which a release build of adl is
installed; the data are target/lerobot-bench/data (generated the first
time). It prints a table, then `ratio lerobot adl/<best lerobot> R` and
`limit lerobot adl/limit R`.
"""

import os
import statistics
import subprocess
import sys

import release_wheels  # bench/, on the path as compare.py's folder

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WORK = os.path.join(ROOT, "target", "lerobot-bench")
DATA = os.path.join(WORK, "data")
CONFIGS = ["adl", "adl-torch", "torchcodec", "pyav", "limit"]
NAMES = {
    "adl": "adl.Loader (adl's dataset)",
    "adl-torch": "torch DataLoader (adl's dataset)",
    "torchcodec": "torch DataLoader (lerobot, torchcodec)",
    "pyav": "torch DataLoader (lerobot, pyav)",
    "limit": "decode limit (FFmpeg, 2 threads)",
}


def python():
    """The benchmark's Python, with a release build of adl installed."""
    python = os.environ.get("LEROBOT_PYTHON", os.path.join(ROOT, "target", "lerobot-venv", "bin", "python"))
    if not os.path.exists(python):
        sys.exit("compare_lerobot: no LEROBOT_PYTHON; make one: python3 -m venv target/lerobot-venv && "
                 "target/lerobot-venv/bin/pip install lerobot==0.4.4 pyulog scikit-image maturin")
    release_wheels.install(python, ["adl-python"], os.path.join(WORK, "wheels"))
    return python


def run(rounds, monitored, wait_quiet):
    py = python()
    if not os.path.exists(os.path.join(DATA, "meta", "info.json")):
        print(f"compare_lerobot: writing the dataset into {DATA} (once)", file=sys.stderr)
        subprocess.run([py, os.path.join(HERE, "generate.py"), DATA], check=True)
    runs = {}
    for r in range(rounds):
        print(f"compare_lerobot: round {r + 1} of {rounds}", file=sys.stderr)
        for config in CONFIGS:
            wait_quiet()
            for row in monitored([py, os.path.join(HERE, "run.py"), DATA, config], {}):
                runs.setdefault(config, []).append(row)
    med = statistics.median
    speed = {c: med(row["samples_per_s"] for row in rows) for c, rows in runs.items()}
    print(f"\nLeRobot benchmark, {rounds} rounds (median samples/s; peaks of the process tree):")
    print(f"{'configuration':42} {'samples/s':>10} {'peak RSS MiB':>13} {'peak PSS MiB':>13}  RSS by quarter (MiB)")
    for config in CONFIGS:
        rows = runs[config]
        print(f"{NAMES[config]:42} {speed[config]:10.1f} "
              f"{med(r['peak_rss_tree_mb'] for r in rows):13.0f} {med(r['peak_pss_tree_mb'] for r in rows):13.0f}  "
              f"{rows[-1]['rss_quarters_mb']}")
    best = max(("torchcodec", "pyav"), key=lambda c: speed[c])
    print(f"ratio lerobot adl/{best} {speed['adl'] / speed[best]:.2f}")
    print(f"ratio lerobot adl-torch/{best} {speed['adl-torch'] / speed[best]:.2f}")
    print(f"limit lerobot adl/limit {speed['adl'] / speed['limit']:.2f}")
    return runs
