"""``dgraph chain``: placeholder until the family lands (replace both functions)."""

from __future__ import annotations

import argparse

from ..cliargs import graph_args
from ..errors import DGraphError

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    graph_args(p)


def run(args: argparse.Namespace) -> int:
    raise DGraphError("dgraph chain: not built yet")
