"""adl.abstract against abstract-dataloader 0.4.7's abstract, with
hypothesis: the same classes built from the same arguments (adl's with
adl's policies, the reference's with its own) give the same lengths,
samples, reprs, helpers' results and exception classes (and words where
the reference's are part of the interface), except where adl is
documented to be stricter about timestamps. Then what a downstream
package does with them: subclasses with their own ``__init__`` that set
the attributes, generic subscripts, ``ext.types`` samples, pickling."""

import pickle
from typing import Generic

import numpy as np
import pytest
from abstract_dataloader import abstract as ref_abstract
from abstract_dataloader import generic as ref_generic
from hypothesis import given, settings
from hypothesis import strategies as st

import adl
from adl import abstract, generic, spec
from adl.ext import types
from differential import outcome, same

NAMES = ["camera", "radar", "lidar"]


class Metadata:
    def __init__(self, timestamps):
        self.timestamps = timestamps


def sensor_classes(base):
    """A sensor of ``base`` (adl's or the reference's abstract.Sensor) whose
    sample ``i`` is a string naming it."""

    class Named(base):
        def __getitem__(self, index):
            if not -len(self) <= index < len(self):
                raise IndexError(f"{self.name}: no sample {index}")
            return f"{self.name}-{int(index) % len(self)}"

    return Named


OurSensor = sensor_classes(abstract.Sensor)
TheirSensor = sensor_classes(ref_abstract.Sensor)


@st.composite
def timestamps(draw, min_size=0):
    steps = draw(st.lists(st.floats(0.05, 1.0, allow_nan=False), min_size=min_size, max_size=12))
    start = draw(st.floats(0, 2, allow_nan=False))
    times = np.round(start + np.cumsum(np.concatenate([[0.0], steps])), 6)
    return np.unique(times) if min_size > 0 or steps else times[:draw(st.integers(0, 1))]


@st.composite
def recordings(draw):
    """Both sensors sets over the same timestamps: adl's and the reference's."""
    count = draw(st.integers(1, 3))
    ours, theirs = {}, {}
    for name in NAMES[:count]:
        times = draw(timestamps(min_size=1))
        ours[name] = OurSensor(Metadata(times), name=name)
        theirs[name] = TheirSensor(Metadata(times), name=name)
    return ours, theirs


def syncs(draw, names, lengths):
    kind = draw(st.sampled_from(["none", "indices", "next", "nearest", "decimate"]))
    if kind == "none":
        return None, None
    if kind == "indices":
        n = draw(st.integers(0, 6))
        given_ = {k: np.array(draw(st.lists(st.integers(0, lengths[k] - 1), min_size=n, max_size=n)),
                              dtype=np.uint32) for k in names}
        return given_, given_
    ref = draw(st.sampled_from(names))
    if kind == "next":
        return generic.Next(ref), ref_generic.Next(ref)
    if kind == "nearest":
        return generic.Nearest(ref, tol=0.3), ref_generic.Nearest(ref, tol=0.3)
    return (generic.Decimate(generic.Next(ref), 2, ref),
            ref_generic.Decimate(ref_generic.Next(ref), 2, ref))


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_a_trace_is_the_references(data):
    ours_sensors, theirs_sensors = data.draw(recordings())
    names = list(ours_sensors)
    ours_sync, theirs_sync = syncs(data.draw, names, {k: len(s) for k, s in ours_sensors.items()})
    name = data.draw(st.sampled_from(["trace", "drive-07"]))
    ours = abstract.Trace(ours_sensors, ours_sync, name=name)
    theirs = ref_abstract.Trace(theirs_sensors, theirs_sync, name=name)
    same(outcome(lambda: len(ours)), outcome(lambda: len(theirs)))
    same(outcome(lambda: repr(ours)), outcome(lambda: repr(theirs)))
    if theirs.indices is None:
        assert ours.indices is None
    else:
        assert list(ours.indices) == list(theirs.indices)
        for key in theirs.indices:
            np.testing.assert_array_equal(ours.indices[key], theirs.indices[key])
    n = len(theirs)
    for i in range(-n - 2, n + 2):
        for index in (i, np.int64(i), np.uint8(max(i, 0))):
            same(outcome(lambda: ours[index]), outcome(lambda: theirs[index]))
    for key in names + ["missing"]:
        a, b = outcome(lambda: ours[key]), outcome(lambda: theirs[key])
        if isinstance(b, Exception):
            assert type(a) is type(b)
        else:
            assert a is ours_sensors[key]
    assert [s.name for s in ours.children()] == [s.name for s in theirs.children()]
    assert ours.sensors is ours_sensors and ours.name == name


