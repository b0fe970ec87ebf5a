"""Random differentiation graphs and random straight-line programs, for tests and benchmarks."""

from __future__ import annotations

import itertools
import random

import sympy

from ..core.graph import DGraph
from . import from_sympy

__all__ = [
    "add_dead_code",
    "diamond_chain",
    "random_composition",
    "random_dag",
    "random_layered",
    "random_program",
    "random_series_parallel",
]


def random_dag(
    seed: int,
    n_inputs: int = 2,
    n_intermediates: int = 5,
    n_outputs: int = 2,
    density: float = 0.3,
) -> DGraph:
    """A valid random c-graph (no labels): inputs minimal, outputs maximal, every
    intermediate reached from an input and reaching an output.

    >>> g = random_dag(1, 2, 4, 2)
    >>> len(g.inputs), len(g.intermediates), len(g.outputs)
    (2, 4, 2)
    """
    rng = random.Random(seed)
    xs = [f"x{i}" for i in range(n_inputs)]
    vs = [f"v{i}" for i in range(1, n_intermediates + 1)]
    ys = [f"y{i}" for i in range(n_outputs)]
    edges: set[tuple[str, str]] = set()
    for k, v in enumerate(vs):
        earlier = xs + vs[:k]
        edges.add((rng.choice(earlier), v))
        edges.update((u, v) for u in earlier if rng.random() < density)
    for y in ys:
        sources = xs + vs
        edges.add((rng.choice(sources), y))
        edges.update((u, y) for u in sources if rng.random() < density / 2)
    for k, v in enumerate(vs):
        if not any(u == v for u, _ in edges):
            edges.add((v, rng.choice(vs[k + 1 :] + ys)))
    g = DGraph(f"random-{seed}")
    for x in xs:
        g.add_vertex(x, "input")
    for v in vs:
        g.add_vertex(v, "intermediate")
    for y in ys:
        g.add_vertex(y, "output")
    for u, v in sorted(edges, key=lambda e: ((xs + vs + ys).index(e[1]), (xs + vs).index(e[0]))):
        g.add_edge(u, v)
    return g.validate()


_UNARY = (sympy.sin, sympy.cos, sympy.exp, lambda a: a**2, lambda a: sympy.sqrt(a**2 + 1))
_BINARY = (
    lambda a, b: a * b,
    lambda a, b: a + b,
    lambda a, b: a - b,
    lambda a, b: a / (b**2 + 1),
)


def random_program(
    seed: int, n_inputs: int = 2, n_statements: int = 6, n_outputs: int = 2
) -> DGraph:
    """The elemental graph of a random straight-line program of smooth operations."""
    rng = random.Random(seed)
    xs = list(sympy.symbols(f"x0:{n_inputs}"))
    values: list[sympy.Expr] = list(xs)
    for _ in range(n_statements):
        if rng.random() < 0.4:
            values.append(rng.choice(_UNARY)(rng.choice(values)))
        else:
            a, b = rng.sample(values, 2) if len(values) > 1 else (values[0], values[0])
            values.append(rng.choice(_BINARY)(a, b))
    candidates = [v for v in values[n_inputs:] if v.free_symbols] or [xs[0] * xs[-1]]
    outputs = rng.sample(candidates, min(n_outputs, len(candidates)))
    return from_sympy(outputs, xs, name=f"program-{seed}")


def random_series_parallel(seed: int, size: int = 6) -> DGraph:
    """A random two-terminal series-parallel graph (input x, output y): Zhou's simple
    graphs, made by subdividing edges (series) and adding parallel paths."""
    rng = random.Random(seed)
    edges = [("x", "y")]
    names = iter(f"v{k}" for k in range(1, 10**6))
    for _ in range(size):
        u, v = edges[rng.randrange(len(edges))]
        w = next(names)
        if rng.random() < 0.5:  # series: u -> w -> v replaces u -> v
            edges.remove((u, v))
        edges += [(u, w), (w, v)]  # parallel when (u, v) stays
    g = DGraph(f"series-parallel-{seed}")
    g.add_vertex("x", "input")
    inner = sorted({w for e in edges for w in e} - {"x", "y"}, key=lambda w: int(w[1:]))
    import networkx as nx

    order = list(nx.topological_sort(nx.DiGraph(edges)))
    for w in sorted(inner, key=order.index):
        g.add_vertex(w, "intermediate")
    g.add_vertex("y", "output")
    for u, v in edges:
        g.add_edge(u, v)
    return g.validate()


