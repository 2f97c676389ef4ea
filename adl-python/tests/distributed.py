"""A training process for test_processes.py, started twice by torchrun
(gloo): each rank runs adl.Loader (its rank and world from torchrun's
environment) and trains one DistributedDataParallel model on its batches;
rank 0 gathers every rank's indices and prints them.

    python -m torch.distributed.run --standalone --nproc_per_node 2 distributed.py
"""

import gc
import json

import numpy as np
import torch
import torch.distributed as dist

import adl
import adl.torch

N, BATCH, SEED, EPOCH = 96, 4, 11, 2
LEARNING_RATE = 0.1


def main():
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    samples = [{"x": np.array([i / N], dtype=np.float32), "index": i} for i in range(N)]
    loader = adl.Loader(samples, None, batch_size=BATCH, shuffle=SEED, workers=2)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(1, 1))
    mine = []
    for batch in adl.torch.batches(loader.epoch(EPOCH)):
        loss = torch.nn.functional.mse_loss(model(batch["x"]), 3 * batch["x"])
        model.zero_grad()
        loss.backward()  # DDP's all-reduce over gloo
        # A step of plain SGD, written out: torch.optim's first step
        # imports torch._dynamo, some 5 s of CPU in each rank.
        with torch.no_grad():
            for parameter in model.parameters():
                parameter -= LEARNING_RATE * parameter.grad
        mine += batch["index"].tolist()
    every = [None] * dist.get_world_size()
    dist.all_gather_object(every, {"rank": dist.get_rank(), "indices": mine})
    weights = [None] * dist.get_world_size()
    dist.all_gather_object(weights, model.module.weight.item())
    if dist.get_rank() == 0:
        print(json.dumps({"ranks": every, "weights": weights}), flush=True)
    # An orderly end: no rank shuts gloo down while the other is still in a
    # collective, and nothing holds the process group (DDP does) once it is
    # destroyed, so gloo's threads are joined here, while the interpreter is
    # whole, not during its exit (where PyTorch can abort, seen once in CI:
    # "terminate called without an active exception").
    dist.barrier()
    del model, loader
    gc.collect()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
