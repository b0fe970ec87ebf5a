"""AlphaGrad's own count on a jaxpr, independently of dgraph, beside dgraph's.

AlphaGrad (Lohoff & Neftci, NeurIPS 2024) makes every equation of a jaxpr a vertex —
also one that no output uses and one computed from literals only — with an edge from each
operand that is a variable (one for a one-operand primitive); moves (dtype conversions,
reshapes, broadcasts) make copy edges, free to multiply through; an output is never
eliminated. Eliminating a vertex costs one multiplication per (in-edge, out-edge) pair of
general edges. Forward and reverse eliminate in equation order and its reverse; Markowitz
picks the smallest in-degree times out-degree, the earliest equation among equals.

    python benchmarks/alphagrad_vertex_game.py [NAME ...]

prints, per function of benchmarks/alphagrad_functions.py, forward/reverse/Markowitz in
that model and dgraph's (``from_jax(..., every_equation=True)``), and how many vertices
are dead (no path to an output) or constant (no path from an input): vertices dgraph
leaves out. Dead ones cost nothing in reverse and Markowitz but can in forward (a dead
chain), constant ones nothing in forward but can in reverse (their edges stay until they
are eliminated last).
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
from jax.extend.core import Literal

sys.path.insert(0, str(Path(__file__).resolve().parent))

from alphagrad_functions import FUNCTIONS, PUBLISHED, THREE

import dgraph

MOVES = {"broadcast_in_dim", "squeeze", "reshape", "convert_element_type", "copy", "copy_p"}
TWO_OPERANDS = {"add", "sub", "mul", "div", "pow", "atan2", "add_any", "max", "min"}


def vertex_game(closed) -> tuple[dict[int, dict[int, bool]], list[int]]:
    """Per equation (numbered from 1; inputs -1, -2, ...) its operands and whether each
    edge is general (not a copy), and the outputs' equation numbers."""
    jaxpr = closed.jaxpr
    number = {v: -1 - k for k, v in enumerate(jaxpr.invars)}
    preds: dict[int, dict[int, bool]] = {}
    for k, eqn in enumerate(jaxpr.eqns, start=1):
        if eqn.primitive.name in ("pjit", "jit", "custom_jvp_call", "closed_call"):
            raise SystemExit(f"{eqn.primitive.name}: inline calls first")
        number[eqn.outvars[0]] = k
        operands = [a for a in eqn.invars if not isinstance(a, Literal)]
        if eqn.primitive.name not in TWO_OPERANDS:
            operands = operands[:1]
        general = eqn.primitive.name not in MOVES
        preds[k] = {number[a]: general for a in operands}
    outputs = [number[v] for v in jaxpr.outvars if not isinstance(v, Literal)]
    return preds, outputs


def _eliminate(into, out_of, v: int) -> int:
    cost = 0
    for u, general_in in into[v].items():
        for w, general_out in out_of[v].items():
            cost += general_in and general_out
            general = general_in or general_out or u in into[w]
            into[w][u] = out_of[u][w] = general
    for u in into[v]:
        del out_of[u][v]
    for w in out_of[v]:
        del into[w][v]
    into[v], out_of[v] = {}, {}
    return cost


def _graph(preds):
    into = {v: dict(p) for v, p in preds.items()}
    out_of: dict[int, dict[int, bool]] = {}
    for v, p in preds.items():
        out_of.setdefault(v, {})
        for u, general in p.items():
            out_of.setdefault(u, {})[v] = general
    return into, out_of


def counts(preds, outputs) -> tuple[int, int, int]:
    """Forward, reverse and Markowitz multiplications in AlphaGrad's model."""
    vertices = [v for v in preds if v not in outputs]
    result = []
    for order in (vertices, vertices[::-1]):
        into, out_of = _graph(preds)
        result.append(sum(_eliminate(into, out_of, v) for v in order))
    into, out_of = _graph(preds)
    left, total = set(vertices), 0
    while left:
        v = min(left, key=lambda v: (len(into[v]) * len(out_of[v]), v))
        total += _eliminate(into, out_of, v)
        left.remove(v)
    return result[0], result[1], total


def dead_and_constant(preds, outputs) -> tuple[int, int]:
    live, reached = set(outputs), set()
    for v in sorted(preds, reverse=True):
        if v in live:
            live.update(u for u in preds[v] if u > 0)
    for v in sorted(preds):
        if any(u < 0 or u in reached for u in preds[v]):
            reached.add(v)
    return len(preds) - len(live), len(preds) - len(reached)


def main(names: list[str]) -> None:
    jax.config.update("jax_enable_x64", True)
    print(
        "| function | equations | dead, constant | AlphaGrad's model: fwd / rev / Markowitz"
        " | dgraph every_equation: fwd / rev / Markowitz | published |"
    )
    print("|---|---|---|---|---|---|")
    for name in names or list(FUNCTIONS):
        f, args = FUNCTIONS[name]
        preds, outputs = vertex_game(jax.make_jaxpr(f)(*args))
        graph = dgraph.from_jax(f, *args, name=name, every_equation=True)
        ours = [dgraph.accumulate(graph, m).mults for m in ("forward", "reverse", "markowitz")]
        published = " / ".join(map(str, THREE[name])) if name in THREE else "—"
        published += f"; best of three {PUBLISHED[name][0]}"
        theirs = " / ".join(map(str, counts(preds, outputs)))
        print(
            f"| {name} | {len(preds)} | {', '.join(map(str, dead_and_constant(preds, outputs)))}"
            f" | {theirs} | {' / '.join(map(str, ours))} | {published} |"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
