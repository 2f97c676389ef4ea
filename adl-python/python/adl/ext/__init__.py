"""Extensions of the specification (``abstract_dataloader.ext`` 0.4.7,
under the same names), each a module imported where used:

- ``adl.ext.types``: data types as optree dataclasses (``dataclass``),
  generic over their array type (``ArrayLike``, ``TArray``).
- ``adl.ext.sample``: a dataset's subset (``SampledDataset``), by
  low-discrepancy (``sample_ld``), uniform or random sampling.
- ``adl.ext.graph``: a transform from a graph of nodes over dict samples.
- ``adl.ext.torch``, ``adl.ext.lightning``: PyTorch and Lightning (with
  the extras ``pip install 'adl-dataloader[torch]'`` or
  ``'adl-dataloader[lightning]'``).
- ``adl.ext.augment``, ``adl.ext.objective``: augmentations and training
  objectives.

Nothing is imported here, so ``import adl.ext.types`` needs neither
PyTorch nor Lightning.
"""
