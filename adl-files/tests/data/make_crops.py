"""Writes the JPEG fixtures of adl-files' `CropDecoder` tests with Pillow
(13.0.0, on libjpeg-turbo 3.2.0, when they were made).

    python3 make_crops.py   # in this folder, with numpy and pillow installed

crops/: one 237 x 317 picture (sides that are not multiples of a JPEG's
8 or 16-pixel blocks), photograph-like (smooth shading, sharp edges,
texture and noise), at quality 90, as

- s420.jpg: 4:2:0 chroma (Pillow's default), baseline;
- s422.jpg: 4:2:2;
- s444.jpg: 4:4:4;
- gray.jpg: grayscale;
- progressive.jpg: 4:2:0, progressive.
"""
import os

import numpy as np
from PIL import Image

HEIGHT, WIDTH = 237, 317


def picture():
    rng = np.random.default_rng(20261128)
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH].astype(np.float64)
    r = 120 + 90 * np.sin(x / 37.0) * np.cos(y / 23.0)
    g = 60 + 150 * (y / HEIGHT) + 30 * np.sin((x + 2 * y) / 9.0)
    b = 200 - 140 * (x / WIDTH) + 25 * np.cos(x / 3.0) * np.sin(y / 5.0)
    image = np.stack([r, g, b], axis=-1)
    # A disc and a bar: sharp edges across blocks.
    disc = (x - 190) ** 2 + (y - 100) ** 2 < 60 ** 2
    image[disc] = [250, 240, 30]
    image[150:170, 20:300] = [20, 30, 200]
    image += rng.normal(0, 6, image.shape)
    return np.clip(np.round(image), 0, 255).astype(np.uint8)


os.makedirs("crops", exist_ok=True)
rgb = Image.fromarray(picture())
rgb.save("crops/s420.jpg", quality=90, subsampling=2)
rgb.save("crops/s422.jpg", quality=90, subsampling=1)
rgb.save("crops/s444.jpg", quality=90, subsampling=0)
rgb.convert("L").save("crops/gray.jpg", quality=90)
rgb.save("crops/progressive.jpg", quality=90, subsampling=2, progressive=True)
