"""W4's camera step from Python: `adl.Loader` over W4's frames (a trace's
camera folder of `bench/peer/w4/generate.py`'s dataset) through an
`adl.Pipeline` of `RandomResizedCrop(224)`, 2 workers, batches of 32: the
frames decoded whole then cropped (`--mode decoded`, `files.Images`), or
only the crop decoded (`--mode encoded`, `files.Images(...).encoded()`;
in a build with libjpeg-turbo, `maturin develop --release --features
libjpeg-turbo`). One epoch; prints its frames/s.

    python bench/python/bench_crop_decode.py DATA/trace_00/camera --mode encoded
"""

import argparse
import time

import adl
from adl import files
from adl import transforms as T


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("camera")
    parser.add_argument("--mode", choices=["decoded", "encoded"], default="encoded")
    args = parser.parse_args()
    camera = files.Images(args.camera)
    if args.mode == "encoded":
        camera = camera.encoded()
    dataset = adl.Dataset([adl.Trace({"camera": camera}, name="camera")])
    pipeline = adl.Pipeline(sample={"camera": T.RandomResizedCrop(224)})
    loader = adl.Loader(dataset, pipeline, batch_size=32, shuffle=1, workers=2)
    began, seen = time.perf_counter(), 0
    for batch in loader.epoch(0):
        seen += len(batch["camera"])
    print(f"{args.mode}: {seen / (time.perf_counter() - began):.0f} frames/s")


if __name__ == "__main__":
    main()
