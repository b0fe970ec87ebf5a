"""Real programs through dgraph's public API, an eleventh survey beside ``real_programs.py``
… ``real_programs9.py`` and ``real_programs_hessian.py``: scientific-computing and geometry
kernels as their users write them, of kinds those do not hold. Constant ``scipy.sparse``
operators in PDE residuals (a ``sparse.diags`` Laplacian applied by ``A @ u``, by
``A.dot(u)`` as a default argument, a 2-D one by ``sparse.kron``, implicit Euler by
``spsolve``), molecular mechanics
(bond and angle energies over index arrays with ``np.arccos`` of normalized dots, a dihedral
energy by ``np.cross`` and ``np.arctan2``), robotics and vision (a planar arm's forward
kinematics by 2×2 rotations ``np.array([[c, -s], [s, c]])`` of traced scalars, quaternion
rotation, Rodrigues' formula, a pinhole camera's reprojection error), a 2-D triangle
finite-element energy, a shallow-water Lax–Friedrichs step, ``np.polynomial.polynomial
.polyval`` and ``np.polyval``, an ``np.fft.rfft`` power spectrum, ``np.linalg.eigvalsh``,
``np.linalg.pinv``, ``np.sinc``, a dataclass of parameters whose method is called inside
the program, ``functools.partial``, closures over NumPy constants and ``math.*`` on traced
scalars in a Python loop; and JAX twins of the arm and the spectrum (the JAX reader).

Each NumPy program's reference is its JAX twin (the same code with jax.numpy) or, where JAX
cannot run the code (``scipy.sparse``, ``math.*``, in-place updates), a jnp transcription
of the same formulas. Columns are real_programs3's (``SizedSurvey`` of
``benchmarks/real_programs_harness.py``), every value against ``jax.jacfwd`` /
``jax.hessian`` of the reference, relative 1e-8.

    python benchmarks/real_programs10.py [NAME ...] [--modes=jac,jvp,...] [--limit=SECONDS]
"""

from __future__ import annotations

import functools
import math
import sys
import types
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
from real_programs_harness import (
    MODES_SIZED,
    SizedSurvey,
    _JaxAsNumpy,
    data,
    jax_case,
    np_case,
    registry,
    small_cases,
)
from scipy import sparse
from scipy.sparse.linalg import spsolve

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(31)


def _rng(n: int, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 * n + salt + 10)


#: name -> (builder n -> Case, small n, medium n or None)
PROGRAMS: dict[str, tuple[Callable[[int], tuple], int, int | None]] = {}
program = registry(PROGRAMS)


def twin(f: Callable) -> Callable:
    """The same code run with jax.numpy, its NumPy constants (closures, defaults) JAX
    arrays."""
    cells = tuple(types.CellType(jnp.asarray(c.cell_contents))
                  if isinstance(c.cell_contents, np.ndarray) else c
                  for c in f.__closure__ or ())  # fmt: skip
    return types.FunctionType(f.__code__, {**f.__globals__, "np": _JaxAsNumpy()}, f.__name__,
                              f.__defaults__, cells or None)  # fmt: skip


def case(f, xs, scalar, ref=None):
    """A survey case whose reference is ``ref`` or :func:`twin` of ``f``."""
    return np_case(f, xs, scalar, ref or twin(f))


# ---------------------------------------------------------------- scipy.sparse operators


@program(8, 2000)
def sparse_laplacian_residual(n):
    """A nonlinear reaction–diffusion residual ``A @ u + u³ − f`` whose 1-D Dirichlet
    Laplacian ``A = sparse.diags([-1, 2, -1], [-1, 0, 1], shape=(n, n)) / h²`` (CSR) is
    built once outside the function: a vector output."""
    h = 1.0 / (n + 1)
    A = sparse.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr") / h**2
    rhs = np.sin(np.pi * np.linspace(h, 1 - h, n))

    def f(u):
        return A @ u + u**3 - rhs

    Ad = jnp.asarray(A.toarray())
    return case(f, (data(_rng(n), n, scale=0.3),), False, lambda u: Ad @ u + u**3 - rhs)


