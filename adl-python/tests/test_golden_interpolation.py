"""The interpolation vectors the Rust suite checks `Interpolated` against
(tests/golden/interpolation.json) are what NumPy's `interp` and SciPy's
`Slerp` compute: their generator, rerun here with the installed packages,
must reproduce the committed file."""

import subprocess
import sys
from pathlib import Path

GENERATOR = Path(__file__).resolve().parents[2] / "tests" / "golden" / "interpolation.py"


def test_the_committed_vectors_are_numpys_and_scipys() -> None:
    done = subprocess.run(
        [sys.executable, str(GENERATOR), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "60 linear and 40 slerp cases agree" in done.stdout
