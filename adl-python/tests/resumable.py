"""A training-like process for test_processes.py: it consumes one epoch of
an adl.Loader, a "step" per batch, logging each batch's indices (fsync'd)
and then checkpointing the loader's state with the number of batches
logged (written beside, fsync'd, renamed over: all or nothing). Started
again after being killed, it goes back to its last checkpoint: the log is
cut to the batches the checkpoint counts, and the loader resumes there.

    python resumable.py DIR WORKERS   # the epoch's indices end up in DIR/log.txt
"""

import json
import os
import sys
import time

import adl

N, BATCH, SEED, EPOCH = 600, 6, 17, 3


def save(path, content):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(content, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def main(folder, workers):
    checkpoint = os.path.join(folder, "checkpoint.json")
    log = os.path.join(folder, "log.txt")
    loader = adl.Loader(list(range(N)), None, batch_size=BATCH, shuffle=SEED, workers=workers)
    logged = 0
    if os.path.exists(checkpoint):
        with open(checkpoint) as f:
            saved = json.load(f)
        loader.load_state_dict(saved["loader"])
        logged = saved["logged"]
        with open(log) as f:
            lines = f.read().splitlines()[:logged]
        with open(log, "w") as f:
            f.write("".join(line + "\n" for line in lines))
            f.flush()
            os.fsync(f.fileno())
    with open(log, "a") as f:
        for batch in loader.epoch(EPOCH):
            time.sleep(0.005)  # the step
            f.write(" ".join(str(i) for i in batch) + "\n")
            f.flush()
            os.fsync(f.fileno())
            logged += 1
            save(checkpoint, {"loader": loader.state_dict(), "logged": logged})
    print("epoch done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
