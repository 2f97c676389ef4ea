"""The W4 timing protocol, verify mode and command line, shared by the peers.

A peer module gives `make_loader(root, workers, verify) -> DataLoader`,
`count(batch) -> samples in it` and `to_fields(batch) -> dict of numpy
arrays` (W4's output fields), then calls
`main(peer_name, __file__, make_loader, count, to_fields, __doc__)`. See bench/W4.md
("Timing protocol", "Verify") for what is measured and printed.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time

import numpy as np

import w4

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from peer_torch import _cpu_busy_s, _tree, _vmrss_mb, wait_quiet  # noqa: E402  (bench/peer/peer_torch.py)

DEFAULT_WORKERS = "0,2,4"


# ---------------------------------------------------------------- the sample order
def fixed_order_sampler(n: int):
    """WORKLOADS.md's epoch-0 permutation as a torch Sampler (both epochs use it)."""
    from torch.utils.data import Sampler

    class FixedOrder(Sampler):
        def __init__(self, order):
            self.order = [int(i) for i in order]

        def __iter__(self):
            return iter(self.order)

        def __len__(self):
            return len(self.order)

    return FixedOrder(w4.wl.permutation(n, 0))


def loader_options(n: int, workers: int) -> dict:
    """The DataLoader settings both peers use (PyTorch defaults unless said):
    batches of 32 in the spec's order, drop_last=False, pin_memory=False (no
    GPU), prefetch_factor=2, persistent workers (epoch 1 reuses them)."""
    kw = dict(batch_size=w4.BATCH, sampler=fixed_order_sampler(n), num_workers=workers, drop_last=False,
              pin_memory=False, persistent_workers=workers > 0)
    if workers > 0:
        kw["prefetch_factor"] = 2
    return kw


# ---------------------------------------------------------------- page cache
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long)
_libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_ubyte))
_libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
_PAGE = os.sysconf("SC_PAGE_SIZE")


