"""Data augmentations as named random parameters
(``abstract_dataloader.ext.augment`` 0.4.7, under its names).

An augmentation here is not an operation on data: it is the random value
of one physical property that a transform then applies (``azimuth_flip``,
``range_scale``, ...). [`Augmentations`][.] draws every one of them for a
sample, as a dict keyed by the property's name; what each name means is
the user's to define and apply.

Each draw is the reference's, draw for draw from the same generator, so
the same seed gives the same augmentations:

- [`Bernoulli`][.]: ``True`` with probability ``p``.
- [`Normal`][.]: ``Normal(0, std)``, or ``0.0`` with probability ``1 - p``.
- [`TruncatedLogNormal`][.]: ``exp(std * clip(Normal(0, 1), -clip, clip))``,
  or ``1.0`` with probability ``1 - p``.
- [`Uniform`][.]: ``Uniform(lower, upper)``, or ``0.0`` with probability
  ``1 - p``.

Only NumPy is needed.
"""

import os
from collections.abc import Iterable, Mapping
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np

__all__ = [
    "Augmentation",
    "Augmentations",
    "Bernoulli",
    "Normal",
    "TruncatedLogNormal",
    "Uniform",
]

T = TypeVar("T", covariant=True)


@runtime_checkable
class Augmentation(Protocol, Generic[T]):
    """How one augmentation parameter is drawn: a callable of a NumPy
    generator.

    Type Parameters:
        - ``T``: the parameter's type.
    """

    def __call__(self, rng: np.random.Generator) -> T:
        """Draw the parameter.

        Args:
            rng: the generator to draw from.

        Returns:
            The parameter's value.
        """
        ...


def _skipped(p: float, rng: np.random.Generator) -> bool:
    """Whether an augmentation enabled with probability ``p`` is off this
    time: one uniform draw when ``p < 1``, none otherwise."""
    return p < 1.0 and rng.random() > p


class Augmentations:
    """The augmentations of a sample, each under its property's name.

    Each process draws from a generator of its own, seeded with its
    process id, so that the workers of a multiprocess loader (PyTorch's
    ``DataLoader``) draw differently from each other. (The threads of
    ``adl.Loader`` share their process's generator.)

    Args:
        kwargs: the augmentations, each under the name of the property it
            gives (``azimuth_flip=Bernoulli(0.5)``).
    """

    def __init__(self, **kwargs: Augmentation) -> None:
        self.augmentations = kwargs
        self._rng: dict[int, np.random.Generator] = {}

    @property
    def rng(self) -> np.random.Generator:
        """This process's generator (``np.random.default_rng(pid)``, made
        on first use in each process)."""
        pid = os.getpid()
        generator = self._rng.get(pid)
        if generator is None:
            generator = np.random.default_rng(seed=pid)
            self._rng[pid] = generator
        return generator

    def __call__(self, meta: Mapping[str, Any] = {}) -> dict[str, Any]:
        """Draw every augmentation, in the order they were given.

        Args:
            meta: the sample's processing settings; with ``"train"`` set
                to a false value nothing is drawn (a missing ``"train"``
                counts as training).

        Returns:
            Each augmentation's value under its name; ``{}`` when not
                training.
        """
        if not meta.get("train", True):
            return {}
        rng = self.rng
        return {name: draw(rng) for name, draw in self.augmentations.items()}

    def children(self) -> Iterable[Any]:
        """The augmentations (its children in a tree of components)."""
        return self.augmentations.values()


class Bernoulli(Augmentation[bool]):
    """``True`` with probability ``p``, else ``False``.

    Args:
        p: the probability of ``True``.
    """

    def __init__(self, p: float = 0.5) -> None:
        self.p = p

    def __call__(self, rng: np.random.Generator) -> bool:
        """One draw: ``rng.random() < p``."""
        return rng.random() < self.p


class Normal(Augmentation[float]):
    """A zero-mean normal value, with probability ``p``; else ``0.0``.

    Args:
        p: the probability that the augmentation is on (``p >= 1``:
            always, with no draw for it).
        std: the normal distribution's standard deviation.
    """

    def __init__(self, p: float = 1.0, std: float = 1.0) -> None:
        self.p = p
        self.std = std

    def __call__(self, rng: np.random.Generator) -> float:
        """One draw (two when ``p < 1``: whether, then what)."""
        if _skipped(self.p, rng):
            return 0.0
        return rng.normal(scale=self.std)


class TruncatedLogNormal(Augmentation[float]):
    """A log-normal scale factor around 1, with probability ``p``; else
    ``1.0``: ``exp(std * z)`` for a standard normal ``z`` clipped to
    ``[-clip, clip]``.

    Args:
        p: the probability that the augmentation is on.
        std: the standard deviation of the underlying normal (of the log
            of the value).
        clip: where ``z`` is clipped, in standard deviations; ``0`` for
            no clipping.
    """

    def __init__(
        self, p: float = 1.0, std: float = 0.2, clip: float = 2.0
    ) -> None:
        self.p = p
        self.std = std
        self.clip = clip

    def __call__(self, rng: np.random.Generator) -> float:
        """One draw (two when ``p < 1``)."""
        if _skipped(self.p, rng):
            return 1.0
        deviation = rng.normal()
        bounded = (np.clip(deviation, -self.clip, self.clip)
                   if self.clip > 0 else deviation)
        scale: float = np.exp(self.std * bounded)
        return scale


class Uniform(Augmentation[float]):
    """A uniform value in ``[lower, upper)``, with probability ``p``; else
    ``0.0``.

    Args:
        p: the probability that the augmentation is on.
        lower: the lower bound.
        upper: the upper bound.
    """

    def __init__(
        self, p: float = 1.0, lower: float = -np.pi, upper: float = np.pi
    ) -> None:
        self.p = p
        self.lower = lower
        self.upper = upper

    def __call__(self, rng: np.random.Generator) -> float:
        """One draw (two when ``p < 1``)."""
        if _skipped(self.p, rng):
            return 0.0
        return rng.uniform(self.lower, self.upper)
