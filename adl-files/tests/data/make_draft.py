"""Writes camera_pillow_draft.npy: Pillow's decode of the frames in camera/
scaled at decode time by libjpeg-turbo (Image.draft), by 2, 4 and 8, the
values adl's `Images::downscale` gives with its feature `libjpeg-turbo`
(Pillow 13.0.0 on libjpeg-turbo 3.2.0 when it was made).

    python3 make_draft.py   # in this folder, with numpy and pillow installed

uint8 [3, 4, 12, 16, 3]: [factor 2, 4, 8][frame][rows][columns][RGB], each
frame in the top-left corner of its slot (a factor's frames are 12 x 16,
6 x 8 and 3 x 4), the rest zero.
"""
import numpy as np
from PIL import Image

frames = [f"camera/frame_{n}.jpg" for n in (1, 2, 9, 10)]
out = np.zeros((3, 4, 12, 16, 3), np.uint8)
for s, factor in enumerate((2, 4, 8)):
    for k, path in enumerate(frames):
        im = Image.open(path)
        w, h = im.size
        im.draft("RGB", (-(-w // factor), -(-h // factor)))
        pixels = np.asarray(im.convert("RGB"))
        assert pixels.shape == (-(-h // factor), -(-w // factor), 3), pixels.shape
        out[s, k, : pixels.shape[0], : pixels.shape[1]] = pixels
np.save("camera_pillow_draft.npy", out)
