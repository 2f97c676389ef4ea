"""adl.Loader(..., processes=True): the Python code that holds the GIL
(the dataset's __getitem__, the pipeline's sample and collate) runs in
worker processes, and the loader gives what its threads give: the same
batches in the same order, shards, skips and resumes; an exception keeps
its type and says where it was raised; a worker process that dies is an
error naming it, never a wait; what cannot go to a process is refused
saying why."""

import os
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest

import adl
from process_datasets import Doubling, Frames, Records


def batches(loader, epoch=0):
    return list(loader.epoch(epoch))


def same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.keys() == y.keys()
        for key in x:
            if key != "pid":
                np.testing.assert_array_equal(x[key], y[key], err_msg=key)


@pytest.mark.parametrize("pipeline", [None, Doubling()], ids=["default-collate", "pipeline"])
def test_processes_give_the_batches_threads_give(pipeline):
    data = Records(203)
    options = dict(batch_size=16, shuffle=7)
    threads = adl.Loader(data, pipeline, workers=2, processes=False, **options)
    processes = adl.Loader(data, pipeline, workers=2, processes=True, **options)
    for epoch in (0, 1):
        got = batches(processes, epoch)
        same(got, batches(threads, epoch))
    # Made in other processes.
    pids = {int(p) for b in got for p in b["pid"]}
    assert os.getpid() not in pids and len(pids) >= 1
    assert "Processes: 2 worker processes made" in processes.statistics()


def test_shards_split_an_epoch_as_with_threads():
    data = Records(100)
    seen = []
    for rank in range(3):
        loader = adl.Loader(data, batch_size=8, shuffle=3, rank=rank, world=3, workers=2, processes=True)
        threads = adl.Loader(data, batch_size=8, shuffle=3, rank=rank, world=3, workers=2, processes=False)
        got = batches(loader)
        same(got, batches(threads))
        seen += [int(i) for b in got for i in b["index"]]
    # Every index in a shard (the shards evened out as with threads).
    assert set(seen) == set(range(100))


def test_an_epoch_resumes_where_it_stood():
    data = Records(120)
    loader = adl.Loader(data, batch_size=10, shuffle=1, workers=2, processes=True)
    whole = batches(loader, 0)
    epoch = loader.epoch(0)
    first = [next(iter(epoch)) for _ in range(4)]
    state = epoch.state_dict()
    resumed = adl.Loader(data, batch_size=10, shuffle=1, workers=3, processes=True)
    resumed.load_state_dict(state)
    rest = batches(resumed, 0)
    same(first + rest, whole)


def test_failed_samples_are_skipped_as_with_threads():
    data = Records(64, bad=(3, 17, 40))
    threads = adl.Loader(data, batch_size=8, workers=2, on_error="skip", processes=False)
    processes = adl.Loader(data, batch_size=8, workers=2, on_error="skip", processes=True)
    got_epoch = processes.epoch(0)
    got = list(got_epoch)
    want_epoch = threads.epoch(0)
    same(got, list(want_epoch))
    assert sorted(got_epoch.skipped()) == sorted(want_epoch.skipped())
    assert [i for i, _ in sorted(got_epoch.skipped())] == [3, 17, 40]
    assert "KeyError" in got_epoch.skipped()[0][1]


def test_an_exception_keeps_its_type_and_says_where():
    loader = adl.Loader(Records(40, bad=(21,)), batch_size=8, workers=2, processes=True)
    with pytest.raises(adl.LoaderError, match="sample 21") as raised:
        batches(loader)
    cause = raised.value.__cause__
    assert isinstance(cause, KeyError)
    assert "record 21 is missing" in str(cause)
    notes = "\n".join(getattr(cause, "__notes__", []))
    assert "worker process" in notes and "Traceback" in notes


def test_a_worker_that_dies_is_an_error_naming_it_not_a_wait():
    loader = adl.Loader(Records(40, die_at=13), batch_size=8, workers=2, processes=True)
    with pytest.raises(adl.LoaderError, match=r"worker process \d \(pid \d+\).*exited with code 3"):
        batches(loader)


