"""The roverd benchmark (issue 30): an I/Q-1M-shaped trace written by
roverd's writer (generate.py), read by adl's native readers under
adl.Loader (run_adl.py) and by roverd's own sensors on the reference
abstract_dataloader under PyTorch's DataLoader with 0, 2 and 4 workers
(run_roverd.py), the same training pipeline (workload.py), alternating,
each run a fresh process after the machine is quiet, its memory watched
from outside (peak summed RSS and PSS of its processes). Driven by

    python3 bench/compare.py --workloads rover [--rounds 2]

The data are target/rover-bench/data (generated the first time, 20 s of
recording); the adl side runs a release build of adl with libjpeg-turbo
(decode-time scaling) installed into target/rover-bench/venv (NumPy and
adl only); the roverd side runs ROVERD_PYTHON (default: the python running
this), which needs roverd[video], abstract_dataloader and torch (roverd is
not on PyPI: pip install "<red-rover>/format[video]").

Before timing, the first batch of each side is compared: radar, lidar and
IMU arrays equal, the camera's mean difference reported (OpenCV's FFmpeg
decode and INTER_AREA resize against libjpeg-turbo's DCT scaling, and
roverd's video frame i being the file's frame i - 1). adl's profile
(CPU per sample of each part, one thread) says where the time goes; the
readers' bound is measured in the rounds (`run_adl.py --limit CORES`: the
same reads, batches and steps with no loader, a process per core at once),
with and without the camera, and the last lines are `limit rover adl/limit
R` and `limit rover-no-camera adl/limit R`.
"""

import json
import os
import statistics
import subprocess
import sys

import numpy as np

import release_wheels  # bench/, on the path as compare.py's folder

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WORK = os.path.join(ROOT, "target", "rover-bench")
DATA = os.path.join(WORK, "data")


def roverd_python():
    return os.environ.get("ROVERD_PYTHON", sys.executable)


def adl_python():
    """A venv with a release build of adl with libjpeg-turbo (and what it
    depends on), built by roverd's Python's maturin."""
    venv = os.path.join(WORK, "venv")
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    release_wheels.install(python, ["adl-python"], os.path.join(WORK, "wheels"), features=["libjpeg-turbo"],
                           maturin=roverd_python())
    return python


def same_samples(adl_dump, roverd_dump):
    """The first batches of the two sides: what differs, in words."""
    a, r = np.load(adl_dump), np.load(roverd_dump)
    for key in ["radar", "lidar", "imu"]:
        np.testing.assert_allclose(a[key], r[key], rtol=1e-5, atol=1e-5, err_msg=key)
    camera = np.abs(a["camera"] - r["camera"])
    return {"radar, lidar, imu": "equal", "camera mean |difference|": float(camera.mean()),
            "camera shapes": [list(a["camera"].shape), list(r["camera"].shape)]}


