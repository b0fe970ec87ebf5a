"""Held-out scalar objectives and Lagrangians as optimization users write them (session
41, hess41): CUTEst-style problems (Bongartz, Conn, Gould and Toint 1995), GLM
likelihoods, robust regression, entropic optimal transport, a log-barrier, a sparse
trust-region model, the COPS elastic-plastic torsion functional (Dolan, Moré and Munson
2004) and a weighted Lagrangian. Written with ``np.``; ``run.py`` reads a JAX twin off
this file (``np.`` as ``jnp.``). ``PROBLEMS``: name -> (function, default n, kind), kind
"scalar" or "lagrangian" (a vector function, weighted by ``LAMBDA(m)``)."""

import numpy as np
import scipy.sparse
from scipy.special import logsumexp

__all__ = ["PROBLEMS", "data"]

_RNG = np.random.default_rng(41)
_DATA: dict = {}


def data(key, make):
    """A data array made once per key (the JAX twin reads the same arrays)."""
    if key not in _DATA:
        _DATA[key] = make()
    return _DATA[key]


def arwhead(x):
    return np.sum(-4.0 * x[:-1] + 3.0) + np.sum((x[:-1] ** 2 + x[-1] ** 2) ** 2)


def dixmaana(x):
    n = x.shape[0]
    m = n // 3
    i = np.arange(1, n + 1) / n
    t1 = np.sum(i * x**2)
    t2 = 0.0625 * np.sum(x[:-1] ** 2 * (x[1:] + x[1:] ** 2) ** 2)
    t3 = 0.0625 * np.sum(x[: 2 * m] ** 2 * x[m : 3 * m] ** 4)
    t4 = 0.0625 * np.sum(i[:m] ** 2 * x[:m] * x[2 * m : 3 * m])
    return 1.0 + t1 + t2 + t3 + t4


def chainwoo(x):
    a, b, c, d = x[0:-3:2], x[1:-2:2], x[2:-1:2], x[3::2]
    return 1.0 + np.sum(
        100 * (b - a**2) ** 2
        + (1 - a) ** 2
        + 90 * (d - c**2) ** 2
        + (1 - c) ** 2
        + 10 * (b + d - 2) ** 2
        + 0.1 * (b - d) ** 2
    )


def broydn3d(x):
    xp = np.concatenate([np.zeros(1), x, np.zeros(1)])
    r = (3.0 - 2.0 * xp[1:-1]) * xp[1:-1] - xp[:-2] - 2.0 * xp[2:] + 1.0
    return np.sum(r**2)


def broydnbd(x):
    n = x.shape[0]
    xp = np.concatenate([np.zeros(5), x, np.zeros(1)])
    s = np.zeros(n)
    for k in range(1, 6):
        s = s + xp[5 - k : 5 - k + n] * (1.0 + xp[5 - k : 5 - k + n])
    s = s + xp[6 : 6 + n] * (1.0 + xp[6 : 6 + n])
    r = x * (2.0 + 5.0 * x**2) + 1.0 - s
    return np.sum(r**2)


def cragglvy(x):
    a, b, c, d = x[0:-3:2], x[1:-2:2], x[2:-1:2], x[3::2]
    return np.sum(
        (np.exp(a) - b) ** 4
        + 100.0 * (b - c) ** 6
        + (np.tan(c - d) + c - d) ** 4
        + a**8
        + (d - 1.0) ** 2
    )


def edensch(x):
    a, b = x[:-1], x[1:]
    return 16.0 + np.sum((a - 2.0) ** 4 + (a * b - 2.0 * b) ** 2 + (b + 1.0) ** 2)


def engval1(x):
    return np.sum((x[:-1] ** 2 + x[1:] ** 2) ** 2) + np.sum(-4.0 * x[:-1] + 3.0)


def fletcbv3(x):
    n = x.shape[0]
    h = 1.0 / (n + 1)
    p = 1e-8
    d = np.diff(x)
    return (
        0.5 * p * (x[0] ** 2 + np.sum(d**2) + x[-1] ** 2)
        - p * (h**2 + 2.0) / h**2 * np.sum(x)
        - p * np.sum(np.cos(x)) / h**2
    )


def nondia(x):
    return (x[0] - 1.0) ** 2 + 100.0 * np.sum((x[0] - x[1:] ** 2) ** 2)


def powellsg(x):
    a, b, c, d = x[0::4], x[1::4], x[2::4], x[3::4]
    return np.sum((a + 10 * b) ** 2 + 5 * (c - d) ** 2 + (b - 2 * c) ** 4 + 10 * (a - d) ** 4)


def srosenbr(x):
    a, b = x[0::2], x[1::2]
    return np.sum(100.0 * (b - a**2) ** 2 + (1.0 - a) ** 2)


def tridia(x):
    i = np.arange(2, x.shape[0] + 1)
    return (x[0] - 1.0) ** 2 + np.sum(i * (2.0 * x[1:] - x[:-1]) ** 2)


