"""Hypothesis strategies: random valid c-graphs and random straight-line programs."""

from __future__ import annotations

from hypothesis import strategies as st

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
