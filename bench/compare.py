#!/usr/bin/env python3
"""Run adl's benchmark beside PyTorch's DataLoader and the compiled-C limit,
alternately in one session, and print the ratios (the machine is noisy:
only figures taken together compare).

    python3 bench/compare.py [--rounds 3] [--workloads w1,w2,w3]
    python3 bench/compare.py --workloads w4 [--rounds 3] [--w4-data DIR] [--latency-readers N]
    python3 bench/compare.py --workloads w2-python [--rounds 5]
    python3 bench/compare.py --workloads rover [--rounds 2]
    python3 bench/compare.py --workloads bags [--rounds 3]
    python3 bench/compare.py --peers [--workloads w2,w4,w6] [--rounds 3]

Each round runs, for every workload, adl (2 workers), the PyTorch peer (0
and 2 workers) and, for W1 and W2, the C limit (a thread per core), each in
a fresh process. The table gives the median warm-epoch samples/s of each and the
ratios the goals are stated in (issue 9): adl / C limit, adl / PyTorch's
best, and for W3 adl / numpy's figure of PEER.md. For W1 and W2 a second
table sets each side at the same passes over the data: the C loop's
headline times its 3rd to 5th passes (after a digest pass and a warm-up),
the protocol a loader's 2nd (its warm epoch), so adl-bench also times 3
more epochs (`--later-epochs 3`) and the C loop also reports its 2nd pass
(`warm_samples_per_s`); the closing `limit` line sets adl's epochs 3 to 5
beside the C loop's headline. On a machine whose memory reads grow faster
over the first passes (2026-11-30's: the C loop's W1 made 41 M/s in its
2nd pass and 56 M/s in its 3rd to 5th, medians of 3 rounds) the headline
against the warm epoch compares different things.

W4 (bench/W4.md, on disk; not in the default list): each round runs adl (2
workers) from the local files, adl with 20 ms before every read of every
sensor (--read-latency-ms 20; --latency-readers sets the read stage's
threads, the loader's default otherwise), and the PyTorch peer
(peer_torch_w4.py --single, 0, 2 and 4 workers), each a fresh process that
takes the dataset out of the page cache before its cold epoch, each after
the machine has been quiet (< 10% busy) for 2 s (up to 60 s). The table
gives the median warm and cold samples/s, adl / PyTorch's best (warm, and
cold against its best cold) and adl with latency / adl local. The dataset
is target/w4-data (written with generate.py the first time).

W2 through Python (issue 21; not in the default list): each round runs
adl-bench's W2 (Rust, 2 workers), the same loader iterated from Python
(bench/python/bench_w2.py over the module adl_bench, built in release and
installed into target/bench-venv with adl: see Builds below) with 2 and 4
workers, and the PyTorch peer with 0, 2 and 4 workers, each a fresh
process after the machine is quiet, its memory watched from outside (the
peak of its processes' summed RSS, sampled every 0.1 s, and of their
summed PSS, every second: a DataLoader's workers are processes, adl's are
threads). The table gives the median warm samples/s, Python / Rust,
Python / PyTorch's best, and the memory peaks.

roverd's format (issue 30; not in the default list): bench/rover/
compare_rover.py says what it runs. LeRobot datasets (issue 41, `--workloads
lerobot`, not in the default list): bench/lerobot/compare_lerobot.py says
what it runs.

The peers (issue 33): `python3 bench/compare.py --peers [--workloads
w2,w4,w6] [--rounds 3]` runs, per workload, adl and every peer at each of
its settings of 0, 2 and 4 workers (threads or processes, where a peer has
both: bench/peer/peers.py says what each runs), each a fresh process after
the machine is quiet, alternating round by round, its memory watched from
outside; first, once, each peer's digest of W2 and W6 against the plain
loop's. adl runs W2 through Python (bench_w2.py: its Rust loader iterated
from Python), W4 from Rust (adl-bench) and W6 through `adl.Loader` (0
workers, and 2 and 4 worker processes). PyTorch's DataLoader, Grain,
SPDL and torchdata run in target/peers-venv (PEERS_PYTHON names another);
dataloader-rs, whose wheels need Python 3.13 or later, in
target/peers-venv-313 made from a `python3.13` on the PATH or pyenv's
(DLRS_PYTHON names another; without one it is left out, saying so). The
table gives each run's median warm samples/s and peak PSS; the last lines,
one per workload, `ratio WORKLOAD adl/best-peer R PEER` and adl / PyTorch's
best.

Builds (issue 44). Every adl row is a release build, and says so
(`[release]`): adl-bench is built with `cargo build --release`, and adl
and adl_bench for Python are built as release wheels and installed into
target/bench-venv each run (ADL_PYTHON names another python, whose
modules must say `BUILD == "release"`). Never target/python-venv: the
test command installs a debug build there, which runs W2 through Python
at a fifth of the speed. A row from a debug build stops the comparison.

Limits (issue 44). Each workload is measured beside its machine limit, on
all the machine's cores, in the same rounds: W1 and W2 the C loop
(bench/peer/limit_c.c); W4 its work with no loader (`adl-bench --workload
w4 --limit`: the sensors' reads, the crop decode at its DCT scale, the
resize and the collate's copy, back to back on a thread per core); W6 the
plain Python loop in a process per core, summed (`bench/peer/w6.py
--limit N`). The last lines, one per workload, are `limit WORKLOAD
adl/limit R`; W4's run also prints `rounds w4 adl/torch-best ...`, adl
against PyTorch's best in each round. `--workloads rover`
(bench/rover/compare_rover.py) prints `limit rover ...` and `limit
rover-no-camera ...` against its readers' bound (adl's CPU per sample on
one thread, from `run_adl.py --profile`, on every core). `--workloads
bags` runs the bench bag (bench/ros/make_bag.py, written into
target/bench-bag the first time with rosbags and Pillow from
target/bags-venv, or BAGS_PYTHON) through ros_read's W4-like pipeline (2
workers) and, in the same rounds, its limit (`ros_read BAG --pipeline
CORES --limit`: the same reads, transforms and collates with no loader,
a thread per core), and prints `limit bags adl/limit R`.

Needs gcc and python3; PyTorch and numpy are installed with pip into
target/peer-venv the first time (about 600 MB), unless PEER_PYTHON names a
python that has them. W4's peer also needs torchvision, Pillow and
scikit-image: W4_PYTHON, else target/w4-venv (made the first time).
"""

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEER = os.path.join(ROOT, "bench", "peer")
sys.path.insert(0, PEER)
import peer_torch  # noqa: E402  (its /proc readers; it imports torch only where it runs a peer)
import release_wheels  # noqa: E402  (bench/, this script's folder)
TARGET = os.path.join(ROOT, "target")
NAMES = {"w1": "tiny", "w2": "image", "w3": "multimodal-sync", "w4": "on-disk-multimodal"}
# numpy, one thread, one call per batch (PEER.md); the W3 goal is 2x this.
NUMPY_W3 = 451e3


