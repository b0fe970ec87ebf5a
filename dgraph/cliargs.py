"""Arguments shared by every ``dgraph`` command, including the method families' own."""

from __future__ import annotations

import argparse

from .core.builders.trace import GRANULARITIES

__all__ = ["budget", "graph_args"]


def graph_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("graph", help="file.json, file.trace or path/to/file.py:function")
    p.add_argument(
        "--granularity",
        choices=GRANULARITIES,
        default="elemental",
        help="vertices per operation (default), per two-operand operation as a tape records"
        " them (binary), or per assignment of a trace (statement)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")


def budget(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--budget needs seconds, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("--budget must be >= 0")
    return value
