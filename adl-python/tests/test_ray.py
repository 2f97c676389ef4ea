"""adl on a real local Ray cluster of two nodes (issue 43): ``adl.ray.read``
reads any adl dataset as Ray Data rows, read tasks on both nodes, each
sample once, arrays bit-identical to adl read in this process; Ray Data's
own operations work on them; and Ray Train's ``TorchTrainer`` runs
``adl.Loader`` (examples/python/ray_train.py) sharded by Ray Train's ranks,
killed mid-epoch and resumed from its checkpoint with another number of
workers: the union of the batches is one epoch, each sample once.
"""

import importlib.util
import os
import sys
import time
from pathlib import Path

import numpy as np
import pytest

# Before Ray is imported: telemetry off, and every node on the loopback
# address (Ray otherwise gives the machine's own address for 127.0.0.1,
# where a firewall can stop it; Ray's name for the switch is its macOS one).
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
# Ray Train's controller looks at its workers every 0.5 s (2 s by default):
# a run that ends, or whose worker dies, is seen sooner.
os.environ["RAY_TRAIN_HEALTH_CHECK_INTERVAL_S"] = "0.5"
# A worker group may take long to start on a busy machine (60 s by default).
os.environ["RAY_TRAIN_WORKER_GROUP_START_TIMEOUT_S"] = "600"
# Ray starts its worker processes at nice 15: beside other busy processes
# (a CI machine running other tests) they then get a few percent of a core,
# and Ray Train's workers took over 5 minutes to import torch. At nice 0,
# as Ray's own job manager runs its drivers.
os.environ["RAY_worker_niceness"] = "0"
ray = pytest.importorskip("ray")

import ray.cloudpickle  # noqa: E402
import ray.data  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

import adl  # noqa: E402
import adl.ray  # noqa: E402
from adl import files, generic, ros  # noqa: E402
from adl.lerobot import LeRobotDataset  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "python" / "ray_train.py"
LEROBOT = ROOT / "tests" / "data" / "lerobot" / "v30_h264"
BAG = ROOT / "tests" / "data" / "ros" / "flight.mcap"


def example():
    """examples/python/ray_train.py as a module, pickled by value (Ray's
    workers do not have it on their path)."""
    spec = importlib.util.spec_from_file_location("ray_train_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    ray.cloudpickle.register_pickle_by_value(module)
    return module


@pytest.fixture(scope="module")
def cluster():
    """Two Ray nodes on 127.0.0.1, 2 CPUs each, no dashboard; this process
    its driver. This test module pickles by value too (Ray's workers
    cannot import it)."""
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    nodes = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 2, "include_dashboard": False, "node_ip_address": "127.0.0.1"},
    )
    nodes.add_node(num_cpus=2, node_ip_address="127.0.0.1")
    nodes.wait_for_nodes()
    ray.init(address=nodes.address, log_to_driver=False)
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    try:
        yield nodes
    finally:
        ray.shutdown()
        nodes.shutdown()


def columns_of(sample):
    return {name: np.asarray(value) for name, value in adl.ray.flatten(sample)}


def node_of(batch):
    """Each row's node: fused with the read, this runs in the read task."""
    node = ray.get_runtime_context().get_node_id()
    return {**batch, "node": np.array([node] * len(next(iter(batch.values()))))}


def same_rows(rows, dataset):
    assert len(rows) == len(dataset)
    for i, row in enumerate(rows):
        expected = columns_of(dataset[i])
        assert set(row) - {"node"} == set(expected), i
        for name, value in expected.items():
            got = np.asarray(row[name])
            if value.ndim:  # a row's scalars come back as Python's numbers
                assert got.dtype == value.dtype or value.dtype.kind in "OU", (i, name)
            np.testing.assert_array_equal(got, value, err_msg=f"sample {i}, column {name}")


def recording():
    return example().recording()


def test_read_tasks_run_on_both_nodes_and_read_each_sample_once_bit_identical(cluster):
    dataset = recording()
    read = adl.ray.read(dataset, parallelism=6, rows_per_block=4)
    rows = read.map_batches(node_of, batch_format="numpy").take_all()
    same_rows(rows, dataset)
    assert len({row["node"] for row in rows}) == 2
    # Every task's range lies in one trace.
    assert adl.ray.ranges([10, 10, 10], 6) == [(0, 5), (5, 10), (10, 15), (15, 20), (20, 25), (25, 30)]
    assert adl.ray.ranges([3, 0, 9], 2) == [(0, 3), (3, 7), (7, 12)]


def test_columns_are_the_flattened_keys_and_a_missing_one_is_named(cluster):
    dataset = recording()
    rows = adl.ray.read(dataset, columns=["imu"]).take_all()
    assert [list(row) for row in rows[:1]] == [["imu"]]
    np.testing.assert_array_equal(np.stack([r["imu"] for r in rows]), np.stack([dataset[i]["imu"] for i in range(len(dataset))]))
    with pytest.raises(Exception, match="no column 'lidar'.*'camera', 'imu'"):
        adl.ray.read(dataset, columns=["lidar"]).take_all()


