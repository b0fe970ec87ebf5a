"""One numeric check (dgraph/core/value_check.py) behind verification, ``make_function``,
``codegen`` and the sweeps: the code checks and the expression-set check give the same
status and the same error at the same points for the same graph, and a generated
function made 1.001× wrong is caught through each caller at value scales 1e-6, 1 and
1e6 (errors against |J|·|v|, one TOLERANCE)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from dgraph import make_function  # noqa: E402
from dgraph.codegen.check import check_generated  # noqa: E402
from dgraph.codegen.generate import Generated, generate  # noqa: E402
from dgraph.codegen.tensor.check import check_tensor  # noqa: E402
from dgraph.codegen.tensor.sweep_check import check_sweep  # noqa: E402
from dgraph.core import block_values  # noqa: E402
from dgraph.core.value_check import (  # noqa: E402
    TOLERANCE,
    check_expression_set,
    scalar_points,
)
from dgraph.frontends import from_jax, from_trace  # noqa: E402
from dgraph.methods import accumulate  # noqa: E402

SCALES = (1e-6, 1.0, 1e6)
WRONG = 1.001
X, Y = np.array([0.3, 0.6, 0.8]), np.array([0.7, 0.2, 0.5])


@functools.cache
def _tensor(scale: float, reference: bool = True):
    """``scale·sin(x)·y + exp(x)·scale`` traced by JAX at (X, Y); without ``reference``
    the same graph checked against differences."""
    g = from_jax(lambda x, y: scale * (jnp.sin(x) * y + jnp.exp(x)), X, Y, level="array")
    if not reference:
        g = g.copy()
        g.set_jvp_reference(None)
    return g, accumulate(g, "forward")


@pytest.mark.parametrize("reference", [True, False], ids=["jax", "differences"])
def test_the_code_checks_and_the_expression_set_check_are_one_check(reference):
    _, es = _tensor(1.0, reference)
    alone = check_expression_set(es)
    assert alone.status == "verified" and alone.error is not None
    assert ("JAX's jvp" if reference else "central differences") in alone.reference
    for mode in ("jacobian", "value_and_jacobian", "jvp", "vjp"):
        check = make_function(es, mode).generated.check
        assert check.status == alone.status, mode
        assert check.difference_error == alone.error, mode  # same point, direction, reference
        assert alone.detail in check.detail and alone.reference in check.against
    # made wrong, both say so, with the same error at the same point
    J = make_function(es, "jacobian")
    original = block_values.block_value
    with pytest.MonkeyPatch.context() as m:
        m.setattr(block_values, "block_value", lambda *a: 1.01 * original(*a))
        wrong = check_expression_set(es)
        check = check_tensor(J._function, es, "python")
        assert es.verify().status == "wrong"
    assert wrong.status == check.status == "wrong"
    assert check.difference_error == wrong.error and wrong.error > TOLERANCE


def test_scalar_code_is_checked_at_the_check_s_points():
    g = from_trace("inputs: x, y\noutputs: u\nu = sin(x)*y")
    check = generate(g, "python", "forward", ("jacobian", "jvp", "vjp")).check
    np.testing.assert_array_equal(np.array(check.points), scalar_points(g, 5).x[:4])
    assert check.status == "verified" and check.difference_error < TOLERANCE


def _scaled(factor: float, got):
    """Every block of a result (one array, or tuples of them as jax.jacobian nests them)
    times ``factor``."""
    if isinstance(got, tuple):
        return tuple(_scaled(factor, part) for part in got)
    return got * factor


def _times(factor: float, got, mode: str):
    """A generated result made wrong: value_and_jacobian's (F, J) with J scaled, any other
    mode's result scaled."""
    if mode == "value_and_jacobian":
        return got[0], _scaled(factor, got[1])
    return _scaled(factor, got)


@pytest.mark.parametrize("scale", SCALES)
def test_tensor_code_made_wrong_is_caught_through_each_caller(scale):
    _, es = _tensor(scale)
    for mode in ("jacobian", "value_and_jacobian"):
        for sparse in (False, True):
            right = make_function(es, mode, sparse=sparse)._function
            assert check_tensor(right, es, "python", mode=mode).status == "verified"
            wrong = functools.partial(lambda f, m, *a: _times(WRONG, f(*a), m), right, mode)
            check = check_tensor(wrong, es, "python", mode=mode)
            assert check.status == "wrong" and not check.ok, (mode, sparse, check.detail)
            assert check.errors["jacobian"] > 100 * TOLERANCE
    for mode in ("jvp", "vjp"):
        right = make_function(es, mode)._function
        assert check_sweep(right, mode, es, "python").status == "verified"
        wrong = functools.partial(lambda f, m, *a: _times(WRONG, f(*a), m), right, mode)
        check = check_sweep(wrong, mode, es, "python")
        assert check.status == "wrong" and check.errors[mode] > 100 * TOLERANCE, mode


