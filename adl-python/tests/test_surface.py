"""Every public name of every module of abstract-dataloader 0.4.7 is in
adl's module of the same name (``abstract_dataloader`` renamed ``adl``),
of the same kind and with the same signature, so that code written for the
reference runs on adl after the rename; found by walking the reference's
modules, so a name the reference has and adl lacks (or one whose
signature drifts) fails here under its own name.

A module's public names: its ``__all__``, and every attribute without a
leading underscore that the package itself defines (classes, functions,
type variables, the package's modules it imports), not what it imports
from elsewhere (``np``, ``ABC``). For each:

- a class: its constructor's signature, its type parameters (names,
  variance, bounds), its reference bases among adl's bases (renamed), and
  each public method, property and dunder the reference's class defines
  in the package, with the same signature and kind;
- a function: its signature;
- a type variable: its name, variance and bound;
- a module: adl's is the renamed one.

Signatures are compared as a caller written for the reference sees
them: the same parameters (names, kinds, defaults) in the same order,
where adl may add keyword-only parameters with defaults; each parameter's
annotation the same (as text, ``abstract_dataloader`` renamed ``adl``) or
one that admits all the reference's does (beartype's ``is_subhint``:
under ``beartype_package`` every call the reference's checks let through
passes adl's); the return annotation the same or narrower.
"""

import importlib
import inspect
import pkgutil
import types
import typing
from functools import cached_property

import abstract_dataloader
import pytest
from beartype.door import is_subhint

REFERENCE = "abstract_dataloader"
# Dunders a class of the package defines that are part of what it does.
DUNDERS = {"__init__", "__call__", "__getitem__", "__len__", "__iter__", "__post_init__"}


def renamed(text: str) -> str:
    """A name or a signature's text, with the package renamed."""
    return text.replace(REFERENCE, "adl")


def reference_modules() -> list[str]:
    """Every module of the reference: the package and its submodules."""
    names = [REFERENCE]
    for module in pkgutil.walk_packages(abstract_dataloader.__path__, REFERENCE + "."):
        names.append(module.name)
    return sorted(names)


def defined_in_package(value) -> bool:
    """Whether the reference's package defines ``value`` (rather than
    importing it from elsewhere)."""
    if isinstance(value, types.ModuleType):
        return value.__name__.startswith(REFERENCE)
    module = getattr(value, "__module__", None)
    return isinstance(module, str) and module.startswith(REFERENCE)


def public_names(module) -> list[str]:
    """A module's public names, as the module docstring says."""
    names = set(getattr(module, "__all__", ()))
    for name, value in vars(module).items():
        if not name.startswith("_") and defined_in_package(value):
            names.add(name)
    return sorted(names)


def signature_text(callable_) -> str:
    """``callable_``'s signature as text, renamed; or why there is none."""
    try:
        return renamed(str(inspect.signature(callable_)))
    except (TypeError, ValueError) as error:
        return f"<no signature: {type(error).__name__}>"


def annotation_text(annotation) -> str:
    return renamed(inspect.formatannotation(annotation))


def admits_all_of(wider, narrower) -> bool:
    """Whether every value the annotation ``narrower`` admits, ``wider``
    admits too (no annotation admits anything): the same annotation
    (renamed), or one that beartype finds wider."""
    if annotation_text(wider) == annotation_text(narrower):
        return True
    empty = inspect.Parameter.empty
    try:
        return is_subhint(typing.Any if narrower is empty else narrower,
                          typing.Any if wider is empty else wider)
    except Exception:
        return False


def signature_differences(reference, ours) -> list[str]:
    """How a call written for ``reference`` fares on ``ours``: the same
    parameters (names, kinds, defaults) in the same order, except
    keyword-only parameters with defaults that adl adds; each parameter's
    annotation on adl's admitting all that the reference's admits; adl's
    return annotation admitted by the reference's."""
    try:
        theirs = inspect.signature(reference)
        mine = inspect.signature(ours)
    except (TypeError, ValueError):
        text = signature_text(reference), signature_text(ours)
        return [] if text[0] == text[1] else [f"{text[0]} against {text[1]}"]
    kept = [parameter for name, parameter in mine.parameters.items()
            if name in theirs.parameters or not (
                parameter.kind is inspect.Parameter.KEYWORD_ONLY
                and parameter.default is not inspect.Parameter.empty)]
    found = []
    if [(p.name, p.kind, renamed(repr(p.default))) for p in theirs.parameters.values()] != [
            (p.name, p.kind, renamed(repr(p.default))) for p in kept]:
        found.append("the parameters (names, kinds, defaults) differ")
    for parameter in kept:
        if parameter.name in theirs.parameters:
            expected = theirs.parameters[parameter.name].annotation
            if not admits_all_of(parameter.annotation, expected):
                found.append(f"`{parameter.name}: {annotation_text(parameter.annotation)}` "
                             f"does not take all of `{annotation_text(expected)}`")
    if not admits_all_of(theirs.return_annotation, mine.return_annotation):
        found.append(f"returns `{annotation_text(mine.return_annotation)}`, "
                     f"beyond `{annotation_text(theirs.return_annotation)}`")
    return found


