"""Face elimination, multiplication relations and the circular-dependency check."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dgraph.bench.realworld import REAL_WORLD
from dgraph.bench.suite import chebyshev
from dgraph.cli import main
from dgraph.elimination.labeled import replay
from dgraph.elimination.structure import BitGraph
from dgraph.elimination.vertex import vertex_elimination
from dgraph.errors import DGraphError, SearchTooLarge
from dgraph.faces.compact import FaceGraph
from dgraph.faces.elimination import FaceState
from dgraph.faces.examples import circular_example
from dgraph.faces.greedy import greedy_faces
from dgraph.faces.line_graph import intermediate_faces, line_graph
from dgraph.faces.optimal import FACE_LIMIT, _contents, face_optimal
from dgraph.faces.realize import check_faces, check_faces_paths
from dgraph.faces.relations import conflicting_pairs, multiplication_relations
from dgraph.frontends import bundled, load
from dgraph.frontends.random_graphs import random_composition, random_dag, random_program
from dgraph.methods import accumulate
from dgraph.search.rank_bound import rank_lower_bound

from .strategies import dags


def circular():
    es = circular_example()
    return es.graph, es


# -- the line graph -----------------------------------------------------------------------


def test_line_graph_has_terminal_vertices_and_faces():
    g = bundled("naumann_discrepancy.json")
    lg = line_graph(g)
    assert lg.number_of_nodes() == g.n_edges + len(g.inputs) + len(g.outputs)
    # faces at k: 2 in-edges x 2 out-edges; at i: 1 in-edge x 5 out-edges
    assert len(intermediate_faces(lg)) == 4 + 5
    assert set(lg.successors(("⊕", "a"))) == {("a", "k")}


def test_face_state_starts_as_the_line_graph():
    g = bundled("naumann_discrepancy.json")
    state = FaceState(g)
    assert len(state.faces()) == len(intermediate_faces(line_graph(g)))
    assert len(state.paths) == 12
    assert state._repr_svg_().count("<svg") == 1  # shows itself in Jupyter


# -- Naumann's rules ----------------------------------------------------------------------


def test_absorption_fill_in_and_removal():
    g = bundled("naumann_discrepancy.json")
    state = FaceState(g)
    face = state.face_by_name("k->i", "i->y1")
    state.eliminate(*face)
    # fill-in k->y1 has P = P(k->i) and S = S(i->y1), the same as the edge k->y1: absorbed
    (k,) = [v for v in state.succ if state.name[v] == "k->y1"]
    assert state.label[k] == g.symbol("k", "y1") + g.symbol("i", "y1") * g.symbol("k", "i")
    assert "k->y1#2" not in {state.name[v] for v in state.succ}
    assert state.mults == 1
    # eliminating the rest by faces finishes with the Jacobian, verified
    while faces := state.faces():
        state.eliminate(*faces[0])
    es = state.result("faces")
    assert es.verify().ok and es.mults == state.mults


def test_merge_of_equal_vertices():
    """Naumann's step 3: when a face removal leaves two vertices of one span with equal
    predecessor and successor sets, they are merged and their labels added."""
    g = bundled("naumann_discrepancy.json")
    state = FaceState(g)
    for face in [("k->i", "i->y2"), ("b->k", "k->y2"), ("b->k", "k->y1"), ("a->k", "k->y2")]:
        state.eliminate(*state.face_by_name(*face))
    # k->y1 (the edge) and k->y1#2 (i->y1 . k->i, from the next face) differ in S until
    # the face from b->k into the edge is gone
    state.eliminate(*state.face_by_name("k->i", "i->y1"))
    state.eliminate(*state.face_by_name("b->k", "k->y1#2"))
    assert [str(s) for s in state.steps if s.op == "merge"] == ["merge k->y1 -> k->y1#2 (0)"]
    (merged,) = [v for v in state.succ if state.name[v] == "k->y1"]
    k_y1, i_y1, k_i = g.symbol("k", "y1"), g.symbol("i", "y1"), g.symbol("k", "i")
    assert state.label[merged].xreplace(state.references) == k_y1 + i_y1 * k_i
    while faces := state.faces():
        state.eliminate(*faces[0])
    assert state.result("faces").verify().ok


def test_split_shares_the_value():
    g = bundled("naumann_discrepancy.json")
    state = FaceState(g)
    (k_i,) = [v for v in state.succ if state.name[v] == "k->i"]
    (a_k,) = [v for v in state.succ if state.name[v] == "a->k"]
    copy = state.split(k_i, {a_k}, side="in")
    assert state.span[copy] == ("k", "i") and set(state.pred[copy]) == {a_k}
    while faces := state.faces():
        state.eliminate(*faces[0])
    assert state.result("split").verify().ok
    with pytest.raises(DGraphError):
        state.split(copy, set(), side="in")
    with pytest.raises(DGraphError):
        FaceState(g).split(k_i, {a_k, *FaceState(g).pred[k_i]}, side="in")


# -- relations and the check --------------------------------------------------------------


def test_relations_direct_and_indirect():
    _, es = circular()
    relations = multiplication_relations(es)
    kinds = {(r.first, r.second, r.where): r.kind for r in relations}
    assert kinds["d_u_s", "d_v_u", "dt/dx1"] == "direct"
    assert kinds["d_v_u", "d_t_v", "dt/dx1"] == "indirect"
    assert kinds["d_u_s", "r1", "dt/dx2"] == "direct"
    # b·a is direct in r1 and indirect in dt/dx1: the pair Lemma 2 is about
    assert ("d_v_u", "d_t_v") in conflicting_pairs(relations)
    assert es.verify().ok


def test_circular_dependencies_are_reported_with_the_cycle():
    _, es = circular()
    check = check_faces(es)
    assert not check.acyclic and check.order is None and check.simulated_mults is None
    faces = {d.face for d in check.cycle}
    assert faces == {("s->u", "u->v"), ("u->v", "v->t")}
    for dep in check.cycle:  # each wait is forced by the other input's expression
        x = "x2" if dep.face == ("s->u", "u->v") else "x1"
        assert dep.path.startswith(x) and dep.expression.startswith(f"dt/d{x}")
        assert dep.waits_for in faces - {dep.face}


def test_methods_on_the_circular_graph_are_realizable():
    g, _ = circular()
    for method in ("forward", "reverse", "markowitz", "zhou", "dstar", "umbrella"):
        check = check_faces(accumulate(g, method))
        assert check.realized, method


@settings(max_examples=40, deadline=None)
@given(dags(max_intermediates=6), st.integers(0, 10**6))
def test_vertex_and_edge_elimination_are_realized_exactly(g, seed):
    """Every vertex order and every edge sequence is acyclic, and the simulation costs
    exactly its mults and verifies."""
    rng = random.Random(seed)
    order = list(g.intermediates)
    rng.shuffle(order)
    bits = BitGraph(g)
    state, moves = bits.start, []
    while not bits.is_final(state):
        move, _, state = rng.choice(list(bits.moves(state, "full")))
        moves.append(move)
    for es in (vertex_elimination(g, order), replay(g, moves, "edges")):
        check = check_faces(es)
        assert check.acyclic and check.realized, es.method
        assert check.simulated_mults == es.mults
        assert check.realization.verify().ok


# of seeds 0-11, those whose runs reach every line of dgraph the twelve reached (coverage,
# 2026-12)
@pytest.mark.parametrize("seed", [4, 6, 8, 10])
def test_structure_methods_are_checked(seed):
    """zhou, dstar, umbrella and layers on compositions: the check always ends in an
    order whose simulation verifies (realized, or cheaper when a method repeats a
    product)."""
    g = random_composition(seed, 2, 4)
    for method in ("zhou", "dstar", "umbrella", "layers", "best"):
        es = accumulate(g, method, budget=1)
        check = check_faces(es)
        assert check.acyclic
        assert check.realization.verify().ok
        assert check.realized or check.simulated_mults < es.mults


def test_path_limit_is_a_clear_error():
    """The path-tracking reference check keeps its limit; the default check has none."""
    es = accumulate(bundled("naumann_discrepancy.json"), "forward")
    assert check_faces_paths(es).realized  # under the default limit
    with pytest.raises(DGraphError, match=r"input-output paths; .* stop at 2$"):
        check_faces_paths(es, path_limit=2)
    assert check_faces(es).realized


# -- face-optimal -------------------------------------------------------------------------


def test_face_optimal_paper_graphs():
    """The papers' examples are solved exactly with no option: Naumann's discrepancy
    graph (9 faces) in 13 multiplications, proven (issue 40, item 5: it was refused)."""
    assert face_optimal(bundled("naumann_sin.trace")).mults == 3
    es = face_optimal(bundled("naumann_discrepancy.json"))
    assert (es.mults, es.info["optimal"], es.info["lower_bound"]) == (13, True, 13)
    assert es.verify().ok and check_faces(es).realized


def test_cli_face_optimal_discrepancy_needs_no_option(capsys):
    assert main(["accumulate", "dgraph/data/naumann_discrepancy.json", "-m", "face-optimal"]) == 0
    out = capsys.readouterr().out
    assert "face-optimal: 13 mults" in out and "proven optimal" in out


def test_face_optimal_fourteen_faces_exact():
    """A graph of FACE_LIMIT = 14 intermediate faces, solved exactly with no budget: 10,
    as an exhaustive breadth-first search over every face state finds (237 s, run once)."""
    rng = random.Random(7)
    g = random_dag(7, rng.randint(1, 3), rng.randint(2, 5), rng.randint(1, 3), 0.5)
    assert len(intermediate_faces(line_graph(g))) == FACE_LIMIT == 14
    es = face_optimal(g)
    assert (es.mults, es.info["optimal"]) == (10, True) and es.verify().ok


def test_face_optimal_refuses_large_without_budget():
    with pytest.raises(SearchTooLarge, match=r"exact without a budget up to 14.*--budget"):
        face_optimal(bundled("spherical_coordinates.trace"))


@pytest.mark.parametrize("command", ["accumulate", "faces"])
def test_help_states_the_face_limit(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert f"(face-optimal: {FACE_LIMIT}" in " ".join(capsys.readouterr().out.split())


def _no_edge_optimal(*_, **__):
    raise SearchTooLarge("edge-optimal left out")


def test_face_optimal_budget_is_counted_not_timed(monkeypatch):
    """A budget is units of work for the face search, not seconds: the same budget gives
    the same result and the same work spent; one too small for the bound returns
    Markowitz's faces, unproven, with an admissible lower bound."""
    import dgraph.faces.optimal as optimal

    monkeypatch.setattr(optimal, "edge_optimal", _no_edge_optimal)  # its budget is its own
    g = bundled("spherical_coordinates.trace")
    runs = [face_optimal(g, budget=0.05) for _ in range(2)]
    assert runs[0].info["work"] == runs[1].info["work"]
    assert [str(s) for s in runs[0].steps] == [str(s) for s in runs[1].steps]
    tiny = face_optimal(g, budget=1, units_per_second=1)
    assert not tiny.info["optimal"] and not tiny.info["cut_by_time"]
    assert tiny.mults == accumulate(g, "markowitz").mults and tiny.verify().ok
    assert 0 < tiny.info["lower_bound"] <= 28  # 28: the optimum the search proves with time


