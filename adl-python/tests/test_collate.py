"""adl.default_collate against PyTorch's default_collate, as recorded in
tests/golden/torch_collate.json (PyTorch's own outputs and errors): the
same structure, dtypes, shapes and values, NumPy arrays where PyTorch
gives tensors from NumPy arrays and numbers, tensors where the samples
hold tensors; the same exception classes."""

import collections
import json
import os

import numpy as np
import pytest

import adl

GOLDEN = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                      "tests", "golden", "torch_collate.json")
CASES = [c for c in json.load(open(GOLDEN))["cases"] if c["kind"] == "torch.utils.data.default_collate"]


def decode(value):
    """A golden input as the Python value it was recorded from."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__ndarray__" in value:
        spec = value["__ndarray__"]
        return np.array(spec["values"], dtype=spec["dtype"]).reshape(spec["shape"])
    if "__npscalar__" in value:
        spec = value["__npscalar__"]
        return np.dtype(spec["dtype"]).type(spec["value"])
    if "__tuple__" in value:
        return tuple(decode(v) for v in value["__tuple__"])
    if "__namedtuple__" in value:
        spec = value["__namedtuple__"]
        kind = collections.namedtuple(spec["name"], list(spec["fields"]))
        return kind(**{k: decode(v) for k, v in spec["fields"].items()})
    if "__bytes__" in value:
        return bytes.fromhex(value["__bytes__"])
    if "__tensor__" in value:
        import torch

        spec = value["__tensor__"]
        return torch.tensor(spec["values"], dtype=getattr(torch, spec["dtype"])).reshape(spec["shape"])
    return {k: decode(v) for k, v in value.items()}


def check(ours, expected, tensors=False):
    if isinstance(expected, dict) and "__tensor__" in expected:
        spec = expected["__tensor__"]
        if tensors:
            import torch

            assert isinstance(ours, torch.Tensor), ours
            ours = ours.numpy()
        assert isinstance(ours, np.ndarray), ours
        assert str(ours.dtype) == spec["dtype"] and list(ours.shape) == spec["shape"]
        np.testing.assert_array_equal(ours, np.array(spec["values"], dtype=spec["dtype"]))
    elif isinstance(expected, dict) and "__namedtuple__" in expected:
        spec = expected["__namedtuple__"]
        assert type(ours).__name__ == spec["name"] and list(ours._fields) == list(spec["fields"])
        for field, value in spec["fields"].items():
            check(getattr(ours, field), value)
    elif isinstance(expected, dict) and "__bytes__" in expected:
        assert ours == bytes.fromhex(expected["__bytes__"])
    elif isinstance(expected, dict):
        assert isinstance(ours, dict) and list(ours) == list(expected)
        for key in expected:
            check(ours[key], expected[key])
    elif isinstance(expected, list):
        assert isinstance(ours, list) and len(ours) == len(expected)
        for a, b in zip(ours, expected):
            check(a, b)
    else:
        assert ours == expected


def uses_torch(value):
    return "__tensor__" in json.dumps(value)


@pytest.mark.parametrize("case", [c for c in CASES if uses_torch(c["input"])], ids=lambda c: c["id"])
def test_tensors_are_collated_as_pytorch_collates_them(case):
    pytest.importorskip("torch")
    samples = decode(case["input"])
    check(adl.default_collate(samples), case["expected"]["output"], tensors=True)


def test_tensors_of_another_shape_are_pytorchs_error():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        adl.default_collate([torch.zeros(2), torch.zeros(3)])
    batch = adl.default_collate([{"x": torch.ones(2, 3), "n": 1}, {"x": torch.zeros(2, 3), "n": 2}])
    assert isinstance(batch["x"], torch.Tensor) and batch["x"].shape == (2, 2, 3)
    assert isinstance(batch["n"], np.ndarray)


@pytest.mark.parametrize("case", [c for c in CASES if not uses_torch(c["input"])], ids=lambda c: c["id"])
def test_default_collate_is_pytorchs(case):
    samples = decode(case["input"])
    expected = case["expected"]
    if "error" in expected:
        with pytest.raises(Exception) as raised:
            adl.default_collate(samples)
        assert type(raised.value).__name__ == expected["error"]["type"], raised.value
        if expected["error"]["type"] != "TypeError" or "default_collate" in expected["error"]["message"]:
            assert str(raised.value).strip("'\"") == expected["error"]["message"].strip("'\"")
    else:
        check(adl.default_collate(samples), expected["output"])


def test_the_cases_cover_every_kind():
    # All but the cases whose inputs are PyTorch's own tensors.
    assert len([c for c in CASES if not uses_torch(c["input"])]) >= 30


def test_arrays_are_stacked_whatever_their_order_in_memory():
    base = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    samples = [base[0].T, base[1].T, np.asfortranarray(base[0].T)]
    out = adl.default_collate(samples)
    np.testing.assert_array_equal(out, np.stack(samples))
    assert out.flags.c_contiguous
    with pytest.raises(RuntimeError, match="one dtype"):
        adl.default_collate([np.zeros(2, np.float32), np.zeros(2, np.float64)])
