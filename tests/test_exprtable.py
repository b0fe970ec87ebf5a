"""The integer table of an expression set reads what the general folds read: the same
word shapes and coefficient bound, the same values at random points, and it refuses
(for the general check to name) whatever those would reject."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dgraph.core.algebra import fold
from dgraph.core.expressions import make_expression_set
from dgraph.core.exprtable import LEAF, Unreadable, expression_table
from dgraph.core.graph import DGraph
from dgraph.core.verify import shapes_and_bound, table_shapes_and_bound
from dgraph.errors import VerificationError
from dgraph.frontends import bundled
from dgraph.methods import accumulate

from .strategies import labeled_dags

METHODS = ["forward", "reverse", "markowitz", "dstar", "umbrella", "zhou", "layers"]


def _mutated(es, rnd):
    """``es`` with one entry changed: a factor pair swapped, a term doubled or dropped,
    or a stray product or constant added."""
    key = rnd.choice(list(es.jacobian))
    entry = es.jacobian[key]
    edges = list(es.graph.edge_symbols)
    change = rnd.randrange(4)
    if change == 0 and entry.is_Mul and len(entry.args) > 1:
        args = list(entry.args)
        i = rnd.randrange(len(args) - 1)
        args[i], args[i + 1] = args[i + 1], args[i]
        entry = sympy.Mul(*args)
    elif change == 1:
        entry = entry + entry.args[0] if entry.is_Add else 2 * entry
    elif change == 2:
        entry = entry + rnd.choice(edges) * rnd.choice(edges)
    else:
        entry = entry + rnd.choice([1, 3, -5])
    jacobian = {**dict(es.jacobian), key: entry}
    return dataclasses.replace(es, jacobian=jacobian)


def _folded(es, values, mod):
    def number(n):
        return np.array([int(n) % p for p in mod.tolist()], dtype=np.int64)

    def mul(fs):
        acc = fs[0]
        for f in fs[1:]:
            acc = acc * f % mod
        return acc

    env = dict(values)
    for name, definition in es.references.items():
        env[name] = fold(
            definition, env.__getitem__, number, lambda ts: np.sum(ts, axis=0) % mod, mul
        )
    return {
        key: fold(e, env.__getitem__, number, lambda ts: np.sum(ts, axis=0) % mod, mul)
        for key, e in es.jacobian.items()
    }


def _agree(es, seed):
    try:
        expected = shapes_and_bound(es)
    except VerificationError:
        expected = None
    try:
        table = expression_table(es)
    except Unreadable:
        return
    got = table_shapes_and_bound(es, table)
    # None: the general check decides; else at least the general folds' bound, which
    # keeps bounds by first and last letter (dgraph.core.verify.shapes_and_bound)
    assert got is None or got == expected == 0 or 1 <= expected <= got
    if expected is not None and got is None:
        return
    mod = np.array([2147483647, 2147483629, 2147483587], dtype=np.int64)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, mod, size=(len(table.edges), len(mod)), dtype=np.int64)
    values = dict(zip(es.graph.edge_symbols, draws, strict=True))
    at = table.evaluate(draws, mod)
    for key, value in _folded(es, values, mod).items():
        assert np.array_equal(at[table.roots[key]], value)


@settings(max_examples=60, deadline=None)
@given(labeled_dags(max_intermediates=7), st.sampled_from(METHODS), st.randoms())
def test_the_table_reads_what_the_folds_read(graph, method, rnd):
    es = accumulate(graph, method, verify=False)
    _agree(es, rnd.randrange(1000))
    _agree(_mutated(es, rnd), rnd.randrange(1000))


def test_products_and_sums_become_balanced_binary_trees_in_order():
    g = DGraph("chain")  # x -> v1 -> ... -> v7 -> y: one path of 8 edges
    names = ["x", *(f"v{k}" for k in range(1, 8)), "y"]
    for v in names:
        g.add_vertex(v, "input" if v == "x" else "output" if v == "y" else "intermediate")
    for u, v in itertools.pairwise(names):
        g.add_edge(u, v)
    g.validate()
    word = [g.symbol(u, v) for u, v in itertools.pairwise(names)][::-1]  # output end first
    es = make_expression_set(g, {}, {("y", "x"): sympy.Mul(*word)})
    table = expression_table(es)
    root = table.roots["y", "x"]

    def leaves(n):  # the factors under n, left to right
        if table.op[n] == LEAF:
            return [table.edges[table.a[n]]]
        return leaves(table.a[n]) + leaves(table.b[n])

    def depth(n):
        return 0 if table.op[n] == LEAF else 1 + max(depth(table.a[n]), depth(table.b[n]))

    assert leaves(root) == [es.graph.edge_symbols[s] for s in word]  # order kept
    assert depth(root) == 3  # balanced: log2 of 8 factors, not 7
    assert [len(nodes) for _, nodes, _, _ in table.levels()] == [4, 2, 1]  # one batch a level


@pytest.mark.parametrize(
    "wrong",
    [
        lambda es, r: {**dict(es.references), next(iter(es.graph.edge_symbols)): r},
        lambda es, r: {sympy.Symbol("later", commutative=False): r, **dict(es.references)},
    ],
)
def test_unknown_or_edge_named_references_are_left_to_the_general_check(wrong):
    g = bundled("spherical_coordinates.trace")
    es = accumulate(g, "forward", verify=False)
    first = next(iter(es.references))
    refs = wrong(es, first * first)
    with pytest.raises(Unreadable):
        expression_table(dataclasses.replace(es, references=refs))
