"""Compositions by key (``abstract_dataloader.generic`` 0.4.7's): transforms
and pipelines applied to the parts of dict samples, and a dataset whose
samples carry metadata."""

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import numpy as np

from adl import spec

__all__ = ["DatasetMeta", "ParallelPipelines", "ParallelTransforms"]

TRaw = TypeVar("TRaw", bound=dict[str, Any])
TTransformed = TypeVar("TTransformed", bound=dict[str, Any])
TCollated = TypeVar("TCollated", bound=dict[str, Any])
TProcessed = TypeVar("TProcessed", bound=dict[str, Any])


class ParallelTransforms(spec.Transform[TRaw, TTransformed]):
    """Transforms applied key by key: ``{k: transforms[k](data[k])}`` for
    each transform's key, in their order (keys of ``data`` without a
    transform are dropped; a missing one is a ``KeyError``).

    Type Parameters:
        - ``TRaw``, ``TTransformed``: dicts, as for
          [`Transform`][adl.spec.Transform].

    Args:
        transforms: the transforms, each under the key of the part it
            transforms.
    """

    def __init__(self, **transforms: spec.Transform) -> None:
        self.transforms = transforms

    def __call__(self, data: TRaw) -> TTransformed:
        """Each transform on its key's part of ``data``."""
        return cast(TTransformed, {
            key: self.transforms[key](data[key]) for key in self.transforms})


class ParallelPipelines(
    spec.Pipeline[TRaw, TTransformed, TCollated, TProcessed],
):
    """Pipelines applied key by key: each stage runs each key's pipeline on
    that key's part (``collate`` on the list of the samples' parts), for
    each pipeline's key in order::

        {"radar": radar.sample(data["radar"]), "lidar": lidar.sample(data["lidar"])}

    The data at every stage are dicts (``dict[str, Any]``, the type
    parameters' bound).

    Type Parameters:
        - ``TRaw``, ``TTransformed``, ``TCollated``, ``TProcessed``: as for
          [`Pipeline`][adl.spec.Pipeline].

    Args:
        transforms: the pipelines, each under the key of the part it
            processes.
    """

    def __init__(self, **transforms: spec.Pipeline) -> None:
        self.transforms = transforms

    def sample(self, data: TRaw) -> TTransformed:
        """Each pipeline's ``sample`` on its key's part of one sample."""
        return cast(TTransformed, self._stage_by_key(
            "sample", data.__getitem__))

    def collate(self, data: Sequence[TTransformed]) -> TCollated:
        """Each pipeline's ``collate`` on the list of its key's parts."""
        def parts_of(key: str) -> list[Any]:
            """Every sample's part under ``key``, in the batch's order."""
            return [sample[key] for sample in data]

        return cast(TCollated, self._stage_by_key("collate", parts_of))

    def batch(self, data: TCollated) -> TProcessed:
        """Each pipeline's ``batch`` on its key's part of the batch."""
        return cast(TProcessed, self._stage_by_key(
            "batch", data.__getitem__))

    def _stage_by_key(
        self, stage: str, part_of: Callable[[str], Any]
    ) -> dict[str, Any]:
        """``{key: pipeline.<stage>(part_of(key))}`` for each key's
        pipeline, in the pipelines' order."""
        return {key: getattr(pipeline, stage)(part_of(key))
                for key, pipeline in self.transforms.items()}


TSample = TypeVar("TSample", bound=dict[str, Any])
TSampleMeta = TypeVar("TSampleMeta", bound=dict[str, Any])


class DatasetMeta(spec.Dataset[TSampleMeta]):
    """A dataset of dicts whose samples carry ``meta`` under the key
    ``"meta"``: ``{"meta": meta, **dataset[i]}`` (a sample's own ``"meta"``
    wins).

    Type Parameters:
        - ``TSampleMeta``: the samples with ``"meta"``.

    Args:
        dataset: the dataset of dict samples.
        meta: what every sample carries.
    """

    def __init__(
        self, dataset: spec.Dataset[TSample], meta: Any
    ) -> None:
        self.dataset = dataset
        self.meta = meta

    def __getitem__(self, index: int | np.integer) -> TSampleMeta:
        """Sample ``index`` of the dataset, with ``"meta"``.

        Args:
            index: the sample's index.

        Returns:
            The sample, read, with the metadata.
        """
        return cast(TSampleMeta, {"meta": self.meta, **self.dataset[index]})

    def __len__(self) -> int:
        """How many samples: the dataset's."""
        return len(self.dataset)
