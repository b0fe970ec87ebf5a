"""jaxopt's losses, objectives and projections (github.com/google/jaxopt, ``jaxopt/_src``),
restated here as short statements of their math in jaxopt's idioms (jaxopt is not
installed in CI; session 64, ``benchmarks/jaxopt_survey.py`` runs the originals), given
to dgraph as a user of jaxopt would: the data closed over, or the labels a parameter.
Values against JAX's (``jax.jacfwd``, ``jax.grad``, ``jax.hessian``)."""

import types

import numpy as np
import pytest

import dgraph
from dgraph.frontends.functions import uses_jax
from tests import jax_reference as jref

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(64)
SCORES = jnp.asarray(RNG.standard_normal((2, 3)))  # 2 samples, 3 classes
LABELS = jnp.asarray([0, 2], dtype=jnp.int32)


def projection_simplex(x):
    """projection.py ``projection_simplex`` (unit value; its ``custom_jvp`` left out, the
    primal is what dgraph reads): sort, cumulative sums, the support's size ``k`` counted,
    and ``cumsum[k - 1]`` taken at that computed position."""
    u = jnp.sort(x)[::-1]
    cumsum_u = jnp.cumsum(u)
    ind = jnp.arange(x.shape[0]) + 1
    k = jnp.count_nonzero(1.0 / ind + (u - cumsum_u / ind) > 0)
    return jax.nn.relu(1.0 / k + (x - cumsum_u[k - 1] / k))


def multiclass_sparsemax_loss(label, scores):
    """loss.py ``multiclass_sparsemax_loss``: the simplex projection of the scores, the
    scores shifted by the label's and that entry set to 0, the Gini entropy's conjugate."""
    proba = projection_simplex(scores)
    scores = (scores - scores[label]).at[label].set(0.0)
    return jnp.dot(proba, jnp.where(proba, scores, 0.0)) + 0.5 * (1.0 - jnp.dot(proba, proba))


def multiclass_logistic_loss(label, logits):
    """loss.py ``multiclass_logistic_loss``: ``logsumexp`` of the logits less the label's,
    its own entry set to 0."""
    logits = (logits - logits[label]).at[label].set(0.0)
    return jax.scipy.special.logsumexp(logits)


def sparsemax_objective(W):
    """objective.py's ``jnp.mean(jax.vmap(loss)(y, predictions))``, with the sparsemax loss:
    the simplex projection once per sample (``jax.vmap``: its ``cumsum[k - 1]`` a gather
    with a position per row)."""
    return jnp.mean(jax.vmap(multiclass_sparsemax_loss)(LABELS, W))


def _gradient_hessian(f):
    """JAX's gradient and Hessian of ``f``, one jitted program (or stored)."""
    return lambda *a: jref.references(
        [jref.Reference("grad", f, a), jref.Reference("hessian", f, a)]
    )


def sparsemax_derivatives(W):
    """The objective's gradient and Hessian by hand (Martins and Astudillo 2016, Prop. 2):
    per sample ``(p - e_label) / m`` and ``(diag(s) - s sᵀ / |s|) / m``, ``p`` the
    projection (in NumPy: ``max(x - τ, 0)``) and ``s`` its support, the samples' blocks
    on the diagonal."""
    W = np.asarray(W)
    m, k = W.shape
    gradient, hessian = np.zeros((m, k)), np.zeros((m, k, m, k))
    for i in range(m):
        u = np.sort(W[i])[::-1]
        css = np.cumsum(u)
        size = np.count_nonzero(u - (css - 1) / np.arange(1, k + 1) > 0)
        p = np.maximum(np.asarray(W[i]) - (css[size - 1] - 1) / size, 0.0)
        s = (p > 0).astype(float)
        gradient[i] = (p - np.eye(k)[int(LABELS[i])]) / m
        hessian[i, :, i, :] = (np.diag(s) - np.outer(s, s) / s.sum()) / m
    return gradient, hessian


def test_vmapped_sparsemax_loss_gradient_and_hessian_are_the_papers() -> None:
    """The mapped simplex projection's computed positions (a batched gather, one per row)
    were refused ("gather with an index that depends on the inputs"); the loss's gradient
    and its Hessian (their transposes, batched scatter-adds) are the closed forms."""
    H = dgraph.make_function(sparsemax_objective, "value_gradient_hessian", point=[SCORES])
    assert H.generated.verified is True
    for W in (SCORES, SCORES[::-1] * 2.0):  # other supports: positions computed at the call
        _, gradient, hessian = H(W)
        want = sparsemax_derivatives(W)
        np.testing.assert_allclose(gradient, want[0], atol=1e-12)
        np.testing.assert_allclose(hessian, want[1], atol=1e-12)