def sh(cmd, env=None):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env={**os.environ, **(env or {})})
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def peer_python():
    given = os.environ.get("PEER_PYTHON")
    if given:
        return given
    venv = os.path.join(TARGET, "peer-venv")
    python = os.path.join(venv, "bin", "python")
    ok = os.path.exists(python) and subprocess.run([python, "-c", "import torch, numpy"], capture_output=True).returncode == 0
    if not ok:
        print("compare: installing torch and numpy into target/peer-venv (once)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", "torch", "numpy"], check=True)
    return python


def w4_python():
    """A python with what W4's generator and PyTorch peer need."""
    given = os.environ.get("W4_PYTHON")
    if given:
        return given
    venv = os.path.join(TARGET, "w4-venv")
    python = os.path.join(venv, "bin", "python")
    check = "import torch, torchvision, numpy, PIL, skimage"
    ok = os.path.exists(python) and subprocess.run([python, "-c", check], capture_output=True).returncode == 0
    if not ok:
        print("compare: installing torch, torchvision, numpy, pillow and scikit-image into target/w4-venv (once)",
              file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", "torch", "torchvision", "numpy", "pillow",
                        "scikit-image"], check=True)
    return python


def wait_quiet(max_wait=60.0, thresh=0.10, window=2.0):
    """Wait until the machine is < thresh busy for `window` s (others may share it)."""
    def busy():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return (sum(v[:8]) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")
    end = time.time() + max_wait
    while True:
        b0 = busy()
        time.sleep(window)
        frac = (busy() - b0) / (window * (os.cpu_count() or 1))
        if frac < thresh or time.time() > end:
            return frac


def w4(rounds, data, latency_readers):
    """W4: adl local and with 20 ms of read latency, and the PyTorch peer
    with 0, 2 and 4 workers, alternating; the table."""
    python = w4_python()
    if not os.path.exists(os.path.join(data, "manifest.json")):
        print(f"compare: writing W4's dataset into {data} (once)", file=sys.stderr)
        subprocess.run([python, os.path.join(PEER, "w4", "generate.py"), data, "--force"], check=True)
    subprocess.run(["cargo", "build", "--release", "-p", "adl-bench"], cwd=ROOT, check=True)
    bench = os.path.join(TARGET, "release", "adl-bench")
    latency = ["--read-latency-ms", "20"] + (["--readers", str(latency_readers)] if latency_readers else [])
    runs, limits, per_round = {}, [], []
    for r in range(rounds):
        print(f"compare: W4 round {r + 1} of {rounds}", file=sys.stderr)
        configs = [("adl", [bench, "--workload", "w4", "--data", data]),
                   ("adl 20 ms", [bench, "--workload", "w4", "--data", data] + latency)]
        configs += [(f"torch {w}", [python, os.path.join(PEER, "w4", "peer_torch_w4.py"), data, "--single", str(w)])
                    for w in (0, 2, 4)]
        for name, cmd in configs:
            wait_quiet()
            for row in sh(cmd, {"ADL_QUIET": "1"}):
                if name.startswith("adl"):
                    release(row, name)
                warm = row.get("warm_samples_per_s", row.get("samples_per_s"))
                runs.setdefault(name, []).append((warm, row["cold_samples_per_s"]))
        cmd, env, which = limit_run("w4", data, bench, None, None)
        wait_quiet()
        for row in sh(cmd, env):
            release(row, "limit")
            limits.append(limit_rate(row, which))
        torch_round = max(runs[f"torch {w}"][-1][0] for w in (0, 2, 4))
        per_round.append(runs["adl"][-1][0] / torch_round)
    med = statistics.median
    warm = {k: med(w for w, _ in v) for k, v in runs.items()}
    cold = {k: med(c for _, c in v) for k, v in runs.items()}
    best = max((k for k in runs if k.startswith("torch")), key=lambda k: warm[k])
    best_cold = max((k for k in runs if k.startswith("torch")), key=lambda k: cold[k])
    print("| W4 | warm samples/s (runs) | cold samples/s | adl / PyTorch best | adl 20 ms / adl |")
    print("|---|---|---|---|---|")
    for k in runs:
        all_warm = ", ".join(f"{w:.0f}" for w, _ in runs[k])
        ratio = f"{warm[k] / warm[best]:.2f}x warm, {cold[k] / cold[best_cold]:.2f}x cold" if k.startswith("adl") else "-"
        lat = f"{warm[k] / warm['adl']:.2f} warm, {cold[k] / cold['adl']:.2f} cold" if k == "adl 20 ms" else "-"
        print(f"| {built(k)}{' (best)' if k == best else ''} | {warm[k]:.0f} ({all_warm}) | {cold[k]:.0f} | {ratio} | {lat} |")
    print(f"| limit, {CORES} threads, no loader [{BUILDS['limit']}] | {statistics.median(limits):.0f} "
          f"({', '.join(f'{x:.0f}' for x in limits)}) | - | - | - |")
    print()
    print(f"rounds w4 adl/torch-best {' '.join(f'{x:.2f}' for x in per_round)} (adl against the best PyTorch run "
          f"of the same round, warm)")
    print(limit_line("w4", warm["adl"], "2 workers", limits))


def bags(rounds):
    """The bench bag through ros_read's W4-like pipeline (2 workers) and its
    limit, the same work with no loader on every core, alternating."""
    python = os.environ.get("BAGS_PYTHON") or venv_python(
        "bags-venv", ["rosbags", "numpy", "pillow"], "import rosbags, numpy, PIL")
    bag = os.path.join(TARGET, "bench-bag")
    if not os.path.exists(os.path.join(bag, "metadata.yaml")):
        print(f"compare: writing the bench bag into {bag} (once)", file=sys.stderr)
        shutil.rmtree(bag, ignore_errors=True)
        subprocess.run([python, os.path.join(ROOT, "bench", "ros", "make_bag.py"), bag], check=True)
    subprocess.run(["cargo", "build", "--release", "-p", "adl-bench", "--bin", "ros_read"], cwd=ROOT, check=True)
    ros_read = os.path.join(TARGET, "release", "ros_read")
    adl, limits = [], []
    for r in range(rounds):
        print(f"compare: the bag, round {r + 1} of {rounds}", file=sys.stderr)
        wait_quiet()
        for row in sh([ros_read, bag, "--pipeline", "2"], {"ADL_QUIET": "1"}):
            release(row, "bags")
            adl.append(row["samples_per_s"])
        wait_quiet()
        for row in sh([ros_read, bag, "--pipeline", str(CORES), "--limit"], {"ADL_QUIET": "1"}):
            release(row, "limit")
            limits.append(row["samples_per_s"])
    med = statistics.median
    print("| the bench bag, W4-like pipeline | samples/s (runs) |")
    print("|---|---|")
    print(f"| {built('bags', 'adl, 2 workers')} | {med(adl):.0f} ({', '.join(f'{x:.0f}' for x in adl)}) |")
    print(f"| {built('limit', f'limit, {CORES} threads, no loader')} | {med(limits):.0f} "
          f"({', '.join(f'{x:.0f}' for x in limits)}) |")
    print()
    print(limit_line("bags", med(adl), "ros_read --pipeline 2", limits))


def monitored(cmd, env):
    """Run `cmd` as sh() does, with the peaks of its process tree's summed
    RSS and PSS (MiB) added to its JSON lines (peer_torch's readers of /proc)."""
    process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, **env})
    peak = {"rss": 0.0, "pss": 0.0}
    stop = threading.Event()

    def watch():
        tick = 0
        while not stop.is_set():
            tree = peer_torch._tree(process.pid)
            peak["rss"] = max(peak["rss"], sum(peer_torch._vmrss_mb(q) for q in tree))
            # PSS costs ~15 ms a read for a process with torch mapped:
            # every tick for the first 2 s (adl's runs are shorter), then
            # every second.
            if tick < 20 or tick % 10 == 0:
                peak["pss"] = max(peak["pss"], sum(peer_torch._pss_rss_mb(q)[0] for q in tree))
            tick += 1
            stop.wait(0.1)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    out, err = process.communicate()
    stop.set()
    watcher.join()
    if process.returncode != 0:
        raise RuntimeError(f"{cmd} failed ({process.returncode}): {err[-2000:]}")
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    for row in rows:
        # A run's own high-water mark where it reports one (between samples).
        own = row.get("peak_rss_mb", 0.0)
        row["peak_rss_tree_mb"], row["peak_pss_tree_mb"] = max(peak["rss"], own), peak["pss"]
    return rows


