#!/usr/bin/env python3
"""Write the LeRobot benchmark dataset with lerobot's own writer.

    LEROBOT_PYTHON bench/lerobot/generate.py OUT_DIR [--episodes 8] [--frames 150]

A LeRobot v3.0 dataset (lerobot 0.4's format, its default codec: AV1 by
SVT-AV1, a key frame every 2 frames) of two 640 x 480 cameras at 30
frames/s, written by `LeRobotDataset.create`, `add_frame`, `save_episode`
and `finalize` as a user's recording script writes one: by default 8
episodes of 150 frames (1,200 frames, 40 s), all episodes in one table and
one MP4 per camera (lerobot concatenates them).

The frames are real photographs: the front camera pans and zooms across
scikit-image's astronaut.png, the wrist camera across coffee.png (each
photograph scaled up to cover 1600 x 1200 with Pillow's Lanczos filter,
a 640 x 480 window moving a few pixels a frame, so that consecutive frames
differ as a moving camera's do); state and action are the real PX4 log
tests/data/px4/pixhawk4-sample-small.ulg's attitude, position and motor
outputs, resampled at 30 frames/s. Needs lerobot 0.4.4, pyulog,
scikit-image (its photographs, read as files) and Pillow; takes 2 to 3
minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
ULOG = ROOT / "tests" / "data" / "px4" / "pixhawk4-sample-small.ulg"
FPS = 30
W, H = 640, 480
FRONT, WRIST = "observation.images.front", "observation.images.wrist"
TASKS = ["hover", "climb", "descend", "turn"]


def photograph(name: str):
    from PIL import Image

    spec = importlib.util.find_spec("skimage")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("generate.py: scikit-image is not installed (pip install scikit-image): "
                 f"its bundled photograph skimage/data/{name} is needed")
    image = Image.open(Path(list(spec.submodule_search_locations)[0]) / "data" / name).convert("RGB")
    scale = max(1600 / image.width, 1200 / image.height)
    size = (round(image.width * scale), round(image.height * scale))
    return np.asarray(image.resize(size, Image.LANCZOS))


def window(photo: np.ndarray, k: int, speed: tuple[int, int]) -> np.ndarray:
    """The k-th 640 x 480 window of a slow pan across `photo`."""
    rows, cols = photo.shape[0] - H, photo.shape[1] - W
    y = (k * speed[0]) % (2 * rows)
    x = (k * speed[1]) % (2 * cols)
    y = y if y <= rows else 2 * rows - y
    x = x if x <= cols else 2 * cols - x
    return np.ascontiguousarray(photo[y:y + H, x:x + W])


def flight():
    """The log's state and action, resampled at FPS from its start."""
    from pyulog import ULog

    topics = ["vehicle_attitude", "vehicle_local_position", "actuator_motors"]
    data = {d.name: d.data for d in ULog(str(ULOG), topics).data_list if d.multi_id == 0}

    def at(topic: str, fields: list[str], t: int) -> np.ndarray:
        times = data[topic]["timestamp"]
        i = max(0, int(np.searchsorted(times, t, side="right")) - 1)
        return np.array([data[topic][f][i] for f in fields], dtype=np.float32)

    start = int(data["vehicle_local_position"]["timestamp"][0])
    return start, at


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--episodes", type=int, default=8)
    parser.add_argument("--frames", type=int, default=150)
    args = parser.parse_args()
    from lerobot.datasets.lerobot_dataset import LeRobotDataset

    if args.out.exists():
        shutil.rmtree(args.out)
    front, wrist = photograph("astronaut.png"), photograph("coffee.png")
    start, at = flight()
    features = {
        "observation.state": {"dtype": "float32", "shape": (7,),
                              "names": ["qw", "qx", "qy", "qz", "x", "y", "z"]},
        "action": {"dtype": "float32", "shape": (4,), "names": ["m0", "m1", "m2", "m3"]},
        FRONT: {"dtype": "video", "shape": (H, W, 3), "names": ["height", "width", "channels"]},
        WRIST: {"dtype": "video", "shape": (H, W, 3), "names": ["height", "width", "channels"]},
    }
    dataset = LeRobotDataset.create(repo_id="adl/bench_lerobot", fps=FPS, features=features,
                                    root=args.out, robot_type="px4_multicopter", use_videos=True)
    k = 0
    for episode in range(args.episodes):
        for frame in range(args.frames):
            t = start + k * 1_000_000 // FPS
            state = np.concatenate([at("vehicle_attitude", [f"q[{j}]" for j in range(4)], t),
                                    at("vehicle_local_position", ["x", "y", "z"], t)])
            dataset.add_frame({
                "observation.state": state,
                "action": at("actuator_motors", [f"control[{j}]" for j in range(4)], t),
                FRONT: window(front, k, (3, 5)),
                WRIST: window(wrist, k, (4, -7)),
                "task": TASKS[episode % len(TASKS)],
            })
            k += 1
        dataset.save_episode()
        print(f"generate.py: episode {episode + 1} of {args.episodes}", file=sys.stderr)
    dataset.finalize()
    for p in sorted(args.out.rglob("*"), key=lambda p: -len(p.parts)):
        if p.is_dir() and not any(p.iterdir()):
            p.rmdir()
    size = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"generate.py: {args.out}: {k} frames, {size / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
