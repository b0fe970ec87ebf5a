"""A second survey of NumPy, scipy, JAX and lax idioms one line each (session 36), none of
them in ``benchmarks/idioms_survey.py`` or ``benchmarks/real_programs*.py``: ufunc methods,
``np.pad`` modes, polynomials, ``scipy.linalg``'s factorizations, ``scipy.special``'s
entropies, ``lax``'s windows and convolutions, ``.at[]`` updates... Each idiom is a vector
``v`` of six unknowns; its cells are

* ``hess``: ``dgraph.hessian`` of the scalar ``f = Σ v (1 + v/2)`` (so both ``v``'s first
  and second derivatives count) against central differences of ``f`` (NumPy, scipy) or
  ``jax.hessian`` (JAX), as ``idioms_survey.check_hessian`` checks;
* ``jac``: ``dgraph.make_function(v, "jacobian")`` against central differences of ``v``
  (steps 1e-5, tolerance 1e-6 absolute and relative) or ``jax.jacfwd``;
* ``c``: ``dgraph.hessian(f, lang="c")`` on the idioms of ``C_CELLS`` (a C compiler present;
  on every idiom with ``SURVEY_C=all`` in the environment);
* ``hess2``, ``jac2``: ``hess`` and ``jac`` built at ``X`` and called at ``X2``, whose
  signs, orders, masks and active bounds differ (a function is built once, called at many
  points).

A cell is ok / refused (one line) / WRONG (the largest difference) / ERROR (an exception
that is not dgraph's one line) / HANG (no answer in 60 s: the cells run in a child process,
killed and restarted at the next cell).

    python benchmarks/idioms_survey2.py [NAME ...]
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import time

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import jax.scipy.special as jsps
import numpy as np
import scipy.integrate as si
import scipy.linalg as sl
import scipy.ndimage as snd
import scipy.signal as ssig
import scipy.special as sps
from idioms_survey import X, check_hessian
from jax import lax
from scipy.spatial.distance import cdist

import dgraph

T = np.array([0.0, 0.3, 0.5, 1.1, 1.6, 2.0])  # a non-uniform grid
K3 = np.array([0.25, 0.5, -0.25])
S3 = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, 0.2], [0.1, 0.2, 1.8]])
A3 = np.array([[1.0, 0.2, -0.3], [0.4, 0.9, 0.1], [-0.2, 0.5, 1.2]])
Q = np.linspace(-1.2, 1.4, 7)  # query points of the interpolations
X2 = np.array([-0.52, 0.77, -1.21, 0.18, 0.66, -0.35])  # other signs, other orders


def _spd(x):
    """A symmetric positive definite 3 × 3 matrix of the first six unknowns."""
    L = np.array([[1.2 + x[0] ** 2, 0.0, 0.0], [x[1], 1.1 + x[2] ** 2, 0.0], [x[3], x[4], 1.3]])
    return L @ L.T + x[5] ** 2 * np.eye(3)


def _spd_jax(x):
    """:func:`_spd` in JAX."""
    L = jnp.array([[1.2 + x[0] ** 2, 0.0, 0.0], [x[1], 1.1 + x[2] ** 2, 0.0], [x[3], x[4], 1.3]])
    return L @ L.T + x[5] ** 2 * jnp.eye(3)


def _scaled_sum(x, xp=np):
    """Array-API style: the module a default argument."""
    S = xp.outer(x[:3], x[:3]) + xp.diag(x[3:] ** 2 + 1.0)
    w = xp.asarray([x[0] ** 2, 1.0, x[1]])
    return xp.sum(xp.sin(x[:3]) * w) + xp.sum(xp.linalg.eigvalsh(S) ** 2)


# ---------------------------------------------------------------- NumPy


def ufunc_accumulate(x):
    return np.concatenate([np.add.accumulate(x) * x, np.multiply.accumulate(1 + 0.1 * x)])


def maximum_accumulate(x):
    return np.maximum.accumulate(x) * x + np.minimum.accumulate(x**2)


def add_outer(x):
    return (np.add.outer(x[:3], x[3:]) ** 2).ravel()


def logaddexp_reduce_axis(x):
    return np.logaddexp.reduce(x.reshape(2, 3), axis=1)


def multiply_reduce_axis(x):
    return np.multiply.reduce(x.reshape(3, 2) + 1.5, axis=0)


def einsum_trace_diag(x):
    M = np.outer(x[:3], x[3:]) + A3
    return np.concatenate([[np.einsum("ii", M)], np.einsum("ii->i", M @ M)])


def einsum_optimize_path(x):
    M = x.reshape(2, 3)
    return np.einsum("ij,jk,k->i", M, A3, x[:3], optimize="greedy")


def np_vectorize(x):
    return np.vectorize(lambda a: a * np.sin(a) + a**2)(x)


def pad_reflect_symmetric(x):
    return np.pad(x, 2, mode="reflect") * np.pad(x, 2, mode="symmetric")


def pad_wrap_edge(x):
    return np.pad(x**2, (1, 2), mode="wrap") + np.pad(x, (2, 1), mode="edge")


def pad_linear_ramp(x):
    return np.pad(x, 2, mode="linear_ramp", end_values=(0.5, -0.5)) ** 2


def roll_axis(x):
    M = x.reshape(2, 3)
    return (np.roll(M, 1, axis=1) * M + np.roll(M, -1, axis=0) ** 2).ravel()


def diff_prepend_append(x):
    return np.concatenate([np.diff(x**2, prepend=0.0, append=x[0]), np.diff(x, n=2) ** 2])


def gradient_edge_order(x):
    return np.gradient(x**2, 0.5, edge_order=2) + np.gradient(np.sin(x), T)


def interp_traced_x(x):
    return np.interp(x, T - 1.0, np.cos(T))


def interp_traced_fp(x):
    return np.interp(Q, T - 0.8, x**2)


def convolve_modes(x):
    return np.concatenate([np.convolve(x, K3, mode="full"), np.correlate(x, K3, mode="same")])


def convolve_traced_both(x):
    return np.convolve(x[:4], x[4:]) ** 2


def polyval_traced(x):
    return np.polyval(x[:3], x[3:]) + np.polyval(np.polyint(x[:3]), 0.7)


def polynomial_families(x):
    t = np.array([-0.3, 0.2, 0.8])
    return np.concatenate(
        [
            np.polynomial.chebyshev.chebval(t, x),
            np.polynomial.hermite.hermval(t, x[:4]),
            np.polynomial.legendre.legval(t, x[2:]),
        ]
    )


def trapezoid_traced_abscissa(x):
    t = np.cumsum(x**2 + 0.1)
    return np.array([np.trapezoid(np.sin(t), x=t), np.trapezoid(x**2, dx=0.5)])


def np_block(x):
    a, b = x[:2].reshape(1, 2), x[2:4].reshape(2, 1)
    return np.block([[np.eye(2) * x[4], b], [a, x[5:6].reshape(1, 1)]]).ravel() ** 2


def repeat_counts(x):
    M = x.reshape(2, 3)
    return (np.repeat(M, [1, 2, 3], axis=1) ** 2 * np.arange(12.0).reshape(2, 6)).ravel()


def cumprod_axis(x):
    return np.cumprod(1 + 0.2 * x.reshape(2, 3), axis=1).ravel()


def np_svd_values(x):
    return np.linalg.svd(x.reshape(2, 3) + A3[:2], compute_uv=False)


def np_eigh_projector(x):
    w, V = np.linalg.eigh(_spd(x))
    return np.concatenate([w, (np.outer(V[:, 2], V[:, 2])).ravel()])


def matrix_power_negative(x):
    return np.linalg.matrix_power(A3 + 0.1 * x[:3, None] * x[3:], -2).ravel()


def norm_ord_axis(x):
    M = x.reshape(2, 3) + A3[:2]
    return np.array(
        [
            np.linalg.norm(M, 2),
            np.linalg.norm(M, "nuc"),
            *np.linalg.norm(M, ord=1, axis=0),
            np.linalg.norm(M, -np.inf),
        ]
    )


def fill_diagonal(x):
    M = np.outer(x[:3], x[3:])
    np.fill_diagonal(M, x[:3] ** 2)
    return M.ravel()


def diag_indices_tri(x):
    M = np.outer(x[:3], x[3:]) + A3
    M[np.diag_indices(3)] = np.exp(x[3:])
    return np.concatenate([np.triu(M, 1).ravel(), np.tril(M).ravel() ** 2])


def put_along_axis(x):
    M = np.zeros((2, 3)) + x.reshape(2, 3)
    np.put_along_axis(M, np.array([[2], [0]]), x[:2, None] ** 2, axis=1)
    return M.ravel()


def sort_axis(x):
    M = x.reshape(3, 2)
    return (np.sort(M, axis=0) * np.arange(1.0, 7.0).reshape(3, 2)).ravel()


def argsort_index(x):
    return x[np.argsort(x**2)] * np.arange(1.0, 7.0)


def elementwise_binary(x):
    y = x[::-1]
    return np.logaddexp2(x, y) + np.fmax(x, y) ** 2 + np.fmin(x, 0.2) + np.arctan2(x, y + 2.0)


def elementwise_unary(x):
    return np.cbrt(x + 2.0) + np.expm1(x) * np.log1p(x**2) + np.heaviside(x, 0.5) * x**2


def clip_array_bounds(x):
    return np.clip(x, x[::-1] - 0.5, np.array([0.0, 0.5, 1.0, 0.4, 0.2, 0.8])) ** 2


def where_one_branch(x):
    return np.where(x > 0.0, x**2, 0.3) + np.where(x < 0.5, 1.0, np.sin(x))


def bool_index_2d(x):
    M = x.reshape(2, 3)
    return np.array([np.sum(M[M > 0] ** 2), np.sum(np.exp(M[M <= 0]))])


def flip_rot_swap(x):
    M = x.reshape(2, 3)
    return np.concatenate(
        [
            (np.rot90(M) * np.arange(6.0).reshape(3, 2)).ravel(),
            np.flip(M, axis=1).ravel() * x,
            np.swapaxes(M[None], 0, 2).ravel() ** 2,
        ]
    )


def stack_family(x):
    a, b = x[:3], x[3:] ** 2
    return np.concatenate(
        [
            np.stack([a, b], axis=1).ravel(),
            np.hstack([a, b]) * np.vstack([a, b]).ravel(),
            np.column_stack([a, b]).ravel() ** 2,
        ]
    )


def split_family(x):
    a, b, c = np.split(x, 3)
    p, q, r, s = np.array_split(x**2, 4)
    return np.concatenate([a * b + c, p, q * r[0], s])


def slicing_views(x):
    return (x[::-1] * x + (x[..., None] * x[np.newaxis, :])[1:3, 2:5].ravel()[:6]) ** 2


def fancy_2d_repeats(x):
    M = x.reshape(2, 3)
    return M[[0, 1, 1, 0], [2, 2, 0, 2]] * M[:, [1, 1]].ravel()


def matmul_stacks(x):
    A = np.stack([np.outer(x[:3], x[3:]), A3 * x[0]])
    return np.concatenate([(A @ A).ravel(), (A @ x[:3]).ravel(), [x[:3] @ A3 @ x[3:]]])


def moves_without_derivative(x):
    s = np.sign(x)
    return np.concatenate([s * x**2, np.roll(np.floor(2 * x), 1) * x, s.reshape(2, 3).T.ravel()])


# ---------------------------------------------------------------- scipy


def scipy_expm(x):
    return sl.expm(0.3 * x[:4].reshape(2, 2)).ravel()


def scipy_sqrtm_logm(x):
    S = _spd(x)
    return np.concatenate([sl.sqrtm(S).ravel(), sl.logm(S).ravel()])


def scipy_solve_triangular(x):
    L = np.tril(A3) + np.diag(x[:3] ** 2)
    return sl.solve_triangular(L, x[3:], lower=True)


def scipy_cho(x):
    return sl.cho_solve(sl.cho_factor(_spd(x)), np.array([1.0, -0.5, 0.3]))


def scipy_lu(x):
    return sl.lu_solve(sl.lu_factor(A3 + np.diag(x[:3])), x[3:])


def scipy_solve_pos_det_inv(x):
    S = _spd(x)
    return np.concatenate([sl.solve(S, np.ones(3), assume_a="pos"), [sl.det(S)], sl.inv(S)[0]])


def special_erf_xlogy(x):
    y = x**2 + 0.2
    return sps.erf(x) + sps.erfc(x) * sps.erfcx(y) + sps.xlogy(y, y + 1) + sps.xlog1py(x, y)


def special_logistic(x):
    p = sps.expit(x)
    return sps.logit(0.1 + 0.8 * p) + sps.log_ndtr(x) + sps.ndtr(x) ** 2


def special_entropies(x):
    p, q = sps.expit(x), sps.expit(x[::-1])
    return sps.rel_entr(p, q) + sps.kl_div(p, q) + sps.entr(p)


def special_huber(x):
    return sps.huber(0.5, x) + sps.pseudo_huber(0.7, x)


def special_boxcox(x):
    y = x**2 + 0.5
    return sps.boxcox(y, 0.3) + sps.boxcox1p(y, -0.4) + sps.boxcox(y, 0.0)


def special_gammaln_digamma(x):
    y = x**2 + 0.5
    return sps.gammaln(y) + sps.digamma(y) + sps.psi(y + 1) + sps.betaln(y, 2.0)


def scipy_integrate(x):
    y = np.sin(x)
    return np.concatenate(
        [
            [si.trapezoid(y, T), si.simpson(y, x=T)],
            si.cumulative_trapezoid(y**2, T, initial=0.0),
        ]
    )


def scipy_signal_convolve(x):
    return np.concatenate(
        [ssig.convolve(x, K3, mode="same"), ssig.fftconvolve(x**2, K3, mode="valid")]
    )


def ndimage_convolve1d(x):
    return snd.convolve1d(x**2, K3, mode="nearest")


def module_default_argument(x):
    return np.array([_scaled_sum(x), _scaled_sum(x**2)])


def spatial_cdist(x):
    P = x.reshape(3, 2)
    return cdist(P, np.array([[0.0, 0.0], [1.0, -0.5]])).ravel()


NUMPY = {
    name: f
    for name, f in list(globals().items())
    if callable(f)
    and getattr(f, "__module__", None) == __name__
    and not name.startswith("_")
    and name not in ("cdist",)
}

# ---------------------------------------------------------------- JAX

J3, JS3 = jnp.asarray(A3), jnp.asarray(S3)
JT, JQ = jnp.asarray(T), jnp.asarray(Q)
JK3 = jnp.asarray(K3)
_I = jnp.array([0, 2, 2, 5, 0])  # repeated indices

JAX = {
    "nn_more_acts": lambda x: (
        jax.nn.leaky_relu(x, 0.1)
        + jax.nn.soft_sign(x)
        + jax.nn.hard_sigmoid(x * 2)
        + jax.nn.hard_swish(x * 2)
        + jax.nn.sparse_plus(x * 2)
        + jax.nn.mish(x)
    ),
    "nn_softmax_where": lambda x: jnp.concatenate(
        [
            jax.nn.softmax(x, where=x > -0.5),
            jnp.atleast_1d(jax.nn.logsumexp(x.reshape(2, 3), axis=1)),
        ]
    ),
    "nn_standardize_glu": lambda x: jnp.concatenate(
        [jax.nn.standardize(x, epsilon=1e-3), jax.nn.glu(x)]
    ),
    "jnp_svd_eigvalsh": lambda x: jnp.concatenate(
        [
            jnp.linalg.svd(x.reshape(2, 3) + J3[:2], compute_uv=False),
            jnp.linalg.eigvalsh(_spd_jax(x)),
        ]
    ),
    "jnp_eigh_projector": lambda x: (
        lambda wv: jnp.concatenate([wv[0], jnp.outer(wv[1][:, 2], wv[1][:, 2]).ravel()])
    )(jnp.linalg.eigh(_spd_jax(x))),
    "jnp_pinv_power": lambda x: jnp.concatenate(
        [
            jnp.linalg.pinv(x.reshape(3, 2) + J3[:, :2]).ravel(),
            jnp.linalg.matrix_power(J3 + 0.1 * jnp.outer(x[:3], x[3:]), 3).ravel(),
        ]
    ),
    "jnp_slogdet_norms": lambda x: jnp.stack(
        [
            jnp.linalg.slogdet(_spd_jax(x))[1],
            jnp.linalg.norm(x.reshape(2, 3) + J3[:2], 2),
            jnp.linalg.norm(x.reshape(2, 3) + J3[:2], "nuc"),
            jnp.linalg.norm(x, 4),
            jnp.linalg.norm(x.reshape(2, 3), axis=1)[0],
        ]
    ),
    "jsl_lu_det_inv": lambda x: jnp.concatenate(
        [
            jsl.lu_solve(jsl.lu_factor(J3 + jnp.diag(x[:3])), x[3:]),
            jnp.atleast_1d(jsl.det(_spd_jax(x))),
            jsl.inv(_spd_jax(x))[0],
        ]
    ),
    "jsl_lu_plu": lambda x: jnp.concatenate(
        [m.ravel() for m in jsl.lu(J3 + jnp.outer(x[:3], x[3:]) * 0.2)[1:]]
    ),
    "jsl_cho_triangular": lambda x: jnp.concatenate(
        [
            jsl.cho_solve(jsl.cho_factor(_spd_jax(x), lower=True), x[3:]),
            jsl.solve_triangular(_spd_jax(x), x[:3], lower=False, trans=1),
        ]
    ),
    "jsl_expm_frechet": lambda x: jsl.expm(0.2 * (J3 + jnp.outer(x[:3], x[3:]))).ravel(),
    "jsps_mix": lambda x: (
        jsps.xlogy(x**2 + 0.1, x**2 + 1)
        + jsps.xlog1py(x, x**2)
        + jsps.entr(jax.nn.sigmoid(x))
        + jsps.logit(0.1 + 0.8 * jsps.expit(x))
        + jsps.log_ndtr(x)
        + jsps.ndtr(x)
    ),
    "jsps_gamma_family": lambda x: (
        jsps.gammaln(x**2 + 0.5)
        + jsps.digamma(x**2 + 0.5)
        + jsps.betaln(x**2 + 0.5, 2.0)
        + jsps.erfinv(jnp.tanh(x) * 0.5)
        + jsps.erfc(x)
    ),
    "jsps_rel_entr_kl": lambda x: (
        jsps.rel_entr(jax.nn.sigmoid(x), jax.nn.sigmoid(x[::-1]))
        + jsps.kl_div(jax.nn.sigmoid(x), jax.nn.sigmoid(x[::-1]))
    ),
    "lax_cumulative": lambda x: jnp.concatenate(
        [
            lax.cumsum(x, reverse=True) * x,
            lax.cummax(x**2, reverse=True),
            lax.cummin(x),
            lax.cumprod(1 + 0.1 * x),
            lax.cumlogsumexp(x, reverse=True),
        ]
    ),
    "reduce_window_pool": lambda x: jnp.concatenate(
        [
            lax.reduce_window(x, -jnp.inf, lax.max, (2,), (2,), "VALID"),
            lax.reduce_window(x**2, 0.0, lax.add, (3,), (1,), "VALID"),
            lax.reduce_window(x.reshape(2, 3), 0.0, lax.add, (2, 2), (1, 1), "SAME").ravel(),
        ]
    ),
    "conv1d_traced_kernel": lambda x: lax.conv_general_dilated(
        x[None, None, :], x[None, None, :3] * 0.5, (1,), "SAME"
    ).ravel(),
    "conv2d_dilation": lambda x: lax.conv_general_dilated(
        x.reshape(1, 1, 2, 3),
        jnp.asarray(K3[None, None, None, :2]),
        (1, 1),
        ((0, 0), (1, 1)),
        rhs_dilation=(1, 2),
    ).ravel(),
    "dynamic_slices": lambda x: jnp.concatenate(
        [
            lax.dynamic_slice(x, (2,), (3,)) ** 2,
            lax.dynamic_update_slice(x, x[:2] ** 2, (3,)),
            lax.dynamic_slice_in_dim(x.reshape(2, 3), 1, 2, axis=1).ravel(),
        ]
    ),
    "lax_sort_2d": lambda x: (
        lax.sort(x.reshape(2, 3), dimension=0) * jnp.arange(6.0).reshape(2, 3)
    ).ravel(),
    "lax_elementwise": lambda x: (
        lax.select_n(x > 0.2, x**2, jnp.sin(x))
        + lax.clamp(-0.5, x, 0.8) ** 2
        + lax.rsqrt(x**2 + 0.5)
        + lax.integer_pow(x, 3)
        + lax.logistic(x)
        + lax.cbrt(x + 2.0)
    ),
    "at_updates": lambda x: jnp.concatenate(
        [
            x.at[_I].add(x[:5] ** 2),
            x.at[jnp.array([4, 1, 3])].multiply(1 + x[1:4], unique_indices=True),
            x.at[_I].min(x[:5] ** 2),
            x.at[_I].max(jnp.sin(x[:5])),
            x.at[jnp.array([1, 3])].set(x[4:] ** 3),
        ]
    ),
    "where_from_inputs": lambda x: jnp.where(x > x[::-1], x**2, jnp.cos(x)),
    "jnp_piecewise": lambda x: jnp.piecewise(
        x, [x < -0.5, x > 0.5], [lambda a: a**2, lambda a: jnp.sin(a), lambda a: a**3]
    ),
    "jnp_poly_conv_trapz": lambda x: jnp.concatenate(
        [
            jnp.polyval(x[:3], x[3:]),
            jnp.convolve(x, JK3, mode="full"),
            jnp.atleast_1d(jnp.trapezoid(jnp.sin(x), x=jnp.cumsum(x**2 + 0.1))),
        ]
    ),
    "jnp_einsum_paths": lambda x: jnp.concatenate(
        [
            jnp.atleast_1d(jnp.einsum("ii", jnp.outer(x[:3], x[3:]) + J3)),
            jnp.einsum("ii->i", jnp.outer(x[:3], x[3:]) @ J3),
            jnp.einsum("ij,jk,k->i", x.reshape(2, 3), J3, x[:3], optimize="optimal"),
        ]
    ),
    "jnp_pad_modes": lambda x: (
        jnp.pad(x, 2, mode="reflect") * jnp.pad(x, 2, mode="symmetric")
        + jnp.pad(x, 2, mode="wrap")
        + jnp.pad(x, 2, mode="linear_ramp", end_values=0.5) ** 2
    ),
    "jnp_interp_fp": lambda x: (
        jnp.interp(JQ, JT - 0.8, x**2) + jnp.interp(x[:1] * 0.5, JT, jnp.cos(x)).sum()
    ),
    "jnp_ufunc_methods": lambda x: jnp.concatenate(
        [
            jnp.add.accumulate(x) * x,
            jnp.multiply.outer(x[:2], x[3:]).ravel(),
            jnp.atleast_1d(jnp.logaddexp.reduce(x)),
        ]
    ),
    "jnp_take_along_sorted": lambda x: (
        jnp.take_along_axis(
            x.reshape(2, 3) ** 2, jnp.argsort(-x.reshape(2, 3), axis=1), axis=1
        ).ravel()
        * jnp.arange(1.0, 7.0)
    ),
    "jnp_kron_block": lambda x: jnp.concatenate(
        [
            jnp.kron(x[:2].reshape(2, 1), x[2:4].reshape(1, 2)).ravel(),
            jnp.block([[x[:2], x[4:]], [x[2:4] ** 2, x[:2]]]).ravel(),
        ]
    ),
}

C_CELLS = {
    "ufunc_accumulate",
    "pad_reflect_symmetric",
    "interp_traced_fp",
    "polynomial_families",
    "np_svd_values",
    "norm_ord_axis",
    "sort_axis",
    "special_entropies",
    "scipy_cho",
    "jnp_svd_eigvalsh",
    "lax_cumulative",
    "reduce_window_pool",
    "conv1d_traced_kernel",
    "at_updates",
    "jnp_interp_fp",
}

# ---------------------------------------------------------------- checking


def scalar(v, numpy: bool):
    """The scalar ``Σ v (1 + v/2)`` of a vector idiom."""
    if numpy:
        return lambda x: np.sum(v(x) * (1.0 + 0.5 * v(x)))
    return lambda x: jnp.sum(v(x) * (1.0 + 0.5 * v(x)))


def _jacobian_differences(v, x: np.ndarray, h: float = 1e-5) -> np.ndarray:
    columns = [
        (np.asarray(v(x + h * e)) - np.asarray(v(x - h * e))) / (2 * h) for e in np.eye(x.size)
    ]
    return np.stack(columns, axis=-1)


def check_jacobian(v, numpy: bool, point: np.ndarray = X, at: np.ndarray | None = None) -> str:
    """``make_function(v, "jacobian")`` built at ``point``, called at ``at`` (``point``),
    against differences of ``v`` or ``jax.jacfwd`` there."""
    at = point if at is None else at
    try:
        reference = _jacobian_differences if numpy else lambda v, a: jax.jacfwd(v)(jnp.asarray(a))
        want = np.asarray(reference(v, at))
    except Exception as exc:
        return f"no reference ({type(exc).__name__})"
    tolerance = (1e-6, 1e-6) if numpy else (1e-7, 1e-8)
    try:
        got = np.asarray(dgraph.make_function(v, "jacobian", point=[point])(at))
    except dgraph.errors.DGraphError as exc:
        return f"refused: {str(exc)[:110]}"
    except Exception as exc:
        return f"ERROR {type(exc).__name__}: {str(exc)[:100]}"
    if got.shape != want.shape:
        return f"WRONG (shape {got.shape}, want {want.shape})"
    if np.allclose(got, want, rtol=tolerance[0], atol=tolerance[1]):
        return "ok"
    return f"WRONG (largest difference {np.nanmax(np.abs(got - want)):.3g})"


COLUMNS = ("hess", "jac", "c", "hess2", "jac2")


def _cells(names: list[str]) -> list[tuple[str, str]]:
    columns = ["hess", "jac", "hess2", "jac2"] + (["c"] if shutil.which("cc") else [])
    every_c = os.environ.get("SURVEY_C") == "all"
    return [(n, c) for n in names for c in columns if c != "c" or every_c or n in C_CELLS]


def run_cell(name: str, column: str) -> str:
    numpy = name in NUMPY
    v = NUMPY[name] if numpy else JAX[name]
    at = X2 if column.endswith("2") else X
    if column.startswith("jac"):
        return check_jacobian(v, numpy, at=at)
    return check_hessian(scalar(v, numpy), numpy, lang="c" if column == "c" else "python", at=at)


def _child(names: list[str]) -> None:
    for name, column in _cells(names):
        found = run_cell(name, column).replace("\n", " ")
        print(f"{name}\t{column}\t{found}", flush=True)


def _survey(names: list[str], limit: float = 60.0) -> dict[tuple[str, str], str]:
    """Every cell, in child processes: one killed after ``limit`` s on a cell is HANG."""
    todo, found = _cells(names), {}
    while todo:
        child = subprocess.Popen(
            [sys.executable, __file__, "--child", *dict.fromkeys(n for n, _ in todo)],
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        started = time.monotonic()
        while todo:
            ready, _, _ = select.select(
                [child.stdout], [], [], max(0.0, limit - (time.monotonic() - started))
            )
            line = child.stdout.readline() if ready else None
            if not line:
                found[todo.pop(0)] = (
                    "HANG (no answer in 60 s)" if line is None else "ERROR (the process died)"
                )
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
                break
            name, column, cell = line.rstrip("\n").split("\t", 2)
            found[(name, column)] = cell
            todo.remove((name, column))
            started = time.monotonic()
        else:
            child.wait()
    return found


def main(argv: list[str]) -> None:
    if argv[:1] == ["--child"]:
        _child(argv[1:])
        return
    names = argv or [*NUMPY, *JAX]
    found = _survey(names)
    counts: dict[str, int] = {}
    for name in names:
        row = {c: found.get((name, c), "-") for c in COLUMNS}
        print(f"{name:26s} " + " ".join(f"{row[c].split(' ')[0].rstrip(':'):8s}" for c in row))
        for column, cell in row.items():
            kind = cell.split(" ")[0].rstrip(":")
            if kind != "-":
                counts[kind] = counts.get(kind, 0) + 1
            if kind not in ("ok", "-"):
                print(f"    {column}: {cell}")
    print(", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main(sys.argv[1:])
