"""Graphax's test functions (github jamielohoff/graphax: tests/core/primitive_test.py,
tests/examples/example_test.py and the functions of src/graphax/examples/ they call),
re-stated: the same operations at the tests' own points and shapes. Graphax compares its
``jacve`` with ``jax.jacrev``/``jax.jacfwd``; here dgraph's Jacobian is compared with JAX's.
Random arguments are drawn with NumPy (a fixed seed) where Graphax draws them with
``jax.random``: the functions and shapes are the tests', the values any finite ones."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
from jax import lax

from .harness import Case

# RobotArm_6DOF, PropaneCombustion and HumanHeartDipole as benchmarks/alphagrad_functions.py
# re-states them from Graphax's differential_kinematics.py and minpack.py
_SCALAR = importlib.util.spec_from_file_location(
    "alphagrad_functions",
    Path(__file__).resolve().parents[2] / "benchmarks" / "alphagrad_functions.py",
)
_ALPHAGRAD = importlib.util.module_from_spec(_SCALAR)
_SCALAR.loader.exec_module(_ALPHAGRAD)
robot_arm_6dof = _ALPHAGRAD.robot_arm_6dof
propane_combustion = _ALPHAGRAD.propane_combustion
human_heart_dipole = _ALPHAGRAD.human_heart_dipole

REPO = "jamielohoff/graphax"
PRIM = f"{REPO} tests/core/primitive_test.py::PrimitveTest"
EXAMPLES = f"{REPO} tests/examples/example_test.py::ExampleTests"
SRC = f"{REPO} src/graphax/examples"


def _normal(seed: int, *shapes):
    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal(s) for s in shapes)


# --- tests/core/primitive_test.py ------------------------------------------------------


def broadcast_add(x, y):  # test_broadcast_add: tanh of a (2,3) + (1,3) sum
    return jnp.tanh(x + y)


def broadcast_sub(x, y):  # test_broadcast_sub: the same with a difference
    return jnp.tanh(x - y)


def broadcast_mul(x, y):  # test_broadcast_mul: sin(x * exp(y)), y broadcast along rows
    return jnp.sin(x * jnp.exp(y))


def outer_product(x, y):  # test_broadcast_outer_product: (4,1) * (1,3)
    return jnp.sin(x * y)


def transpose(x, y):  # test_transpose: cos(x).T * y
    return jnp.cos(x).T * y


def matmul(x, y):  # test_matmul: sin of a matrix-vector product
    return jnp.sin(x @ y)


def reduce_sum(x, y):  # test_reduce_sum: sin of the column sums of x @ y
    return jnp.sin(jnp.sum(x @ y, axis=0))


def reduce_max(x, y):  # test_reduce_max: sin of the column maxima of x @ y
    return jnp.sin(jnp.max(x @ y, axis=0))


def slicing(x, y):  # test_slicing: the first column of x @ y, kept 2-d
    return jnp.sin((x @ y)[:, 0:1])


def squeezing(x, y):  # test_squeezing: sum of squeeze(x @ y), y a (3,1) column
    return jnp.squeeze(x @ y).sum()


def concatenate_1(x, y, z):  # test_concatenate_1: x @ [y; z], then sin
    return jnp.sin(x @ jnp.concatenate([y, z], axis=0))


def concatenate_2(x, y, z):  # test_concatenate_2: sin([sin x, cos y, tanh z])
    return jnp.sin(jnp.concatenate([jnp.sin(x), jnp.cos(y), jnp.tanh(z)], axis=0))


def reshape(x, y):  # test_reshape: a (6,) vector reshaped (2,3), times y, then sin
    return jnp.sin(jnp.reshape(x, (2, 3)) @ y)


def large_matmul(x, y):  # test_large_matmul: dot_general with a batch dimension
    return lax.dot_general(x, y, (([2], [0]), ([0], [1])))


def equality(x, y):  # test_eq: (sin x == sin y) - 1, a broadcast comparison
    return (jnp.sin(x) == jnp.sin(y)) - 1.0


# --- src/graphax/examples: easy.py, roe.py, differential_kinematics.py, economics.py,
# --- minpack.py, deep_learning.py, randoms.py (as example_test.py calls them)

GAMMA = 0.5  # roe.py's ratio of specific heats


def simple(x, y):  # easy.py Simple: z = xy; (sin z + z, log sin z)
    z = x * y
    w = jnp.sin(z)
    return w + z, jnp.log(w)


def lighthouse(nu, gamma, omega, t):  # easy.py Lighthouse (Griewank and Walther)
    tan = jnp.tan(omega * t)
    y1 = nu * tan / (gamma - tan)
    return y1, gamma * y1


def hole(x, y, z, w):  # easy.py Hole
    a = y * z
    d, e = jnp.cos(a + x), jnp.exp(a + w)
    return d - e, d / e, d * e


def helmholtz(x):  # easy.py Helmholtz: x log(x / (1 - sum x))
    return x * jnp.log(x / (1.0 + -jnp.sum(x)))


def free_energy(x):  # easy.py FreeEnergy: the sum of Helmholtz's terms
    return jnp.sum(helmholtz(x))


KS_A, KS_B, KS_M = 0.5, 0.9, 1.0  # easy.py's Kerr-Sen constants


def kerr_sen_metric(t, r, theta, phi):  # easy.py KerrSenn_metric
    s2 = jnp.sin(theta) ** 2
    sigma = r**2 + 2.0 * KS_B * r + KS_A**2 * jnp.cos(theta) ** 2
    k = r**2 + 2 * KS_B * r - 2.0 * KS_M * r + KS_A**2
    g_tt = -(1.0 - 2.0 * KS_M * r / sigma)
    g_pp = (sigma + KS_A**2 * s2 + 2.0 * KS_M * r * KS_A**2 * s2 / sigma) * s2
    return g_tt, sigma / k, sigma, g_pp, -2.0 * KS_M * r * KS_A / s2


def cloud_schemes(a1, a2, e1, e2, delta, gamma, bc, br, d1, d2, chi):
    """easy.py CloudSchemes_step, with its module constants qc = qr = c = S = 1, B = 0."""
    qc = qr = 1.0
    cond = 1.0 * 1.0 * qc**0.33333
    auto = a1 * qc**gamma
    accr = a2 * qc**bc * qr**br
    evap = e1 * qr**d1 + e2 * qr**d2
    return cond - auto - accr, auto + evap + 0.0 - delta * qr**chi, -cond - evap


def _pressure_1d(u0, u1, u2):
    return (GAMMA - 1.0) * (u2 - 0.5 * u1**2 / u0)


def _flux_1d(u0, u1, u2, p):
    v = u1 / u0
    return u1, p + u1 * v, v * (p + u2)


def roe_flux_1d(ul0, ul1, ul2, ur0, ur1, ur2):  # roe.py RoeFlux_1d (Roe 1981)
    du0 = ur0 - ul0
    ulr0 = jnp.sqrt(ul0 * ur0)
    sl, sr = jnp.sqrt(ul0), jnp.sqrt(ur0)
    w1 = sl + sr
    vl, vr = ul1 / ul0, ur1 / ur0
    pl, pr = _pressure_1d(ul0, ul1, ul2), _pressure_1d(ur0, ur1, ur2)
    hl, hr = (ul2 + pl) / ul0, (ur2 + pr) / ur0
    dp, dv = pr - pl, vr - vl
    u = (sl * vl + sr * vr) / w1
    h = (sl * hl + sr * hr) / w1
    q2 = u**2
    a2 = (GAMMA - 1.0) * (h - 0.5 * q2)
    a = jnp.sqrt(a2)
    lp, lam = jnp.abs(u + a), jnp.abs(u)
    n = a * ulr0
    c0 = (du0 - dp / a2) * lam
    c1 = (dv + dp / n) * lp
    c2 = (dv - dp / n) * lam
    fl, fr = _flux_1d(ul0, ul1, ul2, pl), _flux_1d(ur0, ur1, ur2, pr)
    c = 0.5 * ulr0 / a
    d0 = c0 + c * c1 - c * c2
    d1 = c0 * u + c * c1 * (u + a) - c * c2 * (u - a)
    d2 = c0 * 0.5 * q2 + c * c1 * (h + u * a) - c * c2 * (h - u * a)
    return 0.5 * (fl[0] + fr[0] - d0), 0.5 * (fl[1] + fr[1] - d1), 0.5 * (fl[2] + fr[2] - d2)


def _pressure_3d(u0, u, u4):
    return (GAMMA - 1.0) * (u4 - 0.5 * jnp.sum(u**2) / u0)


def _flux_3d(u0, u, v, u4, p):
    padded = jnp.concatenate([p, jnp.zeros(2)])
    return u[0:1], padded + u * v, v[0:1] * (p + u4)


def roe_flux_3d(ul0, ul, ul4, ur0, ur, ur4):  # roe.py RoeFlux_3d
    du0, du, du4 = ur0 - ul0, ur - ul, ur4 - ul4
    du1, du2, du3 = du[0:1], du[1:2], du[2:]
    vl, vr = ul / ul0, ur / ur0
    sl, sr = jnp.sqrt(ul0), jnp.sqrt(ur0)
    w1 = sl + sr
    uvw = (sl * vl + sr * vr) / w1
    u, v, w = uvw[0:1], uvw[1:2], uvw[2:]
    pl, pr = _pressure_3d(ul0, ul, ul4), _pressure_3d(ur0, ur, ur4)
    hl, hr = (ul4 + pl) / ul0, (ur4 + pr) / ur0
    h = (sl * hl + sr * hr) / w1
    q2 = jnp.sum(uvw**2)
    a2 = (GAMMA - 1.0) * (h - 0.5 * q2)
    a = jnp.sqrt(a2)
    lp, lam, lm = u + a, u, u - a
    c3 = ((GAMMA - 1.0) / a2 * ((h - q2) * du0 + jnp.dot(uvw, du) - du4)) * lam
    c2 = (du3 / w - du1) * lam
    c1 = (du2 / v - du0) * lam
    k1 = du0 - c3
    k2 = (du1 - u * du0) / a
    c0 = 0.5 * (k1 - k2) * lm
    c4 = 0.5 * (k1 + k2) * lp
    fl0, fl, fl4 = _flux_3d(ul0, ul, vl, ul4, pl)
    fr0, fr, fr4 = _flux_3d(ur0, ur, vr, ur4, pr)
    d0 = c0 + c3 + c4 * lp
    d1 = c0 * lm + c3 * u + c4 * lp
    d2 = c0 * v + c1 * v + c3 * v + c4 * v
    d3 = c0 * w + c2 * w + c3 * w + c4 * w
    d4 = c0 * (h - u * a) + c1 * v**2 + c2 * w**2 + c3 * 0.5 * q2 + c4 * (h + u * a)
    d = jnp.concatenate([d1, d2, d3])
    return 0.5 * (fl0 + fr0 - d0), 0.5 * (fl + fr - d), 0.5 * (fl4 + fr4 - d4)


def _phi(z):
    return (1.0 + jss.erf(z / jnp.sqrt(2.0))) / 2


def black_scholes(s, k, r, sigma, t):  # economics.py BlackScholes (through Black76)
    f = jnp.exp(r * t) * s
    d1 = (jnp.log(f / k) + (sigma**2) / 2.0 * t) / (sigma * jnp.sqrt(t))
    d2 = d1 - sigma * jnp.sqrt(t)
    return jnp.exp(-r * t) * (f * _phi(d1) - k * _phi(d2))


def black_scholes_jacobian(s, k, r, sigma, t):
    """economics.py BlackScholes_Jacobian: the price's gradient (Graphax's ``jacve`` in
    reverse order; here JAX's ``jacrev``, the same derivatives)."""
    return jax.jacrev(black_scholes, argnums=(0, 1, 2, 3, 4))(s, k, r, sigma, t)