@program(8, 2000)
def sparse_dot_energy(n):
    """A Ginzburg–Landau-type energy ``½ uᵀ(K u) + Σ ¼(u² − 1)²`` with the stiffness
    ``K`` a default argument applied by ``K.dot(u)`` (``sparse.diags`` of three offsets,
    ``tocsr``): a scalar."""
    K = sparse.diags([-np.ones(n - 1), 2.0 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1]).tocsr()

    def f(u, K=K):
        Ku = K.dot(u)
        return 0.5 * np.dot(u, Ku) + 0.25 * np.sum((u**2 - 1.0) ** 2)

    Kd = jnp.asarray(K.toarray())

    def ref(u):
        return 0.5 * u @ (Kd @ u) + 0.25 * jnp.sum((u**2 - 1.0) ** 2)

    return case(f, (data(_rng(n), n, scale=0.5),), True, ref)


@program(4, 30)
def sparse_bratu_2d(n):
    """The 2-D Bratu residual ``L u − λ eᵘ`` on an ``n×n`` grid, ``L`` the 5-point
    Laplacian by ``sparse.kron(I, T) + sparse.kron(T, I)`` of ``sparse.eye`` and
    ``sparse.diags``, applied to ``u.ravel()`` (the unknowns a 2-D array): a vector."""
    h = 1.0 / (n + 1)
    T = sparse.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    eye = sparse.eye(n)
    L = ((sparse.kron(eye, T) + sparse.kron(T, eye)) / h**2).tocsr()
    lam = 6.0

    def f(u):
        return L @ u.ravel() - lam * np.exp(u.ravel())

    Ld = jnp.asarray(L.toarray())
    return case(f, (data(_rng(n), n, n, scale=0.2),), False,
                lambda u: Ld @ u.ravel() - lam * jnp.exp(u.ravel()))  # fmt: skip


@program(8, 400)
def sparse_implicit_euler(n):
    """Two implicit-Euler steps of a reaction–diffusion equation, each
    ``spsolve(I + dt·L, u + dt·u(1 − u))`` with ``L`` a ``sparse.diags`` Laplacian (CSC)
    and ``sparse.identity``, ``from scipy.sparse.linalg import spsolve``: a vector."""
    h, dt = 1.0 / (n + 1), 1e-3
    L = sparse.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n)) / h**2
    M = (sparse.identity(n) + dt * L).tocsc()

    def f(u):
        for _ in range(2):
            u = spsolve(M, u + dt * u * (1.0 - u))
        return u

    Md = jnp.asarray(M.toarray())

    def ref(u):
        for _ in range(2):
            u = jnp.linalg.solve(Md, u + dt * u * (1.0 - u))
        return u

    return case(f, (data(_rng(n), n, scale=0.3) + 0.5,), False, ref)


# ---------------------------------------------------------------- molecular mechanics


def _chain(n: int, r: np.random.Generator) -> np.ndarray:
    """A random-walk chain of ``n`` atoms in 3-D, bonds of length about 1 (flat)."""
    steps = r.normal(size=(n, 3))
    steps /= np.linalg.norm(steps, axis=1)[:, None]
    return np.cumsum(steps, axis=0).ravel()


@program(8, 400)
def bond_angle_energy(n):
    """A harmonic force field's bond and angle energies over index arrays: ``r_ij`` by
    ``np.linalg.norm(axis=1)`` of ``x[i] − x[j]``, ``θ = np.arccos(np.sum(a·b, axis=1) /
    (|a| |b|))`` with ``np.clip`` guarding the domain; positions ``(n, 3)`` passed flat."""
    bonds = np.array([(i, i + 1) for i in range(n - 1)])
    angles = np.array([(i, i + 1, i + 2) for i in range(n - 2)])
    kb, r0, ka, th0 = 300.0, 1.0, 50.0, 1.9

    def f(coords):
        x = coords.reshape(-1, 3)
        d = x[bonds[:, 0]] - x[bonds[:, 1]]
        r = np.linalg.norm(d, axis=1)
        e_bond = np.sum(kb * (r - r0) ** 2)
        a = x[angles[:, 0]] - x[angles[:, 1]]
        b = x[angles[:, 2]] - x[angles[:, 1]]
        cos_t = np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
        theta = np.arccos(np.clip(cos_t, -1.0, 1.0))
        e_angle = np.sum(ka * (theta - th0) ** 2)
        return e_bond + e_angle

    return case(f, (_chain(n, _rng(n)),), True)


