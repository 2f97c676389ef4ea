"""adl.Loader over Python datasets and pipelines: every index of an epoch
once, in an order fixed by the seed and the epoch; ranks that partition an
epoch; exact resume from a state, with other workers; errors that name the
sample and keep the Python exception as their cause, or samples skipped."""

import numpy as np
import pytest
from abstract_dataloader import abstract
from hypothesis import given, settings
from hypothesis import strategies as st

import adl
from adl import generic


class Double:
    """sample: x -> 2x; collate: a numpy array; batch: + 1."""

    def sample(self, x):
        return 2 * x

    def collate(self, samples):
        return np.array(samples)

    def batch(self, batch):
        return batch + 1


def flat(batches):
    return [int(v) for b in batches for v in b]


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(0, 60),
    batch_size=st.integers(1, 7),
    seed=st.one_of(st.none(), st.integers(0, 2**32)),
    workers=st.integers(0, 3),
    epoch=st.integers(0, 3),
)
def test_an_epoch_is_every_index_once_in_the_loaders_order(n, batch_size, seed, workers, epoch):
    # Worker threads: with `processes` left to the loader, each loader of
    # Python code checks in a fresh interpreter that it could go to worker
    # processes (a third of a second, 25 examples twice over);
    # test_loader_processes.py gives the processes the same epochs.
    loader = adl.Loader(list(range(n)), Double(), batch_size=batch_size, shuffle=seed, workers=workers,
                        processes=False)
    it = loader.epoch(epoch)
    order = it.indices()
    assert sorted(order) == list(range(n))
    if seed is None:
        assert order == list(range(n))
    batches = list(it)
    assert len(batches) == -(-n // batch_size)
    assert all(b.dtype.kind == "i" for b in batches)
    assert flat(batches) == [2 * i + 1 for i in order]
    # The same seed and epoch, another loader and other workers: the same order.
    again = adl.Loader(list(range(n)), Double(), batch_size=batch_size, shuffle=seed, workers=1, processes=False)
    assert again.epoch(epoch).indices() == order


def test_shuffled_epochs_differ_and_drop_last_drops_the_tail():
    loader = adl.Loader(list(range(100)), None, batch_size=8, shuffle=3, drop_last=True)
    first, second = loader.epoch(0), loader.epoch(1)
    assert first.indices() != second.indices()
    batches = list(first)
    assert len(batches) == 12 and all(len(b) == 8 for b in batches)


@pytest.mark.parametrize("world", [2, 3, 4])
def test_ranks_partition_an_epoch(world):
    n = 12 * world
    seen = []
    for rank in range(world):
        loader = adl.Loader(list(range(n)), None, batch_size=4, shuffle=11, rank=rank, world=world)
        seen += [i for b in loader.epoch(2) for i in b]
    assert sorted(seen) == list(range(n))


@pytest.mark.parametrize("stop", [0, 1, 3, 7])
def test_a_state_resumes_exactly_with_other_workers(stop):
    data = list(range(50))
    loader = adl.Loader(data, Double(), batch_size=5, shuffle=5, workers=2)
    whole = flat(loader.epoch(1))
    it = loader.epoch(1)
    before = [next(it) for _ in range(stop)]
    state = loader.state_dict()
    assert state == it.state_dict() and state["epoch"] == 1
    del it
    resumed = adl.Loader(data, Double(), batch_size=5, shuffle=5, workers=3)
    resumed.load_state_dict(state)
    rest = resumed.epoch(1)
    assert flat(before) + flat(rest) == whole
    # Another epoch is not the state's: it starts from its beginning.
    resumed.load_state_dict(state)
    assert len(flat(resumed.epoch(2))) == 50


def test_a_state_of_another_dataset_is_refused():
    state = adl.Loader(list(range(10)), None, batch_size=2).state_dict()
    other = adl.Loader(list(range(11)), None, batch_size=2)
    other.load_state_dict(state)
    with pytest.raises(RuntimeError, match="resume"):
        other.epoch(0)
    with pytest.raises(KeyError, match="no `version`"):
        other.load_state_dict({"epoch": 0})


class Flaky:
    """Sample 5 cannot be read."""

    def __getitem__(self, i):
        if i == 5:
            raise KeyError("no five")
        return i

    def __len__(self):
        return 8


def test_a_failed_sample_names_its_index_and_keeps_its_cause():
    with pytest.raises(adl.LoaderError, match=r"sample 5 .*no five") as raised:
        list(adl.Loader(Flaky(), None, batch_size=2).epoch(0))
    assert isinstance(raised.value.__cause__, KeyError)

    class Failing(Double):
        def sample(self, x):
            if x == 3:
                raise ValueError("three")
            return x

    with pytest.raises(adl.LoaderError, match=r"sample 3: transform `sample`: ValueError: three") as raised:
        list(adl.Loader(list(range(6)), Failing(), batch_size=2).epoch(0))
    assert isinstance(raised.value.__cause__, ValueError)


def test_skipped_samples_are_listed_and_the_rest_delivered():
    it = adl.Loader(Flaky(), None, batch_size=2, on_error="skip").epoch(0)
    assert [i for b in it for i in b] == [0, 1, 2, 3, 4, 6, 7]
    assert [index for index, _ in it.skipped()] == [5]


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="has no `sample`"):
        adl.Loader([1, 2], object())
    with pytest.raises(ValueError, match="on_error"):
        adl.Loader([1, 2], on_error="ignore")
    with pytest.raises(ValueError, match="rank and world"):
        adl.Loader([1, 2], rank=0)
    with pytest.raises(ValueError):
        adl.Loader([1, 2], batch_size=0)


