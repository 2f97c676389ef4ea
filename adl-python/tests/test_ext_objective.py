"""adl.ext.objective against abstract_dataloader.ext.objective 0.4.7: the
same losses, metrics, visualizations and renders from the same
objectives and inputs (hypothesis over weights, indexing and missing
inputs), the same errors and the same skipping."""

import logging
import re
from dataclasses import dataclass

import numpy as np
import pytest
import torch
from abstract_dataloader.ext import objective as reference
from hypothesis import given, settings
from hypothesis import strategies as st

from adl.ext import objective as ours


class SquaredError:
    """A per-sample loss, a metric, an image and a render; `mask` as an
    auxiliary input."""

    def __call__(self, y_true, y_pred, train=True, mask=None):
        error = (y_true - y_pred) ** 2
        if mask is not None:
            error = error * mask
        loss = error.reshape(error.shape[0], -1).mean(axis=1)
        metrics = {"max": error.reshape(error.shape[0], -1).max(axis=1)}
        if not train:
            metrics["sum"] = error.reshape(error.shape[0], -1).sum(axis=1)
        return loss, metrics

    def visualizations(self, y_true, y_pred, mask=None):
        return {"error": np.full((2, 2, 3), int(abs(y_true - y_pred).max() * 10) % 256, np.uint8)}

    def render(self, y_true, y_pred, render_gt=False, mask=None):
        return {"pred": y_pred * 2, **({"gt": y_true} if render_gt else {})}


@dataclass
class Outputs:
    """Model outputs as an object, indexed by attribute."""

    depth: np.ndarray
    heads: dict


specs = st.fixed_dictionaries({
    "weight": st.floats(0.1, 3),
    "y_true": st.sampled_from(["depth", ("targets", "depth"), None]),
    "y_pred": st.sampled_from(["depth", ("heads", "depth"), "missing"]),
    "aux": st.sampled_from([{}, {"mask": "mask"}, {"mask": ("targets", "mask")}]),
})


@st.composite
def problems(draw):
    """Inputs and two or three objective specs (some of them pointing at
    a missing input)."""
    shape = (draw(st.integers(1, 3)), draw(st.integers(1, 4)))
    values = st.lists(st.floats(-5, 5), min_size=shape[0] * shape[1],
                      max_size=shape[0] * shape[1]).map(lambda v: np.array(v).reshape(shape))
    depth, mask = draw(values), (draw(values) > 0).astype(np.float64)
    y_true = {"depth": depth, "mask": mask, "targets": {"depth": depth, "mask": mask}}
    prediction = draw(values)
    y_pred = Outputs(prediction, {"depth": prediction})
    names = draw(st.lists(st.sampled_from(["depth", "aux", "third"]), min_size=2,
                          max_size=3, unique=True))
    chosen = {name: draw(specs) for name in names}
    # y_true None gives the whole dict; the objective needs an array.
    for spec in chosen.values():
        if spec["y_true"] is None:
            spec["y_true"] = "depth"
    return y_true, y_pred, chosen


def run(module, y_true, y_pred, specs, strict, train):
    """Loss, metrics, visualizations, renders; or the exception raised."""
    multi = module.MultiObjective(
        strict=strict, **{k: {"objective": SquaredError(), **v} for k, v in specs.items()})
    try:
        loss, metrics = multi(y_true, y_pred, train=train)
        return ("ok", loss, metrics, multi.visualizations(y_true, y_pred),
                multi.render(y_true, y_pred, render_gt=True))
    except Exception as error:  # noqa: BLE001 (compared with the reference's)
        return ("error", type(error).__name__.replace("MissingInputError", "Missing"),
                re.split(r"[:.]", str(error))[0])