@program(6, 300)
def dihedral_energy(n):
    """A torsion energy ``Σ k(1 + cos(3φ − δ))`` over quadruples, ``φ`` by the
    ``np.cross`` normals ``b1 × b2`` and ``b2 × b3`` and ``np.arctan2(m1·n2, n1·n2)``
    (the praxeolitic formula); the dots by ``np.einsum("ij,ij->i")``."""
    quads = np.array([(i, i + 1, i + 2, i + 3) for i in range(n - 3)])
    k, delta = 2.5, 0.3

    def f(coords):
        x = coords.reshape(-1, 3)
        p0, p1, p2, p3 = (x[quads[:, j]] for j in range(4))
        b1, b2, b3 = p1 - p0, p2 - p1, p3 - p2
        n1 = np.cross(b1, b2)
        n2 = np.cross(b2, b3)
        m1 = np.cross(n1, b2 / np.linalg.norm(b2, axis=1, keepdims=True))
        y = np.einsum("ij,ij->i", m1, n2)
        xx = np.einsum("ij,ij->i", n1, n2)
        phi = np.arctan2(y, xx)
        return np.sum(k * (1.0 + np.cos(3.0 * phi - delta)))

    return case(f, (_chain(n, _rng(n)),), True)


# ---------------------------------------------------------------- robotics and vision


def _arm(q, lengths):
    """A planar arm's joint positions: a Python loop composing 2×2 rotations built by
    ``np.array([[c, -s], [s, c]])`` of traced scalars."""
    R = np.eye(2)
    p = np.zeros(2)
    points = []
    for i in range(len(lengths)):
        c, s = np.cos(q[i]), np.sin(q[i])
        R = R @ np.array([[c, -s], [s, c]])
        p = p + R @ np.array([lengths[i], 0.0])
        points.append(p)
    return np.concatenate(points)


@program(4, 40)
def planar_arm_fk(n):
    """An ``n``-link planar arm's forward kinematics, every joint's position: a vector."""
    lengths = np.linspace(1.0, 0.5, n)

    def f(q):
        return _arm(q, lengths)

    return case(f, (data(_rng(n), n),), False, lambda q: twin(_arm)(q, lengths))


@program(4, 40)
def arm_ik_objective(n):
    """Inverse kinematics as least squares: ``‖fk(q)[-2:] − target‖² + μ‖q − q₀‖²`` of
    the same arm (a scalar, its Hessian the Newton step's)."""
    lengths = np.linspace(1.0, 0.5, n)
    target = np.array([0.5 * n, 0.3 * n])
    q0 = np.zeros(n)
    mu = 1e-2

    def f(q):
        tip = _arm(q, lengths)[-2:]
        return np.sum((tip - target) ** 2) + mu * np.sum((q - q0) ** 2)

    def ref(q):
        tip = twin(_arm)(q, lengths)[-2:]
        return jnp.sum((tip - target) ** 2) + mu * jnp.sum((q - q0) ** 2)

    return case(f, (data(_rng(n), n),), True, ref)


@program(4, 300)
def quaternion_rotate(n):
    """``n`` points rotated by one quaternion (unknowns ``[w, x, y, z]`` then the points),
    normalized first, by ``v' = v + 2w(u × v) + 2u × (u × v)`` with ``np.cross`` of a
    vector against an ``(n, 3)`` array: a vector output."""

    def f(params):
        q = params[:4] / np.linalg.norm(params[:4])
        w, u = q[0], q[1:]
        v = params[4:].reshape(-1, 3)
        t = 2.0 * np.cross(u, v)
        return (v + w * t + np.cross(u, t)).ravel()

    x = np.concatenate([[0.9, 0.2, -0.3, 0.1], data(_rng(n), 3 * n)])
    return case(f, (x,), False)


