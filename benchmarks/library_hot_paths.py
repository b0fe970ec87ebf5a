"""The library's hot paths in the test suite (session 60): a fixed set of generated
functions under cProfile, with the calls and own CPU-s of the functions the suite spends
most in, the digest of every generated text (the same before and after a speed-up), and
the growth of :func:`dgraph.codegen.ir.names_in` over a node that reads another twice at
each level and over the partial sums of a sum built term by term.

Run from a checkout (``PYTHONPATH=.``) and compare two checkouts' output:

    PYTHONPATH=. python benchmarks/library_hot_paths.py
"""

from __future__ import annotations

import cProfile
import hashlib
import math
import pstats
import time
import warnings

import numpy as np

import dgraph
from dgraph.codegen import ir
from dgraph.frontends import bundled

HOT = {
    "ir.py": ("children", "fold", "walk", "names_in", "combine"),
    "array_passes.py": ("number", "_combine", "visit"),
    "python.py": ("load_python",),
    "pathfree.py": ("union",),
    "module.py": ("_fold_gathers",),
}


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def logsum(x):
    return np.log(np.sum(np.exp(x))) + np.sum(np.sin(x) * x)


def entropy(x):
    e = np.exp(x - np.max(x))
    p = e / np.sum(e)
    return np.sum(p * np.log(p))


def running(x):
    return np.cumsum(x * x)[::2] * np.tanh(x[:3]).sum()


def vector(x):
    return np.stack([np.sin(x[0]) * x[1], x[0] ** 3 + np.cos(x[1] * x[2]), x[2] * x[0]])


def cases():
    """(label, maker) of each generated function."""
    x = np.linspace(0.3, 1.1, 6)
    for f in (rosenbrock, logsum, entropy):
        for mode in ("hessian", "value_gradient_hessian"):
            for lang in ("python", "jax"):
                yield (
                    f"{f.__name__} {mode} {lang}",
                    lambda f=f, mode=mode, lang=lang: dgraph.make_function(
                        f, mode, lang, point=[x], sparse=mode != "hessian"
                    ),
                )
    for lang in ("python", "jax", "c"):
        yield (
            f"running jacobian {lang}",
            lambda lang=lang: dgraph.make_function(running, "jacobian", lang, point=[x]),
        )
        for mode in ("jacobian", "vjp"):
            yield (
                f"vector {mode} {lang}",
                lambda lang=lang, mode=mode: dgraph.make_function(
                    vector, mode, lang, point=[x[:3]]
                ),
            )
    for lang in ("python", "c"):
        yield (
            f"spherical jacobian {lang}",
            lambda lang=lang: dgraph.make_function(
                bundled("spherical_coordinates.trace"), "jacobian", lang
            ),
        )
    yield (
        "spherical hessian python",
        lambda: dgraph.make_function(bundled("spherical_coordinates.trace"), "hessian"),
    )


def shared(depth: int) -> ir.Node:
    """``d_k = d_(k-1) * d_(k-1) + x_k``: each level reads the one below twice (a node
    read twice, as an unmerged program holds it) and a name of its own."""
    node: ir.Node = ir.Name("x0")
    for k in range(1, depth + 1):
        node = ir.BinOp("+", ir.BinOp("*", node, node), ir.Name(f"x{k}"))
    return node


def chain(length: int) -> list[ir.Node]:
    """``x0 + x1 + ... + x_length``, left-nested (a sum built term by term), each partial
    sum in the order it was built."""
    node: ir.Node = ir.Name("x0")
    sums = []
    for k in range(1, length + 1):
        node = ir.BinOp("+", node, ir.Name(f"x{k}"))
        sums.append(node)
    return sums


def names_seconds(nodes: list[ir.Node]) -> float:
    """CPU-s of :func:`~dgraph.codegen.ir.names_in` asked of each of ``nodes`` in turn."""
    start = time.process_time()
    for node in nodes:
        ir.names_in(node)
    return time.process_time() - start


def growth(label: str, sizes: tuple[int, ...], make) -> None:
    """The least CPU-s of three fresh builds asked, per size, and the growth exponent
    between the smallest and largest size."""
    seconds = [min(names_seconds(make(n)) for _ in range(3)) for n in sizes]
    slope = math.log(max(seconds[-1], 1e-6) / max(seconds[0], 1e-6))
    slope /= math.log(sizes[-1] / sizes[0])
    found = {n: round(s, 4) for n, s in zip(sizes, seconds, strict=True)}
    print(f"names_in, {label}: {found} CPU-s, growth exponent {slope:.2f}")


def main() -> None:
    warnings.filterwarnings("ignore")
    profile = cProfile.Profile()
    start = time.process_time()
    for label, make in cases():
        profile.enable()
        text = make().generated.text
        profile.disable()
        print(f"{label:40s} {hashlib.sha256(text.encode()).hexdigest()[:16]} {len(text)}")
    print(f"CPU-s in all: {time.process_time() - start:.2f}")
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    for (path, _, name), (_, calls, own, total, _) in sorted(stats.items()):
        module = path.rsplit("/", 1)[-1]
        if name in HOT.get(module, ()) and "/dgraph/" in path:
            print(
                f"{module}:{name:14s} calls {calls:8d} own {own:6.3f} s cumulative {total:6.3f} s"
            )
    growth("a node read twice at each level (depth)", (12, 14, 16), lambda n: [shared(n)])
    growth("each partial sum, as built (terms)", (500, 1000, 2000), chain)


if __name__ == "__main__":
    main()