class Sensor:
    def __init__(self, times, scale):
        self.metadata = type("Metadata", (), {"timestamps": np.asarray(times)})()
        self.scale = scale

    def __getitem__(self, i):
        return np.full(3, i * self.scale, dtype=np.float32)

    def __len__(self):
        return len(self.metadata.timestamps)


def test_traces_through_the_references_pipeline():
    traces = [
        adl.Trace({"radar": Sensor(np.arange(0, 2, 0.1), 1.0), "imu": Sensor(np.arange(0, 2, 0.01), 10.0)},
                  generic.Nearest("radar", tol=0.02), name=f"drive-{k}")
        for k in range(3)
    ]
    dataset = adl.Dataset(traces)
    pipeline = abstract.Pipeline(
        sample=lambda s: {"x": s["radar"] + s["imu"]},
        collate=lambda samples: {"x": np.stack([s["x"] for s in samples])},
    )
    loader = adl.Loader(dataset, pipeline, batch_size=8, shuffle=1, workers=2)
    batches = list(loader.epoch(0))
    assert sum(len(b["x"]) for b in batches) == len(dataset) == 3 * 20
    assert all(b["x"].shape[1:] == (3,) and b["x"].dtype == np.float32 for b in batches)
    assert "digraph" in loader.plan() and "samples" in loader.statistics()
    # What the calls into Python cost: the dataset's reads and the pipeline's
    # stages (sample per sample, collate and batch per batch).
    line = next(l for l in loader.statistics().splitlines() if l.startswith("Python:"))
    calls = int(line.split()[1])
    assert calls >= 2 * len(dataset) and "waiting for the GIL" in line, line
    assert loader.dataset is dataset


def test_a_forked_child_gets_a_clear_error_not_a_hang():
    import os

    loader = adl.Loader(list(range(40)), None, batch_size=4, workers=2)
    it = loader.epoch(0)
    first = next(it)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: both the epoch begun and a new one refuse
        messages = []
        for attempt in (lambda: next(it), lambda: loader.epoch(1)):
            try:
                attempt()
                messages.append("no error")
            except RuntimeError as error:
                messages.append(str(error))
        os.write(write, "\n".join(messages).encode())
        os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    words = os.read(read, 10_000).decode().split("\n")
    assert status == 0 and len(words) == 2, words
    assert all("forked from it" in w and f"made in process {os.getpid()}" in w for w in words), words
    # The parent goes on.
    assert len(first) + sum(len(b) for b in it) == 40


def test_without_a_pipeline_samples_are_collated_as_pytorch_collates_them():
    samples = [{"x": np.full(3, i, dtype=np.float32), "label": i, "name": f"s{i}"} for i in range(5)]
    batches = list(adl.Loader(samples, batch_size=2).epoch(0))
    assert [b["x"].shape for b in batches] == [(2, 3), (2, 3), (1, 3)]
    assert batches[0]["x"].dtype == np.float32 and batches[0]["label"].dtype == np.int64
    assert batches[1]["name"] == ["s2", "s3"]


@pytest.mark.parametrize(("workers", "given", "ahead"), [(0, None, 2), (1, None, 2), (3, None, 6), (3, 5, 5)])
def test_batches_ahead_are_two_per_worker_unless_given(workers, given, ahead):
    # As PyTorch's DataLoader keeps prefetch_factor (2) batches per worker.
    loader = adl.Loader(list(range(12)), batch_size=2, workers=workers, batches_ahead=given, processes=False)
    assert sum(len(b) for b in loader.epoch(0)) == 12
    first = loader.statistics().splitlines()[0]
    assert first.endswith(f"worker{'' if workers == 1 else 's'}, {ahead} batches ahead"), first


def test_indices_read_those_samples_in_their_order_each_epoch():
    samples = [{"i": i} for i in range(20)]
    loader = adl.Loader(samples, batch_size=3, indices=[7, 2, 19, 2, 0])
    for epoch in (0, 1):
        assert [list(b["i"]) for b in loader.epoch(epoch)] == [[7, 2, 19], [2, 0]]
    split = adl.Loader(samples, batch_size=1, indices=[4, 5, 6, 7], rank=1, world=2)
    assert [list(b["i"]) for b in split.epoch(0)] == [[5], [7]]
    with pytest.raises(ValueError, match="shuffle and indices"):
        adl.Loader(samples, indices=[1], shuffle=3)
    with pytest.raises(Exception, match="20"):
        list(adl.Loader(samples, indices=[1, 20]).epoch(0))
