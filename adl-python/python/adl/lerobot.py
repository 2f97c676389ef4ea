"""LeRobot datasets, read by adl: a drop-in for lerobot's ``LeRobotDataset``.

    from adl.lerobot import LeRobotDataset      # in place of
    # from lerobot.datasets.lerobot_dataset import LeRobotDataset

    dataset = LeRobotDataset("lerobot/pusht", root="data/pusht",
                             delta_timestamps={"action": [i / 10 for i in range(8)]})
    loader = torch.utils.data.DataLoader(dataset, batch_size=32, num_workers=2)
    loader = adl.Loader(dataset, batch_size=32, workers=2)   # or adl's own

A local dataset of format v3.0 (lerobot 0.4) or v2.1 (lerobot 0.3): its
Parquet tables and MP4 videos (AV1, H.264, HEVC) are read by adl in Rust
(arrow-rs, FFmpeg) with the GIL released. The constructor takes lerobot's
arguments (``repo_id``, ``root``, ``episodes``, ``image_transforms``,
``delta_timestamps``, ``tolerance_s``; ``revision``, ``force_cache_sync``,
``download_videos``, ``video_backend`` and ``batch_encoding_size`` are
accepted and have no effect: nothing is downloaded, and adl decodes with
its own decoders); ``uint8=True`` gives the cameras' frames as ``uint8``
``[C, H, W]`` instead of lerobot's ``float32`` in [0, 1].

Items are lerobot's: the same keys in the same order (the cameras, the
table's columns, ``{key}_is_pad`` for each key of ``delta_timestamps``,
``task``), the same dtypes (every float ``float32``, every integer
``int64``), shapes and values, as PyTorch tensors where PyTorch is
installed and NumPy arrays otherwise. Every frame's time in a table is
checked against its video when the dataset is made, not when an item is
read: a frame with none within ``tolerance_s`` is an error then, naming
the episode, the camera, the file and the time.

Under ``adl.Loader`` (without ``image_transforms``, which are Python code
run on each item), a batch is read, decoded and collated in Rust without
the GIL: the batch's frames grouped by video file and group of pictures,
each group decoded once. ``adl.Loader`` gives the batches as lerobot's
items are given: tensors where PyTorch is installed.

Differences from lerobot, on purpose: ``episodes=[...]`` with
``delta_timestamps`` on a v2.1 dataset pads at the episodes' real ends
(lerobot 0.3 indexes its episode table with the wrong positions there);
a missing file is an ``OSError`` naming it (lerobot goes to the Hub for
it); a frame's time outside the tolerance is an error when the dataset is
made (lerobot raises it when the item is read).
"""

from __future__ import annotations

import importlib
import json
import operator
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from adl._native import NativeLeRobot

__all__ = ["HF_LEROBOT_HOME", "LeRobotDataset", "LeRobotDatasetMetadata"]


def _hf_home() -> Path:
    home = os.environ.get("HF_HOME")
    if home:
        return Path(home).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME")
    return (Path(cache) if cache else Path.home() / ".cache") / "huggingface"


#: Where a dataset's files are when no ``root`` is given (as lerobot's:
#: ``$HF_LEROBOT_HOME``, else ``$HF_HOME/lerobot``), then ``repo_id``.
HF_LEROBOT_HOME = Path(os.environ.get("HF_LEROBOT_HOME", _hf_home() / "lerobot")).expanduser()


