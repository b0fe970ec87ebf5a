"""The printed form of a NumPy Hessian module (``dgraph/codegen/tensor/numpy_form.py``):
evenly stepping positions as slices, assembly by writes, arithmetic in place, temporaries
freed early, and the CSR made from a pattern checked once. The form changes no double:
the values equal those of the same statements printed plainly, bit for bit."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.linalg

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.codegen import ir  # noqa: E402
from dgraph.codegen.tensor import module as tensor_module  # noqa: E402
from dgraph.codegen.tensor import numpy_assembly  # noqa: E402
from dgraph.codegen.tensor.numpy_form import _Printer, runs, strided_runs  # noqa: E402
from dgraph.codegen.tensor.numpy_scalars import scales_folded, uniform_value  # noqa: E402
from tests import jax_reference as jref  # noqa: E402


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def minsurf(x):
    """The COPS minimal-surface area on a 3 x 3 grid of unknowns (zero boundary)."""
    h = 1.0 / 4
    p = jnp.pad(jnp.reshape(x, (3, 3)), 1)
    dx_low, dy_low = (p[1:, :-1] - p[:-1, :-1]) / h, (p[:-1, 1:] - p[:-1, :-1]) / h
    dx_up, dy_up = (p[1:, 1:] - p[:-1, 1:]) / h, (p[1:, 1:] - p[1:, :-1]) / h
    area = jnp.sqrt(1.0 + dx_low**2 + dy_low**2) + jnp.sqrt(1.0 + dx_up**2 + dy_up**2)
    return 0.5 * h * h * jnp.sum(area)


def pieces(x):
    """A part of the assembly written in two pieces (x[5]'s entry: another part got there
    first), its value an in-place sum: computed once, not once per piece."""
    return (
        jnp.sum(jnp.sin(x[1:])) - jnp.sum(jnp.sin(x[1:])) + jnp.sum(jnp.sin(x[:-1]) + x[1:] * x[1:])
    )


def band(x):
    """A banded objective (five diagonals) with constant factors: 3.0, 0.5 and 7.0 become
    one-valued constant arrays in the gradient's graph."""
    return jnp.sum(3.0 * (x[2:] - 0.5 * x[:-2] * x[1:-1]) ** 2) + jnp.sum(7.0 * x**4)


def lagrangian(x):
    """f0 and constraints whose Hessian's diagonal is a scatter added to by another."""
    f0 = 0.5 * jnp.sum((x - 1.0) ** 2)
    return jnp.concatenate([f0[None], x[:-2] * x[1:-1] + jnp.exp(x[2:]) + 2.0 * x[:-2]])


CASES = {
    "rosenbrock": (rosenbrock, 10, None),
    "lagrangian": (lagrangian, 9, np.linspace(0.5, 1.5, 8)),
    "band": (band, 11, None),
    "pieces": (pieces, 6, None),
    "minsurf": (minsurf, 9, None),
}


def test_runs_cut_evenly_stepping_positions():
    assert runs(np.arange(3, 30, 3)) == [(0, 9)]
    assert runs(np.array([0, 1, 2, 10, 11, 12])) == [(0, 3), (3, 6)]
    assert runs(np.array([0, 1, 1, 2])) == [(0, 2), (2, 4)]  # a position in two runs
    assert runs(np.array([3, 2, 1])) is None  # a slice steps forward
    assert runs(np.array([5, 0, 9, 4]), limit=3) is None
    # two diagonals interleaved: residues mod 2, each one slice
    a = np.ravel([[3 * i + 2, 3 * i + 3] for i in range(20)])  # 20 pairs: 20 runs of 2
    want = [(slice(0, 39, 2), slice(2, 60, 3)), (slice(1, 40, 2), slice(3, 61, 3))]
    assert strided_runs(a) == want
    assert strided_runs(np.random.default_rng(0).permutation(50)) is None


