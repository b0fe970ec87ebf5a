"""The explorer's state machine (:class:`dgraph.render.explore.Exploration`): its counts
are what :func:`dgraph.accumulate` counts for the same order, undo and redo round trip,
illegal moves are refused in one line, and the exported order replays through the CLI's
``--order``. The widget's Python side (:mod:`dgraph.render.widget`) where anywidget is
installed; the click in a real browser is tests/test_explore_browser.py."""

from __future__ import annotations

import importlib.util
import json
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dgraph
from dgraph.cli import main
from dgraph.errors import InputError
from dgraph.faces.sequence import parse_faces, replay_faces
from dgraph.frontends import bundled
from dgraph.render.explore import Exploration, IllegalMove
from dgraph.render.text import expression_set_latex

from .strategies import dags, labeled_dags

HAS_ANYWIDGET = importlib.util.find_spec("anywidget") is not None
BUNDLED = ["naumann_sin.trace", "naumann_discrepancy.json", "spherical_coordinates.trace"]


def _state(x: Exploration) -> tuple:
    """Everything a view shows: labels of every edge, references, counts, order."""
    s = x.state
    labels = {(u, v): str(lab) for u, out in s.succ.items() for v, lab in out.items()}
    refs = {str(r): str(d) for r, d in s.references.items()}
    return labels, refs, x.mults, x.structural, x.order_text(), x.latex()


# -- counts are accumulate's ----------------------------------------------------------------


def test_naumann_sin_orders_paper_counts():
    """Naumann's sin example: eliminating v1 first costs 4, v2 first 3 (the optimum)."""
    g = bundled("naumann_sin.trace")
    x = Exploration(g)
    assert (x.eliminate("v1"), x.eliminate("v2"), x.mults) == (2, 2, 4)
    x.reset()
    assert (x.eliminate("v2"), x.eliminate("v1"), x.mults) == (2, 1, 3)
    assert x.best_known == (3, "reverse") and x.lower_bound == 3
    assert x.summary()["mults"] == x.summary()["best"] == x.summary()["lower_bound"]


@pytest.mark.parametrize("name", BUNDLED)
def test_vertex_orders_count_as_accumulate(name):
    g = bundled(name)
    for order in (g.intermediates, g.intermediates[::-1]):
        x = Exploration(g)
        running = [x.eliminate(v) for v in order]
        es = dgraph.accumulate(g, "vertex", order=order)
        assert x.done() and x.mults == sum(running) == es.mults_effective
        assert x.structural == es.mults
        assert x.expression_set().mults == es.mults
        assert x.expression_set().jacobian == es.jacobian
    assert x.lower_bound is not None and x.lower_bound <= min(x.best_known.mults, x.mults)


def test_a_tensor_graph_counts_scalar_multiplications_of_its_blocks():
    """On a tensor graph the count is the blocks' scalar multiplications, as accumulate's."""
    from .test_render_tensor import _layer

    g = _layer()
    x = Exploration(g)
    for v in g.intermediates:
        x.eliminate(v)
    es = dgraph.accumulate(g, "vertex", order=g.intermediates)
    assert x.mults == es.mults_effective == 120 and x.structural == 6  # block products
    assert x.lower_bound is None and x.summary()["tensor"] is True


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(labeled_dags(max_intermediates=5), st.randoms(use_true_random=False))
def test_random_moves_count_as_accumulate(g, rnd):
    """Any legal sequence (vertex, front and back moves, drawn at random) counts, move by
    move and in total, what accumulate's ``edges`` method builds from the same sequence."""
    x = Exploration(g)
    while not x.done():
        move = rnd.choice(x.legal_moves())
        predicted = x.cost(move)
        assert x.apply(move) == predicted
    es = dgraph.accumulate(g, "edges", sequence=x.moves)
    assert (x.mults, x.structural) == (es.mults_effective, es.mults)
    assert x.expression_set().mults == es.mults
    assert x.expression_set().verify().ok


