"""Training objectives (``abstract_dataloader.ext.objective`` 0.4.7, under
its names).

- An [`Objective`][.] takes the ground truth and the model's output and
  returns a loss per sample of the batch and a dict of named metrics;
  it may also draw visualizations and render outputs.
- A [`MultiObjective`][.] is several objectives, each described by a
  [`MultiObjectiveSpec`][.] (its weight and where its inputs are in the
  batch and in the model's output): their weighted losses summed, their
  metrics, visualizations and renders under ``<objective>/<name>``.
- [`MissingInputError`][.] is what indexing raises where a key or an
  attribute is missing; a ``MultiObjective(strict=False)`` skips such an
  objective (saying so once in the log).

The array type is any ([`TArray`][adl.ext.types.TArray]: NumPy, PyTorch,
JAX); only NumPy is needed here.
"""

import logging
from abc import abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, cast, runtime_checkable

import numpy as np
import wadler_lindig as wl
from jaxtyping import Float, Shaped, UInt8
from typing_extensions import TypeVar

from .types import TArray

__all__ = [
    "MissingInputError",
    "MultiObjective",
    "MultiObjectiveSpec",
    "Objective",
    "VisualizationConfig",
]

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    # mypy reads no ``infer_variance`` on a type variable made by a call,
    # so a type checker sees the variance spelled out: the public names
    # invariant (``MultiObjectiveSpec`` gives them out and takes them in),
    # ``Objective``'s own contravariant (it only takes them).
    YTrue = TypeVar("YTrue")
    YPred = TypeVar("YPred")
    YTrueAll = TypeVar("YTrueAll")
    YPredAll = TypeVar("YPredAll")
    _YTrueIn = TypeVar("_YTrueIn", contravariant=True)
    _YPredIn = TypeVar("_YPredIn", contravariant=True)
else:
    # At runtime the reference's own, their variance inferred.
    YTrue = TypeVar("YTrue", infer_variance=True)
    YPred = TypeVar("YPred", infer_variance=True)
    YTrueAll = TypeVar("YTrueAll", infer_variance=True)
    YPredAll = TypeVar("YPredAll", infer_variance=True)
    _YTrueIn, _YPredIn = YTrue, YPred


class MissingInputError(Exception):
    """A key (of a mapping) or an attribute (of an object) that an
    objective's input is indexed by is not there.

    Args:
        key: the missing key or attribute.
        obj: what it was looked up in (printed only when the error is).
        kind: ``"Key"`` or ``"Attribute"``.
    """

    def __init__(
        self, key: str, obj: Any, kind: Literal["Key", "Attribute"] = "Key"
    ) -> None:
        # The message is rendered only when printed (`__str__`): the
        # exception's sole argument is the key.
        Exception.__init__(self, key)
        self.key, self.obj, self.kind = key, obj, kind

    def __str__(self) -> str:
        """``<kind> <key> not found: <obj, pretty-printed>``, made when
        the error is printed (a skipped objective's error never is)."""
        return f"{self.kind} {self.key} not found: {wl.pformat(self.obj)}"


@dataclass(frozen=True)
class VisualizationConfig:
    """Settings for in-training visualizations; an objective may ignore
    any of them.

    Attributes:
        cols: how many samples a row of a tiled image has.
        width: each sample's width, in pixels.
        height: each sample's height, in pixels.
        cmaps: colormaps by name: a matplotlib colormap's name, or an
            ``[N, 3]`` ``uint8`` array of RGB colors for ``N`` classes.
    """

    cols: int = 8
    width: int = 512
    height: int = 256
    cmaps: Mapping[str, str | UInt8[np.ndarray, "N 3"]] = field(
        default_factory=dict)


@runtime_checkable
class Objective(Protocol, Generic[TArray, _YTrueIn, _YPredIn]):
    """A training objective: a loss and metrics from the ground truth and
    the model's output.

    Metrics that are not the loss should be computed without gradients
    (``torch.no_grad()``).

    Type Parameters:
        - ``TArray``: the array type (``torch.Tensor``, ``jax.Array``, ...).
        - ``YTrue``: the ground truth (the loader's batch, or part of it).
        - ``YPred``: the model's output.
    """

    @abstractmethod
    def __call__(
        self, y_true: _YTrueIn, y_pred: _YPredIn, train: bool = True
    ) -> tuple[Float[TArray, "batch"], dict[str, Float[TArray, "batch"]]]:
        """The loss and the metrics of a batch.

        An implementation may take more arguments after ``train``, each
        with a default (a [`MultiObjectiveSpec`][^.]'s ``aux`` gives them
        by name); where one is required, its absence should be an error.

        Args:
            y_true: the ground truth.
            y_pred: the model's output.
            train: whether training (an objective may then leave out
                costly metrics).

        Returns:
            The loss (per sample, or one value) and the metrics by name.
        """
        ...

    def visualizations(
        self, y_true: _YTrueIn, y_pred: _YPredIn
    ) -> dict[str, UInt8[np.ndarray, "H W 3"]]:
        """Images of a batch, each an RGB image (``[H, W, 3]``, ``uint8``)
        under a name; none by default.

        Called on data already detached and on the CPU, from a thread
        apart from training, so it may use anything (matplotlib, NumPy).

        Args:
            y_true: the ground truth.
            y_pred: the model's output.

        Returns:
            The images by name (may be empty).
        """
        return {}

    def render(
        self, y_true: _YTrueIn, y_pred: _YPredIn, render_gt: bool = False
    ) -> dict[str, Shaped[np.ndarray, "batch ..."]]:
        """Outputs rendered per sample, for analysis after training: under
        each name a NumPy array whose first axis is the batch; none by
        default. (Unlike ``visualizations``, one value per sample, of any
        NumPy type.)

        Args:
            y_true: the ground truth.
            y_pred: the model's output.
            render_gt: whether to render the ground truth too.

        Returns:
            The rendered arrays by name (may be empty).
        """
        return {}


