"""Zhou's factorizer (seed 001): structures, factorization, pages, layers, round trips."""

from __future__ import annotations

import itertools
import json

import networkx as nx
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

import dgraph
from dgraph.core.expressions import ExpressionSet, make_expression_set, reference_symbol
from dgraph.core.verify import verify
from dgraph.dominance.trees import Tree
from dgraph.elimination.labeled import LabeledGraph
from dgraph.errors import DGraphError
from dgraph.frontends.random_graphs import random_composition, random_series_parallel
from dgraph.zhou import structure as structure_module
from dgraph.zhou.convert import expression_graph
from dgraph.zhou.factorize import _paths_between, zhou
from dgraph.zhou.layers import _bracketing, layer_chain, layers
from dgraph.zhou.listing import list_paths
from dgraph.zhou.segment import segment
from dgraph.zhou.simple import decompose
from dgraph.zhou.structure import complex_blocks, undivided_bipartite, zhou_structure
from tests import jax_reference as jref

from .strategies import dags


def _graph(name: str, edges: str, inputs="t", outputs="r") -> dgraph.DGraph:
    """A graph from Zhou-style dependence edges 'r>a a>c ...' (upper>lower)."""
    pairs = [e.split(">") for e in edges.split()]
    data = {
        "format": "dgraph/1",
        "name": name,
        "inputs": inputs.split(),
        "outputs": outputs.split(),
        "edges": [{"source": lower, "target": upper} for upper, lower in pairs],
    }
    return dgraph.from_json(json.dumps(data))


# Fig. 4.1 (b)-style: the two blocks of Fig. 4.1 (a) merged, v removed: a complex block
COMPLEX = "r>a r>b a>c a>d b>c b>d c>t d>t"
# a wider complex block: three upper, two lower vertices
WIDE = "r>a r>b r>c a>d a>e b>d b>e c>d c>e d>t e>t"


def test_two_chained_simple_blocks(two_blocks_graph):
    """(r_a a_v + r_b b_v)(v_c c_t + v_d d_t): 5 multiplications; 12 path by path."""
    es = dgraph.accumulate(two_blocks_graph, "zhou")
    assert es.verified and es.mults == 5
    assert es.to_text() == "dr/dt = (d_r_a*d_a_v + d_r_b*d_b_v)*(d_v_c*d_c_t + d_v_d*d_d_t)"
    listed = dgraph.accumulate(two_blocks_graph, "paths")
    assert listed.verified and listed.mults == 12 == dgraph.naive_cost(two_blocks_graph)
    assert len(sympy.Add.make_args(listed.jacobian["r", "t"])) == 4


def test_backward_and_forward_factorization_of_a_complex_block():
    """Backward splits the lower vertices c, d (in-degree 2): r_a(a_c c_t + a_d d_t) + ...;
    forward splits the upper a, b (out-degree 2): (r_a a_c + r_b b_c) c_t + ... Both 6."""
    g = _graph("complex", COMPLEX)
    back = dgraph.accumulate(g, "zhou", strategy="global", variant="backward")
    fwd = dgraph.accumulate(g, "zhou", strategy="global", variant="forward")
    assert back.to_text() == (
        "dr/dt = d_r_a*(d_a_c*d_c_t + d_a_d*d_d_t) + d_r_b*(d_b_c*d_c_t + d_b_d*d_d_t)"
    )
    assert fwd.to_text() == (
        "dr/dt = (d_r_a*d_a_c + d_r_b*d_b_c)*d_c_t + (d_r_a*d_a_d + d_r_b*d_b_d)*d_d_t"
    )
    assert back.mults == fwd.mults == 6 and back.verified and fwd.verified
    # the split graphs, as Zhou draws them (Fig. 4.2): copies of c, d or of a, b
    assert sorted(expression_graph(back.inline_single_use()).origin.values()).count("c") == 2
    assert sorted(expression_graph(fwd).origin.values()).count("a") == 2


