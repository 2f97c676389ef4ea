"""adl.Interpolated: a Python sensor evaluated at another sensor's times
computes what NumPy's ``interp`` and SciPy's ``Slerp`` compute (the
golden vectors of tests/golden/interpolation.json, and random inputs
here), masks or refuses what it cannot interpolate, and goes in an
adl.Trace beside sensors matched by nearest neighbour, a ROS bag's IMU
and pose interpolated to its camera's stamps."""

import json
import math
import os
import pathlib

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

import adl
from adl import generic, ros

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = json.loads((ROOT / "tests" / "golden" / "interpolation.json").read_text())
BAG = os.path.join(ROOT, "tests", "data", "ros", "flight.mcap")


class Listed:
    """A plain Python sensor of the specification over a list."""

    def __init__(self, timestamps, samples, fail_at=None):
        self.metadata = type("Metadata", (), {"timestamps": np.asarray(timestamps, dtype=np.float64)})()
        self.samples = samples
        self.fail_at = fail_at

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, index):
        if index == self.fail_at:
            raise KeyError(f"sample {index} is missing")
        return self.samples[index]


def gap(case):
    return math.inf if case["max_gap"] == "inf" else case["max_gap"]


@pytest.mark.parametrize("case", GOLDEN["linear"], ids=lambda c: c["id"])
def test_linear_cases_are_numpys_interp(case):
    fp = np.asarray(case["fp"], dtype=np.float64)
    sensor = Listed(case["xp"], list(fp))
    at = adl.Interpolated(sensor, case["x"], max_gap=gap(case))
    assert len(at) == len(case["x"])
    assert at.valid == sum(case["valid"])
    for i, (valid, nearest) in enumerate(zip(case["valid"], case["nearest"])):
        got = at[i]
        assert got["valid"] == valid, i
        want = case["value"][i] if valid else fp[nearest]
        np.testing.assert_allclose(got["value"], want, rtol=1e-12, atol=1e-12, err_msg=str(i))


@pytest.mark.parametrize("case", GOLDEN["slerp"], ids=lambda c: c["id"])
def test_slerp_cases_are_scipys_slerp(case):
    fp = np.asarray(case["fp"], dtype=np.float64)
    # As a ROS message holds an orientation, and as an array [x, y, z, w].
    sensor = Listed(case["xp"], [{"q": dict(zip("xyzw", q)), "a": q} for q in fp])
    at = adl.Interpolated(sensor, case["x"], max_gap=gap(case), slerp=["q", "a"])
    for i, (valid, nearest) in enumerate(zip(case["valid"], case["nearest"])):
        got = at[i]
        assert got["valid"] == valid, i
        want = Rotation.from_quat(case["value"][i] if valid else fp[nearest])
        for q in (np.array([got["value"]["q"][k] for k in "xyzw"]), got["value"]["a"]):
            assert q.dtype == np.float64
            assert Rotation.from_quat(q).approx_equal(want, atol=1e-9), i


def test_random_inputs_agree_with_numpy_and_scipy():
    rng = np.random.default_rng(7)
    for _ in range(20):
        n = int(rng.integers(2, 30))
        xp = np.sort(rng.uniform(0, 10, n))
        xp = np.unique(xp)
        fp = rng.normal(size=(len(xp), 3))
        quats = Rotation.random(len(xp), random_state=int(rng.integers(1 << 30))).as_quat()
        x = np.sort(rng.uniform(xp[0], xp[-1], 40))
        samples = [{"v": fp[k].astype(np.float32), "n": float(fp[k, 0]), "o": quats[k],
                    "frame": f"frame{k}"} for k in range(len(xp))]
        at = adl.Interpolated(Listed(xp, samples), x, slerp=["o"])
        slerp = Slerp(xp, Rotation.from_quat(quats))
        for i, t in enumerate(x):
            got = at[i]
            assert got["valid"]
            value = got["value"]
            assert value["v"].dtype == np.float32
            want = [np.interp(t, xp, fp[:, c].astype(np.float32).astype(np.float64)) for c in range(3)]
            np.testing.assert_allclose(value["v"], want, rtol=1e-6)
            assert value["n"] == pytest.approx(np.interp(t, xp, fp[:, 0]), rel=1e-12, abs=1e-12)
            assert Rotation.from_quat(value["o"]).approx_equal(slerp([t])[0], atol=1e-9)
            # A string is the nearer sample's.
            k = int(np.searchsorted(xp, t, side="right")) - 1
            if k < len(xp) - 1 and xp[k] != t:
                nearer = k if t - xp[k] <= xp[k + 1] - t else k + 1
            else:
                nearer = k
            assert value["frame"] == f"frame{nearer}"


