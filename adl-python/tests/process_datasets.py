"""Datasets and pipelines for the tests that send them to the loader's
worker processes (test_loader_processes.py, test_ext_lightning.py), in a
module of their own so that those processes (multiprocessing's spawn)
import them by name, and import no more than they need."""

import os

import numpy as np


class Records:
    """Python code that holds the GIL: each sample parsed from a string."""

    def __init__(self, n, bad=(), die_at=None):
        self.lines = [f"id={i};label={i % 7};text=" + " ".join(f"w{(i * j) % 97}" for j in range(12))
                      for i in range(n)]
        self.bad = set(bad)
        self.die_at = die_at

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, index):
        if index == self.die_at:
            os._exit(3)
        if index in self.bad:
            raise KeyError(f"record {index} is missing")
        fields = dict(part.split("=", 1) for part in self.lines[index].split(";"))
        tokens = [int(w[1:]) for w in fields["text"].split()]
        return {"index": int(fields["id"]), "tokens": np.array(tokens, dtype=np.int64),
                "label": int(fields["label"]), "pid": os.getpid()}


class Doubling:
    """A pipeline of Python steps: sample doubles the tokens, collate
    stacks them, batch adds one."""

    def sample(self, data):
        return {**data, "tokens": data["tokens"] * 2}

    def collate(self, samples):
        return {"index": np.array([s["index"] for s in samples]),
                "tokens": np.stack([s["tokens"] for s in samples]),
                "label": np.array([s["label"] for s in samples]),
                "pid": np.array([s["pid"] for s in samples])}

    def batch(self, data):
        return {**data, "tokens": data["tokens"] + 1}


class Frames:
    """Camera-like samples: a `side` x `side` x 3 float32 frame (its
    values from the index), the index, and the pid of the process that
    made it."""

    def __init__(self, n, side):
        self.n, self.side = n, side

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        frame = np.arange(self.side * self.side * 3, dtype=np.float32).reshape(self.side, self.side, 3)
        return {"frame": frame + np.float32(index), "index": index, "pid": os.getpid()}


def add_one(sample):
    """A sample transform of dict samples: ``x`` plus one."""
    return {**sample, "x": sample["x"] + 1}
