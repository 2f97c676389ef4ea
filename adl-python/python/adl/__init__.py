"""adl from Python: a Rust data-loading engine built on the Abstract
Dataloader specification, and the whole of the specification's Python
package, ``abstract_dataloader`` 0.4.7, under its names: code written for
it switches to adl by renaming ``abstract_dataloader`` to ``adl`` in its
imports.

The reference's modules:

- ``adl.spec``: the protocols (``Sensor``, ``Trace``, ``Dataset``,
  ``Synchronization``, ``Transform``, ``Collate``, ``Pipeline``,
  ``Metadata``), runtime-checkable and generic, for beartype and jaxtyping
  annotations.
- ``adl.abstract``: the base classes to subclass (``Sensor``, ``Trace``,
  ``Dataset``, ``Synchronization``, ``Transform``, ``Collate``,
  ``Pipeline``), plain Python classes with the reference's constructors,
  helpers and attributes.
- ``adl.generic``: the ready-made components; its synchronization
  policies (``Empty``, ``Next``, ``Nearest``) computed in Rust with the
  GIL released, ``Decimate``, the compositions and ``Window``.
- ``adl.ext``: ``types`` (optree dataclasses), ``sample``, ``graph``, and
  with their extras ``torch``, ``lightning``, ``augment``, ``objective``;
  each imported where used (``from adl.ext import types``).

adl's own:

- ``adl.Trace`` and ``adl.Dataset``: ``abstract.Trace`` and
  ``abstract.Dataset`` written in Rust, which ``adl.Loader`` reads without
  the GIL.
- ``adl.Interpolated``: a sensor evaluated at another's timestamps,
  linearly and by slerp for quaternions, never extrapolated, a gap masked
  or refused (with ``generic.Nearest`` on the reference in one trace).
- ``adl.files``: adl's file-backed sensors (JPEG/PNG frames, NumPy
  arrays, CSV tables), read and decoded without the GIL.
- ``adl.px4``: PX4 flight logs (ULog), each topic a sensor, read in Rust
  with the GIL released.
- ``adl.ros``: robot logs (rosbag2 folders, ``.mcap`` files, ROS 1
  ``.bag`` files), each topic a sensor whose messages are dicts of their
  fields, read and decoded in Rust with the GIL released.
- ``adl.ray``: any adl dataset as a Ray Data dataset (``adl.ray.read``),
  read by adl in Ray's tasks (``import adl.ray``; needs Ray).
- ``adl.torch``: batches as PyTorch tensors that share adl's buffers
  (``import adl.torch``; needs PyTorch).
- ``adl.default_collate``: PyTorch's ``default_collate`` with NumPy arrays
  out, arrays stacked without the GIL.
- ``adl.Pipeline`` and ``adl.transforms``: a pipeline composed of adl's
  own transforms and batch kernels under the keys of the sample, run in
  Rust; under ``adl.Loader`` over ``adl.files`` or ``adl.px4`` sensors a
  batch is made without the GIL from the read to the last transform.
- ``adl.Loader``: adl's loader (workers, batches built ahead, sharding over ranks,
  exact resume) over a Python dataset and pipeline; ``adl.LoaderError``
  what it raises for a sample or batch it could not make.
- ``adl.BUILD``: ``"release"`` or ``"debug"``, how the native library was
  compiled (the test command builds a debug one; measure a release one).
"""

from adl import abstract, ext, files, generic, px4, ros, spec, transforms
from adl._native import (
    BUILD,
    Dataset,
    Epoch,
    Interpolated,
    Loader,
    LoaderError,
    Pipeline,
    Trace,
    default_collate,
)

__all__ = [
    "BUILD",
    "Dataset",
    "Epoch",
    "Interpolated",
    "Loader",
    "LoaderError",
    "Pipeline",
    "Trace",
    "abstract",
    "default_collate",
    "ext",
    "files",
    "generic",
    "px4",
    "ros",
    "spec",
    "transforms",
]
