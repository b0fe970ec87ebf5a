"""What the fourteenth survey of real programs met (benchmarks/real_programs13.py), each at
the array level against ``jax.jacfwd``: a gather at points computed along two axes
(``jax.scipy.ndimage.map_coordinates``'s corners), NaN entries of a constant (missing
data under ``jnp.nanmean``) that carry no derivative, and a ``vmap``'d solve (one solve per
matrix)."""

import numpy as np
import pytest

import dgraph
from tests.jax_reference import jacfwd

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(33)
IMAGE = RNG.normal(size=(4, 5))
X = np.array([0.3, 1.1, 2.4, 0.7, 1.9, 5.3])  # the last column index 15: clamped to 4


def _array_jacobian(f, x):
    g = dgraph.from_jax(f, x, level="array")
    assert g.is_tensor
    made = dgraph.make_function(g, "jacobian")
    return np.asarray(made(x)).reshape(np.shape(jacfwd(f)(x)))


def corners_of_constant_image(x):
    i = jnp.floor(x[:3] * 2).astype(int)
    j = jnp.floor(x[3:] * 3).astype(int)
    return jnp.asarray(IMAGE)[i, j] * x[:3] + x[3:] ** 2


def corners_of_traced_data(x):
    M = x.reshape(2, 3)
    i = jnp.array([1, 0, 1])
    j = jnp.floor(jnp.abs(x[:3]) * 2).astype(int)
    return M[i, j] * x[3:]


@pytest.mark.parametrize("f", [corners_of_constant_image, corners_of_traced_data])
def test_gather_at_points_computed_along_two_axes(f):
    want = np.asarray(jacfwd(f)(X))
    assert np.abs(want).max() > 0.5
    assert np.allclose(_array_jacobian(f, X), want, rtol=1e-12, atol=1e-12)


def test_map_coordinates_registration_gradient():
    moving = jnp.asarray(RNG.normal(size=(4, 4)))
    grid = jnp.asarray(np.stack(np.meshgrid(np.arange(4.0), np.arange(4.0), indexing="ij")))

    def ssd(d):
        coords = grid + d.reshape(2, 4, 4)
        warped = jax.scipy.ndimage.map_coordinates(moving, list(coords), order=1)
        return jnp.sum(warped**2)

    d = 0.2 + 0.1 * RNG.uniform(size=32)
    assert np.allclose(_array_jacobian(ssd, d), np.asarray(jacfwd(ssd)(d)), rtol=1e-10)


A = RNG.normal(size=(24, 20))
Y = RNG.normal(size=24)
Y[::3] = np.nan  # missing readings


def nanmean_fit(x):
    res = jnp.asarray(A) @ x - jnp.asarray(Y)
    return jnp.nanmean(res**2) + 0.1 * jnp.nansum(jnp.log(res**2 + 1.0))


def test_nan_entries_of_a_constant_carry_no_derivative():
    x = RNG.normal(size=20)
    want = np.asarray(jacfwd(nanmean_fit)(x))
    assert np.isfinite(want).all()
    found = _array_jacobian(nanmean_fit, x)
    assert np.isfinite(found).all()
    assert np.allclose(found, want, rtol=1e-12, atol=1e-12)


def stacked_inverses_and_solves(x):  # Neo-Hookean's F⁻ᵀ under vmap: a batched solve
    H = x.reshape(2, 2, 2)
    F = jnp.eye(2) + H
    inv = jax.vmap(jnp.linalg.inv)(F)
    sol = jax.vmap(jnp.linalg.solve)(F, H[:, :, 0])
    return jnp.concatenate([inv.ravel(), sol.ravel(), jax.vmap(jnp.linalg.det)(F)])


def test_a_vmapped_solve_is_one_solve_per_matrix():
    x = 0.2 * RNG.normal(size=8)
    want = np.asarray(jacfwd(stacked_inverses_and_solves)(x))
    found = _array_jacobian(stacked_inverses_and_solves, x)
    assert np.allclose(found, want, rtol=1e-12, atol=1e-12)


