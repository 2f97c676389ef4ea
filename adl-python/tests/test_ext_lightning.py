"""adl.ext.lightning against abstract_dataloader.ext.lightning 0.4.7:
with the default engine (PyTorch's DataLoader) the same batches, splits,
kept samples and errors as the reference; with ``engine="adl"``
(adl.Loader) the same validation and test batches, a train split shuffled
by seed and epoch, each rank's share, and a Lightning training run that
resumes mid-epoch from its checkpoint exactly where it stopped."""

import numpy as np
import pytest
import torch

L = pytest.importorskip("lightning")

from abstract_dataloader.ext import lightning as reference_lightning  # noqa: E402
from abstract_dataloader.ext import torch as reference_torch  # noqa: E402
from lightning.pytorch.callbacks import ModelCheckpoint  # noqa: E402

from adl.ext import lightning as ours  # noqa: E402
from adl.ext.torch import Collate, Pipeline  # noqa: E402
# The sample transform, from a module of its own: with `workers`, each
# worker process imports it, and importing this test module would import
# Lightning there too (seconds a process).
from process_datasets import add_one  # noqa: E402

SAMPLES = 23


def dataset(offset=0, count=SAMPLES):
    """A list dataset of dict samples (an ADL dataset: `__getitem__` and
    `__len__`)."""
    return [{"x": np.full(2, k + offset, np.float32), "index": k + offset}
            for k in range(count)]


def modules(**kwargs):
    """Ours and the reference's, over the same splits and pipeline."""
    splits = {"train": dataset(), "val": lambda: dataset(100, 11), "test": dataset(200, 7)}
    kwargs.setdefault("num_workers", 0)
    mine = ours.ADLDataModule(splits, Pipeline(sample=add_one, collate=Collate(mode="stack")),
                              **kwargs)
    theirs = reference_lightning.ADLDataModule(
        splits, reference_torch.Pipeline(sample=add_one, collate=reference_torch.Collate(mode="stack")),
        **{k: v for k, v in kwargs.items() if k not in ("engine", "seed", "loader_options")})
    return mine, theirs


def indices(loader):
    """Each batch's sample indices."""
    return [batch["index"].tolist() for batch in loader]


def same_batches(a, b):
    a, b = list(a), list(b)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert list(x) == list(y)
        for key in x:
            assert torch.equal(x[key], y[key]), key


@pytest.mark.parametrize("split", ["train", "val", "test"])
def test_the_default_engine_gives_the_references_batches(split):
    mine, theirs = modules(batch_size=4)
    torch.manual_seed(3)
    got = list(getattr(mine, f"{split}_dataloader")())
    torch.manual_seed(3)
    expected = list(getattr(theirs, f"{split}_dataloader")())
    same_batches(got, expected)
    loader = mine.dataloader(split)
    assert isinstance(loader, torch.utils.data.DataLoader)
    assert loader.pin_memory and loader.batch_size == 4


def test_worker_processes_give_the_same_batches():
    mine, theirs = modules(batch_size=5)
    mine._num_workers = theirs._dataloader_args["num_workers"] = 2
    same_batches(mine.val_dataloader(), theirs.val_dataloader())


@pytest.mark.parametrize("samples", [0, 1, 3, 5, [0, 4, 10]])
def test_kept_samples_are_the_references(samples):
    mine, theirs = modules(samples=samples)
    if samples == 0:
        assert mine.samples is None and theirs.samples is None
        return
    same_batches([mine.samples], [theirs.samples])


def test_kept_samples_need_a_val_split_and_enough_samples():
    data = {"train": dataset()}
    assert ours.ADLDataModule(data, Pipeline(collate=Collate()), samples=2).samples is None
    too_many = ours.ADLDataModule({"val": dataset(0, 4)}, Pipeline(collate=Collate()), samples=4)
    with pytest.raises(IndexError, match="samples=4 evenly over a val split of 4 samples"):
        too_many.samples


def test_subsampled_splits_are_the_references():
    mine, theirs = modules(batch_size=3, subsample={"train": 10, "test": 0.5})
    assert len(mine.dataset("train")) == len(theirs.dataset("train")) == 10
    same_batches(mine.test_dataloader(), theirs.test_dataloader())
    assert [mine.dataset("train")[k]["index"] for k in range(10)] == \
        [theirs.dataset("train")[k]["index"] for k in range(10)]


def test_datasets_are_made_once_and_errors_are_the_references():
    made = []

    def make():
        made.append(1)
        return dataset()

    module = ours.ADLDataModule({"train": make}, Pipeline(collate=Collate()), num_workers=0)
    assert module.dataset("train") is module.dataset() and made == [1]
    with pytest.raises(KeyError, match=r"No `val` split.*\['train'\]"):
        module.val_dataloader()
    with pytest.raises(ValueError, match="no `mode` was specified"):
        module.dataloader(dataset())
    assert indices(module.dataloader(dataset(0, 5), mode="test")) == [[0, 1, 2, 3, 4]]
    with pytest.raises(ValueError, match="'torch' or 'adl'"):
        ours.ADLDataModule({}, Pipeline(), engine="numpy")


def test_from_traces_builds_each_split_from_its_trace_names():
    calls = []

    def by_names(names):
        calls.append(list(names))
        return [{"x": np.zeros(1, np.float32), "index": k} for k in range(len(names))]

    module = ours.ADLDataModule.from_traces(
        by_names, {"train": ["a", "b", "c"], "val": ["d"]}, Pipeline(collate=Collate()),
        batch_size=1)
    assert len(module.dataset("val")) == 1 and calls == [["d"]]
    assert len(module.dataset("train")) == 3