SSC_H, SSC_L = 0.5, 6.81  # minpack.py's grid spacing (hx = hy) and lambda


def _ssc_term(v, a, b):
    mu = 2.0 / 3.0 * (jnp.exp(v) + jnp.exp(a) + jnp.exp(b))
    return SSC_H * SSC_H / 4 * (((a - v) / SSC_H) ** 2 + ((b - v) / SSC_H) ** 2 - SSC_L * mu)


def steady_state_combustion(v00, v01, v10, v11):
    """minpack.py SteadyStateCombustion: the 2×2 grid's energy, left and right triangles."""
    return (
        _ssc_term(v00, v10, v01) + _ssc_term(v00, v01, v10)
        + _ssc_term(v01, v11, v00) + _ssc_term(v01, v00, v11)
        + _ssc_term(v10, v00, v11) + _ssc_term(v10, v11, v00)
        + _ssc_term(v11, v01, v10) + _ssc_term(v11, v10, v01)
    )  # fmt: skip


GDF_T = np.arange(65) / 10  # minpack.py: 65 data points at t = 0, 0.1, ...
GDF_Y = np.random.default_rng(123).uniform(size=65)


def gaussian_data_fitting(x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11):
    """minpack.py GaussianDataFitting: residuals of a sum of an exponential and three
    Gaussians at 65 points (the data drawn here with NumPy)."""
    t = GDF_T
    out = GDF_Y - x1 * jnp.exp(-t * x5)
    out = out - x2 * jnp.exp(-((t - x9) ** 2) * x6)
    out = out - x3 * jnp.exp(-((t - x10) ** 2) * x7)
    return out - x4 * jnp.exp(-((t - x11) ** 2) * x8)


