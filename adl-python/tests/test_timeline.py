"""adl.Loader(trace="run.json"): the run as a timeline, Chrome's
trace-event JSON (Perfetto, chrome://tracing): a track per thread, a span
per read, decode, node, sample stage, collate, job and wait, about the
samples, batches and sensors; ADL_TRACE for a script one does not edit."""

import json
import os
import subprocess
import sys
from collections import defaultdict

import numpy as np
import pytest

import adl
from adl import files, generic
from adl import transforms as T

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RECORDING = os.path.join(ROOT, "examples", "data", "recording")


def recording():
    traces = []
    for drive in ("drive-1", "drive-2"):
        folder = os.path.join(RECORDING, drive)
        sensors = {
            "camera": files.Images(os.path.join(folder, "camera")),
            "radar": files.Npy.in_folder(os.path.join(folder, "radar")),
        }
        traces.append(adl.Trace(sensors, generic.Nearest("camera", tol=0.05), name=drive))
    return adl.Dataset(traces)


def spans(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    threads = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    by_name = defaultdict(list)
    for e in events:
        if e["ph"] == "X":
            by_name[e["name"]].append({**e, "thread": threads[e["tid"]]})
    return by_name


def test_an_adl_pipeline_over_adls_sensors_is_traced_per_node_sample_and_batch(tmp_path):
    path = tmp_path / "run.json"
    dataset = recording()
    pipeline = adl.Pipeline(sample={"camera": T.RandomFlip()}, batch={"camera": T.ToFloat()})
    loader = adl.Loader(dataset, pipeline, batch_size=4, shuffle=1, workers=2, trace=str(path))
    batches = sum(1 for _ in loader.epoch(0))
    by_name = spans(path)
    every = list(range(len(dataset)))
    # adl's sensors are read ahead by the read stage, a span per sensor's
    # read on a reader's track (the next epoch's too), then each sample is
    # decoded from its reads by a worker.
    reads = by_name["read"]
    assert all(s["thread"].startswith("adl-reader-") for s in reads)
    assert set(every) <= {s["args"]["index"] for s in reads if s["args"]["sensor"] == "camera"}
    for name in ("decode", "sample stage", "camera/random_flip"):
        assert sorted(s["args"]["index"] for s in by_name[name]) == every, name
    assert {s["thread"] for s in by_name["camera/random_flip"]} & {"adl-worker-0", "adl-worker-1"}
    # Per batch, under the statistics' names: the collate node and stage,
    # the batch kernel (ToFloat), the batch stage, the job.
    for name in ("camera/stack", "collate", "camera/u8_to_f32", "batch stage", "job"):
        assert sorted(s["args"]["batch"] for s in by_name[name]) == list(range(batches)), name


def test_a_python_dataset_and_pipeline_are_traced_by_their_calls(tmp_path):
    path = tmp_path / "run.json"
    loader = adl.Loader([np.full(3, i) for i in range(20)], None, batch_size=5, workers=2, trace=path)
    assert [b.shape for b in loader.epoch(0)] == [(5, 3)] * 4
    by_name = spans(path)
    assert sorted(s["args"]["index"] for s in by_name["get"]) == list(range(20))
    assert sorted(s["args"]["batch"] for s in by_name["collate"]) == [0, 1, 2, 3]
    # The jobs ran on the loader's worker threads, or on the consumer's
    # (this one, which alone waits) while it waited.
    consumer = {s["thread"] for s in by_name["wait"]}
    assert len(consumer) == 1
    assert all(s["thread"].startswith("adl-worker-") or s["thread"] in consumer for s in by_name["job"])


def test_adl_trace_turns_it_on_for_a_script_one_does_not_edit(tmp_path):
    path = tmp_path / "from-env.json"
    script = "import adl; loader = adl.Loader(list(range(12)), None, batch_size=4); print(sum(len(b) for b in loader))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         env={**os.environ, "ADL_TRACE": str(path), "ADL_TRACE_EVENTS": "5"})
    assert out.stdout.strip() == "12"
    with open(path) as f:
        written = json.load(f)
    assert sum(e["ph"] == "X" for e in written["traceEvents"]) == 5
    assert written["otherData"]["dropped"] > 0
    bad = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env={**os.environ, "ADL_TRACE": str(path), "ADL_TRACE_EVENTS": "many"})
    assert bad.returncode != 0 and "ADL_TRACE_EVENTS" in bad.stderr and "many" in bad.stderr


def test_trace_events_without_a_trace_is_refused():
    with pytest.raises(ValueError, match="trace_events"):
        adl.Loader(list(range(4)), None, trace_events=10)


def test_read_next_epoch_false_reads_each_epochs_samples_and_no_more(tmp_path):
    # A trace of adl's own images is read ahead by the read stage. With
    # read_next_epoch=False, two epochs read each sample twice, once an
    # epoch, and nothing for a third (the default reads the next epoch's
    # first batches once an epoch's reads are started: tested in the Rust
    # suite's read_stage.rs).
    folder = os.path.join(RECORDING, "drive-1", "camera")
    trace = adl.Trace({"camera": files.Images(folder)}, None, name="camera")
    for read_next_epoch, path in ((False, tmp_path / "once.json"), (True, tmp_path / "ahead.json")):
        loader = adl.Loader(trace, batch_size=2, workers=2, trace=str(path), read_next_epoch=read_next_epoch)
        for epoch in (0, 1):
            assert sum(len(b["camera"]) for b in loader.epoch(epoch)) == len(trace)
        del loader
        reads = len(spans(path)["read"])
        if read_next_epoch:
            assert reads >= 2 * len(trace)
        else:
            assert reads == 2 * len(trace)
