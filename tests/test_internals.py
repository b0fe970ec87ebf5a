"""Self-tests of the private internals of sympy, networkx and NumPy that dgraph builds on:
an upgrade that changes one fails here, loudly, instead of making results silently wrong.

- sympy: symbols made by copying another's ``_assumptions``/``_assumptions0``
  (``nc_symbol``, the trace's tape symbols), products and sums built by
  ``Mul._from_args``/``Add._from_args`` (``nc_product``, D*, the expression-set packer
  ``_pack``/``_unpack``, which also tells noncommutative symbols by ``_assumptions0``);
  ``dgraph.core.algebra.check_sympy_internals`` runs at import too.
- networkx: none now. ``junction_bounds._Flows`` counted its paths with networkx's node
  connectivity internals; it counts its own flows (from dominators and rungs), checked
  here against networkx's public ``local_node_connectivity``.
- NumPy: the offset of the data pointer in an ndarray object (``codegen.c._data_offset``),
  read by the C trampolines for every array a compiled module is called with.
"""

from __future__ import annotations

import ctypes
import pickle
import random

import networkx as nx
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from networkx.algorithms.connectivity import local_node_connectivity

from dgraph.core import algebra
from dgraph.core.algebra import check_sympy_internals, nc_product, nc_symbol
from dgraph.core.expressions import _NC_FACTS, _pack, _unpack
from dgraph.frontends import bundled
from dgraph.methods import accumulate
from dgraph.search import junction_bounds
from dgraph.search.junction_bounds import _ENDS, _Flows

# -- sympy ---------------------------------------------------------------------------------


def test_symbols_made_from_copied_assumptions_are_sympys_symbols():
    for made, built in ((nc_symbol("r7"), sympy.Symbol("r7", commutative=False)),):
        assert made == built and hash(made) == hash(built)
        assert made.assumptions0 == built.assumptions0
        assert made.is_commutative == built.is_commutative
        assert pickle.loads(pickle.dumps(made)) == built
        assert (made + built) == 2 * built
    assert nc_symbol("r7").is_commutative is False


def test_noncommutative_symbols_share_the_packers_facts():
    """The packer stores a symbol by name when its ``_assumptions0`` is ``_NC_FACTS``."""
    assert sympy.Symbol("d_y_x", commutative=False)._assumptions0 == _NC_FACTS
    assert nc_symbol("d_y_x")._assumptions0 == _NC_FACTS
    assert sympy.Symbol("x")._assumptions0 != _NC_FACTS


def test_from_args_builds_what_the_constructors_build():
    a, b, c = (nc_symbol(n) for n in "abc")
    assert nc_product(b * a, c) == sympy.Mul(b, a, c)
    assert nc_product(b * a, c).args == (b, a, c)
    canonical = sympy.Add(b * a, c, a * c)
    rebuilt = sympy.Add._from_args(canonical.args, canonical.is_commutative)
    assert rebuilt == canonical and hash(rebuilt) == hash(canonical)
    x, y = sympy.symbols("x y", real=True)
    commutative = sympy.Mul(3, x, sympy.sin(y))
    assert sympy.Mul._from_args(commutative.args, True) == commutative


def test_pack_unpack_round_trips_expression_sets():
    """Every entry and reference of a few methods' expression sets, rebuilt by _unpack, is
    the same expression (equal, same hash, same arguments in order)."""
    graph = bundled("naumann_discrepancy.json")
    for method in ("forward", "zhou", "dstar", "markowitz"):
        es = accumulate(graph, method)
        exprs = [*es.jacobian.values(), *es.references.values()]
        again = _unpack(*_pack(exprs))
        for old, new in zip(exprs, again, strict=True):
            assert new == old and hash(new) == hash(old)
            assert sympy.srepr(new) == sympy.srepr(old)