def test_a_trace_without_sensors_is_an_index_error_naming_it():
    for trace in (abstract.Trace({}, name="empty"), abstract.Trace({"a": OurSensor(Metadata(np.arange(2.0)))}, {})):
        with pytest.raises(IndexError, match="trace 'empty'|trace 'trace'"):
            len(trace)
        assert type(outcome(lambda: len(ref_abstract.Trace({}, name="empty")))) is IndexError


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_a_dataset_is_the_references(data):
    ours_traces, theirs_traces = [], []
    for _ in range(data.draw(st.integers(0, 4))):
        ours_sensors, theirs_sensors = data.draw(recordings())
        ours_sync, theirs_sync = syncs(data.draw, list(ours_sensors),
                                       {k: len(s) for k, s in ours_sensors.items()})
        ours_traces.append(abstract.Trace(ours_sensors, ours_sync))
        theirs_traces.append(ref_abstract.Trace(theirs_sensors, theirs_sync))
    ours = abstract.Dataset(ours_traces)
    theirs = ref_abstract.Dataset(theirs_traces)
    assert len(ours) == len(theirs) and repr(ours) == repr(theirs)
    np.testing.assert_array_equal(ours.indices, theirs.indices)
    assert ours.indices.dtype == theirs.indices.dtype == np.int64
    for i in range(-2, len(theirs) + 2):
        for index in (i, np.int64(i), np.uint32(max(i, 0)), np.uint8(max(i, 0) % 256)):
            a, b = outcome(lambda: ours[index]), outcome(lambda: theirs[index])
            same(a, b)
            if isinstance(b, IndexError):
                assert str(a) == str(b)
    assert list(ours.children()) is not None and len(list(ours.children())) == len(theirs_traces)
    # Datasets of datasets, as the specification allows.
    nested_ours = abstract.Dataset([ours, ours])
    nested_theirs = ref_abstract.Dataset([theirs, theirs])
    assert len(nested_ours) == len(nested_theirs)
    for i in range(len(nested_theirs)):
        same(outcome(lambda: nested_ours[i]), outcome(lambda: nested_theirs[i]))


def test_a_datasets_index_reaches_its_trace_as_the_references_does():
    # What a trace is given: the same values and types on both.
    class Recorder:
        def __init__(self, n):
            self.n, self.seen = n, []

        def __getitem__(self, index):
            self.seen.append((type(index), index))
            return index

        def __len__(self):
            return self.n

    for index in (0, 4, np.int64(4), np.uint8(4), np.int32(1)):
        ours, theirs = [Recorder(3), Recorder(5)], [Recorder(3), Recorder(5)]
        abstract.Dataset(ours)[index]
        ref_abstract.Dataset(theirs)[index]
        assert [r.seen for r in ours] == [r.seen for r in theirs]


@settings(max_examples=150, deadline=None)
@given(times=timestamps(), batch=st.one_of(st.none(), st.integers(1, 4)), name=st.sampled_from(["sensor", "imu"]))
def test_a_sensors_helpers_are_the_references(times, batch, name):
    ours = OurSensor(Metadata(times), name=name)
    theirs = TheirSensor(Metadata(times), name=name)
    assert len(ours) == len(theirs) and repr(ours) == repr(theirs)
    with np.errstate(divide="ignore", invalid="ignore"):
        for attribute in ("duration", "framerate"):
            a = outcome(lambda: getattr(ours, attribute))
            b = outcome(lambda: getattr(theirs, attribute))
            if isinstance(a, Exception) or isinstance(b, Exception):
                assert type(a) is type(b), (attribute, a, b)
            else:
                np.testing.assert_equal(a, b)
                assert type(a) is type(b), (attribute, a, b)
    same(list(ours.stream(batch)), list(theirs.stream(batch)))
    same(outcome(lambda: list(ours.stream(0))), outcome(lambda: list(theirs.stream(0))))


