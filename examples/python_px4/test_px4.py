"""The example module px4_loader from Python: a Rust loader's epochs as
dicts of NumPy arrays, resumed exactly from its state, its errors
Python's."""

import os

import numpy as np
import pytest

import adl
import px4_loader

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOG = os.path.join(ROOT, "tests", "data", "px4", "pixhawk4-sample-small.ulg")


def test_batches_are_dicts_of_arrays():
    loader = px4_loader.open(LOG, batch_size=16, workers=2)
    batches = list(loader.epoch(0))
    assert len(batches) > 2
    first = batches[0]
    assert first["imu"]["gyro"].shape == (16, 3) and first["imu"]["gyro"].dtype == np.float32
    assert first["pose"]["attitude"].shape == (16, 4)
    assert first["pose"]["position"].shape == (16, 3)
    # The pipeline's batch node centres the gyro of each batch.
    np.testing.assert_allclose(first["imu"]["gyro"].mean(axis=0), 0, atol=1e-5)
    assert "digraph" in loader.plan() and "samples" in loader.statistics()


def test_a_state_resumes_exactly():
    loader = px4_loader.open(LOG, batch_size=8, workers=2, shuffle=3)
    whole = [b["pose"]["position"] for b in loader.epoch(1)]
    epoch = loader.epoch(1)
    head = [next(epoch)["pose"]["position"] for _ in range(2)]
    state = loader.state_dict()
    del epoch
    again = px4_loader.open(LOG, batch_size=8, workers=1, shuffle=3)
    again.load_state_dict(state)
    rest = [b["pose"]["position"] for b in again.epoch(1)]
    assert len(head) + len(rest) == len(whole)
    for a, b in zip(head + rest, whole):
        np.testing.assert_array_equal(a, b)


def test_errors_are_pythons():
    with pytest.raises(OSError):
        px4_loader.open(os.path.join(ROOT, "no-such.ulg"))
    loader = px4_loader.open(LOG, batch_size=8)
    state = loader.state_dict()
    state["dataset_len"] += 1
    loader.load_state_dict(state)
    with pytest.raises(RuntimeError, match="resume"):
        loader.epoch(0)
    assert issubclass(adl.LoaderError, RuntimeError)



def test_batches_view_the_batchs_own_buffers():
    loader = px4_loader.open(LOG, batch_size=16, workers=2)
    batch = next(iter(loader.epoch(0)))
    gyro = batch["imu"]["gyro"]
    # A view of the batch's own buffer, owned by the batch: no copy.
    assert type(gyro.base).__name__ == "BatchMemory" and not gyro.flags.owndata
    assert batch["imu"]["accel"].base is gyro.base
