"""Edge cases of the gradient and Hessian graphs (session 26's survey):

* ``jnp.logaddexp(x, -inf)``: its custom_jvp rule read with the constant's tangent
  ``-inf`` made ``-inf · 0`` (NaN on the Hessian's diagonal); constants now have the
  tangent zero, and a vertex that may hold an infinity (``jnp.where(mask, x, -inf)``) the
  tangent ``x`` where finite;
* masked ``logsumexp`` / softmax / log-softmax / attention (``-inf`` logits): values
  JAX's, and verified: a point whose infinities no partial reads is checked (it was
  "not finite at the user's point", never verified); a wrong rule there is still caught,
  an infinite partial still passes the point over;
* ``import scipy.sparse`` in the function's body, read as a module-level import;
* ``value_gradient_hessian``'s size limits count the Hessian's entries, not its value's
  gradient row.
"""

from __future__ import annotations

import functools
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import dgraph
from dgraph.core import block_values
from dgraph.frontends import from_jax
from dgraph.methods import accumulate
from tests import jax_reference as jref

from .test_value_check import _scaled

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)
logsumexp = jax.scipy.special.logsumexp

X = np.linspace(0.1, 1.0, 6)
MASK = np.array([1, 0, 1, 1, 0, 1], bool)
CAUSAL = np.tril(np.ones((3, 3), bool))
WEIGHTS = np.arange(1.0, 7.0)


def _masked(x):
    return jnp.where(MASK, x, -jnp.inf)


CASES = {  # name -> a function of x (6,), each with -inf among its values
    "logaddexp_constant": lambda x: jnp.logaddexp(x, -jnp.inf),
    "logaddexp_constant_left": lambda x: jnp.logaddexp(-jnp.inf, x**2),
    "logaddexp_masked": lambda x: jnp.logaddexp(x, _masked(x)),
    "logsumexp_padded": lambda x: logsumexp(jnp.concatenate([x, jnp.array([-jnp.inf])])),
    "logsumexp_masked": lambda x: logsumexp(_masked(x)),
    "logsumexp_rows": lambda x: logsumexp(_masked(x).reshape(2, 3), axis=1),
    "softmax_masked": lambda x: jax.nn.softmax(_masked(x)),
    "softmax_padded": lambda x: jax.nn.softmax(jnp.concatenate([x, jnp.array([-jnp.inf])])),
    "log_softmax_masked": lambda x: jnp.where(MASK, jax.nn.log_softmax(_masked(x)), 0.0),
    "causal_attention": lambda x: jax.nn.softmax(
        jnp.where(CAUSAL, jnp.outer(x[:3], x[3:]), -jnp.inf), axis=-1
    ).ravel(),
}


def _scalar(g):
    return lambda x: jnp.sum(jnp.sin(g(x)) * np.resize(WEIGHTS, np.shape(g(x))))


# The method make_function's choice gives each case's Jacobian (the same generated text),
# named so that each case does not build and compare every candidate's program: the
# choice is codegen's (tests/test_codegen_choice.py).
CHOSEN = {
    "causal_attention": "reverse",
    "log_softmax_masked": "symbolic",
    "logaddexp_constant": "forward",
    "logaddexp_constant_left": "forward",
    "logaddexp_masked": "forward",
    "logsumexp_masked": "reverse",
    "logsumexp_padded": "reverse",
    "logsumexp_rows": "symbolic",
    "softmax_masked": "reverse",
    "softmax_padded": "reverse",
}


def _made(f, mode, method=None):
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # a "NOT verified" warning fails
        return dgraph.make_function(f, mode, point=(X,), method=method)


@functools.cache
def _case_references() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """JAX's Jacobian (``jacfwd``) of every case and Hessian (``jax.hessian``) of its
    :func:`_scalar` at X, by name: one jitted program for all the cases (20 small
    programs compiled as one), read-only."""

    def every(x):
        return {name: (jax.jacfwd(f)(x), jax.hessian(_scalar(f))(x)) for name, f in CASES.items()}

    found = {k: tuple(np.asarray(a) for a in v) for k, v in jax.jit(every)(X).items()}
    for refs in found.values():
        for a in refs:
            a.setflags(write=False)
    return found