def test_factorizations_differ_in_cost():
    """Backward: d, e split (3 copies each, 3 + 3) then a, b, c fold (3): 9.
    Forward: a, b, c split (2 each: 6) then d, e fold (2): 8."""
    g = _graph("wide", WIDE)
    back = dgraph.accumulate(g, "zhou", strategy="global", variant="backward")
    fwd = dgraph.accumulate(g, "zhou", strategy="global", variant="forward")
    assert (back.mults, fwd.mults) == (9, 8)
    assert back.verified and fwd.verified
    best = dgraph.accumulate(g, "zhou")
    assert best.mults == 8 and best.info["variant"] == "forward"
    assert best.info["tried"]["global/backward"] == 9


def test_structure_of_two_blocks(two_blocks_graph):
    s = zhou_structure(two_blocks_graph)
    blocks = {(b["source"], b["sink"]): b for b in s["blocks"]}
    assert set(blocks) == {("r", "v"), ("v", "t")}
    assert all(b["kind"] == "simple" and b["direct"] for b in blocks.values())
    assert blocks["r", "v"]["inner"] == ["a", "b"]
    chains = {(c["source"], c["sink"], tuple(c["inner"])): c for c in s["chains"]}
    assert chains["r", "t", ("c", "d", "v", "a", "b")]["kind"] == "indirect"
    assert chains["r", "v", ("a",)]["kind"] == "direct"
    assert s["levels"] == [["r"], ["a", "b"], ["v"], ["c", "d"], ["t"]]
    assert s["cross_level_edges"] == []


def test_structure_finds_complex_blocks_and_nesting():
    """The complex block p..q (a, b over c, d) sits inside the blocks r..q and p..t
    (Def. 3.1 lets a block's source and sink have edges outside it)."""
    g = _graph("nested", "r>p p>a p>b a>c a>d b>c b>d c>q d>q q>t r>t")
    blocks = {(b["source"], b["sink"]): b for b in zhou_structure(g)["blocks"]}
    assert set(blocks) == {("p", "q"), ("r", "q"), ("p", "t")}
    assert all(b["kind"] == "complex" for b in blocks.values())
    assert set(blocks["p", "q"]["inner"]) == {"a", "b", "c", "d"}
    listed = zhou_structure(g)["blocks"]
    parent = listed[blocks["p", "q"]["parent"]]
    assert (parent["source"], parent["sink"]) in {("r", "q"), ("p", "t")}


def test_levels_cross_level_edges_and_segmentation(sin_graph, discrepancy_graph):
    s = zhou_structure(sin_graph)
    assert s["cross_level_edges"] == [["v2", "x0", 2], ["y", "v1", 2]]
    seg = segment(sin_graph)
    assert sorted(seg.intermediates) == ["v1", "v1__2", "v2", "x0__3"]
    assert zhou_structure(seg)["cross_level_edges"] == []
    assert (
        dgraph.accumulate(seg, "forward").substitute()["y", "x1"]
        == (dgraph.accumulate(sin_graph, "forward").substitute()["y", "x1"])
    )
    d = zhou_structure(discrepancy_graph)
    assert d["r_degree"]["k"] == 5 and d["t_degree"]["k"] == 2 and d["r_degree"]["y3"] == 1
    pieces = d["bipartite"]
    assert [p["levels"] for p in pieces] == [[1, 2], [2, 3], [3, 4]]
    assert pieces[0]["lower"] == ["i", "k__2"]


def test_layers_choose_the_bracketing(two_blocks_graph, sin_graph):
    es = layers(two_blocks_graph)
    assert es.mults == 5 and es.info["bracketing"] == "((J1 J2) (J3 J4))"
    assert es.info["chain_mults"] == 5 == sum(s.mults for s in es.steps)
    assert dgraph.accumulate(sin_graph, "layers").verified


