"""A downstream package switches to adl by renaming its imports.

``tests/downstream/radarkit`` is written against ``abstract_dataloader``
as roverd and nrdk are (``abstract.Sensor`` subclasses, optree dataclass
types generic in ``TArray``, a ``Trace`` subclass that sets attributes in
``__init__``, a ``Dataset`` subclass that sets ``traces``, ``ext.augment``,
``ext.torch``, ``ext.objective``). This test imports it twice, as it is
and with ``abstract_dataloader`` renamed to ``adl`` in its import lines
(nothing else changed), reads the same traces with both, and compares
everything they give: samples, synchronization, batches, augmentations,
objectives, errors; and reads the adl copy's pipeline with ``adl.Loader``
too."""

import dataclasses
import importlib
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader

import adl

PACKAGE = Path(__file__).parent / "downstream" / "radarkit"
IMPORT = re.compile(r"^(\s*)(from|import) abstract_dataloader\b", re.MULTILINE)


def load_kit(root: Path, backend: str):
    """radarkit, its imports of abstract_dataloader renamed to `backend`,
    as the package `radarkit_<backend>`."""
    name = f"radarkit_{backend}"
    target = root / backend / name
    shutil.copytree(PACKAGE, target, ignore=shutil.ignore_patterns("__pycache__"))
    for source in target.glob("*.py"):
        text = source.read_text()
        source.write_text(IMPORT.sub(rf"\1\2 {backend}", text))
    sys.path.insert(0, str(root / backend))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(root / backend))


@pytest.fixture(scope="module")
def kits(tmp_path_factory):
    root = tmp_path_factory.mktemp("kits")
    return load_kit(root, "abstract_dataloader"), load_kit(root, "adl")


@pytest.fixture(scope="module")
def traces(tmp_path_factory, kits):
    root = tmp_path_factory.mktemp("traces")
    paths = []
    for seed in range(3):
        path = root / f"trace{seed}"
        kits[0].writer.write_trace(str(path), seed=seed, seconds=2.0 + seed)
        paths.append(str(path))
    return paths


def test_the_adl_copy_uses_adl_alone(kits):
    reference, ours = kits
    assert ours.trace.abstract is adl.abstract and ours.trace.generic is adl.generic
    assert ours.transforms.adl_torch.__name__ == "adl.ext.torch"
    assert reference.trace.abstract.__name__ == "abstract_dataloader.abstract"
    renamed = (Path(ours.__file__).parent / "sensors.py").read_text()
    original = (PACKAGE / "sensors.py").read_text()
    assert renamed == original.replace("from abstract_dataloader import", "from adl import")


def assert_same(a, b, path="value"):
    """Equal values, dataclasses compared by class name and fields (each
    copy has classes of its own)."""
    if dataclasses.is_dataclass(a):
        assert type(a).__name__ == type(b).__name__, path
        for field in dataclasses.fields(a):
            assert_same(getattr(a, field.name), getattr(b, field.name), f"{path}.{field.name}")
    elif isinstance(a, dict):
        assert list(a) == list(b), path
        for key in a:
            assert_same(a[key], b[key], f"{path}[{key!r}]")
    elif isinstance(a, torch.Tensor):
        assert isinstance(b, torch.Tensor) and a.dtype == b.dtype and a.shape == b.shape, path
        assert torch.equal(a, b), path
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype, path
        np.testing.assert_array_equal(a, b, err_msg=path)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for at, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{at}]")
    else:
        assert type(a) is type(b) and a == b, path


def datasets(kit, paths):
    """The kit's dataset of `paths`, radar and lidar windows of 2 frames,
    synchronized to the radar."""
    sync = kit.trace.generic.Nearest("radar", margin={"radar": (1, 0), "lidar": (1, 0)},
                                     tol=0.08)
    return kit.trace.Dataset.from_directories(paths, sync=sync, past={"radar": 1, "lidar": 1})


