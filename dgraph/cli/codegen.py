"""``dgraph codegen GRAPH [--lang python|c|jax|cuda] [--method M] [--mode M] [--sparse] -o FILE``.

The file is written only after the generated text ran and agreed with the graph
(:mod:`dgraph.codegen.check`), and atomically: a temporary file beside it, then a rename,
so a failure never leaves a partial or unchecked file behind.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..codegen.generate import LANGS, MODES, generate
from ..errors import InputError
from .args import budget, graph_args, load_graph, output_path, write_atomic

__all__ = ["SUFFIXES", "add_arguments", "language", "run"]

SUFFIXES = {".py": "python", ".c": "c", ".h": "c", ".cu": "cuda"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    graph_args(p)
    p.add_argument("-o", "--output", required=True, help="file to write (.py, .c or .cu)")
    p.add_argument(
        "--lang",
        choices=LANGS,
        help="python (NumPy), c (C99), jax (jax.numpy: jit, vmap, grad) or cuda (CUDA C++"
        " kernels, f32 and f64, both layouts); default: from the suffix of -o (.py python,"
        " .c or .h c, .cu cuda)",
    )
    p.add_argument(
        "--method",
        "-m",
        help="accumulation method, or symbolic (Bauer's formula with sympy's algebra); default:"
        " the deterministic candidate whose program is cheapest",
    )
    p.add_argument(
        "--mode",
        choices=MODES,
        help="function to generate (default: jacobian; for jax and cuda: jacobian, jvp and vjp)",
    )
    p.add_argument("--sparse", action="store_true", help="also emit the nonzero entries only")
    p.add_argument(
        "--budget",
        type=budget,
        help="seconds: with --method, for an exact search beyond its limit; without, the"
        " search 'best' joins the candidates and gets what is left of them once the others"
        " are built",
    )


def language(output: str, lang: str | None) -> str:
    """``lang`` when given (any suffix then), else the language of the suffix of ``output``:
    ``.py`` python, ``.c`` and ``.h`` c, ``.cu`` cuda; any other suffix is an error."""
    if lang is not None:
        return lang
    suffix = Path(output).suffix.lower()
    if suffix not in SUFFIXES:
        raise InputError(
            f"{output}: cannot tell the language from the suffix {suffix or '(none)'!r}: use"
            " .py (python), .c or .h (c), .cu (cuda), or give --lang python|c|jax|cuda"
        )
    return SUFFIXES[suffix]


def run(args: argparse.Namespace) -> int:
    output = output_path(args.output)  # refused before any work: a directory, no parent
    lang = language(args.output, args.lang)
    graph = load_graph(args)
    modes = (
        (args.mode,)
        if args.mode
        else ("jacobian", "jvp", "vjp")
        if lang in ("jax", "cuda")
        else ("jacobian",)
    )
    generated = generate(graph, lang, args.method, modes, args.sparse, args.budget)
    write_atomic(output, generated.text)  # only once the check passed
    summary = generated.summary(args.output)
    if args.json:
        print(json.dumps(summary))
        return 0
    print(
        f"wrote {args.output} ({lang}): {', '.join(generated.programs)} from method "
        f"{summary['method']}"
    )
    for name, program in generated.programs.items():
        print(f"  {name}: {program.ops}")
    if generated.check is not None:
        print(generated.check.summary())
    return 0