def test_face_optimal_wall_clock_ceiling_is_reported(monkeypatch):
    """The wall-clock ceiling, a safety net, says when it bit (a deadline already past)."""
    import dgraph.faces.optimal as optimal

    monkeypatch.setattr(optimal, "ceiling_for", lambda budget: -1.0)
    monkeypatch.setattr(optimal, "edge_optimal", _no_edge_optimal)
    es = face_optimal(bundled("spherical_coordinates.trace"), budget=10)
    assert es.info["cut_by_time"] and not es.info["optimal"] and es.verify().ok
    assert es.info["work"] < 10 * optimal.UNITS_PER_SECOND


def test_face_optimal_at_most_edge_and_vertex_optimal():
    """On small random graphs (at most 10 faces): proven optima, ordered."""
    checked = 0
    for seed in range(80):
        rng = random.Random(seed)
        g = random_dag(seed, rng.randint(1, 2), rng.randint(1, 4), rng.randint(1, 2), 0.4)
        if len(intermediate_faces(line_graph(g))) > 10:
            continue
        f = face_optimal(g)
        e, v = accumulate(g, "edge-optimal").mults, accumulate(g, "vertex-optimal").mults
        assert f.info["optimal"] and f.verify().ok
        assert f.mults <= e <= v
        assert rank_lower_bound(g) <= f.mults  # no constant labels: mults are effective
        assert check_faces(f).realized
        checked += 1
    assert checked >= 40


