"""A limit's plain loops (issue 44): a workload's work done with no
loader, in one process per core at once, each over its share of the
batches, started together; the second of two passes timed, the
processes' rates summed. W6's limit (w6.py) and roverd's
(bench/rover/run_adl.py) are measured so."""

from __future__ import annotations

import multiprocessing
import time


def timed_twice(work, barrier, results) -> None:
    """In one process: ``work()`` (which returns the samples it made)
    twice, each pass started with the other processes' at ``barrier``; the
    second pass's samples and seconds put on ``results``."""
    for timed in (False, True):
        barrier.wait()
        start = time.perf_counter()
        samples = work()
        if timed:
            results.put((samples, time.perf_counter() - start))


def run(target, args: tuple, processes: int, start_method: str) -> dict:
    """``target(*args, rank, processes, barrier, results)`` in
    ``processes`` processes (started by ``start_method``), which each call
    ``timed_twice``; the samples, the summed rate (``warm_samples_per_s``)
    and the rate over the slowest process's time (``wall_samples_per_s``)."""
    context = multiprocessing.get_context(start_method)
    barrier, results = context.Barrier(processes), context.Queue()
    running = [context.Process(target=target, args=(*args, rank, processes, barrier, results))
               for rank in range(processes)]
    for p in running:
        p.start()
    rates = [results.get() for _ in running]
    for p in running:
        p.join()
        if p.exitcode != 0:
            raise SystemExit(f"a plain-loop process ended with {p.exitcode}")
    return {"processes": processes,
            "samples": sum(n for n, _ in rates),
            "warm_samples_per_s": round(sum(n / s for n, s in rates), 1),
            "wall_samples_per_s": round(sum(n for n, _ in rates) / max(s for _, s in rates), 1)}