class LeRobotDatasetMetadata:
    """A dataset's metadata, as lerobot's ``LeRobotDatasetMetadata`` has it:
    ``info`` (``meta/info.json``), ``features``, ``fps``, the totals, the
    camera keys, ``tasks``, ``episodes`` and ``stats``."""

    def __init__(self, repo_id: str, root: str | Path | None = None, *, _native: Any = None) -> None:
        self.repo_id = repo_id
        self.root = Path(root) if root is not None else HF_LEROBOT_HOME / repo_id
        info_path = self.root / "meta" / "info.json"
        if not info_path.is_file():
            raise FileNotFoundError(
                f"{info_path}: no LeRobot dataset here. adl reads local datasets: download one first "
                f"(`huggingface-cli download --repo-type dataset {repo_id} --local-dir {self.root}`), "
                "or give its folder as root="
            )
        self.info: dict[str, Any] = json.loads(info_path.read_text())
        for feature in self.info["features"].values():
            feature["shape"] = tuple(feature["shape"])
        self._native = _native
        self._stats: dict[str, dict[str, np.ndarray]] | None = None

    @property
    def version(self) -> str:
        """The format's version, ``"v3.0"`` or ``"v2.1"``."""
        return str(self.info["codebase_version"])

    @property
    def features(self) -> dict[str, dict[str, Any]]:
        """Every feature: its ``dtype``, ``shape`` (a tuple), ``names``."""
        return self.info["features"]  # type: ignore[no-any-return]

    @property
    def fps(self) -> int:
        """Frames per second."""
        return self.info["fps"]  # type: ignore[no-any-return]

    @property
    def robot_type(self) -> str | None:
        return self.info.get("robot_type")

    @property
    def total_episodes(self) -> int:
        return int(self.info["total_episodes"])

    @property
    def total_frames(self) -> int:
        return int(self.info["total_frames"])

    @property
    def total_tasks(self) -> int:
        return int(self.info["total_tasks"])

    @property
    def chunks_size(self) -> int:
        return int(self.info["chunks_size"])

    @property
    def data_path(self) -> str:
        return str(self.info["data_path"])

    @property
    def video_path(self) -> str | None:
        return self.info.get("video_path")

    @property
    def video_keys(self) -> list[str]:
        """The cameras stored as videos."""
        return [key for key, ft in self.features.items() if ft["dtype"] == "video"]

    @property
    def image_keys(self) -> list[str]:
        """The cameras stored as images (which adl does not read)."""
        return [key for key, ft in self.features.items() if ft["dtype"] == "image"]

    @property
    def camera_keys(self) -> list[str]:
        """Every camera, videos and images."""
        return [key for key, ft in self.features.items() if ft["dtype"] in ("video", "image")]

    @property
    def names(self) -> dict[str, Any]:
        return {key: ft["names"] for key, ft in self.features.items()}

    @property
    def shapes(self) -> dict[str, tuple[int, ...]]:
        return {key: tuple(ft["shape"]) for key, ft in self.features.items()}

    @property
    def tasks(self) -> Any:
        """The tasks: for v3.0 a pandas ``DataFrame`` indexed by the task,
        with its ``task_index`` (a dict task -> index without pandas); for
        v2.1 a dict task_index -> task, as lerobot has them."""
        tasks = self._native.tasks if self._native is not None else []
        if self.version == "v2.1":
            return dict(enumerate(tasks))
        try:
            pandas = importlib.import_module("pandas")
        except ImportError:
            return {task: index for index, task in enumerate(tasks)}
        return pandas.DataFrame({"task_index": range(len(tasks))}, index=tasks)

    @property
    def episodes(self) -> list[dict[str, Any]]:
        """Every episode read: its ``episode_index``, ``tasks``, ``length``
        (and in v3.0 ``dataset_from_index``, ``dataset_to_index``)."""
        return list(self._native.episodes) if self._native is not None else []

    @property
    def stats(self) -> dict[str, dict[str, np.ndarray]]:
        """Each feature's statistics (``min``, ``max``, ``mean``, ``std``,
        ``count``; v3.0 also its quantiles) as NumPy arrays: v3.0's
        ``meta/stats.json``; v2.1's per-episode statistics aggregated as
        lerobot aggregates them."""
        if self._stats is None:
            self._stats = self._read_stats()
        return self._stats

    def _read_stats(self) -> dict[str, dict[str, np.ndarray]]:
        path = self.root / "meta" / "stats.json"
        if path.is_file():
            raw = json.loads(path.read_text())
            return {ft: {stat: np.array(v) for stat, v in stats.items()} for ft, stats in raw.items()}
        path = self.root / "meta" / "episodes_stats.jsonl"
        if not path.is_file():
            return {}
        episodes = [json.loads(line)["stats"] for line in path.read_text().splitlines() if line.strip()]
        keys = {key for stats in episodes for key in stats}
        out: dict[str, dict[str, np.ndarray]] = {}
        for key in keys:
            per_episode = [
                {stat: np.array(v) for stat, v in stats[key].items()} for stats in episodes if key in stats
            ]
            out[key] = _aggregate(per_episode)
        return out

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}({{\n"
            f"    Repository ID: '{self.repo_id}',\n"
            f"    Total episodes: '{self.total_episodes}',\n"
            f"    Total frames: '{self.total_frames}',\n"
            f"    Features: '{list(self.features)}',\n"
            "})',\n"
        )


def _aggregate(stats: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Episodes' statistics of one feature as one, as lerobot aggregates
    them: weighted mean, pooled variance."""
    means = np.stack([s["mean"] for s in stats])
    variances = np.stack([s["std"] ** 2 for s in stats])
    counts = np.stack([s["count"] for s in stats])
    total = counts.sum(axis=0)
    while counts.ndim < means.ndim:
        counts = np.expand_dims(counts, axis=-1)
    mean = (means * counts).sum(axis=0) / total
    variance = ((variances + (means - mean) ** 2) * counts).sum(axis=0) / total
    return {
        "min": np.min(np.stack([s["min"] for s in stats]), axis=0),
        "max": np.max(np.stack([s["max"] for s in stats]), axis=0),
        "mean": mean,
        "std": np.sqrt(variance),
        "count": total,
    }


try:  # A torch Dataset where PyTorch is installed, as lerobot's is.
    from torch.utils.data import Dataset as _Base
except ImportError:  # pragma: no cover - without PyTorch
    _Base = object  # type: ignore[assignment,misc]


class LeRobotDataset(_Base):
    """A local LeRobot dataset read by adl, as lerobot's ``LeRobotDataset``
    reads it (see the module's docs)."""

    def __init__(
        self,
        repo_id: str,
        root: str | Path | None = None,
        episodes: Sequence[int] | None = None,
        image_transforms: Callable[[Any], Any] | None = None,
        delta_timestamps: Mapping[str, Sequence[float]] | None = None,
        tolerance_s: float = 1e-4,
        revision: str | None = None,
        force_cache_sync: bool = False,
        download_videos: bool = True,
        video_backend: str | None = None,
        batch_encoding_size: int = 1,
        *,
        uint8: bool = False,
    ) -> None:
        self.repo_id = repo_id
        self.root = Path(root) if root is not None else HF_LEROBOT_HOME / repo_id
        self.episodes = list(episodes) if episodes is not None else None
        self.image_transforms = image_transforms
        self.delta_timestamps = dict(delta_timestamps) if delta_timestamps is not None else None
        self.tolerance_s = tolerance_s
        self.revision = revision
        self.video_backend = video_backend
        self.uint8 = uint8
        self._arguments = {
            "repo_id": repo_id,
            "root": str(self.root),
            "episodes": self.episodes,
            "image_transforms": image_transforms,
            "delta_timestamps": self.delta_timestamps,
            "tolerance_s": tolerance_s,
            "revision": revision,
            "video_backend": video_backend,
            "uint8": uint8,
        }
        meta = LeRobotDatasetMetadata(repo_id, self.root)
        self._native = NativeLeRobot(
            str(self.root),
            episodes=self.episodes,
            delta_timestamps=(
                [(key, [float(d) for d in deltas]) for key, deltas in self.delta_timestamps.items()]
                if self.delta_timestamps is not None
                else None
            ),
            tolerance_s=tolerance_s,
            uint8=uint8,
        )
        meta._native = self._native
        self.meta = meta
        self.delta_indices = (
            {key: [round(d * meta.fps) for d in deltas] for key, deltas in self.delta_timestamps.items()}
            if self.delta_timestamps is not None
            else None
        )

    def __len__(self) -> int:
        return len(self._native)

    def __getitem__(self, idx: int) -> dict[str, Any]:
        item = self._native.item(operator.index(idx))
        if self.image_transforms is not None:
            for camera in self.meta.camera_keys:
                if camera in item:
                    item[camera] = self.image_transforms(item[camera])
        return item

    @property
    def fps(self) -> int:
        """Frames per second."""
        return self.meta.fps

    @property
    def num_frames(self) -> int:
        """The number of frames (items) read."""
        return len(self._native)

    @property
    def num_episodes(self) -> int:
        """The number of episodes read."""
        return len(self._native.episode_indices)

    @property
    def features(self) -> dict[str, dict[str, Any]]:
        """Every feature, as ``meta/info.json`` describes it."""
        return self.meta.features

    @property
    def hf_features(self) -> dict[str, dict[str, Any]]:
        """The features stored in the tables (not the videos)."""
        return {key: ft for key, ft in self.features.items() if ft["dtype"] != "video"}

    def __reduce__(self) -> tuple[Any, ...]:
        # Made again from its arguments where it is unpickled (a spawned
        # DataLoader worker, a worker process): no decoder, file or cache
        # crosses processes.
        return (_rebuild, (type(self), self._arguments))

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}({{\n"
            f"    Repository ID: '{self.repo_id}',\n"
            f"    Number of selected episodes: '{self.num_episodes}',\n"
            f"    Number of selected samples: '{self.num_frames}',\n"
            f"    Features: '{list(self.features)}',\n"
            "})',\n"
        )


def _rebuild(cls: type[LeRobotDataset], arguments: dict[str, Any]) -> LeRobotDataset:
    return cls(**arguments)