def w2_python(rounds):
    """W2 from Rust and through Python, beside the PyTorch peer."""
    adl = adl_python()
    subprocess.run(["cargo", "build", "--release", "-p", "adl-bench"], cwd=ROOT, check=True)
    bench = os.path.join(TARGET, "release", "adl-bench")
    python = peer_python()
    runs, rss, pss = {}, {}, {}
    bench_w2 = os.path.join(ROOT, "bench", "python", "bench_w2.py")
    for r in range(rounds):
        print(f"compare: W2 through Python, round {r + 1} of {rounds}", file=sys.stderr)
        configs = [("adl, Rust", [bench, "--workload", "w2", "--workers", "2"]),
                   ("adl, Python", [adl, bench_w2, "--workers", "2"]),
                   ("adl, Python, 4 workers", [adl, bench_w2, "--workers", "4"])]
        configs += [(f"PyTorch, {w} workers", [python, os.path.join(PEER, "peer_torch.py"), "--single", "image", str(w)])
                    for w in (0, 2, 4)]
        for name, cmd in configs:
            wait_quiet()
            for row in monitored(cmd, {"ADL_QUIET": "1"}):
                if name.startswith("adl"):
                    release(row, name)
                runs.setdefault(name, []).append(row.get("warm_samples_per_s", row.get("samples_per_s")))
                rss.setdefault(name, []).append(row["peak_rss_tree_mb"])
                pss.setdefault(name, []).append(row["peak_pss_tree_mb"])
    med = {k: statistics.median(v) for k, v in runs.items()}
    best = max((k for k in med if k.startswith("PyTorch")), key=lambda k: med[k])
    print("| W2 | warm samples/s (runs) | against | peak RSS, summed (MiB) | peak PSS, summed (MiB) |")
    print("|---|---|---|---|---|")
    for k, v in runs.items():
        against = "-"
        if k == "adl, Python":
            against = f"{med[k] / med['adl, Rust']:.2f}x of Rust, {med[k] / med[best]:.1f}x of {best}"
        print(f"| {built(k)}{' (best)' if k == best else ''} | {med[k] / 1e3:.0f} k ({', '.join(f'{x / 1e3:.0f}' for x in v)}) "
              f"| {against} | {statistics.median(rss[k]):.0f} | {statistics.median(pss[k]):.0f} |")

