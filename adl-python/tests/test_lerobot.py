"""adl.lerobot.LeRobotDataset against lerobot's own LeRobotDataset, over
the datasets of tests/data/lerobot written by lerobot's own writer
(make_lerobot.py): the same items (keys in order, dtypes, shapes, values,
the cameras' frames bit for bit), live against lerobot 0.4.4 for the v3.0
datasets and against lerobot 0.3.3's recorded reading
(expected/v21*.npz) for the v2.1 one, which lerobot 0.4 does not read;
under torch's DataLoader (forked and spawned workers) and adl.Loader."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import adl  # noqa: E402
from adl.lerobot import LeRobotDataset  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "lerobot"
REPO = "adl/px4_flight"
DELTAS = {
    "observation.images.front": [-0.1, 0.0],
    "observation.state": [-0.2, -0.1, 0.0],
    "action": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7],
}


def lerobots(name, **kwargs):
    """lerobot's own reading of dataset `name`."""
    from lerobot.datasets.lerobot_dataset import LeRobotDataset as Theirs

    return Theirs(REPO, root=DATA / name, **kwargs)


def assert_same_item(ours, theirs, where):
    assert list(ours) == list(theirs), where
    for key, value in theirs.items():
        if isinstance(value, torch.Tensor):
            assert isinstance(ours[key], torch.Tensor), (where, key)
            assert ours[key].dtype == value.dtype and ours[key].shape == value.shape, (where, key)
            assert torch.equal(ours[key], value), (where, key)
        else:
            assert ours[key] == value, (where, key)


@pytest.mark.parametrize("name", ["v30_av1", "v30_h264"])
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"delta_timestamps": DELTAS}, {"episodes": [0, 2]}, {"episodes": [2], "delta_timestamps": DELTAS}],
    ids=["plain", "deltas", "episodes", "episodes-deltas"],
)
def test_every_item_is_lerobots(name, kwargs):
    ours = LeRobotDataset(REPO, root=DATA / name, **kwargs)
    theirs = lerobots(name, **kwargs)
    assert len(ours) == len(theirs)
    assert ours.num_frames == theirs.num_frames and ours.num_episodes == theirs.num_episodes
    assert ours.fps == theirs.fps and ours.features == theirs.features
    assert ours.meta.video_keys == theirs.meta.video_keys
    assert ours.meta.camera_keys == theirs.meta.camera_keys
    assert list(ours.meta.tasks.index) == list(theirs.meta.tasks.index)
    assert ours.delta_indices == theirs.delta_indices
    for i in range(len(ours)):
        assert_same_item(ours[i], theirs[i], (name, kwargs, i))
    assert_same_item(ours[-1], theirs[len(theirs) - 1], "the last, from the end")


def test_the_statistics_are_lerobots():
    ours = LeRobotDataset(REPO, root=DATA / "v30_av1")
    theirs = lerobots("v30_av1")
    assert set(ours.meta.stats) == set(theirs.meta.stats)
    for feature, stats in theirs.meta.stats.items():
        for stat, value in stats.items():
            np.testing.assert_array_equal(ours.meta.stats[feature][stat], value)


def expected(name):
    """lerobot's recorded reading of dataset `name` (expected/)."""
    return json.loads((DATA / "expected" / f"{name}.json").read_text())


