"""adl.px4: the repository's real PX4 logs read by adl's Rust reader give
the values pyulog (PX4's own Python reader) reads; a log cut short keeps
what came before the break; a file that is not a log is an OSError naming
it; topics go in an adl.Trace and through adl.Loader."""

import os
import shutil

import numpy as np
import pytest
from abstract_dataloader import spec
from beartype.door import is_bearable
from pyulog import ULog

import adl
from adl import generic, px4

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOGS = [os.path.join(ROOT, "tests", "data", "px4", name)
        for name in ("pixhawk4-sample-small.ulg", "cube-orange-vtol-small.ulg")]


def pyulog_field(data, field):
    """A field's columns as pyulog names them (`field`, or `field[0]`,
    `field[1]`, ...), stacked as adl's [samples, width]."""
    if field in data:
        return np.asarray(data[field], dtype=np.float64)[:, None]
    width = 0
    while f"{field}[{width}]" in data:
        width += 1
    assert width, (field, sorted(data))
    return np.stack([np.asarray(data[f"{field}[{i}]"], dtype=np.float64) for i in range(width)], axis=1)


@pytest.mark.parametrize("path", LOGS, ids=os.path.basename)
def test_topics_are_pyulogs(path):
    log = px4.Log(path)
    theirs = {(d.name, d.multi_id): d.data for d in ULog(path).data_list}
    assert log.complete and log.incomplete is None
    assert len(log) == len(log.sensors) > 5
    # Every topic instance pyulog read is a sensor or rejected with a reason.
    rejected = dict(log.rejected)
    for topic, instance in theirs:
        name = topic if instance == 0 else f"{topic}/{instance}"
        assert name in log or name in rejected, name
    for name in log.sensors:
        topic = log[name]
        data = theirs[(topic.topic, topic.instance)]
        np.testing.assert_allclose(topic.metadata.timestamps, data["timestamp"] / 1e6, rtol=1e-15, atol=0)
        assert len(topic) == len(data["timestamp"])
        for field in topic.fields:
            expected = pyulog_field(data, field)
            np.testing.assert_array_equal(topic.field(field), expected, err_msg=f"{name}.{field}")
            np.testing.assert_array_equal(topic[-1][field], expected[-1])
        first = topic[0]
        assert list(first) == topic.fields and all(v.dtype == np.float64 for v in first.values())
        assert is_bearable(topic, spec.Sensor)


def test_a_log_cut_short_keeps_what_came_before(tmp_path):
    cut = tmp_path / "cut.ulg"
    with open(LOGS[0], "rb") as f:
        whole = f.read()
    cut.write_bytes(whole[: len(whole) * 2 // 3])
    log = px4.Log(str(cut))
    full = px4.Log(LOGS[0])
    assert not log.complete and "truncated" in log.incomplete and "incomplete" in repr(log)
    imu = log["sensor_combined"]
    assert 0 < len(imu) < len(full["sensor_combined"])
    np.testing.assert_array_equal(imu.field("gyro_rad"), full["sensor_combined"].field("gyro_rad")[: len(imu)])


def test_errors_name_what_and_where(tmp_path):
    with pytest.raises(OSError, match="no-such.ulg"):
        px4.Log(str(tmp_path / "no-such.ulg"))
    junk = tmp_path / "junk.ulg"
    junk.write_bytes(b"not a ulog file at all" * 10)
    with pytest.raises(OSError, match="junk.ulg"):
        px4.Log(str(junk))
    log = px4.Log(LOGS[0])
    with pytest.raises(KeyError, match="sensor_combined"):  # the names it has
        log["no_such_topic"]
    with pytest.raises(KeyError, match="no field `nope`"):
        log["sensor_combined"].field("nope")
    with pytest.raises(IndexError, match="out of range for sensor `sensor_combined`"):
        log["sensor_combined"][len(log["sensor_combined"])]


def test_topics_in_a_trace_through_the_loader():
    log = px4.Log(LOGS[0])
    sensors = {"imu": log["sensor_combined"], "attitude": log["vehicle_attitude"]}
    trace = adl.Trace(sensors, sync=generic.Nearest("attitude", tol=0.05), name="flight")
    assert len(trace) > 10
    loader = adl.Loader(adl.Dataset([trace]), batch_size=8, shuffle=1, workers=2, drop_last=True)
    batch = next(iter(loader.epoch(0)))
    assert batch["imu"]["gyro_rad"].shape == (8, 3) and batch["attitude"]["q"].shape == (8, 4)
    index = loader.epoch(0).indices()[0]
    np.testing.assert_array_equal(batch["imu"]["gyro_rad"][0], trace[index]["imu"]["gyro_rad"])
