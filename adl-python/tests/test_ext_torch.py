"""adl.ext.torch against abstract_dataloader.ext.torch 0.4.7: Collate's
batches (hypothesis, both modes, with and without scalars converted),
TransformedDataset, and Pipeline's submodules, state and stages."""

import collections
from typing import Generic

import numpy as np
import pytest
import torch
from abstract_dataloader.ext import torch as reference
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from adl import abstract
from adl.ext import graph, types
from adl.ext import torch as ours

Point = collections.namedtuple("Point", ["x", "y"])


@types.dataclass
class Frame(Generic[types.TArray]):
    """A sample type as roverd declares them."""

    image: types.TArray
    timestamps: types.TArray


def same(a, b, path="batch"):
    """Equal structure, classes, dtypes and values (tensors exactly)."""
    assert type(a) is type(b), f"{path}: {type(a)} is not {type(b)}"
    if isinstance(a, torch.Tensor):
        assert a.dtype == b.dtype and a.shape == b.shape, path
        assert torch.equal(a, b) or bool(torch.isclose(a, b, rtol=0, atol=0, equal_nan=True).all()), path
    elif isinstance(a, dict):
        assert list(a) == list(b), path
        for key in a:
            same(a[key], b[key], f"{path}[{key!r}]")
    elif isinstance(a, Frame):
        same(a.image, b.image, f"{path}.image")
        same(a.timestamps, b.timestamps, f"{path}.timestamps")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for at, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{at}]")
    else:
        assert a == b, path


@st.composite
def frame_batches(draw):
    """1 to 4 samples of a nested structure: arrays (with a leading axis
    of 1 half the time, as roverd's samples have), Python scalars,
    strings, a named tuple and a dataclass."""
    count = draw(st.integers(1, 4))
    dtype = draw(st.sampled_from([np.uint8, np.int16, np.float32, np.float64]))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=3))
    arrays = hnp.arrays(dtype, shape, elements=st.integers(0, 100))
    samples = []
    for _ in range(count):
        samples.append({
            "frame": Frame(draw(arrays), draw(hnp.arrays(np.float64, (1,)))),
            "meta": {"index": draw(st.integers(-5, 5)), "scale": draw(st.floats(-2, 2)),
                     "train": draw(st.booleans()), "name": draw(st.text(max_size=3))},
            "pose": Point(draw(arrays), (draw(arrays), draw(st.integers(0, 9)))),
        })
    return samples


@settings(max_examples=150, deadline=None)
@given(frame_batches(), st.sampled_from(["stack", "concat"]), st.booleans())
def test_collate_makes_the_references_batches(samples, mode, convert_scalars):
    expected = reference.Collate(mode=mode, convert_scalars=convert_scalars)(samples)
    got = ours.Collate(mode=mode, convert_scalars=convert_scalars)(samples)
    same(got, expected)


def test_collate_concatenates_by_default_and_refuses_an_unknown_mode():
    samples = [np.ones((1, 2)), np.zeros((1, 2))]
    assert ours.Collate()(samples).shape == reference.Collate()(samples).shape == (2, 2)
    with pytest.raises(ValueError, match="'stack' or 'concat', not 'stacked'"):
        ours.Collate(mode="stacked")
    with pytest.raises(ValueError, match="at least one sample"):
        ours.Collate()([])


def test_collate_names_a_mismatch_in_structure():
    with pytest.raises(ValueError):
        ours.Collate()([{"a": np.zeros(1)}, {"b": np.zeros(1)}])


def test_transformed_dataset_is_the_references():
    data = [np.full(2, k) for k in range(5)]
    double = lambda x: x * 2  # noqa: E731
    got = ours.TransformedDataset(data, transform=double)
    expected = reference.TransformedDataset(data, transform=double)
    assert isinstance(got, torch.utils.data.Dataset)
    assert len(got) == len(expected) == 5
    for k in range(5):
        np.testing.assert_array_equal(got[k], expected[k])
    np.testing.assert_array_equal(got[np.int64(3)], data[3] * 2)
    assert repr(got) == repr(expected)
    assert list(got.children()) == [data, double]
    with pytest.raises(IndexError):
        got[5]


class Scale(torch.nn.Module):
    """A module with a parameter."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.tensor(2.0))

    def forward(self, batch):
        return batch * self.weight


def test_pipeline_finds_modules_through_children_as_the_reference_does():
    module, inner = Scale(), Scale()
    batch = graph.Transform(
        outputs={"result": "processed"},
        process={"transform": module, "output": "processed", "inputs": {"batch": "input"}})
    sample = abstract.Transform([lambda x: x, inner])
    got = ours.Pipeline(sample=sample, collate=ours.Collate(), batch=batch)
    assert list(got.submodules) == [inner, module]
    assert {id(p) for p in got.parameters()} == {id(module.weight), id(inner.weight)}
    assert isinstance(got, torch.nn.Module) and isinstance(got, abstract.Pipeline)

    expected = reference.Pipeline(sample=sample, collate=reference.Collate(), batch=batch)
    assert list(expected.submodules) == list(got.submodules)

    assert not hasattr(ours.Pipeline(sample=lambda x: x), "submodules")


def test_pipeline_has_no_state_and_takes_any():
    got = ours.Pipeline(batch=Scale())
    assert got.state_dict() == {}
    keys = got.load_state_dict({"anything": torch.zeros(1)})
    assert keys.missing_keys == [] and keys.unexpected_keys == []


def test_pipeline_stages_default_to_the_identity_and_call_what_is_given():
    plain = ours.Pipeline()
    assert plain.sample(3) == 3 and plain.collate([1, 2]) == [1, 2] and plain.batch("b") == "b"

    piped = ours.Pipeline(sample=lambda x: x + 1, collate=ours.Collate(mode="stack"),
                          batch=Scale())
    batch = piped.collate([piped.sample(np.ones(2)), piped.sample(np.zeros(2))])
    # The module given as `batch` is what `batch` calls (the reference
    # registers it but calls the identity method instead).
    assert torch.equal(piped.batch(batch), torch.tensor([[4.0, 4.0], [2.0, 2.0]], dtype=torch.float64))


def test_importing_adl_imports_neither_torch_nor_lightning():
    import subprocess
    import sys

    code = ("import sys, adl, adl.ext, adl.ext.types, adl.ext.augment, adl.ext.objective; "
            "print('torch' in sys.modules, 'lightning' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