def test_the_import_time_check_catches_a_changed_internal(monkeypatch):
    """check_sympy_internals raises one clear error when _from_args stops matching."""

    original = sympy.Mul._from_args.__func__

    def reordering(cls, args, is_commutative=None):
        return original(cls, tuple(reversed(args)), is_commutative)

    check_sympy_internals()
    monkeypatch.setattr(sympy.Mul, "_from_args", classmethod(reordering))
    with pytest.raises(RuntimeError, match=r"sympy .* changed an internal .*Mul._from_args"):
        algebra.check_sympy_internals()


# -- networkx ------------------------------------------------------------------------------


def test_flows_count_vertex_disjoint_paths_through_the_open_gates():
    """_Flows against networkx's own node connectivity on a fresh graph per query."""
    base = nx.DiGraph([(_ENDS, "a"), (_ENDS, "b"), ("a", "c"), ("b", "c"), ("c", "d"), ("b", "d")])
    flows = _Flows(base)
    for sources in ({"a"}, {"c"}, {"d"}, {"a", "b"}, {"c", "d"}, {"a", "b", "c", "d"}, set()):
        fresh = base.copy()
        fresh.add_edges_from((v, "__sink__") for v in sources)
        expected = (
            nx.algorithms.connectivity.local_node_connectivity(fresh, _ENDS, "__sink__")
            if sources
            else 0
        )
        assert flows.paths(sources) == expected, sources


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.booleans())
def test_rungs_and_dominators_count_what_networkx_counts(seed, given_order):
    """_Flows on deep random DAGs (edges span at most 5 positions, a few vertices fed by
    ``__ends__``), a rung at every position, against networkx's node connectivity."""
    rng = random.Random(seed)
    n = rng.randint(2, 40)
    base = nx.DiGraph(
        (i, j) for j in range(n) for i in range(max(0, j - 5), j) if rng.random() < 0.45
    )
    base.add_nodes_from(range(n))
    base.add_edges_from((_ENDS, i) for i in rng.sample(range(min(n, 8)), rng.randint(1, min(n, 5))))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(junction_bounds, "RUNG_WORK", 1)
        flows = _Flows(base, range(n) if given_order else None)
        for _ in range(6):
            sources = set(rng.sample(range(n), rng.randint(1, min(n, 5))))
            fresh = base.copy()
            fresh.add_edges_from((v, "__sink__") for v in sources)
            expected = local_node_connectivity(fresh, _ENDS, "__sink__")
            assert flows.paths(sources) == expected, (sorted(base.edges, key=str), sources)


PROBE = nx.DiGraph([(_ENDS, "a"), (_ENDS, "b"), ("a", "c"), ("b", "c")])
PROBE_PATHS = {(): 0, ("a",): 1, ("c",): 1, ("a", "b"): 2, ("a", "c"): 2}  # every gate counts


def _probe_paths(flows_class=_Flows) -> dict[tuple[str, ...], int]:
    flows = flows_class(PROBE)
    return {sources: flows.paths(set(sources)) for sources in PROBE_PATHS}


def test_flows_on_a_probe_whose_answers_depend_on_every_gate():
    assert _probe_paths() == PROBE_PATHS


def test_the_probe_catches_flows_that_ignore_the_gates():
    """A _Flows counting through every gate, open or not, gives other counts."""

    class EveryGateOpen(_Flows):
        def paths(self, sources):
            return super().paths(set(self.index) - {_ENDS})

    assert _probe_paths(EveryGateOpen) != PROBE_PATHS


# -- NumPy ---------------------------------------------------------------------------------


def test_the_data_pointer_offset_holds_for_every_kind_of_array():
    """The offset found on one probe array reads the data pointer of views, slices,
    transposes, arrays over foreign buffers and large ones alike."""
    from dgraph.codegen.c import _data_offset

    offset = _data_offset()
    if offset is None:
        pytest.skip("no offset found: the C modules read addresses per call")
    base = np.arange(24.0).reshape(4, 6)
    arrays = [
        np.zeros(5),
        base,
        base[1:],
        base[:, 2:],
        base.T,
        np.frombuffer(bytearray(64), dtype=float),
        np.empty(1 << 20),
        np.ascontiguousarray(base[::2]),
    ]
    for a in arrays:
        assert ctypes.c_void_p.from_address(id(a) + offset).value == a.ctypes.data
