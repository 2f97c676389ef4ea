"""adl.default_collate on dataclasses and nested pytrees, against the
reference's ``abstract_dataloader.ext.torch.Collate(mode="stack")``, which
batches the optree dataclasses of ``ext.types`` with ``optree.tree_map``.

The two differ where PyTorch's ``default_collate`` (adl's model) and the
reference's collate differ, and the comparison allows for exactly that:
a tuple becomes a list (``default_collate``'s rule), and a column of
Python floats is float64 (``default_collate``) where ``torch.tensor``
makes float32 (so it is compared at float32). Everything else is equal:
structure, classes, dtypes, shapes, values.
"""

import collections
import dataclasses
from typing import Generic

import numpy as np
import optree
import pytest
import torch
from abstract_dataloader.ext.torch import Collate as ReferenceCollate
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import adl
from adl.ext import types

Point = collections.namedtuple("Point", ["x", "y"])


@types.dataclass
class Pair(Generic[types.TArray]):
    """Two fields of any kind."""

    first: types.TArray
    second: types.TArray


@types.dataclass
class Single(Generic[types.TArray]):
    """One field."""

    value: types.TArray


@types.dataclass
class Other(Generic[types.TArray]):
    """One field, another class than `Single`."""

    value: types.TArray


@optree.dataclasses.dataclass(namespace="")
class Scan:
    """A field kept as metadata (optree: pytree_node=False) and one made
    by the class (init=False)."""

    ranges: np.ndarray
    sensor: str = optree.dataclasses.field(default="lidar", pytree_node=False)
    count: int = optree.dataclasses.field(init=False, pytree_node=False)

    def __post_init__(self) -> None:
        self.count = int(np.asarray(self.ranges).size)


@dataclasses.dataclass
class Plain:
    """A dataclass that optree does not know."""

    image: np.ndarray
    label: int


DTYPES = [np.bool_, np.uint8, np.int16, np.int32, np.int64, np.float32, np.float64]

leaves = st.one_of(
    st.tuples(st.just("array"), st.sampled_from(DTYPES),
              hnp.array_shapes(min_dims=0, max_dims=3, max_side=3)),
    st.just(("int",)), st.just(("float",)), st.just(("bool",)), st.just(("str",)),
)


def containers(children):
    """A container of `children` schemas."""
    keys = st.text("abcxyz", min_size=1, max_size=3)
    return st.one_of(
        st.dictionaries(keys, children, min_size=1, max_size=3).map(lambda d: ("dict", d)),
        st.lists(children, min_size=1, max_size=3).map(lambda items: ("list", items)),
        st.lists(children, min_size=1, max_size=3).map(lambda items: ("tuple", items)),
        st.tuples(children, children).map(lambda pair: ("point", pair)),
        st.tuples(children, children).map(lambda pair: ("pair", pair)),
        children.map(lambda child: ("single", child)),
    )


schemas = st.recursive(leaves, containers, max_leaves=8)


def values(schema):
    """A strategy for one sample of `schema`."""
    kind = schema[0]
    if kind == "array":
        _, dtype, shape = schema
        elements = st.floats(width=32, allow_nan=False) if np.dtype(dtype).kind == "f" else None
        return hnp.arrays(dtype, shape, elements=elements)
    if kind == "int":
        return st.integers(-(2**62), 2**62)
    if kind == "float":
        return st.floats(width=32, allow_nan=False)
    if kind == "bool":
        return st.booleans()
    if kind == "str":
        return st.text(max_size=4)
    if kind == "dict":
        items = schema[1]
        return st.fixed_dictionaries({k: values(v) for k, v in items.items()})
    if kind in ("list", "tuple"):
        parts = st.tuples(*(values(s) for s in schema[1]))
        return parts.map(list) if kind == "list" else parts
    if kind == "point":
        return st.tuples(*(values(s) for s in schema[1])).map(lambda xy: Point(*xy))
    if kind == "pair":
        return st.tuples(*(values(s) for s in schema[1])).map(lambda ab: Pair(*ab))
    return values(schema[1]).map(Single)


@st.composite
def batches(draw):
    """Between 1 and 4 samples of one schema."""
    schema = draw(schemas)
    return draw(st.lists(values(schema), min_size=1, max_size=4))