def test_runs_rejected_from_a_prefix_as_from_the_whole():
    """The prefix test (PREFIX entries looked at first) rejects exactly what the whole
    array rejects, and leaves what it accepts cut as before: runs whose steps change,
    or go back, before, across and after the prefix's end, one to three arrays."""
    import dgraph.codegen.tensor.numpy_form as form

    rng = np.random.default_rng(5)
    kept, outcomes = form.PREFIX, set()
    try:
        for _ in range(400):
            n, width, limit = (
                int(rng.integers(33, 80)),
                int(rng.integers(1, 4)),
                int(rng.integers(1, 9)),
            )
            arrays = []
            for _ in range(width):
                cuts = np.unique(rng.integers(1, 40, size=int(rng.integers(0, 14))))
                steps = rng.integers(1, 4, size=cuts.size + 1)[
                    np.searchsorted(cuts, np.arange(n), side="right")
                ]
                if rng.random() < 0.2:
                    steps[int(rng.integers(0, min(40, n)))] = -1
                arrays.append(np.cumsum(steps) - int(rng.integers(0, 5)))
            form.PREFIX = 16
            got = form.runs(*arrays, limit=limit)
            prefix = form.runs(*(a[:16] for a in arrays), limit=limit)
            form.PREFIX = n  # no prefix looked at first
            assert got == form.runs(*arrays, limit=limit)
            outcomes.add((prefix is None, got is None))
    finally:
        form.PREFIX = kept
    assert outcomes == {(True, True), (False, True), (False, False)}  # each case met


def _plain(statements, constants, env, ends, later=None, mirror=None):
    printer = _Printer()
    return [printer.statement(s) for s in statements]


@pytest.mark.parametrize("name", ["rosenbrock", "band", "lagrangian", "minsurf"])  # a grid
def test_the_form_changes_no_double(name, monkeypatch):
    """The module as printed (slices, writes, in place) against the same statements
    printed plainly: equal bit for bit, symmetric bit for bit, equal to jax.hessian."""
    f, n, v = CASES[name]
    rng = np.random.default_rng(n)
    x, x2 = rng.uniform(0.1, 0.6, n), rng.uniform(0.1, 0.6, n)
    args = (x2,) if v is None else (x2, v)
    H = dgraph.make_function(f, "hessian", point=[x], weights=v, sparse=True)
    monkeypatch.setattr(tensor_module, "numpy_body", _plain)
    P = dgraph.make_function(f, "hessian", point=[x], weights=v, sparse=True)
    h, p = H(*args), P(*args)
    np.testing.assert_array_equal(h.indices, p.indices)
    np.testing.assert_array_equal(h.data, p.data)  # bit for bit
    assert (h != h.T).nnz == 0
    t, tp = H.gradient.generated.tril(*args), P.gradient.generated.tril(*args)
    np.testing.assert_array_equal(t.data, tp.data)
    with jax.enable_x64(True):
        g = f if v is None else (lambda x: jnp.dot(jnp.asarray(v), f(x)))
        ref = jref.hessian(g)(jnp.asarray(x2))  # stored (tests/jax_reference.py)
    np.testing.assert_allclose(h.toarray(), ref, rtol=1e-12, atol=1e-12 * abs(ref).max())
    assert "del " in H.gradient.generated.text and "del " not in P.gradient.generated.text


def test_a_band_is_assembled_by_slices():
    """Rosenbrock's tridiagonal Hessian: no index array in its assembly or its mirror."""
    f, n, _ = CASES["rosenbrock"]
    H = dgraph.make_function(f, "hessian", point=[np.full(n, 0.3)], sparse=True)
    text = H.gradient.generated.text
    body = text[text.index("def _jacobian_lower") : text.index("def jacobian_tril")]
    assert "_scatter" not in body and "numpy.empty(" in body and ", out=" in body
    # the mirror: the off-diagonal's own vector written above the diagonal too, in the
    # assembly, not a strided copy of the assembled values afterwards
    assert re.search(rf"\n    \w+\[1:{3 * n - 4}:3\] = \w+\n", body)
    assert "data[1:" not in body