# -- undo and redo ------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dags(max_intermediates=5), st.lists(st.integers(0, 99), max_size=14))
def test_undo_redo_round_trip(g, choices):
    """After any mix of moves, undos and redos, the state is the one replayed from
    scratch; undoing everything gives the start, redoing everything the end."""
    x = Exploration(g)
    start = _state(x)
    for c in choices:
        kind = c % 4
        if kind == 0 and x.can_undo():
            x.undo()
        elif kind == 1 and x.can_redo():
            x.redo()
        elif x.legal_moves():
            x.apply(x.legal_moves()[c % len(x.legal_moves())])
        fresh = Exploration(g)
        for move in x.moves:
            fresh.apply(move)
        assert _state(fresh) == _state(x)
    while x.can_redo():
        x.redo()
    end, made = _state(x), x.moves
    x.reset()
    assert _state(x) == start and not x.can_undo()
    while x.can_redo():
        x.redo()
    assert _state(x) == end and x.moves == made and not x.can_redo()


def test_a_new_move_clears_redo():
    x = Exploration(bundled("naumann_sin.trace"))
    x.eliminate("v1")
    x.undo()
    assert x.can_redo()
    x.eliminate("v2")
    assert not x.can_redo() and x.order_text() == "v2"
    with pytest.raises(IllegalMove, match="nothing to redo"):
        x.redo()
    x.undo()
    with pytest.raises(IllegalMove, match="nothing to undo"):
        x.undo()


# -- illegal moves --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "move, message",
    [
        (("vertex", "x0"), "cannot eliminate 'x0': it is an input, not an intermediate"),
        (("vertex", "y"), "cannot eliminate 'y': it is an output, not an intermediate"),
        (("vertex", "nope"), "cannot eliminate 'nope': not a vertex left in the graph"),
        (("forward", ("x0", "v2")), "its source 'x0' is an input, not an intermediate"),
        (("backward", ("v2", "y")), "its target 'y' is an output, not an intermediate"),
        (("forward", ("x0", "y")), "cannot forward-eliminate x0 -> y: no such edge now"),
        (("sideways", ("v1", "v2")), "unknown move 'sideways'"),
        (("forward", "v1"), "forward elimination needs an edge"),
    ],
)
def test_illegal_moves_are_refused_in_one_line(move, message):
    x = Exploration(bundled("naumann_sin.trace"))
    before = _state(x)
    with pytest.raises(IllegalMove, match=re.escape(message)) as info:
        x.apply(move)
    assert "\n" not in str(info.value) and isinstance(info.value, InputError)
    assert _state(x) == before


def test_an_eliminated_vertex_cannot_go_twice_and_unfinished_has_no_set():
    x = Exploration(bundled("naumann_sin.trace"))
    x.eliminate("v1")
    with pytest.raises(IllegalMove, match="not a vertex left"):
        x.eliminate("v1")
    with pytest.raises(IllegalMove, match="not finished: intermediates left: v2"):
        x.expression_set()


def test_not_a_graph():
    with pytest.raises(InputError, match="explore needs a DGraph, not str"):
        Exploration("v1,v2")


# -- export ---------------------------------------------------------------------------------