def test_layers_between_chosen_cuts(two_blocks_graph):
    """Cut at v: J1 = r_a a_v + r_b b_v and J2 = v_c c_t + v_d d_t inside their layers
    (2 + 2), then one product: 5."""
    es = dgraph.accumulate(two_blocks_graph, "layers", cuts=[["v"]])
    assert es.verified and es.mults == 5 and es.info["layers"] == 2
    with pytest.raises(DGraphError, match="out of order"):
        layers(two_blocks_graph, cuts=[["c"], ["a"]])
    with pytest.raises(DGraphError, match="unknown vertex"):
        layers(two_blocks_graph, cuts=[["nope"]])


def _all_bracketings(i, j):
    if i == j:
        yield i
        return
    for k in range(i, j):
        for left in _all_bracketings(i, k):
            for right in _all_bracketings(k + 1, j):
                yield (left, right)


def _cost(chain, tree):
    from dgraph.zhou.layers import _multiply

    def go(t):
        if isinstance(t, int):
            return chain.jacobians[t], 0
        (a, ca), (b, cb) = go(t[0]), go(t[1])
        out, m = _multiply(a, b, {})
        return out, ca + cb + m

    return go(tree)[1]


@given(dags(max_intermediates=6))
def test_layer_bracketing_is_optimal(g):
    chain = layer_chain(g)
    best, _ = _bracketing(chain)
    m = len(chain.jacobians)
    assert best == min(_cost(chain, t) for t in _all_bracketings(0, m - 1))


@given(dags(max_intermediates=7))
def test_zhou_and_layers_verify_on_random_dags(g):
    naive = dgraph.naive_cost(g)
    built = {method: dgraph.accumulate(g, method) for method in ("zhou", "layers")}
    for method, es in built.items():
        assert es.verified, (method, es.verification)
        assert es.mults == sum(s.mults for s in es.steps), method
    assert built["zhou"].mults <= naive  # the set checked above, not built again


@given(st.integers(0, 10**6), st.integers(1, 4), st.integers(1, 3))
def test_zhou_on_compositions_of_subprograms(seed, parts, outputs):
    g = random_composition(seed, parts, outputs)
    es = dgraph.accumulate(g, "zhou")
    assert es.verified and es.mults <= dgraph.naive_cost(g)
    assert es.info["strategy"] in ("global", "pages", "pairs")
    for strategy in ("global", "pages", "pairs"):
        assert dgraph.accumulate(g, "zhou", strategy=strategy).verified


def test_layers_of_a_graph_without_edges():
    """No layer to multiply: the Jacobian is zero (``_bracketing`` of an empty chain
    raised a KeyError)."""
    g = random_composition(4, 3, 2)
    assert g.n_edges == 0
    es = dgraph.accumulate(g, "layers")
    assert es.verified and dict(es.jacobian) == {} and es.mults == 0
    assert es.info["layers"] == 0


@given(st.integers(0, 10**6), st.integers(1, 10))
def test_round_trip_of_simple_graphs(seed, size):
    """graph -> expressions -> graph gives the graph back, and a simple graph is one
    nested expression costing one multiplication per link."""
    g = random_series_parallel(seed, size)
    es = zhou(g)
    assert es.references == {} and len(es.jacobian) == 1
    assert es.mults == len(g.intermediates)
    assert expression_graph(es).graph == g


def test_round_trip_preserves_noncommutative_order(two_blocks_graph):
    es = zhou(two_blocks_graph)
    entry = es.jacobian["r", "t"]
    left, right = entry.args  # (block r..v) * (block v..t)
    swapped = make_expression_set(two_blocks_graph, {}, {("r", "t"): right * left})
    with pytest.raises(DGraphError, match="does not chain"):
        expression_graph(swapped)
    assert not verify(swapped).ok


def test_pages_and_pairs_on_several_roots_and_terminals(discrepancy_graph):
    results = {
        s: dgraph.accumulate(discrepancy_graph, "zhou", strategy=s)
        for s in ("global", "pages", "pairs")
    }
    assert all(es.verified for es in results.values())
    # pairs alone: (y1, a) is the block k..y1 (i a link: 1) then k a link (1): 2, same for
    # b; each (yj, a/b), j > 1, is a chain of two links: 2; 10 pairs, 20 in all
    assert results["pairs"].mults == 20
    best = dgraph.accumulate(discrepancy_graph, "zhou")
    assert best.mults == min(es.mults for es in results.values())
    assert best.info["tried"]["pairs/backward"] == 20