def test_each_call_its_own_matrix_and_values_the_pattern_shared_read_only():
    f, n, _ = CASES["rosenbrock"]
    rng = np.random.default_rng(1)
    H = dgraph.make_function(f, "hessian", point=[rng.uniform(0.1, 0.6, n)], sparse=True)
    x1, x2 = rng.uniform(0.1, 0.6, n), rng.uniform(0.1, 0.6, n)
    a, b = H(x1), H(x2)
    assert a is not b and not np.shares_memory(a.data, b.data)
    kept = a.data.copy()
    b.data *= 2.0  # the user's own values
    np.testing.assert_array_equal(a.data, kept)
    np.testing.assert_array_equal(H(x2).data, b.data / 2.0)
    assert a.has_canonical_format and not a.indices.flags.writeable
    with pytest.raises(ValueError):  # a change of the shared pattern raises
        a.eliminate_zeros()
    rhs = np.ones(n)  # SciPy's solver takes it as it is
    np.testing.assert_allclose(
        scipy.sparse.linalg.spsolve(a, rhs), np.linalg.solve(a.toarray(), rhs), rtol=1e-10
    )


def _lower(H) -> str:
    """The whole matrix's values function (not the lower triangle's own, where the
    module has one)."""
    text = H.gradient.generated.text
    end = "def _jacobian_tril_values" if "def _jacobian_tril_values" in text else "def jacobian("
    return text[text.index("def _jacobian_lower") : text.index(end)]


@pytest.mark.parametrize("name", ["rosenbrock", "band"])
def test_one_valued_constants_are_numbers_and_a_band_is_built_by_diagonals(name):
    """No constant array of one value is read per call (Rosenbrock's 100 and 200, the
    band's 3 and 7 are numbers in the text); Rosenbrock's diagonal blocks are never
    interleaved into a vector of their own (one new vector: the values); the values are
    jax.hessian's."""
    f, n, _ = CASES[name]
    rng = np.random.default_rng(3)
    x, x2 = rng.uniform(0.1, 0.6, n), rng.uniform(0.1, 0.6, n)
    H = dgraph.make_function(f, "hessian", point=[x], sparse=True)
    text, body = H.gradient.generated.text, _lower(H)
    read = set(re.findall(r"_K\d+", body))
    one_valued = re.findall(r"^(_K\d+) = _array\(.*levels=\[[^,\]]*\]\)$", text, re.M)
    assert one_valued == [] or not read & set(one_valued)
    assert re.search(r"\b(6|28|200|400)\.0\b", body)  # a factor folded, as a number
    if name == "rosenbrock":
        assert body.count("numpy.empty(") == 1 and "_scatter" not in body
    with jax.enable_x64(True):
        ref = jref.hessian(f)(jnp.asarray(x2))  # stored (tests/jax_reference.py)
    h = H(x2)
    np.testing.assert_allclose(h.toarray(), ref, rtol=1e-12, atol=1e-12 * abs(ref).max())
    assert h.nnz == np.count_nonzero(ref) and (h != h.T).nnz == 0


@pytest.mark.parametrize("name", ["rosenbrock", "lagrangian"])
def test_a_blocked_assembly_changes_no_double(name, monkeypatch):
    """Past a size the diagonals are written block by block (here: from 8 entries, 4 a
    block): the values bit for bit those of the plain printing."""
    f, n, v = CASES[name]
    rng = np.random.default_rng(5)
    x, x2 = rng.uniform(0.1, 0.6, n), rng.uniform(0.1, 0.6, n)
    args = (x2,) if v is None else (x2, v)
    monkeypatch.setattr(numpy_assembly, "BLOCK", 4)
    monkeypatch.setattr(numpy_assembly, "BLOCKED", 8)
    H = dgraph.make_function(f, "hessian", point=[x], weights=v, sparse=True)
    assert "for _lo in range(0, " in _lower(H) and "_scatter" not in _lower(H)
    monkeypatch.setattr(tensor_module, "numpy_body", _plain)
    P = dgraph.make_function(f, "hessian", point=[x], weights=v, sparse=True)
    np.testing.assert_array_equal(H(*args).data, P(*args).data)
    t, tp = H.gradient.generated.tril(*args), P.gradient.generated.tril(*args)
    np.testing.assert_array_equal(t.data, tp.data)


