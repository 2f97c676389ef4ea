"""ADL datasets as a Lightning data module
(``abstract_dataloader.ext.lightning`` 0.4.7, under its names).

[`ADLDataModule`][.] holds a dataset (or a constructor of one) per split
and one [`Pipeline`][adl.spec.Pipeline] for all: the loaders apply the
pipeline's ``sample`` (in the workers) and ``collate``; its ``batch``, on
the device, is the training loop's to apply (``datamodule.transforms``).
Augmentations that depend on the split read it from the sample (a
``meta`` such as [`adl.generic.DatasetMeta`][adl.generic.DatasetMeta]
gives, ``{"train": True}``). A few validation samples can be kept in
memory for visualizations (``samples``).

Which loader:

- ``engine="torch"`` (the default): PyTorch's ``DataLoader``, with the
  reference's settings (``pin_memory=True``, the train split shuffled by
  PyTorch's generator, worker processes): the same batches as
  ``abstract_dataloader``, and Lightning distributes it with its own
  sampler as it does any ``DataLoader``.
- ``engine="adl"``: ``adl.Loader`` (worker threads, batches built ahead, the train
  split shuffled by ``seed`` and the epoch, this rank's share of every
  epoch, and exact resume: Lightning saves its ``state_dict`` in its
  checkpoints and resumes mid-epoch from them). The validation and test
  batches are the same as PyTorch's (in order, with the same
  ``drop_last``); the train order is adl's, not PyTorch's, so it is
  not the default. Augmentations drawn from a per-process generator
  ([`adl.ext.augment.Augmentations`][adl.ext.augment.Augmentations])
  draw from one generator for all the threads.

Needs Lightning (the extra ``adl-dataloader[lightning]``), imported
here; ``import adl`` does not.
"""

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cached_property, partial
from typing import Any, Generic, Literal, TypeVar

import lightning as L  # noqa: N812
import numpy as np
import optree
import torch
from jaxtyping import Int64
from torch.utils.data import DataLoader

import adl
from adl import abstract, spec
from adl.ext.torch import TransformedDataset

from .sample import SampledDataset

__all__ = ["ADLDataModule", "LoaderEpochs"]

Sample = TypeVar("Sample")
Raw = TypeVar("Raw", contravariant=True, bound=dict[str, Any])
Transformed = TypeVar("Transformed", bound=dict[str, Any])
Collated = TypeVar("Collated", bound=dict[str, Any])
Processed = TypeVar("Processed", covariant=True, bound=dict[str, Any])

Split = Literal["train", "val", "test"]

# Per split: (shuffle, drop_last), as the reference sets them.
_TRAIN = (True, True)
_VAL = (False, True)
_TEST = (False, False)