def woods(x):
    a, b, c, d = x[0::4], x[1::4], x[2::4], x[3::4]
    return np.sum(
        100 * (b - a**2) ** 2
        + (1 - a) ** 2
        + 90 * (d - c**2) ** 2
        + (1 - c) ** 2
        + 10 * (b + d - 2) ** 2
        + 0.1 * (b - d) ** 2
    )


def dqrtic(x):
    i = np.arange(1, x.shape[0] + 1)
    return np.sum((x - i) ** 4)


def penalty1(x):
    return 1e-5 * np.sum((x - 1.0) ** 2) + (np.sum(x**2) - 0.25) ** 2


def penalty2(x):
    n = x.shape[0]
    j = np.arange(1, n + 1)
    y = np.exp(j[1:] / 10.0) + np.exp(j[:-1] / 10.0)
    a = np.exp(x[1:] / 10.0) + np.exp(x[:-1] / 10.0) - y
    b = np.exp(x[1:] / 10.0) - np.exp(-0.1)
    t = np.sum((n - j + 1) * x**2) - 1.0
    return (x[0] - 0.2) ** 2 + 1e-5 * np.sum(a**2 + b**2) + t**2


def _glm(n):
    X = data(("X", n), lambda: _RNG.normal(size=(4 * n, n)) / np.sqrt(n))
    y = data(("y", n), lambda: (_RNG.random(4 * n) < 0.5).astype(float))
    c = data(("c", n), lambda: _RNG.poisson(2.0, size=4 * n).astype(float))
    return X, y, c


def logistic_l2(w):
    X, y, _ = _glm(w.shape[0])
    z = X @ w
    return np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * 0.1 * np.sum(w**2)


def poisson_l2(w):
    X, _, c = _glm(w.shape[0])
    z = X @ w
    return np.sum(np.exp(z) - c * z) + 0.05 * (w @ w)


def student_t(w):
    X, y, _ = _glm(w.shape[0])
    r = X @ w - y
    nu = 4.0
    return 0.5 * (nu + 1.0) * np.sum(np.log1p(r**2 / nu))


def pseudo_huber(w):
    X, y, _ = _glm(w.shape[0])
    r = X @ w - y
    delta = 0.5
    return delta**2 * np.sum(np.sqrt(1.0 + (r / delta) ** 2) - 1.0) + 1e-3 * np.sum(w**2)


def sinkhorn_dual(z):
    m = z.shape[0] // 2
    C = data(("C", m), lambda: _RNG.random((m, m)))
    a = np.full(m, 1.0 / m)
    eps = 0.1
    u, v = z[:m], z[m:]
    return -(a @ u) - (a @ v) + eps * logsumexp((u[:, None] + v[None, :] - C) / eps)


def semidual_ot(v):
    m = v.shape[0]
    C = data(("C", m), lambda: _RNG.random((m, m)))
    a = np.full(m, 1.0 / m)
    eps = 0.1
    return -(a @ v) + eps * np.sum(a * logsumexp((v[None, :] - C) / eps, axis=1))


def log_barrier(x):
    n = x.shape[0]
    A = data(("Ab", n), lambda: np.eye(n) + 0.3 * np.eye(n, k=1) - 0.2 * np.eye(n, k=-1))
    b = np.full(n, 10.0)
    c = np.linspace(-1.0, 1.0, n)
    mu = 0.1
    return c @ x - mu * np.sum(np.log(b - A @ x)) - mu * np.sum(np.log(x + 5.0))


def trust_sparse(x):
    n = x.shape[0]
    A = data(
        ("As", n),
        lambda: scipy.sparse.diags(
            [-np.ones(n - 1), 2.5 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1], format="csr"
        ),
    )
    g = np.linspace(-1.0, 1.0, n)
    return g @ x + 0.5 * (x @ (A @ x)) + 0.25 * np.sum(x**4)


def torsion(x):
    """COPS elastic-plastic torsion: 0.5 |grad v|^2 - c v on a square grid (triangles of
    the lower and upper halves of each cell), the bound replaced by a log barrier."""
    k = round(x.shape[0] ** 0.5)
    h = 1.0 / (k + 1)
    v = np.pad(x.reshape(k, k), 1)
    dxl = (v[1:, :-1] - v[:-1, :-1]) / h
    dyl = (v[:-1, 1:] - v[:-1, :-1]) / h
    dxu = (v[1:, 1:] - v[:-1, 1:]) / h
    dyu = (v[1:, 1:] - v[1:, :-1]) / h
    quad = 0.25 * h**2 * (np.sum(dxl**2 + dyl**2) + np.sum(dxu**2 + dyu**2))
    return quad - 5.0 * h**2 * np.sum(x) - 1e-3 * np.sum(np.log(1.0 - x**2))


def eq_lagrangian(x):
    """Constraints of an equality-constrained problem (HS-style chained): the objective
    first, then c_i(x) = 0; weighted by (1, lambda) this is the Lagrangian."""
    obj = np.sum((x[:-1] - 1.0) ** 2 + x[:-1] * x[1:])
    c = x[:-2] ** 2 * x[1:-1] + np.sin(x[1:-1] - x[2:]) - np.exp(x[2:]) * x[:-2] + 0.5
    return np.concatenate([np.reshape(obj, (1,)), c])


