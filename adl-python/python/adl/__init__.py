"""adl from Python: a Rust data-loading engine built on the Abstract
Dataloader specification.

- ``adl.generic``: a drop-in for ``abstract_dataloader.generic`` (0.4.7),
  so far its synchronization policies (``Empty``, ``Next``, ``Nearest``,
  computed in Rust with the GIL released, and ``Decimate``).
- ``adl.Trace`` and ``adl.Dataset``: its ``abstract.Trace`` and
  ``abstract.Dataset``, over Python sensors and traces.
- ``adl.files``: adl's file-backed sensors (JPEG/PNG frames, NumPy
  arrays, CSV tables), read and decoded without the GIL.
- ``adl.px4``: PX4 flight logs (ULog), each topic a sensor, read in Rust
  with the GIL released.
- ``adl.torch``: batches as PyTorch tensors that share adl's buffers
  (``import adl.torch``; needs PyTorch).
- ``adl.default_collate``: PyTorch's ``default_collate`` with NumPy arrays
  out, arrays stacked without the GIL.
- ``adl.Pipeline`` and ``adl.transforms``: a pipeline composed of adl's
  own transforms and batch kernels under the keys of the sample, run in
  Rust; under ``adl.Loader`` over ``adl.files`` or ``adl.px4`` sensors a
  batch is made without the GIL from the read to the last transform.
- ``adl.Loader``: adl's loader (workers, prefetch, sharding over ranks,
  exact resume) over a Python dataset and pipeline; ``adl.LoaderError``
  what it raises for a sample or batch it could not make.
"""

from adl import files, generic, px4, transforms
from adl._native import Dataset, Epoch, Loader, LoaderError, Pipeline, Trace, default_collate

__all__ = [
    "Dataset",
    "Epoch",
    "Loader",
    "LoaderError",
    "Pipeline",
    "Trace",
    "default_collate",
    "files",
    "generic",
    "px4",
    "transforms",
]