def type_variable(value) -> tuple:
    """What matters of a type variable: name, variance, bound."""
    return (
        value.__name__,
        getattr(value, "__covariant__", False),
        getattr(value, "__contravariant__", False),
        getattr(value, "__infer_variance__", False),
        renamed(repr(value.__bound__)) if value.__bound__ is not None else None,
    )


def class_members(cls) -> dict[str, object]:
    """The public methods, properties and dunders that the reference's
    package defines on ``cls`` (its own, or inherited from a class of
    the package), by name, as stored on the class that defines them."""
    members = {}
    for klass in reversed(cls.__mro__):
        if not (klass.__module__ or "").startswith(REFERENCE):
            continue
        for name, value in vars(klass).items():
            if name.startswith("_") and name not in DUNDERS:
                continue
            if callable(value) or isinstance(value, (property, cached_property, classmethod, staticmethod)):
                members[name] = value
    return members


def member_kind(value) -> str:
    for kind in (property, cached_property, classmethod, staticmethod):
        if isinstance(value, kind):
            return kind.__name__
    return "method"


def _no_parameters():
    """What a class without an ``__init__`` of its own is called with."""


def without_protocol_init(value):
    """``value``, or ``object.__init__``'s equal for typing's placeholder
    ``__init__`` of a protocol's subclass (which replaces itself by
    ``object.__init__`` at the class's first instance: either one is a
    class without an ``__init__`` of its own, whether or not it was made
    yet)."""
    if getattr(value, "__name__", "") == "_no_init_or_replace_init" or value is object.__init__:
        return object.__init__
    return value


def constructor(cls):
    """What ``cls`` is called as: itself, or a callable of no parameters
    when its ``__init__`` is ``object``'s or typing's placeholder."""
    if without_protocol_init(cls.__init__) is object.__init__ and cls.__new__ is object.__new__:
        return _no_parameters
    return cls


def member_function(value):
    """The function behind a method, property or cached property."""
    if isinstance(value, property):
        return value.fget
    if isinstance(value, cached_property):
        return value.func
    if isinstance(value, (classmethod, staticmethod)):
        return value.__func__
    return without_protocol_init(value)


def stored_member(cls, name):
    """``name`` on ``cls`` as stored on the first class of its MRO that has
    it (a property as a property, not its value)."""
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    raise AttributeError(f"{cls.__qualname__} has no {name}")


def differences(reference, ours, where: str) -> list[str]:
    """How ``ours`` (adl's) differs from ``reference`` for the public name
    ``where``: empty when it does not."""
    found = []
    if isinstance(reference, types.ModuleType):
        if not isinstance(ours, types.ModuleType) or ours.__name__ != renamed(reference.__name__):
            found.append(f"{where}: the module {renamed(reference.__name__)}, not {ours!r}")
        return found
    if isinstance(reference, typing.TypeVar) or type(reference).__name__ == "TypeVar":
        if type(ours).__name__ != "TypeVar":
            return [f"{where}: a type variable, not {ours!r}"]
        if type_variable(reference) != type_variable(ours):
            found.append(f"{where}: type variable {type_variable(reference)}, adl's {type_variable(ours)}")
        return found
    if inspect.isclass(reference):
        if not inspect.isclass(ours):
            return [f"{where}: a class, not {ours!r}"]
        for line in signature_differences(constructor(reference), constructor(ours)):
            found.append(f"{where}(): {line}")
        theirs_parameters = [type_variable(p) for p in getattr(reference, "__parameters__", ())]
        our_parameters = [type_variable(p) for p in getattr(ours, "__parameters__", ())]
        if theirs_parameters != our_parameters:
            found.append(f"{where}: type parameters {theirs_parameters}, adl's {our_parameters}")
        our_bases = {renamed(f"{k.__module__}.{k.__qualname__}") for k in ours.__mro__}
        for base in reference.__mro__:
            if (base.__module__ or "").startswith(REFERENCE):
                name = renamed(f"{base.__module__}.{base.__qualname__}")
                if name not in our_bases:
                    found.append(f"{where}: a subclass of {name}, adl's is not")
        for name, value in class_members(reference).items():
            try:
                mine = stored_member(ours, name)
            except AttributeError:
                found.append(f"{where}.{name}: missing")
                continue
            if member_kind(value) != member_kind(mine):
                found.append(f"{where}.{name}: a {member_kind(value)}, adl's a {member_kind(mine)}")
            else:
                for line in signature_differences(member_function(value), member_function(mine)):
                    found.append(f"{where}.{name}: {line}")
        return found
    if callable(reference):
        if not callable(ours):
            return [f"{where}: callable, not {ours!r}"]
        for line in signature_differences(reference, ours):
            found.append(f"{where}: {line}")
        return found
    if reference != ours:
        found.append(f"{where} = {reference!r}, adl's {ours!r}")
    return found


