"""Writes the image fixtures of adl-files' tests with Pillow (13.0.0, on
libjpeg-turbo 3.2.0, when they were made), and the pixels Pillow decodes
from them, so that the tests compare adl's decoding with Pillow's.

    python3 make_images.py   # in this folder, with numpy and pillow installed

- camera/: four 32x24 JPEG frames (quality 90, Pillow's default 4:2:0
  chroma subsampling) named frame_1, frame_2, frame_9, frame_10 (so that
  their natural order is not their lexical one), and ts.txt.
- camera_pillow.npy: uint8 [4, 24, 32, 3], Pillow's decode of the frames in
  their natural order (Image.convert("RGB")).
- png/: seven 20x14 PNG frames f0..f6, one per kind of PNG: RGB, grayscale,
  RGBA, palette, grayscale with alpha, 16-bit RGB (written by hand below:
  Pillow writes no 16-bit RGB), 16-bit grayscale; and ts.txt.
- png_expected.npy: uint8 [7, 14, 20, 3], what adl gives for them: gray
  repeated over R, G and B, alpha dropped, 16-bit samples reduced to their
  high byte.
- corrupt.jpg: frame_9.jpg cut in the middle of its entropy-coded data.
- gray.jpg, gray_pillow.npy: a 32x24 grayscale JPEG and Pillow's decode
  of it (uint8 [24, 32]).
- resize_pillow.npy: uint8 [3, 12, 12, 3], regions of camera_pillow.npy[0]
  cropped and resized to 12x12 by Pillow (BILINEAR, antialiased): the
  whole frame; rows 2..19, columns 3..23; rows 5..11, columns 4..9.
"""
import os
import struct
import zlib

import numpy as np
from PIL import Image


def rgb_frame(k, height, width):
    """A smooth gradient, a moving bright square and a saturated stripe."""
    y, x = np.mgrid[0:height, 0:width]
    r = (x * 255 // (width - 1) + 20 * k) % 256
    g = y * 255 // (height - 1)
    b = (128 + 100 * np.sin((x + y + 3 * k) / 4.0)).astype(np.int64)
    image = np.stack([r, g, b], axis=-1).astype(np.uint8)
    top, left = 4 + k, 6 + 3 * k
    image[top : top + 6, left : left + 6] = [250, 250, 40]
    image[:, width - 5 : width - 3] = [200, 0, 30]
    return image


def write_png16(path, values):
    """A 16-bit PNG of `values` (uint16, [H, W, 3] RGB or [H, W] gray)."""
    height, width = values.shape[:2]
    color = 2 if values.ndim == 3 else 0
    rows = values.reshape(height, -1).astype(">u2").tobytes()
    stride = len(rows) // height
    raw = b"".join(b"\x00" + rows[i * stride : (i + 1) * stride] for i in range(height))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 16, color, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", header))
        f.write(chunk(b"IDAT", zlib.compress(raw)))
        f.write(chunk(b"IEND", b""))


os.makedirs("camera", exist_ok=True)
decoded = []
for k, number in enumerate([1, 2, 9, 10]):
    path = f"camera/frame_{number}.jpg"
    Image.fromarray(rgb_frame(k, 24, 32)).save(path, quality=90)
    decoded.append(np.asarray(Image.open(path).convert("RGB")))
np.save("camera_pillow.npy", np.stack(decoded))
with open("camera/ts.txt", "w") as f:
    f.write("0.0\n0.1\n0.2\n0.3\n")

whole = open("camera/frame_9.jpg", "rb").read()
open("corrupt.jpg", "wb").write(whole[: len(whole) * 2 // 3])

gray = np.asarray(Image.open("camera/frame_1.jpg").convert("L"))
Image.fromarray(gray[::-1].copy(), "L").save("gray.jpg", quality=90)
np.save("gray_pillow.npy", np.asarray(Image.open("gray.jpg")))

first = Image.fromarray(np.load("camera_pillow.npy")[0])
boxes = [(0, 0, 32, 24), (3, 2, 23, 19), (4, 5, 9, 11)]  # left, top, right, bottom
resized = [np.asarray(first.crop(box).resize((12, 12), Image.BILINEAR)) for box in boxes]
np.save("resize_pillow.npy", np.stack(resized))

os.makedirs("png", exist_ok=True)
h, w = 14, 20
rgb = rgb_frame(1, h, w)
gray = rgb[..., 1]
alpha = np.full((h, w), 77, dtype=np.uint8)
expected = []

Image.fromarray(rgb).save("png/f0.png")
expected.append(rgb)

Image.fromarray(gray, "L").save("png/f1.png")
expected.append(np.repeat(gray[..., None], 3, axis=-1))

Image.fromarray(np.dstack([rgb, alpha]), "RGBA").save("png/f2.png")
expected.append(rgb)

palette = Image.fromarray(rgb).quantize(colors=16)
palette.save("png/f3.png")
expected.append(np.asarray(palette.convert("RGB")))

Image.fromarray(np.dstack([gray, alpha]), "LA").save("png/f4.png")
expected.append(np.repeat(gray[..., None], 3, axis=-1))

wide = rgb.astype(np.uint16) * 257 + np.arange(h * w * 3, dtype=np.uint16).reshape(h, w, 3) % 200
write_png16("png/f5.png", wide)
expected.append((wide >> 8).astype(np.uint8))

wide_gray = gray.astype(np.uint16) * 256 + 255
write_png16("png/f6.png", wide_gray)
expected.append(np.repeat((wide_gray >> 8).astype(np.uint8)[..., None], 3, axis=-1))

np.save("png_expected.npy", np.stack(expected))
with open("png/ts.txt", "w") as f:
    f.write("\n".join(str(i / 10) for i in range(len(expected))) + "\n")