def test_products_by_numbers_fold_only_where_they_round_as_one():
    """2 (100 (2 a)) is 400 a, the same double; 3 (5 a) is left as it is (15 a may round
    otherwise); a one-valued array is its number, an array of two values is not."""
    s = ir.ArrayStatement
    a, env = ir.Name("a"), {k: (4,) for k in ("a", "b", "c", "d", "e", "f")}

    def times(c, x):
        return ir.BinOp("*", ir.Const(c), ir.Name(x))

    body = [s("b", times(2.0, "a")), s("c", times(100.0, "b")), s("d", times(2.0, "c"))]
    body += [s("e", times(5.0, "a")), s("f", times(3.0, "e"))]
    folded = {x.target: x.value for x in scales_folded(body, env, {"d", "f"})}
    assert folded["d"] == ir.BinOp("*", ir.Const(400.0), a)
    assert folded["f"] == times(3.0, "e") and "e" in folded and "b" not in folded
    assert uniform_value(np.full(5, 2.5)) == 2.5 and uniform_value(np.array([0.0, -0.0])) is None
    assert uniform_value(np.array([1.0, 2.0])) is None and uniform_value(np.array([np.inf])) is None


def _run(lines, x):
    """The printed body ``lines`` run on ``x``: its names after the last line."""
    names = {"numpy": np, "x": x}
    exec("\n".join(line[4:] for line in lines), names)
    return names


def test_a_temporary_read_twice_is_written_in_place_at_its_last_read_unless_a_view_lives():
    """A new vector read by two statements is written into by the second (its last read);
    not where a view of it is read after that statement."""
    from dgraph.codegen.tensor.constants import Constants
    from dgraph.codegen.tensor.numpy_form import numpy_body

    x = np.linspace(0.5, 1.5, 6)
    two, three = ir.Const(2.0), ir.Const(3.0)
    body = [
        ir.ArrayStatement("a", ir.BinOp("*", ir.Name("x"), two)),
        ir.ArrayStatement("b", ir.BinOp("*", ir.Name("a"), three)),
        ir.ArrayStatement("c", ir.BinOp("*", ir.Name("a"), ir.Name("b"))),
        ir.ArrayStatement("d", ir.BinOp("+", ir.Name("c"), ir.Name("b"))),
    ]
    env = dict.fromkeys("xabcd", (6,))
    lines = numpy_body(body, Constants(), env, {"d"})
    assert "    c = numpy.multiply(a, b, out=a)" in lines
    np.testing.assert_array_equal(_run(lines, x)["d"], (2 * x) * (2 * x * 3) + 2 * x * 3)
    view = ir.Index(ir.Name("a"), (ir.Slice(0, 3),))
    body = [
        body[0],
        ir.ArrayStatement("v", view),
        ir.ArrayStatement("c", ir.BinOp("*", ir.Name("a"), three)),
        ir.ArrayStatement("e", ir.BinOp("*", ir.Name("c"), three)),
        ir.ArrayStatement("d", ir.BinOp("+", ir.Name("v"), ir.Name("v"))),
    ]
    env |= {"v": (3,), "e": (6,)}
    lines = numpy_body(body, Constants(), env, {"d", "e"})
    assert not any("out=a" in line for line in lines)  # v, a view of a, is read later
    got = _run(lines, x)
    np.testing.assert_array_equal(got["d"], 4 * x[:3])
    np.testing.assert_array_equal(got["e"], 2 * x * 3 * 3)


