"""adl's batches as PyTorch tensors.

A batch from ``adl.Loader`` (or a ``RustLoader``) holds NumPy arrays over
adl's buffers. ``tensors(batch)`` turns each into a tensor with
``torch.from_numpy``, which shares the array's memory (no copy): the
tensor keeps the array, and so adl's buffer, alive, and when the last of
them is freed the buffer goes back to the loader's pool. DLPack
(``torch.from_dlpack(array)``) shares it the same way.

For a CUDA device, ``pin_memory=True`` copies each tensor into page-locked
host memory (``Tensor.pin_memory()``), from where ``device="cuda"`` moves
it without blocking, as PyTorch's DataLoader does with ``pin_memory``.
Pinning needs CUDA: without it, asking for it is an error that says so.

    for batch in adl.torch.batches(loader.epoch(e), pin_memory=True, device="cuda"):
        loss = model(batch["camera"]) ...

This module needs PyTorch; the rest of ``adl`` does not.
"""

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np
import torch

__all__ = ["batches", "tensors"]


def tensors(batch: Any, *, pin_memory: bool = False, device: str | int | torch.device | None = None) -> Any:
    """The batch with each NumPy array as a ``torch.Tensor``, nested as the
    batch is (dicts, lists, tuples, named tuples); other values as they are.

    Without ``pin_memory`` and ``device`` a tensor shares its array's
    memory. ``pin_memory=True`` copies it into page-locked memory (CUDA
    only); ``device`` moves it there (without blocking when pinned).
    """
    if pin_memory and not torch.cuda.is_available():
        raise RuntimeError(
            "adl.torch: pin_memory=True pins host memory for copies to a CUDA device, "
            "and torch.cuda.is_available() is False here; leave pin_memory off on a machine without CUDA"
        )
    return _convert(batch, pin_memory, None if device is None else torch.device(device))


def batches(
    epoch: Iterable[Any], *, pin_memory: bool = False, device: str | int | torch.device | None = None
) -> Iterator[Any]:
    """Each batch of ``epoch`` (an ``adl.Epoch`` or any iterable of
    batches) through ``tensors``."""
    for batch in epoch:
        yield tensors(batch, pin_memory=pin_memory, device=device)


def _convert(value: Any, pin_memory: bool, device: torch.device | None) -> Any:
    if isinstance(value, np.ndarray):
        tensor = torch.from_numpy(value)
        if pin_memory:
            tensor = tensor.pin_memory()
        if device is not None:
            tensor = tensor.to(device, non_blocking=pin_memory)
        return tensor
    if isinstance(value, Mapping):
        return {key: _convert(item, pin_memory, device) for key, item in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_convert(item, pin_memory, device) for item in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_convert(item, pin_memory, device) for item in value)
    return value
