"""What the differential tests share: an outcome is a call's result or the
exception it raised, and two outcomes agree when both raised the same
class, or both returned equal values (arrays compared element by element,
lists item by item)."""

import numpy as np


def outcome(thunk):
    """`thunk()`, or the exception it raised (its class is what is compared)."""
    try:
        return thunk()
    except Exception as error:
        return error


def same(ours, theirs):
    """adl's outcome agrees with the reference's."""
    if isinstance(theirs, Exception) or isinstance(ours, Exception):
        assert type(ours) is type(theirs), (ours, theirs)
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), (ours, theirs)
        for a, b in zip(ours, theirs):
            same(a, b)
    elif isinstance(theirs, np.ndarray):
        np.testing.assert_array_equal(ours, theirs)
    else:
        assert ours == theirs, (ours, theirs)
