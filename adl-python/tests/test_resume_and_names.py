"""Resume without a trap, and errors that say where.

- Right after ``load_state_dict(s)``, ``state_dict()`` is ``s`` (a
  checkpoint taken then keeps the position); ``for batch in loader``
  resumes there, then goes on epoch by epoch (as torchdata's
  ``StatefulDataLoader`` does), with adl's Python engine and with an
  ``adl.Pipeline``.
- An exception from a Python sensor says which trace and sensor raised it
  (a note, so its type is what the sensor raised), also through the
  loader's ``LoaderError``; a timestamp error says which trace.
"""

import numpy as np
import pytest

import adl
from adl import generic


class Double:
    def sample(self, x):
        return 2 * x

    def collate(self, samples):
        return np.array(samples)

    def batch(self, batch):
        return batch


def python_loader(**kwargs):
    return adl.Loader(list(range(40)), Double(), batch_size=4, shuffle=11, **kwargs)


def native_loader(**kwargs):
    samples = [{"x": np.full((2,), i, dtype=np.float32)} for i in range(40)]
    return adl.Loader(samples, adl.Pipeline(), batch_size=4, shuffle=11, **kwargs)


def flat(batches):
    """The samples' values, batch after batch (a Python batch is the
    doubled indices; an adl.Pipeline's is ``{"x": [B, 2]}``)."""
    out = []
    for batch in batches:
        column = np.asarray(batch["x"])[:, 0] if isinstance(batch, dict) else np.asarray(batch) // 2
        out.extend(int(v) for v in column)
    return out


@pytest.mark.parametrize("make", [python_loader, native_loader], ids=["python", "pipeline"])
@pytest.mark.parametrize("workers", [0, 2])
def test_state_dict_after_load_is_the_state_loaded_and_iter_resumes_there(make, workers):
    whole = make(workers=workers)
    epoch0 = flat(whole.epoch(0))
    epoch1 = flat(whole.epoch(1))

    first = make(workers=workers)
    it = first.epoch(0)
    seen = flat(next(it) for _ in range(3))
    saved = first.state_dict()
    assert saved["epoch"] == 0 and saved["cursor"] == 12

    second = make(workers=workers)
    second.load_state_dict(saved)
    # No batch since the load: the loader stands where the state does.
    assert second.state_dict() == saved
    resumed = flat(iter(second))
    assert seen + resumed == epoch0
    # Then epoch by epoch.
    assert flat(iter(second)) == epoch1
    assert second.state_dict()["epoch"] == 1


@pytest.mark.parametrize("make", [python_loader, native_loader], ids=["python", "pipeline"])
def test_a_state_taken_at_an_epochs_end_resumes_with_the_next_epoch(make):
    whole = make()
    epoch1 = flat(whole.epoch(1))
    first = make()
    list(iter(first))
    saved = first.state_dict()
    second = make()
    second.load_state_dict(saved)
    assert second.state_dict() == saved
    assert flat(iter(second)) == epoch1


def test_iterating_a_fresh_loader_goes_epoch_by_epoch_from_zero():
    loader = python_loader()
    assert flat(iter(loader)) == flat(python_loader().epoch(0))
    assert flat(iter(loader)) == flat(python_loader().epoch(1))
    assert flat(loader) == flat(python_loader().epoch(2))


def test_a_load_detaches_the_epoch_started_before_it():
    loader = python_loader()
    old = loader.epoch(0)
    next(old)
    saved = python_loader().state_dict()  # epoch 0, cursor 0
    loader.load_state_dict(saved)
    next(old)  # the old epoch moves on; the loader stands where it was loaded
    assert loader.state_dict() == saved


def test_another_epoch_started_after_a_load_uses_the_loaded_state_up():
    loader = python_loader()
    it = loader.epoch(0)
    next(it)
    saved = loader.state_dict()
    resumed = python_loader()
    resumed.load_state_dict(saved)
    list(resumed.epoch(5))  # another epoch than the state's
    assert resumed.state_dict()["epoch"] == 5
    # iter goes on from epoch 5, not back to the state loaded.
    assert flat(iter(resumed)) == flat(python_loader().epoch(6))


class Sensor:
    """A Python sensor: timestamps, and a sample that fails at `bad`."""

    def __init__(self, timestamps, bad=None):
        self.metadata = type("Metadata", (), {"timestamps": np.asarray(timestamps, dtype=np.float64)})()
        self.bad = bad

    def __len__(self):
        return len(self.metadata.timestamps)

    def __getitem__(self, index):
        if index == self.bad:
            raise KeyError(f"frame {index} missing")
        return np.float32(index)


def notes(error):
    return "\n".join(getattr(error, "__notes__", []))


def test_a_sensors_exception_names_the_trace_and_the_sensor():
    trace = adl.Trace(
        {"imu": Sensor(np.arange(10) * 0.1), "radar": Sensor(np.arange(5) * 0.2, bad=3)},
        sync=generic.Nearest("radar"), name="drive-07",
    )
    with pytest.raises(KeyError) as raised:
        trace[3]
    assert "frame 3 missing" in str(raised.value)
    said = notes(raised.value)
    assert '"radar"' in said and '"drive-07"' in said and "sample 3" in said, said


def test_through_the_loader_the_error_names_the_trace_and_the_sensor():
    trace = adl.Trace({"radar": Sensor(np.arange(8) * 0.1, bad=6)}, name="drive-08")
    loader = adl.Loader(adl.Dataset([trace]), None, batch_size=4, workers=2)
    with pytest.raises(adl.LoaderError) as raised:
        list(loader.epoch(0))
    message = str(raised.value)
    assert "drive-08" in message and "radar" in message and "frame 6 missing" in message, message
    assert isinstance(raised.value.__cause__, KeyError)


def test_a_timestamp_error_names_the_trace():
    unsorted = Sensor([0.0, 0.2, 0.1, 0.3])
    with pytest.raises(ValueError) as raised:
        adl.Trace({"imu": unsorted, "gps": Sensor([0.0, 0.1])}, sync=generic.Nearest("gps"), name="drive-09")
    said = notes(raised.value)
    assert '"drive-09"' in said, said