@program(4, 300)
def rodrigues_rotate(n):
    """Rodrigues' formula ``R = I + sinθ K + (1 − cosθ) K²`` of an axis-angle vector
    (``θ = ‖ω‖``, ``K`` the skew matrix built by ``np.array`` of its entries) applied to
    ``n`` constant points ``P @ R.T``: a vector of ``3n``."""
    P = data(_rng(n), n, 3)

    def f(omega):
        theta = np.linalg.norm(omega)
        k = omega / theta
        K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
        R = np.eye(3) + np.sin(theta) * K + (1.0 - np.cos(theta)) * (K @ K)
        return (P @ R.T).ravel()

    return case(f, (np.array([0.3, -0.5, 0.8]),), False)


@program(4, 300)
def pinhole_reprojection(n):
    """A pinhole camera's reprojection residuals in its pose (Rodrigues rotation, a
    translation) and focal length: ``Xc = R X + t``, ``(f·x/z + cx, f·y/z + cy) − obs``
    with the intrinsics ``K`` as ``np.array([[f, 0, cx], [0, f, cy], [0, 0, 1]])``."""
    r = _rng(n)
    X = r.normal(size=(n, 3)) + np.array([0.0, 0.0, 6.0])
    obs = r.normal(size=(n, 2)) * 5 + 320.0
    cx, cy = 320.0, 240.0

    def f(params):
        omega, t, focal = params[:3], params[3:6], params[6]
        theta = np.sqrt(np.dot(omega, omega))
        k = omega / theta
        K_ = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
        R = np.eye(3) + np.sin(theta) * K_ + (1.0 - np.cos(theta)) * K_ @ K_
        Xc = X @ R.T + t
        Kmat = np.array([[focal, 0.0, cx], [0.0, focal, cy], [0.0, 0.0, 1.0]])
        uvw = Xc @ Kmat.T
        uv = uvw[:, :2] / uvw[:, 2:3]
        return (uv - obs).ravel()

    x = np.array([0.1, -0.2, 0.05, 0.3, -0.1, 0.5, 500.0])
    return case(f, (x,), False)


# ---------------------------------------------------------------- PDE kernels


def _mesh(n: int):
    """An ``n×n`` grid of the unit square cut into ``2(n−1)²`` triangles: the nodes'
    coordinates and the triangles' node indices."""
    s = np.linspace(0.0, 1.0, n)
    X, Y = np.meshgrid(s, s, indexing="ij")
    pts = np.column_stack([X.ravel(), Y.ravel()])
    idx = np.arange(n * n).reshape(n, n)
    a, b, c, d = (
        idx[:-1, :-1].ravel(),
        idx[1:, :-1].ravel(),
        idx[1:, 1:].ravel(),
        idx[:-1, 1:].ravel(),
    )
    tris = np.concatenate([np.column_stack([a, b, c]), np.column_stack([a, c, d])])
    return pts, tris