def logreg(W, labels):
    """objective.py ``multiclass_logreg``'s subfunction: the mean logistic loss over the
    samples, the labels the data a solver is given."""
    return jnp.mean(jax.vmap(multiclass_logistic_loss)(labels, W))


def test_logreg_labels_as_a_parameter_are_read_at_the_call() -> None:
    """With the labels a parameter (``params=``), ``logits[label]`` and
    ``.at[label].set`` under ``jax.vmap`` are a gather and a scatter at positions the
    parameter gives (refused; the scatter was an IndexError traceback): the gradient and
    Hessian are JAX's for other labels given at the call."""
    H = dgraph.make_function(
        logreg, "value_gradient_hessian", point=[SCORES, LABELS], params=["labels"]
    )
    assert H.generated.verified is True
    reference = _gradient_hessian(logreg)
    for labels in (LABELS, jnp.asarray([1, 1], dtype=jnp.int32)):
        _, gradient, hessian = H(SCORES, labels)
        want = reference(SCORES, labels)
        np.testing.assert_allclose(gradient, want[0], atol=1e-12)
        np.testing.assert_allclose(hessian, want[1], atol=1e-12)


def test_vmapped_set_at_a_computed_position_equals_jax() -> None:
    """``jax.vmap`` of ``x.at[jnp.argmax(x)].set(0)`` (a scatter whose updates lack the
    written axis, one per row) was an IndexError traceback."""
    f = lambda X: jax.vmap(lambda x: x.at[jnp.argmax(x)].set(0.0) * x)(X)  # noqa: E731
    J = dgraph.make_function(f, "jacobian", point=[SCORES])
    assert J.generated.verified is True
    np.testing.assert_allclose(J(SCORES), jref.jacfwd(f)(SCORES), atol=1e-12)


class EqualityConstrainedQP:
    """eq_qp.py ``EqualityConstrainedQP`` with ``Q = I``: its ``run`` solves the KKT system
    ``[[I, Aᵀ], [A, 0]] (p, y) = (x, b)`` matrix-free on the pair (``custom_linear_solve``
    of a tuple), here by a dense solve."""

    def run(self, x, A, b):
        def matvec(v):
            p, y = v
            return (p + A.T @ y, A @ p)

        def solve(_, rhs):
            n, m = A.shape[1], A.shape[0]
            M = jnp.block([[jnp.eye(n), A.T], [A, jnp.zeros((m, m))]])
            z = jnp.linalg.solve(M, jnp.concatenate(rhs))
            return (z[:n], z[n:])

        return jax.lax.custom_linear_solve(matvec, (x, b), solve, symmetric=True)[0]


def affine_projection(x, A, b):
    """projection.py ``projection_affine_set``: its body names no JAX, only the solver."""
    return EqualityConstrainedQP().run(x, A, b)


def test_refusal_of_a_jax_library_function_names_what_jax_read() -> None:
    """A JAX function reached through a library module (``jaxopt.projection``) is tried as
    NumPy first (``uses_jax`` does not look into modules); where JAX traces it and
    dgraph's reader refuses, that refusal is the line (it was the NumPy tracer's "it calls
    JAX, which the NumPy tracer cannot call"), for Jacobians and Hessians."""
    library = types.ModuleType("projection")  # a module that is not JAX's own
    library.affine_projection = affine_projection
    hyperparams = (RNG.standard_normal((1, 3)), np.array([0.5]))  # a tuple: no JAX seen
    x = RNG.standard_normal(3)
    f = lambda w: library.affine_projection(w, *hyperparams)  # noqa: E731
    g = lambda w: library.affine_projection(w, *hyperparams) @ w  # noqa: E731
    assert not uses_jax(f) and not uses_jax(g)
    for call in (
        lambda: dgraph.make_function(f, "jacobian", point=[x]),
        lambda: dgraph.make_function(g, "hessian", point=[x]),
    ):
        with pytest.raises(dgraph.DGraphError, match="custom_linear_solve") as caught:
            call()
        assert "NumPy tracer" not in str(caught.value)
        assert "\n" not in str(caught.value)
