"""adl.Pipeline and adl.transforms: adl's own transforms and batch
kernels composed from Python under the keys of the sample, run in Rust.
Over adl's sensors the loader makes every batch without the GIL (no call
into Python at all, which its statistics count); the values are NumPy's
computation of the same, the random ones the same for any number of
workers; a Python dataset or a Python callable among the transforms work
too, taking the GIL; and every mistake is an error that names the key."""

import os

import numpy as np
import pytest
from abstract_dataloader import spec
from beartype.door import is_bearable

import adl
from adl import files, generic, px4
from adl import transforms as T

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RECORDING = os.path.join(ROOT, "examples", "data", "recording")
LOG = os.path.join(ROOT, "tests", "data", "px4", "pixhawk4-sample-small.ulg")


def recording(layout="chw"):
    traces = []
    for drive in ("drive-1", "drive-2"):
        folder = os.path.join(RECORDING, drive)
        sensors = {
            "camera": files.Images(os.path.join(folder, "camera"), layout=layout),
            "radar": files.Npy.in_folder(os.path.join(folder, "radar")),
            "imu": files.Table(os.path.join(folder, "imu.csv"), "t"),
        }
        traces.append(adl.Trace(sensors, generic.Nearest("camera", tol=0.05), name=drive))
    return adl.Dataset(traces)