def _cli(capsys, path: str, x: Exploration) -> dict:
    code = main(["accumulate", path, "-m", x.method(), "--order", x.order_text(), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_order_text_replays_through_the_cli(capsys, tmp_path):
    g = bundled("naumann_discrepancy.json")
    path = tmp_path / "g.json"
    path.write_text(g.to_json())
    x = Exploration(g)
    for v in ["k", "i"]:
        x.eliminate(v)
    assert (x.method(), x.order_text()) == ("vertex", "k,i")
    assert _cli(capsys, str(path), x)["mults"] == x.structural == 14
    # front, back and vertex moves together: method edges, items f:, b: and v:
    x = Exploration(g)
    x.front("i", "y1")
    x.back("k", "i")
    while not x.done():
        x.eliminate(x.intermediates()[0])
    assert x.method() == "edges" and x.order_text().startswith("f:i>y1,b:k>i,v:")
    data = _cli(capsys, str(path), x)
    es = x.expression_set()
    assert data["mults"] == es.mults == x.structural and data["verified"] is True
    assert [s["mults"] for s in data["steps"]] == [s.mults for s in x.steps]
    assert (
        x.command("g.json") == f"dgraph accumulate g.json --method edges --order '{x.order_text()}'"
    )


def test_cli_refuses_a_vertex_item_that_is_no_intermediate(capsys):
    code = main(["accumulate", str(bundled_path()), "-m", "edges", "--order", "v:x0"])
    assert code == 2
    assert "'x0' is an input" in capsys.readouterr().err


def bundled_path():
    from dgraph.data import __file__ as data

    return __import__("pathlib").Path(data).parent / "naumann_sin.trace"


def test_latex_so_far():
    """The references named so far, then the input-output labels present, in the
    expression set's LaTeX notation (:func:`~dgraph.render.text.latex_rows`)."""
    x = Exploration(bundled("naumann_sin.trace"))
    assert x.latex() == "\\begin{aligned}\n\n\\end{aligned}"
    x.eliminate("v2")
    assert x.latex().split("\n")[1:-1] == [
        r"\frac{\partial y}{\partial x_{0}} &= c_{y,v_{2}} c_{v_{2},x_{0}}"
    ]
    x.eliminate("v1")
    assert x.latex().split("\n")[1:-1] == [
        r"r_{1} &= c_{y,v_{1}} + c_{y,v_{2}} c_{v_{2},v_{1}} \\",
        r"\frac{\partial y}{\partial x_{0}} &= c_{y,v_{2}} c_{v_{2},x_{0}} \\",
        r"\frac{\partial y}{\partial x_{1}} &= r_{1} c_{v_{1},x_{1}}",
    ]
    # the finished set inlines r1 (used once): the same Jacobian
    assert expression_set_latex(x.expression_set()).count("r_{1}") == 0


# -- the widget's Python side -------------------------------------------------------------


def test_explore_without_anywidget_says_how_to_install(monkeypatch):
    from dgraph.render import widget

    monkeypatch.setitem(__import__("sys").modules, "anywidget", None)
    widget._widget_class.cache_clear()
    try:
        with pytest.raises(InputError) as info:
            dgraph.explore(bundled("naumann_sin.trace"))
    finally:
        widget._widget_class.cache_clear()
    assert str(info.value) == widget.INSTALL and "pip install" in str(info.value)


def test_drawing_ids_name_the_clickable_elements():
    from dgraph.render.widget import drawing

    x = Exploration(bundled("naumann_sin.trace"))
    picture, targets = drawing(x)
    svg = picture.svg().replace("&#45;", "-")
    ids = set(re.findall(r'<g id="(dgx_[^"]+)"', svg))
    assert ids == set(targets)
    vertices = {t[1] for t in targets.values() if t[0] == "vertex"}
    edges = {tuple(t[1]) for t in targets.values() if t[0] == "edge"}
    assert vertices == {"v1", "v2"}
    assert edges == {(u, v) for u, v in x.edges()}  # every edge touches v1 or v2
    x.eliminate("v2")
    x.eliminate("v1")
    assert drawing(x)[1] == {}  # nothing left to click


@pytest.mark.skipif(not HAS_ANYWIDGET, reason="anywidget not installed")
def test_widget_click_updates_everything_at_once():
    w = dgraph.explore(bundled("naumann_sin.trace"))
    svg = w.view.svg
    assert w.view.summary["mults"] == 0 and w.math.value == "" and not w.view.can_undo
    w.click(["vertex", "v2"])
    assert w.view.summary["mults"] == 2 and w.view.svg != svg and w.view.can_undo
    assert "c_{y,v_{2}} c_{v_{2},x_{0}}" in w.math.value and w.view.message == ""
    w.click(["vertex", "x0"])
    assert w.view.message == "cannot eliminate 'x0': it is an input, not an intermediate"
    w._on_message(w.view, {"action": "undo"}, [])
    assert w.view.summary["mults"] == 0 and w.view.can_redo and w.view.message == ""
    w._on_message(w.view, {"action": "redo"}, [])
    w.click(["backward", ["x1", "v1"]])
    assert w.view.summary["order"] == "v:v2,b:x1>v1" and w.view.summary["method"] == "edges"
    w.click(["vertex", "v1"])
    assert w.view.summary["done"] and w.expression_set().verify().ok


# -- faces: the line-graph view -----------------------------------------------------------


def _face_state(x: Exploration) -> tuple:
    """Everything either view shows, a line graph no graph has included."""
    line = x.line
    labels = {line.name[v]: str(lab) for v, lab in line.label.items() if v in line.succ}
    graph = _state(x)[:2] if x.is_graph() else None
    return labels, graph, x.mults, x.structural, x.order_text(), x.latex(), x.faces()


def test_face_optimal_by_clicks_on_the_discrepancy_graph():
    """Naumann's discrepancy example: face-optimal's 13 faces, clicked one by one in the
    line graph, cost 13, what the faces module counts, and replay as method faces."""
    g = bundled("naumann_discrepancy.json")
    es = dgraph.accumulate(g, "face-optimal")
    x = Exploration(g)
    for step in es.steps:
        if step.op == "face":
            assert x.cost(("face", step.target)) == x.face(*step.target)
    assert x.done() and (x.structural, x.mults) == (13, es.mults_effective) == (13, 13)
    assert x.method() == "faces" and x.face_order() == [
        s.target for s in es.steps if s.op == "face"
    ]
    mine = x.expression_set()
    assert mine.method == "faces" and mine.verified and mine.jacobian == es.jacobian


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(labeled_dags(max_intermediates=4), st.randoms(use_true_random=False))
def test_mixed_moves_count_as_the_faces_module(g, rnd):
    """Vertex, edge and face moves drawn at random (graph moves while the state is a
    graph's): every move costs what it said it would, and the whole, replayed from its
    ``--order`` text by the faces module, counts what the explorer counted."""
    x = Exploration(g)
    while not x.done():
        moves = x.face_moves() if rnd.random() < 0.5 or not x.is_graph() else x.legal_moves()
        move = rnd.choice(moves or x.face_moves())
        predicted = x.cost(move)
        assert x.apply(move) == predicted
    replayed = replay_faces(g, parse_faces(x.order_text())) if x.method() == "faces" else None
    es = x.expression_set()
    assert es.verified and (es.mults, es.mults_effective) == (x.structural, x.mults)
    if replayed is not None:
        assert replayed.jacobian == es.jacobian and replayed.mults == es.mults


@pytest.mark.parametrize("name", ["naumann_discrepancy.json", "zhou_two_blocks.json"])
def test_mixed_moves_leaving_the_graphs(name):
    """Graphs with vertices of two edges in and two out, where random faces leave the
    graph states most of the time: counts, undo and redo, and the finished set as above."""
    g = bundled(name)
    left = 0
    for seed in range(8):
        rnd = random.Random(seed)
        x = Exploration(g)
        while not x.done():
            moves = x.legal_moves() if rnd.random() < 0.3 and x.is_graph() else x.face_moves()
            move = rnd.choice(moves)
            predicted = x.cost(move)
            assert x.apply(move) == predicted
            if rnd.random() < 0.2:
                shown = _face_state(x)
                x.undo()
                x.redo()
                assert _face_state(x) == shown
        left += not x.is_graph()
        es = x.expression_set()
        assert es.verified and (es.mults, es.mults_effective) == (x.structural, x.mults)
        replayed = replay_faces(g, parse_faces(x.order_text()))
        assert replayed.jacobian == es.jacobian
    assert left >= 4  # most runs ended in a line graph no graph has


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dags(max_intermediates=4), st.lists(st.integers(0, 99), max_size=12))
def test_undo_redo_across_views(g, choices):
    """Face moves among vertex and edge moves, undos and redos: the state (line graph,
    graph where there is one, counts, order, expression set so far) is always the one
    replayed from scratch, and undoing a face move that left the graphs gives a graph
    state back."""
    x = Exploration(g)
    start = _face_state(x)
    for c in choices:
        kind = c % 5
        if kind == 0 and x.can_undo():
            x.undo()
        elif kind == 1 and x.can_redo():
            x.redo()
        elif kind in (2, 3) and x.face_moves():
            x.apply(x.face_moves()[c % len(x.face_moves())])
        elif x.legal_moves():
            x.apply(x.legal_moves()[c % len(x.legal_moves())])
        fresh = Exploration(g)
        for move in x.moves:
            fresh.apply(move)
        assert _face_state(fresh) == _face_state(x)
    x.reset()
    assert _face_state(x) == start and x.is_graph()


def test_graph_moves_are_their_faces():
    """A vertex order, as the explorer exports it once a face is among the moves, is the
    faces the vertex eliminations consist of: same counts, same Jacobian."""
    g = bundled("spherical_coordinates.trace")
    x = Exploration(g)
    for v in g.intermediates:
        x.eliminate(v)
    es = dgraph.accumulate(g, "vertex", order=g.intermediates)
    faces = replay_faces(g, x.face_order())
    assert (faces.mults, faces.mults_effective) == (es.mults, es.mults_effective)
    assert faces.mults_effective == x.mults and faces.verify().ok


def test_a_face_that_is_an_edge_elimination_keeps_the_graph():
    """Naumann's sin example: v2 has one edge out, so its face [v1->v2, v2->y] is the back
    elimination of v1 -> v2 by itself: the graph view goes on, vertex moves may follow."""
    x = Exploration(bundled("naumann_sin.trace"))
    assert x.face("v1->v2", "v2->y") == 1 and x.is_graph()
    assert str(x.steps[-1]) == "backward v1 -> v2 (1)"
    assert x.eliminate("v1") == 1 and x.eliminate("v2") == 1 and x.done()
    assert x.method() == "faces" and x.mults == 3 == x.best_known.mults
    assert x.order_text() == "[v1->v2, v2->y], [x1->v1, v1->y], [x0->v2, v2->y]"
    assert x.expression_set().verify().ok


def test_a_face_no_graph_has_then_only_faces():
    """The discrepancy example: k has two edges in and two out, so its face [a->k, k->i]
    is no edge elimination: the state is no graph's, a vertex move is refused in one line
    naming that face, undo brings the graph back."""
    x = Exploration(bundled("naumann_discrepancy.json"))
    assert x.face("a->k", "k->i") == 1 and not x.is_graph()
    assert x.last_move() == "face [a->k, k->i] (1)"  # as --order writes it
    assert x.intermediates() == [] and x.legal_moves() == []
    with pytest.raises(IllegalMove) as info:
        x.eliminate("k")
    assert str(info.value) == (
        "cannot make a vertex elimination now: the face [a->k, k->i] is no vertex or edge"
        " elimination: the line graph it left is no graph's, so only faces can follow (undo"
        " it to go back)"
    )
    with pytest.raises(IllegalMove, match=r"the face \[a->k, k->i\] is no vertex"):
        x.state  # noqa: B018
    x.face("b->k", "k->y1")  # the expression set so far: the line graph's entries
    assert x.latex().split("\n")[1:-1] == [
        r"\frac{\partial y_{1}}{\partial b} &= c_{y_{1},k} c_{k,b}"
    ]
    assert repr(x) == "<Exploration naumann-discrepancy: 2 moves, 2 mults, 12 faces left>"
    x.undo()
    x.undo()
    assert x.is_graph() and x.intermediates() == ["k", "i"]


@pytest.mark.parametrize(
    "move, message",
    [
        (("face", ("x0->v2", "v1->y")), "cannot eliminate the face [x0->v2, v1->y]: no face"),
        (
            ("face", ("x0->v9", "v2->y")),
            "cannot eliminate the face [x0->v9, v2->y]: no line-graph vertex named 'x0->v9'",
        ),
        (("face", ("⊕->x0", "x0->v2")), "it joins an input's or output's end (⊕/⊖)"),
        (("face", "x0->v2"), "a face move needs two line-graph vertex names"),
        (("face", ("x0->v2", 3)), "a face move needs two line-graph vertex names"),
        (("vertex",), "a move is (kind, target)"),
    ],
)
def test_bad_face_clicks_are_refused_in_one_line(move, message):
    x = Exploration(bundled("naumann_sin.trace"))
    before = _face_state(x)
    with pytest.raises(IllegalMove, match=re.escape(message)) as info:
        x.apply(move)
    assert "\n" not in str(info.value) and isinstance(info.value, InputError)
    assert _face_state(x) == before


def test_no_line_graph_for_a_tensor_graph():
    from .test_render_tensor import _layer

    x = Exploration(_layer())
    assert x.line_refusal.startswith("the line graph is not drawn for a tensor graph")
    with pytest.raises(IllegalMove, match="not drawn for a tensor graph"):
        x.apply(("face", ("a->b", "b->c")))
    x.eliminate(x.intermediates()[0])  # the graph's moves do not need it
    assert x.method() == "vertex"


def test_face_order_replays_through_the_cli(capsys, tmp_path):
    """The order as text: ``dgraph accumulate --method faces --order`` builds the same
    expression set, ``dgraph faces --order`` finds it realized at the same cost."""
    g = bundled("naumann_discrepancy.json")
    path = tmp_path / "g.json"
    path.write_text(g.to_json())
    x = Exploration(g)
    x.front("i", "y1")
    x.face("a->k", "k->i")
    x.face("b->k", "k->y1")
    while not x.done():
        x.apply(x.face_moves()[-1])
    data = _cli(capsys, str(path), x)
    es = x.expression_set()
    assert data["method"] == "faces" and data["verified"] is True
    assert data["mults"] == es.mults == x.structural
    assert data["mults_effective"] == x.mults
    assert data["jacobian"] == es.to_dict()["jacobian"]
    assert data["references"] == es.to_dict()["references"]
    assert (
        x.command("g.json") == f"dgraph accumulate g.json --method faces --order '{x.order_text()}'"
    )
    assert main(["faces", str(path), "--order", x.order_text(), "--json"]) == 0
    check = json.loads(capsys.readouterr().out)
    assert check["method"] == "faces" and check["realized"] and check["mults"] == x.structural
    # what dgraph faces prints as an order is --order text too
    assert main(["faces", str(path), "-m", "face-optimal"]) == 0
    printed = capsys.readouterr().out.split("order: ")[1].strip()
    assert main(["accumulate", str(path), "-m", "faces", "--order", printed, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mults"] == 13


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--order", "x0->v2, v2->y"], "--order: expected a face [SOURCE->TARGET, SOURCE->TARGET]"),
        (["--order", " "], "--order: no faces given"),
        (["--order", "[x0->v2, v2->y]"], "faces: 3 faces left after the sequence"),
        (["--order", "[x0->v2, v1->y]"], "faces: face 1 [x0->v2, v1->y]: no face x0->v2 -> v1->y"),
        (["--order", "v2,v1", "-m", "markowitz"], "--order replays methods vertex, edges, faces"),
    ],
)
def test_cli_refuses_a_bad_face_order_in_one_line(capsys, argv, message):
    assert main(["faces", str(bundled_path()), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_line_drawing_is_pinned_and_names_its_faces():
    """Every intermediate face is clickable by its id; vertices the start had stay where
    the start layout put them, a product takes the place of a vertex it replaced or stands
    free of the others."""
    from dgraph.render.widget import _box, line_drawing, start_line_layout

    g = bundled("naumann_discrepancy.json")
    x = Exploration(g)
    layout = start_line_layout(g)
    picture, targets = line_drawing(x, layout=layout)
    svg = picture.svg().replace("&#45;", "-").replace("&gt;", ">")
    assert set(re.findall(r'<g id="(dgx_[^"]+)"', svg)) == set(targets)
    assert {tuple(t[1]) for t in targets.values()} == set(x.faces())
    assert all(t[0] == "face" for t in targets.values())
    for face in [("a->k", "k->i"), ("b->k", "k->y1"), ("a->i", "i->y2")]:
        x.face(*face)
        picture, targets = line_drawing(x, layout=layout)
        nodes = {n: node.attrs for n, node in picture.scene.nodes.items() if n.startswith("f")}
        for n, attrs in nodes.items():
            if n in layout.nodes:
                assert attrs["pos"] == layout.nodes[n]["pos"] + "!"
        boxes = {n: _box({**a, "pos": a["pos"]}) for n, a in nodes.items()}
        for n, (u, v, a, b) in boxes.items():  # no two vertices overlap
            for m, (p, q, c, d) in boxes.items():
                assert n == m or abs(u - p) >= a + c or abs(v - q) >= b + d, (n, m)
        assert {tuple(t[1]) for t in targets.values()} == set(x.faces())
        assert "<svg" in picture.svg()


@pytest.mark.skipif(not HAS_ANYWIDGET, reason="anywidget not installed")
def test_widget_line_view_clicks_a_face():
    w = dgraph.explore(bundled("naumann_discrepancy.json"), view="line")
    assert w.view.view == "line" and w.view.summary["faces_left"] == 9
    assert {t[0] for t in w.view.targets.values()} == {"face"}
    svg = w.view.svg
    w.click(["face", ["a->k", "k->i"]])
    assert w.view.summary["mults"] == 1 and w.view.svg != svg and w.view.message == ""
    assert w.view.summary["order"] == "[a->k, k->i]" and not w.view.summary["graph_state"]
    w.click(["face", ["b->k", "k->y1"]])
    assert r"\frac{\partial y_{1}}{\partial b} &= c_{y_{1},k} c_{k,b}" in w.math.value
    w._on_message(w.view, {"action": "view", "view": "graph"}, [])
    assert w.view.svg == "" and w.view.targets == {}
    assert w.view.notice.startswith("The graph view cannot draw this state: the face [a->k")
    w.click(["vertex", "k"])
    assert w.view.message.startswith("cannot make a vertex elimination now")
    w._on_message(w.view, {"action": "undo"}, [])
    assert w.view.notice.startswith("The graph view cannot draw this state")
    w._on_message(w.view, {"action": "undo"}, [])
    assert w.view.notice == "" and "<svg" in w.view.svg and w.view.summary["graph_state"]
    w._on_message(w.view, {"action": "view", "view": "sideways"}, [])
    assert w.view.message == "unknown view 'sideways': graph or line" and w.view.view == "graph"


@pytest.mark.skipif(not HAS_ANYWIDGET, reason="anywidget not installed")
def test_widget_refuses_the_line_view_of_a_tensor_graph():
    from .test_render_tensor import _layer

    w = dgraph.explore(_layer())
    assert w.view.line_refusal.startswith("the line graph is not drawn for a tensor graph")
    w._on_message(w.view, {"action": "view", "view": "line"}, [])
    assert w.view.view == "graph" and w.view.message == w.view.line_refusal