def _sigmoid(x):
    return 1.0 / (1.0 + jnp.exp(-x))


def _silu(x):
    return x * _sigmoid(x)


def _cross_entropy(logits, labels):
    return -jnp.sum(labels * jnp.log(jax.nn.softmax(logits, axis=-1)), axis=-1)


def _layer_norm(x, gamma, beta):
    mu = jnp.mean(x, axis=-1)
    var = jnp.sum((x - mu) ** 2, axis=-1) / x.shape[-1]
    return (x - mu) / jnp.sqrt(var + 1e-6) * gamma + beta


def _attention(q, k, v):
    return jax.nn.softmax(q.T @ k, axis=1) @ v


def perceptron(x, y, w1, b1, w2, b2, gamma, beta):  # deep_learning.py Perceptron
    out = _layer_norm(jnp.tanh(w1 @ x + b1), gamma, beta)
    return _cross_entropy(jnp.tanh(w2 @ out + b2), y)


def _encoder_block(x, wq, wk, wv, w, b, gamma, beta):
    a = x + _attention(wq @ x, wk @ x, wv @ x)
    return _silu(w @ _layer_norm(a, gamma, beta) + b)


def encoder(x, y, wq1, wq2, wk1, wk2, wv1, wv2, w1, w2, b1, b2, g0, be0, g1, be1):
    """deep_learning.py Encoder: two attention blocks and a cross-entropy."""
    z1 = _encoder_block(x, wq1, wk1, wv1, w1, b1, g0, be0)
    z2 = _encoder_block(z1, wq2, wk2, wv2, w2, b2, g1, be1)
    return _cross_entropy(z2, y)