def test_one_entry_and_entries_without_paths(discrepancy_graph, sin_graph):
    es = dgraph.accumulate(discrepancy_graph, "zhou", pairs=[("y3", "a")])
    assert es.verified and list(es.jacobian) == [("y3", "a")] and es.mults == 2
    g = dgraph.bundled("spherical_coordinates.trace")
    with pytest.raises(DGraphError, match="no path from phi to z"):
        zhou(g, pairs=[("z", "phi")])


def test_bad_expression_sets_are_reported(sin_graph):
    r1, r2 = reference_symbol(1), reference_symbol(2)
    d = {str(s): s for s in sin_graph.edge_symbols}
    cyclic = make_expression_set(
        sin_graph,
        {r1: r2 * d["d_v2_x0"], r2: r1},
        {("y", "x0"): d["d_y_v2"] * r1, ("y", "x1"): d["d_y_v1"] * d["d_v1_x1"]},
    )
    result = verify(cyclic)
    assert not result.ok and "cycle" in result.detail and "r1" in result.detail
    undefined = make_expression_set(sin_graph, {r1: r2 * d["d_v2_x0"]}, {("y", "x0"): r1})
    assert "undefined symbol r2" in verify(undefined).detail


def test_listing_paths_costs_l_minus_n(discrepancy_graph):
    es = list_paths(discrepancy_graph)
    assert es.mults == dgraph.naive_cost(discrepancy_graph) == 22
    assert es.verify().ok


