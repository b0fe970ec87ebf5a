"""The path-free face check against the path-tracking reference, and at scale."""

from __future__ import annotations

import itertools
import json
import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dgraph.cli import main
from dgraph.core.graph import DGraph
from dgraph.core.paths import count_paths
from dgraph.core.random_graphs import diamond_chain, random_composition, random_layered
from dgraph.errors import DGraphError
from dgraph.faces.elimination import FACE_PATH_LIMIT
from dgraph.faces.examples import circular_example
from dgraph.faces.realize import check_faces, check_faces_pathfree, check_faces_paths
from dgraph.methods import accumulate, methods

from .strategies import dags

# every registered method that runs on a graph alone, and a vertex order for "vertex"
RUNNABLE = [m for m in methods(needs=()) if m != "face-optimal"]


def diamonds(n: int) -> DGraph:
    """A chain of ``n`` diamonds: 2**n input-output paths over 4n edges."""
    return diamond_chain(n)


def assert_cycle(check) -> None:
    """A reported cycle closes: each face waits for the next, the last for the first."""
    cycle = check.cycle
    assert cycle and cycle[-1].waits_for == cycle[0].face
    for dep, nxt in itertools.pairwise(cycle):
        assert dep.waits_for == nxt.face


def assert_agree(es) -> None:
    """The path-free check gives the reference's answer."""
    old, new = check_faces_paths(es), check_faces_pathfree(es)
    assert new.acyclic == old.acyclic, es.method
    if old.acyclic:
        assert new.simulated_mults == old.simulated_mults, es.method
        assert new.realized == old.realized, es.method
        assert new.realization.verify().ok
        if old.realized:
            assert new.simulated_mults == es.mults
    else:
        assert_cycle(new)
        assert_cycle(old)


@settings(max_examples=30, deadline=None)
@given(dags(max_intermediates=7), st.integers(0, 10**6))
def test_pathfree_agrees_with_paths_on_every_method(g, seed):
    """On random DAGs, every registered method's expression set (and a random vertex
    order): same acyclic answer, same simulated cost, realized alike."""
    rng = random.Random(seed)
    order = list(g.intermediates)
    rng.shuffle(order)
    sets = [accumulate(g, "vertex", order=order)]
    for method in RUNNABLE:
        try:
            sets.append(accumulate(g, method, budget=0.2))
        except DGraphError:  # a search beyond its limit
            continue
    for es in sets:
        assert_agree(es)


@pytest.mark.parametrize("seed", range(6))
def test_pathfree_agrees_on_compositions(seed):
    g = random_composition(seed, 2, 3)
    for method in ("zhou", "dstar", "umbrella", "layers", "markowitz"):
        assert_agree(accumulate(g, method, budget=0.5))


def test_pathfree_finds_the_circular_example():
    es = circular_example()
    check = check_faces_pathfree(es)
    assert not check.acyclic and check.order is None
    assert_cycle(check)
    assert {d.face for d in check.cycle} == {("s->u", "u->v"), ("u->v", "v->t")}
    for dep in check.cycle:  # the same witnesses as the path-tracking check
        x = "x2" if dep.face == ("s->u", "u->v") else "x1"
        assert dep.path == f"{x}->s->u->v->t" and dep.expression.startswith(f"dt/d{x}")
    assert_agree(es)


def test_pathfree_finds_dstar_cycle_on_spherical_harmonics():
    from dgraph.bench.suite import spherical_harmonics

    es = accumulate(spherical_harmonics(5), "dstar")
    assert not check_faces(es).acyclic
    assert_agree(es)


def test_a_million_paths_in_seconds():
    """2**20 input-output paths: the reference refuses, the path-free check realizes
    forward, reverse and Markowitz in well under a second each."""
    g = diamonds(20)
    assert count_paths(g) >= 10**6 > FACE_PATH_LIMIT
    with pytest.raises(DGraphError, match="input-output paths"):
        check_faces_paths(accumulate(g, "forward"))
    for method in ("forward", "reverse", "markowitz"):
        es = accumulate(g, method)
        t0 = time.perf_counter()
        check = check_faces(es)
        assert check.realized and check.simulated_mults == es.mults, method
        assert time.perf_counter() - t0 < 5, method


def test_random_layered_beyond_the_path_limit():
    g = random_layered(1, 12, 4, 3)
    assert count_paths(g) > 100 * FACE_PATH_LIMIT
    for method in ("forward", "reverse", "markowitz"):
        es = accumulate(g, method)
        check = check_faces(es)
        assert check.realized and check.simulated_mults == es.mults, method


def test_cli_faces_accepts_a_million_paths(tmp_path, capsys):
    big = tmp_path / "diamonds-20.json"
    big.write_text(diamonds(20).to_json())
    assert main(["faces", str(big), "-m", "forward,markowitz,zhou", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [m["realized"] for m in out["methods"]] == [True, True, True]


def test_cli_faces_all_lists_a_search_too_large_as_skipped(tmp_path, capsys):
    big = tmp_path / "diamonds-20.json"
    big.write_text(diamonds(20).to_json())
    assert main(["faces", str(big), "-m", "forward,vertex-optimal", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["methods"]
    assert rows[0]["realized"] is True
    assert rows[1]["method"] == "vertex-optimal"
    assert "exceed the exhaustive limit" in rows[1]["skipped"]
    assert main(["faces", str(big), "-m", "vertex-optimal"]) == 2  # alone: an error, one line