def test_gaps_are_masked_or_refused():
    sensor = Listed([0.0, 0.1, 0.2, 0.6], [np.array([float(i)]) for i in range(4)])
    masked = adl.Interpolated(sensor, [-0.1, 0.05, 0.4, 0.6, 0.7], max_gap=0.2)
    assert masked.gaps == "mask"
    assert [masked[i]["valid"] for i in range(5)] == [False, True, False, True, False]
    assert masked[0]["value"][0] == 0.0 and masked[4]["value"][0] == 3.0
    assert masked[-1]["value"][0] == 3.0
    np.testing.assert_array_equal(masked.metadata.timestamps, [-0.1, 0.05, 0.4, 0.6, 0.7])

    refused = adl.Interpolated(sensor, [-0.1, 0.05, 0.4, 0.7], max_gap=0.2, gaps="refuse")
    assert refused[1]["value"][0] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="before the sensor's first sample"):
        refused[0]
    with pytest.raises(ValueError, match="longer than max_gap"):
        refused[2]
    with pytest.raises(ValueError, match="after the sensor's last sample"):
        refused[3]
    with pytest.raises(IndexError, match="out of range"):
        refused[4]


def test_mistakes_are_errors_naming_them():
    sensor = Listed([0.0, 1.0], [np.zeros(2), np.zeros(3)], fail_at=None)
    with pytest.raises(ValueError, match="gaps must be"):
        adl.Interpolated(sensor, [0.5], gaps="nearest")
    with pytest.raises(ValueError, match="max_gap"):
        adl.Interpolated(sensor, [0.5], max_gap=0.0)
    with pytest.raises(ValueError, match="sorted|order"):
        adl.Interpolated(sensor, [0.5, 0.2])
    with pytest.raises(TypeError, match="must be a sensor"):
        adl.Interpolated([1, 2, 3], [0.5])
    # Readings that cannot be mixed: arrays of two shapes.
    with pytest.raises(ValueError, match="shape|cannot"):
        adl.Interpolated(sensor, [0.5])[0]
    # A quaternion that is not one.
    bad = Listed([0.0, 1.0], [{"q": [0.0, 0.0]}, {"q": [0.0, 0.0]}])
    with pytest.raises(ValueError, match="`q`, named in slerp"):
        adl.Interpolated(bad, [0.5], slerp=["q"])[0]
    # The sensor's own exception, as it raised it, with a note of where.
    failing = Listed([0.0, 1.0, 2.0], [1.0, 2.0, 3.0], fail_at=1)
    with pytest.raises(KeyError, match="sample 1 is missing") as raised:
        adl.Interpolated(failing, [0.5], name="wheel")[0]
    assert any("interpolating sensor `wheel` at 0.5 s" in n for n in raised.value.__notes__)