def _face_states_optimum(g) -> int:
    """The fewest face eliminations, by breadth-first search over every face state."""
    fg = FaceGraph(g)
    frontier, seen, depth = [fg.start()], {fg.start()}, 0
    while not any(not fg.faces(key) for key in frontier):
        frontier = [
            n for key in frontier for _, n in fg.expand(key) if not (n in seen or seen.add(n))
        ]
        depth += 1
    return depth


# derandomized: these draws reach every line of dgraph that 20 random draws reached, or
# lines other tests reach (coverage, 2026-12)
@settings(max_examples=12, deadline=None, derandomize=True)  # each a breadth-first search, > 50 ms
@given(st.integers(0, 10**6))
def test_face_optimal_equals_brute_force(seed):
    """On small random graphs (at most 8 faces) the A* result is the breadth-first
    optimum over every face state, and never worse than greedy faces."""
    rng = random.Random(seed)
    g = random_dag(seed, rng.randint(1, 3), rng.randint(2, 4), rng.randint(1, 3), 0.5)
    assume(0 < len(intermediate_faces(line_graph(g))) <= 8)
    es = face_optimal(g)
    assert es.info["optimal"] and es.mults == _face_states_optimum(g)
    assert es.mults <= greedy_faces(g).mults and es.verify().ok


