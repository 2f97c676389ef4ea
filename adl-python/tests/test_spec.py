"""adl.spec against abstract-dataloader 0.4.7's spec: the same protocols,
so that ``isinstance``, beartype's ``is_bearable`` and ``is_subhint``, and
beartype/jaxtyping-checked functions annotated with either package's
protocols give the same answers for adl's objects, the reference's and
plain Python ones."""

import itertools
from typing import Any

import numpy as np
import pytest
from abstract_dataloader import abstract as ref_abstract
from abstract_dataloader import generic as ref_generic
from abstract_dataloader import spec as ref_spec
from beartype import beartype
from beartype.door import is_bearable, is_subhint
from beartype.roar import BeartypeCallHintParamViolation
from jaxtyping import Float, jaxtyped

import adl
from adl import abstract, generic, spec
from differential import outcome

PROTOCOLS = ["Metadata", "Sensor", "Synchronization", "Trace", "Dataset", "Transform", "Collate", "Pipeline"]


class Metadata:
    def __init__(self, n):
        self.timestamps = np.arange(n, dtype=np.float64)


class OurSensor(abstract.Sensor[int, Metadata]):
    def __getitem__(self, index):
        return int(index)


class TheirSensor(ref_abstract.Sensor[int, Metadata]):
    def __getitem__(self, index):
        return int(index)


class Stages:
    """A pipeline by its methods only."""

    def sample(self, x):
        return x

    def collate(self, xs):
        return list(xs)

    def batch(self, b):
        return b


def objects():
    """adl's objects, the reference's, and plain Python ones, by name."""
    ours_sensor, theirs_sensor = OurSensor(Metadata(4)), TheirSensor(Metadata(4))
    our_trace = abstract.Trace({"s": ours_sensor}, generic.Next("s"))
    their_trace = ref_abstract.Trace({"s": theirs_sensor}, ref_generic.Next("s"))
    return {
        "metadata": Metadata(3),
        "generic.Metadata": generic.Metadata(np.arange(3.0)),
        "adl sensor": ours_sensor,
        "reference sensor": theirs_sensor,
        "adl window": generic.Window(ours_sensor, past=1),
        "adl trace": our_trace,
        "reference trace": their_trace,
        "adl native trace": adl.Trace({"s": ours_sensor}, generic.Next("s")),
        "adl dataset": abstract.Dataset([our_trace]),
        "reference dataset": ref_abstract.Dataset([their_trace]),
        "adl native dataset": adl.Dataset([our_trace]),
        "adl Next": generic.Next("s"),
        "adl Nearest": generic.Nearest("s"),
        "adl Empty": generic.Empty(),
        "adl Decimate": generic.Decimate(generic.Next("s"), 2),
        "reference Next": ref_generic.Next("s"),
        "adl transform": abstract.Transform([abs]),
        "adl collate": abstract.Collate(),
        "adl pipeline": abstract.Pipeline(),
        "reference pipeline": ref_abstract.Pipeline(),
        "adl parallel pipelines": generic.ParallelPipelines(a=abstract.Pipeline()),
        "adl sequence pipeline": generic.SequencePipeline(abstract.Pipeline()),
        "stages": Stages(),
        "function": abs,
        "list": [1, 2, 3],
        "dict": {"a": 1},
        "int": 3,
        "array": np.arange(3.0),
        "None": None,
    }


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_every_object_satisfies_a_protocol_as_it_does_the_references(protocol):
    ours, theirs = getattr(spec, protocol), getattr(ref_spec, protocol)
    for name, value in objects().items():
        assert isinstance(value, ours) == isinstance(value, theirs), (protocol, name)
        assert is_bearable(value, ours) == is_bearable(value, theirs), (protocol, name)


