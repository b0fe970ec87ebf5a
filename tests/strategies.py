"""Hypothesis strategies: random valid c-graphs and random straight-line programs.

Each strategy draws the structure itself (every edge, every operation and operand), not a
seed: a failing case shrinks to fewer vertices, fewer edges and simpler operations, where
a drawn seed would shrink only to another seed. The graphs are those of
:func:`~dgraph.frontends.random_graphs.random_dag` and
:func:`~dgraph.frontends.random_graphs.random_program`: inputs minimal, outputs maximal, every
intermediate reached from an input and reaching an output.
"""

from __future__ import annotations

from functools import cache

import sympy
from hypothesis import strategies as st

from dgraph.core.graph import DGraph
from dgraph.frontends import from_sympy

__all__ = ["LABELS", "dags", "labeled_dags", "programs"]

# random_program's operations, simplest first (a failing case shrinks toward them)
UNARY = (sympy.sin, sympy.cos, sympy.exp, lambda a: a**2, lambda a: sympy.sqrt(a**2 + 1))
BINARY = (
    lambda a, b: a * b,
    lambda a, b: a + b,
    lambda a, b: a - b,
    lambda a, b: a / (b**2 + 1),
)


@cache
def _sometimes(density: float) -> st.SearchStrategy[bool]:
    """True with about probability ``density``; shrinks to False (one edge fewer). One
    strategy per density, made once: hypothesis validates each new strategy it draws
    from (a third of a drawn graph's cost when each edge made its own)."""
    return st.integers(0, 19).map(lambda k: k >= 20 - round(20 * density))


@st.composite
def dags(draw, max_inputs=3, max_intermediates=6, max_outputs=3):
    """A valid c-graph: each intermediate and output has one drawn predecessor (shrinking
    to the vertex just before it) and drawn extra ones among the vertices before it; an
    intermediate nothing uses gets a drawn successor after it."""
    xs = [f"x{i}" for i in range(draw(st.integers(1, max_inputs)))]
    vs = [f"v{i}" for i in range(1, draw(st.integers(0, max_intermediates)) + 1)]
    ys = [f"y{i}" for i in range(draw(st.integers(1, max_outputs)))]
    density = draw(st.sampled_from([0.15, 0.3, 0.5]))
    edges: set[tuple[str, str]] = set()
    for k, v in enumerate(vs):
        earlier = xs + vs[:k]
        edges.add((draw(st.sampled_from(earlier[::-1])), v))  # shrinks to a chain
        edges.update((u, v) for u in earlier if draw(_sometimes(density)))
    sources = xs + vs
    for y in ys:
        edges.add((draw(st.sampled_from(sources[::-1])), y))
        edges.update((u, y) for u in sources if draw(_sometimes(density / 2)))
    for k, v in enumerate(vs):
        if not any(u == v for u, _ in edges):
            edges.add((v, draw(st.sampled_from(vs[k + 1 :] + ys))))
    g = DGraph("drawn-dag")
    for names, role in ((xs, "input"), (vs, "intermediate"), (ys, "output")):
        for name in names:
            g.add_vertex(name, role)
    position = {name: k for k, name in enumerate(xs + vs + ys)}
    for u, v in sorted(edges, key=lambda e: (position[e[1]], position[e[0]])):
        g.add_edge(u, v)
    return g.validate()


@st.composite
def programs(draw, max_inputs=3, max_statements=8):
    """The elemental graph of a straight-line program: each statement a drawn unary or
    binary operation of drawn earlier values, the outputs drawn among the statements."""
    xs = list(sympy.symbols(f"x0:{draw(st.integers(1, max_inputs))}"))
    values: list[sympy.Expr] = list(xs)
    for _ in range(draw(st.integers(1, max_statements))):
        if len(values) == 1 or draw(st.booleans()):
            operation = draw(st.sampled_from(UNARY))
            values.append(operation(draw(st.sampled_from(values))))
        else:
            operation = draw(st.sampled_from(BINARY))
            index = st.integers(0, len(values) - 1)
            a, b = draw(st.lists(index, min_size=2, max_size=2, unique=True))
            values.append(operation(values[a], values[b]))
    candidates = [v for v in values[len(xs) :] if v.free_symbols] or [xs[0] * xs[-1]]
    candidates = list(dict.fromkeys(candidates))
    count = draw(st.integers(1, min(3, len(candidates))))
    index = st.integers(0, len(candidates) - 1)
    chosen = draw(st.lists(index, min_size=count, max_size=count, unique=True))
    return from_sympy([candidates[k] for k in chosen], xs, name="drawn-program")


LABELS = (None, None, 1, -1, 0, 2, 3, sympy.Rational(1, 2))  # None: a general label


@st.composite
def labeled_dags(draw, max_inputs=3, max_intermediates=6, max_outputs=3, labels=LABELS):
    """Random c-graphs whose labels mix general values with the constants 0, ±1 and
    others (sums of them cancel to 0 or ±1, products fold)."""
    shape = draw(dags(max_inputs, max_intermediates, max_outputs))
    g = DGraph(shape.name)
    for v in shape.order():
        g.add_vertex(v, shape.role(v))
    for u, v in shape.edges():
        label = draw(st.sampled_from(labels))
        g.add_edge(u, v, None if label is None else sympy.sympify(label))
    return g.validate()