def test_samples_and_synchronization_are_the_same(kits, traces):
    reference, ours = (datasets(kit, traces) for kit in kits)
    assert len(ours) == len(reference) > 50
    for mine, theirs in zip(ours.traces, reference.traces):
        assert mine.path == theirs.path and mine.windows == theirs.windows
        assert mine.name == theirs.name and len(mine) == len(theirs)
        assert list(mine.indices) == list(theirs.indices)
        for key in mine.indices:
            np.testing.assert_array_equal(mine.indices[key], theirs.indices[key])
        assert mine.filesize == theirs.filesize
        assert type(mine["radar"]).__name__ == "Radar"
        assert mine["lidar"].metadata.timestamps.shape == theirs["lidar"].metadata.timestamps.shape
        assert mine["radar"].duration == theirs["radar"].duration
        assert mine["imu"].framerate == theirs["imu"].framerate
    for index in range(len(ours)):
        assert_same(ours[index], reference[index], f"sample {index}")
    assert_same(ours[np.int64(7)], reference[np.int64(7)])
    for dataset in (ours, reference):
        with pytest.raises(IndexError):
            dataset[len(dataset)]


def test_split_datasets_are_the_same(kits, traces):
    reference, ours = (kit.trace.split(datasets(kit, traces), 0.2, 0.7) for kit in kits)
    assert len(ours) == len(reference)
    for index in range(0, len(ours), 3):
        assert_same(ours[index], reference[index], f"sample {index}")


def batches(kit, paths, train):
    """The kit's batches (PyTorch's DataLoader, in order), each before and
    after the pipeline's batch stage."""
    pipeline = kit.transforms.pipeline()
    dataset = kit.trace.generic.DatasetMeta(datasets(kit, paths), meta={"train": train})
    transformed = kit.transforms.adl_torch.TransformedDataset(dataset, pipeline.sample)
    loader = DataLoader(transformed, batch_size=4, collate_fn=pipeline.collate)
    return [(batch, pipeline.batch(batch)) for batch in loader]


@pytest.mark.parametrize("train", [True, False])
def test_batches_and_augmentations_are_the_same(kits, traces, train):
    reference, ours = (batches(kit, traces, train) for kit in kits)
    assert len(ours) == len(reference)
    for at, (mine, theirs) in enumerate(zip(ours, reference)):
        assert_same(mine, theirs, f"batch {at}")
    flips = torch.cat([batch["flipped"] for batch, _ in ours])
    assert bool(flips.any()) == train and bool(flips.all()) is False
    assert ours[0][1]["radar"].magnitude.dtype == torch.float32


def test_the_torch_pipeline_holds_the_batch_module(kits):
    for kit in kits:
        pipeline = kit.transforms.pipeline()
        assert isinstance(pipeline, torch.nn.Module)
        modules = list(pipeline.submodules)
        assert [type(m).__name__ for m in modules] == ["Normalize"]
        assert pipeline.state_dict() == {}


def outcomes(kit, paths):
    """The objectives' outputs on every processed batch."""
    results = []
    model = kit.objectives.Model()
    lenient, strict = kit.objectives.objective(strict=False), kit.objectives.objective()
    for _, processed in batches(kit, paths, train=True):
        prediction = model(processed)
        loss, metrics = lenient(processed, prediction, train=False)
        results.append((loss, metrics, lenient.visualizations(processed, prediction),
                        lenient.render(processed, prediction, render_gt=True)))
        with pytest.raises(Exception) as raised:
            strict(processed, prediction)
        results.append((type(raised.value).__name__, str(raised.value)[:40]))
    return results


def test_objectives_give_the_same_losses_metrics_and_images(kits, traces):
    reference, ours = (outcomes(kit, traces) for kit in kits)
    assert_same(ours, reference)
    loss, metrics, images, renders = ours[0]
    assert loss.shape == (4,) and sorted(metrics) == ["depth/coverage", "depth/rmse", "power/bias"]
    assert images["depth/depth"].dtype == np.uint8 and "depth/depth_gt" in renders
    assert ours[1] == ("MissingInputError", "Key velocity not found: {'depth': f32[4,")


def test_adl_loader_reads_the_adl_copy_as_pytorch_reads_the_reference(kits, traces):
    reference, ours = kits
    expected = [processed for _, processed in batches(reference, traces, train=False)]
    pipeline = ours.transforms.pipeline()
    dataset = ours.trace.generic.DatasetMeta(datasets(ours, traces), meta={"train": False})
    loader = adl.Loader(dataset, pipeline, batch_size=4, workers=2)
    got = list(loader.epoch(0))
    assert len(got) == len(expected)
    for at, (mine, theirs) in enumerate(zip(got, expected)):
        assert_same(mine, theirs, f"batch {at}")
