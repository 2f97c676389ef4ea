"""A stand-in for a C extension that is not thread-safe, as the FFT library
RadarML's nrdk uses is: it keeps its working state between calls in a
static (a cached plan) and releases the GIL for the whole call (ctypes
does, as such extensions do), so two threads' calls at once share that
state and one gets the other's result.

``spectrum(seed, n)`` is ``seed * [1, 2, ..., n]``, computed through the
static. Inside, it waits up to ``wait_us`` microseconds for a second call
to come in (where calls can overlap, they then do, whatever the machine's
load), so a wrong result under threads is certain rather than likely,
and a call that stays alone is only that much slower.

The C source is compiled with the system's C compiler (the one Rust
links with) into the temporary folder, once per source; a module of its
own so that the loader's worker processes import it by name.
"""

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile

import numpy as np

SOURCE = r"""
#include <unistd.h>

static double plan[256];
static volatile int inside = 0;

void spectrum(double seed, double *out, int n, int wait_us) {
    __sync_fetch_and_add(&inside, 1);
    for (int i = 0; i < n; i++) plan[i] = seed * (i + 1);
    for (int waited = 0; inside < 2 && waited < wait_us; waited += 100) usleep(100);
    usleep(500);
    for (int i = 0; i < n; i++) out[i] = plan[i];
    __sync_fetch_and_sub(&inside, 1);
}
"""

LENGTH = 64


def _library() -> ctypes.CDLL:
    digest = hashlib.sha256(SOURCE.encode()).hexdigest()[:16]
    path = os.path.join(tempfile.gettempdir(), f"adl-unsafe-extension-{digest}.so")
    if not os.path.exists(path):
        compiler = shutil.which("cc") or shutil.which("gcc")
        if compiler is None:
            raise RuntimeError("no C compiler (cc) to build the thread-unsafe stand-in")
        source = path[:-3] + f"-{os.getpid()}.c"
        built = path[:-3] + f"-{os.getpid()}.so"
        with open(source, "w") as f:
            f.write(SOURCE)
        subprocess.run([compiler, "-O1", "-shared", "-fPIC", source, "-o", built], check=True)
        os.remove(source)
        os.replace(built, path)  # atomic: processes building at once agree
    library = ctypes.CDLL(path)
    library.spectrum.argtypes = [ctypes.c_double, ctypes.POINTER(ctypes.c_double), ctypes.c_int, ctypes.c_int]
    library.spectrum.restype = None
    return library


_LIBRARY = _library()


def spectrum(seed: float, wait_us: int) -> np.ndarray:
    out = np.empty(LENGTH, dtype=np.float64)
    _LIBRARY.spectrum(seed, out.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), LENGTH, wait_us)
    return out


def expected(index: int) -> np.ndarray:
    return index * np.arange(1, LENGTH + 1, dtype=np.float64)


class Spectra:
    """A dataset whose samples come from the thread-unsafe extension: sample
    ``i`` is ``spectrum(i)``."""

    def __init__(self, n: int, wait_us: int):
        self.n = n
        self.wait_us = wait_us

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        return spectrum(float(index), self.wait_us)


class SpectraPipeline:
    """A Python pipeline calling the extension in ``sample``: the dataset
    gives the index."""

    def __init__(self, wait_us: int):
        self.wait_us = wait_us

    def sample(self, index):
        return spectrum(float(index), self.wait_us)

    def collate(self, samples):
        return np.stack(samples)

    def batch(self, data):
        return data


class Indices:
    """The indices themselves, as samples."""

    def __init__(self, n: int):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        return index


def wrong_rows(batches, indices) -> int:
    """How many rows of the batches are not the spectrum of their index."""
    rows = np.concatenate([np.asarray(b) for b in batches])
    return sum(not np.array_equal(row, expected(i)) for row, i in zip(rows, indices))
