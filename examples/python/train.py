"""Train a small PyTorch model on a recording on disk, loaded by adl.

    pip install ./adl-python torch tqdm
    python examples/python/train.py --epochs 30 --checkpoint /tmp/adl-train.pt

The recording (examples/data/recording) has a camera (10 Hz JPEG frames),
a radar (20 Hz NumPy frames) and an IMU (100 Hz CSV rows) per drive.
adl's native sensors read and decode them without the GIL, `Nearest`
pairs each camera frame with the radar frame and IMU row nearest in time,
and `adl.Loader` shuffles, batches (PyTorch's default collate, NumPy out)
and prefetches on its workers. The model learns the IMU reading from the
frame and the radar; a progress bar (tqdm) shows the loss.

With `--checkpoint`, the model, its optimizer and the loader's state are
saved after every batch; run the command again after an interruption
and training goes on from the batch it had reached, in the same order.
"""

import argparse
import os

import numpy as np
import torch
from tqdm import tqdm

import adl
import adl.torch
from adl import files, generic

RECORDING = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "recording"))
GRAVITY = torch.tensor([0.0, 0.0, 9.81])


def dataset(root):
    """A trace per drive; drive-3's radar clock goes back, and adl says so."""
    traces = []
    for drive in sorted(os.listdir(root)):
        folder = os.path.join(root, drive)
        try:
            sensors = {
                "camera": files.Images(os.path.join(folder, "camera"), layout="chw"),
                "radar": files.Npy.in_folder(os.path.join(folder, "radar")),
                "imu": files.Table(os.path.join(folder, "imu.csv"), "t"),
            }
            traces.append(adl.Trace(sensors, generic.Nearest("camera", tol=0.05), name=drive))
        except (OSError, ValueError) as refused:
            print(f"leaving {drive} out: {refused}")
    return adl.Dataset(traces)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.camera = torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 5, stride=4), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(2), torch.nn.Flatten()
        )
        self.head = torch.nn.Sequential(torch.nn.Linear(32 + 8 * 16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))

    def forward(self, camera, radar):
        return self.head(torch.cat([self.camera(camera), radar.flatten(1)], dim=1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--checkpoint", help="save here after every batch; resume from it if it is there")
    parser.add_argument("--recording", default=RECORDING)
    args = parser.parse_args()

    torch.manual_seed(0)
    data = dataset(args.recording)
    loader = adl.Loader(data, None, batch_size=args.batch_size, shuffle=0, workers=args.workers, drop_last=True)
    model = Model()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    start, losses = 0, []
    if args.checkpoint and os.path.exists(args.checkpoint):
        saved = torch.load(args.checkpoint)
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        loader.load_state_dict(saved["loader"])
        start, losses = saved["loader"]["epoch"], saved["losses"]
        print(f"resuming at epoch {start}, after {len(losses)} steps")

    steps = len(data) // args.batch_size
    for epoch in range(start, args.epochs):
        bar = tqdm(adl.torch.batches(loader.epoch(epoch)), total=steps, desc=f"epoch {epoch}", leave=False)
        for batch in bar:
            camera = batch["camera"].float() / 255
            target = batch["imu"].float() - GRAVITY
            loss = torch.nn.functional.mse_loss(model(camera, batch["radar"]), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            bar.set_postfix(loss=f"{loss.item():.4f}")
            if args.checkpoint:
                state = {
                    "model": model.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "loader": loader.state_dict(),
                    "losses": losses,
                }
                torch.save(state, args.checkpoint + ".tmp")
                os.replace(args.checkpoint + ".tmp", args.checkpoint)
    if losses:
        first, last = np.mean(losses[:steps]), np.mean(losses[-steps:])
        print(f"{len(data)} samples, {len(losses)} steps: loss {first:.4f} in the first epoch, {last:.4f} in the last")
    print(loader.statistics())


if __name__ == "__main__":
    main()