def test_adls_objects_satisfy_the_protocols_they_implement():
    found = objects()
    expected = {
        "Sensor": ["adl sensor", "adl window"],
        "Trace": ["adl trace", "adl native trace"],
        "Dataset": ["adl dataset", "adl native dataset", "adl trace", "adl sensor"],
        "Synchronization": ["adl Next", "adl Nearest", "adl Empty", "adl Decimate"],
        "Pipeline": ["adl pipeline", "adl parallel pipelines", "adl sequence pipeline"],
        "Transform": ["adl transform", "adl collate"],
        "Metadata": ["metadata", "generic.Metadata"],
    }
    for protocol, names in expected.items():
        for name in names:
            assert is_bearable(found[name], getattr(spec, protocol)), (protocol, name)
            assert is_bearable(found[name], getattr(ref_spec, protocol)), (protocol, name)


def test_the_protocols_subtype_one_another_as_the_references():
    for a, b in itertools.product(PROTOCOLS, repeat=2):
        # A protocol with attributes (Sensor, Metadata) refuses issubclass:
        # the same TypeError on both.
        ours = outcome(lambda: is_subhint(getattr(spec, a), getattr(spec, b)))
        theirs = outcome(lambda: is_subhint(getattr(ref_spec, a), getattr(ref_spec, b)))
        if isinstance(theirs, Exception):
            assert type(ours) is type(theirs), (a, b, ours, theirs)
        else:
            assert ours == theirs, (a, b)
    assert is_subhint(spec.Trace, spec.Dataset)
    assert is_subhint(spec.Collate, spec.Transform)


def test_annotated_functions_take_adls_and_the_references_objects_alike():
    @beartype
    def first_of(dataset: spec.Dataset[Any]) -> Any:
        return dataset[0]

    @beartype
    def first_of_theirs(dataset: ref_spec.Dataset[Any]) -> Any:
        return dataset[0]

    @beartype
    def synchronize(policy: spec.Synchronization, sensor: spec.Sensor[int, Any]) -> Any:
        return policy({"s": sensor.metadata.timestamps})

    found = objects()
    for check in (first_of, first_of_theirs):
        for name in ("adl dataset", "reference dataset", "adl native dataset", "adl trace",
                     "reference trace", "adl sensor", "reference sensor"):
            check(found[name])
        with pytest.raises(BeartypeCallHintParamViolation):
            check(3)
    for policy in ("adl Next", "adl Nearest", "reference Next"):
        for sensor in ("adl sensor", "reference sensor"):
            assert synchronize(found[policy], found[sensor])["s"].tolist() == [0, 1, 2, 3]
    with pytest.raises(BeartypeCallHintParamViolation):
        synchronize(3, found["adl sensor"])


def test_jaxtyping_checks_through_the_protocols():
    @jaxtyped(typechecker=beartype)
    def times(metadata: spec.Metadata, other: ref_spec.Metadata) -> Float[np.ndarray, "N"]:
        return np.concatenate([metadata.timestamps, other.timestamps])

    assert times(generic.Metadata(np.arange(2.0)), Metadata(3)).shape == (5,)
    assert times(ref_generic.Metadata(np.arange(2.0)), generic.Metadata(np.arange(1.0))).shape == (3,)


def test_a_protocol_is_a_base_class_as_the_references():
    # The reference's own tests subclass the protocols nominally.
    class Concrete(spec.Metadata):
        def __init__(self, n: int = 10):
            self.timestamps = np.arange(n, dtype=np.float64)

    class Plus(spec.Transform):
        def __call__(self, data):
            return data + 1

    assert isinstance(Concrete(), spec.Metadata) and isinstance(Concrete(), ref_spec.Metadata)
    assert Plus()(1) == 2 and is_bearable(Plus(), ref_spec.Transform)
    assert spec.Sensor[int, Concrete].__origin__ is spec.Sensor
    assert spec.Pipeline[int, int, list, list].__origin__ is spec.Pipeline
    with pytest.raises(TypeError):
        spec.Dataset[int, int]
    # The type parameters' variance, as the reference's.
    for name in ("Sensor", "Trace", "Dataset", "Transform", "Collate", "Pipeline"):
        ours = [(p.__name__, p.__covariant__, getattr(p, "__infer_variance__", False))
                for p in getattr(spec, name).__parameters__]
        theirs = [(p.__name__, p.__covariant__, getattr(p, "__infer_variance__", False))
                  for p in getattr(ref_spec, name).__parameters__]
        assert ours == theirs, name
