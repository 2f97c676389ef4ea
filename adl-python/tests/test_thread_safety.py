"""Safe by default for users' code: a C extension that is not thread-safe
(unsafe_extension.py: state cached in a static, the GIL released for the
whole call, as nrdk's FFT library) gives right samples under adl.Loader
with workers and no other option, as under PyTorch's DataLoader: in
worker processes where the dataset and pipeline pickle, else on threads
one call at a time. ``processes=False`` (the user's promise that the
code is thread-safe) runs the calls at once, and the stand-in then gives
wrong samples: the check below can fail."""

import os

import numpy as np
import pytest

import adl
from unsafe_extension import Indices, Spectra, SpectraPipeline, expected, wrong_rows

# A call waits this long for a second call to overlap it: short where
# calls must not overlap (each waits it whole), long where they should.
ALONE_US = 10_000
OVERLAP_US = 1_000_000


def epoch(loader):
    batches = list(loader.epoch(0))
    return batches, loader.epoch(0).indices()


def test_the_stand_in_is_right_alone_and_wrong_at_once():
    # Alone (no workers): right.
    loader = adl.Loader(Spectra(8, ALONE_US), batch_size=4)
    assert wrong_rows(*epoch(loader)) == 0
    # At once on threads (asked): wrong, certainly (each call waits for
    # another to come in).
    loader = adl.Loader(Spectra(32, OVERLAP_US), batch_size=4, workers=2, processes=False)
    assert wrong_rows(*epoch(loader)) > 0
    assert "calls into Python at once" in loader.statistics()


@pytest.mark.parametrize("pipeline", [None, SpectraPipeline(ALONE_US)], ids=["dataset", "pipeline"])
def test_unsaid_users_code_runs_in_processes_and_is_right(pipeline):
    data = Spectra(48, ALONE_US) if pipeline is None else Indices(48)
    loader = adl.Loader(data, pipeline, batch_size=4, shuffle=3, workers=2)
    assert wrong_rows(*epoch(loader)) == 0
    stats = loader.statistics()
    assert "Execution: 2 worker processes" in stats, stats
    assert "Processes: 2 worker processes made" in stats, stats


def test_code_that_cannot_go_to_processes_runs_one_call_at_a_time_and_is_right():
    class Local(Spectra):  # defined in a function: it does not pickle
        pass

    loader = adl.Loader(Local(24, ALONE_US), batch_size=4, workers=3)
    batches, indices = epoch(loader)
    assert wrong_rows(batches, indices) == 0
    stats = loader.statistics()
    assert "one call into Python at a time" in stats, stats
    assert "does not pickle" in stats, stats
    assert "Processes:" not in stats


def test_a_python_dataset_under_an_adl_pipeline_is_called_one_at_a_time():
    loader = adl.Loader(Spectra(24, ALONE_US), adl.Pipeline(), batch_size=4, workers=3)
    batches, indices = epoch(loader)
    assert wrong_rows(batches, indices) == 0
    assert "one call into Python at a time" in loader.statistics()
    # Asked for calls at once: the stand-in goes wrong.
    at_once = adl.Loader(Spectra(24, OVERLAP_US), adl.Pipeline(), batch_size=4, workers=3, processes=False)
    assert wrong_rows(*epoch(at_once)) > 0


def test_adl_own_dataset_runs_on_threads_at_once(tmp_path):
    # adl's sensors and trace, no Python pipeline: thread-safe, read
    # without the GIL, so threads at once without asking.
    np.save(tmp_path / "x.npy", np.arange(40, dtype=np.float32).reshape(20, 2))
    trace = adl.Trace({"x": adl.files.Npy(str(tmp_path / "x.npy"), np.arange(20) * 0.1, name="x")})
    loader = adl.Loader(adl.Dataset([trace]), batch_size=5, workers=2)
    batches = list(loader.epoch(0))
    np.testing.assert_array_equal(np.concatenate([b["x"] for b in batches]), np.arange(40, dtype=np.float32).reshape(20, 2))
    stats = loader.statistics()
    assert "calls into Python at once (processes=False, or adl's own code)" in stats, stats
    # With a Python pipeline the code is the user's: worker processes, to
    # which adl's sensors, trace and dataset go pickled by what they were
    # made from (their files and options, not their open files).
    piped = adl.Loader(adl.Dataset([trace]), Doubled(), batch_size=5, workers=2)
    batches = list(piped.epoch(0))
    np.testing.assert_array_equal(np.concatenate([b["x"] for b in batches]), 2 * np.arange(40, dtype=np.float32).reshape(20, 2))
    stats = piped.statistics()
    assert "Execution: 2 worker processes" in stats, stats


class Doubled:
    def sample(self, data):
        return {"x": data["x"] * 2}

    def collate(self, samples):
        return {"x": np.stack([s["x"] for s in samples])}

    def batch(self, data):
        return data


def test_what_threads_require_is_in_the_docs():
    doc = adl.Loader.__doc__ or ""
    assert "thread-safe" in doc and "processes=False" in doc
    readme = open(os.path.join(os.path.dirname(__file__), "..", "README.md"), encoding="utf-8").read()
    assert "thread-safe" in readme


def test_expected_is_what_a_lone_call_gives():
    from unsafe_extension import spectrum

    np.testing.assert_array_equal(spectrum(5.0, 0), expected(5))
