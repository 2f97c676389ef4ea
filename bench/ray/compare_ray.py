#!/usr/bin/env python3
"""adl.ray.read against Ray Data's own readers, on a local Ray cluster of
two nodes (1 CPU each, on this machine), alternating, rows/s to a
`map_batches` that touches every column (one value in 1,024 of each
array, every string and number), the dataset made before the clock starts:

    lerobot   adl.ray.read(adl.lerobot.LeRobotDataset(DATA, uint8=True))
              against ray.data.read_lerobot(DATA): every row's two camera
              frames decoded (AV1 or H.264), its state and action.
    mcap      adl.ray.read over each topic of a ROS 2 MCAP bag (its
              messages decoded by adl into their fields) against
              ray.data.read_mcap(BAG): Ray gives each message's CDR bytes,
              so its map_batches decodes them first (rosbags'
              deserialize_cdr, as a Ray user does), then touches the
              fields. `mcap-raw` is Ray's rows undecoded, for reference.

    python bench/ray/compare_ray.py --lerobot target/lerobot-bench/data \\
        --bag target/ray-bench/bag --rounds 5

Needs `pip install 'ray[data]' mcap rosbags` beside adl. Prints a JSON
line per run, then one `ratio WORKLOAD adl/ray R` line per workload: the
ratio of the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # every node on 127.0.0.1
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
import ray  # noqa: E402
import ray.data  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

import adl.ray  # noqa: E402
from adl import ros  # noqa: E402
from adl.lerobot import LeRobotDataset  # noqa: E402

STRIDE = 1024


def touch(value) -> float:
    """One value in STRIDE of an array (each row's, for an array of
    objects), a number, a string's length."""
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return sum(touch(v) for v in value)
        if value.dtype.kind in "US":
            return float(sum(len(v) for v in value.reshape(-1)))
        return float(value.reshape(-1)[::STRIDE].sum()) if value.size else 0.0
    if isinstance(value, (bytes, str)):
        return float(len(value))
    if isinstance(value, dict):
        return sum(touch(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(touch(v) for v in value)
    if isinstance(value, (int, float, np.generic)):
        return float(value)
    fields = getattr(value, "__dataclass_fields__", None)
    if fields is not None:  # a message rosbags decoded
        return sum(touch(getattr(value, name)) for name in fields)
    return 0.0


def touched(batch: dict) -> dict:
    rows = len(next(iter(batch.values())))
    return {"rows": np.array([rows]), "sum": np.array([sum(touch(v) for v in batch.values())])}


def decoded_and_touched(batch: dict) -> dict:
    """Ray's MCAP rows: each message's CDR bytes decoded first."""
    from rosbags.typesys import Stores, get_typestore

    store = get_typestore(Stores.ROS2_HUMBLE)
    total = 0.0
    for data, schema in zip(batch["data"], batch["schema_name"]):
        total += touch(store.deserialize_cdr(bytes(data), schema))
    return {"rows": np.array([len(batch["data"])]), "sum": np.array([total])}


def rows_of(dataset) -> int:
    return int(sum(b["rows"].sum() for b in dataset.iter_batches(batch_size=None, batch_format="numpy")))


def run(config: str, args) -> dict:
    if config == "lerobot-adl":
        made = adl.ray.read(LeRobotDataset("bench", root=args.lerobot, uint8=True)).map_batches(touched, batch_size=None)
    elif config == "lerobot-ray":
        made = ray.data.read_lerobot(str(args.lerobot)).map_batches(touched, batch_size=None)
    elif config == "mcap-adl":
        bag = ros.Bag(str(args.bag))
        parts = [adl.ray.read(bag[topic]).map_batches(touched, batch_size=None) for topic in bag.topics]
        made = parts[0].union(*parts[1:])
    elif config == "mcap-ray":
        made = ray.data.read_mcap(str(args.bag)).map_batches(decoded_and_touched, batch_size=None)
    elif config == "mcap-raw":
        made = ray.data.read_mcap(str(args.bag)).map_batches(touched, batch_size=None)
    else:
        raise ValueError(config)
    start = time.perf_counter()
    rows = rows_of(made)
    seconds = time.perf_counter() - start
    return {"config": config, "rows": rows, "seconds": round(seconds, 3), "rows_per_s": round(rows / seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lerobot", type=Path)
    parser.add_argument("--bag", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    pairs = []
    if args.lerobot:
        pairs.append(("lerobot", ["lerobot-adl", "lerobot-ray"]))
    if args.bag:
        pairs.append(("mcap", ["mcap-adl", "mcap-ray", "mcap-raw"]))
    if not pairs:
        sys.exit("give --lerobot DATA and/or --bag BAG")
    nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    nodes.add_node(num_cpus=1)
    nodes.wait_for_nodes()
    ray.init(address=nodes.address, log_to_driver=False, logging_level="ERROR")
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    try:
        figures: dict[str, list[float]] = {}
        for name, configs in pairs:
            for config in configs:  # a first run of each, not counted: workers start, imports
                run(config, args)
        for round_ in range(args.rounds):
            for name, configs in pairs:
                for config in configs if round_ % 2 == 0 else reversed(configs):
                    result = run(config, args)
                    print(json.dumps(result), flush=True)
                    figures.setdefault(config, []).append(result["rows_per_s"])
        for name, configs in pairs:
            ours = statistics.median(figures[configs[0]])
            for other in configs[1:]:
                theirs = statistics.median(figures[other])
                print(f"ratio {name} adl/{other.split('-', 1)[1]} {ours / theirs:.2f}"
                      f" ({ours:.0f} against {theirs:.0f} rows/s)", flush=True)
    finally:
        ray.shutdown()
        nodes.shutdown()


if __name__ == "__main__":
    main()
