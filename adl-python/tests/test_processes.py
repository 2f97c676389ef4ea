"""adl.Loader across processes: a training-like process killed with
SIGKILL in the middle of an epoch, several times, and restarted from its
last checkpoint with other worker counts sees every index of the epoch
exactly once; processes given torchrun's RANK and WORLD_SIZE split an
epoch between them."""

import os
import random
import signal
import subprocess
import sys
import time

import adl

HERE = os.path.dirname(os.path.abspath(__file__))


def test_a_killed_process_resumes_every_index_exactly_once(tmp_path):
    script = os.path.join(HERE, "resumable.py")
    log = tmp_path / "log.txt"

    def lines():
        try:
            with open(log) as f:
                return sum(1 for _ in f)
        except FileNotFoundError:
            return 0

    rng = random.Random(7)
    kills = 0
    for workers in (2, 1, 3, 0, 2):
        # Killed a random number of batches (3 to 12) after where it starts.
        target = lines() + rng.randint(3, 12)
        process = subprocess.Popen([sys.executable, script, str(tmp_path), str(workers)],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while process.poll() is None and lines() < target and time.monotonic() < deadline:
            time.sleep(0.001)
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            kills += 1
        process.wait()
    # Then to the end, with yet another worker count.
    done = subprocess.run([sys.executable, script, str(tmp_path), "4"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "epoch done" in done.stdout, done.stderr
    assert kills == 5
    with open(tmp_path / "log.txt") as f:
        seen = [int(i) for line in f for i in line.split()]
    assert sorted(seen) == list(range(600))
    # And in the epoch's own order.
    loader = adl.Loader(list(range(600)), None, batch_size=6, shuffle=17)
    assert seen == loader.epoch(3).indices()


SHARD = """
import adl
loader = adl.Loader(list(range(48)), None, batch_size=4, shuffle=5)
print(" ".join(str(i) for b in loader.epoch(1) for i in b))
"""


def test_ranks_from_torchruns_variables_split_an_epoch():
    seen = []
    for rank in range(2):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE="2", LOCAL_RANK=str(rank))
        out = subprocess.run([sys.executable, "-c", SHARD], env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        mine = [int(i) for i in out.stdout.split()]
        assert len(mine) == 24
        seen += mine
    assert sorted(seen) == list(range(48))