def test_arithmetic_on_a_take_and_a_scatter_add_onto_zeros_make_one_vector_each():
    """``take(v, K) * w`` is the take, then the product written into it; a scatter-add
    onto a constant of zeros starts from ``numpy.zeros``: the same doubles as printed
    plainly."""
    from dgraph.codegen.tensor.constants import Constants
    from dgraph.codegen.tensor.numpy_form import numpy_body

    x = np.linspace(0.5, 1.5, 6)
    constants = Constants()
    k = constants.index(np.array([0, 2, 2, 5, 1, 1]))
    zeros = constants.add(np.zeros(4))
    at = constants.index(np.array([3, 0, 3, 1, 2, 0]))
    body = [
        ir.ArrayStatement("a", ir.BinOp("*", ir.Name("x"), ir.Const(2.0))),
        ir.ArrayStatement("b", ir.BinOp("*", ir.Index(ir.Name("a"), (k,)), ir.Name("x"))),
        ir.ArrayStatement("c", ir.ScatterAdd(zeros, ((at, ir.Name("b")),))),
    ]
    env = {"x": (6,), "a": (6,), "b": (6,), "c": (4,)}
    lines = numpy_body(body, constants, env, {"c"})
    assert "    _taken = numpy.take(a, _K0, axis=0)" in lines
    assert "    b = numpy.multiply(_taken, x, out=_taken)" in lines
    assert any("_scatter_add_into(numpy.zeros(4), _K2, b)" in line for line in lines)
    names = {"numpy": np, "x": x, "_K0": constants.arrays["_K0"], "_K2": constants.arrays["_K2"]}
    names["_scatter_add_into"] = _scatter_add_into
    exec("\n".join(line[4:] for line in lines), names)
    want = np.zeros(4)
    np.add.at(want, [3, 0, 3, 1, 2, 0], (2 * x)[[0, 2, 2, 5, 1, 1]] * x)
    np.testing.assert_array_equal(names["c"], want)


def _scatter_add_into(out, *parts):
    for flat, data in zip(parts[::2], parts[1::2], strict=True):
        np.add.at(out, flat, data)
    return out


def test_a_diagonal_two_parts_reach_is_one_sum_and_a_broadcast_value_is_met_once():
    """The Lagrangian's diagonal, reached by f0's part and the constraints': one
    ``numpy.add`` of the two (not a copy, then an addition in place), the parts read as
    the names they are (no ``_part``); f0's one value times 2 computed once and broadcast
    after, not a vector of them. The values: ``test_the_form_changes_no_double``."""
    f, n, v = CASES["lagrangian"]
    x = np.random.default_rng(n).uniform(0.1, 0.6, n)
    H = dgraph.make_function(f, "hessian", point=[x], weights=v, sparse=True)
    body = _lower(H)
    assert re.search(r"\n    _d0 = numpy\.add\(\S+, \S+, dtype=float\)\n", body)
    assert "numpy.array(" not in body and "_part" not in body
    broadcast = rf"numpy\.broadcast_to\(numpy\.reshape\(\w+, \(1,\)\) \* 2\.0, \({n},\)\)"
    assert re.search(rf"\n    \w+ = {broadcast}\n", body)