@st.composite
def margins(draw, names):
    end = st.one_of(st.integers(-1, 4), st.floats(0, 2, allow_nan=False))
    kind = draw(st.sampled_from(["none", "all", "per-sensor"]))
    if kind == "none":
        return {}
    if kind == "all":
        return (draw(end), draw(end))
    chosen = draw(st.lists(st.sampled_from(names + ["missing"]), unique=True))
    return {name: [draw(end), draw(end)] for name in chosen}


def same_indices(ours, theirs):
    """Two policies' results: the same sensors in the same order, the same
    indices."""
    assert list(ours) == list(theirs)
    for name in theirs:
        np.testing.assert_array_equal(ours[name], theirs[name], err_msg=name)


def reads_around(timestamps, starts, ends):
    """Where the reference's get_reference reads around an array's end (or
    past it): an index outside a sensor, or a start after the end."""
    return any(not 0 <= starts[k] <= ends[k] < len(t) for k, t in timestamps.items())


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_synchronization_helpers_are_the_references(data):
    count = data.draw(st.integers(1, 3))
    stamps = {name: data.draw(timestamps(min_size=1)) for name in NAMES[:count]}
    names = list(stamps)
    reference = data.draw(st.sampled_from(names + ["missing"]))
    margin = data.draw(margins(names))
    ours = generic.Next(reference, margin=margin)
    theirs = ref_generic.Next(reference, margin=margin)
    # apply_margin reports indices without checking them, as the reference's.
    same(outcome(lambda: ours.apply_margin(stamps)), outcome(lambda: theirs.apply_margin(stamps)))
    mine, its = outcome(lambda: ours.get_reference(stamps)), outcome(lambda: theirs.get_reference(stamps))
    policy = outcome(lambda: ours(stamps))
    if isinstance(its, KeyError) and reference not in stamps:
        assert type(mine) is KeyError and str(mine) == str(its)
    elif isinstance(mine, Exception):
        # adl refuses only where its policies do, with their error, and
        # only where the reference read around an end, or the margin is
        # a negative count or names a sensor that is not there.
        assert type(mine) is type(policy) and str(mine) == str(policy)
        per_sensor = margin if isinstance(margin, dict) else {}
        bad_margin = any(k not in stamps for k in per_sensor) or any(
            isinstance(e, int) and e < 0
            for pair in (per_sensor.values() if per_sensor else [margin or (0, 0)]) for e in pair)
        starts, ends = theirs.apply_margin(stamps)
        assert bad_margin or reads_around(stamps, starts, ends), (mine, margin)
    else:
        np.testing.assert_array_equal(mine, its)
        # And adl's policy synchronizes to exactly those timestamps.
        np.testing.assert_array_equal(stamps[reference][policy[reference]], mine)


def test_a_users_policy_on_adls_base_is_the_references():
    def previous(base):
        class Previous(base):
            """Each sensor's last sample at or before each reference sample."""

            def __call__(self, timestamps):
                t_ref = self.get_reference(timestamps)
                return {k: (np.searchsorted(t, t_ref, side="right") - 1).astype(np.uint32)
                        for k, t in timestamps.items()}
        return Previous

    stamps = {"a": np.arange(10.0), "b": np.arange(10.0) + 0.4}
    for margin in ({}, (1, 1), (0.5, 2), {"b": (2, 0.5)}):
        ours = previous(abstract.Synchronization)("a", margin)(stamps)
        theirs = previous(ref_abstract.Synchronization)("a", margin)(stamps)
        same_indices(ours, theirs)
    with pytest.raises(TypeError, match="Margin must be a sequence of length 2"):
        previous(abstract.Synchronization)("a", (1, 2, 3))
    with pytest.raises(TypeError):
        abstract.Synchronization("a")  # abstract: __call__ is not there


