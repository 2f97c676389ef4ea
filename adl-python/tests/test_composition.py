"""adl.generic's compositions and Window against abstract-dataloader
0.4.7's, on random sensors, windows and data: the same results and the
same exception classes."""

import numpy as np
from abstract_dataloader import generic as reference
from abstract_dataloader import spec
from beartype.door import is_bearable
from hypothesis import given, settings
from hypothesis import strategies as st

from adl import files, generic
from differential import outcome, same


class Sensor:
    def __init__(self, n):
        self.metadata = generic.Metadata(timestamps=np.arange(n) * 0.1)
        self.values = [np.full(2, i) for i in range(n)]

    def __getitem__(self, i):
        return self.values[i]

    def __len__(self):
        return len(self.values)

    def __repr__(self):
        return f"Sensor(n={len(self)})"




@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(0, 12),
    past=st.integers(0, 4),
    future=st.integers(0, 4),
    crop=st.booleans(),
    parallel=st.one_of(st.none(), st.integers(1, 3)),
    stack=st.booleans(),
)
def test_window_is_the_references(n, past, future, crop, parallel, stack):
    sensor = Sensor(n)
    collate = np.stack if stack else None
    ours = generic.Window(sensor, collate_fn=collate, past=past, future=future, crop=crop, parallel=parallel)
    theirs = reference.Window(sensor, collate_fn=collate, past=past, future=future, crop=crop, parallel=parallel)
    np.testing.assert_array_equal(ours.metadata.timestamps, theirs.metadata.timestamps)
    assert len(ours) == len(theirs) and repr(ours) == repr(theirs)
    same(outcome(lambda: ours.duration), outcome(lambda: theirs.duration))
    for i in range(-2, len(theirs) + 3):
        same(outcome(lambda: ours[i]), outcome(lambda: theirs[i]))
    same(outcome(lambda: list(ours.stream())), outcome(lambda: list(theirs.stream())))
    same(outcome(lambda: list(ours.stream(2))), outcome(lambda: list(theirs.stream(2))))
    make_ours = generic.Window.from_partial_sensor(Sensor, past=past, future=future, crop=crop)
    make_theirs = reference.Window.from_partial_sensor(Sensor, past=past, future=future, crop=crop)
    assert len(make_ours(n)) == len(make_theirs(n))
    assert is_bearable(ours, spec.Sensor)


class Affine:
    def __init__(self, scale, shift):
        self.scale, self.shift = scale, shift

    def sample(self, x):
        return x * self.scale

    def collate(self, xs):
        return np.array(list(xs))

    def batch(self, b):
        return b + self.shift


def test_parallel_pipelines_are_the_references():
    # The reference's own test: a = (x2, stack, +5 each), b = (+1, stack, +2 each).
    for module in (generic, reference):
        pipeline = module.ParallelPipelines(a=Affine(2, 0), b=Affine(1, 0))
        raw = [{"a": 1, "b": 2, "dropped": 0}, {"a": 3, "b": 4}]
        out = pipeline.batch(pipeline.collate([pipeline.sample(x) for x in raw]))
        assert {k: v.tolist() for k, v in out.items()} == {"a": [2, 6], "b": [2, 4]}
        assert isinstance(outcome(lambda: pipeline.sample({"a": 1})), KeyError)
    assert is_bearable(generic.ParallelPipelines(a=Affine(1, 0)), spec.Pipeline)


@given(st.lists(st.dictionaries(st.sampled_from(["x", "y", "z"]), st.integers()), max_size=5))
def test_parallel_transforms_and_dataset_meta_are_the_references(items):
    for item in items:
        ours = outcome(lambda: generic.ParallelTransforms(x=str, y=abs)(item))
        theirs = outcome(lambda: reference.ParallelTransforms(x=str, y=abs)(item))
        assert type(ours) is type(theirs) and (isinstance(ours, Exception) or ours == theirs)
    ours = generic.DatasetMeta(items, {"drive": 7})
    theirs = reference.DatasetMeta(items, {"drive": 7})
    assert len(ours) == len(theirs)
    assert [ours[i] for i in range(len(items))] == [theirs[i] for i in range(len(items))]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.integers(-5, 5), min_size=3, max_size=3), min_size=1, max_size=4))
def test_sequence_pipeline_is_the_references(raw):
    ours = generic.SequencePipeline(Affine(3, 1))
    theirs = reference.SequencePipeline(Affine(3, 1))
    a = ours.batch(ours.collate([ours.sample(x) for x in raw]))
    b = theirs.batch(theirs.collate([theirs.sample(x) for x in raw]))
    same(a, b)


def test_a_window_over_adls_frames_loads_them_at_once():
    import os

    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                          "examples", "data", "recording", "drive-1", "camera")
    camera = files.Images(folder)
    window = generic.Window(camera, collate_fn=np.stack, past=2, future=1, parallel=4)
    assert len(window) == len(camera) - 3
    stacked = window[0]
    assert stacked.shape == (4,) + tuple(camera.sample_shape)
    np.testing.assert_array_equal(stacked[3], camera[3])