@pytest.mark.parametrize("name", sorted(CASES))
def test_infinite_logits_jacobian_and_hessian_equal_jax_s_and_verify(name):
    f = CASES[name]
    J = _made(f, "jacobian", CHOSEN[name])
    want, want_hessian = _case_references()[name]
    np.testing.assert_allclose(np.reshape(J(X), want.shape), want, rtol=1e-12, atol=1e-15)
    assert J.generated.verified is True
    H = _made(_scalar(f), "hessian")
    want = want_hessian
    assert np.isfinite(want).all()
    np.testing.assert_allclose(H(X), want, rtol=1e-11, atol=1e-14)
    assert H.generated.verified is True


def test_logaddexp_of_minus_infinity_hessian_is_jax_s_zeros():
    """The survey's case: NaN on the diagonal before."""
    f = lambda x: jnp.sum(jnp.logaddexp(x, -jnp.inf))  # noqa: E731
    H = _made(f, "hessian")
    np.testing.assert_array_equal(H(X), np.zeros((6, 6)))
    np.testing.assert_array_equal(np.asarray(jref.hessian(f)(X)), np.zeros((6, 6)))
    value, gradient, hessian = _made(f, "value_gradient_hessian")(X)
    np.testing.assert_allclose(value, np.sum(X), rtol=1e-15)
    np.testing.assert_allclose(gradient, np.ones(6), rtol=1e-15)
    np.testing.assert_array_equal(hessian, np.zeros((6, 6)))


def test_a_masked_logaddexp_keeps_its_values():
    """The rule's tangent at the masked entries is 0, so the call's value there (x) is
    not ``-inf · 0``: ``value_and_jacobian`` gives JAX's values."""
    f = CASES["logaddexp_masked"]
    value, jac = _made(f, "value_and_jacobian", CHOSEN["logaddexp_masked"])(X)
    np.testing.assert_allclose(value, np.asarray(f(X)), rtol=1e-15)
    np.testing.assert_allclose(jac, np.asarray(jref.jacfwd(f)(X)), rtol=1e-15)


def test_a_wrong_rule_is_caught_where_the_logits_are_masked(monkeypatch):
    g = from_jax(CASES["softmax_masked"], X, level="array")
    es = accumulate(g, "forward")
    assert es.verified and "at the user's point" in es.verification.detail
    monkeypatch.setattr(block_values, "block_value", _scaled("exp", 1.001))
    check = es.verify()
    assert check.status == "wrong" and "at the user's point" in check.detail


def test_an_infinite_partial_still_passes_the_point_over():
    """``exp`` of a +inf entry: the masked entries are +inf at every point. Their partials
    are known zeros (``exp(-inf)``'s, :mod:`dgraph.core.constant_entries`), so dgraph's
    values are finite, but JAX's jvp, the reference, is not (``0 * inf``) at any point:
    not verified, never a pass."""

    def f(x):
        return jnp.sum(jnp.exp(-jnp.exp(jnp.where(MASK, x, jnp.inf))))

    g = from_jax(f, X, level="array")
    check = accumulate(g, "forward").verification
    assert check.status == "not verified" and not check
    assert "JAX's jvp is not finite there (the user's point)" in check.detail


# -- scipy.sparse imported in the function's body ------------------------------------------

_BODY = """
import sys
import numpy as np
import dgraph

D = [np.arange(2.0, 7.0), np.full(4, 1.0)]
x = np.linspace(0.5, 1.5, 5)

def f(x):
    import scipy.sparse as sp
    from scipy.sparse.linalg import spsolve
    A = sp.diags(D, [0, 1], format="csc")
    return np.sin(spsolve(A, x**2)) + sp.linalg.spsolve(A, x) + A @ x

assert "scipy.sparse" not in sys.modules
J = dgraph.make_function(f, "jacobian", point=(x,))
A = np.diag(D[0]) + np.diag(D[1], 1)
inv = np.linalg.inv(A)
want = np.cos(inv @ x**2)[:, None] * inv * (2 * x) + inv + A
np.testing.assert_allclose(J(x), want, rtol=1e-12, atol=1e-14)
assert J.generated.verified
print("ok")
"""