@program(4, 40)
def fem_p1_energy(n):
    """A P1 finite-element energy ``Σ_T |T| (1 + |∇u|²)^{p/2} − Σ_T |T| f ū`` on a
    triangulated square (a minimal-surface-like p-energy, p = 1.5): each triangle's
    constant gradient from its nodes' values by the precomputed ``B`` matrices
    (``np.einsum("tij,tj->ti")`` over ``u[tris]``)."""
    pts, tris = _mesh(n)
    P = pts[tris]  # (t, 3, 2)
    e1, e2 = P[:, 1] - P[:, 0], P[:, 2] - P[:, 0]
    det = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]
    area = 0.5 * np.abs(det)
    # the gradient of the nodal hat functions: rows of inv([e1 e2]) times [-1 1 0; -1 0 1]
    Jinv = np.stack([np.stack([e2[:, 1], -e2[:, 0]], 1), np.stack([-e1[:, 1], e1[:, 0]], 1)], 1)
    Jinv /= det[:, None, None]
    B = np.einsum("tki,kj->tij", Jinv, np.array([[-1.0, 1.0, 0.0], [-1.0, 0.0, 1.0]]))
    load, p = 1.0, 1.5

    def f(u):
        ue = u[tris]
        g = np.einsum("tij,tj->ti", B, ue)
        dens = (1.0 + np.sum(g**2, axis=1)) ** (p / 2)
        return np.sum(area * dens) - load * np.sum(area * ue.mean(axis=1))

    return case(f, (data(_rng(n), n * n, scale=0.3),), True)


@program(8, 1000)
def shallow_water_step(n):
    """One Lax–Friedrichs step of the 1-D shallow-water equations on a periodic grid: the
    state ``[h, hu]`` stacked in one vector, fluxes ``(hu, hu²/h + ½ g h²)``, neighbours by
    ``np.roll``: the next state (a vector)."""
    g, dt, dx = 9.81, 1e-3, 1.0 / n

    def f(state):
        h, hu = state[:n], state[n:]
        F1 = hu
        F2 = hu**2 / h + 0.5 * g * h**2

        def lf(q, F):
            qp, qm = np.roll(q, -1), np.roll(q, 1)
            Fp, Fm = np.roll(F, -1), np.roll(F, 1)
            return 0.5 * (qp + qm) - dt / (2 * dx) * (Fp - Fm)

        return np.concatenate([lf(h, F1), lf(hu, F2)])

    r = _rng(n)
    x = np.concatenate([1.0 + 0.1 * r.random(n), 0.1 * r.normal(size=n)])
    return case(f, (x,), False)


# ---------------------------------------------------------------- numerical kernels


@program(6, 200)
def polyval_fit(n):
    """A polynomial fit's residuals in its coefficients by ``np.polynomial.polynomial
    .polyval`` (lowest degree first) plus a second model's by ``np.polyval`` (highest
    first), each of the same ``n`` coefficients: a vector."""
    t = np.linspace(-1.0, 1.0, 3 * n)
    y = np.cos(2 * t)

    def f(c):
        r1 = np.polynomial.polynomial.polyval(t, c) - y
        r2 = np.polyval(c, t) - y
        return np.concatenate([r1, 0.5 * r2])

    def ref(c):
        r1 = jnp.polyval(c[::-1], t) - y
        r2 = jnp.polyval(c, t) - y
        return jnp.concatenate([r1, 0.5 * r2])

    return case(f, (data(_rng(n), n),), False, ref)


