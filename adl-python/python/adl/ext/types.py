"""Data types for samples and batches (``abstract_dataloader.ext.types``
0.4.7): dataclasses that optree sees as trees of arrays, generic over
the kind of array they hold.

Declare a type with [`dataclass`][.], generic over [`TArray`][.]::

    from typing import Generic
    from adl.ext import types

    @types.dataclass
    class Points(Generic[types.TArray]):
        xyz: types.TArray
        intensity: types.TArray

Its fields are then the leaves of ``optree.tree_map`` (in optree's global
namespace, so no ``namespace=`` argument is needed), which is how a
collate stacks a list of ``Points[np.ndarray]`` into one
``Points[torch.Tensor]``.
"""

from dataclasses import field
from typing import Any, Protocol, TypeVar, runtime_checkable

from optree.dataclasses import dataclass as _optree_dataclass
from typing_extensions import dataclass_transform

__all__ = ["ArrayLike", "TArray", "dataclass"]

# The class decorated.
_TClass = TypeVar("_TClass", bound=type)


@dataclass_transform(field_specifiers=(field,))
def dataclass(cls: _TClass) -> _TClass:  # noqa: D103
    """``cls`` as a dataclass registered as a node in optree's global
    namespace (``optree.dataclasses.dataclass(cls, namespace="")``): its
    fields are the children that ``optree.tree_map`` and friends visit."""
    # mypy reads optree's `dataclass` as the standard library's (which
    # optree's module re-exports, then redefines), without `namespace`:
    # optree's own calls of it ignore the same error.
    registered: _TClass = _optree_dataclass(cls, namespace="")  # type: ignore[call-overload]
    return registered


@runtime_checkable
class ArrayLike(Protocol):
    """An array of any library (``np.ndarray``, ``torch.Tensor``,
    ``jax.Array``): anything with a ``shape`` and a ``dtype``."""

    @property
    def shape(self) -> tuple[int, ...]:
        """The array's shape."""
        ...

    @property
    def dtype(self) -> Any:
        """The array's element type."""
        ...


TArray = TypeVar("TArray", bound=ArrayLike)
"""A type variable over [`ArrayLike`][^.] types, to make a data type
generic in its array type."""