def test_face_optimal_searches_when_the_dive_misses(monkeypatch):
    """With the dive replaced by a poor incumbent the A* itself must find the optimum."""
    from dgraph.faces.optimal import _Search

    monkeypatch.setattr(_Search, "dive", lambda self: (10**6, []))
    es = face_optimal(bundled("naumann_discrepancy.json"))
    assert (es.mults, es.info["optimal"]) == (13, True) and es.info["expanded"] >= 13
    assert es.verify().ok


@settings(max_examples=30, deadline=None)
@given(dags(max_intermediates=4), st.integers(0, 10**6))
def test_compact_states_follow_face_state(g, seed):
    """The search's compact states and FaceState agree, step by step, on random face
    orders: the same keys, the same faces."""
    rng = random.Random(seed)
    state, fg = FaceState(g, symbolic=False), FaceGraph(g)
    key = fg.start()
    while True:
        assert key == state.key() and len(fg.faces(key)) == len(state.faces())
        if not state.faces():
            break
        move = rng.choice(fg.faces(key))
        where = {c: v for v, c in _contents(state).items()}
        state.eliminate(where[move[0]], where[move[1]])
        key = fg.eliminate(key, move)


def test_face_optimal_never_worse_than_greedy_and_edge_optimal():
    """Every bundled example within the limit: proven, verified, realized, at most greedy
    faces (either tie-break) and edge-optimal."""
    for name in (
        "naumann_sin.trace",
        "naumann_discrepancy.json",
        "zhou_two_blocks.json",
        "zhou_complex_block.json",
    ):
        g = bundled(name)
        es = face_optimal(g)
        assert es.info["optimal"] and es.verify().ok and check_faces(es).realized, name
        greedy = min(greedy_faces(g, tie).mults for tie in ("forward", "reverse"))
        assert es.mults <= min(greedy, accumulate(g, "edge-optimal").mults), name


# -- greedy face elimination, priced in effective multiplications -------------------------


@pytest.mark.parametrize("seed", range(15))
def test_face_effective_pricing_matches_the_expression_set(seed):
    """The kinds a face state carries (unit, constant, general) price every face as the
    finished expression set counts it; programs with + and 2*x give unit and constant
    labels."""
    g = random_program(seed, n_inputs=2, n_statements=10, n_outputs=2)
    rng = random.Random(seed)
    for es in (greedy_faces(g), greedy_faces(g, "reverse"), greedy_faces(g, rng=rng)):
        assert es.verify().ok
        assert es.mults == sum(s.op == "face" for s in es.steps)
        assert es.info["effective_faces"] == es.mults_effective


