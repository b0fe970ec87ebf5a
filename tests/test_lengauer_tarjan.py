"""Lengauer-Tarjan immediate dominators (dgraph.dominance.lengauer_tarjan) against
networkx's Cooper-Harvey-Kennedy iteration: the same dictionary, keys in the same order,
on drawn directed graphs with cycles and unreachable vertices."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dgraph.dominance.lengauer_tarjan import immediate_dominators


@st.composite
def digraphs(draw):
    """Random directed graphs (networkx's G(n, p), cycles and all) and a start."""
    n = draw(st.integers(1, 30))
    p = draw(st.sampled_from([0.05, 0.1, 0.2, 0.4]))
    g = nx.gnp_random_graph(n, p, seed=draw(st.integers(0, 2**16)), directed=True)
    return g, draw(st.integers(0, n - 1))


@given(digraphs())
def test_the_same_dominators_as_networkx(case):
    g, start = case
    assert list(immediate_dominators(g, start).items()) == list(
        nx.immediate_dominators(g, start).items()
    )


def test_a_missing_start_is_refused_as_networkx_refuses_it():
    with pytest.raises(nx.NetworkXError, match="start is not in G"):
        immediate_dominators(nx.DiGraph([(1, 2)]), 3)


def test_a_chain_reading_one_input_at_every_step():
    """Every step t_k of the chain also reads y (networkx's intersect walks back up the
    chain from each step): everything below the super-source is dominated by it alone."""
    n = 400
    g = nx.DiGraph([("s", "x"), ("s", "y"), ("x", "t0")])
    g.add_edges_from((f"t{k}", f"t{k + 1}") for k in range(n))
    g.add_edges_from(("y", f"t{k}") for k in range(n + 1))
    found = immediate_dominators(g, "s")
    assert set(found.values()) == {"s"} and len(found) == n + 3
    assert list(found.items()) == list(nx.immediate_dominators(g, "s").items())