# ---------------------------------------------------------------- the peers (issue 33)
PEERS_PACKAGES = ["torch", "torchvision", "numpy", "pillow", "scikit-image", "spdl", "grain", "torchdata"]


def venv_python(name, packages, check, base=sys.executable):
    """A venv under target/ (made once) with `packages`; `check` imports them."""
    venv = os.path.join(TARGET, name)
    python = os.path.join(venv, "bin", "python")
    ok = os.path.exists(python) and subprocess.run([python, "-c", check], capture_output=True).returncode == 0
    if not ok:
        print(f"compare: installing {', '.join(packages)} into target/{name} (once)", file=sys.stderr)
        subprocess.run([base, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", *packages], check=True)
    return python


def python313():
    """A Python 3.13 or later to make dataloader-rs's venv from, or None."""
    found = [shutil.which(f"python3.{m}") for m in (15, 14, 13)]
    found += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[3-9]*/bin/python3")), reverse=True)
    for python in filter(None, found):
        if subprocess.run([python, "-c", "import sys; assert sys.version_info >= (3, 13)"],
                          capture_output=True).returncode == 0:
            return python
    return None


def adl_python():
    """The python that runs adl from Python: ADL_PYTHON where set, else
    target/bench-venv, into which this builds and installs release wheels
    of adl (adl-python) and adl_bench (bench/python) every run, so that it
    measures the sources as they are. Never target/python-venv: the test
    command installs a debug build there, 5x slower (issue 44). Exits
    unless both modules say `BUILD == "release"`."""
    python = os.environ.get("ADL_PYTHON")
    if not python:
        venv = os.path.join(TARGET, "bench-venv")
        python = os.path.join(venv, "bin", "python")
        if subprocess.run([python, "-c", "import numpy, maturin"], capture_output=True).returncode != 0 \
                if os.path.exists(python) else True:
            print("compare: making target/bench-venv with numpy and maturin (once)", file=sys.stderr)
            subprocess.run([sys.executable, "-m", "venv", venv], check=True)
            subprocess.run([python, "-m", "pip", "install", "-q", "numpy", "maturin>=1.9,<2"], check=True)
        release_wheels.install(python, ["adl-python", os.path.join("bench", "python")],
                               os.path.join(TARGET, "bench-wheels"))
    builds = subprocess.run([python, "-c", "import adl, adl_bench; print(adl.BUILD, adl_bench.BUILD)"],
                            capture_output=True, text=True)
    if builds.returncode != 0 or builds.stdout.split() != ["release", "release"]:
        sys.exit(f"compare: {python} has no release builds of adl and adl_bench "
                 f"({builds.stdout.strip() or builds.stderr.strip()[-300:]}); unset ADL_PYTHON to build them")
    return python


BUILDS = {}


def release(row, what):
    """Checks that `row` came from a release build (a benchmark of a debug
    build is no figure of adl's) and records it for `built(what)`."""
    build = row.get("build")
    if build != "release":
        sys.exit(f"compare: {what} ran a {build or 'unnamed'} build, not a release one")
    BUILDS[what] = build


def c_limit():
    """bench/peer/limit_c.c compiled into target/limit_c: W1's and W2's
    limit (the same work in one fused C loop per thread, no loader)."""
    limit = os.path.join(TARGET, "limit_c")
    subprocess.run(["gcc", "-O3", "-march=native", "-ffp-contract=off", "-fopenmp",
                    os.path.join(PEER, "limit_c.c"), "-o", limit], check=True)
    return limit


CORES = os.cpu_count() or 1


def limit_run(workload, data, bench, python, limit_c):
    """(command, env, what its rows are) of `workload`'s limit on all the
    machine's cores (issue 44): W1, W2: the C loop (its row named by the
    workload's name); W4: adl-bench --limit (the work with no loader);
    W6: w6.py --limit (the plain Python loop, a process per core)."""
    if workload in ("w1", "w2"):
        return [limit_c], {"OMP_NUM_THREADS": str(CORES)}, NAMES[workload]
    if workload == "w4":
        return [bench, "--workload", "w4", "--data", data, "--limit", "--workers", str(CORES)], {}, "w4"
    if workload == "w6":
        return [python, os.path.join(PEER, "w6.py"), "--limit", str(CORES)], {}, "w6"
    return None


def limit_rate(row, workload_name):
    """A limit run's row's samples/s, where the row is `workload_name`'s."""
    if row.get("workload") != workload_name:
        return None
    return row.get("warm_samples_per_s", row.get("samples_per_s"))


def limit_line(workload, adl_rate, adl_what, limits):
    """The closing line `limit WORKLOAD adl/limit R` (issue 44)."""
    lim = statistics.median(limits)
    return (f"limit {workload} adl/limit {adl_rate / lim:.2f} (adl: {adl_what}, {adl_rate:.0f}/s; "
            f"limit on {CORES} cores: {lim:.0f}/s, runs {', '.join(f'{x:.0f}' for x in limits)})")


def built(what, label=None):
    """A table's label for the runs `what`: with their build, where adl's."""
    label = label or what
    return f"{label} [{BUILDS[what]}]" if what in BUILDS else label


def peer_runs(workload, data, pythons, bench):
    """(name, command) of every run of `workload`: adl's and each peer's
    settings."""
    peers = os.path.join(PEER, "peers.py")
    adl, main, dlrs = pythons["adl"], pythons["peers"], pythons.get("dataloader-rs")
    runs = []
    if workload == "w2":
        runs += [(f"adl, {w} threads", [adl, os.path.join(ROOT, "bench", "python", "bench_w2.py"), "--workers", str(w)])
                 for w in (2, 4)]
    elif workload == "w4":
        runs += [(f"adl, {w} threads", [bench, "--workload", "w4", "--data", data, "--workers", str(w)]) for w in (2, 4)]
    else:
        runs.append(("adl, 0 workers", [adl, peers, "--peer", "adl", "--workload", "w6", "--workers", "0"]))
        runs += [(f"adl, {w} processes", [adl, peers, "--peer", "adl", "--workload", "w6", "--workers", str(w),
                                          "--mode", "process"]) for w in (2, 4)]
    settings = [("torch", "process", (0, 2, 4)), ("grain", "process", (0, 2, 4)),
                ("spdl", "thread", (0, 2, 4)), ("spdl", "process", (2, 4)),
                ("torchdata", "thread", (0, 2, 4)), ("torchdata", "process", (2, 4))]
    if dlrs:
        settings.append(("dataloader-rs", "thread", (0, 2, 4)))
    for peer, mode, counts in settings:
        python = dlrs if peer == "dataloader-rs" else main
        for w in counts:
            kind = "workers" if w == 0 else f"{mode}{'es' if mode == 'process' else 's'}"
            runs.append((f"{peer}, {w} {kind}", [python, peers, "--peer", peer, "--workload", workload,
                                                 "--workers", str(w), "--mode", mode, "--data", data]))
    return runs


def peers_verify(workload, pythons):
    """Each loader's digest of `workload` (2 workers) against the plain
    loop's: {peer: True/False}."""
    peers = os.path.join(PEER, "peers.py")
    out = {}
    for peer in ("adl", "torch", "grain", "spdl", "torchdata", "dataloader-rs"):
        python = pythons["dataloader-rs" if peer == "dataloader-rs" else ("adl" if peer == "adl" else "peers")]
        if python is None:
            continue
        mode = ["--mode", "process"] if peer == "adl" else []
        for row in sh([python, peers, "--peer", peer, "--workload", workload, "--workers", "2", "--verify", *mode]):
            out[peer] = row["digest"] == row["reference"]
    return out


def peers(workloads, rounds, data):
    """Every peer beside adl, alternating, per workload; the table and the
    ratio lines."""
    pythons = {"adl": adl_python(),
               "peers": os.environ.get("PEERS_PYTHON") or venv_python(
                   "peers-venv", PEERS_PACKAGES, "import torch, torchvision, numpy, PIL, spdl, grain, torchdata")}
    base = os.environ.get("DLRS_PYTHON") or python313()
    if base is None:
        print("compare: dataloader-rs left out: its wheels need Python 3.13 or later, and none is on the PATH "
              "(set DLRS_PYTHON)", file=sys.stderr)
    elif os.environ.get("DLRS_PYTHON"):
        pythons["dataloader-rs"] = base
    else:
        pythons["dataloader-rs"] = venv_python("peers-venv-313", ["dataloader-rs", "numpy", "pillow"],
                                               "import dataloader_rs, numpy, PIL", base=base)
    subprocess.run(["cargo", "build", "--release", "-p", "adl-bench"], cwd=ROOT, check=True)
    bench = os.path.join(TARGET, "release", "adl-bench")
    if "w4" in workloads and not os.path.exists(os.path.join(data, "manifest.json")):
        print(f"compare: writing W4's dataset into {data} (once)", file=sys.stderr)
        subprocess.run([pythons["peers"], os.path.join(PEER, "w4", "generate.py"), data, "--force"], check=True)
    verified = {w: peers_verify(w, pythons) for w in workloads if w in ("w2", "w6")}
    limit_c = c_limit() if "w2" in workloads else None
    runs, pss, limits = {}, {}, {}
    for r in range(rounds):
        for w in workloads:
            print(f"compare: peers, {w}, round {r + 1} of {rounds}", file=sys.stderr)
            run = limit_run(w, data, bench, pythons["adl"], limit_c)
            if run:
                cmd, env, which = run
                wait_quiet()
                for row in sh(cmd, env):
                    if w == "w4":
                        release(row, f"{w}: limit")
                    rate = limit_rate(row, which)
                    if rate is not None:
                        limits.setdefault(w, []).append(rate)
            for name, cmd in peer_runs(w, data, pythons, bench):
                wait_quiet()
                for row in monitored(cmd, {"ADL_QUIET": "1"}):
                    if name.startswith("adl"):
                        release(row, f"{w}: {name}")
                    warm = row.get("warm_samples_per_s", row.get("samples_per_s"))
                    if warm is not None:
                        runs.setdefault((w, name), []).append(warm)
                        pss.setdefault((w, name), []).append(row["peak_pss_tree_mb"])
    med = statistics.median
    lines, limit_lines = [], []
    for w in workloads:
        keys = [k for k in runs if k[0] == w]
        print(f"\n| {w} | warm samples/s (runs) | peak PSS, summed (MiB) | digest |")
        print("|---|---|---|---|")
        for k in keys:
            peer = k[1].split(",")[0]
            digest = {True: "same", False: "DIFFERS"}.get(verified.get(w, {}).get(peer), "-")
            print(f"| {built(f'{w}: {k[1]}', k[1])} | {med(runs[k]):.0f} ({', '.join(f'{x:.0f}' for x in runs[k])}) "
                  f"| {med(pss[k]):.0f} | {digest} |")
        best = {}
        for k in keys:
            peer = k[1].split(",")[0]
            if med(runs[k]) > best.get(peer, (0, ""))[0]:
                best[peer] = (med(runs[k]), k[1])
        adl_best = best.pop("adl", (0, "-"))
        if w in limits:
            print(f"| limit, {CORES} cores, no loader{' [release]' if w == 'w4' else ''} | "
                  f"{med(limits[w]):.0f} ({', '.join(f'{x:.0f}' for x in limits[w])}) | - | - |")
            limit_lines.append(limit_line(w, adl_best[0], adl_best[1], limits[w]))
        if best:
            peer, (value, setting) = max(best.items(), key=lambda kv: kv[1][0])
            torch_best = best.get("torch", (float("nan"), "-"))
            lines.append(f"ratio {w} adl/best-peer {adl_best[0] / value:.2f} {peer} "
                         f"(adl: {adl_best[1]}, {adl_best[0]:.0f}/s; {setting}, {value:.0f}/s; "
                         f"adl/torch-best {adl_best[0] / torch_best[0]:.2f})")
    print()
    for line in lines + limit_lines:
        print(line)



def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workloads", default="w1,w2,w3")
    ap.add_argument("--w4-data", default=os.path.join(TARGET, "w4-data"), help="W4's dataset (target/w4-data)")
    ap.add_argument("--latency-readers", type=int, default=0,
                    help="W4 with 20 ms of latency: the read stage's threads (the loader's default)")
    ap.add_argument("--peers", action="store_true",
                    help="adl beside PyTorch, Grain, SPDL, torchdata and dataloader-rs (W2, W4, W6)")
    args = ap.parse_args()
    if args.peers:
        given = [a for a in sys.argv if a.startswith("--workloads")]
        workloads = args.workloads.split(",") if given else ["w2", "w4", "w6"]
        peers(workloads, args.rounds, args.w4_data)
        return
    workloads = args.workloads.split(",")
    if "w2-python" in workloads:
        w2_python(args.rounds)
        workloads.remove("w2-python")
        if not workloads:
            return
    if "rover" in workloads:
        # roverd's format (issue 30): bench/rover/compare_rover.py.
        sys.path.insert(0, os.path.join(ROOT, "bench", "rover"))
        import compare_rover
        compare_rover.run(args.rounds, monitored, wait_quiet)
        workloads.remove("rover")
        if not workloads:
            return
    if "lerobot" in workloads:
        # LeRobot datasets (issue 41): bench/lerobot/compare_lerobot.py.
        sys.path.insert(0, os.path.join(ROOT, "bench", "lerobot"))
        import compare_lerobot
        compare_lerobot.run(args.rounds, monitored, wait_quiet)
        workloads.remove("lerobot")
        if not workloads:
            return
    if "bags" in workloads:
        bags(args.rounds)
        workloads.remove("bags")
        if not workloads:
            return
    if "w4" in workloads:
        w4(args.rounds, args.w4_data, args.latency_readers)
        workloads.remove("w4")
        if not workloads:
            return

    python = peer_python()
    subprocess.run(["cargo", "build", "--release", "-p", "adl-bench"], cwd=ROOT, check=True)
    bench = os.path.join(TARGET, "release", "adl-bench")
    limit = c_limit()

    adl, torch, c, device = {}, {}, {}, {}
    # The same passes over the data on both sides: adl's epochs 3 to 5
    # (`--later-epochs 3`) beside the C loop's headline (its 3rd to 5th
    # passes), and the C loop's 2nd pass beside adl's warm epoch.
    adl_later, c_warm = {}, {}
    # Whether POCL's CPU device is there to run W2's kernels as OpenCL too.
    pocl = subprocess.run([bench, "--workload", "w2", "--samples", "64", "--device", "pocl"],
                          capture_output=True, env={**os.environ, "ADL_QUIET": "1"}).returncode == 0
    for r in range(args.rounds):
        print(f"compare: round {r + 1} of {args.rounds}", file=sys.stderr)
        for w in workloads:
            # W1 and W2 run 3 more epochs, timed: the passes over the data
            # that the C loop's headline times (see below).
            later = ["--later-epochs", "3"] if w in ("w1", "w2") else []
            for row in sh([bench, "--workload", w, "--workers", "2", *later], {"ADL_QUIET": "1"}):
                release(row, w)
                adl.setdefault(w, []).append(row["warm_samples_per_s"])
                if "later_samples_per_s" in row:
                    adl_later.setdefault(w, []).append(row["later_samples_per_s"])
                device[w] = row["device"]
            if w == "w2" and pocl:
                # The batch kernels as OpenCL kernels on POCL's CPU device
                # too (named: a CPU device is never the default).
                for row in sh([bench, "--workload", w, "--workers", "2", "--device", "pocl"], {"ADL_QUIET": "1"}):
                    adl.setdefault("w2 pocl", []).append(row["warm_samples_per_s"])
            for workers in (0, 2):
                for row in sh([python, os.path.join(PEER, "peer_torch.py"), "--single", NAMES[w], str(workers)]):
                    torch.setdefault((w, workers), []).append(row["samples_per_s"])
        if {"w1", "w2"} & set(workloads):
            for row in sh([limit], {"OMP_NUM_THREADS": str(CORES)}):
                for w, name in NAMES.items():
                    if row.get("workload") == name:
                        c.setdefault(w, []).append(row["samples_per_s"])
                        c_warm.setdefault(w, []).append(row["warm_samples_per_s"])

    med = statistics.median
    def fmt(x):
        return f"{x / 1e6:.2f} M" if x >= 1e6 else f"{x / 1e3:.0f} k"
    print("| workload | adl, 2 workers | PyTorch, 0 / 2 workers | C limit, all cores | adl / C | adl / PyTorch best | adl / numpy |")
    print("|---|---|---|---|---|---|---|")
    rows = [(w, w) for w in workloads]
    if "w2" in workloads and pocl:
        rows.insert(rows.index(("w2", "w2")) + 1, ("w2 pocl", "w2"))
    for key, w in rows:
        a = med(adl[key])
        label = f"{w} (kernels: {'OpenCL on POCL' if key.endswith('pocl') else device.get(w, 'rust')})" if w == "w2" else w
        label = built(w, label)
        t0, t2 = med(torch[(w, 0)]), med(torch[(w, 2)])
        lim = med(c[w]) if w in c else None
        print(f"| {label} | {fmt(a)}/s | {fmt(t0)}/s / {fmt(t2)}/s | "
              f"{fmt(lim) + '/s' if lim else '-'} | {f'{a / lim:.2f}' if lim else '-'} | "
              f"{a / max(t0, t2):.1f}x | {f'{a / NUMPY_W3:.2f}x' if w == 'w3' else '-'} |")
    print()
    if c:
        print("The same passes over the data (medians of the rounds): the protocol's warm epoch (the 2nd pass) beside")
        print("the C loop's 2nd pass, and adl's epochs 3 to 5 beside the C loop's headline (its 3rd to 5th passes):")
        print()
        print("| workload | adl, 2nd pass | C, 2nd pass | ratio | adl, passes 3-5 | C, passes 3-5 | ratio |")
        print("|---|---|---|---|---|---|---|")
        for w in workloads:
            if w in c:
                a2, c2 = med(adl[w]), med(c_warm[w])
                a3, c3 = med(adl_later[w]), med(c[w])
                print(f"| {w} | {fmt(a2)}/s | {fmt(c2)}/s | {a2 / c2:.2f} | {fmt(a3)}/s | {fmt(c3)}/s | {a3 / c3:.2f} |")
        print()
    for w in workloads:
        if w in c:
            # adl at the passes the C loop's headline times.
            print(limit_line(w, med(adl_later[w]), "adl-bench, 2 workers, epochs 3 to 5", c[w]))


if __name__ == "__main__":
    main()
