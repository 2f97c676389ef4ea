"""Train with Ray Train on batches from adl's loader, killed and resumed
exactly.

    pip install ./adl-python 'ray[train]' torch
    python examples/python/ray_train.py --workers 2 --storage /tmp/adl-ray

Each of Ray Train's `TorchTrainer` workers runs an `adl.Loader` over the
same dataset: the loader shards the epoch by the `RANK` and `WORLD_SIZE`
Ray Train sets (every sample in exactly one worker), and reads, decodes
and collates in Rust without the GIL. The dataset reaches the workers
through `train_loop_config`: adl's datasets pickle by what made them (the
files' locations and the synchronization), not by their data.

Every few steps each worker reports a `ray.train.Checkpoint` holding the
model, its optimizer and the loader's `state_dict`. Run the command again
with the same `--storage` after the run was killed (a worker's process,
or the whole run) and Ray Train gives the workers that checkpoint: the
loader goes on from the batch it had reached, with the same or another
number of workers (`--workers`): the samples left are split again over
the new ranks, none read twice, none left out (where what is left does
not divide among the ranks, a few samples are read twice, so that every
rank takes as many steps: torch's `DistributedSampler` pads the same way).
"""

import argparse
import os
import tempfile

import torch

import adl
import adl.torch
from adl import files, generic

RECORDING = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "recording"))


def recording(root=RECORDING, drives=("drive-1", "drive-2", "drive-3")):
    """A trace per drive: each camera frame with the IMU row nearest it."""
    traces = []
    for drive in drives:
        folder = os.path.join(root, drive)
        sensors = {
            "camera": files.Images(os.path.join(folder, "camera"), layout="chw", downscale=4),
            "imu": files.Table(os.path.join(folder, "imu.csv"), "t"),
        }
        traces.append(adl.Trace(sensors, generic.Nearest("camera", tol=0.05), name=drive))
    return adl.Dataset(traces)


def train_loop(config):
    """One epoch on this worker's shard, from the checkpoint where there is
    one. `config`: the dataset, `batch_size`, `seed`, `epoch`, `every` (a
    checkpoint every this many steps), and `on_batch` (optional: called
    with the rank, the steps taken before, the batch's dataset indices
    and the batch)."""
    import ray.train
    import ray.train.torch

    torch.manual_seed(0)
    # No rank or world given: the loader takes Ray Train's RANK and WORLD_SIZE.
    loader = adl.Loader(config["dataset"], batch_size=config["batch_size"], shuffle=config["seed"], workers=1)
    model = torch.nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    step = 0
    checkpoint = ray.train.get_checkpoint()
    if checkpoint is not None:
        with checkpoint.as_directory() as folder:
            saved = torch.load(os.path.join(folder, "state.pt"))
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        loader.load_state_dict(saved["loader"])
        step = saved["step"]
    model = ray.train.torch.prepare_model(model)  # DistributedDataParallel (gloo)
    rank = ray.train.get_context().get_world_rank()
    epoch = loader.epoch(config["epoch"])
    order = epoch.indices()  # this rank's samples, in the order they come
    done = 0
    loss = torch.tensor(0.0)
    for batch in adl.torch.batches(epoch):
        size = len(batch["imu"])
        indices, done = order[done : done + size], done + size
        if config.get("on_batch") is not None:
            config["on_batch"](rank, step, indices, batch)
        brightness = batch["camera"].float().mean(dim=(1, 2, 3), keepdim=False)[:, None] / 255
        loss = torch.nn.functional.mse_loss(model(batch["imu"].float()), brightness)
        optimizer.zero_grad()
        loss.backward()  # DDP's all-reduce
        optimizer.step()
        step += 1
        if step % config["every"] == 0:
            report(model, optimizer, loader, step, loss)
    report(model, optimizer, loader, step, loss)


def report(model, optimizer, loader, step, loss):
    """A checkpoint from every worker: the state in rank 0's (the loader's
    state is the same on every rank: it counts the samples all ranks took)."""
    import ray.train

    with tempfile.TemporaryDirectory() as folder:
        if ray.train.get_context().get_world_rank() == 0:
            state = {
                "model": getattr(model, "module", model).state_dict(),
                "optimizer": optimizer.state_dict(),
                "loader": loader.state_dict(),
                "step": step,
            }
            torch.save(state, os.path.join(folder, "state.pt"))
            checkpoint = ray.train.Checkpoint.from_directory(folder)
        else:
            checkpoint = None
        ray.train.report({"step": step, "loss": float(loss)}, checkpoint=checkpoint)


def trainer(dataset, workers, storage, name="adl-ray-train", on_batch=None, batch_size=4, every=2):
    """Ray Train's `TorchTrainer` of `train_loop` on `workers` CPU workers,
    its checkpoints under `storage/name` (a run of the same name resumes
    from its last one)."""
    import ray.train
    import ray.train.torch

    return ray.train.torch.TorchTrainer(
        train_loop,
        train_loop_config={
            "dataset": dataset,
            "batch_size": batch_size,
            "seed": 7,
            "epoch": 0,
            "every": every,
            "on_batch": on_batch,
        },
        scaling_config=ray.train.ScalingConfig(num_workers=workers, use_gpu=False),
        run_config=ray.train.RunConfig(
            name=name,
            storage_path=storage,
            failure_config=ray.train.FailureConfig(max_failures=0),
        ),
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--storage", default=os.path.join(tempfile.gettempdir(), "adl-ray"))
    args = parser.parse_args()
    import ray

    ray.init()
    result = trainer(recording(), args.workers, args.storage).fit()
    print(f"step {result.metrics['step']}: loss {result.metrics['loss']:.4f}; checkpoint {result.checkpoint.path}")


if __name__ == "__main__":
    main()