def test_scipy_sparse_imported_in_the_body_in_a_fresh_interpreter():
    """Nothing imported SciPy before the trace (a fresh interpreter), so the body's own
    import brought SciPy's unpatched product and ``spsolve``, which met a traced array."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_BODY)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_spsolve_imported_in_the_body_equals_jax_s_hessian():
    """``from scipy.sparse.linalg import spsolve`` in the body (SciPy imported already)
    was a refusal ("converting an array that depends on the inputs"): now the Hessian
    of the same program with a dense solve in JAX."""
    dense = np.diag(np.arange(2.0, 8.0)) + np.diag(np.full(5, 0.5), 1)

    def f(x):
        import scipy.sparse
        from scipy.sparse.linalg import spsolve

        return np.sum(np.sin(spsolve(scipy.sparse.csc_array(dense), x**2)) ** 2)

    def ref(x):
        return jnp.sum(jnp.sin(jnp.linalg.solve(dense, x**2)) ** 2)

    H = dgraph.hessian(f, X)
    np.testing.assert_allclose(H(X), np.asarray(jref.hessian(ref)(X)), rtol=1e-11)
    assert H.generated.verified


def test_only_a_body_that_names_scipy_sparse_imports_it():
    from dgraph.frontends.scipy_sparse import _names_sparse

    def special(x):
        import scipy.special

        return scipy.special.expit(x)

    def through_scipy(x):
        import scipy

        return scipy.sparse.eye(3) @ x

    def nested(x):
        def inner(u):
            from scipy.sparse import linalg

            return linalg

        return inner(x)

    assert not _names_sparse(special) and not _names_sparse(np.sin)
    assert _names_sparse(through_scipy) and _names_sparse(nested)


# -- value_gradient_hessian's size limits: the Hessian's entries ---------------------------


def _log_sum_exp(x):
    return np.log(np.sum(np.exp(x)))


def _limits(monkeypatch, sparse: int = 10**8, dense: int = 10**8) -> None:
    from dgraph.codegen.tensor import function

    monkeypatch.setattr(function, "SPARSE_LIMIT", sparse)
    monkeypatch.setattr(function, "DENSE_LIMIT", dense)


@pytest.mark.parametrize("sparse", [True, False])
def test_value_gradient_hessian_at_the_hessian_s_limit_is_built(monkeypatch, sparse):
    """40² = 1,600 entries at a limit of 1,600: built (the value's gradient row made
    1,640, refused as "a Hessian of 1,640"); at 1,599 refused, naming the Hessian's
    1,600 and which limit."""
    from dgraph.errors import DGraphError

    x = np.linspace(-0.5, 0.5, 40)
    _limits(monkeypatch, **{"sparse" if sparse else "dense": 1600})
    made = dgraph.make_function(_log_sum_exp, "value_gradient_hessian", sparse=sparse,
                                point=[x])  # fmt: skip
    value, gradient, hessian = made(x)
    np.testing.assert_allclose(value, logsumexp(x), rtol=1e-15)
    want = np.asarray(jref.hessian(logsumexp)(x))
    np.testing.assert_allclose(hessian.toarray() if sparse else hessian, want, rtol=1e-12,
                               atol=1e-15)  # fmt: skip
    np.testing.assert_allclose(gradient, np.asarray(jref.jacrev(logsumexp)(x)), rtol=1e-13)
    _limits(monkeypatch, **{"sparse" if sparse else "dense": 1599})
    with pytest.raises(DGraphError) as raised:
        dgraph.make_function(_log_sum_exp, "value_gradient_hessian", sparse=sparse, point=[x])
    kind = "a sparse Hessian of 1,600 nonzeros" if sparse else "a dense Hessian of 1,600 entries"
    assert str(raised.value).startswith(kind) and "more than 1,599" in str(raised.value)


def _guards(graph) -> int:
    """The ``is_finite`` operations in the graph's vertices (the custom rules' guards)."""
    count = 0
    for v in graph.vertices:
        stack = [graph.op(v)]
        while stack:
            op = stack.pop()
            if op is None or not hasattr(op, "operands"):
                continue
            count += op.primitive == "is_finite"
            stack.extend(op.operands)
    return count


def test_only_a_custom_call_that_may_read_an_infinity_is_guarded():
    """``relu`` after a (log-)softmax reads no infinity (the ``-inf`` its maximum starts
    from is ``max``'s identity): no guard, no vertex more; after masked logits, one."""
    plain = from_jax(lambda x: jnp.sum(jax.nn.relu(jax.nn.log_softmax(x))), X, level="array")
    masked = from_jax(lambda x: jnp.sum(jax.nn.relu(_masked(x))), X, level="array")
    assert _guards(plain) == 0 and _guards(masked) == 1