def auglag(x):
    """Augmented Lagrangian of min sum x^2 s.t. x_i + x_{i+1} >= 0.1, with the
    inequality's squared positive part (Powell-Hestenes-Rockafellar)."""
    lam = 0.5 + 0.1 * np.arange(x.shape[0] - 1) / x.shape[0]
    rho = 10.0
    g = 0.1 - x[:-1] - x[1:]
    return np.sum(x**2) + np.sum(np.maximum(0.0, lam + rho * g) ** 2 - lam**2) / (2 * rho)


def loop_rosen(x):
    """Extended Rosenbrock written with a Python loop over scalars (3n/2 statements)."""
    total = 0.0
    for i in range(0, x.shape[0] - 1, 2):
        total = total + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2
    return total


def fermat_weber(z):
    """Weighted sum of smoothed distances of k points (z as k x 2) to fixed anchors and
    to their neighbours (a facility-location / sensor-network objective)."""
    k = z.shape[0] // 2
    P = z.reshape(k, 2)
    a = data(("anchors", k), lambda: _RNG.random((k, 2)))
    d1 = np.sqrt(np.sum((P - a) ** 2, axis=1) + 1e-2)
    d2 = np.linalg.norm(P[1:] - P[:-1] + 1e-3, axis=1)
    return np.sum(d1) + 0.5 * np.sum((d2 - 0.1) ** 2)


def lse_max(w):
    """Multinomial logistic NLL with a hand-written stable logsumexp (max shift)."""
    k = 5
    d = w.shape[0] // k
    X = data(("Xm", d), lambda: _RNG.normal(size=(60, d)))
    Y = data(("Ym", d), lambda: np.eye(k)[_RNG.integers(0, k, 60)])
    Z = X @ w.reshape(d, k)
    m = np.max(Z, axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.sum(np.exp(Z - m), axis=1))
    return np.sum(lse - np.sum(Y * Z, axis=1)) + 0.01 * np.sum(w**2)


def softplus_glm(w):
    """Logistic loss with the stable softplus max(z, 0) + log1p(exp(-|z|))."""
    X, y, _ = _glm(w.shape[0])
    z = X @ w
    return np.sum(np.maximum(z, 0.0) + np.log1p(np.exp(-np.abs(z))) - y * z) + 0.05 * w @ w


def einsum_quartic(x):
    """A quadratic form through einsum with a banded constant matrix, plus quartics."""
    n = x.shape[0]
    Q = data(("Q", n), lambda: 2.0 * np.eye(n) - np.eye(n, k=2) - np.eye(n, k=-2))
    return 0.5 * np.einsum("i,ij,j->", x, Q, x) + np.sum(x**4) + np.prod(x[:3])


def LAMBDA(m):
    return np.concatenate([np.ones(1), 0.5 + np.cos(np.arange(m - 1))])  # no weight 0


PROBLEMS = {
    "ARWHEAD": (arwhead, 1000, "scalar"),
    "DIXMAANA": (dixmaana, 999, "scalar"),
    "CHAINWOO": (chainwoo, 1000, "scalar"),
    "BROYDN3D": (broydn3d, 1000, "scalar"),
    "BROYDNBD": (broydnbd, 1000, "scalar"),
    "CRAGGLVY": (cragglvy, 1000, "scalar"),
    "EDENSCH": (edensch, 1000, "scalar"),
    "ENGVAL1": (engval1, 1000, "scalar"),
    "FLETCBV3": (fletcbv3, 1000, "scalar"),
    "NONDIA": (nondia, 1000, "scalar"),
    "POWELLSG": (powellsg, 1000, "scalar"),
    "SROSENBR": (srosenbr, 1000, "scalar"),
    "TRIDIA": (tridia, 1000, "scalar"),
    "WOODS": (woods, 1000, "scalar"),
    "DQRTIC": (dqrtic, 1000, "scalar"),
    "PENALTY1": (penalty1, 100, "scalar"),
    "PENALTY2": (penalty2, 100, "scalar"),
    "LOGISTIC": (logistic_l2, 50, "scalar"),
    "POISSON": (poisson_l2, 50, "scalar"),
    "STUDENT_T": (student_t, 50, "scalar"),
    "PSHUBER": (pseudo_huber, 50, "scalar"),
    "SINKHORN": (sinkhorn_dual, 40, "scalar"),
    "SEMIDUAL": (semidual_ot, 30, "scalar"),
    "BARRIER": (log_barrier, 1000, "scalar"),
    "TRUSTSP": (trust_sparse, 1000, "scalar"),
    "TORSION": (torsion, 900, "scalar"),
    "EQLAGR": (eq_lagrangian, 1000, "lagrangian"),
    "AUGLAG": (auglag, 1000, "scalar"),
    "LOOPROSEN": (loop_rosen, 100, "scalar"),
    "FERMAT": (fermat_weber, 200, "scalar"),
    "LSEMAX": (lse_max, 50, "scalar"),
    "SOFTPLUS": (softplus_glm, 50, "scalar"),
    "EINSUMQ": (einsum_quartic, 1000, "scalar"),
}