def test_the_v21_dataset_is_read_as_lerobot_0_3_read_it():
    ours = LeRobotDataset(REPO, root=DATA / "v21")
    info = expected("v21")
    assert len(ours) == info["dataset_properties"]["len"]
    arrays = np.load(DATA / "expected" / "v21.npz")
    for i in range(len(ours)):
        item = ours[i]
        assert list(item) == info["items"]["keys"]
        assert item["task"] == info["items"]["task"][i]
        for key in arrays.files:
            value = item[key].numpy()
            if key in ours.meta.camera_keys:
                value = np.round(value * 255).astype(np.uint8)
            np.testing.assert_array_equal(value, arrays[key][i], err_msg=f"{key} of item {i}")
    delta = info["delta"]
    ours = LeRobotDataset(REPO, root=DATA / "v21", delta_timestamps=delta["delta_timestamps"])
    arrays = np.load(DATA / "expected" / "v21.delta.npz")
    for row, i in enumerate(delta["items"]):
        item = ours[i]
        assert list(item) == delta["keys"]
        for key in arrays.files:
            value = item[key].numpy()
            if key in ours.meta.camera_keys:
                value = np.round(value * 255).astype(np.uint8)
            np.testing.assert_array_equal(value, arrays[key][row], err_msg=f"{key} of item {i}")
    # lerobot 0.3 aggregates episodes_stats.jsonl into its stats: so does adl.
    stats = ours.meta.stats
    assert stats["observation.state"]["count"] == 53
    assert stats["observation.state"]["mean"].shape == (7,)


def test_cameras_as_uint8_and_as_image_transforms_change_them():
    plain = LeRobotDataset(REPO, root=DATA / "v30_av1")
    raw = LeRobotDataset(REPO, root=DATA / "v30_av1", uint8=True)
    front = raw[5]["observation.images.front"]
    assert front.dtype == torch.uint8 and front.shape == (3, 24, 32)
    assert torch.equal(front.float() / 255, plain[5]["observation.images.front"])
    seen = []

    def flip(frames):
        seen.append(tuple(frames.shape))
        return frames.flip(-1)

    flipped = LeRobotDataset(REPO, root=DATA / "v30_av1", image_transforms=flip)
    item = flipped[5]
    assert torch.equal(item["observation.images.front"], plain[5]["observation.images.front"].flip(-1))
    assert seen == [(3, 24, 32), (3, 30, 40)]


def all_items(loader):
    """Every batch of a DataLoader, as one list of (index, item) pairs."""
    out = {}
    for batch in loader:
        for k, index in enumerate(batch["index"].tolist()):
            out[index] = {key: value[k] for key, value in batch.items()}
    return out


@pytest.mark.parametrize("context", ["fork", "spawn"])
def test_torch_dataloader_workers_read_every_item(context):
    dataset = LeRobotDataset(REPO, root=DATA / "v30_h264", delta_timestamps=DELTAS)
    # The parent decodes first: its decoders are not the forked workers'.
    first = dataset[0]
    loader = torch.utils.data.DataLoader(
        dataset, batch_size=5, num_workers=2, multiprocessing_context=context, shuffle=True
    )
    items = all_items(loader)
    assert sorted(items) == list(range(len(dataset)))
    for index in (0, 15, 16, 37, 38, 52):
        item = dataset[index]
        for key, value in items[index].items():
            if isinstance(value, torch.Tensor):
                assert torch.equal(value, item[key]), (index, key)
            else:
                assert value == item[key]
    assert torch.equal(dataset[0]["observation.images.front"], first["observation.images.front"])


def test_adl_loader_reads_decodes_and_collates_in_rust():
    dataset = LeRobotDataset(REPO, root=DATA / "v30_h264", delta_timestamps=DELTAS)
    loader = adl.Loader(dataset, batch_size=6, workers=2)
    assert loader.gil_free
    batches = list(loader.epoch(0))
    assert [len(b["task"]) for b in batches] == [6] * 8 + [5]
    for k, batch in enumerate(batches):
        items = [dataset[i] for i in range(6 * k, min(6 * k + 6, len(dataset)))]
        collated = torch.utils.data.default_collate(items)
        assert list(batch) == list(collated)
        for key, value in collated.items():
            if isinstance(value, torch.Tensor):
                assert isinstance(batch[key], torch.Tensor) and batch[key].dtype == value.dtype
                assert torch.equal(batch[key], value), (k, key)
            else:
                assert batch[key] == value
    # Shuffled and sharded: every index over the ranks, the tail padded to
    # ranks of one length as torch's DistributedSampler pads it.
    seen = []
    for rank in range(2):
        loader = adl.Loader(dataset, batch_size=4, workers=2, shuffle=7, rank=rank, world=2)
        for batch in loader.epoch(3):
            seen.extend(batch["index"].tolist())
    assert set(seen) == set(range(len(dataset))) and len(seen) == 54