# the same kind of loss written in NumPy (the array tracer): its rows of missing readings
ROWS = RNG.normal(size=(24, 5))
READINGS = RNG.normal(size=24)
READINGS[::7] = np.nan
LOSSES = {  # a NumPy loss over the readings, and JAX's
    "nanmean": (
        lambda x: np.nanmean((ROWS @ x - READINGS) ** 2),
        lambda x: jnp.nanmean((ROWS @ x - READINGS) ** 2),
    ),
    "nansum": (
        lambda x: np.nansum((ROWS @ x - READINGS) ** 2),
        lambda x: jnp.nansum((ROWS @ x - READINGS) ** 2),
    ),
    "where_isnan": (
        lambda x: np.where(np.isnan(READINGS), 0.0, (ROWS @ x - READINGS) ** 2).sum(),
        lambda x: jnp.where(jnp.isnan(READINGS), 0.0, (ROWS @ x - READINGS) ** 2).sum(),
    ),
    "nan_to_num": (
        lambda x: np.nan_to_num((ROWS @ x - READINGS) ** 2).sum(),
        lambda x: jnp.nan_to_num((ROWS @ x - READINGS) ** 2).sum(),
    ),
    "huber": (
        lambda x: np.nanmean(_huber(ROWS @ x - READINGS, np)),
        lambda x: jnp.nanmean(_huber(ROWS @ x - READINGS, jnp)),
    ),
}


def _huber(r, xp):
    return xp.where(xp.abs(r) < 1, r**2, 2 * xp.abs(r) - 1)


@pytest.mark.parametrize(
    ("loss", "lang", "mode"),
    [
        ("nanmean", "python", "jacobian"),
        ("nanmean", "c", "jacobian"),
        ("nanmean", "jax", "vjp"),
        ("nanmean", "python", "sparse"),
        ("nansum", "python", "vjp"),
        ("where_isnan", "python", "jacobian"),
        ("nan_to_num", "c", "vjp"),
        ("huber", "python", "vjp"),
    ],
)
def test_numpy_losses_over_missing_readings_are_jacfwd_s_and_verified(loss, lang, mode):
    """The array level multiplied the ``where``'s 0 (or a cotangent past it) by the
    partial ``2 (A x − y)``, NaN where ``y`` is missing: all NaN, and not verified, the
    program's intermediate values NaN there (main). Now a product by a selection's block
    is a selection (every printer), and the check compares at the user's point with the
    partials no output reads left out: ``jax.jacfwd``'s values, verified (``jax.grad``'s
    reverse rule gives NaN here)."""
    numpy_loss, jax_loss = LOSSES[loss]
    x = np.linspace(0.5, 1.5, 5)
    g = dgraph.from_function(numpy_loss, sizes=[(5,)], point=[x], level="array")
    sparse = mode == "sparse"
    made = dgraph.make_function(g, "jacobian" if sparse else mode, lang, sparse=sparse)
    want = np.asarray(jacfwd(jax_loss)(x))
    got = made(x, np.ones(())) if mode == "vjp" else made(x)
    got = np.asarray(got.toarray() if sparse else got).reshape(want.shape)
    assert np.isfinite(want).all()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert made.generated.verified, made.generated.check.detail


def test_a_nan_jacobian_of_a_finite_loss_is_caught(monkeypatch):
    """The same loss with the printers' selection rule taken away (products by the
    ``where``'s block multiplied as they were): the code's Jacobian is NaN where the
    expression set's and the differences' are finite, and the check fails it (main:
    made, NaN, with a warning that it was not verified)."""
    from dgraph.codegen import array_passes
    from dgraph.errors import VerificationError

    monkeypatch.setattr(array_passes, "selected_products", lambda s, known=None, results=None: s)
    x = np.linspace(0.5, 1.5, 5)
    g = dgraph.from_function(LOSSES["nanmean"][0], sizes=[(5,)], point=[x], level="array")
    with pytest.raises(VerificationError, match="differs from the expression set"):
        dgraph.make_function(g, "jacobian")


def _repulsion(X, xp):  # the survey's pairdist: pairwise distances, the zero diagonal masked
    d = xp.sqrt(xp.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1))
    return xp.sum(xp.where(~np.eye(4, dtype=bool), xp.exp(-d), 0.0)) + 0.1 * xp.sum(X**2)


def _largest_root(z, xp):  # entmax's: a take of sqrt(clip(z, 0)), the clipped entries not taken
    return xp.sqrt(xp.clip(z, 0, None))[xp.argmax(z)] + xp.sum(z**2)


STRUCTURAL = {
    "masked_norm": (lambda X: _repulsion(X, np), lambda X: _repulsion(X, jnp), (4, 2)),
    "taken_root": (lambda z: _largest_root(z, np), lambda z: _largest_root(z, jnp), (3,)),
}


