"""Every Python name the project's Markdown gives in backticks
(``adl.Loader``, ``adl.files.Video.frames``, ``adl.ext.{types, sample}``)
is there to import: a doc that names a class, module or method that was
renamed or removed fails here under the file and line that names it.

The Rust paths the same Markdown names are checked against rustdoc's
output by ``cargo xtask docs`` (a check before a change lands; see
docs/layout.md).
"""

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The Markdown that users read: the README, docs/, each folder's README
# (test data and build output left out).
DOCS = sorted(
    path
    for path in ROOT.rglob("*.md")
    if not {"target", "data", "corpus", ".git", "node_modules"} & set(path.relative_to(ROOT).parts)
)

# `adl.a.b` with, optionally, a brace list of names under it:
# `adl.ext.{types, sample, graph}` (which may run over a line break).
NAME = re.compile(r"`adl((?:\.[A-Za-z_]\w*)+)(?:\.\{([^}`]*)\})?")


def documented_names():
    """(file:line, dotted name) for each name in a code span."""
    found = {}
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for match in NAME.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            where = f"{path.relative_to(ROOT)}:{line}"
            base = "adl" + match.group(1)
            names = [base]
            if match.group(2):
                names = [f"{base}.{part.strip()}" for part in match.group(2).split(",") if part.strip()]
            for name in names:
                found.setdefault(name, where)
    return sorted((where, name) for name, where in found.items())


def resolve(name):
    """The object a dotted name reaches: the longest prefix that imports
    as a module, then attributes."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ImportError as error:
            # A module that is there but needs an optional package (torch,
            # lightning) is not a missing name.
            if error.name and not error.name.startswith("adl"):
                pytest.skip(f"{name} needs {error.name}")
            continue
        for attribute in parts[cut:]:
            value = getattr(value, attribute)
        return value
    raise ImportError(name)


def test_the_docs_name_python_objects():
    assert len(documented_names()) > 20, "the pattern finds the docs' names"


@pytest.mark.parametrize(("where", "name"), documented_names())
def test_a_documented_name_exists(where, name):
    try:
        resolve(name)
    except (ImportError, AttributeError) as error:
        pytest.fail(f"{where} names `{name}`, which is not there: {error}")


def test_a_missing_name_is_reported():
    with pytest.raises(AttributeError):
        resolve("adl.files.NoSuchReader")
    with pytest.raises(AttributeError):
        resolve("adl.Loader.no_such_method")
