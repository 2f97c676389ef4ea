"""The training pipeline both sides of the roverd benchmark run, in NumPy:
what a radar/lidar/camera/IMU model's data module does to an I/Q-1M
sample (after nrdk's style: radar magnitudes, a small camera, a thinner
lidar scan, the IMU's readings).

- radar `iq` (int16 [64 chirps, 3 tx, 4 rx, 512], I/Q as IIQQ): complex
  samples, their magnitude averaged over the chirps: float32 [3, 4, 256];
- camera `video.avi` (1920 x 1080 RGB) at 1/8 scale, as float32 in [0, 1]:
  [135, 240, 3];
- lidar `rng` (uint16 millimetres [64, 2048]) every 4th azimuth, in
  metres: float32 [64, 512];
- IMU `acc` and `avel` (float32 [3] each): float32 [6].

Both read only those channels; samples are synchronized to the lidar
(nearest frame of every other sensor).
"""

import numpy as np

CAMERA_SCALE = 8
LIDAR_STEP = 4
BATCH = 8
SYNC_TOLERANCE = 0.1


def radar_magnitude(iq):
    """int16 [..., 64, 3, 4, 512] (IIQQ) to float32 [..., 3, 4, 256]: the
    magnitude of each complex sample, averaged over the chirps (axis -4)."""
    x = iq.reshape(*iq.shape[:-1], 128, 2, 2).astype(np.float32)
    i, q = x[..., 0, :], x[..., 1, :]
    magnitude = np.sqrt(i * i + q * q).reshape(*iq.shape[:-1], 256)
    return magnitude.mean(axis=-4)


def lidar_range(rng):
    """uint16 millimetres [..., 64, 2048] to float32 metres [..., 64, 512]."""
    return rng[..., ::LIDAR_STEP].astype(np.float32) / np.float32(1000.0)


def camera_float(frame):
    """uint8 [..., H, W, 3] to float32 in [0, 1]."""
    return frame.astype(np.float32) / np.float32(255.0)


def imu_vector(acc, avel):
    """Two float32 [..., 3] to one float32 [..., 6]."""
    return np.concatenate([acc, avel], axis=-1)