# Where an objective's input is: a key or attribute, a path of them, a
# function of the whole, or the whole (None).
_Index = str | Sequence[str] | Callable[[Any], Any] | None


def _look_up(data: Any, name: str) -> Any:
    """``data[name]`` of a mapping, else ``data.<name>``; a
    `MissingInputError` where it is not there."""
    if isinstance(data, Mapping):
        if name not in data:
            raise MissingInputError(name, data, "Key")
        return data[name]
    if not hasattr(data, name):
        raise MissingInputError(name, data, "Attribute")
    return getattr(data, name)


def _select(data: Any, index: _Index) -> Any:
    """What ``index`` points at in ``data``."""
    if index is None:
        return data
    if isinstance(index, str):
        return _look_up(data, index)
    if isinstance(index, Sequence):
        for name in index:
            data = _look_up(data, name)
        return data
    if callable(index):
        return index(data)
    raise TypeError(
        f"an objective's input is found by a key (str), a path of keys, a "
        f"function or None, not {type(index).__name__}: {index!r}")


@dataclass
class MultiObjectiveSpec(Generic[YTrue, YPred, YTrueAll, YPredAll]):
    """One objective of a [`MultiObjective`][^.]: the objective, its
    weight, and where its inputs are.

    ``y_true``, ``y_pred`` and each value of ``aux`` say where an input
    is in the ground truth (or, for ``y_pred``, the model's output):

    - ``None``: the whole of it.
    - a ``str``: the value under that key of a mapping, or the attribute
      of that name of any other object.
    - a sequence of ``str``: the same, one level after another.
    - a callable: its result on the whole.

    That the values found are of the types the objective takes is the
    user's to ensure.

    Type Parameters:
        - ``YTrue``: the objective's ground truth.
        - ``YPred``: the objective's model output.
        - ``YTrueAll``: the whole ground truth (the loader's batch).
        - ``YPredAll``: the model's whole output.

    Attributes:
        objective: the objective.
        weight: its loss's weight in the sum.
        y_true: where its ground truth is.
        y_pred: where its model output is.
        aux: more inputs, from the ground truth, given to the objective
            as keyword arguments under these names.
    """

    objective: Objective
    weight: float = 1.0
    y_true: str | Sequence[str] | Callable[[YTrueAll], YTrue] | None = None
    y_pred: str | Sequence[str] | Callable[[YPredAll], YPred] | None = None
    aux: Mapping[
        str, str | Sequence[str] | Callable[[YTrueAll], YTrue] | None
    ] = field(default_factory=dict)

    def index_y_true(self, y_true: YTrueAll) -> YTrue:
        """The objective's ground truth, from the whole.

        Args:
            y_true: the whole ground truth.

        Returns:
            What ``self.y_true`` points at.
        """
        # Of the objective's type, as the user who placed it ensures.
        selected: YTrue = _select(y_true, self.y_true)
        return selected

    def index_y_pred(self, y_pred: YPredAll) -> YPred:
        """The objective's model output, from the whole.

        Args:
            y_pred: the model's whole output.

        Returns:
            What ``self.y_pred`` points at.
        """
        # Of the objective's type, as the user who placed it ensures.
        selected: YPred = _select(y_pred, self.y_pred)
        return selected

    def index_aux(self, y_true: YTrueAll) -> dict[str, Any]:
        """The objective's auxiliary inputs, from the ground truth.

        Args:
            y_true: the whole ground truth.

        Returns:
            Each name of ``aux`` with what it points at: the objective's
                keyword arguments.
        """
        return {name: _select(y_true, where) for name, where in self.aux.items()}


def _as_spec(
    given: Mapping[str, Any] | MultiObjectiveSpec[Any, Any, Any, Any]
) -> MultiObjectiveSpec[Any, Any, Any, Any]:
    """``given`` as a [`MultiObjectiveSpec`][^.]: itself, or a spec of
    those fields (as a Hydra config gives one)."""
    if isinstance(given, MultiObjectiveSpec):
        return given
    return MultiObjectiveSpec(**given)