def test_batch_kernels_compute_what_numpy_computes():
    dataset = recording()
    mean, std = [0.4, 0.5, 0.6], [0.2, 0.25, 0.3]
    pipeline = adl.Pipeline(batch={
        "camera": [T.ToFloat(), T.Normalize(mean, std), T.Clamp(-1.5, 1.5)],
        "radar": T.Affine(2.0, -1.0),
    })
    assert pipeline.native and is_bearable(pipeline, spec.Pipeline)
    loader = adl.Loader(dataset, pipeline, batch_size=4, shuffle=3, workers=2)
    assert loader.gil_free
    epoch = loader.epoch(0)
    order = epoch.indices()
    seen = 0
    for batch in epoch:
        assert set(batch) == {"camera", "radar", "imu"}
        for row in range(len(batch["camera"])):
            sample = dataset[order[seen + row]]
            frame = sample["camera"].astype(np.float32) / np.float32(255.0)
            m = np.array(mean, np.float32)[:, None, None]
            s = np.array(std, np.float32)[:, None, None]
            expected = np.clip((frame - m) / s, -1.5, 1.5)
            np.testing.assert_allclose(batch["camera"][row], expected, rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(batch["radar"][row], sample["radar"] * 2.0 - 1.0, rtol=1e-6)
            np.testing.assert_array_equal(batch["imu"][row], sample["imu"])
        seen += len(batch["camera"])
    assert seen == len(dataset)
    # No call into Python: the statistics count none.
    assert "Python:" not in loader.statistics()
    assert "camera/normalize" in loader.statistics() and "normalize" in loader.plan()


def test_random_transforms_depend_on_seed_epoch_and_sample_only():
    dataset = recording(layout="hwc")
    pipeline = adl.Pipeline(sample={"camera": [T.RandomResizedCrop((8, 12)), T.RandomFlip()]})

    def epoch(workers, number, seed=5):
        loader = adl.Loader(dataset, pipeline, batch_size=3, shuffle=seed, workers=workers)
        return [b["camera"].copy() for b in loader.epoch(number)]

    zero = epoch(0, 0)
    assert zero[0].shape == (3, 8, 12, 3) and zero[0].dtype == np.uint8
    for a, b in zip(zero, epoch(3, 0)):
        np.testing.assert_array_equal(a, b)
    assert any(not np.array_equal(a, b) for a, b in zip(zero, epoch(0, 1)))


def test_a_certain_flip_mirrors_the_width():
    dataset = recording(layout="hwc")
    plain = adl.Loader(dataset, adl.Pipeline(), batch_size=5)
    flipped = adl.Loader(dataset, adl.Pipeline(sample={"camera": T.RandomFlip(p=1.0)}), batch_size=5)
    for a, b in zip(plain.epoch(0), flipped.epoch(0)):
        np.testing.assert_array_equal(a["camera"][:, :, ::-1, :], b["camera"])
        np.testing.assert_array_equal(a["radar"], b["radar"])


def test_batches_are_views_of_adls_buffers():
    loader = adl.Loader(recording(), adl.Pipeline(batch={"camera": T.ToFloat()}), batch_size=4)
    batch = next(iter(loader.epoch(0)))
    camera = batch["camera"]
    assert camera.base is not None and not camera.flags.owndata and camera.flags.c_contiguous


def test_px4_topics_run_without_the_gil():
    log = px4.Log(LOG)
    trace = adl.Trace({"imu": log["sensor_combined"], "attitude": log["vehicle_attitude"]},
                      sync=generic.Nearest("attitude", tol=0.05), name="flight")
    pipeline = adl.Pipeline(batch={"imu/gyro_rad": lambda g: g * 2.0})
    assert not pipeline.native
    loader = adl.Loader(trace, adl.Pipeline(), batch_size=8, drop_last=True, workers=2)
    assert loader.gil_free
    batch = next(iter(loader.epoch(0)))
    assert batch["imu"]["gyro_rad"].shape == (8, 3) and batch["attitude"]["q"].shape == (8, 4)
    np.testing.assert_array_equal(batch["imu"]["gyro_rad"][0], trace[0]["imu"]["gyro_rad"])
    # A Python callable under a nested key: the GIL per call, counted.
    doubled = adl.Loader(trace, pipeline, batch_size=8, drop_last=True)
    assert not doubled.gil_free
    batches = list(doubled.epoch(0))
    np.testing.assert_array_equal(batches[0]["imu"]["gyro_rad"][0], 2.0 * trace[0]["imu"]["gyro_rad"])
    # One call a batch, and none for the reads.
    assert f"Python: {len(batches)} calls" in doubled.statistics()


def test_a_python_dataset_with_adls_pipeline():
    rng = np.random.default_rng(0)
    samples = [{"x": rng.integers(0, 255, (2, 4, 4), dtype=np.uint8), "y": i} for i in range(10)]
    loader = adl.Loader(samples, adl.Pipeline(batch={"x": T.ToFloat(divide=2.0)}), batch_size=4)
    assert not loader.gil_free
    batches = list(loader.epoch(0))
    assert [len(b["y"]) for b in batches] == [4, 4, 2]
    np.testing.assert_array_equal(batches[0]["y"], [0, 1, 2, 3])
    assert batches[0]["y"].dtype == np.int64
    np.testing.assert_array_equal(batches[1]["x"][0], samples[4]["x"].astype(np.float32) / 2)


def test_resumes_exactly():
    dataset = recording()
    pipeline = adl.Pipeline(batch={"camera": T.ToFloat()})
    loader = adl.Loader(dataset, pipeline, batch_size=3, shuffle=9, workers=2)
    whole = [b["radar"].copy() for b in loader.epoch(0)]
    epoch = loader.epoch(0)
    next(epoch)
    next(epoch)
    state = loader.state_dict()
    resumed = adl.Loader(dataset, pipeline, batch_size=3, shuffle=9, workers=0)
    resumed.load_state_dict(state)
    rest = [b["radar"] for b in resumed.epoch(0)]
    assert len(rest) == len(whole) - 2
    for a, b in zip(whole[2:], rest):
        np.testing.assert_array_equal(a, b)


def test_the_spec_methods_from_python():
    pipeline = adl.Pipeline(sample={"image": T.RandomFlip(p=1.0)}, batch={"image": T.ToFloat(1.0)})
    image = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
    sample = pipeline.sample({"image": image, "label": 3})
    np.testing.assert_array_equal(sample["image"], image[:, ::-1])
    batch = pipeline.batch(pipeline.collate([sample, sample]))
    assert batch["image"].dtype == np.float32 and batch["image"].shape == (2, 2, 4, 3)
    np.testing.assert_array_equal(batch["label"], [3, 3])


def test_a_transform_given_what_it_does_not_take_names_the_key():
    loader = adl.Loader(recording(), adl.Pipeline(batch={"radar": T.ToFloat()}), batch_size=4)
    with pytest.raises(adl.LoaderError, match=r'u8_to_f32 on sample\["radar"\].*takes a uint8 array.*float32 array'):
        next(iter(loader.epoch(0)))
    loader = adl.Loader(recording(), adl.Pipeline(sample={"lidar": T.RandomFlip()}), batch_size=4)
    with pytest.raises(adl.LoaderError, match=r'sample\["lidar"\].*no `lidar` in dict of "camera", "radar", "imu"'):
        next(iter(loader.epoch(0)))


def test_samples_that_do_not_stack_name_the_sample_and_key():
    samples = [{"x": np.zeros((2, 2), np.float32)}, {"x": np.zeros((2, 3), np.float32)}]
    loader = adl.Loader(samples, adl.Pipeline(), batch_size=2)
    with pytest.raises(adl.LoaderError, match=r'\["x"\].*sample 1.*shape \[2, 3\].*\[2, 2\]'):
        next(iter(loader.epoch(0)))
    with pytest.raises(TypeError, match=r'sample\["x"\] is a complex128 array'):
        adl.Pipeline().sample({"x": np.zeros(3, np.complex128)})
    with pytest.raises(TypeError, match=r"sample\[\"x\"\] is a str"):
        adl.Pipeline().sample({"x": "text"})


def test_a_pipeline_that_breaks_a_rule_is_refused():
    with pytest.raises(ValueError, match="(?s)composition rules.*random_flip"):
        adl.Pipeline(batch={"camera": T.RandomFlip()})
    with pytest.raises(ValueError, match="(?s)composition rules.*u8_to_f32"):
        adl.Pipeline(sample={"camera": T.ToFloat()})
    with pytest.raises(ValueError, match="(?s)composition rules.*u8_to_f32. does not take .ArrayD<f32>.*type_mismatch"):
        adl.Pipeline(batch={"camera": [T.Normalize(0.5, 0.2), T.ToFloat()]})
    with pytest.raises(ValueError, match=r'sample\["imu"\\]? and sample\["imu"\]\["acc"\]|inside it'):
        adl.Pipeline(sample={"imu": T.RandomFlip()}, batch={"imu/acc": T.Clamp(0, 1)})
    with pytest.raises(TypeError, match="adl.transforms or Python callables"):
        adl.Pipeline(sample={"camera": [3]})
    with pytest.raises(ValueError, match="not a key"):
        adl.Pipeline(sample={"camera/": T.RandomFlip()})


def test_transform_arguments_are_checked():
    with pytest.raises(ValueError, match="size is at least 1"):
        T.RandomResizedCrop(0)
    with pytest.raises(ValueError, match="scale is a range"):
        T.RandomResizedCrop(8, scale=(0.9, 0.1))
    with pytest.raises(ValueError, match="layout"):
        T.RandomFlip(layout="whc")
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        T.RandomFlip(p=2.0)
    with pytest.raises(ValueError, match="2 means and 3 stds"):
        T.Normalize([0.1, 0.2], [1, 1, 1])
    with pytest.raises(ValueError, match="not a finite number other than 0"):
        T.Normalize(0.0, 0.0)
    with pytest.raises(ValueError, match="low is at most its high"):
        T.Clamp(1.0, 0.0)
    crop = T.RandomResizedCrop(8)
    assert isinstance(crop, T.Transform) and crop.stage == "sample" and crop.name == "random_resized_crop"
    assert T.ToFloat().stage == "batch"


def test_a_memory_budget_sizes_the_loader_and_says_why():
    dataset = recording()
    pipeline = adl.Pipeline(batch={"camera": T.ToFloat()})

    def epoch(**budget):
        loader = adl.Loader(dataset, pipeline, batch_size=4, shuffle=2, workers=2, **budget)
        return loader, [b["camera"].copy() for b in loader.epoch(0)]

    _, plain = epoch()
    loader, budgeted = epoch(memory_budget=64 << 20)
    assert len(plain) == len(budgeted)
    for a, b in zip(plain, budgeted):
        np.testing.assert_array_equal(a, b)
    text = loader.statistics()
    line = next(l for l in text.splitlines() if l.startswith("memory budget 67.1 MB: "))
    assert "planned" in line and "over budget" not in line, text
    with pytest.raises(ValueError, match="memory_budget"):
        adl.Loader(dataset, pipeline, memory_budget=0)


def test_a_python_pipelines_batches_count_against_the_budget():
    # Batches of two 100 kB arrays, Python's memory: a MB holds 5 of them,
    # 3 ahead, the consumer's and one given back.
    samples = [np.full(25_000, i, dtype=np.float32) for i in range(16)]
    loader = adl.Loader(samples, batch_size=2, memory_budget=1_000_000)
    for _ in range(2):
        assert [b[0, 0] for b in loader.epoch(0)] == list(range(0, 16, 2))
    text = loader.statistics()
    assert "memory budget 1.0 MB: 3 batches ahead of 200.0 kB" in text, text
    assert "not counted" not in text, text


def encoded_recording(layout="hwc"):
    """``recording`` with its camera's frames read but not decoded."""
    traces = []
    for drive in ("drive-1", "drive-2"):
        folder = os.path.join(RECORDING, drive)
        sensors = {
            "camera": files.Images(os.path.join(folder, "camera"), layout=layout).encoded(),
            "radar": files.Npy.in_folder(os.path.join(folder, "radar")),
            "imu": files.Table(os.path.join(folder, "imu.csv"), "t"),
        }
        traces.append(adl.Trace(sensors, generic.Nearest("camera", tol=0.05), name=drive))
    return adl.Dataset(traces)


@pytest.mark.parametrize("layout", ["hwc", "chw"])
def test_a_crop_of_a_frame_in_its_file_decodes_only_the_crop_and_equals_the_decoded_frames(layout):
    def loader(dataset, **crop):
        pipeline = adl.Pipeline(sample={"camera": T.RandomResizedCrop((8, 12), layout=layout, **crop)})
        loader = adl.Loader(dataset, pipeline, batch_size=3, shuffle=5, workers=2)
        assert loader.gil_free
        return [b for b in loader.epoch(1)]

    decoded = loader(recording(layout))
    exact = loader(encoded_recording(layout), scaled_decode=False)
    scaled = loader(encoded_recording(layout))
    assert len(decoded) == len(exact) == len(scaled) > 0
    for a, b, c in zip(decoded, exact, scaled):
        # The same region drawn; unscaled, the same pixels.
        np.testing.assert_array_equal(a["camera"], b["camera"])
        np.testing.assert_array_equal(a["radar"], b["radar"])
        # Scaled (the 64 x 48 frames' crops are mostly twice 8 x 12): a
        # few values off.
        assert c["camera"].shape == a["camera"].shape and c["camera"].dtype == np.uint8
        error = np.mean((a["camera"].astype(np.float64) - c["camera"]) ** 2)
        assert error == 0 or 10 * np.log10(255**2 / error) > 25, error


def test_a_frame_in_its_file_decodes_whole_as_its_sensor_would():
    whole = adl.Loader(encoded_recording(), adl.Pipeline(sample={"camera": T.Decode()}), batch_size=4)
    plain = adl.Loader(recording("hwc"), adl.Pipeline(), batch_size=4)
    for a, b in zip(whole.epoch(0), plain.epoch(0)):
        np.testing.assert_array_equal(a["camera"], b["camera"])
    camera = files.Images(os.path.join(RECORDING, "drive-1", "camera")).encoded()
    with open(camera.frames[2], "rb") as f:
        assert camera[2] == f.read()
    assert len(camera) == len(files.Images(os.path.join(RECORDING, "drive-1", "camera")))


def test_a_frame_left_in_its_file_is_an_error_naming_the_key_and_what_to_do():
    loader = adl.Loader(encoded_recording(), adl.Pipeline(), batch_size=2)
    with pytest.raises(adl.LoaderError, match=r'\["camera"\].*encoded frame.*RandomResizedCrop'):
        next(iter(loader.epoch(0)))
    flipped = adl.Loader(encoded_recording(), adl.Pipeline(sample={"camera": T.RandomFlip()}), batch_size=2)
    with pytest.raises(adl.LoaderError, match=r"flip.*camera.*encoded frame"):
        next(iter(flipped.epoch(0)))
    decode_array = adl.Loader(recording(), adl.Pipeline(sample={"camera": T.Decode()}), batch_size=2)
    with pytest.raises(adl.LoaderError, match=r"decode.*takes an encoded frame"):
        next(iter(decode_array.epoch(0)))
