"""adl's file-backed sensors, as Python sensors (a name,
``metadata.timestamps``, ``__getitem__``, ``__len__``): each sample read
and decoded in Rust with the GIL released, and handed over as a NumPy
array that owns adl's buffer (no copy).

- ``Images(folder, *, layout="hwc", downscale=1, strict=True)``: JPEG or
  PNG frames, ``uint8`` ``[H, W, 3]`` or ``[3, H, W]``;
  ``Images(...).encoded()``, an ``EncodedImages``: the same frames read
  but not decoded (each sample the file's bytes), for an ``adl.Pipeline``
  whose ``transforms.RandomResizedCrop`` then decodes only the crop.
- ``Npy(path, timestamps, *, name=None, dtype="float32")`` and
  ``Npy.in_folder(folder, *, dtype="float32")``: a NumPy array, a sample
  per row, memory-mapped.
- ``Table(path, time_column, *, name=None)``: a CSV table with a header, a
  sample per row (float64).
- ``RoverSensor(path, *, channels=None, downscale=1, past=0, future=0)``:
  a roverd sensor folder (red-rover's recordings, the I/Q-1M dataset:
  ``meta.json``, its ``raw``, ``lzma``, ``lzmaf``, ``mjpg``, ``jpg`` and
  ``npz`` channels, ``ts``), read natively; a sample is a dict of channel
  name to frames ``[1 + past + future, *shape]``, as roverd's
  ``DynamicSensor`` gives it, image channels RGB ``uint8`` ``[H, W, 3]``
  shrunk by ``downscale`` (1, 2, 4, 8).

- ``Video(path, *, name=None, layout="hwc", size=None)``: an MP4 video
  (H.264, HEVC, AV1, VP9), a sample per frame in presentation order at its
  time in the file, decoded by FFmpeg into ``uint8`` ``[H, W, 3]`` or
  ``[3, H, W]``, scaled to ``size=(height, width)`` where given;
  ``frames(indices)`` decodes many at once (each group of pictures once),
  ``frame_at(time, tolerance)`` finds a frame by its time.

Every path may be the URL of an object instead (``s3://``, ``gs://``,
``az://``, ``http(s)://``), read through object_store with each cloud's
standard environment variables (``AWS_*``, ``GOOGLE_*``, ``AZURE_*``).

A folder holds its timestamps as ``ts.npy`` or ``ts.txt`` (a roverd
sensor's, as its raw ``ts`` channel). A file that
cannot be read, or is not what it should be, is an ``OSError`` naming the
file, the sensor and the sample.
"""

from adl._native import EncodedImages, Images, Metadata, Npy, RoverSensor, Table, Video

__all__ = ["EncodedImages", "Images", "Metadata", "Npy", "RoverSensor", "Table", "Video"]