def test_a_bags_imu_and_pose_interpolated_to_its_camera_beside_nearest_lidar():
    bag = ros.Bag(BAG)
    camera = bag["/camera/image"].view("image")
    imu = adl.Interpolated(bag["/imu"].view("imu"), camera, max_gap=0.1, slerp=["orientation"])
    pose = adl.Interpolated(bag["/pose"], camera, max_gap=0.5, slerp=["pose.orientation"])
    trace = adl.Trace(
        {"camera": camera, "imu": imu, "pose": pose, "lidar": bag["/lidar"].view("points")},
        sync=generic.Nearest("camera"),
    )
    # Nearest keeps the camera's stamps within every sensor's span (the
    # lidar's is shorter); the interpolated sensors, on the camera's own
    # stamps, match the camera's sample exactly.
    assert 1 <= len(trace) <= len(camera)
    indices = trace.indices
    np.testing.assert_array_equal(indices["imu"], indices["camera"])
    np.testing.assert_array_equal(indices["pose"], indices["camera"])
    for i in range(len(trace)):
        sample, at = trace[i], int(indices["camera"][i])
        np.testing.assert_array_equal(sample["camera"], camera[at])
        assert sample["imu"]["valid"] == imu[at]["valid"]
        np.testing.assert_array_equal(sample["imu"]["value"]["angular_velocity"],
                                      imu[at]["value"]["angular_velocity"])
    # Interpolated by hand from the raw messages: linear, and slerp.
    raw = bag["/pose"]
    t = raw.metadata.timestamps
    for i, at in enumerate(camera.metadata.timestamps):
        got = pose[i]
        if not got["valid"]:
            assert at < t[0] or at > t[-1] or np.diff(t).max() > 0.5
            continue
        k = min(int(np.searchsorted(t, at, side="right")) - 1, len(t) - 2)
        w = (at - t[k]) / (t[k + 1] - t[k])
        a, b = raw[k]["pose"], raw[k + 1]["pose"]
        for axis in "xyz":
            want = a["position"][axis] + w * (b["position"][axis] - a["position"][axis])
            assert got["value"]["pose"]["position"][axis] == pytest.approx(want, abs=1e-9)
        qa, qb = ([q["orientation"][c] for c in "xyzw"] for q in (a, b))
        want = Slerp([0.0, 1.0], Rotation.from_quat([qa, qb]))([w])[0]
        q = [got["value"]["pose"]["orientation"][c] for c in "xyzw"]
        assert Rotation.from_quat(q).approx_equal(want, atol=1e-9)
        nearer = raw[k if w <= 0.5 else k + 1]["header"]
        assert got["value"]["header"]["frame_id"] == nearer["frame_id"]
        # The stamp's integers interpolated as numbers, as np.interp does.
        assert isinstance(got["value"]["header"]["stamp"]["sec"], float)
    # Batches: the values stacked, the mask beside them.
    samples = [{"camera": camera[i], "imu": imu[i], "pose": pose[i]} for i in range(len(camera))]
    batch = adl.default_collate(samples)
    assert batch["imu"]["valid"].dtype == np.bool_
    np.testing.assert_array_equal(batch["imu"]["valid"], [imu[i]["valid"] for i in range(len(camera))])
    assert batch["imu"]["value"]["angular_velocity"].shape == (len(camera), 3)
    assert batch["pose"]["value"]["pose"]["position"]["x"].shape == (len(camera),)


def test_the_loader_batches_an_interpolated_trace():
    bag = ros.Bag(BAG)
    camera = bag["/camera/image"].view("image")
    imu = adl.Interpolated(bag["/imu"].view("imu"), camera, max_gap=0.1, slerp=["orientation"])
    trace = adl.Trace({"camera": camera, "imu": imu}, sync=generic.Nearest("camera"))
    assert len(trace) == len(camera)
    loader = adl.Loader(adl.Dataset([trace]), batch_size=2, workers=2)
    batches = list(loader)
    assert sum(len(b["imu"]["valid"]) for b in batches) == len(trace) - len(trace) % 2
    first = batches[0]
    np.testing.assert_array_equal(first["imu"]["valid"], [imu[0]["valid"], imu[1]["valid"]])
    np.testing.assert_allclose(first["imu"]["value"]["angular_velocity"][1],
                               imu[1]["value"]["angular_velocity"])
