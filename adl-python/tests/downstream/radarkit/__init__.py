"""radarkit: a small downstream package of abstract_dataloader, written as
its users write theirs (roverd's sensors, traces and data types; nrdk's
transforms, augmentations and objectives), over a folder-per-sensor
format of NumPy files.

It is written once, against ``abstract_dataloader``. The test suite
(``tests/test_downstream.py``) imports it twice: as it is, and with
``abstract_dataloader`` renamed to ``adl`` in its imports (nothing else),
and compares what the two give: samples, batches, objectives.

- [`types`][.]: the sample types, optree dataclasses generic in
  ``TArray``.
- [`sensors`][.]: a sensor per folder (``abstract.Sensor``), with past
  and future frames.
- [`trace`][.]: ``Trace`` and ``Dataset`` subclasses, and ``split``.
- [`transforms`][.]: radar magnitude, lidar depth, augmentations, the
  pipeline (``ext.torch``).
- [`objectives`][.]: a depth objective and a power objective under one
  ``MultiObjective``.
- [`writer`][.]: writes synthetic traces in the format.
"""

from . import objectives, sensors, trace, transforms, types, writer

__all__ = ["objectives", "sensors", "trace", "transforms", "types", "writer"]
