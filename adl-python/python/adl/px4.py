"""PX4 flight logs (ULog) as Python sensors, read by adl's Rust reader
with the GIL released.

- ``Log(path)``: the whole file; ``log.sensors`` the names of its topic
  instances (``topic``, or ``topic/N`` for instance N > 0), ``log[name]``
  one of them, ``log.rejected`` the ``(name, why)`` of those that cannot
  be sensors (never logged, a clock that never advances), and
  ``log.complete``/``log.incomplete`` whether the file was read to its
  end (a log cut short keeps what came before the break).
- ``Topic``: a sensor (``name``, ``metadata.timestamps`` in seconds,
  ``__getitem__``, ``__len__``, ``stream``) whose sample is a dict of its
  fields, each a float64 array (``gyro_rad``: 3 values); ``field(name)``
  is every sample of one field, ``[samples, width]``.

A file that cannot be read, or is not a ULog file, is an ``OSError``
naming it. The sensors go in an ``adl.Trace`` like any other::

    log = adl.px4.Log("flight.ulg")
    trace = adl.Trace({"imu": log["sensor_combined"], "gps": log["vehicle_gps_position"]},
                      sync=adl.generic.Nearest("imu", tol=0.1))
"""

from adl._native import Log, Topic

__all__ = ["Log", "Topic"]
