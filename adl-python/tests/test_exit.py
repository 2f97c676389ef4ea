"""Every exit is the script's own: a script that leaves an adl.Loader's
epoch open (a ``break``, a caught or an uncaught ``LoaderError``, Ctrl-C,
``sys.exit``, the epoch kept in a global) and exits ends with its own
status, never killed by a signal (SIGABRT: "FATAL: exception not
rethrown"), never hanging.

Each case runs in fresh processes, many times (``ADL_EXIT_RUNS``, 6 by
default), with 2 and 4 workers: the abort this guards against came in
20-50% of runs, from a worker thread asking for the GIL while the
interpreter finalized (see adl-python/src/exit.rs).
"""

import os
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "exits" / "leave_epoch_open.py"
RUNS = int(os.environ.get("ADL_EXIT_RUNS", "6"))

# The status each way of leaving gives in plain Python.
EXPECTED = {
    "break": 0,
    "global": 0,
    "caught": 0,
    "uncaught": 1,
    # An uncaught KeyboardInterrupt: CPython re-raises SIGINT on itself
    # (its own ending for Ctrl-C, the same without adl).
    "interrupt": -signal.SIGINT,
    "exit": 7,
    "native": 0,
    "skip": 0,
    "processes": 0,
    "processes-uncaught": 1,
}


def run(mode, workers):
    """One fresh process: its status, and its stderr (for the message)."""
    try:
        done = subprocess.run(
            [sys.executable, str(SCRIPT), mode, str(workers)],
            capture_output=True, text=True, timeout=120,
        )
    except subprocess.TimeoutExpired as hung:
        return "hang", str(hung.stderr)
    return done.returncode, done.stderr


def describe(status):
    if isinstance(status, int) and status < 0:
        return f"killed by {signal.Signals(-status).name}"
    return f"status {status}"


@pytest.mark.parametrize("workers", [2, 4])
@pytest.mark.parametrize("mode", list(EXPECTED))
def test_the_process_ends_with_the_scripts_own_status(mode, workers):
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda _: run(mode, workers), range(RUNS)))
    expected = EXPECTED[mode]
    wrong = [(status, err) for status, err in results if status != expected]
    if wrong:
        status, err = wrong[0]
        pytest.fail(
            f"{mode} with {workers} workers: {len(wrong)} of {RUNS} runs did not end "
            f"with {describe(expected)}; the first: {describe(status)}, stderr:\n{err[-3000:]}"
        )


def test_the_uncaught_error_is_the_loaders_and_names_the_sample():
    status, err = run("uncaught", 2)
    assert status == 1, err
    assert "adl.LoaderError" in err or "LoaderError" in err, err
    assert "sample 5 is bad" in err, err


def test_a_child_forked_while_a_worker_is_in_python_exits_at_once():
    # Without the reset in the child, its exit waits for a thread that
    # only the parent has: a hang.
    try:
        done = subprocess.run(
            [sys.executable, str(SCRIPT.parent / "fork_mid_call.py")],
            capture_output=True, text=True, timeout=60,
        )
    except subprocess.TimeoutExpired as hung:
        pytest.fail(f"the forked child did not exit: {hung.stderr}")
    assert done.returncode == 0, done.stderr
    assert "child 3" in done.stdout, done.stdout + done.stderr