@pytest.mark.parametrize("scale", ["array", "number", "none"])
def test_a_segment_sum_of_scaled_gathers_is_a_constant_csr_times_the_vector(scale):
    """``bincount(ids, weights=c * v[K])`` is printed as a module constant, the CSR matrix
    of ``c`` at rows ``ids``, columns ``K`` (each row's terms in bincount's order), times
    ``v``: the same doubles, bit for bit (a zero's sign too); the matrix's arrays kept
    with it where it is kept."""
    from dgraph.codegen.tensor.constants import Constants
    from dgraph.codegen.tensor.numpy_form import numpy_body

    x = np.array([0.5, -0.0, 1.25, 3.0, 0.1, 0.7])
    ids, at = [3, 0, 3, 1, 0, 3, 2], [5, 1, 0, 1, 2, 4, 1]
    c = np.array([0.3, 1.7, -2.0, 0.9, 1.1, 1e-3, 4.0])
    constants = Constants()
    gather = ir.Index(ir.Name("a"), (constants.index(np.array(at)),))
    data = {
        "array": ir.BinOp("*", constants.add(c), gather),
        "number": ir.BinOp("*", gather, ir.Const(0.3)),
        "none": gather,
    }[scale]
    body = [
        ir.ArrayStatement("a", ir.BinOp("*", ir.Name("x"), ir.Const(2.0))),
        ir.ArrayStatement("s", ir.SegmentSum(data, constants.index(np.array(ids)), 5)),
    ]
    lines = numpy_body(body, constants, {"x": (6,), "a": (6,), "s": (5,)}, {"s"})
    (line,) = [line for line in lines if line.startswith("    s = ")]
    assert re.fullmatch(r"    s = _K\d+ @ a", line)
    assert constants.needs_scipy_sparse  # the module imports scipy.sparse, dense or not
    constants.keep(set(re.findall(r"\w+", "\n".join(lines))))
    names = {"numpy": np, "scipy": scipy, "x": x}
    exec("\n".join([*constants.lines, *(line[4:] for line in lines)]), names)
    gathered = (2 * x)[at]
    weights = {"array": c * gathered, "number": gathered * 0.3, "none": gathered}[scale]
    want = np.bincount(ids, weights=weights, minlength=5)
    np.testing.assert_array_equal(names["s"].view(np.int64), want.view(np.int64))


def test_distinct_constant_is_distinct_found_once_per_constant():
    """:func:`distinct_constant` answers what :func:`distinct` does, for each constant
    once (asked again, the answer found before; not another array's of another name)."""
    from dgraph.codegen.tensor.constants import Constants
    from dgraph.codegen.tensor.numpy_scalars import distinct, distinct_constant

    constants = Constants()
    apart = constants.index(np.array([5, 0, 3, 9, 1, 2, 4, 7, 8, 6])).id
    twice = constants.index(np.array([5, 0, 3, 9, 1, 2, 4, 7, 8, 5])).id
    for _ in range(2):
        assert distinct_constant(constants, apart) is True
        assert distinct_constant(constants, twice) is False
    assert distinct(constants.arrays[apart]) and not distinct(constants.arrays[twice])
    assert constants.distinct_found.keys() == {apart, twice}


def test_arithmetic_on_a_0d_position_is_not_written_in_place():
    """An LU's pivots (``argmax`` with no axis: 0-d), stacked, their parity counted and
    scaled: shaped by the one inference (``array_shapes``), no statement writes into a 0-d
    value (a NumPy scalar: ``numpy.add(t, K, out=t)`` raised a TypeError on main, which
    shaped each ``argmax`` as its operand) and the body runs to NumPy's numbers."""
    from dgraph.codegen.array_passes import array_shapes
    from dgraph.codegen.tensor.constants import Constants
    from dgraph.codegen.tensor.numpy_form import numpy_body

    x = np.array([0.5, 2.0, -3.0, 1.0])
    body = [
        ir.ArrayStatement("i", ir.Call("argmax", (ir.Name("x"),))),
        ir.ArrayStatement("j", ir.Call("argmax", (ir.UnaryOp("-", ir.Name("x")),))),
        ir.ArrayStatement("s", ir.Call("stack", (ir.Seq((ir.Name("i"), ir.Name("j"))),))),
        ir.ArrayStatement("n", ir.Call("sum", (ir.Name("s"),), (("axis", ir.Const((0,))),))),
        ir.ArrayStatement("m", ir.BinOp("*", ir.Const(-2), ir.Name("n"))),
        ir.ArrayStatement("p", ir.BinOp("+", ir.Name("m"), ir.Const(1))),
    ]
    program = ir.ArrayProgram("f", ("x",), ((4,),), ("x",), body, ["p"])
    env = array_shapes(program)
    assert env["m"] == ()
    lines = numpy_body(body, Constants(), env, {"p"})
    assert not any("out=" in line for line in lines)
    assert _run(lines, x)["p"] == 1 - 2 * (1 + 2)


