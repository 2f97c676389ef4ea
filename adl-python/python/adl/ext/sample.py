"""A dataset's subset (``abstract_dataloader.ext.sample`` 0.4.7):
[`SampledDataset`][.] shows some of a dataset's samples, chosen by a
low-discrepancy sequence ([`sample_ld`][.]), uniformly, at random, or by
a function of the dataset's length.
"""

import itertools
from collections.abc import Callable, Iterable, Iterator
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
        length = len(dataset)
        count = min(_count_of(samples, length), length)
        if isinstance(mode, str) and mode in _NAMED_CHOICES:
            self.subset = _NAMED_CHOICES[mode](length, count, seed)
        elif isinstance(mode, str):
            # The reference calls it, and fails as a str is not callable:
            # the same class of error, saying why.
            raise TypeError(
                f"SampledDataset: mode {mode!r} is neither one of "
                f"{sorted(_NAMED_CHOICES)} nor a function of the dataset's "
                f"length")
        else:
            # Any other mode is the user's function of the length.
            self.subset = mode(length).astype(np.int64)

    def __getitem__(self, index: int | np.integer) -> TSample:
        """The dataset's sample at position ``index`` of the subset."""
        return self.dataset[self.subset[index]]

    def __len__(self) -> int:
        """How many samples the subset has."""
        return int(self.subset.shape[0])

    def children(self) -> Iterable[Any]:
        """The dataset (this one's child in a tree of components)."""
        return [self.dataset]

    def __repr__(self) -> str:
        """The dataset's repr, with the subset's length."""
        return f"Sampled({self.dataset!r}, n={len(self)})"


def _count_of(amount: int | float, total: int) -> int:
    """``amount`` itself, or, for a ``float``, that fraction of ``total``
    (rounded down)."""
    return int(amount * total) if isinstance(amount, float) else amount


def _choose_low_discrepancy(
    length: int, count: int, seed: int | float
) -> Int64[np.ndarray, "count"]:
    """``SampledDataset``'s ``"ld"`` mode: [`sample_ld`][^.]."""
    return sample_ld(length, samples=count, seed=seed)


def _choose_at_random(
    length: int, count: int, seed: int | float
) -> Int64[np.ndarray, "count"]:
    """``SampledDataset``'s ``"random"`` mode: ``count`` draws, with
    repeats, from a generator seeded with ``seed`` (a ``float`` a fraction
    of ``length``)."""
    generator = np.random.default_rng(_count_of(seed, length))
    return generator.choice(length, size=count, replace=True)


def _choose_evenly_spaced(
    length: int, count: int, seed: int | float
) -> Int64[np.ndarray, "count"]:
    """``SampledDataset``'s ``"uniform"`` mode: ``count`` evenly spaced
    indices from the first to the last (``seed`` is not used)."""
    del seed
    return np.linspace(0, length - 1, count, dtype=np.int64)


# SampledDataset's named modes, each a function of (length, count, seed).
_NAMED_CHOICES: dict[
    str, Callable[[int, int, int | float], Int64[np.ndarray, "count"]]
] = {
    "ld": _choose_low_discrepancy,
    "random": _choose_at_random,
    "uniform": _choose_evenly_spaced,
}


def _alternating_around(centre: int) -> Iterator[int]:
    """``centre``, ``centre + 1``, ``centre - 1``, ``centre + 2``,
    ``centre - 2``, ... without end."""
    yield centre
    for distance in itertools.count(1):
        yield centre + distance
        yield centre - distance


def _coprime_step(total: int, near: int) -> int:
    """The integer nearest ``near`` that is coprime with ``total``, trying
    ``near``, ``near + 1``, ``near - 1``, ``near + 2``, ... (as many tries
    as ``near`` is from ``0`` or ``total``)."""
    tries = min(total - near, near)
    candidates = itertools.islice(_alternating_around(near), tries)
    found = next((candidate for candidate in candidates
                  if np.gcd(candidate, total) == 1), None)
    if found is None:
        raise ValueError(
            f"no step coprime with total={total} within {tries} tries from "
            f"{near} (total * alpha): give `alpha` as an int step, or "
            f"another alpha")
    return found


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
    count = _count_of(samples, total)
    start = _count_of(seed, total)
    step = (_coprime_step(total, int(total * alpha))
            if isinstance(alpha, float) else alpha)
    if count < 0 or count > total:
        raise ValueError(
            f"Number of samples {count} must be in [0, {total}].")
    if count * step >= np.iinfo(np.int64).max:
        raise NotImplementedError(
            f"`samples={count}` is too large, and will cause overflow.")
    offsets = np.arange(count, dtype=np.int64) * step
    return (offsets + start) % total
