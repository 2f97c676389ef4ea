"""PyTorch glue (``abstract_dataloader.ext.torch`` 0.4.7, under its
names): a collate that makes tensors, a PyTorch map-style dataset with a
transform applied, and a pipeline that is a ``torch.nn.Module``.

- [`Collate`][.]: samples (nested dicts, lists, tuples and the
  dataclasses of [`adl.ext.types`][adl.ext.types]) into one batch of the
  same structure, arrays stacked or concatenated into tensors, walked by
  ``optree.tree_map`` as the reference walks them.
- [`TransformedDataset`][.]: a ``torch.utils.data.Dataset`` whose items
  are an ADL dataset's samples through a transform.
- [`Pipeline`][.]: an [`adl.abstract.Pipeline`][adl.abstract.Pipeline]
  that is also a ``torch.nn.Module``, so that the modules among its stages
  (found through their ``children()``) move with it to a device and are
  in its parameters.

This module builds no loader (the reference's does not either):
[`TransformedDataset`][.] goes under PyTorch's ``DataLoader`` as it did.
``adl.Loader`` reads the same dataset and pipeline directly (a
[`Pipeline`][.] is a pipeline it takes), and ``adl.default_collate`` is
the native collate for NumPy batches, dataclasses included.

It needs PyTorch (the extra ``adl-dataloader[torch]``) and imports it here;
``import adl`` does not.
"""

from collections.abc import Iterable, Sequence
from typing import Any, Generic, Literal, TypeVar, cast

import numpy as np
import optree
import torch
from torch.nn.modules.module import _IncompatibleKeys

from adl import abstract, spec

__all__ = ["Collate", "Pipeline", "TransformedDataset"]

TRaw = TypeVar("TRaw")
TTransformed = TypeVar("TTransformed")
TCollated = TypeVar("TCollated")
TProcessed = TypeVar("TProcessed")

_MODES = ("stack", "concat")


class Collate(spec.Collate[TTransformed, TCollated]):
    """NumPy samples into a PyTorch batch.

    The samples (each of one structure) are walked together by
    ``optree.tree_map``: dicts, lists, tuples, named tuples and the
    dataclasses registered with optree ([`adl.ext.types.dataclass`][adl.ext.types.dataclass])
    are kept as they are, and each leaf becomes, across the samples:

    | Leaf (as the first sample has it) | In the batch |
    | --- | --- |
    | ``torch.Tensor`` | one tensor: ``torch.stack`` or ``torch.concat`` by ``mode`` |
    | ``numpy.ndarray`` | the same, through ``torch.from_numpy`` (no copy before it) |
    | ``bool``, ``int``, ``float`` with ``convert_scalars`` | ``torch.tensor`` of the values |
    | anything else | the list of the values |

    ``"concat"`` (the default) joins the arrays along their first axis, so
    samples that carry a leading batch axis of 1 (roverd's convention)
    make a batch with that axis of the batch's size; ``"stack"`` adds a
    new first axis.

    Type Parameters:
        - ``TTransformed``: one sample.
        - ``TCollated``: the batch.

    Args:
        mode: ``"stack"`` or ``"concat"``; anything else is a
            ``ValueError`` (the reference stacked on any other value).
        convert_scalars: whether Python numbers become tensors.
    """

    def __init__(
        self, mode: Literal["stack", "concat"] = "concat",
        convert_scalars: bool = True
    ) -> None:
        if mode not in _MODES:
            raise ValueError(
                f"Collate: mode is 'stack' or 'concat', not {mode!r}")
        self.mode = mode
        self.convert_scalars = convert_scalars

    def _join(self, *values: Any) -> torch.Tensor | list[Any]:
        """One leaf of the batch from the leaves of the samples."""
        first = values[0]
        if isinstance(first, np.ndarray):
            values = tuple(torch.from_numpy(value) for value in values)
            first = values[0]
        if isinstance(first, torch.Tensor):
            join = torch.concat if self.mode == "concat" else torch.stack
            return join(values)
        if self.convert_scalars and isinstance(first, (bool, int, float)):
            return torch.tensor(values)
        return list(values)

    def __call__(self, data: Sequence[TTransformed]) -> TCollated:
        """Collate ``data`` into one batch.

        Args:
            data: the samples, all of one structure (optree's error says
                where two differ).

        Returns:
            The batch: the samples' structure with each leaf joined.
        """
        if len(data) == 0:
            raise ValueError("Collate: a batch needs at least one sample")
        # A sample is any tree optree walks, and the batch is what the
        # user's TCollated says it is: neither is a type optree can see.
        samples: Sequence[Any] = data
        return cast(TCollated, optree.tree_map(self._join, samples[0], *samples[1:]))