def encoder_decoder(x, y, wq1, wq2, wq3, wk1, wk2, wk3, wv1, wv2, wv3, w1, w2, b1, b2,
                    g0, be0, g1, be1, g2, be2):  # fmt: skip
    """deep_learning.py EncoderDecoder: an encoder block feeding a decoder block's second
    attention (its query and key), and half the squared error."""
    z1 = _encoder_block(x, wq1, wk1, wv1, w1, b1, g0, be0)
    a1 = x + _attention(wq2 @ x, wk2 @ x, wv2 @ x)
    c1 = _layer_norm(a1, g1, be1)
    a2 = c1 + _attention(wq3 @ z1, wk3 @ z1, wv3 @ c1)
    z2 = _silu(w2 @ _layer_norm(a2, g2, be2) + b2)
    return 0.5 * (z2 - y) ** 2


def neural_network(x, w1, b1, w2, b2, y):  # example_test.py test_NeuralNetwork's own
    a1 = jnp.tanh(w1 @ x + b1)
    d = jnp.tanh(w2 @ a1 + b2) - y
    return 0.5 * jnp.sum(d**2)


def _batched_network(x, w1, b1, w2, b2, y):  # test_vmap_NeuralNetwork's vmapped network
    def one(xi, yi):
        return 0.5 * (jnp.tanh(w2 @ jnp.tanh(w1 @ xi + b1) + b2) - yi) ** 2

    return jax.vmap(one)(x, y)


def vmap_neural_network(x, w1, b1, w2, b2, y):
    return _batched_network(x, w1, b1, w2, b2, y)


def vmap_neural_network_sum(x, w1, b1, w2, b2, y):
    return _batched_network(x, w1, b1, w2, b2, y).sum()


def vmap_perceptron(x, y, w1, b1, w2, b2, gamma, beta):
    return jax.vmap(perceptron, in_axes=(0, 0, None, None, None, None, None, None))(
        x, y, w1, b1, w2, b2, gamma, beta
    )


def vmap_roe_flux_3d(ul0, ul, ul4, ur0, ur, ur4):
    return jax.vmap(roe_flux_3d)(ul0, ul, ul4, ur0, ur, ur4)


def vmap_black_scholes_jacobian(s, k, r, sigma, t):
    return jax.vmap(black_scholes_jacobian)(s, k, r, sigma, t)


# --- the cases --------------------------------------------------------------------------


def _roe3_args():
    return (np.array([0.1]), np.array([0.1, 0.2, 0.3]), np.array([0.5]),
            np.array([0.2]), np.array([0.2, 0.2, 0.4]), np.array([0.6]))  # fmt: skip


