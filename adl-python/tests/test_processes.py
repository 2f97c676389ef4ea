"""adl.Loader across processes: a training process killed with SIGKILL in
the middle of an epoch, several times, and restarted from its last
checkpoint (the model and the loader) with other worker counts sees every
index of the epoch exactly once and ends with the weights of a run never
interrupted; processes given torchrun's RANK and WORLD_SIZE split an
epoch between them, and so do torchrun's own (gloo) training DDP."""

import json
import os
import random
import signal
import subprocess
import sys
import time

import adl

HERE = os.path.dirname(os.path.abspath(__file__))


def test_a_killed_training_resumes_every_index_exactly_once(tmp_path):
    script = os.path.join(HERE, "resumable.py")
    log = tmp_path / "log.txt"

    def lines():
        try:
            with open(log) as f:
                return sum(1 for _ in f)
        except FileNotFoundError:
            return 0

    sys.path.insert(0, HERE)
    import resumable

    rng = random.Random(7)
    kills = 0
    for workers in (2, 0, 3):
        # Killed a random number of batches (2 to 5) after where it starts:
        # three kills land within the epoch's 24 batches.
        target = lines() + rng.randint(2, 5)
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
    assert kills == 3
    with open(tmp_path / "log.txt") as f:
        seen = [int(i) for line in f for i in line.split()]
    assert sorted(seen) == list(range(resumable.N))
    # And in the epoch's own order.
    loader = adl.Loader(list(range(resumable.N)), None, batch_size=resumable.BATCH, shuffle=resumable.SEED)
    assert seen == loader.epoch(resumable.EPOCH).indices()
    # And the model trained as if never interrupted (the same script, run
    # here in one go).
    whole = tmp_path / "whole"
    whole.mkdir()
    resumable.main(str(whole), 0)
    with open(tmp_path / "weights.json") as resumed, open(whole / "weights.json") as uninterrupted:
        assert json.load(resumed) == json.load(uninterrupted)


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


def test_torchrun_ranks_with_gloo_partition_the_epoch():
    script = os.path.join(HERE, "distributed.py")
    out = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2", script],
        capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, f"stdout:\n{out.stdout}\nstderr:\n{out.stderr}"
    result = json.loads(out.stdout.strip().splitlines()[-1])
    ranks = sorted(result["ranks"], key=lambda r: r["rank"])
    assert [r["rank"] for r in ranks] == [0, 1]
    first, second = ranks[0]["indices"], ranks[1]["indices"]
    # Each rank its half; together every index once.
    assert len(first) == len(second) == 48
    assert sorted(first + second) == list(range(96))
    # Each rank's share is the one adl.Loader gives that rank.
    for rank, indices in enumerate((first, second)):
        loader = adl.Loader(list(range(96)), None, batch_size=4, shuffle=11, rank=rank, world=2)
        assert indices == loader.epoch(2).indices()
    # DDP kept one model: the ranks' weights agree.
    assert result["weights"][0] == result["weights"][1]
