"""The cost of pytree arguments (session 53, pytree53): an MLP loss of a dict of
parameters against the same loss written on its leaves, ``loss(W1, b1, W2, x)``.

    python benchmarks/pytree_calls.py make  {dict,flat} [--hidden H]   one make_function
    python benchmarks/pytree_calls.py calls [--hidden H] [--reps N]    per-call overhead

``make`` prints the CPU seconds of one ``make_function(loss, point=...)`` (run it in
fresh processes, alternating the two kinds); ``calls`` makes both once and prints the
median CPU microseconds of a ``jacobian`` call of each (``--reps`` calls after the first)
and their difference, the flattening and nesting a pytree call adds. ``--hidden`` sets
the hidden width (4: the element level; 64: the array level).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time


def _problem(hidden: int):
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(0)
    params = {
        "W1": rng.normal(size=(hidden, 3)),
        "b1": rng.normal(size=hidden),
        "W2": rng.normal(size=(1, hidden)),
    }
    x = rng.normal(size=3)

    def loss(params, x):
        h = jnp.tanh(params["W1"] @ x + params["b1"])
        return jnp.sum((params["W2"] @ h) ** 2)

    def flat(W1, W2, b1, x):  # the leaves, in flatten order (a dict's keys sorted)
        return loss({"W1": W1, "b1": b1, "W2": W2}, x)

    return loss, flat, params, x


def _made(kind: str, hidden: int):
    import dgraph

    loss, flat, params, x = _problem(hidden)
    if kind == "dict":
        return dgraph.make_function(loss, point=[params, x]), (params, x)
    leaves = (params["W1"], params["W2"], params["b1"], x)
    return dgraph.make_function(flat, point=list(leaves)), leaves


def _median_us(function, args, reps: int) -> float:
    function(*args)
    times = []
    for _ in range(reps):
        start = time.process_time()
        function(*args)
        times.append(time.process_time() - start)
    return statistics.median(times) * 1e6


def main(argv: list[str]) -> None:
    import jax

    jax.config.update("jax_enable_x64", True)
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=["make", "calls"])
    p.add_argument("kind", nargs="?", choices=["dict", "flat"], default="dict")
    p.add_argument("--hidden", type=int, default=4)
    p.add_argument("--reps", type=int, default=2000)
    args = p.parse_args(argv)
    if args.what == "make":
        start = time.process_time()
        _made(args.kind, args.hidden)
        print(f"{args.kind} hidden={args.hidden}: {time.process_time() - start:.3f} CPU-s")
        return
    (tree, tree_args), (flat, flat_args) = _made("dict", args.hidden), _made("flat", args.hidden)
    level = type(tree.generated).__name__
    a, b = _median_us(tree, tree_args, args.reps), _median_us(flat, flat_args, args.reps)
    print(
        f"hidden={args.hidden} ({level}): pytree call {a:.1f} us, leaves' call {b:.1f} us,"
        f" overhead {a - b:.1f} us ({a / b:.2f}x)"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
