"""Release wheels of adl's Python packages, built from the sources as they
are and installed into the Python a benchmark runs: what bench/compare.py,
bench/rover/compare_rover.py and bench/lerobot/compare_lerobot.py measure
(never the debug build that the test command installs into
target/python-venv).

Each wheel is installed over what was there (same version, a new build),
then what it depends on (NumPy, jaxtyping, ...), so that a venv made for a
benchmark imports adl however its dependencies have grown.
"""

import glob
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def install(python, crates, wheels, features=(), maturin=None):
    """Build a release wheel of each of `crates` (folders of the workspace,
    each a maturin project, e.g. "adl-python") with `features` into
    `wheels` (emptied first), by the `maturin` of the Python `maturin`
    (default: `python`'s), and install them into `python`'s environment
    with what they depend on. The wheels' paths."""
    shutil.rmtree(wheels, ignore_errors=True)
    for crate in crates:
        print(f"release_wheels: building a release wheel of {crate}", file=sys.stderr)
        command = [maturin or python, "-m", "maturin", "build", "--release", "--auditwheel", "skip", "-q",
                   "-m", os.path.join(ROOT, crate, "Cargo.toml"), "-o", wheels]
        if features:
            command += ["--features", ",".join(features)]
        subprocess.run(command, check=True, cwd=ROOT)
    built = sorted(glob.glob(os.path.join(wheels, "*.whl")))
    if len(built) != len(crates):
        sys.exit(f"release_wheels: {len(crates)} crates built {len(built)} wheels into {wheels}: {built}")
    subprocess.run([python, "-m", "pip", "install", "-q", "--force-reinstall", "--no-deps", *built], check=True)
    subprocess.run([python, "-m", "pip", "install", "-q", *built], check=True)
    return built