def assert_same(ours, reference, path="batch"):
    """`ours` (adl.default_collate) is `reference` (the reference's
    Collate), allowing for default_collate's tuples-as-lists and float64
    Python floats."""
    if isinstance(reference, torch.Tensor):
        expected = reference.numpy()
        assert isinstance(ours, np.ndarray), f"{path}: {type(ours)}"
        assert ours.shape == expected.shape, path
        if ours.dtype == np.float64 and expected.dtype == np.float32:
            ours = ours.astype(np.float32)
        assert ours.dtype == expected.dtype, f"{path}: {ours.dtype} != {expected.dtype}"
        np.testing.assert_array_equal(ours, expected, err_msg=path)
    elif dataclasses.is_dataclass(reference):
        assert type(ours) is type(reference), path
        for field in dataclasses.fields(reference):
            assert_same(getattr(ours, field.name), getattr(reference, field.name),
                        f"{path}.{field.name}")
    elif isinstance(reference, tuple) and hasattr(reference, "_fields"):
        assert type(ours) is type(reference), path
        for name in reference._fields:
            assert_same(getattr(ours, name), getattr(reference, name), f"{path}.{name}")
    elif isinstance(reference, dict):
        assert isinstance(ours, dict) and list(ours) == list(reference), path
        for key in reference:
            assert_same(ours[key], reference[key], f"{path}[{key!r}]")
    elif isinstance(reference, (list, tuple)):
        assert isinstance(ours, list) and len(ours) == len(reference), path
        for at, (a, b) in enumerate(zip(ours, reference)):
            assert_same(a, b, f"{path}[{at}]")
    else:
        assert ours == reference, path


@settings(max_examples=300, deadline=None)
@given(batches())
def test_nested_pytrees_and_dataclasses_are_collated_as_the_reference_does(samples):
    assert_same(adl.default_collate(samples), ReferenceCollate(mode="stack")(samples))


def test_metadata_and_derived_fields_are_kept_as_optree_keeps_them():
    samples = [Scan(np.arange(3.0)), Scan(np.arange(3.0) + 1)]
    ours = adl.default_collate(samples)
    reference = ReferenceCollate(mode="stack")(samples)
    assert type(ours) is Scan and ours.sensor == reference.sensor == "lidar"
    assert ours.count == reference.count == 6
    np.testing.assert_array_equal(ours.ranges, reference.ranges.numpy())


def test_a_dataclass_optree_does_not_know_is_collated_by_field():
    samples = [Plain(np.full((2, 2), k, np.uint8), k) for k in range(3)]
    batch = adl.default_collate(samples)
    assert type(batch) is Plain
    np.testing.assert_array_equal(batch.image, np.stack([s.image for s in samples]))
    np.testing.assert_array_equal(batch.label, np.array([0, 1, 2]))
    assert batch.label.dtype == np.int64


def test_two_classes_in_one_batch_are_an_error_naming_the_path_and_both():
    samples = [{"radar": [Single(np.zeros(2))]}, {"radar": [Other(np.zeros(2))]}]
    with pytest.raises(TypeError) as raised:
        adl.default_collate(samples)
    message = str(raised.value)
    assert "sample['radar'][0]" in message
    assert "Single" in message and "Other" in message and "sample 1" in message


def test_a_dataclass_among_other_values_is_an_error_naming_both():
    with pytest.raises(TypeError, match=r"sample\.value.*Single.*dict"):
        adl.default_collate([Single(Single(np.zeros(1))), Single({"a": np.zeros(1)})])


def test_metadata_that_differs_between_samples_is_an_error_naming_the_field():
    with pytest.raises(ValueError, match=r"sample\[1\]\.sensor.*'lidar'.*'radar'"):
        adl.default_collate([(0, Scan(np.zeros(2))), (1, Scan(np.zeros(2), "radar"))])


def test_a_class_that_refuses_the_batch_is_an_error_naming_where():
    @dataclasses.dataclass
    class Checked:
        image: np.ndarray

        def __post_init__(self):
            if self.image.ndim != 2:
                raise ValueError("an image is 2-D")

    with pytest.raises(TypeError, match=r"sample\['camera'\] could not be rebuilt") as raised:
        adl.default_collate([{"camera": Checked(np.zeros((2, 2)))}] * 2)
    assert isinstance(raised.value.__cause__, ValueError)


def test_the_loader_batches_dataclasses_with_it():
    samples = [Pair(np.full(3, k, np.float32), {"k": k}) for k in range(6)]
    loader = adl.Loader(samples, batch_size=3)
    batches = list(loader.epoch(0))
    assert len(batches) == 2 and all(type(b) is Pair for b in batches)
    np.testing.assert_array_equal(batches[1].first, np.stack([s.first for s in samples[3:]]))
    np.testing.assert_array_equal(batches[1].second["k"], [3, 4, 5])