def run(rounds, monitored, wait_quiet, epochs=2):
    if not os.path.exists(os.path.join(DATA, "manifest.json")):
        print("rover: writing the trace with roverd's writer (once)", file=sys.stderr)
        subprocess.run([roverd_python(), os.path.join(HERE, "generate.py"), DATA, "--seconds", "20"], check=True)
    python = adl_python()
    adl_run = os.path.join(HERE, "run_adl.py")
    roverd_run = os.path.join(HERE, "run_roverd.py")

    dumps = {side: os.path.join(WORK, f"first-{side}.npz") for side in ("adl", "roverd")}
    subprocess.run([python, adl_run, DATA, "2", "--epochs", "1", "--dump", dumps["adl"]], check=True,
                   capture_output=True, env={**os.environ, "ADL_QUIET": "1"})
    subprocess.run([roverd_python(), roverd_run, DATA, "0", "--epochs", "1", "--dump", dumps["roverd"]],
                   check=True, capture_output=True)
    checked = same_samples(dumps["adl"], dumps["roverd"])
    profile = json.loads(subprocess.run([python, adl_run, DATA, "--profile"], check=True,
                                        capture_output=True, text=True).stdout.splitlines()[-1])

    cores = os.cpu_count() or 1
    runs, pss, rss = {}, {}, {}
    for r in range(rounds):
        print(f"rover: round {r + 1} of {rounds}", file=sys.stderr)
        configs = [(f"adl, {w} workers", [python, adl_run, DATA, str(w), "--epochs", str(epochs + 1)])
                   for w in (2, 4)]
        configs += [(f"roverd + DataLoader, {w} workers",
                     [roverd_python(), roverd_run, DATA, str(w), "--epochs", str(epochs)]) for w in (0, 2, 4)]
        # Without the camera: radar, lidar (per-frame lzma) and IMU.
        configs += [("no camera: adl, 2 workers",
                     [python, adl_run, DATA, "2", "--epochs", str(epochs + 3), "--without-camera"])]
        configs += [(f"no camera: roverd + DataLoader, {w} workers",
                     [roverd_python(), roverd_run, DATA, str(w), "--epochs", str(epochs + 2), "--without-camera"])
                    for w in (0, 2, 4)]
        # The readers' bound, measured beside (issue 44).
        configs += [(f"limit, {cores} processes, no loader", [python, adl_run, DATA, "--limit", str(cores)]),
                    (f"no camera: limit, {cores} processes, no loader",
                     [python, adl_run, DATA, "--limit", str(cores), "--without-camera"])]
        for name, cmd in configs:
            wait_quiet()
            for row in monitored(cmd, {"ADL_QUIET": "1"}):
                runs.setdefault(name, []).append(row["warm_samples_per_s"])
                pss.setdefault(name, []).append(row["peak_pss_tree_mb"])
                rss.setdefault(name, []).append(row["peak_rss_tree_mb"])
    med = {k: statistics.median(v) for k, v in runs.items()}
    best = max((k for k in med if k.startswith("roverd")), key=lambda k: med[k])
    best_without = max((k for k in med if k.startswith("no camera: roverd")), key=lambda k: med[k])
    print(f"same samples (first batch): {json.dumps(checked)}")
    parts = profile["profile_s_per_sample"]
    cpu = sum(parts.values())
    print("adl's CPU per sample, one thread: " + ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in parts.items())
          + f"; total {cpu * 1e3:.1f} ms ({cores / cpu:.0f} samples/s on {cores} cores, were the cores free "
          f"of each other)")
    print("| roverd trace | warm samples/s (runs) | against roverd's best | peak PSS, summed (MiB) | peak RSS, summed (MiB) |")
    print("|---|---|---|---|---|")
    for k, v in runs.items():
        against = "-"
        if k.startswith("adl"):
            against = f"{med[k] / med[best]:.1f}x"
        elif k.startswith("no camera: adl"):
            against = f"{med[k] / med[best_without]:.1f}x"
        print(f"| {k}{' (best)' if k in (best, best_without) else ''} | {med[k]:.1f} ({', '.join(f'{x:.1f}' for x in v)}) "
              f"| {against} | {statistics.median(pss[k]):.0f} | {statistics.median(rss[k]):.0f} |")
    # The readers' bound (issue 44), measured in the same rounds; the
    # loader against it, as compare.py's last lines.
    print()
    for name, adl_run_name, limit_name in (("rover", "adl, 2 workers", f"limit, {cores} processes, no loader"),
                                           ("rover-no-camera", "no camera: adl, 2 workers",
                                            f"no camera: limit, {cores} processes, no loader")):
        print(f"limit {name} adl/limit {med[adl_run_name] / med[limit_name]:.2f} (adl: {adl_run_name}, "
              f"{med[adl_run_name]:.1f}/s; its readers' bound measured on {cores} cores, no loader: "
              f"{med[limit_name]:.1f}/s, runs {', '.join(f'{x:.1f}' for x in runs[limit_name])})")