class LoaderEpochs:
    """An ``adl.Loader`` as Lightning iterates a ``DataLoader``: each
    ``iter()`` is the next epoch (or, given ``epoch``, the epoch it says),
    ``len()`` is an epoch's number of batches, and ``state_dict`` /
    ``load_state_dict`` are the loader's, so that Lightning keeps its
    position in checkpoints and resumes from them mid-epoch.

    Args:
        loader: the loader.
        batches: the number of batches of an epoch on this rank (what
            ``len()`` says; ``len(loader.epoch(n))`` would start epoch
            ``n``).
        epoch: the epoch to iterate now (Lightning's ``current_epoch``),
            or ``None`` where nothing says it: then the epochs are
            counted, from 0.
        pin_memory: whether each tensor of a batch is copied into pinned
            memory (ignored without CUDA, as PyTorch's ``DataLoader``
            does).
    """

    def __init__(
        self, loader: adl.Loader, batches: int,
        epoch: Callable[[], int | None] | None = None,
        pin_memory: bool = False
    ) -> None:
        self.loader = loader
        self.batches = batches
        self._epoch = epoch
        self._next = 0
        self._resumed = False
        self.pin_memory = pin_memory and torch.cuda.is_available()

    @property
    def dataset(self) -> Any:
        """The loader's dataset (Lightning reads its length)."""
        return self.loader.dataset

    def _pinned(self, batch: Any) -> Any:
        """``batch`` with each tensor in pinned memory."""
        return optree.tree_map(
            lambda leaf: leaf.pin_memory()
            if isinstance(leaf, torch.Tensor) else leaf, batch)

    def __iter__(self) -> Iterator[Any]:
        """The batches of the current epoch, in order."""
        told = self._epoch() if self._epoch is not None else None
        epoch = self._next if told is None else told
        batches = self.loader.epoch(epoch)
        if self._resumed and len(batches) == 0:
            # A state saved at the end of its epoch (Lightning saves one
            # after an epoch's last batch, then starts the next epoch
            # with the iterator it asked for while still in that one).
            epoch += 1
            batches = self.loader.epoch(epoch)
        self._resumed = False
        self._next = epoch + 1
        if not self.pin_memory:
            return iter(batches)
        return (self._pinned(batch) for batch in batches)

    def __len__(self) -> int:
        """The number of batches of an epoch on this rank."""
        return self.batches

    def state_dict(self) -> dict[str, Any]:
        """Where the loader stands (``adl.Loader.state_dict``)."""
        return dict(self.loader.state_dict())

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Resume from ``state``: that epoch, iterated next, starts where
        it stood (``adl.Loader.load_state_dict``); where it stood at its
        end, the next epoch starts."""
        self.loader.load_state_dict(state)
        self._next = int(state["epoch"]) if "epoch" in state else self._next
        self._resumed = True


class ADLDataModule(
    L.LightningDataModule, Generic[Raw, Transformed, Collated, Processed]
):
    """ADL datasets (one per split) and a pipeline as a Lightning data
    module.

    Not every split is needed: a split that was not given is a
    ``KeyError`` (naming the splits there are) when its loader is asked
    for. Splits may have any names; ``train``, ``val`` and ``test`` are
    the ones of ``train_dataloader()``, ``val_dataloader()`` and
    ``test_dataloader()``.

    Each split's dataset is made once (constructors are called on first
    use) and kept while the module lives; a loader is made each time one
    is asked for.

    Type Parameters:
        - ``Raw``: a sample as the datasets give it.
        - ``Transformed``: a sample after the pipeline's ``sample``.
        - ``Collated``: a batch after ``collate`` (tensors).
        - ``Processed``: a batch after ``batch`` (on the device).

    Args:
        dataset: each split's dataset, or a function of no arguments that
            makes it.
        transforms: the pipeline.
        batch_size: samples per batch.
        samples: how many validation samples to keep in memory for
            visualizations (spread evenly over the split), or their
            indices; ``0`` for none.
        num_workers: the loader's workers (PyTorch's processes, adl's
            threads); ``0`` reads in the thread that iterates.
        prefetch_factor: batches read ahead per worker; PyTorch requires
            ``None`` with ``num_workers=0`` (``None``: PyTorch's default,
            2).
        subsample: for the splits named here, only this many samples (an
            ``int``) or this share of them (a ``float``), chosen by
            low-discrepancy sampling
            ([`SampledDataset`][adl.ext.sample.SampledDataset]).
        engine: ``"torch"`` (PyTorch's ``DataLoader``, the reference's
            batches) or ``"adl"`` (``adl.Loader``: see the module's
            description).
        seed: the train split's shuffle seed with ``engine="adl"`` (each
            epoch's order is drawn from it and the epoch, the same on
            every rank).
        loader_options: with ``engine="adl"``, more of ``adl.Loader``'s
            arguments, as it takes them (``processes``,
            ``memory_budget``, ``on_error``, ...), over those this module
            sets (``batch_size``, ``shuffle``, ``workers``,
            ``batches_ahead``, ``drop_last``, ``rank``, ``world``).

    Attributes:
        transforms: the pipeline; its ``batch`` stage is the training
            loop's to apply.
    """

    def __init__(
        self, dataset: Mapping[
            str, Callable[[], spec.Dataset[Raw]] | spec.Dataset[Raw]],
        transforms: spec.Pipeline[Raw, Transformed, Collated, Processed],
        batch_size: int = 32, samples: int | Sequence[int] = 0,
        num_workers: int = 32, prefetch_factor: int | None = None,
        subsample: Mapping[str, int | float | None] = {},
        *, engine: Literal["torch", "adl"] = "torch", seed: int = 0,
        loader_options: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__()
        if engine not in ("torch", "adl"):
            raise ValueError(
                f"ADLDataModule: engine is 'torch' or 'adl', not {engine!r}")
        self.transforms = transforms
        self._dataset = dataset
        self._samples = samples
        self._subsample = subsample
        self._batch_size = batch_size
        self._num_workers = num_workers
        self._prefetch_factor = prefetch_factor
        self._engine = engine
        self._seed = seed
        self._loader_options = dict(loader_options or {})
        if self._loader_options and engine != "adl":
            raise ValueError(
                "ADLDataModule: loader_options are adl.Loader's; give them "
                "with engine='adl'")
        self._datasets: dict[str, TransformedDataset[Raw, Transformed]] = {}

    @classmethod
    def from_traces(
        cls, dataset: Callable[[Sequence[str]], spec.Dataset[Raw]],
        traces: Mapping[str, Sequence[str]],
        transforms: spec.Pipeline[Raw, Transformed, Collated, Processed],
        **kwargs: Any
    ) -> "ADLDataModule[Raw, Transformed, Collated, Processed]":
        """A data module whose splits are made of named traces.

        Args:
            dataset: makes a dataset from a list of trace names.
            traces: each split's trace names (``dataset`` is called with
                them when the split is first used).
            transforms: the pipeline.
            kwargs: the constructor's other arguments.
        """
        # Each split's dataset is made from its traces on first use.
        split_constructors: dict[str, Callable[[], spec.Dataset[Raw]]] = {}
        for split, trace_names in traces.items():
            split_constructors[split] = partial(dataset, trace_names)
        return cls(transforms=transforms, dataset=split_constructors, **kwargs)

    @cached_property
    def samples(self) -> Collated | None:
        """The validation samples kept for visualizations, collated into
        one batch (read on first access, then kept).

        With ``samples=n``, ``n`` indices spread evenly over the split,
        a margin of ``len(val) // n // 2`` kept at each end.

        Returns:
            The batch; ``None`` with ``samples=0`` or without a ``val``
                split.
        """
        if isinstance(self._samples, int) and self._samples == 0:
            return None
        if "val" not in self._dataset:
            return None
        val = self.dataset("val")
        indices: Sequence[int] | Int64[np.ndarray, "N"]
        if isinstance(self._samples, int):
            margin = len(val) // self._samples // 2
            indices = np.linspace(
                margin, len(val) - margin, self._samples, dtype=np.int64)
            if len(indices) and indices[-1] >= len(val):
                raise IndexError(
                    f"ADLDataModule: samples={self._samples} evenly over a "
                    f"val split of {len(val)} samples would read index "
                    f"{int(indices[-1])}; ask for fewer samples, or give "
                    f"their indices")
        else:
            indices = self._samples
        return self.transforms.collate([val[i] for i in indices])

    def dataset(
        self, split: Split = "train"
    ) -> TransformedDataset[Raw, Transformed]:
        """A split's dataset, with the pipeline's ``sample`` applied (and
        subsampled where ``subsample`` says so); made once, then kept.

        Args:
            split: the split's name.

        Returns:
            The split's transformed dataset.
        """
        cached = self._datasets.get(split)
        if cached is None:
            cached = TransformedDataset(
                self._split_source(split), transform=self.transforms.sample)
            self._datasets[split] = cached
        return cached

    def _split_source(self, split: Split) -> spec.Dataset[Raw]:
        """A split's dataset as given (made now, where a constructor was
        given), subsampled where ``subsample`` names the split."""
        try:
            given = self._dataset[split]
        except KeyError:
            raise KeyError(
                f"No `{split}` split was provided to this DataModule. Only "
                f"the following splits are present: "
                f"{list(self._dataset.keys())}") from None
        source = given if isinstance(given, spec.Dataset) else given()
        share = self._subsample.get(split)
        return source if share is None else SampledDataset(source, share)

    def dataloader(
        self, dataset: spec.Dataset[Raw] | Split,
        mode: Split | None = None
    ) -> DataLoader | LoaderEpochs:
        """A loader of a split, or of another dataset, with the pipeline's
        ``sample`` and ``collate`` applied.

        | Mode  | shuffled | ``drop_last`` |
        |-------|----------|---------------|
        | train | yes      | yes           |
        | val   | no       | yes           |
        | test  | no       | no            |

        Args:
            dataset: a split's name, or an ADL dataset.
            mode: how to load it; with a split's name, the name says it
                (another name than train or val loads as test).

        Returns:
            A PyTorch ``DataLoader`` (``engine="torch"``), or the epochs
                of an ``adl.Loader`` (``engine="adl"``).
        """
        if mode == "train" or dataset == "train":
            shuffle, drop_last = _TRAIN
        elif mode == "val" or dataset == "val":
            shuffle, drop_last = _VAL
        elif mode == "test" or isinstance(dataset, str):
            shuffle, drop_last = _TEST
        else:
            raise ValueError(
                "A custom `dataset` was provided to "
                "`ADLDataModule.dataloader(...)`, but no `mode` was specified.")

        if isinstance(dataset, str):
            transformed = self.dataset(dataset)
        else:
            transformed = TransformedDataset(
                dataset, transform=self.transforms.sample)

        if self._engine == "torch":
            return DataLoader(
                transformed, batch_size=self._batch_size, shuffle=shuffle,
                drop_last=drop_last, num_workers=self._num_workers,
                prefetch_factor=self._prefetch_factor, pin_memory=True,
                collate_fn=self.transforms.collate)
        return self._adl_loader(transformed, shuffle, drop_last)

    def _adl_loader(
        self, transformed: TransformedDataset[Raw, Transformed],
        shuffle: bool, drop_last: bool
    ) -> LoaderEpochs:
        """``transformed`` under ``adl.Loader``, with this module's
        settings, this rank's share where a trainer says which."""
        trainer = self.trainer
        rank, world = (0, 1) if trainer is None else (
            trainer.global_rank, trainer.world_size)
        per_worker = 2 if self._prefetch_factor is None else self._prefetch_factor
        options: dict[str, Any] = {
            "batch_size": self._batch_size,
            "shuffle": self._seed if shuffle else None,
            "workers": self._num_workers,
            "batches_ahead": per_worker * max(self._num_workers, 1),
            "drop_last": drop_last,
            "rank": rank, "world": world,
        }
        options.update(self._loader_options)
        loader = adl.Loader(
            transformed, abstract.Pipeline(collate=self.transforms.collate),
            **options)
        # As torch's DistributedSampler deals an epoch (and adl.Loader
        # does): padded to a multiple of the world, every world-th index.
        per_rank = -(-len(transformed) // world)
        batches = (per_rank // self._batch_size if drop_last
                   else -(-per_rank // self._batch_size))
        return LoaderEpochs(
            loader, batches, epoch=self._current_epoch, pin_memory=True)

    def _current_epoch(self) -> int | None:
        """The trainer's epoch, where a trainer is attached."""
        trainer = self.trainer
        return None if trainer is None else trainer.current_epoch

    def train_dataloader(self) -> DataLoader | LoaderEpochs:
        """The train split's loader: ``dataloader("train")``."""
        return self.dataloader("train")

    def val_dataloader(self) -> DataLoader | LoaderEpochs:
        """The val split's loader: ``dataloader("val")``."""
        return self.dataloader("val")

    def test_dataloader(self) -> DataLoader | LoaderEpochs:
        """The test split's loader: ``dataloader("test")``."""
        return self.dataloader("test")
