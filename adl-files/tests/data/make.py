"""Writes the .npy fixtures of adl-files' tests with NumPy itself (2.4.6
when they were made), so that the tests read files as NumPy writes them.

    python3 make.py   # in this folder, with numpy installed
"""
import numpy as np

radar = np.arange(5 * 2 * 3, dtype=np.float32).reshape(5, 2, 3) / 4
np.save("radar.npy", radar)
np.save("radar_ts.npy", np.array([0.0, 0.05, 0.1, 0.15, 0.2]))
np.save("radar_fortran.npy", np.asfortranarray(radar.reshape(5, 6)))
np.save("radar_big_endian.npy", radar.astype(">f4"))
# Radar as it usually comes, complex: complex64 [5, 2, 3], radar + (10 - radar)j.
np.save("radar_complex.npy", (radar + 1j * (10 - radar)).astype(np.complex64))
whole = open("radar.npy", "rb").read()
open("radar_truncated.npy", "wb").write(whole[:-10])
np.save("ts_int.npy", np.array([0, 1, 2], dtype=np.int64))
np.save("ts_unsorted.npy", np.array([0.0, 0.2, 0.1, 0.3, 0.4]))
open("not_npy.npy", "wb").write(b"this is not an npy file at all\n")
with open("radar_ts.txt", "w") as f:
    f.write("# radar timestamps, seconds\n0.0\n0.05\n\n0.1\n0.15\n0.2\n")
# .npz archives: one compressed, one stored, and a file that is not a zip.
np.savez_compressed("rig.npz", imu=np.array([[0, 1], [2, 3], [4, 5]], dtype=np.float32), gps=np.arange(6, dtype=np.float64).reshape(3, 2))
np.savez("rig_stored.npz", radar=np.arange(24, dtype=np.float32).reshape(3, 2, 4))
open("not_npz.npz", "wb").write(b"PK\x03\x04 definitely not a zip")
