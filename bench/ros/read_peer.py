"""Read and decode every message of a bag with a Python peer, as the
robot-log benchmark's yardstick; prints one JSON line: messages, bytes of
message data, seconds, messages and MB per second.

    python read_peer.py rosbags BAG      # rosbags' AnyReader + deserialize
    python read_peer.py mcap BAG.mcap    # the mcap package + mcap_ros2's decoder
"""

import json
import sys
import time
from pathlib import Path


def rosbags(path: Path) -> tuple[int, int]:
    from rosbags.highlevel import AnyReader
    from rosbags.typesys import Stores, get_typestore

    messages = size = 0
    with AnyReader([path], default_typestore=get_typestore(Stores.ROS2_HUMBLE)) as reader:
        for connection, _, raw in reader.messages():
            reader.deserialize(raw, connection.msgtype)
            messages += 1
            size += len(raw)
    return messages, size


def mcap(path: Path) -> tuple[int, int]:
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory

    messages = size = 0
    with open(path, "rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        for _, _, message, _decoded in reader.iter_decoded_messages():
            messages += 1
            size += len(message.data)
    return messages, size


def main() -> None:
    peer, path = sys.argv[1], Path(sys.argv[2])
    start = time.perf_counter()
    messages, size = {"rosbags": rosbags, "mcap": mcap}[peer](path)
    seconds = time.perf_counter() - start
    print(json.dumps({
        "reader": peer, "messages": messages, "bytes": size, "seconds": round(seconds, 4),
        "messages_per_s": round(messages / seconds, 1), "mb_per_s": round(size / seconds / 1e6, 1),
    }))


if __name__ == "__main__":
    main()