def _network_args(batch=None):
    rng = np.random.default_rng(42)
    x = np.ones(4 if batch is None else (batch, 4))
    y = rng.standard_normal(4 if batch is None else (batch, 4))
    w1, b1, w2, b2 = (rng.standard_normal(s) for s in ((8, 4), (8,), (4, 8), (4,)))
    return x, w1, b1, w2, b2, y


def _perceptron_args(batch=None):
    x, w1, b1, w2, b2, y = _network_args(batch)
    return x, y, w1, b1, w2, b2, 0.0, 1.0


def _encoder_args():
    rng = np.random.default_rng(250197)
    x, y = np.ones((4, 4)), rng.standard_normal((2, 4))
    ws = [rng.standard_normal((4, 4)) for _ in range(7)]
    w2, b1, b2 = rng.standard_normal((2, 4)), rng.standard_normal(4), rng.standard_normal((2, 1))
    return (x, y, *ws[:6], ws[6], w2, b1, b2, 0.0, 1.0, 0.0, 1.0)


def _encoder_decoder_args():  # test_EncoderDecoder: every weight ones
    return (np.ones((4, 4)), np.ones((2, 4)), *[np.ones((4, 4))] * 10, np.ones((2, 4)),
            np.ones(4), np.ones((2, 1)), 0.0, 1.0, 0.0, 1.0, 0.0, 1.0)  # fmt: skip


