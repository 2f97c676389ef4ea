"""Seed corpora for adl's fuzz targets, made from the repository's real files.

Run from the repository's root: python3 fuzz/make_seeds.py. Writes
fuzz/corpus/<target>/seed-*; each seed is what its target reads (its
settings bytes, then the file; see fuzz/src/targets.rs). The fuzzer's own
finds are merged into the same folders (docs/reliability.md).
"""

import ast
import io
import pathlib
import struct
import subprocess
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
TESTS = ROOT / "adl-files" / "tests" / "data"
RECORDING = ROOT / "examples" / "data" / "recording"
PX4 = ROOT / "tests" / "data" / "px4"
# Element types by the settings byte of the npy targets (targets.rs).
ELEMENTS = {"f4": 0, "f8": 1, "u1": 2, "i1": 3, "u2": 4, "i4": 5, "i8": 6, "u8": 7}


def seed(target, name, data):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"seed-{name}").write_bytes(data)


def npy_header(data):
    """(element type code, shape) of an .npy file's bytes."""
    length = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10 : 10 + length].decode("latin1"))
    return header["descr"][1:], header["shape"]


def npy_seeds():
    files = sorted(TESTS.glob("*.npy")) + sorted(RECORDING.glob("*/radar/*.npy"))
    for path in files:
        data = path.read_bytes()
        name = f"{path.parent.name}-{path.stem}" if path.parent != TESTS else path.stem
        try:
            code, shape = npy_header(data)
        except (ValueError, SyntaxError, KeyError, struct.error):
            code, shape = "f4", (1,)
        element = ELEMENTS.get(code, 0)
        rows = shape[0] if shape else 0
        seed("npy_rows", name, bytes([element, rows % 256]) + data)
        seed("npy_files", name, bytes([element]) + data)
        if path.name.startswith("ts") or "ts" in path.stem:
            seed("timestamps", name, b"\x00" + data)


def npz_seeds():
    for path in sorted(TESTS.glob("*.npz")):
        data = path.read_bytes()
        if not zipfile.is_zipfile(path):
            seed("npz", path.stem, b"\x00\x01" + data)
            continue
        with zipfile.ZipFile(path) as archive:
            for member in archive.infolist():
                inner = archive.read(member)
                code, shape = npy_header(inner)
                out = io.BytesIO()
                with zipfile.ZipFile(out, "w", member.compress_type) as renamed:
                    renamed.writestr("x.npy", inner)
                rows = shape[0] if shape else 0
                settings = bytes([ELEMENTS.get(code, 0), rows % 256])
                seed("npz", f"{path.stem}-{member.filename}", settings + out.getvalue())


def image_seeds():
    frames = sorted(TESTS.glob("**/*.jpg")) + sorted(TESTS.glob("**/*.png"))
    frames += sorted(RECORDING.glob("drive-1/camera/00000[0-2].jpg"))
    for i, path in enumerate(frames):
        # Layout, strictness and downscale factor vary across the seeds.
        options = [0b0000, 0b0011, 0b0100, 0b1010, 0b1101][i % 5]
        seed("images", f"{path.parent.name}-{path.stem}", bytes([options]) + path.read_bytes())


def video_seeds():
    # The test videos, whole (a few kB each): settings vary across them.
    videos = sorted((TESTS / "video").glob("*.mp4"))
    for i, path in enumerate(videos):
        options = [0b0000, 0b0101, 0b1010, 0b1100, 0b1111][i % 5]
        seed("video", path.stem, bytes([options]) + path.read_bytes())


def table_seeds():
    for path in sorted(RECORDING.glob("*/imu.csv")):
        seed("table", path.parent.name, path.read_bytes())
        # A shorter table, the same header.
        lines = path.read_bytes().splitlines(keepends=True)
        seed("table", f"{path.parent.name}-head", b"".join(lines[:6]))


def timestamp_seeds():
    for path in sorted(TESTS.glob("**/*ts*.txt")) + sorted(RECORDING.glob("*/camera/ts.txt")):
        seed("timestamps", f"{path.parent.name}-{path.stem}", b"\x01" + path.read_bytes())


def px4_seeds():
    # Prefixes of the real logs: the header, the definitions and the first
    # data (a whole log is 0.9 MB, slow to run thousands of times a second).
    for path in sorted(PX4.glob("*.ulg")):
        data = path.read_bytes()
        for size in (4 << 10, 16 << 10, 64 << 10):
            seed("px4", f"{path.stem}-{size >> 10}k", data[:size])


def ros_bag_seeds():
    # The test bags, whole (they are small): the settings byte says the
    # format, 0 an MCAP file, 1 a ROS 1 bag.
    bags = ROOT / "tests" / "data" / "ros"
    for path in sorted(bags.glob("*.mcap")):
        seed("ros_bag", path.stem + "-mcap", b"\x00" + path.read_bytes())
    for path in sorted(bags.glob("*.bag")):
        seed("ros_bag", path.stem + "-bag", b"\x01" + path.read_bytes())


def state_seeds():
    # States of the state target's loader, taken by the loader itself.
    subprocess.run(["cargo", "run", "-q", "-p", "adl-fuzz", "--example", "state_seeds"],
                   cwd=ROOT, check=True)


if __name__ == "__main__":
    npy_seeds()
    npz_seeds()
    image_seeds()
    video_seeds()
    table_seeds()
    timestamp_seeds()
    px4_seeds()
    ros_bag_seeds()
    state_seeds()
