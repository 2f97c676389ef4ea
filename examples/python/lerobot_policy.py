"""A policy trained on a LeRobot dataset read by adl: the script a
lerobot user writes, with one import changed.

    python examples/python/lerobot_policy.py [DATASET] [--torch-dataloader] [--steps N]

DATASET defaults to tests/data/lerobot/v30_av1 (written by lerobot's own
writer from a real PX4 flight log and two photographs). The dataset is
`adl.lerobot.LeRobotDataset`, in place of
`lerobot.datasets.lerobot_dataset.LeRobotDataset`: the same constructor,
the same items. A small network predicts the next 8 actions (lerobot's
action chunk, with its padding mask) from the front camera's last two
frames and the state. The batches come from `adl.Loader` (read, decoded
and collated in Rust without the GIL), or with `--torch-dataloader` from
torch's DataLoader over the same dataset: the training code is the same.
"""

import argparse
from pathlib import Path

import torch
from torch import nn

import adl
from adl.lerobot import LeRobotDataset  # was: from lerobot.datasets.lerobot_dataset import LeRobotDataset

ROOT = Path(__file__).resolve().parents[2]


class Policy(nn.Module):
    """Frames and state in, a chunk of actions out."""

    def __init__(self, frames: int, state: int, chunk: int, action: int) -> None:
        super().__init__()
        self.camera = nn.Sequential(
            nn.Conv2d(3 * frames, 16, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(4), nn.Flatten()
        )
        self.head = nn.Sequential(nn.Linear(16 * 16 + state, 64), nn.ReLU(), nn.Linear(64, chunk * action))
        self.chunk, self.action = chunk, action

    def forward(self, frames: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
        features = self.camera(frames.flatten(1, 2))
        return self.head(torch.cat([features, state], dim=1)).view(-1, self.chunk, self.action)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", nargs="?", default=str(ROOT / "tests" / "data" / "lerobot" / "v30_av1"))
    parser.add_argument("--torch-dataloader", action="store_true")
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    torch.manual_seed(0)

    fps = LeRobotDataset("local/dataset", root=args.dataset).fps
    dataset = LeRobotDataset(
        "local/dataset",
        root=args.dataset,
        delta_timestamps={
            "observation.images.front": [-1 / fps, 0.0],
            "action": [i / fps for i in range(8)],
        },
    )
    print(f"{len(dataset)} frames of {dataset.num_episodes} episodes at {fps} frames/s")
    if args.torch_dataloader:
        loader = torch.utils.data.DataLoader(dataset, batch_size=16, shuffle=True, num_workers=2)
        epochs = lambda epoch: loader  # noqa: E731
    else:
        loader = adl.Loader(dataset, batch_size=16, shuffle=0, workers=2)
        epochs = loader.epoch

    state_size = dataset.features["observation.state"]["shape"][0]
    action_size = dataset.features["action"]["shape"][0]
    policy = Policy(frames=2, state=state_size, chunk=8, action=action_size)
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-3)
    step, epoch, losses = 0, 0, []
    while step < args.steps:
        for batch in epochs(epoch):
            predicted = policy(batch["observation.images.front"], batch["observation.state"])
            error = (predicted - batch["action"]).pow(2).mean(dim=2)
            valid = ~batch["action_is_pad"]
            loss = (error * valid).sum() / valid.sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            step += 1
            if step == args.steps:
                break
        epoch += 1
    first, last = sum(losses[:5]) / 5, sum(losses[-5:]) / 5
    print(f"{step} steps over {epoch} epochs: loss {first:.4f} -> {last:.4f}")
    print(f"frames {tuple(batch['observation.images.front'].shape)} {batch['observation.images.front'].dtype}, "
          f"actions {tuple(batch['action'].shape)}, tasks {sorted(set(batch['task']))}")


if __name__ == "__main__":
    main()
