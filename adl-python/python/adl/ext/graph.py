"""A transform from a graph of nodes (``abstract_dataloader.ext.graph``
0.4.7).

A sample is a dict of named values; each [`Node`][.] is a callable that
reads some of them (its ``inputs``, and its ``optional`` inputs where they
are there) and writes its result under its ``output`` name(s). A
[`Transform`][.] runs every node once, each as soon as its inputs are
there, so the graph must be acyclic and connected to the sample's keys;
which order that is, and whether there is one, is found when it runs.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import wadler_lindig as wl

from adl import spec

__all__ = ["Node", "Transform"]


@dataclass
class Node:
    """One node of a graph transform, as a Hydra config gives it::

        rsp:
          inputs: {iq: radar, aug: aug}
          output: spectrum
          transform: {_target_: grt.transforms.Spectrum}

    Attributes:
        transform: what the node calls, with its inputs as keyword
            arguments.
        output: the key its result goes under, or the keys of the items of
            a result that is a sequence.
        inputs: the transform's argument names, each to the key of the
            data it takes.
        optional: as ``inputs``, for arguments given only where their key
            is in the data.
    """

    transform: Callable
    output: str | Sequence[str]
    inputs: Mapping[str, str] = field(default_factory=dict)
    optional: Mapping[str, str] = field(default_factory=dict)

    def apply(self, data: dict[str, Any], name: str = "") -> dict[str, Any]:
        """Run the node on ``data``, adding its output(s) to it.

        Args:
            data: the values so far, by key (updated in place).
            name: the node's name, for errors.

        Returns:
            ``data``, with the node's output(s).

        Raises:
            TypeError: the node has several outputs and its result is not a
                sequence.
            ValueError: the node has several outputs and its result has
                another number of items.
        """
        required = _values_for(self.inputs, data)
        present = _values_for(self.optional, data, only_present=True)
        result = self.transform(**(required | present))
        data.update(self._named_outputs(result, name))
        return data

    def _named_outputs(
        self, result: Any, name: str
    ) -> Iterable[tuple[str, Any]]:
        """``result`` as ``(key, value)`` pairs: under ``output`` for one
        output, else one item of the sequence per output key, checked to
        be a sequence of as many items (``name`` is the node's, for the
        errors)."""
        if isinstance(self.output, str):
            return [(self.output, result)]
        if not isinstance(result, Sequence):
            raise TypeError(
                f"Node '{name}' output is expected to be a sequence due to "
                f"output specification {self.output}: "
                f"\n{wl.pformat(result)}\n")
        expected = len(self.output)
        if len(result) != expected:
            raise ValueError(
                f"Node '{name}' output length mismatch: expected "
                f"{expected} outputs ({self.output}), but got "
                f"{len(result)} outputs:\n{wl.pformat(result)}\n")
        return zip(self.output, result)


def _values_for(
    wiring: Mapping[str, str], data: Mapping[str, Any],
    only_present: bool = False
) -> dict[str, Any]:
    """Each argument of ``wiring`` with the value in ``data`` of the key it
    is wired to (a missing key a ``KeyError``, or, with ``only_present``,
    left out)."""
    return {argument: data[key] for argument, key in wiring.items()
            if not only_present or key in data}


def _as_node(name: str, given: "Node | Mapping[str, Any]") -> Node:
    """``given`` as a [`Node`][^.]: itself, or a node of those arguments
    (a ``TypeError`` naming node ``name`` where they are not a node's)."""
    if isinstance(given, Node):
        return given
    try:
        return Node(**given)
    except TypeError as error:
        raise TypeError(
            f"Node '{name}' is not a valid Node specification: "
            f"{wl.pformat(given)}") from error


class Transform(spec.Transform[dict[str, Any], dict[str, Any]]):
    """A transform that runs a graph of [`Node`][^.]s over a dict sample.

    The nodes run in the order they are given wherever their inputs
    allow: each step runs the first node whose inputs are all there. A
    graph that cannot go on (a node's input is never made) is a
    ``ValueError`` naming what is there and what each remaining node
    needs.

    Args:
        outputs: the result's keys, each to the key of the value it takes;
            ``None`` returns every value.
        keep_all: keep every value to the end (and, with ``outputs``, return
            them beside the outputs), rather than dropping each as soon as
            no node and no output needs it.
        nodes: the nodes by name; a ``dict`` is a [`Node`][^.]'s arguments.
    """

    def __init__(
        self, outputs: Mapping[str, str] | None = None, keep_all: bool = False,
        **nodes: Node | dict[str, Any]
    ) -> None:
        self.outputs = outputs
        self.keep_all = keep_all
        self.nodes = {name: _as_node(name, given)
                      for name, given in nodes.items()}

    def _needed(self) -> set[str] | None:
        """The keys that must be kept while the graph runs: every node's
        inputs and every output's source (``None``: keep everything)."""
        if self.keep_all or self.outputs is None:
            return None
        needed = set(self.outputs.values())
        for node in self.nodes.values():
            needed.update(node.inputs.values())
        return needed

    def __call__(self, data: dict[str, Any]) -> dict[str, Any]:
        """Run every node on ``data``.

        Args:
            data: the input values, by key.

        Returns:
            The outputs (``{key: value}`` for ``outputs``), or every value.

        Raises:
            ValueError: some nodes cannot run, an input of each never made.
        """
        needed = self._needed()
        remaining = dict(self.nodes)
        while remaining:
            ready = next((name for name, node in remaining.items()
                          if all(key in data for key in node.inputs.values())),
                         None)
            if ready is None:
                wanted = {name: list(node.inputs.values())
                          for name, node in remaining.items()}
                raise ValueError(
                    f"There are {len(remaining)} nodes remaining, but all "
                    f"remaining nodes have at least one missing input.\n"
                    f"Current inputs: {list(data.keys())}\n"
                    f"Remaining stage requirements: {wl.pformat(wanted)}")
            data = remaining.pop(ready).apply(data, name=ready)
            if needed is not None:
                data = {key: value for key, value in data.items() if key in needed}
        if self.outputs is None:
            return data
        if self.keep_all:
            for key, source in self.outputs.items():
                data[key] = data[source]
            return data
        return {key: data[source] for key, source in self.outputs.items()}

    def children(self) -> Iterable[Any]:
        """Each node's transform (this one's children in a tree of
        components)."""
        for node in self.nodes.values():
            yield node.transform

    def __repr__(self) -> str:
        """The nodes' names."""
        return f"TransformGraph({', '.join(self.nodes.keys())})"
