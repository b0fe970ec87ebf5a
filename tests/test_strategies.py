"""The hypothesis strategies draw structure, so a failing case shrinks to a small graph
(the old ones drew a seed and shrank only to another seed's graph)."""

from __future__ import annotations

from hypothesis import find, settings

from .strategies import dags, programs

QUICK = settings(max_examples=200, database=None)


def test_a_dag_shrinks_to_the_fewest_edges():
    """The smallest graph of four intermediates is a chain x0 -> v1 -> ... -> v4 -> y0 of
    five edges; the old strategy shrank to seed 0, whose graph has eight."""
    g = find(dags(), lambda g: len(g.intermediates) >= 4, settings=QUICK)
    assert (len(g.inputs), len(g.intermediates), len(g.outputs)) == (1, 4, 1)
    assert len(g.edges()) == 5


def test_a_program_shrinks_to_one_statement():
    g = find(programs(), lambda g: len(g.outputs) >= 1, settings=QUICK)
    assert (len(g.inputs), len(g.outputs)) == (1, 1)
    assert len(g.intermediates) == 0
