"""CPU seconds of the array passes' common subexpressions (``optimize_statements``) on a
program of n statements with a loop in it (whose body holds a two-way cond and a loop of
its own), and the growth exponent from n = 2,000 to n = 8,000; an md5 of the optimized
statements' text, to compare two checkouts (the same text: the same result).

Each chain statement computes what the one before it did, once more (merged away) and
reads the loop's final carry; the loop's body, the cond's branches and the inner loop's
body are chains of their own, so each round of merging numbers the loop statements again.

    PYTHONPATH=. python benchmarks/value_numbering.py            # this checkout
    PYTHONPATH=/work/main python benchmarks/value_numbering.py   # another one's dgraph
"""

from __future__ import annotations

import hashlib
import math
import sys
import time

from dgraph.codegen.array_passes import optimize_statements
from dgraph.codegen.ir import (
    ArrayStatement,
    BinOp,
    Call,
    Cond,
    Const,
    Item,
    Loop,
    LoopBody,
    Name,
)

S = ArrayStatement


def chain(n: int, prefix: str, start: str, other: str) -> list[ArrayStatement]:
    """``n`` statements, each ``sin(previous) * other + previous`` computed twice (the
    second copy merged into the first) and summed."""
    out: list[ArrayStatement] = []
    last = start
    for i in range(n // 3):
        a, b, c = f"{prefix}a{i}", f"{prefix}b{i}", f"{prefix}c{i}"
        for target in (a, b):
            term = BinOp("*", Call("sin", (Name(last),)), Name(other))
            out.append(S(target, BinOp("+", term, Name(last))))
        out.append(S(c, BinOp("-", BinOp("*", Const(1.0), Name(a)), Name(b))))
        last = c
    return out


def body(n: int, prefix: str) -> LoopBody:
    """A chain of ``n`` statements over the carry ``x`` and the invariant ``w``."""
    statements = chain(n, prefix, "x", "w")
    return LoopBody(("x", "w"), tuple(statements), (statements[-1].target,))


def program(n: int) -> tuple[list[ArrayStatement], list[str]]:
    inner = Loop((Name("x"),), (), (Name("w"),), body(n // 8, "i"), 3)
    branches = (body(n // 8, "p"), body(n // 8, "q"))
    cond = Cond(BinOp(">", Name("x"), Const(0.0)), (Name("x"), Name("w")), branches)
    statements = [
        *chain(n // 4, "s", "x", "w"),
        S("r", inner),
        S("k", cond),
        S("m", BinOp("+", Item(Name("r"), 0), Item(Name("k"), 0))),
    ]
    outer = LoopBody(("x", "w"), tuple(statements), ("m",))
    top = [S("L", Loop((Name("u"),), (), (Name("v"),), outer, 4)), S("y", Item(Name("L"), 0))]
    top += chain(n // 2, "t", "y", "v")
    return top, [top[-1].target]


def seconds(n: int) -> tuple[float, str]:
    statements, results = program(n)
    start = time.process_time()
    out = optimize_statements(statements, results)
    spent = time.process_time() - start
    return spent, hashlib.md5(repr(out).encode()).hexdigest()


if __name__ == "__main__":
    sizes = [int(a) for a in sys.argv[1:]] or [1000, 2000, 4000, 8000]
    found = {}
    for n in sizes:
        found[n] = seconds(n)
        print(f"n = {n}: {found[n][0]:.3f} CPU-s, md5 {found[n][1]}")
    if 2000 in found and 8000 in found:
        slope = math.log(found[8000][0] / found[2000][0]) / math.log(4)
        print(f"n^{slope:.2f} from 2,000 to 8,000 statements")