def test_transforms_collates_and_pipelines_are_the_references():
    for module in (abstract, ref_abstract):
        assert module.Transform([lambda x: x + 1, lambda x: x * 3])(2) == 9
        assert module.Collate()([1, 2]) == [1, 2]
    ours = abstract.Pipeline(sample=lambda x: x * 2, batch=sum)
    theirs = ref_abstract.Pipeline(sample=lambda x: x * 2, batch=sum)
    for pipeline in (ours, theirs):
        assert pipeline.batch(pipeline.collate([pipeline.sample(x) for x in [1, 2, 3]])) == 12
    assert len(list(ours.children())) == len(list(theirs.children())) == 2
    assert list(abstract.Pipeline().children()) == []

    class Stacked(abstract.Pipeline[int, int, np.ndarray, np.ndarray]):
        def collate(self, data):
            return np.stack(data)

    np.testing.assert_array_equal(Stacked(sample=lambda x: np.full(2, x)).collate([np.zeros(2), np.ones(2)]),
                                  [[0, 0], [1, 1]])


def test_generic_policies_and_windows_are_of_the_references_classes():
    assert isinstance(generic.Next("a"), abstract.Synchronization)
    assert isinstance(generic.Nearest("a"), abstract.Synchronization)
    assert isinstance(generic.Decimate(generic.Next("a"), 2), abstract.Synchronization)
    assert isinstance(generic.Empty(), spec.Synchronization)
    window = generic.Window(OurSensor(Metadata(np.arange(5.0))), past=1)
    assert isinstance(window, abstract.Sensor)
    assert len(window) == 4 and window.framerate == 1.0
    # The policies are plain Python state, as the reference's: they pickle
    # (spawned workers), and a changed attribute is what the next call uses.
    policy = pickle.loads(pickle.dumps(generic.Nearest("a", margin=(1, 0), tol=0.2)))
    stamps = {"a": np.arange(6.0), "b": np.arange(6.0) + 0.1}
    assert policy.tol == 0.2
    same_indices(policy(stamps), ref_generic.Nearest("a", margin=(1, 0), tol=0.2)(stamps))
    policy.reference = "b"
    same_indices(policy(stamps), ref_generic.Nearest("b", margin=(1, 0), tol=0.2)(stamps))
    with pytest.raises(ValueError, match="NaN|nan"):
        generic.Nearest("a", tol=float("nan"))


# What a downstream package does: its own sample types, sensors, traces
# and datasets on adl's base classes, set up in its own __init__.


@types.dataclass
class Reading(Generic[types.TArray]):
    """A sample type of a downstream package."""

    value: types.TArray
    time: types.TArray


class FolderMetadata:
    def __init__(self, timestamps, path):
        self.timestamps = timestamps
        self.path = path


class FolderSensor(abstract.Sensor[Reading[np.ndarray], FolderMetadata]):
    """A sensor whose constructor takes a path, not metadata."""

    def __init__(self, path: str, n: int, rate: float = 10.0) -> None:
        times = np.arange(n) / rate
        super().__init__(FolderMetadata(times, path), name=path.rsplit("/", 1)[-1])
        self.path = path

    def __getitem__(self, index: int | np.integer) -> Reading[np.ndarray]:
        return Reading(value=np.full((1, 2), float(index)), time=self.metadata.timestamps[index:index + 1])


class Drive(abstract.Trace[dict[str, Reading[np.ndarray]]]):
    """A trace that builds its own sensors and sets its attributes."""

    def __init__(self, path: str) -> None:
        sensors = {"imu": FolderSensor(f"{path}/imu", 20, rate=100.0),
                   "radar": FolderSensor(f"{path}/radar", 8, rate=20.0)}
        super().__init__(sensors, sync=generic.Nearest("radar", tol=0.01), name=path)
        self.path = path
        self.sensors = sensors
        self.metadata = {"path": path}