def test_greedy_faces_on_real_functions():
    """Verified everywhere; on the heart dipole it reaches the proven vertex optimum (102)
    and forward's 28 effective multiplications."""
    for name, build in REAL_WORLD.items():
        es = greedy_faces(build(), "reverse")
        assert es.verify().ok and es.info["effective_faces"] == es.mults_effective, name
    heart = greedy_faces(REAL_WORLD["heart-dipole"]())
    assert (heart.mults, heart.mults_effective) == (102, 28)


# -- CLI ----------------------------------------------------------------------------------


def test_cli_faces_json(capsys):
    assert (
        main(["faces", "dgraph/data/naumann_discrepancy.json", "-m", "edge-optimal", "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["acyclic"] is True and out["cycle"] is None
    assert out["mults"] == out["simulated_mults"] == 13
    assert len(out["order"]) == 13 and all(len(f) == 2 for f in out["order"])


def test_cli_faces_all_methods(capsys):
    assert main(["faces", "dgraph/data/zhou_two_blocks.json", "-m", "all", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {m["method"] for m in out["methods"]} >= {"zhou", "dstar", "umbrella", "markowitz"}
    assert all(m["acyclic"] for m in out["methods"])


def test_cli_faces_bad_method_exits_2(capsys):
    # in this process: the process's own exit is tests/test_cli.py's real-process test
    assert main(["faces", "dgraph/data/naumann_sin.trace", "-m", "nope"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "unknown method" in err


def test_cli_face_greedy_and_its_path_limit(capsys, tmp_path):
    """``-m face-greedy`` is a method like the others, checked by its own face check;
    beyond the path limit it is a one-line error."""
    assert main(["faces", "dgraph/data/spherical_coordinates.trace", "-m", "face-greedy"]) == 0
    assert "realized" in capsys.readouterr().out
    big = tmp_path / "chebyshev-20.json"
    big.write_text(chebyshev(20).to_json())
    assert main(["accumulate", str(big), "-m", "face-greedy"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "13529 input-output paths" in err


def test_dstar_on_spherical_harmonics_has_circular_dependencies():
    """D* shares path products across pairs through references grouped differently for
    different outputs: on spherical harmonics of order 5 that yields Zhou's circular
    dependency, found by the check; zhou and umbrella on the same graph are realized."""
    from dgraph.bench.suite import spherical_harmonics

    g = spherical_harmonics(5)
    check = check_faces(accumulate(g, "dstar"))
    assert not check.acyclic and len(check.cycle) >= 2
    assert check.cycle[0].face == check.cycle[-1].waits_for
    for dep, nxt in itertools.pairwise(check.cycle):
        assert dep.waits_for == nxt.face
    for method in ("zhou", "umbrella"):
        assert check_faces(accumulate(g, method)).realized


def test_a_scalar_program_read_at_the_array_level_is_realized_at_its_block_price(tmp_path, capsys):
    """A running value with constant coefficients read at the array level: its blocks
    of constants fold for free, so the expression set costs 2 mults; the face
    simulation eliminates 117 faces and its realization costs the same 2 (it used to
    compare the face count with the block price and say "not realized at its cost")."""
    lines = ["def f(x, y):", "    t = x"]
    lines += [f"    t = t * 0.9999 + {k % 7 + 1} * y" for k in range(30)]
    (tmp_path / "chain.py").write_text("\n".join([*lines, "    return t, t * y"]) + "\n")
    es = accumulate(load(f"{tmp_path / 'chain.py'}:f", level="array"), "markowitz")
    assert es.graph.is_tensor and es.mults == 2
    check = check_faces(es)
    assert check.realized and check.simulated_mults == 2 and len(check.order) == 117
    assert main(["faces", f"{tmp_path / 'chain.py'}:f", "--level", "array"]) == 0
    assert "acyclic, realized: 117 face eliminations, 2 mults" in capsys.readouterr().out