@settings(max_examples=150, deadline=None)
@given(problems(), st.booleans(), st.booleans())
def test_multi_objective_gives_the_references_results(problem, strict, train):
    y_true, y_pred, specs = problem
    got = run(ours, y_true, y_pred, specs, strict, train)
    expected = run(reference, y_true, y_pred, specs, strict, train)
    assert got[0] == expected[0], (got, expected)
    if got[0] == "error":
        assert got[1:] == expected[1:]
        return
    np.testing.assert_array_equal(got[1], expected[1])
    for mine, theirs in zip(got[2:], expected[2:]):
        assert list(mine) == list(theirs)
        for key in mine:
            np.testing.assert_array_equal(mine[key], theirs[key], err_msg=key)


def test_the_loss_sums_torch_tensors_in_order_with_gradients():
    pred = torch.tensor([[1.0, 2.0]], requires_grad=True)
    truth = torch.tensor([[0.0, 0.0]])
    multi = ours.MultiObjective(a={"objective": SquaredError(), "weight": 0.5},
                                b=ours.MultiObjectiveSpec(SquaredError(), weight=2.0))
    loss, metrics = multi(truth, pred)
    assert torch.allclose(loss, torch.tensor([2.5 * 2.5]))
    loss.sum().backward()
    assert pred.grad is not None
    assert list(metrics) == ["a/max", "b/max"]


def test_missing_inputs_name_what_is_missing_as_the_reference_does():
    for data, key in [({"a": 1}, "b"), (Outputs(np.zeros(1), {}), "nothing")]:
        spec_ours = ours.MultiObjectiveSpec(SquaredError(), y_true=key)
        spec_ref = reference.MultiObjectiveSpec(SquaredError(), y_true=key)
        with pytest.raises(ours.MissingInputError) as got:
            spec_ours.index_y_true(data)
        with pytest.raises(reference.MissingInputError) as expected:
            spec_ref.index_y_true(data)
        assert str(got.value) == str(expected.value)
        assert (got.value.key, got.value.kind) == (expected.value.key, expected.value.kind)
        assert got.value.obj is data


def test_a_skipped_objective_is_logged_once_per_method(caplog):
    multi = ours.MultiObjective(strict=False, good={"objective": SquaredError(), "y_true": "x"},
                                bad={"objective": SquaredError(), "y_true": "absent"})
    data = {"x": np.ones((1, 1))}
    with caplog.at_level(logging.WARNING, logger="adl.ext.objective"):
        multi(data, np.zeros((1, 1)))
        multi(data, np.zeros((1, 1)))
        multi.visualizations(data, np.zeros((1, 1)))
        multi.render(data, np.zeros((1, 1)))
        multi.render(data, np.zeros((1, 1)))
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 3
    assert all("'bad'" in m and "absent" in m and "will only be shown once" in m
               for m in messages)


def test_errors_when_there_is_nothing_to_compute():
    with pytest.raises(ValueError, match="at least one objective"):
        ours.MultiObjective()
    multi = ours.MultiObjective(strict=False, a={"objective": SquaredError(), "y_true": "no"})
    with pytest.raises(RuntimeError, match="No valid objectives were computed"):
        multi({"x": 1}, np.zeros(1))
    with pytest.raises(TypeError, match="not int"):
        ours.MultiObjectiveSpec(SquaredError(), y_true=3).index_y_true({})


def test_visualization_config_and_protocol():
    assert ours.VisualizationConfig() == ours.VisualizationConfig(8, 512, 256, {})
    assert vars(ours.VisualizationConfig()) == vars(reference.VisualizationConfig())
    with pytest.raises(AttributeError):
        ours.VisualizationConfig().cols = 3
    assert isinstance(SquaredError(), ours.Objective)
    multi = ours.MultiObjective(a={"objective": SquaredError()})
    assert isinstance(multi, ours.Objective) and list(multi.children())[0] is \
        multi.objectives["a"].objective

    class Minimal(ours.Objective):
        def __call__(self, y_true, y_pred, train=True):
            return y_pred, {}

    assert Minimal().visualizations(1, 2) == {} and Minimal().render(1, 2) == {}