WRAP = """

_right_{name} = {name}


def {name}(*args):
    got = _right_{name}(*args)
    if isinstance(got, tuple):
        return got[0], got[1] * {factor!r}
    return got * {factor!r}
"""


@pytest.mark.parametrize("lang", ["python", "jax"])
@pytest.mark.parametrize("scale", SCALES)
def test_scalar_code_made_wrong_is_caught(scale, lang):
    g = from_trace(f"inputs: x, y\noutputs: u, w\nu = {scale!r}*sin(x)*y\nw = {scale!r}*exp(x*y)")
    modes = ("jacobian", "jvp", "vjp", "value_and_jacobian")
    right = generate(g, lang, "forward", modes)
    assert right.check.status == "verified"
    for mode in modes:
        text = right.text + WRAP.format(name=mode, factor=WRONG)
        made = Generated(text, lang, modes, right.programs, right.expression_set)
        check = check_generated(made, g)
        assert check.status == "wrong" and f"{mode}()" in check.detail, (mode, check.detail)
    # the derivatives agree with the partials, the values do not: caught against the graph
    text = right.text + WRAP.format(name="primal", factor=WRONG)
    check = check_generated(Generated(text, lang, modes, right.programs, right.expression_set), g)
    assert check.status == "wrong" and "primal()" in check.detail


def test_the_tolerance_is_one():
    """Every caller reports against TOLERANCE; the JSON says which."""
    g = from_trace("inputs: x\noutputs: u\nu = sin(x)")
    data = generate(g, "python", "forward").check.to_dict()
    assert data["tolerance"] == TOLERANCE and data["status"] == "verified"


@pytest.mark.parametrize("order", ["row-major", "shuffled", "repeated"])
def test_a_bcoo_result_is_read_as_its_coordinates_say(order):
    """A JAX BCOO result is read for the check as the matrix its coordinates give, in
    row order through its row pointers, else through SciPy's COO (repeats summed)."""
    from jax.experimental import sparse as jsparse

    from dgraph.codegen.tensor.check import _matrix

    rng = np.random.default_rng(5)
    dense = rng.normal(size=(6, 5)) * (rng.random((6, 5)) < 0.5)
    rows, cols = np.nonzero(dense)
    data = dense[rows, cols]
    if order == "shuffled":
        perm = rng.permutation(rows.size)
        rows, cols, data = rows[perm], cols[perm], data[perm]
    if order == "repeated":  # an entry split in two
        half = data[0] / 2
        rows, cols = np.append(rows, rows[0]), np.append(cols, cols[0])
        data = np.append(data, half)
        data[0] = half
    bcoo = jsparse.BCOO((jnp.asarray(data), jnp.asarray(np.stack([rows, cols], 1))), shape=(6, 5))
    with jax.enable_x64(True):
        got = _matrix(bcoo, 6, 5)
    np.testing.assert_allclose(got.toarray(), dense, rtol=1e-6)


def test_a_bcoo_pattern_is_found_once_for_results_that_share_it(monkeypatch):
    """The check reads a module's BCOO results (one index array, made at load) through
    one CSR pattern, found at the first; a result with other indices gets its own."""
    from jax.experimental import sparse as jsparse

    from dgraph.codegen.tensor import check as tensor_check

    found = []
    inner = tensor_check._csr_pattern
    monkeypatch.setattr(tensor_check, "_csr_pattern", lambda *a: found.append(1) or inner(*a))
    rng = np.random.default_rng(6)
    mask = rng.random((6, 5)) < 0.5
    rows, cols = np.nonzero(mask)
    indices = jnp.asarray(np.stack([rows, cols], 1))
    other = jnp.asarray(np.stack([rows, cols], 1))
    patterns: dict = {}
    with jax.enable_x64(True):
        for ij in (indices, indices, other):
            dense = rng.normal(size=(6, 5)) * mask
            bcoo = jsparse.BCOO((jnp.asarray(dense[rows, cols]), ij), shape=(6, 5))
            got = tensor_check._matrix(bcoo, 6, 5, patterns)
            np.testing.assert_array_equal(got.toarray(), dense)
    assert len(found) == 2


def test_a_given_point_with_infinite_partials_is_not_verified() -> None:
    """``sqrt`` at the user's point x = (0, 1): its partial 1/(2·sqrt(0)) is infinite, so
    that point cannot be checked; agreement at four drawn points does not make it
    verified (it was, silently: a NaN there went unseen)."""
    with pytest.warns(UserWarning, match="NOT verified"):
        got = make_function(jnp.sqrt, "jacobian", "python", point=[np.array([0.0, 1.0])])
    check = got.generated.check
    assert not got.generated.verified and check.status == "not verified"
    assert "not finite at the given point x = (0, 1)" in check.detail
    assert len(check.points) == 4 and (0.0, 1.0) not in check.points