def test_adl_loader_with_image_transforms_calls_them_on_each_item():
    dataset = LeRobotDataset(REPO, root=DATA / "v30_av1", image_transforms=lambda x: x * 0 + 1)
    loader = adl.Loader(dataset, batch_size=10)
    assert not loader.gil_free
    batch = next(iter(loader.epoch(0)))
    assert isinstance(batch["observation.images.front"], torch.Tensor)
    assert torch.all(batch["observation.images.front"] == 1)


def test_without_torch_items_are_numpy_arrays():
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from adl.lerobot import LeRobotDataset\n"
        f"ds = LeRobotDataset('x', root={str(DATA / 'v30_av1')!r})\n"
        "item = ds[3]\n"
        "import numpy as np\n"
        "assert isinstance(item['observation.images.front'], np.ndarray), type(item['observation.images.front'])\n"
        "assert item['observation.images.front'].dtype == np.float32\n"
        "assert item['index'].shape == () and item['index'].dtype == np.int64\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def copy(name, tmp_path):
    target = tmp_path / name
    shutil.copytree(DATA / name, target)
    return target


def test_a_missing_root_says_how_to_get_one(tmp_path):
    with pytest.raises(FileNotFoundError, match="adl reads local datasets: download one first"):
        LeRobotDataset(REPO, root=tmp_path / "nowhere")


def test_a_missing_video_names_the_file_episode_and_camera(tmp_path):
    root = copy("v30_h264", tmp_path)
    video = root / "videos" / "observation.images.wrist" / "chunk-000" / "file-001.mp4"
    video.unlink()
    with pytest.raises(OSError) as raised:
        LeRobotDataset(REPO, root=root)
    message = str(raised.value)
    assert message.startswith(f"trace `episode 2 of {root}`")
    assert f"{video} (sensor `observation.images.wrist`): cannot open" in message


def test_a_truncated_video_names_the_file(tmp_path):
    root = copy("v30_av1", tmp_path)
    video = root / "videos" / "observation.images.front" / "chunk-000" / "file-000.mp4"
    data = video.read_bytes()
    # The concatenated files have their index first: cut in the pictures,
    # the late frames are past the end.
    video.write_bytes(data[: len(data) * 2 // 3])
    dataset = LeRobotDataset(REPO, root=root)
    dataset[0]
    with pytest.raises(OSError, match="past the file's end"):
        dataset[52]


def test_a_frame_outside_the_tolerance_names_its_time(tmp_path):
    root = copy("v21", tmp_path)
    videos = root / "videos" / "chunk-000" / "observation.images.front"
    shutil.copy(videos / "episode_000002.mp4", videos / "episode_000001.mp4")
    with pytest.raises(OSError) as raised:
        LeRobotDataset(REPO, root=root)
    assert "(sensor `observation.images.front`, sample 15): no frame within 0.0001 s of 1.5 s" in str(
        raised.value
    )


def test_an_uneven_delta_is_lerobots_value_error():
    with pytest.raises(ValueError, match="is not a multiple of 1/10 s"):
        LeRobotDataset(REPO, root=DATA / "v30_av1", delta_timestamps={"action": [0.05]})


def test_a_dataset_pickles_by_its_arguments():
    import pickle

    dataset = LeRobotDataset(REPO, root=DATA / "v30_av1", episodes=[1], delta_timestamps=DELTAS)
    again = pickle.loads(pickle.dumps(dataset))
    assert len(again) == len(dataset) == 22
    assert_same_item(again[3], dataset[3], "unpickled")
