"""Arguments shared by every ``dgraph`` command, including the method families' own."""

from __future__ import annotations

import argparse

__all__ = ["budget", "graph_args"]


def graph_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("graph", help="file.json, file.trace or path/to/file.py:function")
    p.add_argument(
        "--granularity",
        choices=("elemental", "statement"),
        default="elemental",
        help="vertices per operation (default) or per assignment, for traces",
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