MODULES = reference_modules()

# Differences adl makes on purpose, by the reference's module, each with
# why; each must still be found (an entry whose difference is gone is
# removed, so the list cannot hide new drift).
ALLOWED = {
    # engine="adl" (keyword-only, opt-in; the default is PyTorch's
    # DataLoader, as the reference's) gives adl.Loader's epochs instead.
    "abstract_dataloader.ext.lightning": {
        f"adl.ext.lightning.ADLDataModule.{method}: returns "
        "`torch.utils.data.dataloader.DataLoader | adl.ext.lightning.LoaderEpochs`, "
        "beyond `torch.utils.data.dataloader.DataLoader`"
        for method in ("dataloader", "train_dataloader", "val_dataloader", "test_dataloader")
    },
}


def test_the_walk_finds_the_references_modules():
    # The walk is what makes this test catch drift: it must see them all.
    assert {"abstract_dataloader.abstract", "abstract_dataloader.spec",
            "abstract_dataloader.generic.sync", "abstract_dataloader.ext.types",
            "abstract_dataloader.ext.torch"} <= set(MODULES)
    assert "Synchronization" in public_names(importlib.import_module("abstract_dataloader.abstract"))
    assert "TArray" in public_names(importlib.import_module("abstract_dataloader.ext.types"))
    assert "np" not in public_names(importlib.import_module("abstract_dataloader.abstract"))


def test_the_comparison_sees_a_difference():
    # Two classes that differ in a default, a method and a base.
    class Base:
        pass

    class Reference(Base):
        __module__ = "abstract_dataloader.fake"

        def __init__(self, a, b=1):
            pass

        def helper(self):
            pass

    class Ours:
        def __init__(self, a, b=2):
            pass

    Base.__module__ = "abstract_dataloader.fake"
    found = differences(Reference, Ours, "fake.Reference")
    assert any("parameters (names, kinds, defaults) differ" in line for line in found)
    assert any("helper: missing" in line for line in found)
    assert any("a subclass of" in line for line in found)

    # Annotations: adl's may take more and return less, not the reverse.
    def theirs(x: dict, *, y: int = 0) -> object: ...
    def wider(x: typing.Mapping, *, y: int = 0, z: int = 1) -> int: ...
    def narrower(x: dict[str, int], *, y: int = 0) -> object: ...
    def returns_more(x: dict, *, y: int = 0) -> int | str: ...
    def positional_extra(x: dict, w: int = 0, *, y: int = 0) -> object: ...

    def theirs_int(x: dict, *, y: int = 0) -> int: ...
    assert signature_differences(theirs, wider) == []
    assert "does not take all of" in signature_differences(theirs, narrower)[0]
    assert "beyond" in signature_differences(theirs_int, returns_more)[0]
    assert signature_differences(theirs, positional_extra) == [
        "the parameters (names, kinds, defaults) differ"]


@pytest.mark.parametrize("module_name", MODULES)
def test_every_public_name_is_in_adl_with_its_signature(module_name):
    try:
        reference = importlib.import_module(module_name)
    except ImportError as error:
        pytest.skip(f"the reference's {module_name} does not import here: {error}")
    ours = importlib.import_module(renamed(module_name))
    found = []
    for name in public_names(reference):
        value = getattr(reference, name)
        if isinstance(value, types.ModuleType):
            # A submodule is an attribute of its package once imported.
            try:
                importlib.import_module(renamed(value.__name__))
            except ImportError as error:
                found.append(f"{renamed(value.__name__)}: does not import: {error}")
                continue
        if not hasattr(ours, name):
            found.append(f"{renamed(module_name)}.{name}: missing")
            continue
        found.extend(differences(value, getattr(ours, name),
                                 f"{renamed(module_name)}.{name}"))
    allowed = ALLOWED.get(module_name, set())
    assert allowed <= set(found), f"allowed but no longer found: {allowed - set(found)}"
    unexpected = [line for line in found if line not in allowed]
    assert not unexpected, "\n".join(unexpected)
