"""adl.ext.augment against abstract_dataloader.ext.augment 0.4.7: from the
same generator state, every augmentation draws the same values (and the
same number of values), of the same types; Augmentations draws them per
process, by name, only when training."""

import os

import numpy as np
import pytest
from abstract_dataloader.ext import augment as reference
from hypothesis import given, settings
from hypothesis import strategies as st

from adl.ext import augment as ours

probabilities = st.one_of(st.sampled_from([0.0, 0.5, 1.0, 1.5]), st.floats(0, 1))
positive = st.floats(0.01, 10)


@st.composite
def augmentations(draw):
    """The same augmentation, built by both modules."""
    kind = draw(st.sampled_from(["Bernoulli", "Normal", "TruncatedLogNormal", "Uniform"]))
    kwargs = {"p": draw(probabilities)}
    if kind in ("Normal", "TruncatedLogNormal"):
        kwargs["std"] = draw(positive)
    if kind == "TruncatedLogNormal":
        kwargs["clip"] = draw(st.sampled_from([0.0, 0.5, 2.0]))
    if kind == "Uniform":
        low = draw(st.floats(-10, 10))
        kwargs["lower"], kwargs["upper"] = low, low + draw(positive)
    return getattr(ours, kind)(**kwargs), getattr(reference, kind)(**kwargs)


@settings(max_examples=200, deadline=None)
@given(augmentations(), st.integers(0, 2**32 - 1))
def test_each_augmentation_draws_what_the_reference_draws(pair, seed):
    mine, theirs = pair
    rng_mine, rng_theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    for _ in range(20):
        got, expected = mine(rng_mine), theirs(rng_theirs)
        assert type(got) is type(expected)
        assert got == expected
    # The same number of draws: the generators are still in step.
    assert rng_mine.random() == rng_theirs.random()


def test_defaults_are_the_references():
    for name in ["Bernoulli", "Normal", "TruncatedLogNormal", "Uniform"]:
        assert vars(getattr(ours, name)()) == vars(getattr(reference, name)())


def test_augmentations_draw_by_name_in_this_process_only_when_training():
    kwargs = dict(flip=(ours.Bernoulli, reference.Bernoulli, {"p": 0.5}),
                  scale=(ours.TruncatedLogNormal, reference.TruncatedLogNormal, {"p": 0.7}),
                  azimuth=(ours.Uniform, reference.Uniform, {}))
    mine = ours.Augmentations(**{k: a(**kw) for k, (a, _, kw) in kwargs.items()})
    theirs = reference.Augmentations(**{k: b(**kw) for k, (_, b, kw) in kwargs.items()})
    for meta in [{"train": True}, {}, {"train": True, "split": "train"}] * 5:
        got, expected = mine(meta), theirs(meta)
        assert list(got) == ["flip", "scale", "azimuth"]
        assert got == expected
    assert mine({"train": False}) == theirs({"train": False}) == {}
    assert mine() == theirs()
    assert mine.rng is mine.rng
    np.testing.assert_equal(
        ours.Augmentations().rng.random(3), np.random.default_rng(os.getpid()).random(3))
    assert list(mine.children()) == list(mine.augmentations.values())
    assert ours.Augmentations()() == {}


def test_augmentation_is_a_protocol_that_any_generator_function_meets():
    assert isinstance(ours.Bernoulli(), ours.Augmentation)
    assert isinstance(lambda rng: rng.random(), ours.Augmentation)
    assert not isinstance(3, ours.Augmentation)


@pytest.mark.parametrize("cls,off", [(ours.Normal, 0.0), (ours.TruncatedLogNormal, 1.0),
                                     (ours.Uniform, 0.0)])
def test_a_disabled_augmentation_is_its_neutral_value(cls, off):
    rng = np.random.default_rng(0)
    assert all(cls(p=0.0)(rng) == off for _ in range(10))
