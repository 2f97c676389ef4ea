"""adl from Python: a Rust data-loading engine built on the Abstract
Dataloader specification.

``adl.generic`` is a drop-in for ``abstract_dataloader.generic`` (0.4.7):
so far its synchronization policies (``Empty``, ``Next``, ``Nearest``,
computed in Rust with the GIL released, and ``Decimate``).
"""

from adl import generic

__all__ = ["generic"]