class Drives(abstract.Dataset[dict[str, Reading[np.ndarray]]]):
    def __init__(self, paths: list[str]) -> None:
        self.traces = [Drive(path) for path in paths]
        self.paths = paths


def test_a_downstream_package_runs_on_adl():
    dataset = Drives(["data/a", "data/b"])
    assert len(dataset) == 2 * len(dataset.traces[0]) > 0
    sample = dataset[len(dataset.traces[0])]
    assert set(sample) == {"imu", "radar"}
    assert isinstance(sample["radar"], Reading)
    assert dataset.traces[1].metadata == {"path": "data/b"}
    assert repr(dataset.traces[0]) == f"Drive(data/a, {len(dataset.traces[0])}x[imu, radar])"
    assert dataset.traces[0]["imu"].path == "data/a/imu"
    assert repr(dataset.traces[0]["imu"]) == "FolderSensor(imu, n=20)"
    # Readings are optree nodes (the global namespace), as the reference's types.
    import optree
    leaves = optree.tree_leaves(sample)
    assert len(leaves) == 4 and all(isinstance(leaf, np.ndarray) for leaf in leaves)
    # The specification's protocols hold, adl's and the reference's alike.
    from abstract_dataloader import spec as ref_spec
    from beartype.door import is_bearable
    for protocols in (spec, ref_spec):
        assert is_bearable(dataset, protocols.Dataset)
        assert is_bearable(dataset.traces[0], protocols.Trace)
        assert is_bearable(dataset.traces[0]["radar"], protocols.Sensor)
    # adl's loader reads it, through a pipeline of adl.abstract (the
    # identity collate: a batch is the list of its samples).
    loader = adl.Loader(dataset, abstract.Pipeline(), batch_size=3, shuffle=1, workers=2)
    epoch = loader.epoch(0)
    order = epoch.indices()
    read = [sample for batch in epoch for sample in batch]
    assert len(read) == len(dataset)
    for index, sample in zip(order, read):
        expected = dataset[index]
        assert list(sample) == list(expected)
        for key in expected:
            np.testing.assert_array_equal(sample[key].value, expected[key].value)


def test_the_generics_subscript_as_the_references():
    for ours, theirs, arity in [
        (abstract.Sensor, ref_abstract.Sensor, 2), (abstract.Trace, ref_abstract.Trace, 1),
        (abstract.Dataset, ref_abstract.Dataset, 1), (abstract.Transform, ref_abstract.Transform, 2),
        (abstract.Collate, ref_abstract.Collate, 2), (abstract.Pipeline, ref_abstract.Pipeline, 4),
        (generic.Window, ref_generic.Window, 3),
    ]:
        assert len(ours.__parameters__) == len(theirs.__parameters__) == arity
        arguments = tuple([int] * arity)
        assert ours[arguments if arity > 1 else int].__origin__ is ours
    with pytest.raises(TypeError):
        abstract.Trace[int, int]


def test_a_sensors_error_is_the_references_with_where_it_happened():
    class Failing(abstract.Sensor):
        def __getitem__(self, index):
            if index == 2:
                raise OSError("camera/0002.jpg: truncated")
            return int(index)

    class TheirFailing(ref_abstract.Sensor):
        def __getitem__(self, index):
            if index == 2:
                raise OSError("camera/0002.jpg: truncated")
            return int(index)

    stamps = Metadata(np.arange(4.0))
    ours = abstract.Dataset([abstract.Trace({"camera": Failing(stamps)}, generic.Next("camera"), name="drive-1")] * 2)
    theirs = ref_abstract.Dataset([ref_abstract.Trace({"camera": TheirFailing(stamps)}, ref_generic.Next("camera"))] * 2)
    mine, its = outcome(lambda: ours[6]), outcome(lambda: theirs[6])
    assert type(mine) is type(its) is OSError and str(mine) == str(its)
    if hasattr(mine, "add_note"):
        assert mine.__notes__ == [
            "reading sample 2 of sensor 'camera' for sample 2 of trace 'drive-1'",
            "reading sample 2 of trace 1 ('drive-1') for sample 6 of the dataset",
        ]
