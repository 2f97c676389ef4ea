"""adl's batches feeding PyTorch: tensors that share the batches' memory
(torch.from_numpy and DLPack), pinning refused with a clear error where
there is no CUDA, and a real training loop on adl batches read from files
whose loss falls."""

import numpy as np
import pytest
import torch

import adl
import adl.torch
from adl import files, generic


def dataset(n=64):
    return [{"x": np.full(4, i, dtype=np.float32), "label": i, "name": f"s{i}"} for i in range(n)]


def test_tensors_share_the_batches_memory():
    loader = adl.Loader(dataset(), None, batch_size=8, shuffle=3, workers=2)
    batch = next(iter(loader.epoch(0)))
    tensors = adl.torch.tensors(batch)
    assert set(tensors) == {"x", "label", "name"}
    x = tensors["x"]
    assert isinstance(x, torch.Tensor) and x.shape == (8, 4) and x.dtype == torch.float32
    # The same memory: no copy, and a write through one shows in the other.
    assert x.data_ptr() == batch["x"].__array_interface__["data"][0]
    x[0, 0] = -1.0
    assert batch["x"][0, 0] == -1.0
    assert tensors["label"].dtype == torch.int64
    assert tensors["label"].tolist() == [int(row[1]) for row in batch["x"]]
    assert tensors["name"] == batch["name"]
    # DLPack shares it too.
    assert torch.from_dlpack(batch["x"]).data_ptr() == x.data_ptr()


def test_nesting_is_kept():
    from collections import namedtuple

    Pair = namedtuple("Pair", "left right")
    batch = {"pair": Pair(np.zeros(2), [np.ones(3), "text"]), "tuple": (np.arange(3), 5)}
    out = adl.torch.tensors(batch)
    assert isinstance(out["pair"], Pair) and isinstance(out["pair"].left, torch.Tensor)
    assert isinstance(out["pair"].right, list) and out["pair"].right[1] == "text"
    assert isinstance(out["tuple"], tuple) and out["tuple"][1] == 5
    assert out["tuple"][0].tolist() == [0, 1, 2]


def test_batches_over_an_epoch():
    loader = adl.Loader(dataset(32), None, batch_size=8, shuffle=1)
    seen = [int(v) for batch in adl.torch.batches(loader.epoch(2)) for v in batch["label"]]
    assert sorted(seen) == list(range(32)) and seen == loader.epoch(2).indices()


def test_pinned_memory_needs_cuda():
    batch = {"x": np.ones((2, 3), dtype=np.float32)}
    if torch.cuda.is_available():
        pinned = adl.torch.tensors(batch, pin_memory=True)
        assert pinned["x"].is_pinned()
        moved = adl.torch.tensors(batch, pin_memory=True, device="cuda")
        assert moved["x"].is_cuda
    else:
        with pytest.raises(RuntimeError, match="pin_memory=True .* torch.cuda.is_available\\(\\) is False"):
            adl.torch.tensors(batch, pin_memory=True)
        # Moving to the CPU device is allowed (a no-op).
        assert adl.torch.tensors(batch, device="cpu")["x"].device.type == "cpu"


def test_a_model_trains_on_adl_batches_and_its_loss_falls(tmp_path):
    # A recording on disk: inputs and targets as NumPy files with their
    # clocks, read by adl's native sensors and synchronised by Nearest.
    rng = np.random.default_rng(0)
    n = 512
    x = rng.normal(size=(n, 8)).astype(np.float32)
    w = rng.normal(size=(8, 2)).astype(np.float32)
    y = (np.tanh(x @ w) + 0.01 * rng.normal(size=(n, 2))).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    clock = np.arange(n) * 0.01
    sensors = {
        "x": files.Npy(str(tmp_path / "x.npy"), clock, name="x"),
        "y": files.Npy(str(tmp_path / "y.npy"), clock + 0.001, name="y"),
    }
    trace = adl.Trace(sensors, sync=generic.Nearest("x", tol=0.005))
    loader = adl.Loader(adl.Dataset([trace]), None, batch_size=32, shuffle=0, workers=2, drop_last=True)

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.Tanh(), torch.nn.Linear(32, 2))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    epoch = 0
    while len(losses) < 300:
        for batch in adl.torch.batches(loader.epoch(epoch)):
            loss = torch.nn.functional.mse_loss(model(batch["x"]), batch["y"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        epoch += 1
    first, last = np.mean(losses[:10]), np.mean(losses[-10:])
    assert last < 0.05 * first, (first, last)