def _siso(rng: random.Random, x: sympy.Expr, statements: int) -> sympy.Expr:
    """A random single-input single-output subprogram applied to ``x``."""
    values = [x]
    for _ in range(statements):
        if rng.random() < 0.4 or len(values) == 1:
            values.append(rng.choice(_UNARY)(rng.choice(values)))
        else:
            a, b = rng.sample(values, 2)
            values.append(rng.choice(_BINARY)(a, b))
    return values[-1] if values[-1].free_symbols else values[-1] + x


def random_composition(seed: int, parts: int = 3, outputs: int = 1) -> DGraph:
    """Compositions of random single-input single-output subprograms, the structure real
    code has: f_k(... f_2(f_1(x))), some stages combining two branches, several stages
    optionally exported as outputs."""
    rng = random.Random(seed)
    x = sympy.Symbol("x")
    stages = [x]
    value = x
    for _ in range(parts):
        if rng.random() < 0.3:
            value = rng.choice(_BINARY)(_siso(rng, value, 2), _siso(rng, value, 2))
        else:
            value = _siso(rng, value, rng.randint(1, 3))
        stages.append(value)
    chosen = [stages[-1], *rng.sample(stages[1:-1], min(outputs - 1, len(stages) - 2))]
    return from_sympy(chosen, [x], name=f"composition-{seed}")


def random_layered(
    seed: int, layers: int, width: int, degree: int = 3, ends: int | None = None
) -> DGraph:
    """A layered random c-graph: ``layers`` levels of ``width`` vertices, each fed by
    ``degree`` vertices of the level below; ``ends`` inputs and outputs (default: the
    whole first and last level). About (layers - 1) * width * degree edges."""
    rng = random.Random(seed)
    ends = width if ends is None else ends
    levels = [[f"x{i}" for i in range(ends)]]
    levels += [[f"v{k}_{i}" for i in range(width)] for k in range(1, layers - 1)]
    levels.append([f"y{i}" for i in range(ends)])
    g = DGraph(f"layered-{layers}x{width}x{degree}-{seed}")
    for k, level in enumerate(levels):
        role = "input" if k == 0 else "output" if k == len(levels) - 1 else "intermediate"
        for v in level:
            g.add_vertex(v, role)
    used: set[str] = set()
    for below, above in itertools.pairwise(levels):
        for v in above:
            for u in rng.sample(below, min(degree, len(below))):
                g.add_edge(u, v)
                used.add(u)
        for u in below:  # every vertex feeds the level above
            if u not in used:
                g.add_edge(u, rng.choice(above))
    return g.validate()


def add_dead_code(graph: DGraph, count: int, seed: int = 0) -> DGraph:
    """``graph`` with ``count`` dead vertices added (``dead0, dead1, ...``: each fed by a
    random input or intermediate, or by an earlier dead vertex and one of those), as tools
    that write graphs leave dead branches; no output depends on them, so the graph is no
    longer valid until they are dropped (:func:`dgraph.core.activity.drop_dead`). The
    graph is changed in place and returned."""
    rng = random.Random(seed)
    sources = [v for v in graph.order() if graph.role(v) != "output"]
    for k in range(count):
        graph.add_vertex(f"dead{k}", "intermediate")
        feeds = [rng.choice(sources)]
        if k and rng.random() < 0.5:
            feeds.append(f"dead{rng.randrange(k)}")
        for u in dict.fromkeys(feeds):
            graph.add_edge(u, f"dead{k}")
    return graph


def diamond_chain(n: int) -> DGraph:
    """A chain of ``n`` diamonds: 2**n input-output paths over 4n edges (path-count tests).

    >>> from dgraph.core.paths import count_paths
    >>> count_paths(diamond_chain(10))
    1024
    """
    g = DGraph(f"diamonds-{n}")
    g.add_vertex("v0", "input")
    for k in range(1, n + 1):
        g.add_vertex(f"a{k}")
        g.add_vertex(f"b{k}")
        g.add_vertex(f"v{k}", "output" if k == n else "intermediate")
        for s in ("a", "b"):
            g.add_edge(f"v{k - 1}", f"{s}{k}")
            g.add_edge(f"{s}{k}", f"v{k}")
    return g.validate()
