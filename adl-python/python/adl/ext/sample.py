"""A dataset's subset (``abstract_dataloader.ext.sample`` 0.4.7):
[`SampledDataset`][.] shows some of a dataset's samples, chosen by a
low-discrepancy sequence ([`sample_ld`][.]), uniformly, at random, or by
a function of the dataset's length.
"""

from collections.abc import Callable, Iterable
from typing import Any, Generic, Literal, TypeVar

import numpy as np
from jaxtyping import Int64, Integer

from adl import spec

__all__ = ["SampledDataset", "sample_ld"]

TSample = TypeVar("TSample")


class SampledDataset(spec.Dataset[TSample], Generic[TSample]):
    """Some of a dataset's samples, as a dataset of the same samples.

    ``mode`` chooses them:

    - ``"ld"``: a low-discrepancy sequence ([`sample_ld`][^.]), spread
      evenly over the dataset and without repeats.
    - ``"random"``: uniformly at random, with repeats
      (``np.random.default_rng(seed)``; a ``float`` seed is that fraction
      of the dataset's length, rounded down).
    - ``"uniform"``: evenly spaced, ``linspace(0, n - 1, samples)``.
    - a function of the dataset's length that returns the indices.

    Type Parameters:
        ``TSample``: the dataset's samples.

    Args:
        dataset: the dataset.
        samples: how many samples (at most the dataset's length); a
            ``float`` is a fraction of the dataset's length.
        seed: where the sequence starts (``"ld"``) or the generator's seed
            (``"random"``).
        mode: how the samples are chosen.
    """

    def __init__(
        self, dataset: spec.Dataset[TSample], samples: int | float,
        seed: int | float = 0,
        mode: Literal["ld", "uniform", "random"]
            | Callable[[int], Integer[np.ndarray, "N"]] = "ld",
    ) -> None:
        self.dataset = dataset
        total = len(dataset)
        if isinstance(samples, float):
            samples = int(samples * total)
        samples = min(samples, total)
        if mode == "ld":
            self.subset = sample_ld(total, samples=samples, seed=seed)
        elif mode == "random":
            if isinstance(seed, float):
                seed = int(seed * total)
            self.subset = np.random.default_rng(seed).choice(
                total, size=samples, replace=True)
        elif mode == "uniform":
            self.subset = np.linspace(0, total - 1, samples, dtype=np.int64)
        else:
            self.subset = mode(total).astype(np.int64)

    def __getitem__(self, index: int | np.integer) -> TSample:
        """The dataset's sample at position ``index`` of the subset."""
        return self.dataset[self.subset[index]]

    def __len__(self) -> int:
        """How many samples the subset has."""
        return self.subset.shape[0]

    def children(self) -> Iterable[Any]:
        """The dataset (this one's child in a tree of components)."""
        return [self.dataset]

    def __repr__(self) -> str:
        """The dataset's repr, with the subset's length."""
        return f"Sampled({self.dataset!r}, n={len(self)})"


def _coprime_step(total: int, near: int) -> int:
    """The integer nearest ``near`` that is coprime with ``total``, trying
    ``near``, ``near + 1``, ``near - 1``, ``near + 2``, ... (as many tries
    as ``near`` is from ``0`` or ``total``)."""
    for attempt in range(min(total - near, near)):
        distance = (attempt + 1) // 2
        candidate = near - distance if attempt % 2 == 0 else near + distance
        if np.gcd(candidate, total) == 1:
            return candidate
    raise ValueError(
        f"no step coprime with total={total} within "
        f"{min(total - near, near)} tries from {near} (total * alpha): give "
        f"`alpha` as an int step, or another alpha")


def sample_ld(
    total: int, samples: float | int,
    seed: float | int = 0, alpha: float | int = 2 / (np.sqrt(5) + 1),
) -> Int64[np.ndarray, "samples"]:
    """``samples`` distinct indices in ``[0, total)``, spread evenly: a
    low-discrepancy sequence ``(seed + k * step) % total``.

    The step is the integer nearest ``total * alpha`` that is coprime with
    ``total``, so the sequence visits every index once before it repeats.
    The default ``alpha``, the inverse golden ratio, spreads best (see
    "The Unreasonable Effectiveness of Quasirandom Sequences",
    extremelearning.com.au); over a small ``total`` the rounding spreads
    it less.

    ``samples``, ``seed`` and ``alpha`` may each be a ``float``, a fraction
    of ``total`` (``seed=0.7`` with ``total=100`` is ``70``).

    Args:
        total: how many indices to choose from.
        samples: how many to choose (at most ``total``).
        seed: where the sequence starts.
        alpha: the step, as a fraction of ``total`` (a ``float``) or itself
            (an ``int``).

    Returns:
        The indices (``int64``), in the sequence's order.

    Raises:
        ValueError: ``samples`` is negative or more than ``total``, or no
            step coprime with ``total`` is near ``total * alpha``.
        NotImplementedError: the sequence would overflow ``int64``.
    """
    if isinstance(samples, float):
        samples = int(samples * total)
    if isinstance(seed, float):
        seed = int(seed * total)
    if isinstance(alpha, float):
        alpha = _coprime_step(total, int(total * alpha))
    if not 0 <= samples <= total:
        raise ValueError(
            f"Number of samples {samples} must be in [0, {total}].")
    if samples * alpha >= np.iinfo(np.int64).max:
        raise NotImplementedError(
            f"`samples={samples}` is too large, and will cause overflow.")
    return (np.arange(samples, dtype=np.int64) * alpha + seed) % total
