"""The package's types, as a type checker sees the installed ``adl``.

- ``adl/_native.pyi`` describes the built extension: mypy's ``stubtest``
  compares every class, method, property and signature of ``adl._native``
  with the stub, so a change in the Rust that the stub does not follow
  fails here (``stubtest_allowlist.txt`` names what it cannot judge).
- The installed package is typed (PEP 561): ``py.typed`` in it and the stub
  beside the module.
- A typed program over the public API (``adl.Loader``, ``adl.Trace``,
  ``adl.default_collate``, ``adl.generic.Nearest``, a sensor of adl's and
  one of the user's, each where a ``spec.Sensor`` is expected) passes
  ``mypy --strict``, and the mistakes of another are each the error
  expected on their line: the types are there, not ``Any``.
- The package itself passes ``mypy --strict`` but for bare generics
  (``--allow-any-generics``): those are the reference's own annotations
  (``Mapping[str, spec.Sensor]``, ``bound=spec.Trace``, ``-> DataLoader``),
  kept as written for tests/test_surface.py, which compares them with
  abstract_dataloader 0.4.7's; to mypy a bare generic's arguments are
  ``Any`` either way.

mypy is a test requirement (the ``test`` extra; xtask's venv).
"""

import importlib.resources
import re
import subprocess
import sys
from pathlib import Path

import mypy  # noqa: F401 (a test requirement: a clear error where it is missing)

import adl._native

ALLOWLIST = Path(__file__).with_name("stubtest_allowlist.txt")

# A user's program: every line must type-check under --strict.
USES = '''
"""adl's public API as a typed program uses it."""

from typing import Any

import numpy as np
from numpy.typing import NDArray

import adl
from adl import abstract, generic, spec, transforms
from adl.files import Npy


def first_time(sensor: spec.Sensor[Any, spec.Metadata]) -> float:
    """A function of the specification's sensor, adl's or anyone's."""
    return float(sensor.metadata.timestamps[0])


class Ramp(abstract.Sensor[NDArray[np.float64], generic.Metadata]):
    """A user's sensor: sample i is [i]."""

    def __getitem__(self, index: int | np.integer[Any]) -> NDArray[np.float64]:
        return np.array([float(index)])


def loader(folder: str, timestamps: NDArray[np.float64]) -> adl.Loader:
    imu = Npy(f"{folder}/imu.npy", timestamps, name="imu")
    row: NDArray[Any] = imu[0]
    shape: list[int] = imu.sample_shape
    stamps: NDArray[np.float64] = imu.metadata.timestamps
    ramp = Ramp(generic.Metadata(stamps), name="ramp")
    start: float = first_time(imu) + first_time(ramp)
    trace = adl.Trace(
        {"imu": imu, "ramp": ramp},
        sync=generic.Nearest("imu", tol=0.05),
        name="drive",
    )
    sample: dict[str, Any] = trace[0]
    dataset = adl.Dataset([trace])
    ends: NDArray[np.int64] = dataset.indices
    batch: Any = adl.default_collate([dataset[0], dataset[1]])
    del row, shape, start, sample, ends, batch
    return adl.Loader(dataset, batch_size=8, shuffle=1, on_error="skip")


def images(folder: str) -> adl.Loader:
    pipeline = adl.Pipeline(
        sample={"camera": [transforms.RandomResizedCrop(224), transforms.RandomFlip()]},
        batch={"camera": transforms.ToFloat()},
    )
    camera = adl.files.Images(folder, layout="chw", downscale=2)
    frame: NDArray[np.uint8] = camera[0]
    del frame
    return adl.Loader(adl.Trace({"camera": camera}), pipeline, workers=2)


def first_epoch(loader: adl.Loader) -> int:
    epoch = loader.epoch(0)
    skipped: list[tuple[int, str]] = epoch.skipped()
    state = loader.state_dict()
    loader.load_state_dict(state)
    return len(epoch) + len(skipped) + state["epoch"]
'''

# Mistakes: each marked line must be exactly the error its marker names.
MISUSES = '''
from typing import Any

import adl
from adl import generic, spec, transforms


def first_time(sensor: spec.Sensor[Any, spec.Metadata]) -> float:
    return float(sensor.metadata.timestamps[0])


adl.Loader([], batch_size="8")  # expect: arg-type
adl.Loader([], on_error="ignore")  # expect: arg-type
adl.Loader([], pipeline=3)  # expect: arg-type
generic.Nearest("imu", tol="0.1")  # expect: arg-type
adl.Trace({}, name=3)  # expect: arg-type
count: str = len(adl.Dataset([]))  # expect: assignment
layout: int = transforms.RandomFlip().stage  # expect: assignment
adl.files.Images("frames", layout="whc")  # expect: arg-type
adl.default_collate()  # expect: call-arg
first_time(adl.Dataset([]))  # expect: arg-type
'''

ERROR = re.compile(r"^(?P<file>[\w.]+):(?P<line>\d+): error: .*\[(?P<code>[\w-]+)\]$")


def test_stub_matches_the_built_extension(tmp_path: Path) -> None:
    # From a folder of its own: the installed adl, and mypy's files there.
    run = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "adl._native", "--allowlist", str(ALLOWLIST)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, (
        "adl/_native.pyi does not match the extension built from adl-python/src; "
        "change the stub where the Rust changed:\n" + run.stdout + run.stderr
    )


def test_installed_package_is_typed() -> None:
    package = importlib.resources.files("adl")
    assert package.joinpath("py.typed").is_file(), f"no py.typed in {package}"
    stub = Path(adl._native.__file__).with_name("_native.pyi")
    assert stub.is_file(), f"no stub beside {adl._native.__file__}"


def test_strict_mypy_on_the_package(tmp_path: Path) -> None:
    # The installed package, from a folder of its own.
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--allow-any-generics", "--no-color-output",
         "--cache-dir", str(tmp_path / "cache"), "-p", "adl"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, "adl fails mypy --strict:\n" + run.stdout + run.stderr


def test_strict_mypy_on_the_public_api(tmp_path: Path) -> None:
    (tmp_path / "uses_adl.py").write_text(USES)
    (tmp_path / "misuses_adl.py").write_text(MISUSES)
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-color-output", "--no-error-summary",
         "--cache-dir", str(tmp_path / "cache"), "uses_adl.py", "misuses_adl.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    found: dict[str, set[tuple[int, str]]] = {"uses_adl.py": set(), "misuses_adl.py": set()}
    for line in run.stdout.splitlines():
        error = ERROR.match(line)
        if error:
            found.setdefault(error["file"], set()).add((int(error["line"]), error["code"]))
    expected = {
        (number, marker.split("# expect: ")[1])
        for number, marker in enumerate(MISUSES.splitlines(), start=1)
        if "# expect: " in marker
    }
    assert found["uses_adl.py"] == set(), "a typed program over adl fails mypy --strict:\n" + run.stdout
    assert found["misuses_adl.py"] == expected, (
        "mypy --strict did not reject exactly the mistakes marked:\n" + run.stdout + run.stderr
    )
    assert set(found) == {"uses_adl.py", "misuses_adl.py"}, run.stdout + run.stderr
