"""W2's loader from Python (the module adl_bench): batches are NumPy views
of the loader's pooled buffers (no copy), which go back to its pool when
Python frees them, so that memory stays flat over many epochs; the values
are W2's (a flip, a conversion and a normalisation of the images)."""

import numpy as np

import adl_bench


def rss_mb():
    with open("/proc/self/statm") as f:
        import os
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def recycled_share(loader):
    line = next(l for l in loader.statistics().splitlines() if "buffers recycled" in l)
    return float(line.split("(")[1].split("%")[0])


def test_batches_are_views_of_pooled_buffers_and_memory_stays_flat():
    loader = adl_bench.w2(samples=2048, workers=2)
    batch = next(iter(loader.epoch(0)))
    assert batch.shape == (64, 3, 64, 64) and batch.dtype == np.float32
    assert type(batch.base).__name__ == "BatchMemory" and not batch.flags.owndata
    # Normalised with ImageNet's means and deviations: within their range.
    assert -2.2 < batch.min() and batch.max() < 2.7
    del batch
    for epoch in range(1, 4):
        for batch in loader.epoch(epoch):
            pass
    del batch
    # Dropped as they came: nearly every batch's buffer was one served again.
    assert recycled_share(loader) >= 80, loader.statistics()
    before = rss_mb()
    for epoch in range(4, 34):
        for batch in loader.epoch(epoch):
            pass
    del batch
    assert rss_mb() - before < 32, (before, rss_mb())


def test_batches_held_are_not_reused():
    loader = adl_bench.w2(samples=640, workers=2)
    held = list(loader.epoch(0))
    assert len(held) == 10
    # Each holds its own buffer while Python keeps it.
    pointers = {b.__array_interface__["data"][0] for b in held}
    assert len(pointers) == 10


def test_tensors_over_the_batches_return_their_buffers_to_the_pool():
    import torch

    import adl.torch

    loader = adl_bench.w2(samples=1024, workers=2)
    batch = next(iter(loader.epoch(0)))
    tensor = adl.torch.tensors(batch)
    # The tensor is the batch's buffer (no copy), through DLPack too.
    assert tensor.data_ptr() == batch.__array_interface__["data"][0]
    assert torch.from_dlpack(batch).data_ptr() == tensor.data_ptr()
    del batch, tensor
    total = 0.0
    for epoch in range(1, 4):
        for tensor in adl.torch.batches(loader.epoch(epoch)):
            total += float(tensor[:, 0, 0, 0].sum())
    del tensor
    # The tensors held the buffers only while they lived.
    assert recycled_share(loader) >= 80, loader.statistics()
