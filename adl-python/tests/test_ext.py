"""adl.ext.sample, adl.ext.graph and adl.ext.types against
abstract-dataloader 0.4.7's, with hypothesis: the same subsets (indices
and order), the same graph results and the same exception classes (and
words, where the reference's tests match on them)."""

import pickle
from typing import Generic

import numpy as np
import optree
import pytest
from abstract_dataloader.ext import graph as ref_graph
from abstract_dataloader.ext import sample as ref_sample
from abstract_dataloader.ext import types as ref_types
from hypothesis import given, settings
from hypothesis import strategies as st

from adl.ext import graph, sample, types
from differential import outcome, same


@settings(max_examples=400, deadline=None)
@given(
    total=st.integers(0, 300),
    samples=st.one_of(st.integers(-2, 320), st.floats(0, 1.2, allow_nan=False)),
    seed=st.one_of(st.integers(0, 1000), st.floats(0, 1, allow_nan=False)),
    alpha=st.one_of(st.just(2 / (np.sqrt(5) + 1)), st.floats(0, 1, allow_nan=False), st.integers(1, 50)),
)
def test_sample_ld_is_the_references(total, samples, seed, alpha):
    ours = outcome(lambda: sample.sample_ld(total, samples, seed=seed, alpha=alpha))
    theirs = outcome(lambda: ref_sample.sample_ld(total, samples, seed=seed, alpha=alpha))
    same(ours, theirs)
    if isinstance(theirs, np.ndarray):
        assert ours.dtype == theirs.dtype == np.int64


class Items:
    def __init__(self, n):
        self.n = n

    def __getitem__(self, index):
        if not 0 <= index < self.n:
            raise IndexError(index)
        return int(index) * 10

    def __len__(self):
        return self.n

    def __repr__(self):
        return f"Items({self.n})"


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(1, 80),
    samples=st.one_of(st.integers(0, 100), st.floats(0, 1, allow_nan=False)),
    seed=st.one_of(st.integers(0, 100), st.floats(0, 1, allow_nan=False)),
    mode=st.sampled_from(["ld", "uniform", "random", "every-third"]),
)
def test_a_sampled_dataset_is_the_references(n, samples, seed, mode):
    chosen = (lambda total: np.arange(0, total, 3)) if mode == "every-third" else mode
    ours = outcome(lambda: sample.SampledDataset(Items(n), samples, seed=seed, mode=chosen))
    theirs = outcome(lambda: ref_sample.SampledDataset(Items(n), samples, seed=seed, mode=chosen))
    if isinstance(theirs, Exception):
        assert type(ours) is type(theirs)
        return
    np.testing.assert_array_equal(ours.subset, theirs.subset)
    assert len(ours) == len(theirs) and repr(ours) == repr(theirs)
    for i in range(-len(theirs) - 1, len(theirs) + 1):
        same(outcome(lambda: ours[i]), outcome(lambda: theirs[i]))
    assert [repr(child) for child in ours.children()] == [repr(child) for child in theirs.children()]


def graphs(module):
    """The same graph, built with ``module``'s classes: a chain with an
    optional input, a node with two outputs, and a node given as a dict."""
    return {
        "scale": module.Node(transform=lambda x, by=1: x * by, output="scaled",
                             inputs={"x": "raw"}, optional={"by": "factor"}),
        "split": module.Node(transform=lambda v: (v - 1, v + 1), output=["low", "high"],
                             inputs={"v": "scaled"}),
        "sum": {"transform": lambda a, b: a + b, "output": "total", "inputs": {"a": "low", "b": "high"}},
    }


@settings(max_examples=200, deadline=None)
@given(
    data=st.dictionaries(st.sampled_from(["raw", "factor", "extra", "low"]), st.integers(-5, 5)),
    outputs=st.one_of(st.none(), st.dictionaries(st.sampled_from(["out", "y"]),
                                                   st.sampled_from(["total", "scaled", "low", "raw"]),
                                                   min_size=1)),
    keep_all=st.booleans(),
)
def test_a_graph_transform_is_the_references(data, outputs, keep_all):
    ours = graph.Transform(outputs=outputs, keep_all=keep_all, **graphs(graph))
    theirs = ref_graph.Transform(outputs=outputs, keep_all=keep_all, **graphs(ref_graph))
    a, b = outcome(lambda: ours(dict(data))), outcome(lambda: theirs(dict(data)))
    same(a, b)
    if isinstance(b, ValueError):
        assert str(a) == str(b)
    assert repr(ours) == repr(theirs) == "TransformGraph(scale, split, sum)"
    assert len(list(ours.children())) == len(list(theirs.children())) == 3


def test_a_graphs_errors_are_the_references():
    def checks(module):
        return [
            lambda: module.Transform(bad={"transform": abs})({}),
            lambda: module.Transform(n=module.Node(transform=lambda a: a, output=["p", "q"],
                                                   inputs={"a": "a"}))({"a": 1}),
            lambda: module.Transform(n=module.Node(transform=lambda a: (a, a, a), output=["p", "q"],
                                                   inputs={"a": "a"}))({"a": 1}),
            lambda: module.Transform(n=module.Node(transform=abs, output="o", inputs={"x": "missing"}))({"a": 1}),
        ]

    for ours, theirs in zip(checks(graph), checks(ref_graph)):
        a, b = outcome(ours), outcome(theirs)
        assert type(a) is type(b) and isinstance(b, Exception)
        assert str(a) == str(b)


def test_types_are_the_references():
    for module in (types, ref_types):
        @module.dataclass
        class Box(Generic[module.TArray]):
            lo: module.TArray
            hi: module.TArray

        boxes = [Box(lo=np.zeros(2), hi=np.ones(2)), Box(lo=np.ones(2), hi=np.full(2, 2.0))]
        stacked = optree.tree_map(lambda *xs: np.stack(xs), *boxes)
        assert isinstance(stacked, Box) and stacked.lo.shape == (2, 2)
        assert optree.tree_structure(boxes[0]).num_leaves == 2
        assert isinstance(np.zeros(1), module.ArrayLike) and not isinstance([1], module.ArrayLike)
        assert module.TArray.__bound__ is module.ArrayLike
    # A sample of adl's types is a sample of the reference's kind too.
    assert isinstance(np.zeros(1), ref_types.ArrayLike)
    assert types.TArray.__name__ == ref_types.TArray.__name__


@types.dataclass
class Pair(Generic[types.TArray]):
    left: types.TArray
    right: types.TArray


def test_a_types_dataclass_pickles_and_compares():
    pair = Pair(left=np.arange(2), right=np.arange(3))
    again = pickle.loads(pickle.dumps(pair))
    np.testing.assert_array_equal(again.right, pair.right)
    assert optree.tree_leaves(again)[1].tolist() == [0, 1, 2]
    with pytest.raises(TypeError):
        Pair(left=np.arange(2))