def test_cli_structure_and_zhou(capsys, tmp_path, two_blocks_graph):
    from dgraph.cli import main

    path = tmp_path / "g.json"
    path.write_text(two_blocks_graph.to_json())
    assert main(["structure", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in (
        "chains",
        "blocks",
        "levels",
        "cross_level_edges",
        "bipartite",
        "r_degree",
        "t_degree",
    ):
        assert key in data
    out = tmp_path / "zhou.svg"
    assert main(["accumulate", str(path), "-m", "zhou", "--json", "--graph-out", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["mults"] == 5 and "<svg" in out.read_text()
    assert main(["accumulate", str(path), "-m", "zhou", "--pair", "r,q"]) == 2
    assert "'q' is not an input" in capsys.readouterr().err
    assert main(["accumulate", str(path), "-m", "layers", "--cuts", "v", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mults"] == 5


def _factorize_by_definition(lg, variant):
    """Zhou's rule read literally: recompute every depth level before each elimination."""
    from dgraph.core.paths import depths
    from dgraph.zhou.simple import reduce_simple

    position = {v: i for i, v in enumerate(lg.graph.order())}
    reduce_simple(lg)
    while inter := lg.intermediates():
        depth = depths(lg.g)
        pick = max if variant == "backward" else min
        v = pick(inter, key=lambda w: (depth[w], -position[w]))
        around = [*lg.pred[v], *lg.succ[v]]
        lg.eliminate_vertex(v, op="split")
        reduce_simple(lg, around)


@pytest.mark.parametrize("variant", ["backward", "forward"])
@pytest.mark.parametrize("seed", range(25))
def test_incremental_depths_factorize_as_the_definition_does(seed, variant):
    from dgraph.elimination.labeled import LabeledGraph
    from dgraph.frontends.random_graphs import random_layered
    from dgraph.zhou.factorize import factorize

    g = random_layered(seed, 3 + seed % 4, 3 + seed % 6, 2 + seed % 3, None if seed % 2 else 2)
    fast, slow = LabeledGraph(g), LabeledGraph(g)
    factorize(fast, variant)
    _factorize_by_definition(slow, variant)
    assert [str(s) for s in fast.steps] == [str(s) for s in slow.steps]
    assert fast.result("zhou").jacobian == slow.result("zhou").jacobian


def test_auto_tries_only_the_global_strategy_on_large_graphs():
    from dgraph.frontends.random_graphs import random_layered
    from dgraph.zhou import factorize as zf

    g = random_layered(0, 4, 6, 2, None)
    assert set(zf.zhou(g).info["tried"]) == {f"{s}/{v}" for s in zf.STRATEGIES for v in zf.VARIANTS}
    assert g.n_edges <= zf.AUTO_EDGE_LIMIT
    es = zf.zhou(g, auto_edge_limit=g.n_edges - 1)
    assert set(es.info["tried"]) == {"global/backward", "global/forward"}
    assert "pages and pairs not tried" in es.info["not_tried"]
    assert set(zf.zhou(g, "pages").info["tried"]) == {"pages/backward", "pages/forward"}


class _CountingDiGraph(nx.DiGraph):
    """A DiGraph that counts the neighbour look-ups a traversal makes."""

    calls = 0

    def successors(self, n):
        _CountingDiGraph.calls += 1
        return super().successors(n)

    def predecessors(self, n):
        _CountingDiGraph.calls += 1
        return super().predecessors(n)

    neighbors = successors


def test_paths_between_many_sources_walks_each_vertex_once():
    """The edges on paths from 20 inputs into a 50-vertex chain: one traversal from all
    the inputs at once and one back from the output look each vertex up at most twice
    (a search per input, 20 · 50 look-ups, was the largest cost of Zhou's pages); the
    edges are the paths' (here all of them but the dangling one)."""
    g = _CountingDiGraph()
    inputs = [f"x{k}" for k in range(20)]
    chain = [f"c{k}" for k in range(50)]
    g.add_edges_from((x, chain[0]) for x in inputs)
    g.add_edges_from(itertools.pairwise(chain))
    g.add_edge(chain[10], "dangling")
    _CountingDiGraph.calls = 0
    edges = _paths_between(g, set(inputs), {chain[-1]})
    assert set(edges) == set(g.edges) - {(chain[10], "dangling")}
    assert _CountingDiGraph.calls <= 2 * g.number_of_nodes()


def test_zhou_of_an_element_level_softmax_matches_jax():
    """Zhou's factorization (pages, pairs and global, both variants) of a softmax read
    at the element level: the Jacobian JAX computes."""
    import jax
    import numpy as np

    jax.config.update("jax_enable_x64", True)
    x = np.random.default_rng(3).normal(size=6)

    def f(v):
        return jax.nn.softmax(v.reshape(-1, 3), axis=1)

    graph = dgraph.from_jax(f, x, level="element")
    es = zhou(graph)
    assert es.info["tried"]["pages/backward"] <= es.info["tried"]["pairs/backward"]
    expected = np.asarray(jref.jacfwd(f)(x)).reshape(6, 6)
    np.testing.assert_allclose(es.evaluate(x), expected, rtol=1e-12, atol=1e-14)


def test_pages_of_one_graph_read_its_roles_once(monkeypatch):
    """Fifty one-edge pages of a 200-vertex chain (Zhou's pairs and pages strategies make
    one working copy per page): the graph's roles are read once for all of them, not once
    per page and vertex (main: 10,000 reads), and each page holds its edge alone."""
    names = ["t", *(f"a{k}" for k in range(198)), "r"]
    graph = _graph("chain", " ".join(f"{up}>{low}" for low, up in itertools.pairwise(names)))
    reads = []
    role = dgraph.DGraph.role
    monkeypatch.setattr(dgraph.DGraph, "role", lambda self, v: reads.append(v) or role(self, v))
    for k in range(50):
        u, v = names[k], names[k + 1]
        page = LabeledGraph(graph, [(u, v)])
        assert list(page.succ) == [u, v] and page.succ[u] == {v: graph.symbol(u, v)}
        assert page.role[u] == ("input" if k == 0 else "intermediate")
    assert len(reads) <= len(names)


def test_zhou_inlines_each_distinct_candidate_once(monkeypatch):
    """A running log-sum-exp plus a running product of sigmoids (n = 4) read at the
    element level: pages and pairs give the same sets for both variants, so 4 of the 6
    candidates are inlined (main: 6); the counts tried and the Jacobian (JAX's) are
    those of inlining every one."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    jax.config.update("jax_enable_x64", True)

    def f(v):
        return jax.lax.cumlogsumexp(v) + jnp.cumprod(jax.nn.sigmoid(-v))

    x = np.random.default_rng(4).normal(size=4)
    graph = dgraph.from_jax(f, x, level="element")
    calls = []
    inline = ExpressionSet.inline_single_use
    monkeypatch.setattr(
        ExpressionSet, "inline_single_use", lambda self: calls.append(1) or inline(self)
    )
    es = zhou(graph)
    assert len(calls) == 4
    assert es.info["tried"] == {
        "global/backward": 46,
        "global/forward": 47,
        "pages/backward": 54,
        "pages/forward": 54,
        "pairs/backward": 48,
        "pairs/forward": 48,
    }
    np.testing.assert_allclose(es.evaluate(x), jref.jacfwd(f)(x), rtol=1e-12, atol=1e-14)


def test_segmenting_a_value_read_at_every_level_builds_its_copies_once(monkeypatch):
    """A value read by every step of a long program (``t = t*c + y`` 10⁴ times) crosses
    every level: its copies are one chain that each edge extends, each link added once
    (walking the whole chain per edge made ``dgraph structure`` quadratic, survey37b)."""
    steps = "\n".join(f"t{k + 1} = t{k}*y + x" for k in range(60))
    graph = dgraph.from_trace(f"inputs: x, y\noutputs: t60\nt0 = x*y\n{steps}\n")
    added = []
    real = nx.Graph.add_edge
    monkeypatch.setattr(
        nx.Graph, "add_edge", lambda g, u, v, **a: added.append(1) or real(g, u, v, **a)
    )
    pieces = undivided_bipartite(graph)
    names = {w for p in pieces for w in p["upper"] + p["lower"]}
    copies = names - set(graph.nx)
    assert len(copies) > 100  # x and y copied up every level
    assert len(added) == graph.n_edges + len(copies)  # each link once
    assert all(p["upper"] and p["lower"] for p in pieces)


def _blocks_as_defined(h: nx.DiGraph) -> list[tuple[str, str, frozenset]]:
    """Def. 3.1 searched by brute force: for each intermediate (in order), its
    dominators from the roots nearest first, for each its postdominators towards the
    terminals nearest first, the first region whose inner vertices (dominated by u,
    postdominated by v) take edges only from inner/v and feed only inner/u."""
    flow = nx.DiGraph(h.edges)
    flow.add_nodes_from(h)
    flow.add_edges_from(("__s", x) for x, r in h.nodes(data="role") if r == "input")
    flow.add_edges_from((y, "__t") for y, r in h.nodes(data="role") if r == "output")
    pdom = nx.immediate_dominators(flow, "__s")  # towards the terminals
    dom = nx.immediate_dominators(flow.reverse(), "__t")  # from the roots

    def chain(tree, v, root):
        out = []
        while tree[v] != root:
            v = tree[v]
            out.append(v)
        return out

    def below(tree, a, root):
        return {w for w in tree if w != root and (w == a or a in chain(tree, w, root))}

    found: dict = {}
    for x, role in h.nodes(data="role"):
        if role != "intermediate":
            continue
        hit = None
        for u in chain(dom, x, "__t"):
            for v in chain(pdom, x, "__s"):
                inner = (below(dom, u, "__t") & below(pdom, v, "__s")) - {u, v}
                if all(
                    set(h.predecessors(w)) <= inner | {v} and set(h.successors(w)) <= inner | {u}
                    for w in inner
                ):
                    hit = (u, v, frozenset(inner))
                    break
            if hit:
                break
        if hit:
            found.setdefault(hit[:2], hit[2])
    return [(u, v, inner) for (u, v), inner in found.items()]


@st.composite
def _cores_in_series(draw):
    """Complex blocks (complete bipartite cores of 2-3 by 2-3 vertices between two ends)
    in series, and a few edges skipping ahead: regions that leak above and below."""
    order, edges = ["x"], set()
    for k in range(draw(st.integers(1, 4))):
        top = [f"a{k}_{i}" for i in range(draw(st.integers(2, 3)))]
        low = [f"b{k}_{i}" for i in range(draw(st.integers(2, 3)))]
        end = f"e{k}"
        edges |= {(order[-1], a) for a in top} | {(a, b) for a in top for b in low}
        edges |= {(b, end) for b in low}
        order += [*top, *low, end]
    n = len(order)
    skips = draw(st.lists(st.tuples(st.integers(0, n - 2), st.integers(1, n - 1)), max_size=5))
    edges |= {(order[i], order[j]) for i, j in skips if i < j}
    data = {
        "format": "dgraph/1",
        "name": "cores",
        "inputs": ["x"],
        "outputs": [v for v in order[1:] if not any(a == v for a, _ in edges)],
        "edges": [{"source": a, "target": b} for a, b in sorted(edges)],
    }
    return dgraph.from_json(json.dumps(data))


@given(st.one_of(dags(max_inputs=2, max_intermediates=16, max_outputs=2), _cores_in_series()))
def test_complex_blocks_are_the_first_closed_regions_as_defined(g):
    """The search that skips regions an edge is known to leave finds, for every vertex,
    the region the plain search of Def. 3.1 finds."""
    h, _ = decompose(g.nx)
    got = [(u, v, frozenset(inner)) for u, v, inner in complex_blocks(h)]
    assert got == _blocks_as_defined(h)


def test_complex_blocks_look_at_each_region_once():
    """A term fed to every step of a chain (``t = 0.9 t + s``): each vertex's first
    region leaks below, and the search climbs at once to the block (y, x) around all of
    them. Each region is looked at once, and the trees walked once: before, every
    vertex tried every dominator above it (a cubic number of membership tests)."""
    n = 120
    source = "inputs: x\noutputs: y\ns = sin(x)\nt0 = x\n"
    source += "".join(f"t{k + 1} = 0.9*t{k} + s\n" for k in range(n))
    g = dgraph.from_trace(source.replace(f"t{n} =", "y ="))
    h, _ = decompose(g.nx)
    looked = []
    original = structure_module._leak
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(structure_module, "_leak", lambda *a: looked.append(a[3:]) or original(*a))
        tests = _counted(mp, Tree, "is_ancestor")
        steps = _counted(mp, structure_module, "_parent")
        ((u, v, inner),) = complex_blocks(h)
    assert (u, v) == ("y", "x") and len(inner) == len(h) - 2
    assert len(looked) == len(set(looked)) <= 2 * n
    assert steps[0] <= 8 * len(h)
    assert tests[0] <= 16 * len(h)  # 15 a vertex at 60, 120, 240 and 480 steps


def _counted(mp, cls, name):
    calls = [0]
    original = getattr(cls, name)

    def counted(*args):
        calls[0] += 1
        return original(*args)

    mp.setattr(cls, name, counted)
    return calls


def test_structure_of_a_sum_nesting_its_blocks_as_deep_as_the_program():
    """``s += w[i] * x[i] ** 2`` over 600 entries, read at the array level: the
    series-parallel decomposition nests its blocks as deep as the loop, walked and listed
    without recursion (it was RecursionError: Component.vertices, zhou_structure's visit)."""
    import numpy as np

    n = 600
    w = np.linspace(0.5, 1.5, n)

    def f(x):
        s = 0.0
        for i in range(n):
            s += w[i] * x[i] ** 2
        return s

    g = dgraph.from_function(f, sizes=[n], level="array")
    _, tops = decompose(g.nx)
    deepest = max(len(list(c.walk())) for c in tops)
    assert deepest > 2 * n
    s = zhou_structure(g)
    nested = [b for b in s["blocks"] if b["parent"] is not None]
    assert len(nested) >= n - 2 and len(s["blocks"][-1]["inner"]) < len(s["blocks"][0]["inner"])


def _nest_by_every_pair(blocks):
    """The nesting of complex blocks as session 38 computed it: every block against
    every complex block, the smallest that holds it (the reference for the fast one)."""
    for i, b in enumerate(blocks):
        inside = set(b["inner"]) | {b["source"], b["sink"]}
        best = None
        for j, c in enumerate(blocks):
            if j == i or c["kind"] != "complex":
                continue
            outer = set(c["inner"])
            contains = inside - {c["source"], c["sink"]} <= outer and len(outer) > len(b["inner"])
            if contains and (best is None or len(outer) < len(blocks[best]["inner"])):
                best = j
        if best is not None and (b["parent"] is None or b["kind"] == "complex"):
            b["parent"] = best


def _unnested(graph):
    """``zhou_structure``'s blocks as they are before the complex ones are nested."""
    seen = []
    nest = structure_module._nest_complex
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(
            structure_module,
            "_nest_complex",
            lambda blocks: seen.append(json.loads(json.dumps(blocks))) or nest(blocks),
        )
        nested = zhou_structure(graph)["blocks"]
    return seen[0], nested


@given(st.one_of(dags(max_inputs=2, max_intermediates=16, max_outputs=2), _cores_in_series()))
def test_complex_blocks_nest_as_every_pair_says(g):
    before, nested = _unnested(g)
    _nest_by_every_pair(before)
    assert [b["parent"] for b in nested] == [b["parent"] for b in before]


@st.composite
def _block_lists(draw):
    """Blocks over eight vertices as nothing forces them to be: overlapping, equal in
    size, simple ones with a parent or none, ends inside other blocks."""
    names = list("abcdefgh")
    blocks = []
    for _ in range(draw(st.integers(1, 9))):
        ends = draw(st.lists(st.sampled_from(names), min_size=2, max_size=2, unique=True))
        rest = [w for w in names if w not in ends]
        inner = draw(st.lists(st.sampled_from(rest), max_size=6, unique=True))
        kind = draw(st.sampled_from(["complex", "complex", "simple"]))
        parent = draw(st.sampled_from([None, 0])) if kind == "simple" else None
        blocks.append({"source": ends[0], "sink": ends[1], "inner": inner, "kind": kind})
        blocks[-1]["parent"] = parent
    return blocks


@given(_block_lists())
def test_complex_nesting_of_any_block_list_is_every_pairs(blocks):
    want = json.loads(json.dumps(blocks))
    _nest_by_every_pair(want)
    structure_module._nest_complex(blocks)
    assert [b["parent"] for b in blocks] == [b["parent"] for b in want]


class _ReadCounted(dict):
    reads = 0

    def __getitem__(self, key):
        _ReadCounted.reads += 1
        return super().__getitem__(key)


def test_nesting_complex_blocks_reads_each_block_a_few_times():
    """RK4 steps on a NumPy state (``rk4_np`` of benchmarks/long_programs_survey.py):
    complex blocks nested. Nesting them reads each block a few times (368 reads of 60
    blocks); before, every block was compared with every other (6,340 reads)."""
    import numpy as np

    def lorenz(u):
        return np.array([10 * (u[1] - u[0]), u[0] * (28 - u[2]) - u[1], u[0] * u[1] - 2.5 * u[2]])

    def f(u):
        for _ in range(4):
            k1 = lorenz(u)
            k2 = lorenz(u + 0.0005 * k1)
            u = u + 0.001 * (k1 + k2)
        return u @ u

    before, nested = _unnested(dgraph.from_function(f, sizes=[(3,)], level="array"))
    complex_ = [b for b in nested if b["kind"] == "complex"]
    assert len(complex_) >= 8 and any(b["parent"] is not None for b in complex_)
    blocks = [_ReadCounted(b) for b in before]
    _ReadCounted.reads = 0
    structure_module._nest_complex(blocks)
    assert [b["parent"] for b in blocks] == [b["parent"] for b in nested]
    assert _ReadCounted.reads <= 12 * len(blocks)