ALL = (("python", False), ("python", True), ("jax", False), ("jax", True))
CASES = [
    Case("graphax/broadcast_add", f"{PRIM}.test_broadcast_add", broadcast_add,
         lambda: (2 * np.ones((2, 3)), 3 * np.ones((1, 3))), "jacfwd", ALL),
    Case("graphax/broadcast_sub", f"{PRIM}.test_broadcast_sub", broadcast_sub,
         lambda: (2 * np.ones((2, 3)), 3 * np.ones((1, 3))), "jacfwd"),
    Case("graphax/broadcast_mul", f"{PRIM}.test_broadcast_mul", broadcast_mul,
         lambda: (np.arange(6.0).reshape(2, 3), np.arange(3.0)), "jacfwd"),
    Case("graphax/broadcast_outer_product", f"{PRIM}.test_broadcast_outer_product",
         outer_product, lambda: (np.arange(4.0).reshape(4, 1) + 1, np.arange(3.0).reshape(1, 3)),
         "jacfwd"),
    Case("graphax/transpose", f"{PRIM}.test_transpose", transpose,
         lambda: (np.ones((2, 3)), np.ones((3, 2)))),
    Case("graphax/matmul", f"{PRIM}.test_matmul", matmul, lambda: _normal(42, (2, 3), (3,)),
         "jacrev", ALL),
    Case("graphax/reduce_sum", f"{PRIM}.test_reduce_sum", reduce_sum,
         lambda: (np.ones((2, 3)), np.ones((3, 4)))),
    Case("graphax/reduce_max", f"{PRIM}.test_reduce_max", reduce_max,
         lambda: (np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 2.0]]), np.ones((3, 4)))),
    Case("graphax/slicing", f"{PRIM}.test_slicing", slicing, lambda: _normal(42, (2, 3), (3, 4))),
    Case("graphax/squeezing", f"{PRIM}.test_squeezing", squeezing,
         lambda: _normal(42, (2, 3), (3, 1))),
    Case("graphax/concatenate_1", f"{PRIM}.test_concatenate_1", concatenate_1,
         lambda: _normal(42, (2, 3), (2, 4), (1, 4))),
    Case("graphax/concatenate_2", f"{PRIM}.test_concatenate_2", concatenate_2,
         lambda: _normal(42, (4,), (2,), (3,))),
    Case("graphax/reshape", f"{PRIM}.test_reshape", reshape, lambda: _normal(42, (6,), (3,))),
    Case("graphax/large_matmul", f"{PRIM}.test_large_matmul", large_matmul,
         lambda: _normal(42, (3, 1, 4), (4, 3, 2))),
    Case("graphax/eq", f"{PRIM}.test_eq", equality,
         lambda: (np.array([[1.0, 0.0, 1.0]]), np.array([[1.0], [0.0], [0.0]]))),
    Case("graphax/Simple", f"{EXAMPLES}.test_Simple", simple, lambda: (5.0, 7.0), "jacfwd", ALL),
    Case("graphax/Simple_50x50", f"{EXAMPLES}.test_Simple (50×50 ones)", simple,
         lambda: (np.ones((50, 50)), np.ones((50, 50))), "jacfwd", (("python", True),)),
    Case("graphax/Lighthouse", f"{EXAMPLES}.test_Lighthouse", lighthouse,
         lambda: (0.02,) * 4, "jacfwd", ALL),
    Case("graphax/Helmholtz", f"{EXAMPLES}.test_Helmholtz", helmholtz,
         lambda: (np.array([0.05, 0.15, 0.25, 0.35]),), "jacfwd", ALL),
    Case("graphax/RobotArm_6DOF", f"{EXAMPLES}.test_RobotArm_6DOF", robot_arm_6dof,
         lambda: (0.02,) * 6),
    Case("graphax/RoeFlux_1d", f"{EXAMPLES}.test_RoeFlux_1d", roe_flux_1d,
         lambda: (0.01, 0.02, 0.02, 0.01, 0.03, 0.03)),
    Case("graphax/RoeFlux_3d", f"{EXAMPLES}.test_RoeFlux_3d", roe_flux_3d, _roe3_args),
    Case("graphax/vmap_RoeFlux_3d", f"{EXAMPLES}.test_RoeFlux_3d (vmapped, batch 16)",
         vmap_roe_flux_3d, lambda: tuple(np.tile(a, (16, 1)) for a in _roe3_args())),
    Case("graphax/NeuralNetwork", f"{EXAMPLES}.test_NeuralNetwork", neural_network,
         _network_args),
    Case("graphax/vmap_NeuralNetwork", f"{EXAMPLES}.test_vmap_NeuralNetwork",
         vmap_neural_network, lambda: _network_args(16)),
    Case("graphax/vmap_NeuralNetwork_sum", f"{EXAMPLES}.test_vmap_NeuralNetwork (its f)",
         vmap_neural_network_sum, lambda: _network_args(16)),
    Case("graphax/Perceptron", f"{EXAMPLES}.test_Perceptron", perceptron, _perceptron_args),
    Case("graphax/vmap_Perceptron", f"{EXAMPLES}.test_vmap_Perceptron", vmap_perceptron,
         lambda: _perceptron_args(16)),
    Case("graphax/Encoder", f"{EXAMPLES}.test_Encoder", encoder, _encoder_args),
    Case("graphax/EncoderDecoder", f"{EXAMPLES}.test_EncoderDecoder", encoder_decoder,
         _encoder_decoder_args),
    Case("graphax/BlackScholes_Jacobian", f"{EXAMPLES}.test_BlackScholes_Jacobian",
         black_scholes_jacobian, lambda: (1.0,) * 5, "jacrev", (("python", False), ("jax", False))),
    Case("graphax/vmap_BlackScholes_Jacobian",
         f"{EXAMPLES}.test_BlackScholes_Jacobian (vmapped, 16)", vmap_black_scholes_jacobian,
         lambda: tuple(np.ones(16) for _ in range(5))),
    Case("graphax/Hole", f"{SRC}/easy.py Hole", hole, lambda: (0.2, 0.4, 0.6, 0.8)),
    Case("graphax/FreeEnergy", f"{SRC}/easy.py FreeEnergy", free_energy,
         lambda: (np.array([0.05, 0.15, 0.25, 0.35]),)),
    Case("graphax/KerrSenn_metric", f"{SRC}/easy.py KerrSenn_metric", kerr_sen_metric,
         lambda: (0.5, 3.0, 1.0, 0.3)),
    Case("graphax/CloudSchemes_step", f"{SRC}/easy.py CloudSchemes_step", cloud_schemes,
         lambda: tuple(np.linspace(0.2, 0.8, 11))),
    Case("graphax/PropaneCombustion", f"{SRC}/minpack.py PropaneCombustion",
         propane_combustion, lambda: tuple(np.linspace(0.5, 1.5, 11))),
    Case("graphax/HumanHeartDipole", f"{SRC}/minpack.py HumanHeartDipole",
         human_heart_dipole, lambda: tuple(np.linspace(0.2, 0.8, 8))),
    Case("graphax/SteadyStateCombustion", f"{SRC}/minpack.py SteadyStateCombustion",
         steady_state_combustion, lambda: (0.1, 0.2, 0.3, 0.4)),
    Case("graphax/GaussianDataFitting", f"{SRC}/minpack.py GaussianDataFitting",
         gaussian_data_fitting, lambda: tuple(np.linspace(0.5, 1.5, 11))),
]  # fmt: skip
