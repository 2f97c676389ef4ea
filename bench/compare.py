#!/usr/bin/env python3
"""Run adl's benchmark beside PyTorch's DataLoader and the compiled-C limit,
alternately in one session, and print the ratios (the machine is noisy:
only figures taken together compare).

    python3 bench/compare.py [--rounds 3] [--workloads w1,w2,w3]

Each round runs, for every workload, adl (2 workers), the PyTorch peer (0
and 2 workers) and, for W1 and W2, the C limit (2 threads), each in a fresh
process. The table gives the median warm-epoch samples/s of each and the
ratios the goals are stated in (issue 9): adl / C limit, adl / PyTorch's
best, and for W3 adl / numpy's figure of PEER.md.

Needs gcc and python3; PyTorch and numpy are installed with pip into
target/peer-venv the first time (about 600 MB), unless PEER_PYTHON names a
python that has them.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEER = os.path.join(ROOT, "bench", "peer")
TARGET = os.path.join(ROOT, "target")
NAMES = {"w1": "tiny", "w2": "image", "w3": "multimodal-sync"}
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workloads", default="w1,w2,w3")
    args = ap.parse_args()
    workloads = args.workloads.split(",")

    python = peer_python()
    subprocess.run(["cargo", "build", "--release", "-p", "adl-bench"], cwd=ROOT, check=True)
    bench = os.path.join(TARGET, "release", "adl-bench")
    limit = os.path.join(TARGET, "limit_c")
    subprocess.run(["gcc", "-O3", "-march=native", "-ffp-contract=off", "-fopenmp",
                    os.path.join(PEER, "limit_c.c"), "-o", limit], check=True)

    adl, torch, c, device = {}, {}, {}, {}
    # Whether POCL's CPU device is there to run W2's kernels as OpenCL too.
    pocl = subprocess.run([bench, "--workload", "w2", "--samples", "64", "--device", "pocl"],
                          capture_output=True, env={**os.environ, "ADL_QUIET": "1"}).returncode == 0
    for r in range(args.rounds):
        print(f"compare: round {r + 1} of {args.rounds}", file=sys.stderr)
        for w in workloads:
            for row in sh([bench, "--workload", w, "--workers", "2"], {"ADL_QUIET": "1"}):
                adl.setdefault(w, []).append(row["warm_samples_per_s"])
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
            for row in sh([limit], {"OMP_NUM_THREADS": "2"}):
                for w, name in NAMES.items():
                    if row.get("workload") == name:
                        c.setdefault(w, []).append(row["samples_per_s"])

    med = statistics.median
    def fmt(x):
        return f"{x / 1e6:.2f} M" if x >= 1e6 else f"{x / 1e3:.0f} k"
    print("| workload | adl, 2 workers | PyTorch, 0 / 2 workers | C limit, 2 threads | adl / C | adl / PyTorch best | adl / numpy |")
    print("|---|---|---|---|---|---|---|")
    rows = [(w, w) for w in workloads]
    if "w2" in workloads and pocl:
        rows.insert(rows.index(("w2", "w2")) + 1, ("w2 pocl", "w2"))
    for key, w in rows:
        a = med(adl[key])
        label = f"{w} (kernels: {'OpenCL on POCL' if key.endswith('pocl') else device.get(w, 'rust')})" if w == "w2" else w
        t0, t2 = med(torch[(w, 0)]), med(torch[(w, 2)])
        lim = med(c[w]) if w in c else None
        print(f"| {label} | {fmt(a)}/s | {fmt(t0)}/s / {fmt(t2)}/s | "
              f"{fmt(lim) + '/s' if lim else '-'} | {f'{a / lim:.2f}' if lim else '-'} | "
              f"{a / max(t0, t2):.1f}x | {f'{a / NUMPY_W3:.2f}x' if w == 'w3' else '-'} |")


if __name__ == "__main__":
    main()
