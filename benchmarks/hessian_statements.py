"""A generated NumPy Hessian module's per-call program, statement by statement: each
statement of ``_jacobian_lower`` timed alone (least of REPS runs, its operands copied
fresh before each run, outside the timing), their sum, and the entries the program
moves per call — scatter-added (``numpy.add.at``, ``numpy.bincount``) and taken
(``numpy.take``) — counted on one call. Machine-independent counts and least times of
small statements are what a loaded, shared machine still measures (issue 55's per-call
A/B; RESULTS.md).

    python benchmarks/hessian_statements.py MODULE.py [REPS] [--lines]

MODULE.py: the text of ``make_function(g, "hessian", "python", sparse=True)``'s
``.generated.text`` (``benchmarks/hessian_ab.py write``); the point is
``benchmarks/hessian_functions.py``'s for the module's input size (the minimal surface's
where the size is a square, else Rosenbrock's; a second input gets the Lagrangian's
weights). ``--lines``: every statement's time, slowest first.
"""

from __future__ import annotations

import ast
import copy
import sys
import time
import types
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


class _Counted:
    """``numpy`` as the module reads it, counting the entries scatter-added and taken."""

    def __init__(self, counts: dict[str, int]) -> None:
        self._counts = counts

    def __getattr__(self, name: str):
        real = getattr(np, name)
        counts = self._counts
        if name == "add":

            class _Add:
                def __call__(self, *a, **k):
                    return real(*a, **k)

                def at(self, out, index, data):
                    counts["scatter-added"] += np.size(index)
                    counts["scatter-adds"] += 1
                    return real.at(out, index, data)

            return _Add()
        if name == "bincount":

            def bincount(ids, *a, **k):
                counts["scatter-added"] += np.size(ids)
                counts["scatter-adds"] += 1
                return real(ids, *a, **k)

            return bincount
        if name == "take":

            def take(a, index, *rest, **k):
                counts["taken"] += np.size(index)
                counts["takes"] += 1
                return real(a, index, *rest, **k)

            return take
        return real


def load(path: str, counted: dict[str, int] | None = None) -> types.ModuleType:
    module = types.ModuleType("generated")
    exec(compile(Path(path).read_text(), path, "exec"), module.__dict__)
    if counted is not None:
        module.__dict__["numpy"] = _Counted(counted)
    return module


def point_for(module: types.ModuleType) -> tuple:
    from hessian_functions import point, weights

    n = module.SHAPES[module.INPUTS[0]][0]
    side = round(n**0.5)
    name = "minsurf" if side * side == n else "rosenbrock"
    x = point(name, side if name == "minsurf" else n).ravel()
    if len(module.INPUTS) > 1:
        return x, weights("lagrangian", n)
    return (x,)


def statements(module: types.ModuleType, path: str) -> tuple[list[str], list[str]]:
    """The body of ``_jacobian_lower`` as its top-level statements' texts, and its
    argument names."""
    tree = ast.parse(Path(path).read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "_jacobian_lower":
            body = [s for s in node.body if not isinstance(s, ast.Expr)]  # the docstring
            return [ast.unparse(s) for s in body], [a.arg for a in node.args.args]
    raise SystemExit(f"{path}: no _jacobian_lower")


def timed(path: str, reps: int) -> tuple[list[tuple[float, str]], dict[str, int]]:
    counts = {"scatter-added": 0, "scatter-adds": 0, "taken": 0, "takes": 0}
    counting = load(path, counts)
    args = point_for(counting)
    counting._jacobian_lower(*args)  # one call, counted
    module = load(path)
    lines, names = statements(module, path)
    env = dict(zip(names, args, strict=True))
    found = []
    for text in lines:
        if text.startswith("return "):
            continue
        if text.startswith("del "):
            exec(compile(text, "<s>", "exec"), module.__dict__, env)
            continue
        code = compile(text, "<s>", "exec")
        read = {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}
        before = {k: v for k, v in env.items() if k in read}
        best = float("inf")
        for _ in range(reps):
            local = {k: copy.copy(v) if isinstance(v, np.ndarray) else v for k, v in before.items()}
            t0 = time.perf_counter()
            exec(code, module.__dict__, local)
            best = min(best, time.perf_counter() - t0)
        exec(code, module.__dict__, env)  # the program's own state moves on
        found.append((best, text))
    return found, counts


def main(argv: list[str]) -> None:
    path = argv[0]
    reps = int(argv[1]) if len(argv) > 1 and not argv[1].startswith("--") else 300
    found, counts = timed(path, reps)
    total = sum(t for t, _ in found)
    print(f"{path}: {len(found)} statements, sum of least times {total * 1e6:.1f} us")
    print("per call: " + ", ".join(f"{k} {v:,}" for k, v in counts.items()))
    if "--lines" in argv:
        for t, text in sorted(found, reverse=True):
            print(f"{t * 1e6:8.1f}  {text[:150]}")


if __name__ == "__main__":
    main(sys.argv[1:])