class TransformedDataset(
    torch.utils.data.Dataset[TTransformed],
    Generic[TRaw, TTransformed]
):
    """An ADL dataset with a transform applied to each sample, as a
    PyTorch map-style dataset (``torch.utils.data.Dataset``), for
    PyTorch's ``DataLoader`` or ``adl.Loader``.

    Type Parameters:
        - ``TRaw``: a sample of ``dataset``.
        - ``TTransformed``: a sample after ``transform``.

    Args:
        dataset: the ADL dataset.
        transform: what each sample goes through when it is read (any
            callable of one sample).
    """

    def __init__(
        self, dataset: spec.Dataset[TRaw],
        transform: spec.Transform[TRaw, TTransformed]
    ) -> None:
        self.dataset = dataset
        self.transform = transform

    def __getitem__(self, index: int | np.integer) -> TTransformed:
        """Sample ``index`` of the dataset, transformed.

        Args:
            index: the dataset's index (its errors are the dataset's).

        Returns:
            ``transform(dataset[index])``.
        """
        return self.transform(self.dataset[index])

    def __len__(self) -> int:
        """The dataset's length."""
        return len(self.dataset)

    def __repr__(self) -> str:
        """``Transformed(<dataset> -> <transform>)``."""
        return f"Transformed({self.dataset!r} -> {self.transform!r})"

    def children(self) -> Iterable[Any]:
        """The dataset and the transform (its children in a tree of
        components)."""
        return [self.dataset, self.transform]


def _modules_within(objects: Iterable[Any], within: tuple[int, ...] = ()
                    ) -> list[torch.nn.Module]:
    """The ``torch.nn.Module``s among ``objects`` and, for those that are
    not modules, among their ``children()`` (an iterable), depth first in
    order; an object already being searched (a cycle) is not searched
    again."""
    found: list[torch.nn.Module] = []
    for item in objects:
        if isinstance(item, torch.nn.Module):
            found.append(item)
            continue
        children = getattr(item, "children", None)
        if not callable(children) or id(item) in within:
            continue
        listed = children()
        if isinstance(listed, Iterable):
            found.extend(_modules_within(listed, within + (id(item),)))
    return found


class Pipeline(
    torch.nn.Module,
    abstract.Pipeline[TRaw, TTransformed, TCollated, TProcessed]
):
    """A pipeline that is a ``torch.nn.Module``.

    Every ``torch.nn.Module`` among the stages, or found by following
    ``children()`` from them (an [`adl.ext.graph.Transform`][adl.ext.graph.Transform]'s
    nodes, an [`adl.abstract.Transform`][adl.abstract.Transform]'s
    transforms), is a submodule (in ``submodules``, a
    ``torch.nn.ModuleList``, present when there is at least one): it moves
    with ``pipeline.to(device)`` and its parameters are the pipeline's.
    A stage given as a module is called as the stage (the reference
    registers it as a submodule named after the stage but then calls the
    class's identity method in its place). The pipeline holds no state of
    its own: ``state_dict()`` is empty and
    ``load_state_dict`` takes any state, so that it can sit in a model
    whose checkpoints do not carry it.

    Type Parameters:
        - ``TRaw``: a sample as the dataset gives it.
        - ``TTransformed``: a sample after ``sample``.
        - ``TCollated``: a batch after ``collate``.
        - ``TProcessed``: a batch after ``batch``.

    Args:
        sample: each sample's transform; ``None`` for the class's
            ``sample`` (the identity, or a subclass's).
        collate: the collate; ``None`` for the class's ``collate`` (the
            list of samples, or a subclass's).
        batch: each batch's transform; ``None`` for the class's ``batch``.
    """

    def __init__(
        self, sample: spec.Transform[TRaw, TTransformed] | None = None,
        collate: spec.Collate[TTransformed, TCollated] | None = None,
        batch: spec.Transform[TCollated, TProcessed] | None = None
    ) -> None:
        torch.nn.Module.__init__(self)
        for stage, given in (("sample", sample), ("collate", collate),
                             ("batch", batch)):
            if given is not None:
                # In the instance's __dict__, in front of the class's
                # method, modules too: `torch.nn.Module.__setattr__` would
                # file a module under `_modules`, where the class's method
                # shadows it.
                object.__setattr__(self, stage, given)
        modules = _modules_within([sample, collate, batch])
        if modules:
            self.submodules = torch.nn.ModuleList(modules)

    # The reference's signature: any of torch's arguments, and nothing
    # saved, not even into a ``destination`` given (whose type torch's
    # overloads say is returned).
    def state_dict(  # type: ignore[override]
        self, *args: Any, **kwargs: Any
    ) -> dict[str, Any]:
        """Nothing: a pipeline's modules are not saved with it."""
        return {}

    def load_state_dict(
        self, state_dict: Any, strict: bool = True, assign: bool = True
    ) -> _IncompatibleKeys:
        """Take ``state_dict`` and load nothing (see ``state_dict``).

        Returns:
            No missing and no unexpected keys.
        """
        return _IncompatibleKeys(missing_keys=[], unexpected_keys=[])
