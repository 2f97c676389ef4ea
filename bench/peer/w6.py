"""W6 "python-transform": a per-sample transform of Python code that holds
the GIL, as tokenisers and label code are (bench/W6.md).

Each of the 20,000 samples is a text record made from the workloads' hash
(workloads.py), ``id=<i>;label=<k>;lang=en;text=<48 to 80 words>``. The
transform parses it with string operations, looks every word up in a
4,096-word vocabulary (a dict) and mixes in a checksum of its
characters and counts bigrams in 16 buckets (Python loops), then does
small NumPy work: the token ids padded to 64 (int64), their mask, a
16-bucket histogram of the ids and the bigram counts (float32) and the
label. Batches of 64, the last partial batch dropped,
in index order; the digest is SHA-256 over every batch's ``ids``,
``mask``, ``hist``, ``bigrams`` and ``label`` bytes in order.

Only numpy is needed; every peer imports this module and runs the same
``W6Dataset.__getitem__`` and ``collate``.
"""

from __future__ import annotations

import hashlib

import numpy as np

import plain_loops
import workloads as wl

N, BATCH, LENGTH, VOCAB, BUCKETS = 20_000, 64, 64, 4096, 16
ST_WORDS, ST_COUNT, ST_LABEL, ST_VOCAB = 20, 21, 22, 23
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def vocabulary() -> list[str]:
    """4,096 distinct words of 3 to 8 letters, from the hash."""
    words, seen, k = [], set(), 0
    while len(words) < VOCAB:
        u = int(wl.hash_u64(ST_VOCAB, k, 0))
        length = 3 + u % 6
        word = "".join(LETTERS[(u >> (8 + 5 * j)) % 26] for j in range(length))
        if word not in seen:
            seen.add(word)
            words.append(word)
        k += 1
    return words


def records(n: int = N) -> list[str]:
    """The n text records."""
    words = vocabulary()
    i = np.arange(n, dtype=np.uint64)
    counts = 48 + (wl.hash_u64(ST_COUNT, i, 0) % np.uint64(33)).astype(np.int64)
    labels = (wl.hash_u64(ST_LABEL, i, 0) % np.uint64(10)).astype(np.int64)
    picks = (wl.hash_u64(ST_WORDS, i[:, None], np.arange(80, dtype=np.uint64)[None, :])
             % np.uint64(VOCAB)).astype(np.int64)
    return [f"id={k};label={labels[k]};lang=en;text=" + " ".join(words[w] for w in picks[k, :counts[k]])
            for k in range(n)]


class W6Dataset:
    """The records, and the transform in ``__getitem__`` (plain Python, so
    that it pickles for worker processes)."""

    def __init__(self, n: int = N):
        self.records = records(n)
        self.index = {w: k + 1 for k, w in enumerate(vocabulary())}

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, i: int) -> dict:
        fields = dict(part.split("=", 1) for part in self.records[i].split(";"))
        ids, pairs, previous = [], [0] * BUCKETS, 0
        for word in fields["text"].split():
            word = word.strip(".,;:!?").lower()
            token = self.index.get(word, 0)
            check = 0
            for ch in word:
                check = (check * 31 + ord(ch)) & 0xFFFF
            token = token * 4 + (check & 3)
            pairs[(previous * 7 + token) % BUCKETS] += 1
            previous = token
            ids.append(token)
        n = min(len(ids), LENGTH)
        out = np.zeros(LENGTH, dtype=np.int64)
        out[:n] = ids[:n]
        hist = np.bincount(out[:n] % BUCKETS, minlength=BUCKETS).astype(np.float32) / np.float32(n)
        bigrams = np.array(pairs, dtype=np.float32) / np.float32(len(ids))
        return {"ids": out, "mask": out != 0, "hist": hist, "bigrams": bigrams, "label": int(fields["label"])}


def collate(samples: list[dict]) -> dict:
    """NumPy's stack of every field (default_collate's result, as arrays)."""
    return {"ids": np.stack([s["ids"] for s in samples]), "mask": np.stack([s["mask"] for s in samples]),
            "hist": np.stack([s["hist"] for s in samples]),
            "bigrams": np.stack([s["bigrams"] for s in samples]),
            "label": np.array([s["label"] for s in samples], dtype=np.int64)}


class Digest:
    """SHA-256 over the batches in order."""

    def __init__(self):
        self.h, self.batches = hashlib.sha256(), 0

    def add(self, batch: dict) -> None:
        for key, dtype in (("ids", "<i8"), ("mask", "?"), ("hist", "<f4"), ("bigrams", "<f4"),
                           ("label", "<i8")):
            self.h.update(np.ascontiguousarray(np.asarray(batch[key]), dtype=dtype).tobytes())
        self.batches += 1

    def hex(self) -> str:
        return self.h.hexdigest()


def reference() -> str:
    """The digest of a plain loop: the one every loader must give."""
    ds, digest = W6Dataset(), Digest()
    for b in range(len(ds) // BATCH):
        digest.add(collate([ds[i] for i in range(b * BATCH, (b + 1) * BATCH)]))
    return digest.hex()


def _plain_loop(rank: int, processes: int, barrier, results) -> None:
    """One process of ``limit``: its batches (``k % processes == rank``) by
    the plain loop."""
    ds = W6Dataset()
    batches = range(rank, len(ds) // BATCH, processes)
    plain_loops.timed_twice(
        lambda: sum(len(collate([ds[i] for i in range(b * BATCH, (b + 1) * BATCH)])["label"]) for b in batches),
        barrier, results)


def limit(processes: int) -> dict:
    """W6's limit (issue 44): the plain loop (``__getitem__`` and
    ``collate``, no loader) in ``processes`` processes at once, each over
    its share of the batches, started together; the second of two passes
    timed. ``warm_samples_per_s`` is the sum of the processes' rates."""
    return {"workload": "w6", "limit": True, **plain_loops.run(_plain_loop, (), processes, "fork")}


if __name__ == "__main__":
    import argparse
    import json

    ap = argparse.ArgumentParser(description="W6's digest, or with --limit its machine limit (JSON line)")
    ap.add_argument("--limit", type=int, metavar="PROCESSES",
                    help="time the plain loop in this many processes at once (one per core)")
    args = ap.parse_args()
    print(json.dumps(limit(args.limit)) if args.limit else reference())