def test_what_cannot_go_to_a_process_is_refused():
    class Local:  # defined in a function: it does not pickle
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return i

    with pytest.raises(TypeError, match="does not pickle"):
        adl.Loader(Local(), workers=2, processes=True)
    with pytest.raises(ValueError, match="workers=1 or more"):
        adl.Loader(Records(4), workers=0, processes=True)
    with pytest.raises(ValueError, match="adl.Pipeline"):
        adl.Loader(Records(4), adl.Pipeline(), workers=2, processes=True)
    # Unasked, what does not pickle runs on threads, one call at a time
    # (test_thread_safety.py).
    assert "does not pickle" in adl.Loader(Local(), workers=2).statistics()
    # The dataset pickles; the check did not change it.
    assert pickle.loads(pickle.dumps(Records(3))).lines == Records(3).lines


def test_what_does_not_unpickle_in_a_worker_is_an_error_or_runs_on_threads(tmp_path):
    # A module imported from a folder that is then taken off sys.path:
    # the dataset pickles here, and a fresh interpreter cannot import it.
    (tmp_path / "gone_module.py").write_text(
        "class Gone:\n"
        "    def __len__(self):\n        return 8\n"
        "    def __getitem__(self, i):\n        return i * 2\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import gone_module
    finally:
        sys.path.remove(str(tmp_path))
    with pytest.raises(RuntimeError, match=r"worker process 0 .*could not take the dataset.*ModuleNotFoundError"):
        adl.Loader(gone_module.Gone(), workers=2, processes=True)
    loader = adl.Loader(gone_module.Gone(), batch_size=4, workers=2)
    stats = loader.statistics()
    assert "one call into Python at a time" in stats, stats
    assert "ModuleNotFoundError" in stats, stats
    assert [b.tolist() for b in loader.epoch(0)] == [[0, 2, 4, 6], [8, 10, 12, 14]]


UNGUARDED = """
import adl
from process_datasets import Records
# No `if __name__ == "__main__":`: each spawned worker runs this again and
# cannot start processes of its own while it bootstraps.
loader = adl.Loader(Records(8), workers=1, processes=True)
"""


# 2,000 records pickle to some 130 kB, more than a pipe holds: given in
# the process's arguments, they kept the parent writing into `spawn`'s
# pipe after the worker died, for ever.
@pytest.mark.parametrize("records", [8, 2000])
def test_a_script_without_the_main_guard_sees_multiprocessings_own_error(tmp_path, records):
    script = tmp_path / "unguarded.py"
    script.write_text(UNGUARDED.replace("Records(8)", f"Records({records})"))
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode != 0
    # The worker says why (multiprocessing's advice on the idiom), the
    # parent which worker; nothing of the loader's clean-up hides either.
    assert "bootstrapping phase" in out.stderr, out.stderr
    assert "worker process 0" in out.stderr and "could not take the dataset" in out.stderr, out.stderr
    assert "can only join a started process" not in out.stderr, out.stderr
    assert 'if __name__ == "__main__":' in out.stderr.split("could not take the dataset")[1], out.stderr


def block_of(array):
    """What owns an array's memory, down its chain of bases."""
    base = array
    while isinstance(base, np.ndarray) and base.base is not None:
        base = base.base
    return base


def shared(loader):
    text = loader.statistics()
    found = re.search(r"made (\d+) batches, (\d+) with their arrays in shared memory \((\d+) blocks made", text)
    assert found, text
    return tuple(int(g) for g in found.groups())


# Names there when the tests were collected, before this process made any:
# another process's, whose pid this one may have again (a name left by an
# earlier run is not this process's).
STALE = set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()


def names_in_shm(prefix, stale):
    """The names in /dev/shm that start with ``prefix``, but those in ``stale``."""
    return [f for f in os.listdir("/dev/shm") if f.startswith(prefix) and f not in stale]


def leftover_blocks():
    return names_in_shm(f"adl-{os.getpid()}-", STALE)


def test_a_batchs_arrays_come_in_shared_memory_and_its_blocks_are_reused():
    data = Frames(128, side=32)
    threads = adl.Loader(data, batch_size=8, shuffle=1, workers=2, processes=False)
    loader = adl.Loader(data, batch_size=8, shuffle=1, workers=2, processes=True)
    for epoch in range(3):
        for mine, theirs in zip(loader.epoch(epoch), threads.epoch(epoch)):
            same([mine], [theirs])
            frame = mine["frame"]
            # Not a copy: a view of a block of shared memory, which the
            # consumer may write to.
            assert type(block_of(frame)).__name__ == "SharedBlock"
            assert frame.flags.writeable and frame.flags.aligned
            frame += 1
    made, in_shared, blocks = shared(loader)
    assert made == in_shared == 48
    # Each batch's block went back to the pool once the batch was freed.
    assert blocks <= 24, loader.statistics()
    # Names unlinked once the process mapped them.
    assert leftover_blocks() == []


def test_under_a_memory_budget_the_processes_batches_are_counted_and_few_blocks_kept():
    data = Frames(96, side=64)  # 49 kB a sample: 393 kB a batch of 8
    threads = adl.Loader(data, batch_size=8, shuffle=1, workers=2, processes=False)
    loader = adl.Loader(data, batch_size=8, shuffle=1, workers=2, processes=True,
                        memory_budget=2_000_000)
    for epoch in range(2):
        same(batches(loader, epoch), batches(threads, epoch))
    text = loader.statistics()
    # The batches' arrays, in shared memory, are weighed: 2 MB holds 3
    # batches ahead (not the 8 the two processes get unbudgeted).
    assert "memory budget 2.0 MB: 3 batches ahead of 393.3 kB" in text, text
    made, in_shared, blocks = shared(loader)
    assert made == in_shared == 24, text
    assert leftover_blocks() == []


def test_a_batch_too_large_for_its_block_comes_pickled_and_the_next_blocks_fit():
    data = Frames(128, side=160)  # 300 kB a sample: 2.4 MB a batch
    loader = adl.Loader(data, batch_size=8, workers=2, processes=True)
    threads = adl.Loader(data, batch_size=8, workers=2, processes=False)
    got = batches(loader)
    same(got, batches(threads))
    made, in_shared, blocks = shared(loader)
    # The first blocks lent (1 MiB) were too small: those batches came
    # pickled whole, and said how much they needed. The processes' pools
    # learn that size together, so only the batches asked before the first
    # reply came pickled: one for each thread that asks (two per process)
    # and the consumer's, however the machine is loaded.
    askers = 2 * 2 + 1
    assert made == 16 and 16 - askers <= in_shared < 16, loader.statistics()
    assert type(block_of(got[-1]["frame"])).__name__ == "SharedBlock"
    pids = {int(p) for b in got for p in b["pid"]}
    del got
    assert leftover_blocks() == []
    # The blocks too small were unmapped by the loader, and by the
    # processes once told (with their next batches): none maps one now.
    batches(loader, 1)

    def mapped_sizes(pid):
        sizes = []
        with open(f"/proc/{pid}/maps") as maps:
            for line in maps:
                if f"/dev/shm/adl-{os.getpid()}-" in line:
                    start, end = (int(x, 16) for x in line.split()[0].split("-"))
                    sizes.append(end - start)
        return sizes

    for pid in pids:
        sizes = mapped_sizes(pid)
        assert sizes and all(size > 2_000_000 for size in sizes), (pid, sizes)


@pytest.mark.parametrize("after", [0, 1, 3])
def test_a_loader_killed_while_blocks_are_lent_leaves_no_name_in_dev_shm(after):
    import signal
    import subprocess
    import sys
    import time

    script = os.path.join(os.path.dirname(__file__), "exits", "killed_with_blocks_lent.py")
    # Names there before the child (another process's, whose pid the child
    # may have again: a name left by an earlier run is not this child's).
    before = set(os.listdir("/dev/shm"))
    child = subprocess.Popen([sys.executable, script], stdout=subprocess.PIPE, text=True)
    try:
        for line in child.stdout:
            if int(line) >= after:
                break
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL
    # Its worker processes see their sockets close, unlink what they were
    # lent and end.
    prefix = f"adl-{child.pid}-"
    deadline = time.monotonic() + 20
    left = names_in_shm(prefix, before)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = names_in_shm(prefix, before)
    assert left == []
