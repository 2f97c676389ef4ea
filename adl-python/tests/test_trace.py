"""adl.Trace and adl.Dataset against abstract-dataloader 0.4.7's
abstract.Trace and abstract.Dataset, over the same Python sensors and
traces, on random recordings and indices: the same lengths, samples,
sensors and reprs, and the same exception classes (and words, for the
dataset's index out of bounds)."""

import numpy as np
import pytest
from abstract_dataloader import abstract, spec
from abstract_dataloader import generic as reference
from beartype.door import is_bearable
from hypothesis import given, settings
from hypothesis import strategies as st

import adl
from adl import generic
from differential import outcome, same

NAMES = ["camera", "radar", "lidar"]


class Metadata:
    def __init__(self, timestamps):
        self.timestamps = timestamps


class ListSensor:
    """A Python sensor: timestamps, and a string per sample."""

    def __init__(self, name, timestamps):
        self.metadata = Metadata(np.asarray(timestamps, dtype=np.float64))
        self.samples = [f"{name}-{i}" for i in range(len(timestamps))]

    def __getitem__(self, index):
        return self.samples[index]

    def __len__(self):
        return len(self.samples)


@st.composite
def recordings(draw):
    count = draw(st.integers(1, 3))
    sensors = {}
    for name in NAMES[:count]:
        steps = draw(st.lists(st.floats(0.05, 1.0, allow_nan=False), min_size=0, max_size=12))
        start = draw(st.floats(0, 2, allow_nan=False))
        times = np.unique(np.round(start + np.concatenate([[0.0], np.cumsum(steps)]), 6))
        sensors[name] = ListSensor(name, times)
    return sensors


def syncs(draw, sensors):
    """The same synchronization for both traces: none, indices given, or a
    policy (the reference's and adl's)."""
    kind = draw(st.sampled_from(["none", "indices", "next", "nearest"]))
    if kind == "none":
        return None, None
    if kind == "indices":
        n = draw(st.integers(0, 6))
        given_ = {k: np.array(draw(st.lists(st.integers(0, len(s) - 1), min_size=n, max_size=n)), dtype=np.uint32)
                  for k, s in sensors.items()}
        return given_, given_
    ref = draw(st.sampled_from(list(sensors)))
    if kind == "next":
        return generic.Next(ref), reference.Next(ref)
    return generic.Nearest(ref, tol=0.3), reference.Nearest(ref, tol=0.3)




@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_a_trace_is_the_references(data):
    sensors = data.draw(recordings())
    ours_sync, theirs_sync = syncs(data.draw, sensors)
    name = data.draw(st.sampled_from(["trace", "drive-07"]))
    ours = adl.Trace(sensors, ours_sync, name=name)
    theirs = abstract.Trace(sensors, theirs_sync, name=name)
    same(outcome(lambda: len(ours)), outcome(lambda: len(theirs)))
    same(outcome(lambda: repr(ours)), outcome(lambda: repr(theirs)))
    n = outcome(lambda: len(theirs))
    n = n if isinstance(n, int) else 3
    for i in range(-n - 2, n + 2):
        same(outcome(lambda: ours[i]), outcome(lambda: theirs[i]))
        same(outcome(lambda: ours[np.int64(i)]), outcome(lambda: theirs[np.int64(i)]))
    for key in list(sensors) + ["missing"]:
        same(outcome(lambda: ours[key]), outcome(lambda: theirs[key]))
    assert list(ours.children()) == list(theirs.children())
    assert ours.sensors is sensors and ours.name == name


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_a_dataset_is_the_references(data):
    traces_ours, traces_theirs = [], []
    for _ in range(data.draw(st.integers(0, 4))):
        sensors = data.draw(recordings())
        ref = next(iter(sensors))
        traces_ours.append(adl.Trace(sensors, generic.Nearest(ref, tol=0.3)))
        traces_theirs.append(abstract.Trace(sensors, reference.Nearest(ref, tol=0.3)))
    ours = adl.Dataset(traces_ours)
    theirs = abstract.Dataset(traces_theirs)
    assert len(ours) == len(theirs)
    np.testing.assert_array_equal(ours.indices, theirs.indices)
    assert ours.indices.dtype == np.int64
    for i in list(range(-2, len(theirs) + 2)):
        for index in (i, np.int64(i), np.uint32(max(i, 0))):
            a, b = outcome(lambda: ours[index]), outcome(lambda: theirs[index])
            same(a, b)
            if isinstance(b, IndexError):
                assert str(a) == str(b)


def test_traces_and_datasets_satisfy_the_specs_protocols():
    sensors = {"a": ListSensor("a", [0.0, 1.0, 2.0]), "b": ListSensor("b", [0.1, 1.1, 2.1])}
    trace = adl.Trace(sensors, generic.Nearest("a", tol=0.2), name="t")
    assert is_bearable(trace, spec.Trace)
    assert is_bearable(adl.Dataset([trace, trace]), spec.Dataset)
    # The window is [0.1, 2.0]: a's samples 1 and 2.
    assert repr(trace) == "Trace(t, 2x[a, b])"
    assert trace[0] == {"a": "a-1", "b": "b-1"}
    assert adl.Dataset([trace, trace])[3] == {"a": "a-2", "b": "b-2"}
    # A subclass keeps its own name in the repr, as the reference's does.
    class Drive(adl.Trace):
        pass
    assert repr(Drive(sensors)) == "Drive(trace, 3x[a, b])"
    with pytest.raises(IndexError, match="out of bounds for dataset with length 0"):
        adl.Dataset([])[0]
