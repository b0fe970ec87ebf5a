"""Partials whose terms cancel: ``tanh(x.reshape(-1, 10) @ arange(10))`` (the jacscale
``matvec`` case). Its rows sum to 17-33 at points in (0.1, 1), where ``1 - tanh(s)**2`` is
0 or one rounding step in doubles (exactly 1e-15 to 1e-29); the generated code and JAX's
``jvp`` round it differently, and the check judged that difference against |J|·|v|
(itself rounding) and called the code wrong from n = 60 (6 rows) up. The check now takes
a partial's magnitude as its terms' (:func:`dgraph.core.numeric.edge_magnitudes`)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import dgraph
from dgraph.blocks import arrays
from dgraph.codegen import python as python_module
from dgraph.codegen.check import check_generated
from dgraph.codegen.generate import Generated
from dgraph.codegen.program import jacobian_program, primal_program
from dgraph.core import numeric
from dgraph.core.graph import DGraph, vertex_symbol
from dgraph.errors import VerificationError
from dgraph.frontends import from_python
from dgraph.methods import accumulate

from .dense import dense as _dense

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


@pytest.fixture(autouse=True)
def _x64():
    with jax.enable_x64(True):
        yield


def matvec(x):
    return jnp.tanh(x.reshape(-1, 10) @ np.arange(10.0))


def _point(n: int, scale: float) -> np.ndarray:
    return np.random.default_rng(0).uniform(0.1, 1.0, n) * scale


# the reference, jitted: one compilation per size, not one per eager operation
_jacfwd = jax.jit(jax.jacfwd(matvec))


# saturated rows; rows near 0.5. n = 60, the smallest size that failed (jacscale's 200
# runs the same code: its coverage adds nothing)
@pytest.mark.parametrize(("n", "scale"), [(60, 1.0), (60, 0.02)])
def test_matvec_tanh_matches_jacfwd(n, scale):
    x0 = _point(n, scale)
    J = dgraph.make_function(matvec, "jacobian", point=[x0], sparse=True)
    assert J.generated.verified
    for x in (x0, x0 * 0.5, -x0):
        ref = np.asarray(_jacfwd(x))
        got = _dense(J(x))
        # |J| <= 9 and a saturated row's entries are rounding: absolute 1e-13
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-13)
    if scale < 1:  # the values are not all rounding here: a real comparison
        assert np.abs(_dense(J(x0))).max() > 1.0


def test_a_cancelling_partial_has_its_terms_magnitude():
    """``1 - tanh(s)**2`` at s = 30 evaluates to 0; its magnitude is 1 + tanh(s)**2 = 2.
    A label without a sum keeps |label|."""
    s = vertex_symbol("s")
    graph = DGraph("tanh")
    graph.add_vertex("s", "input")
    graph.add_vertex("y", "intermediate", expr=sympy.tanh(s))
    graph.add_vertex("z", "output", expr=3 * vertex_symbol("y"))
    graph.add_edge("s", "y")
    graph.add_edge("y", "z")
    values = numeric.vertex_values(graph, np.array([[30.0], [0.0], [-2.0]]))
    labels = numeric.edge_values(graph, values)
    sizes = numeric.edge_magnitudes(graph, values, labels)
    tanh, times = graph.symbol("s", "y"), graph.symbol("y", "z")
    assert labels[tanh].tolist()[0] == 0.0 and sizes[tanh].tolist()[0] == 2.0
    np.testing.assert_allclose(sizes[tanh][1:], 1 + np.tanh([0.0, -2.0]) ** 2, rtol=1e-15)
    assert sizes[times].tolist() == [3.0, 3.0, 3.0]


def _with_tanh_rule(graph: DGraph, rule) -> DGraph:
    """A copy of the element graph of ``matvec`` whose tanh edges carry ``rule(v)``."""
    out = DGraph("matvec, tanh rule changed")
    for v in graph.order():
        out.add_vertex(v, graph.role(v), expr=None if graph.role(v) == "input" else graph.expr(v))
    for v in graph.order():
        for u in graph.predecessors(v):
            label = graph.partial(u, v)
            if graph.expr(v).func == sympy.tanh:
                label = rule(vertex_symbol(u))
            out.add_edge(u, v, label)
    out.set_point(graph.point)
    return out


def _checked(graph: DGraph):
    es = accumulate(graph, "forward", verify=False)
    programs = {"primal": primal_program(graph), "jacobian": jacobian_program(es)}
    text = python_module.python_module(
        programs, title="matvec", inputs=graph.inputs, outputs=graph.outputs
    )
    return check_generated(Generated(text, "python", ("jacobian",), programs, es), graph)


@pytest.mark.parametrize("n", [60])  # the size that failed; 200 checks the same code
def test_a_wrong_tanh_rule_is_still_caught(n):
    """The right rule passes; 1 + tanh², 1 - tanh and a rule off by 1e-6 of its value fail
    (at the rows near 0.5, where tanh' is not rounding)."""
    graph = from_python(matvec, point=[_point(n, 0.02)], level="element")
    assert not graph.is_tensor
    right = _checked(_with_tanh_rule(graph, lambda v: 1 - sympy.tanh(v) ** 2))
    assert right.ok and right.ran, right.detail
    for wrong in (
        lambda v: 1 + sympy.tanh(v) ** 2,
        lambda v: 1 - sympy.tanh(v),
        lambda v: (1 - sympy.tanh(v) ** 2) * (1 + sympy.Float(1e-6)),
    ):
        check = _checked(_with_tanh_rule(graph, wrong))
        assert not check.ok and check.ran, check.detail
        assert "\n" not in check.detail and len(check.detail) < 300


def test_a_tampered_printer_is_still_caught(monkeypatch):
    """The code printed with its Jacobian's entries negated fails the check."""
    original = python_module._print

    def flipped(p, expr, function):
        text = original(p, expr, function)
        return f"-({text})" if function == "jacobian" and expr.free_symbols else text

    monkeypatch.setattr(python_module, "_print", flipped)
    with pytest.raises(VerificationError, match="disagrees"):
        dgraph.make_function(matvec, "jacobian", point=[_point(60, 0.02)])


# -- the array level: the same cancellation inside a block's values --------------------------


@pytest.mark.parametrize("scale", [1.0, 0.02])
def test_matvec_tanh_read_as_arrays_verifies_and_matches_jacfwd(scale):
    """Read as arrays, tanh's block holds 1 - tanh(s)**2 per entry: at scale 1 every row
    saturates and the check judged JAX's rounding against |J|·|v| that was rounding too
    ('did not verify'); the block's magnitude is now its rule's terms'
    (:func:`dgraph.blocks.arrays.block_magnitude`)."""
    x0 = _point(60, scale)
    graph = from_python(matvec, point=[x0], level="array")
    assert graph.is_tensor
    es = accumulate(graph, "forward")
    assert es.verified, es.verification.detail
    J = dgraph.make_function(graph, "jacobian", sparse=True)
    assert J.generated.verified
    for x in (x0, -x0):
        np.testing.assert_allclose(_dense(J(x)), np.asarray(_jacfwd(x)), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize(
    "wrong",
    [
        lambda t: 1 + t**2,
        lambda t: 1 - t,
        lambda t: (1 - t**2) * (1 + 1e-6),
    ],
    ids=["plus", "not-squared", "off-by-1e-6"],
)
def test_a_wrong_tanh_block_rule_is_still_caught(monkeypatch, wrong):
    """The array level's tanh rule made wrong (its values; the magnitudes stay the right
    rule's terms) fails the check at the rows near 0.5."""
    graph = from_python(matvec, point=[_point(60, 0.02)], level="array")
    es = accumulate(graph, "forward", verify=False)
    assert es.verify().status == "verified"
    right = arrays._derivative_function

    def changed(name, k):
        return (lambda a, *_: wrong(np.tanh(a))) if name == "tanh" else right(name, k)

    monkeypatch.setattr(arrays, "_derivative_function", changed)
    check = es.verify()
    assert check.status == "wrong", check.detail


def test_a_block_s_magnitude_is_its_rule_s_terms():
    """tanh's block at s = 30, 0, -2: values 0, 1, 1 - tanh(-2)²; magnitudes 2, 1,
    1 + tanh(-2)². A rule without a sum (sin's cos) has none: |value| is its magnitude."""
    values = {"s": np.array([30.0, 0.0, -2.0])}
    for name, expected in (("tanh", [2.0, 1.0, 1 + np.tanh(-2.0) ** 2]), ("sin", None)):
        op = arrays.ArrayOp(name, ("s",), (), (3,))
        block = arrays.operand_block(op, 0, [(3,)])
        value = arrays.block_value(op, 0, values, block)
        size = arrays.block_magnitude(op, 0, values, block)
        if expected is None:
            assert size is None
            continue
        assert value.tolist()[0] == 0.0
        np.testing.assert_allclose(size, expected, rtol=1e-15)
