"""A training process for test_processes.py: it trains a small torch model
for one epoch of an adl.Loader, a step of plain SGD per batch (written
out, not ``torch.optim.SGD``: an optimizer's first use imports
``torch._dynamo``, some 5 s of CPU in each of the test's five processes,
and plain SGD keeps no state of its own to checkpoint), logging each
batch's indices (fsync'd) and then checkpointing the model and the
loader's state with the number of batches logged (written beside,
fsync'd, renamed over: all or nothing). Started again after being killed,
it goes back to its last checkpoint: the log is cut to the batches the
checkpoint counts, and the model and the loader resume there. At the end
it writes the model's weights to DIR/weights.json.

    python resumable.py DIR WORKERS   # the epoch's indices end up in DIR/log.txt
"""

import json
import os
import sys

import torch

import adl
import adl.torch

# 24 batches: three kills, each 2 to 5 batches after where a run starts,
# land within the epoch (every checkpoint fsync'd: some 0.1 s a batch).
N, BATCH, SEED, EPOCH = 144, 6, 17, 3
LEARNING_RATE = 0.1


def fsynced(path, write):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        write(f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def main(folder, workers):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = torch.nn.Linear(1, 1)
    checkpoint = os.path.join(folder, "checkpoint.pt")
    log = os.path.join(folder, "log.txt")
    loader = adl.Loader(list(range(N)), None, batch_size=BATCH, shuffle=SEED, workers=workers)
    logged = 0
    if os.path.exists(checkpoint):
        saved = torch.load(checkpoint)
        model.load_state_dict(saved["model"])
        loader.load_state_dict(saved["loader"])
        logged = saved["logged"]
        with open(log) as f:
            lines = f.read().splitlines()[:logged]
        with open(log, "w") as f:
            f.write("".join(line + "\n" for line in lines))
            f.flush()
            os.fsync(f.fileno())
    with open(log, "a") as f:
        for batch in adl.torch.batches(loader.epoch(EPOCH)):
            x = batch.float()[:, None] / N
            loss = torch.nn.functional.mse_loss(model(x), 2 * x + 1)
            model.zero_grad()
            loss.backward()
            with torch.no_grad():
                for parameter in model.parameters():
                    parameter -= LEARNING_RATE * parameter.grad
            f.write(" ".join(str(i) for i in batch.tolist()) + "\n")
            f.flush()
            os.fsync(f.fileno())
            logged += 1
            state = {
                "model": model.state_dict(),
                "loader": loader.state_dict(),
                "logged": logged,
            }
            fsynced(checkpoint, lambda out: torch.save(state, out))
    weights = [model.weight.item(), model.bias.item()]
    fsynced(os.path.join(folder, "weights.json"), lambda out: out.write(json.dumps(weights).encode()))
    print("epoch done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
