"""The reference's test files here are data, not tests of this folder:
``tests/test_reference_suite.py`` runs them, each in a fresh Python
process (their ``beartype_package("adl")`` must come before adl is
imported), against adl and, renamed back, against abstract-dataloader
0.4.7, and compares the outcomes. Collecting them here as well would run
them a second time, in a process where adl is already imported."""

collect_ignore_glob = ["test_*.py"]