class MultiObjective(Objective[TArray, YTrue, YPred]):
    """Several objectives as one: the weighted sum of their losses, and
    their metrics, visualizations and renders each under
    ``<objective>/<name>``.

    With Hydra, each objective is a mapping of the spec's fields:

    ```yaml
    _target_: adl.ext.objective.MultiObjective
    depth:
      objective: {_target_: ...}
      weight: 1.0
      y_true: depth
      y_pred: depth
    ```

    Type Parameters:
        - ``TArray``: the array type.
        - ``YTrue``: the whole ground truth.
        - ``YPred``: the model's whole output.

    Args:
        strict: whether a missing input is an error (``True``) or skips
            that objective, logged once per objective and method
            (``False``); if every objective is skipped, the call is a
            ``RuntimeError``.
        objectives: the objectives by name, each a
            [`MultiObjectiveSpec`][^.] or a mapping of its fields. At least
            one.
    """

    def __init__(
        self, strict: bool = True, **objectives: Mapping | MultiObjectiveSpec
    ) -> None:
        specs = {name: _as_spec(given) for name, given in objectives.items()}
        if len(specs) == 0:
            raise ValueError(
                "MultiObjective: at least one objective must be provided "
                "(as keyword arguments, by name).")
        self.objectives = specs
        self.strict = strict
        # The objectives (and `<name>_visualizations`, `<name>_render`)
        # whose skip was logged already.
        self._warned_objectives: set[str] = set()

    def _skipped(self, error: MissingInputError, name: str, what: str,
                 logged_as: str) -> None:
        """``error`` from objective ``name``: raised when strict, else
        logged (once per ``logged_as``)."""
        if self.strict:
            raise error
        if logged_as in self._warned_objectives:
            return
        self._warned_objectives.add(logged_as)
        logger.warning(
            f"{what} '{name}' skipped: its input is missing "
            f"({error.kind} '{error.key}' not found). "
            f"This warning will only be shown once.")

    def __call__(
        self, y_true: YTrue, y_pred: YPred, train: bool = True
    ) -> tuple[Float[TArray, "batch"], dict[str, Float[TArray, "batch"]]]:
        """The weighted sum of the objectives' losses, in their order,
        and all their metrics.

        Args:
            y_true: the whole ground truth.
            y_pred: the model's whole output.
            train: whether training; given to each objective.

        Returns:
            The loss and the metrics, each under ``<objective>/<metric>``.
        """
        loss: Any = 0.0
        metrics: dict[str, Any] = {}
        computed = 0
        for name, spec in self.objectives.items():
            try:
                part, part_metrics = spec.objective(
                    spec.index_y_true(y_true), spec.index_y_pred(y_pred),
                    train=train, **spec.index_aux(y_true))
            except MissingInputError as error:
                self._skipped(error, name, "Objective", name)
                continue
            loss += part * spec.weight
            computed += 1
            for metric, value in part_metrics.items():
                metrics[f"{name}/{metric}"] = value
        if computed == 0:
            raise RuntimeError(
                "No valid objectives were computed: every objective's "
                "input was missing (each is logged once). Check the "
                "pipeline's outputs against the objectives' y_true, y_pred "
                "and aux.")
        return cast(Float[TArray, "batch"], loss), metrics

    def visualizations(
        self, y_true: YTrue, y_pred: YPred
    ) -> dict[str, UInt8[np.ndarray, "H W 3"]]:
        """Every objective's images, each under ``<objective>/<name>``
        (an objective with a missing input skipped when not strict)."""
        images = {}
        for name, spec in self.objectives.items():
            try:
                drawn = spec.objective.visualizations(
                    spec.index_y_true(y_true), spec.index_y_pred(y_pred),
                    **spec.index_aux(y_true))
            except MissingInputError as error:
                self._skipped(error, name, "Visualizations for objective",
                              f"{name}_visualizations")
                continue
            for image, value in drawn.items():
                images[f"{name}/{image}"] = value
        return images

    def render(
        self, y_true: YTrue, y_pred: YPred, render_gt: bool = False
    ) -> dict[str, Shaped[np.ndarray, "batch ..."]]:
        """Every objective's rendered outputs, each under
        ``<objective>/<name>`` (an objective with a missing input skipped
        when not strict)."""
        rendered = {}
        for name, spec in self.objectives.items():
            try:
                outputs = spec.objective.render(
                    spec.index_y_true(y_true), spec.index_y_pred(y_pred),
                    render_gt=render_gt, **spec.index_aux(y_true))
            except MissingInputError as error:
                self._skipped(error, name, "Rendering for objective",
                              f"{name}_render")
                continue
            for output, value in outputs.items():
                rendered[f"{name}/{output}"] = value
        return rendered

    def children(self) -> Iterable[Any]:
        """The objectives (its children in a tree of components)."""
        for spec in self.objectives.values():
            yield spec.objective
