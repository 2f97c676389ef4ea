"""Write the robot-log benchmark's bag: a camera and a lidar, the data a
multimodal loader reads most of, plus an IMU.

    python make_bag.py OUT_DIR [--frames N] [--storage mcap|sqlite3]

OUT_DIR becomes a rosbag2 folder written by the `rosbags` library (ROS 2
Humble types): N frames (default 300) of `/camera/image` (sensor_msgs/Image,
rgb8, 640 x 480), `/camera/compressed` (the same frames as JPEG, quality
90), `/lidar` (sensor_msgs/PointCloud2, x y z intensity float32, 20 000
points) at 10 Hz, and `/imu` (sensor_msgs/Imu) at 100 Hz. Pixels and points
come from a seeded generator (smooth gradients with noise, so that JPEG
sizes are realistic); the bytes do not depend on the machine.
"""

import argparse
import io
from pathlib import Path

import numpy as np
from PIL import Image as PilImage
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore

H, W, POINTS = 480, 640, 20_000
T0 = 1_700_000_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--storage", choices=["mcap", "sqlite3"], default="mcap")
    args = parser.parse_args()

    store = get_typestore(Stores.ROS2_HUMBLE)
    T = store.types
    Header, Time = T["std_msgs/msg/Header"], T["builtin_interfaces/msg/Time"]
    Image, Compressed = T["sensor_msgs/msg/Image"], T["sensor_msgs/msg/CompressedImage"]
    Cloud, Field = T["sensor_msgs/msg/PointCloud2"], T["sensor_msgs/msg/PointField"]
    Imu, Quat, Vec3 = T["sensor_msgs/msg/Imu"], T["geometry_msgs/msg/Quaternion"], T["geometry_msgs/msg/Vector3"]

    rng = np.random.default_rng(7)
    y, x = np.mgrid[0:H, 0:W]
    storage = StoragePlugin.MCAP if args.storage == "mcap" else StoragePlugin.SQLITE3
    with Writer(args.out, version=9, storage_plugin=storage) as writer:
        image = writer.add_connection("/camera/image", Image.__msgtype__, typestore=store)
        jpeg = writer.add_connection("/camera/compressed", Compressed.__msgtype__, typestore=store)
        lidar = writer.add_connection("/lidar", Cloud.__msgtype__, typestore=store)
        imu = writer.add_connection("/imu", Imu.__msgtype__, typestore=store)
        fields = [
            Field(name=n, offset=4 * k, datatype=7, count=1)
            for k, n in enumerate(["x", "y", "z", "intensity"])
        ]
        for i in range(args.frames):
            ns = T0 * 10**9 + i * 100_000_000
            header = Header(stamp=Time(sec=ns // 10**9, nanosec=ns % 10**9), frame_id="camera")
            base = np.stack([(x + 3 * i) % 256, (y + 2 * i) % 256, (x + y) % 256], axis=-1)
            frame = np.clip(base + rng.normal(0, 8, size=base.shape), 0, 255).astype(np.uint8)
            msg = Image(
                header=header, height=H, width=W, encoding="rgb8", is_bigendian=0,
                step=W * 3, data=frame.reshape(-1),
            )
            writer.write(image, ns, store.serialize_cdr(msg, Image.__msgtype__))
            buffer = io.BytesIO()
            PilImage.fromarray(frame).save(buffer, format="JPEG", quality=90)
            msg = Compressed(header=header, format="jpeg", data=np.frombuffer(buffer.getvalue(), np.uint8))
            writer.write(jpeg, ns, store.serialize_cdr(msg, Compressed.__msgtype__))
            points = rng.normal(0, 10, size=(POINTS, 4)).astype(np.float32)
            msg = Cloud(
                header=header, height=1, width=POINTS, fields=fields, is_bigendian=False,
                point_step=16, row_step=16 * POINTS, data=points.view(np.uint8).reshape(-1),
                is_dense=True,
            )
            writer.write(lidar, ns, store.serialize_cdr(msg, Cloud.__msgtype__))
            for k in range(10):
                t = ns + k * 10_000_000
                h = Header(stamp=Time(sec=t // 10**9, nanosec=t % 10**9), frame_id="imu")
                v = rng.normal(size=6)
                msg = Imu(
                    header=h, orientation=Quat(x=0.0, y=0.0, z=0.0, w=1.0),
                    orientation_covariance=np.zeros(9),
                    angular_velocity=Vec3(x=v[0], y=v[1], z=v[2]),
                    angular_velocity_covariance=np.zeros(9),
                    linear_acceleration=Vec3(x=v[3], y=v[4], z=v[5]),
                    linear_acceleration_covariance=np.zeros(9),
                )
                writer.write(imu, t, store.serialize_cdr(msg, Imu.__msgtype__))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
