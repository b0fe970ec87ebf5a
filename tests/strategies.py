"""Hypothesis strategies: random valid c-graphs and random straight-line programs."""

from __future__ import annotations

import sympy
from hypothesis import strategies as st

from dgraph.core.graph import DGraph
from dgraph.core.random_graphs import random_dag, random_program


@st.composite
def dags(draw, max_inputs=3, max_intermediates=6, max_outputs=3):
    return random_dag(
        draw(st.integers(0, 10**6)),
        draw(st.integers(1, max_inputs)),
        draw(st.integers(0, max_intermediates)),
        draw(st.integers(1, max_outputs)),
        draw(st.sampled_from([0.15, 0.3, 0.5])),
    )


@st.composite
def programs(draw, max_inputs=3, max_statements=8):
    return random_program(
        draw(st.integers(0, 10**6)),
        draw(st.integers(1, max_inputs)),
        draw(st.integers(1, max_statements)),
        draw(st.integers(1, 3)),
    )


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
