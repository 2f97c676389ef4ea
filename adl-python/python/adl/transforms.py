"""adl's transforms, to compose into an ``adl.Pipeline``: each runs in
Rust, without the GIL, on the arrays of the keys it is listed under.

Sample transforms (on each sample's image):

- ``RandomResizedCrop(size, *, scale=(0.08, 1.0), ratio=(3/4, 4/3),
  layout="hwc", scaled_decode=True)``: torchvision's, on ``uint8``
  images, its draws a function of (the loader's seed, the epoch, the
  sample, the node). On a frame still in its file
  (``files.Images(...).encoded()``) it decodes only the crop (a JPEG, in
  a build with libjpeg-turbo), at 1/2, 1/4 or 1/8 scale where the crop is
  at least twice ``size`` (``scaled_decode=False``: never, the pixels
  those of the whole decode's crop).
- ``Decode()``: a frame still in its file, decoded whole as its sensor
  decodes it.
- ``RandomFlip(p=0.5, *, layout="hwc")``: a horizontal mirror image with
  probability ``p``, on images of any dtype.

Batch kernels (on each collated batch):

- ``ToFloat(divide=255.0)``: ``uint8`` to ``float32``, divided.
- ``Normalize(mean, std)``: ``(v - mean[c]) / std[c]`` on ``float32``,
  ``c`` along axis 1 (``[batch, channel, ...]``: images with
  ``layout="chw"``).
- ``Affine(scale, offset)``: ``v * scale + offset`` on ``float32``.
- ``Clamp(low, high)``: ``float32`` values into ``[low, high]``.

Each is an ``adl.transforms.Transform``, with its node's ``name`` and
``stage``. A transform given an array it does not take (another dtype, a
dict) fails its sample or batch with a message naming the key.
"""

from adl._native import (
    Affine,
    Clamp,
    Decode,
    Normalize,
    RandomFlip,
    RandomResizedCrop,
    ToFloat,
    Transform,
)

__all__ = [
    "Affine",
    "Clamp",
    "Decode",
    "Normalize",
    "RandomFlip",
    "RandomResizedCrop",
    "ToFloat",
    "Transform",
]