def test_a_vectors_ravel_inside_an_expression_prints_as_the_vector():
    """``numpy.ravel`` of a name of one axis is the name inside an expression (no call,
    the same entries); kept around an n-D name, a broadcast, a statement that is only
    the ravel (a rename) and a name a statement writes partly."""
    from dgraph.codegen.tensor.constants import Constants
    from dgraph.codegen.tensor.numpy_form import numpy_body

    x = np.linspace(0.5, 1.5, 6)

    def flat(name):
        return ir.Call("ravel", (ir.Name(name),))

    body = [
        ir.ArrayStatement("a", ir.BinOp("*", ir.Name("x"), ir.Const(2.0))),
        ir.ArrayStatement("m", ir.Call("reshape", (ir.Name("a"), ir.Const((2, 3))))),
        ir.ArrayStatement("s", ir.Call("sum", (ir.Name("a"),))),
        ir.ArrayStatement("b", ir.Call("broadcast_to", (ir.Name("s"), ir.Const((6,))))),
        ir.ArrayStatement("r", flat("a")),
        ir.ArrayStatement("c", ir.BinOp("*", flat("a"), ir.BinOp("+", flat("m"), flat("b")))),
        ir.ArrayStatement("d", ir.BinOp("-", flat("c"), flat("r"))),
    ]
    env = {"x": (6,), "a": (6,), "m": (2, 3), "s": (), "b": (6,), "r": (6,), "c": (6,)}
    env["d"] = (6,)
    lines = numpy_body(body, Constants(), env, {"d"})
    text = "\n".join(lines)
    assert "    r = numpy.ravel(a)" in lines  # a rename keeps it
    assert "numpy.ravel(m)" in text and "numpy.ravel(b)" in text  # n-D, a broadcast
    assert "numpy.ravel(a)" not in text.replace("    r = numpy.ravel(a)", "")
    assert "numpy.ravel(c)" not in text and "numpy.ravel(r)" not in text
    got = _run(lines, x)["d"]
    np.testing.assert_array_equal(got, 2 * x * (2 * x + 2 * x.sum()) - 2 * x)


def test_a_scatter_add_onto_a_new_vector_of_zeros_adds_into_it():
    """A statement's ``numpy.zeros`` is a new vector: a scatter-add onto it, its last
    reader, adds into it (no copy); one read later is copied first (it stays zeros)."""
    from dgraph.codegen.tensor.constants import Constants
    from dgraph.codegen.tensor.numpy_form import numpy_body

    x = np.linspace(0.5, 1.5, 6)
    constants = Constants()
    at = constants.index(np.array([3, 0, 3, 1, 2, 0]))
    body = [
        ir.ArrayStatement("z", ir.Call("zeros", (ir.Const(4),))),
        ir.ArrayStatement("b", ir.BinOp("*", ir.Name("x"), ir.Const(2.0))),
        ir.ArrayStatement("c", ir.ScatterAdd(ir.Name("z"), ((at, ir.Name("b")),))),
    ]
    env = {"x": (6,), "z": (4,), "b": (6,), "c": (4,)}
    want = np.zeros(4)
    np.add.at(want, [3, 0, 3, 1, 2, 0], 2 * x)
    for later in (False, True):
        statements = body + [ir.ArrayStatement("d", ir.Name("z"))] * later
        ends = {"c", "d"} if later else {"c"}
        lines = numpy_body(statements, constants, env | {"d": (4,)}, ends)
        into = any("_scatter_add_into(z, _K0, b)" in line for line in lines)
        assert into is not later, lines
        names = {"numpy": np, "x": x, "_K0": constants.arrays["_K0"]}
        names |= {"_scatter_add_into": _scatter_add_into, "_scatter_add": _scatter_add}
        exec("\n".join(line[4:] for line in lines), names)
        np.testing.assert_array_equal(names["c"], want)
        if later:
            np.testing.assert_array_equal(names["d"], np.zeros(4))


def _scatter_add(base, *parts):
    return _scatter_add_into(np.array(base, dtype=float), *parts)
