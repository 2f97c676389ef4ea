"""abstract-dataloader's own test suite, its import renamed, passes on adl
wherever it passes on abstract-dataloader 0.4.7.

The suite is in ``reference_suite/`` (the reference's ``tests/``, only
``abstract_dataloader`` renamed ``adl``; see its README). It runs twice,
each time in a fresh Python process as the reference's CI runs it (its
``beartype_package(...)`` has to come before the package's first import,
so beartype checks every annotated call inside the package): once as it
is, against adl, and once renamed back, against the installed reference.
Each test's outcome is read from pytest's JUnit XML report; every test
that passes on the reference must pass on adl, and a file that cannot be
collected on adl (a module missing) fails here under its own name.
"""

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

SUITE = Path(__file__).parent / "reference_suite"
FILES = sorted(path.name for path in SUITE.glob("test_*.py"))
# The reference's repository, where this machine has it: the vendored
# files are checked against it.
MIRROR = Path("/work/.mirror/RadarML+abstract-dataloader/repo")
MIRROR_COMMIT = "ad095c6c242e9ff01f1b45f37d8a2f35ee919c26"
COLLECTION = "<collection>"


def renamed_back(text: str) -> str:
    """A vendored file as the reference has it: ``adl`` named
    ``abstract_dataloader`` again."""
    return re.sub(r"\badl\b", "abstract_dataloader", text)


def outcomes(report: Path) -> dict[str, dict[str, str]]:
    """``{file: {test: outcome}}`` from a JUnit XML report (an outcome of
    ``failed`` or ``error`` followed by the report's text of it); a file
    that could not be collected has the one test ``<collection>``."""
    found: dict[str, dict[str, str]] = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        classname, name = case.get("classname", ""), case.get("name", "")
        if classname:
            file, test = classname.split(".")[-1] + ".py", name
        else:
            file, test = name.split(".")[-1].split("/")[-1], COLLECTION
            file = file if file.endswith(".py") else file + ".py"
        results = {child.tag: (child.text or child.get("message", "")) for child in case}
        if "error" in results:
            outcome = "error: " + results["error"][-2000:]
        elif "failure" in results:
            outcome = "failed: " + results["failure"][-2000:]
        elif "skipped" in results:
            outcome = "skipped"
        else:
            outcome = "passed"
        found.setdefault(file, {})[test] = outcome
    return found


def run_suite(folder: Path) -> dict[str, dict[str, str]]:
    """Run the test files in ``folder`` with pytest in a fresh process."""
    report = folder / "report.xml"
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "--continue-on-collection-errors", f"--junitxml={report}", str(folder)],
        cwd=folder, capture_output=True, text=True, timeout=900)
    assert report.exists(), (
        f"pytest wrote no report (exit {completed.returncode}):\n"
        f"{completed.stdout[-4000:]}\n{completed.stderr[-4000:]}")
    return outcomes(report)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The suite's outcomes on adl and on the reference."""
    ours = tmp_path_factory.mktemp("on_adl")
    theirs = tmp_path_factory.mktemp("on_reference")
    for name in FILES:
        shutil.copy(SUITE / name, ours / name)
        (theirs / name).write_text(renamed_back((SUITE / name).read_text()))
    return run_suite(ours), run_suite(theirs)


def test_the_suite_is_there():
    # The reference's eight test files, as of the commit vendored.
    assert FILES == [
        "test_augment.py", "test_composition.py", "test_dataloader.py",
        "test_ext_graph.py", "test_ext_torch.py", "test_objective.py",
        "test_sample.py", "test_sync.py",
    ]
    assert (SUITE / "LICENSE").read_text().startswith("MIT License")


@pytest.mark.skipif(not MIRROR.is_dir(), reason="the reference's repository is not on this machine")
def test_the_vendored_files_are_the_references_with_only_the_rename():
    listed = subprocess.run(
        ["git", "-C", str(MIRROR), "ls-tree", "--name-only", MIRROR_COMMIT, "tests/"],
        capture_output=True, text=True, check=True).stdout.split()
    assert sorted(Path(path).name for path in listed) == FILES
    for name in FILES:
        original = subprocess.run(
            ["git", "-C", str(MIRROR), "show", f"{MIRROR_COMMIT}:tests/{name}"],
            capture_output=True, text=True, check=True).stdout
        vendored = (SUITE / name).read_text()
        assert "abstract_dataloader" not in vendored, name
        assert renamed_back(vendored) == original, name
        assert vendored == re.sub(r"\babstract_dataloader\b", "adl", original), name
    license_text = subprocess.run(
        ["git", "-C", str(MIRROR), "show", f"{MIRROR_COMMIT}:LICENSE"],
        capture_output=True, text=True, check=True).stdout
    assert (SUITE / "LICENSE").read_text() == license_text


@pytest.mark.parametrize("name", FILES)
def test_what_passes_on_the_reference_passes_on_adl(runs, name):
    ours, theirs = runs
    reference = theirs.get(name, {})
    assert reference, f"{name}: the reference's run has no outcome for it"
    passed_there = sorted(test for test, outcome in reference.items() if outcome == "passed")
    mine = ours.get(name, {})
    assert COLLECTION not in mine, (
        f"{name} cannot be imported on adl, so its {len(passed_there)} tests "
        f"that pass on the reference do not run: {passed_there}\n{mine[COLLECTION]}")
    failing = {test: mine.get(test, "not run") for test in passed_there if mine.get(test) != "passed"}
    assert not failing, f"{name}: passes on abstract-dataloader 0.4.7, not on adl: {failing}"
