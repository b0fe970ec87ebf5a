"""``dgraph codegen GRAPH --lang python|c [--method M] [--mode M] [--sparse] -o FILE``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..cliargs import budget, graph_args
from ..core.builders import load
from ..errors import DGraphError
from .generate import LANGS, MODES, generate

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    graph_args(p)
    p.add_argument("-o", "--output", required=True, help="file to write (.py or .c)")
    p.add_argument(
        "--lang", choices=LANGS, help="python (NumPy) or c (C99); default: from the suffix of -o"
    )
    p.add_argument(
        "--method",
        "-m",
        help="accumulation method, or symbolic (Bauer's formula with sympy's algebra); default:"
        " the candidate whose program is cheapest",
    )
    p.add_argument("--mode", choices=MODES, default="jacobian", help="function to generate")
    p.add_argument("--sparse", action="store_true", help="also emit the nonzero entries only")
    p.add_argument("--budget", type=budget, help="seconds for exact searches beyond their limit")


def run(args: argparse.Namespace) -> int:
    lang = args.lang or ("c" if args.output.endswith((".c", ".h")) else "python")
    graph = load(args.graph, args.granularity)
    generated = generate(graph, lang, args.method, (args.mode,), args.sparse, args.budget)
    try:
        Path(args.output).write_text(generated.text)
    except OSError as exc:
        raise DGraphError(f"{args.output}: cannot write it ({exc.strerror})") from None
    summary = generated.summary(args.output)
    if args.json:
        print(json.dumps(summary))
        return 0
    print(
        f"wrote {args.output} ({lang}): {', '.join(generated.programs)} from method "
        f"{summary['method']}"
    )
    for name, ops in summary["functions"].items():
        print(
            f"  {name}: {ops['mults']} mults, {ops['adds']} adds, {ops['divs']} divs,"
            f" {ops['calls']} calls"
        )
    return 0
