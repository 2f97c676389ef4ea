"""Write (or check) interpolation.json: reference vectors for adl's
`Interpolated` sensor, from NumPy's `interp` (numbers, vectors) and SciPy's
`Slerp` (rotations), on random inputs.

    python interpolation.py            # write interpolation.json beside this file
    python interpolation.py --check    # recompute and compare with the file

Each case has the sensor's times `xp` and values `fp`, the times `x` it is
evaluated at, `max_gap`, and what the reference gives: `value` at every `x`
(NumPy's `interp`, or SciPy's `Slerp` as `[x, y, z, w]` where it is defined)
and `valid`, whether `x` has an interpolation under adl's rule (on a sample,
or inside the samples' span in a gap no longer than `max_gap`; never
extrapolated). Where `valid` is false adl holds the nearest sample, which
`nearest` names (the earlier one at an exact midpoint).
"""

import json
import sys
from pathlib import Path

import numpy as np
from scipy.spatial.transform import Rotation, Slerp

HERE = Path(__file__).resolve().parent
OUT = HERE / "interpolation.json"


def rule(xp, x, max_gap):
    """adl's rule: (valid, nearest sample) for each of x."""
    valid, nearest = [], []
    for t in x:
        if t < xp[0]:
            valid.append(False)
            nearest.append(0)
            continue
        if t > xp[-1]:
            valid.append(False)
            nearest.append(len(xp) - 1)
            continue
        on = np.nonzero(xp == t)[0]
        if len(on):
            valid.append(True)
            nearest.append(int(on[0]))
            continue
        k = int(np.searchsorted(xp, t, side="right")) - 1
        a, b = xp[k], xp[k + 1]
        valid.append(bool(b - a <= max_gap))
        nearest.append(k if t - a <= b - t else k + 1)
    return valid, nearest


def times(rng, n):
    """n distinct sorted times, at an irregular rate."""
    steps = rng.exponential(0.05, size=n) + 1e-3
    return np.cumsum(steps) + rng.uniform(-10, 10)


def queries(rng, xp, m):
    """m sorted times around xp's span, some on its samples."""
    span = xp[-1] - xp[0]
    x = rng.uniform(xp[0] - 0.1 * span, xp[-1] + 0.1 * span, size=m)
    on = rng.choice(len(xp), size=min(3, len(xp), m), replace=False)
    x[: len(on)] = xp[on]
    return np.sort(x)


def linear_cases(rng):
    cases = []
    for case in range(60):
        n = int(rng.integers(2, 40))
        xp = times(rng, n)
        width = [1, 1, 3, 6][case % 4]
        fp = rng.normal(0, 100, size=(n, width))
        x = queries(rng, xp, int(rng.integers(1, 50)))
        max_gap = float(np.inf) if case % 5 == 0 else float(rng.uniform(0.02, 0.2))
        value = np.stack([np.interp(x, xp, fp[:, c]) for c in range(width)], axis=1)
        valid, nearest = rule(xp, x, max_gap)
        cases.append(
            {
                "id": f"linear-{case}",
                "xp": xp.tolist(),
                "fp": fp.tolist(),
                "x": x.tolist(),
                "max_gap": "inf" if np.isinf(max_gap) else max_gap,
                "value": value.tolist(),
                "valid": valid,
                "nearest": nearest,
            }
        )
    return cases


def slerp_cases(rng):
    cases = []
    for case in range(40):
        n = int(rng.integers(2, 20))
        xp = times(rng, n)
        rotations = Rotation.random(n, random_state=rng)
        if case % 3 == 0:
            # Neighbours far apart on the sphere, and a sign flipped: the
            # shorter arc is still the one taken.
            rotations = Rotation.from_rotvec(rng.normal(0, 2.5, size=(n, 3)))
        quats = rotations.as_quat()  # x, y, z, w
        flip = rng.random(n) < 0.3
        quats[flip] *= -1
        x = queries(rng, xp, int(rng.integers(1, 30)))
        inside = (x >= xp[0]) & (x <= xp[-1])
        slerp = Slerp(xp, Rotation.from_quat(quats))
        value = [None] * len(x)
        for i, q in zip(np.nonzero(inside)[0], slerp(x[inside]).as_quat()):
            value[int(i)] = q.tolist()
        valid, nearest = rule(xp, x, float(np.inf))
        cases.append(
            {
                "id": f"slerp-{case}",
                "xp": xp.tolist(),
                "fp": quats.tolist(),
                "x": x.tolist(),
                "max_gap": "inf",
                "value": value,
                "valid": valid,
                "nearest": nearest,
            }
        )
    return cases


def build():
    rng = np.random.default_rng(20261128)
    return {
        "about": "NumPy interp and SciPy Slerp on random inputs: see interpolation.py",
        "numpy": np.__version__,
        "scipy": __import__("scipy").__version__,
        "linear": linear_cases(rng),
        "slerp": slerp_cases(rng),
    }


def close(a, b, path="cases"):
    """Whether two JSON values agree (floats to 1e-9, relative)."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(
            close(a[k], b[k], f"{path}.{k}") for k in a if k not in ("numpy", "scipy")
        )
    if isinstance(a, list):
        return len(a) == len(b) and all(close(x, y, path) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    return a == b


def main():
    fresh = build()
    if "--check" in sys.argv:
        kept = json.loads(OUT.read_text())
        if not close(fresh, kept):
            sys.exit(f"{OUT}: differs from what NumPy {np.__version__} and SciPy compute now")
        print(f"{OUT.name}: {len(kept['linear'])} linear and {len(kept['slerp'])} slerp cases agree")
        return
    OUT.write_text(json.dumps(fresh, indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