def test_ray_datas_operations_work_on_the_rows(cluster, tmp_path):
    dataset = recording()
    read = adl.ray.read(dataset, parallelism=4)
    brightness = read.map_batches(lambda b: {"mean": b["camera"].reshape(len(b["camera"]), -1).mean(axis=1)})
    expected = [dataset[i]["camera"].mean() for i in range(len(dataset))]
    np.testing.assert_allclose([r["mean"] for r in brightness.take_all()], expected)
    read.write_parquet(str(tmp_path / "parquet"))
    assert ray.data.read_parquet(str(tmp_path / "parquet")).count() == len(dataset)
    tensors = list(read.iter_torch_batches(batch_size=8))
    assert sum(len(b["camera"]) for b in tensors) == len(dataset) and tensors[0]["camera"].dtype.is_floating_point is False
    one, two = read.streaming_split(2, equal=False)

    @ray.remote
    def count(split):
        return sum(len(b["imu"]) for b in split.iter_batches(batch_size=4))

    assert sum(ray.get([count.remote(one), count.remote(two)])) == len(dataset)


def test_a_lerobot_dataset_and_a_ros_bag_read_as_adl_reads_them(cluster):
    lerobot = LeRobotDataset("adl/test", root=LEROBOT, uint8=True)
    tasks = adl.ray.DatasetSource(lerobot).get_read_tasks(1)
    assert [t.metadata.num_rows for t in tasks] == [e["length"] for e in lerobot.meta.episodes]
    rows = adl.ray.read(lerobot, parallelism=4).take_all()
    same_rows(rows, lerobot)
    imu = ros.Bag(str(BAG))["/imu"]
    same_rows(adl.ray.read(imu, parallelism=3).take_all(), imu)
    # Messages whose arrays differ in length (JPEG bytes, point clouds):
    # one array per row, in Ray's variable-shaped tensor columns.
    for topic in ("/camera/compressed", "/lidar"):
        messages = ros.Bag(str(BAG))[topic]
        read = adl.ray.read(messages, rows_per_block=2)
        same_rows(read.take_all(), messages)
        assert [list(row) for row in adl.ray.read(messages, columns=["data"]).take(1)] == [["data"]]


def test_a_ray_train_run_killed_mid_epoch_resumes_with_another_number_of_workers(cluster, tmp_path):
    module = example()
    dataset = module.recording()
    log = tmp_path / "log"
    log.mkdir()

    storage = tmp_path / "storage"
    snapshot = storage / "adl-ray-train" / "checkpoint_manager_snapshot.json"

    def logging(run, kill_rank=None, kill_at=None):
        def on_batch(rank, step, indices, batch):
            path = log / f"{run}-{rank}.txt"
            if not path.exists():
                path.write_text(f"{step}\n")  # the steps taken before this run's first
            if rank == kill_rank and step == kill_at:
                # Once Ray Train has registered the checkpoint of step 3
                # (it does so after the report returns), the worker's
                # process dies, mid-epoch, with a batch of its in hand.
                deadline = time.monotonic() + 120
                while '"step":3' not in (snapshot.read_text() if snapshot.exists() else ""):
                    assert time.monotonic() < deadline, "Ray Train registered no checkpoint"
                    time.sleep(0.1)
                os._exit(1)
            for k, i in enumerate(indices):
                assert np.array_equal(batch["camera"][k].numpy(), dataset[i]["camera"]), (i, rank)
            with path.open("a") as f:
                f.write(" ".join(map(str, indices)) + "\n")

        return on_batch

    killed = module.trainer(dataset, 2, str(storage), on_batch=logging("first", kill_rank=1, kill_at=4), batch_size=2, every=3)
    with pytest.raises(Exception):
        killed.fit()
    resumed = module.trainer(dataset, 1, str(storage), on_batch=logging("second"), batch_size=2, every=3).fit()
    # The second run began from the checkpoint of step 3 (12 samples of 30
    # taken): the first run's batches after it are read again, by the
    # second run's one worker.
    runs = {
        (run, rank): (log / f"{run}-{rank}.txt").read_text().splitlines()
        for run, ranks in (("first", (0, 1)), ("second", (0,)))
        for rank in ranks
    }
    assert all(int(lines[0]) == (0 if run == "first" else 3) for (run, _), lines in runs.items())
    first = [line.split() for (run, _), lines in runs.items() if run == "first" for line in lines[1:4]]
    second = [line.split() for (run, _), lines in runs.items() if run == "second" for line in lines[1:]]
    indices = sorted(int(i) for batch in first + second for i in batch)
    assert indices == list(range(len(dataset)))
    assert resumed.metrics["step"] == 3 + max(len(lines) - 1 for (run, _), lines in runs.items() if run == "second")
