"""adl.generic's synchronization policies against abstract-dataloader
0.4.7's (installed from PyPI), on random timestamps, margins and
tolerances: the same indices (uint32, keys in order) or the same exception
class, except where adl is documented to refuse what the reference lets
through (a margin that trims every sample of a sensor)."""

import math

import numpy as np
import pytest
from abstract_dataloader import generic as reference
from abstract_dataloader import spec
from beartype.door import is_bearable
from hypothesis import given, settings
from hypothesis import strategies as st

import adl
import differential
from adl import generic

NAMES = ["camera", "radar", "lidar", "imu"]


@st.composite
def sensors(draw):
    """1 to 4 sensors, each 1 to 25 strictly increasing finite timestamps."""
    count = draw(st.integers(1, 4))
    out = {}
    for name in NAMES[:count]:
        start = draw(st.floats(0, 5, allow_nan=False))
        steps = draw(st.lists(st.floats(0.01, 1.0, allow_nan=False), min_size=0, max_size=24))
        out[name] = start + np.concatenate([[0.0], np.cumsum(steps)])
        # Strictly increasing after rounding, as real clocks are.
        out[name] = np.unique(np.round(out[name], 6))
    return out


def ends():
    """A margin's end: samples (a Python int) or seconds (a float)."""
    return st.one_of(st.integers(0, 4), st.floats(0, 2, allow_nan=False))


@st.composite
def margins(draw, names):
    kind = draw(st.sampled_from(["none", "all", "per-sensor"]))
    if kind == "none":
        return None
    if kind == "all":
        return (draw(ends()), draw(ends()))
    chosen = draw(st.lists(st.sampled_from(names), unique=True))
    return {name: (draw(ends()), draw(ends())) for name in chosen}


def trims_all(timestamps, margin):
    """Whether a margin trims every sample of some sensor: the reference's
    start index past the end, or its end index before the start (where it
    indexes around the array's end), as 0.4.7's apply_margin computes them."""
    for name, t in timestamps.items():
        if margin is None:
            left, right = 0, 0
        elif isinstance(margin, dict):
            left, right = margin.get(name, (0, 0))
        else:
            left, right = margin
        start = left if isinstance(left, int) else np.searchsorted(t, t[0] + left, "left")
        end = len(t) - 1 - right if isinstance(right, int) else np.searchsorted(t, t[-1] - right, "right") - 1
        if start >= len(t) or end < 0:
            return True
    return False


def outcome(policy, timestamps):
    return differential.outcome(lambda: policy(timestamps))


def check_same(ours, theirs, timestamps, margin):
    if isinstance(theirs, Exception) and type(ours) is type(theirs):
        return
    if margin is not None and trims_all(timestamps, margin):
        # adl refuses; the reference indexed past or around an array's end.
        assert isinstance(ours, IndexError), (ours, theirs)
        return
    assert not isinstance(ours, Exception) and not isinstance(theirs, Exception), (ours, theirs)
    assert list(ours) == list(theirs)
    for name in theirs:
        assert ours[name].dtype == np.uint32
        np.testing.assert_array_equal(ours[name], theirs[name], err_msg=name)


def kwargs_of(margin):
    return {} if margin is None else {"margin": margin}


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_next_is_the_references(data):
    timestamps = data.draw(sensors())
    names = list(timestamps)
    ref = data.draw(st.sampled_from(names + ["missing"]))
    margin = data.draw(margins(names))
    ours = outcome(generic.Next(ref, **kwargs_of(margin)), timestamps)
    theirs = outcome(reference.Next(ref, **kwargs_of(margin)), timestamps)
    check_same(ours, theirs, timestamps, margin)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_nearest_is_the_references(data):
    timestamps = data.draw(sensors())
    names = list(timestamps)
    ref = data.draw(st.sampled_from(names + ["missing"]))
    margin = data.draw(margins(names))
    tol = data.draw(st.one_of(st.floats(0, 1.5, allow_nan=False), st.just(math.inf)))
    ours = outcome(generic.Nearest(ref, tol=tol, **kwargs_of(margin)), timestamps)
    theirs = outcome(reference.Nearest(ref, tol=tol, **kwargs_of(margin)), timestamps)
    check_same(ours, theirs, timestamps, margin)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_decimate_is_the_references_before_and_after(data):
    timestamps = data.draw(sensors())
    names = list(timestamps)
    ref = data.draw(st.sampled_from(names))
    factor = data.draw(st.integers(1, 4))
    before = data.draw(st.one_of(st.none(), st.sampled_from(names)))
    ours = outcome(generic.Decimate(generic.Next(ref), factor, before), timestamps)
    theirs = outcome(reference.Decimate(reference.Next(ref), factor, before), timestamps)
    check_same(ours, theirs, timestamps, None)
    # Over a Python policy (the reference's own) too.
    mixed = outcome(generic.Decimate(reference.Nearest(ref), factor, before), timestamps)
    check_same(mixed, outcome(reference.Decimate(reference.Nearest(ref), factor, before), timestamps), timestamps, None)


@given(timestamps=sensors())
def test_empty_is_the_references(timestamps):
    check_same(generic.Empty()(timestamps), reference.Empty()(timestamps), timestamps, None)


def test_the_references_errors_in_its_words():
    timestamps = {"a": np.arange(5.0), "b": np.arange(0.5, 5.0)}
    for ours, theirs in [
        (lambda: generic.Next("c")(timestamps), lambda: reference.Next("c")(timestamps)),
        (lambda: generic.Nearest("a", tol=-1), lambda: reference.Nearest("a", tol=-1)),
        (lambda: generic.Nearest("a", tol=-0.5), lambda: reference.Nearest("a", tol=-0.5)),
        (lambda: generic.Next("a", margin=(1, 2, 3)), lambda: reference.Next("a", margin=(1, 2, 3))),
        (lambda: generic.Nearest("a", margin={"b": [1]}), lambda: reference.Nearest("a", margin={"b": [1]})),
    ]:
        with pytest.raises(Exception) as mine:
            ours()
        with pytest.raises(Exception) as its:
            theirs()
        assert type(mine.value) is type(its.value)
        assert str(mine.value) == str(its.value)


def test_adl_names_what_it_refuses():
    with pytest.raises(ValueError, match="radar"):
        generic.Next("radar")({"radar": np.array([0.0, 2.0, 1.0])})
    with pytest.raises(IndexError, match="margin for sensor `a`"):
        generic.Next("a", margin=(9, 0))({"a": np.arange(3.0)})
    with pytest.raises(TypeError, match="mapping"):
        generic.Next("a")([1.0, 2.0])


def test_policies_satisfy_the_specs_protocol_and_take_any_numbers():
    for policy in [generic.Empty(), generic.Next("a"), generic.Nearest("a"), generic.Decimate(generic.Next("a"), 2)]:
        assert is_bearable(policy, spec.Synchronization)
    # Lists and integer arrays are read as float seconds, as numpy reads them.
    out = generic.Next("a")({"a": [0, 1, 2, 3], "b": np.array([0, 2], dtype=np.int64)})
    assert {k: v.tolist() for k, v in out.items()} == {"a": [0, 1, 2], "b": [0, 1, 1]}
    assert repr(generic.Nearest("a", margin=(1, 0.5), tol=0.2)) == "Nearest(reference='a', margin=(1, 0.5), tol=0.2)"
    assert adl.generic is generic