@pytest.mark.parametrize(
    ("program", "lang", "mode"),
    [
        ("masked_norm", "python", "vjp"),
        ("masked_norm", "c", "vjp"),
        ("taken_root", "python", "vjp"),
        ("taken_root", "jax", "vjp"),
        ("taken_root", "c", "vjp"),
        ("taken_root", "python", "jacobian"),
    ],
)
def test_reverse_sweeps_past_structural_zeros_are_jacfwd_s_and_verified(program, lang, mode):
    """A cotangent that is 0 by structure — a where's untaken case moved back past the
    exponential to a norm's ``x/|x|`` at the zero diagonal, or a take's adjoint (a segment
    sum) meeting ``sqrt``'s infinite partial at the clipped entries it does not take —
    met ∞ as 0 · ∞: the expression set's ``wᵀ·J`` (the diagonal) or the code's (the
    take) NaN where the other was finite, and the code check refused the vjp and the
    reverse-mode Jacobian (main). Now both keep those zeros: ``jax.jacfwd``'s values,
    verified (``jax.vjp``'s reverse rules multiply: NaN here, 1 s of eager JAX not
    spent on saying so)."""
    numpy_f, jax_f, shape = STRUCTURAL[program]
    x = np.array([1.0, -1.0, 0.5]) if program == "taken_root" else RNG.normal(size=shape)
    g = dgraph.from_function(numpy_f, sizes=[shape], point=[x], level="array")
    made = dgraph.make_function(g, mode, lang, method="reverse")
    want = np.asarray(jacfwd(jax_f)(x))
    got = np.asarray(made(x, np.ones(())) if mode == "vjp" else made(x)).reshape(want.shape)
    assert np.isfinite(want).all()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert made.generated.verified, made.generated.check.detail


def test_a_jax_take_along_rows_past_clipped_roots_is_jacfwd_s_and_verified():
    """JAX's ``take_along_axis`` on rows keeps its one-hot as a dense block: the value
    check read every entry as taken (``sqrt``'s ∞ at the clipped ones times the one-hot's
    0: the expression set did not verify), and the code's product of the cotangent with
    that one-hot (an ``einsum``) met ∞ after it. Both now read the one-hot's zeros as
    structural: ``jax.jacfwd``'s Jacobian from reverse mode, verified."""

    def largest_roots(z):
        k = jnp.argmax(z, axis=1)[:, None]
        roots = jnp.take_along_axis(jnp.sqrt(jnp.clip(z, 0, None)), k, axis=1)
        return jnp.sum(roots**2) + jnp.sum(z**2)

    z = np.array([[1.0, -1.0, 0.5], [-0.5, 2.0, -3.0]])
    made = dgraph.make_function(dgraph.from_jax(largest_roots, z, level="array"), "jacobian",
                                method="reverse")  # fmt: skip
    np.testing.assert_allclose(made(z), np.asarray(jacfwd(largest_roots)(z)), rtol=1e-12)
    assert made.generated.verified, made.generated.check.detail


def _taken_rows(z, xp, root):  # a row's product at its largest entry, squared (rev52's cost)
    r = xp.sqrt(xp.clip(z, 0, None) + (0.0 if root else 1.0)) * xp.exp(-z if root else z)
    k = xp.clip(xp.argmax(z, axis=1), 0, 2)[:, None]
    return xp.sum(xp.take_along_axis(r, k, axis=1) ** 2) + (xp.sum(z**2) if root else 0.0)


@pytest.mark.parametrize(("root", "wheres"), [(False, 1), (True, 2)])
def test_a_take_s_adjoint_is_zeroed_once_a_chain_not_once_a_product(root, wheres):
    """The cotangent a take lands (0 by structure off the entries taken) runs through five
    products to the input: session 52 put a ``where`` on each (5 in the NumPy code:
    451 -> 593 µs a call at 3000 rows), though its zeros need restoring only where
    something other than a product or a move reads the chain, here where its two paths
    meet (1), or each meets the ``sum(z²)`` term's (2). Values: ``jax.vjp``'s where it
    is finite; with ``sqrt(clip(z, 0))``'s ∞ at the clipped entries not taken (NaN in
    the bare products), ``jax.jacfwd``'s (``jax.vjp`` is NaN there)."""
    z = np.array([[1.0, -1.0, 0.5], [-0.5, 2.0, -3.0], [0.3, -0.2, 0.1]])
    made = dgraph.make_function(lambda z: _taken_rows(z, np, root), "vjp", point=[z])
    assert made.generated.text.count("where(") == wheres
    w, g = 1.7, jax.jit(lambda z: _taken_rows(z, jnp, root))
    want = w * jacfwd(g)(z) if root else jax.vjp(g, z)[1](w)[0]
    np.testing.assert_allclose(made(z, w), np.asarray(want), rtol=1e-13, atol=1e-13)
    assert np.isnan(jax.vjp(g, z)[1](w)[0]).any() == root
    assert made.generated.verified, made.generated.check.detail