def resident_fraction(files: list[str]) -> float:
    """The fraction of the files' pages that are in the page cache (mincore)."""
    total = resident = 0
    for path in files:
        size = os.path.getsize(path)
        if size == 0:
            continue
        pages = (size + _PAGE - 1) // _PAGE
        fd = os.open(path, os.O_RDONLY)
        try:
            addr = _libc.mmap(None, size, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
            if addr in (None, ctypes.c_void_p(-1).value):
                raise OSError(ctypes.get_errno(), f"mmap of {path} failed")
            vec = (ctypes.c_ubyte * pages)()
            ok = _libc.mincore(addr, size, vec) == 0
            _libc.munmap(addr, size)
            if not ok:
                raise OSError(ctypes.get_errno(), f"mincore of {path} failed")
        finally:
            os.close(fd)
        total += pages
        resident += sum(v & 1 for v in bytes(vec))
    return resident / total if total else 0.0


def evict(files: list[str], method: str) -> str:
    """Take the dataset's files out of the page cache. `drop_caches` empties
    the whole cache (root only; falls back to `fadvise` when refused);
    `fadvise` drops just these files' pages (POSIX_FADV_DONTNEED, after an
    fsync so that none is dirty), which needs no privilege and leaves other
    users of the machine alone. Returns the method used."""
    if method == "drop_caches":
        os.sync()
        try:
            with open("/proc/sys/vm/drop_caches", "w") as f:
                f.write("3\n")
            return "drop_caches"
        except OSError as e:
            method = f"fadvise (drop_caches refused: {e.strerror})"
    for path in files:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    return method


# ---------------------------------------------------------------- one run (child process)
def epoch(loader, count):
    """(samples, batches, wall s from asking for the first batch to receiving
    the last, first-batch s). The consumer only counts each batch's samples."""
    n = nb = 0
    t0 = time.perf_counter()
    first = None
    for b in loader:
        n += count(b)
        nb += 1
        if first is None:
            first = time.perf_counter() - t0
    return n, nb, time.perf_counter() - t0, first


def single(peer, root, workers, cold, make_loader, count):
    """One fresh-process run: build the loader (not timed), take the dataset
    out of the page cache (unless cold == "none"), epoch 0 ("cold": empty
    cache, worker start-up), epoch 1 ("warm", the headline), same order."""
    import torch
    from PIL import features

    t = time.perf_counter()
    loader = make_loader(root, workers, verify=False)
    setup_s = time.perf_counter() - t
    files = w4.dataset_files(root)
    used, resident = "none", resident_fraction(files)
    if cold != "none":
        used = evict(files, cold)
        resident = resident_fraction(files)
    cn, _, cwall, cfirst = epoch(loader, count)
    n, nb, wall, _ = epoch(loader, count)
    pids = [os.getpid()]
    it = getattr(loader, "_iterator", None)
    if it is not None and getattr(it, "_workers", None):
        pids += [wp.pid for wp in it._workers]
    print(json.dumps({
        "workload": w4.WORKLOAD, "peer": peer, "num_workers": workers, "samples": n, "batches": nb,
        "wall_s": round(wall, 4), "samples_per_s": round(n / wall, 1),
        "cold_samples_per_s": round(cn / cwall, 1), "cold_wall_s": round(cwall, 4),
        "cold_first_batch_s": round(cfirst, 4), "cache_eviction": used,
        "resident_before_cold": round(resident, 4), "setup_s": round(setup_s, 3),
        "rss_end_total_mb": round(sum(_vmrss_mb(p) for p in pids), 1),
        "torch": torch.__version__, "torch_threads": torch.get_num_threads(),
        "pillow_libjpeg_turbo": features.version("libjpeg_turbo"),
    }), flush=True)


# ---------------------------------------------------------------- driver (parent)
def run_child(script, root, workers, cold):
    cmd = [sys.executable, script, root, "--single", str(workers), "--cold", cold]
    ru0, me0 = resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(resource.RUSAGE_SELF)
    busy0, t0 = _cpu_busy_s(), time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = {"rss": 0.0}
    stop = threading.Event()

    def monitor():  # summed RSS of the run's process tree, every 100 ms
        while not stop.is_set():
            peak["rss"] = max(peak["rss"], sum(_vmrss_mb(q) for q in _tree(p.pid)))
            stop.wait(0.1)

    th = threading.Thread(target=monitor, daemon=True)
    th.start()
    out, err = p.communicate()
    stop.set()
    th.join()
    if p.returncode != 0:
        raise SystemExit(f"run failed (rc {p.returncode}): {' '.join(cmd)}\n{err[-3000:]}")
    wall = time.time() - t0
    ru1, me1 = resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(resource.RUSAGE_SELF)
    ours = (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime)
    mine = (me1.ru_utime + me1.ru_stime) - (me0.ru_utime + me0.ru_stime)
    res = json.loads(out.strip().splitlines()[-1])
    res["peak_rss_total_mb"] = round(peak["rss"], 1)
    # CPU used by anything else on the machine during the run (other sessions
    # share it), as a fraction of all cores: > 0.1 = a disturbed run
    foreign = max(0.0, (_cpu_busy_s() - busy0) - ours - mine)
    res["foreign_cpu_frac"] = round(foreign / (wall * (os.cpu_count() or 1)), 3)
    return res


def driver(peer, script, root, workers_list, reps, cold, raw, quiet_wait):
    """reps rounds, each running every worker count once (so configurations
    alternate), each run a fresh process (re-run up to twice when more than
    10% of the machine was busy with other work); medians per worker count,
    then the best."""
    runs = {w: [] for w in workers_list}
    for _ in range(reps):
        for w in workers_list:
            best = None
            for attempt in range(3):  # re-run a run disturbed by other load, keep the least disturbed
                busy = wait_quiet(max_wait=quiet_wait)
                r = run_child(script, root, w, cold)
                r.update(busy_before=busy, attempt=attempt)
                if best is None or r["foreign_cpu_frac"] < best["foreign_cpu_frac"]:
                    best = r
                if r["foreign_cpu_frac"] <= 0.1:
                    break
            runs[w].append(best)
            if raw:
                print(json.dumps({"raw": True, **best}), flush=True)
    summaries = []
    for w, rs in runs.items():
        med = lambda k: statistics.median(r[k] for r in rs)  # noqa: E731
        s = {"workload": w4.WORKLOAD, "peer": peer, "num_workers": w, "reps": reps,
             "samples": rs[0]["samples"], "batches": rs[0]["batches"],
             "samples_per_s": med("samples_per_s"), "cold_samples_per_s": med("cold_samples_per_s"),
             "cold_first_batch_s": med("cold_first_batch_s"),
             "samples_per_s_all": [r["samples_per_s"] for r in rs],
             "cold_samples_per_s_all": [r["cold_samples_per_s"] for r in rs],
             "cache_eviction": rs[0]["cache_eviction"],
             "resident_before_cold_max": max(r["resident_before_cold"] for r in rs),
             "peak_rss_total_mb": med("peak_rss_total_mb"),
             "foreign_cpu_frac_max": max(r["foreign_cpu_frac"] for r in rs),
             "busy_before_max": max(r["busy_before"] for r in rs),
             "torch": rs[0]["torch"], "pillow_libjpeg_turbo": rs[0]["pillow_libjpeg_turbo"]}
        summaries.append(s)
        print(json.dumps(s), flush=True)
    best = max(summaries, key=lambda s: s["samples_per_s"])
    best_cold = max(summaries, key=lambda s: s["cold_samples_per_s"])
    print(json.dumps({"workload": w4.WORKLOAD, "peer": peer, "best": True,
                      "num_workers": best["num_workers"], "samples_per_s": best["samples_per_s"],
                      "cold_num_workers": best_cold["num_workers"],
                      "cold_samples_per_s": best_cold["cold_samples_per_s"]}), flush=True)


# ---------------------------------------------------------------- verify
def verify(peer, root, workers_list, out_dir, make_loader, to_fields):
    """Digest epoch 0 through the peer's DataLoader (verify mode: center
    transform, no flip) for each worker count, and check it against the plain
    reference loop of w4.py: the exact digests, the Pillow image digest and
    every batch's uint8 pixel sum must all be equal."""
    ref = w4.reference_verify(root).result()
    print(json.dumps({"workload": w4.WORKLOAD, "peer": "reference", **ref}), flush=True)
    ok_all = True
    for w in workers_list:
        dg = w4.VerifyDigest()
        for b in make_loader(root, w, verify=True):
            dg.add(to_fields(b))
        res = dg.result()
        ok = res == ref
        ok_all &= ok
        print(json.dumps({"workload": w4.WORKLOAD, "peer": peer, "num_workers": w, **res,
                          "matches_reference": ok}), flush=True)
        if out_dir:
            os.makedirs(out_dir, exist_ok=True)
            np.save(os.path.join(out_dir, f"w4_first_batch_image_u8_{peer}.npy"), dg.first_u8)
    if not ok_all:
        raise SystemExit(1)


# ---------------------------------------------------------------- command line
def main(peer, script, make_loader, count, to_fields, doc):
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data_dir", help="a dataset written by generate.py")
    ap.add_argument("--workers", default=DEFAULT_WORKERS, help=f"worker counts (default {DEFAULT_WORKERS})")
    ap.add_argument("--reps", type=int, default=3, help="fresh-process runs per worker count (default 3)")
    ap.add_argument("--cold", choices=["fadvise", "drop_caches", "none"], default="fadvise",
                    help="how epoch 0 starts with the dataset out of the page cache (default fadvise)")
    ap.add_argument("--raw", action="store_true", help="also print every run")
    ap.add_argument("--quiet-wait", type=float, default=60, metavar="S",
                    help="before each run, wait up to S s for the machine to be < 10%% busy (default 60)")
    ap.add_argument("--verify", action="store_true", help="digests instead of timing")
    ap.add_argument("--verify-out", metavar="DIR", help="with --verify: write the first batch's uint8 images here")
    ap.add_argument("--single", type=int, metavar="WORKERS", help="one run in this process (used by the driver)")
    a = ap.parse_args()
    import torch

    # One intra-op thread, as the DataLoader sets in its workers: in the main
    # process (0 workers) torch's default of one thread per core made each
    # elementwise op on an image ~10x slower on a busy 2-core machine.
    torch.set_num_threads(1)
    try:
        workers_list = [int(x) for x in a.workers.split(",")]
    except ValueError:
        raise SystemExit(f"{peer}: --workers is a comma-separated list of counts, got {a.workers!r}") from None
    try:
        w4.trace_names(a.data_dir)
        if a.single is not None:
            single(peer, a.data_dir, a.single, a.cold, make_loader, count)
        elif a.verify:
            verify(peer, a.data_dir, workers_list, a.verify_out, make_loader, to_fields)
        else:
            driver(peer, os.path.abspath(script), a.data_dir, workers_list, a.reps, a.cold, a.raw, a.quiet_wait)
    except w4.LayoutError as e:
        # from a DataLoader worker the message carries the worker's traceback: keep its last line
        msg = str(e).strip().splitlines()[-1].removeprefix("w4.LayoutError: ")
        raise SystemExit(f"{peer}: bad W4 dataset: {msg}") from None