def test_every_loader_option_goes_to_adl_loader():
    torch_engine, _ = modules(batch_size=4)
    adl_engine, _ = modules(batch_size=4, engine="adl", num_workers=2,
                            loader_options={"processes": True, "memory_budget": 64 << 20})
    loader = adl_engine.dataloader("val")
    same_batches(loader, torch_engine.dataloader("val"))
    statistics = loader.loader.statistics()
    assert "Processes: 2 worker processes made" in statistics, statistics
    assert "budget" in statistics, statistics
    with pytest.raises(ValueError, match="loader_options are adl.Loader's; give them with engine='adl'"):
        modules(loader_options={"processes": True})


@pytest.mark.parametrize("split", ["val", "test"])
def test_the_adl_engine_gives_the_same_val_and_test_batches(split):
    torch_engine, _ = modules(batch_size=4)
    adl_engine, _ = modules(batch_size=4, engine="adl")
    loader = adl_engine.dataloader(split)
    assert isinstance(loader, ours.LoaderEpochs)
    assert len(loader) == len(torch_engine.dataloader(split))
    same_batches(loader, torch_engine.dataloader(split))


def test_the_adl_engine_shuffles_the_train_split_by_seed_and_epoch():
    module, _ = modules(batch_size=4, engine="adl", seed=5)
    loader = module.train_dataloader()
    epochs = [indices(loader) for _ in range(3)]
    for epoch in epochs:
        flat = [k for batch in epoch for k in batch]
        assert len(epoch) == len(loader) == SAMPLES // 4
        assert len(set(flat)) == len(flat) == (SAMPLES // 4) * 4
    assert epochs[0] != epochs[1] != epochs[2]
    again, _ = modules(batch_size=4, engine="adl", seed=5)
    assert indices(again.train_dataloader()) == epochs[0]
    other, _ = modules(batch_size=4, engine="adl", seed=6)
    assert indices(other.train_dataloader()) != epochs[0]


class Trainer:
    """What the data module reads of a Lightning trainer."""

    def __init__(self, rank, world, epoch):
        self.global_rank, self.world_size, self.current_epoch = rank, world, epoch


@pytest.mark.parametrize("split", ["train", "test"])
def test_the_adl_engine_deals_each_rank_its_share(split):
    shares = []
    for rank in range(3):
        module, _ = modules(batch_size=2, engine="adl", seed=1)
        module.trainer = Trainer(rank, 3, epoch=4)
        loader = module.dataloader(split)
        batches = indices(loader)
        assert len(batches) == len(loader)
        shares.append([k for batch in batches for k in batch])
    everything = [k for share in shares for k in share]
    # Padded as DistributedSampler pads: every sample, fewer than `world`
    # of them twice (23 train samples: 8 a rank, 4 batches of 2; 7 test
    # samples: 3 a rank, the last batch of 1).
    expected = range(SAMPLES) if split == "train" else range(200, 207)
    assert set(everything) == set(expected)
    assert len(everything) == 3 * -(-len(expected) // 3)


class Regression(L.LightningModule):
    """A linear model that records the batches it trains on."""

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(2, 1)
        self.seen = []

    def training_step(self, batch, index):
        self.seen.append((self.current_epoch, batch["index"].tolist()))
        return (self.linear(batch["x"]) - batch["x"].sum(dim=1, keepdim=True)).pow(2).mean()

    def validation_step(self, batch, index):
        self.log("val", (self.linear(batch["x"]) - batch["x"].sum(dim=1, keepdim=True))
                 .pow(2).mean())

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=1e-4)


def fit(engine, epochs=2, checkpoints=None, resume=None, workers=0):
    module, _ = modules(batch_size=4, engine=engine, seed=9, num_workers=workers)
    model = Regression()
    callbacks = [] if checkpoints is None else [
        ModelCheckpoint(dirpath=checkpoints, every_n_train_steps=1, save_top_k=-1)]
    trainer = L.Trainer(
        max_epochs=epochs, accelerator="cpu", devices=1, logger=False,
        enable_progress_bar=False, enable_model_summary=False, callbacks=callbacks,
        enable_checkpointing=checkpoints is not None, num_sanity_val_steps=0)
    trainer.fit(model, datamodule=module, ckpt_path=resume)
    return model.seen, trainer


@pytest.mark.parametrize("engine,workers", [("torch", 0), ("adl", 0), ("adl", 2)])
def test_lightning_trains_on_either_engine(engine, workers):
    seen, trainer = fit(engine, workers=workers)
    assert [epoch for epoch, _ in seen] == [0] * 5 + [1] * 5
    for epoch in (0, 1):
        flat = [k for e, batch in seen if e == epoch for k in batch]
        assert len(set(flat)) == len(flat) == 20
    assert np.isfinite(trainer.callback_metrics["val"].item())


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """A run of 2 epochs of 5 batches, checkpointed after every step."""
    checkpoints = tmp_path_factory.mktemp("checkpoints")
    seen, _ = fit("adl", checkpoints=checkpoints)
    return seen, checkpoints


@pytest.mark.parametrize("step,epoch", [(3, 0), (5, 0), (7, 1)])
def test_lightning_resumes_the_adl_engine_where_it_stopped(uninterrupted, step, epoch):
    # Step 5 is saved after epoch 0's last batch: the resumed run goes on
    # with epoch 1 (as it does with PyTorch's DataLoader).
    seen, checkpoints = uninterrupted
    saved = checkpoints / f"epoch={epoch}-step={step}.ckpt"
    state = torch.load(saved, weights_only=False)["loops"]["fit_loop"]["state_dict"]
    assert state["combined_loader"][0]["epoch"] == epoch
    assert state["combined_loader"][0]["cursor"] == 4 * (step - 5 * epoch)
    resumed, _ = fit("adl", resume=str(saved))
    assert resumed == seen[step:]
