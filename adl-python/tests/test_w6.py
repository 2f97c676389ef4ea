"""W6 (bench/W6.md): the plain loop over its Python transform gives the
digest the specification states, and adl.Loader gives it too, with its
threads and with worker processes (whole batches made in them)."""

import pathlib
import sys

PEER = pathlib.Path(__file__).resolve().parents[2] / "bench" / "peer"
sys.path.insert(0, str(PEER))

import w6  # noqa: E402  (bench/peer, on the path above; the workers inherit it)

import adl  # noqa: E402

DIGEST = "28f1e9054e8c50c0a2d60d1c801cc4dbd456ea86b83b4b9ad41bf655bb99b4c1"


def test_the_plain_loop_gives_the_specified_digest():
    assert w6.reference() == DIGEST
    assert DIGEST in (PEER.parent / "W6.md").read_text()


def test_adl_gives_it_with_threads_and_with_processes():
    dataset = w6.W6Dataset()
    for options in ({"workers": 2, "processes": False}, {"workers": 2, "processes": True}):
        loader = adl.Loader(dataset, batch_size=w6.BATCH, drop_last=True, **options)
        digest = w6.Digest()
        for batch in loader.epoch(0):
            digest.add(batch)
        assert digest.batches == len(dataset) // w6.BATCH
        assert digest.hex() == DIGEST, options