@program(8, 512)
def rfft_power_spectrum(n):
    """A spectral-matching loss: ``P = np.abs(np.fft.rfft(x))**2 / n`` (complex in the
    middle), its log against a target spectrum, plus a smoothness term by ``np.diff``."""
    target = np.log(1.0 + 1.0 / (1.0 + np.arange(n // 2 + 1)))

    def f(x):
        P = np.abs(np.fft.rfft(x)) ** 2 / n
        return np.sum((np.log(P + 1.0) - target) ** 2) + 0.1 * np.sum(np.diff(x) ** 2)

    return case(f, (data(_rng(n), n),), True)


@program(4, 20)
def eigvalsh_spectrum(n):
    """A spectral objective of a symmetric matrix: ``A = ½(M + Mᵀ) + diag(0, 1, …)`` of a
    reshaped unknown ``M``, its eigenvalues by ``np.linalg.eigvalsh`` (ascending, distinct
    here) weighted ``Σ w_k λ_k²``: a scalar."""
    w = np.linspace(1.0, 2.0, n)

    def f(m):
        M = m.reshape(n, n)
        A = 0.5 * (M + M.T) + np.diag(np.arange(n) * 2.0)
        lam = np.linalg.eigvalsh(A)
        return np.sum(w * lam**2)

    return case(f, (data(_rng(n), n * n),), True)


@program(4, 20)
def pinv_projection(n):
    """Variable projection's residual by ``np.linalg.pinv``: ``y − X pinv(X) y`` where
    the design ``X = [1, t, sin(a₀ t), cos(a₁ t)]`` (``np.column_stack``) depends on two
    unknown frequencies; ``4n`` samples: a vector."""
    t = np.linspace(0.0, 3.0, 4 * n)
    y = np.sin(1.3 * t) + 0.5 * np.cos(2.1 * t)

    def f(a):
        X = np.column_stack([np.ones_like(t), t, np.sin(a[0] * t), np.cos(a[1] * t)])
        beta = np.linalg.pinv(X) @ y
        return y - X @ beta

    return case(f, (np.array([1.2, 2.0]),), False)


@program(6, 200)
def sinc_resample(n):
    """Band-limited resampling at fractional delays: ``y_j = Σ_k x_k sinc(t_j − k + d)``
    by ``np.sinc`` of a broadcast difference, with the delay ``d`` the last unknown: a
    vector of ``2n``."""
    k = np.arange(n)
    tj = np.linspace(0.0, n - 1, 2 * n)

    def f(z):
        x, d = z[:-1], z[-1]
        S = np.sinc(tj[:, None] - k[None, :] + d)
        return S @ x

    return case(f, (np.concatenate([data(_rng(n), n), [0.23]]),), False)


# ---------------------------------------------------------------- Python structure


@dataclass
class Pendulum:
    """A damped pendulum chain's parameters; :meth:`energy` is its discrete action."""

    m: float
    length: float
    g: float = 9.81
    k: float = 0.5

    def potential(self, q):
        return self.m * self.g * self.length * np.sum(1.0 - np.cos(q))

    def coupling(self, q):
        return 0.5 * self.k * np.sum(np.diff(q) ** 2)

    def energy(self, q, dt):
        v = np.diff(q) / dt
        kinetic = 0.5 * self.m * self.length**2 * np.sum(v**2)
        return kinetic - self.potential(q) - self.coupling(q)


@program(8, 1000)
def dataclass_action(n):
    """A discrete Lagrangian action by a dataclass's method: ``model.energy(q, dt)``
    calling ``self.potential`` and ``self.coupling`` (the parameters dataclass fields)."""
    model = Pendulum(m=1.2, length=0.8)

    def f(q):
        return model.energy(q, 0.05)

    def ref(q):
        v = jnp.diff(q) / 0.05
        kin = 0.5 * 1.2 * 0.8**2 * jnp.sum(v**2)
        pot = 1.2 * 9.81 * 0.8 * jnp.sum(1.0 - jnp.cos(q))
        return kin - pot - 0.5 * 0.5 * jnp.sum(jnp.diff(q) ** 2)

    return case(f, (data(_rng(n), n, scale=0.3),), True, ref)


def _weighted_loss(w, X, y, reg):
    """A module-level loss taking data by keyword: bound by ``functools.partial``."""
    r = np.tanh(X @ w) - y
    return np.mean(r**2) + reg * np.sum(w**2)


@program(6, 300)
def partial_loss(n):
    """A loss of weights with the data bound by ``functools.partial(_weighted_loss,
    X=X, y=y, reg=1e-2)`` — the program is the partial object itself."""
    r = _rng(n)
    X = r.normal(size=(3 * n, n))
    y = np.tanh(X @ r.normal(size=n) * 0.3)
    f = functools.partial(_weighted_loss, X=X, y=y, reg=1e-2)
    Xj = jnp.asarray(X)
    return case(f, (data(r, n, scale=0.3),), True,
                lambda w: jnp.mean((jnp.tanh(Xj @ w) - y) ** 2) + 1e-2 * jnp.sum(w**2))  # fmt: skip


@program(6, 200)
def math_loop_oscillator(n):
    """A Duffing oscillator's trajectory by a Python loop of symplectic-Euler steps
    written with ``math.sin``/``math.cos``/``math.exp`` on traced scalars (the forcing
    amplitudes are the unknowns): the final positions ``[x, v]`` (a vector of 2)."""
    dt = 0.05

    def f(a):
        x, v = 0.1, 0.0
        for i in range(len(a)):
            t = i * dt
            force = a[i] * math.cos(1.3 * t) * math.exp(-0.1 * t)
            v = v + dt * (-0.2 * v - x - x**3 + force + 0.1 * math.sin(x))
            x = x + dt * v
        return np.array([x, v])

    def ref(a):
        x, v = 0.1, 0.0
        for i in range(a.shape[0]):
            t = i * dt
            force = a[i] * math.cos(1.3 * t) * math.exp(-0.1 * t)
            v = v + dt * (-0.2 * v - x - x**3 + force + 0.1 * jnp.sin(x))
            x = x + dt * v
        return jnp.stack([x, v])

    return case(f, (data(_rng(n), n),), False, ref)


@program(6, 200)
def closure_kernel_terms(n):
    """A sum of per-term closures over NumPy constants, made in a list comprehension with
    the default-argument idiom ``lambda x, c=c: ...`` (a radial-basis energy of ``n``
    centres): a scalar."""
    r = _rng(n)
    centres = r.normal(size=(n, 2))
    terms = [lambda p, c=c: np.exp(-np.sum((p - c) ** 2, axis=-1)) for c in centres]

    def f(x):
        P = x.reshape(-1, 2)
        return sum(np.sum(term(P)) for term in terms) + 0.05 * np.sum(x**2)

    cj = jnp.asarray(centres)

    def ref(x):
        P = x.reshape(-1, 2)
        d2 = jnp.sum((P[:, None, :] - cj[None, :, :]) ** 2, axis=2)
        return jnp.sum(jnp.exp(-d2)) + 0.05 * jnp.sum(x**2)

    return case(f, (data(r, 2 * n),), True, ref)


# ---------------------------------------------------------------- JAX twins


def _jax_arm(q, lengths):
    R = jnp.eye(2)
    p = jnp.zeros(2)
    points = []
    for i in range(len(lengths)):
        c, s = jnp.cos(q[i]), jnp.sin(q[i])
        R = R @ jnp.array([[c, -s], [s, c]])
        p = p + R @ jnp.array([lengths[i], 0.0])
        points.append(p)
    return jnp.concatenate(points)


@program(4, 40)
def jax_planar_arm_fk(n):
    """:func:`planar_arm_fk` in JAX: ``jnp.array([[c, -s], [s, c]])`` of traced scalars."""
    lengths = np.linspace(1.0, 0.5, n)

    def f(q):
        return _jax_arm(q, lengths)

    return jax_case(f, (data(_rng(n), n),), False)


@program(8, 512)
def jax_rfft_eigvalsh(n):
    """A JAX objective of a power spectrum by ``jnp.fft.rfft`` and the eigenvalues of the
    symmetric ``diag(0, 1, …) + 0.1 x xᵀ`` by ``jnp.linalg.eigvalsh``: a scalar."""

    def f(x):
        P = jnp.abs(jnp.fft.rfft(x)) ** 2 / n
        lam = jnp.linalg.eigvalsh(jnp.diag(jnp.arange(n) * 1.0) + 0.1 * jnp.outer(x, x))
        return jnp.sum(jnp.log1p(P)) + jnp.sum(jnp.linspace(1.0, 2.0, n) * lam)

    return jax_case(f, (data(_rng(n), n),), True)


# ---------------------------------------------------------------- the survey


def main(argv: list[str]) -> None:
    SizedSurvey(PROGRAMS, CASES, __file__, rng, cell=7, modes=MODES_SIZED).main(argv)


#: each program at its small size, under its name (``dgraph codegen real_programs10.py:NAME``)
CASES = small_cases(PROGRAMS, globals())

if __name__ == "__main__":
    main(sys.argv[1:])
