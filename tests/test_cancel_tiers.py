"""The cancellation pass's bounds are tiered (:func:`dgraph.codegen.tensor.cancel._decided`):
a point is evaluated first with one bound a statement (:class:`dgraph.codegen.bounds.Scalar`),
never below any entry's own bound (:class:`~dgraph.codegen.bounds.Bounded`), and only the
entries it leaves undecided get their own. A cancellation that is real is still found and
dropped, an entry that is not is not claimed, on either tier; which tier decided is read
from the writer's ``cancel_tiers``."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.codegen import bounds  # noqa: E402
from dgraph.codegen.tensor import cancel, module  # noqa: E402
from dgraph.frontends import jaxpr_prefix_sums  # noqa: E402
from tests import jax_reference as jref  # noqa: E402


@pytest.fixture
def tiers(monkeypatch):
    """The tiers that decided in the calls of the test (every writer's ``cancel_tiers``)."""
    made = []

    class Recorded(module.Writer):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(module, "Writer", Recorded)
    return lambda: sum((w.cancel_tiers for w in made), Counter())


def _reference(f, x):
    with jax.enable_x64(True):
        return np.asarray(jref.hessian(f)(jnp.asarray(x)))


def test_a_real_cancellation_is_dropped_by_the_scalar_tier_alone(tiers):
    """exp(x_i+1)·sin(x_i) − sin(x_i)·exp(x_i+1) cancels (its entries are 0 at every point:
    asked by their values, proven by their polynomials); cos(x_i) and the ridge's diagonal
    are far from 0, which the statements' scalar bounds decide: no entry's own bound is
    computed. The pattern is jax.hessian's nonzeros (the diagonal), its values jax's."""
    n = 40

    def f(x):
        twice = jnp.exp(x[1:]) * jnp.sin(x[:-1]) - jnp.sin(x[:-1]) * jnp.exp(x[1:])
        return jnp.sum(twice) + jnp.sum(jnp.cos(x)) + 3.0 * jnp.sum(x**2)

    x = np.random.default_rng(0).uniform(0.2, 1.0, n)
    H = dgraph.hessian(f, x, sparse=True)(x)
    ref = _reference(f, x)
    assert H.nnz == np.count_nonzero(ref) == n
    np.testing.assert_allclose(H.toarray(), ref, rtol=1e-12, atol=1e-13)
    found = tiers()
    assert found["scalar"] >= 1
    assert found["entries"] == found["whole"] == found["deferred"] == found["own"] == 0


def test_entries_the_scalar_tier_leaves_are_kept_by_their_own_bounds(tiers, monkeypatch):
    """(Σ w_i u_i)³ with w from 10⁻⁶ to 10⁶: the u-block is dense, 6·s·w_i·w_j from
    ≈10⁻⁵ to 10¹⁹ in one statement, so its scalar bound (set by the largest) leaves the
    small entries undecided, though none is 0 (each far above its own bound); they are
    decided by their own bounds (a per-entry tier), not claimed. The v-block's
    neighbours cancel (exp·sin − sin·exp) and are dropped. At each point decided, the
    tiered answer is the per-entry one: equal where it decided, no smaller where it left
    entries to a later point."""
    m, k = 24, 8
    w = np.geomspace(1e-6, 1e6, m)

    def f(x):
        u, v = x[:m], x[m:]
        twice = jnp.exp(v[1:]) * jnp.sin(v[:-1]) - jnp.sin(v[:-1]) * jnp.exp(v[1:])
        return jnp.dot(w, u) ** 3 + jnp.sum(twice) + jnp.sum(jnp.cos(v))

    compared = []
    decided = cancel._decided

    def against_own(w_, parts, found, bound, asked, entries, whole, may_defer=False):
        got = decided(w_, parts, found, bound, asked, entries, whole, may_defer)
        again = whole()
        own = cancel._near_zero(*again, asked.size) & asked
        near = got[0] & asked
        assert (near | ~own).all()  # every entry its own bound asks is asked
        if got[1] is None:
            assert (near == own).all()
        compared.append((int(own.sum()), int(near.sum()), got[1] is None))
        return got

    monkeypatch.setattr(cancel, "_decided", against_own)
    x = np.random.default_rng(1).uniform(0.2, 1.0, m + k)
    H = dgraph.hessian(f, x, sparse=True)(x)
    ref = _reference(f, x)
    assert H.nnz == np.count_nonzero(ref) == m * m + k
    np.testing.assert_allclose(H.toarray(), ref, rtol=1e-9, atol=0)
    found = tiers()
    assert found["entries"] + found["whole"] + found["own"] >= 1  # per-entry bounds decided
    assert compared and any(near > own for own, near, _ in compared)  # scalar alone: more


@pytest.mark.parametrize(
    "op",
    [
        lambda a, b: a + b,
        lambda a, b: a - 2.0 * b,
        lambda a, b: a * b,
        lambda a, b: a / (b + 3.0),
        lambda a, b: np.exp(a) * np.log(b + 2.0),
        lambda a, b: np.sqrt(b + 3.0) + np.sin(a) * np.tanh(b),
        lambda a, b: np.square(a) - np.reciprocal(b + 2.0),
        lambda a, b: np.maximum(a, b) + np.logaddexp(a, b),
        lambda a, b: np.einsum("ij,kj->ik", a, b),
        lambda a, b: np.einsum("ij,ij->i", a, b),
        lambda a, b: np.sum(a * b, axis=0),
        lambda a, b: np.add.reduce(a, axis=0) + np.add.accumulate(b, axis=0)[-1],
        lambda a, b: np.cumsum(a, axis=1) * b,
        lambda a, b: np.where(a.value > 0, a, b) if isinstance(a, bounds.Bounded) else a,
        lambda a, b: np.concatenate([a, b]).ravel()[np.array([3, 0, 17, 3])],
        lambda a, b: bounds.scattered_add(b.ravel(), [(np.array([0, 0, 0, 2]), a[0, :4])]),
        lambda a, b: np.bincount(np.array([0, 2, 2, 1]), weights=b[1, :4], minlength=4),
    ],
)
def test_a_scalar_bound_is_never_below_an_entry_s_own(op):
    """Each rule's :class:`~dgraph.codegen.bounds.Scalar`, its operands' bounds the largest
    of their per-entry ones, is at least the largest per-entry bound the rule gives, and
    the values are the per-entry evaluation's, bit for bit."""
    rng = np.random.default_rng(7)
    a, b = rng.uniform(-2, 2, (4, 5)), rng.uniform(-2, 2, (4, 5))
    ea, eb = rng.uniform(0, 50, (4, 5)), rng.uniform(0, 3, (4, 5))
    entrywise = op(bounds.Bounded(a, ea), bounds.Bounded(b, eb))
    scalar = op(bounds.Scalar(a, float(ea.max())), bounds.Scalar(b, float(eb.max())))
    assert isinstance(scalar, bounds.Scalar) and np.ndim(scalar.bound) == 0
    np.testing.assert_array_equal(scalar.value, entrywise.value)
    largest = float(np.max(entrywise.bound))
    assert largest > 0 and scalar.bound >= largest * (1 - 1e-12)


def test_a_product_by_a_spread_multiplier_is_bounded_per_entry():
    """A product of :class:`~dgraph.codegen.bounds.Scalar` operands whose multiplier's
    magnitudes spread over more than ``_SPREAD``× their mean gets each entry's bound
    (from the operands' one bound each): at least that rule's per-entry bound at every
    entry, at most the one bound, and far below it at most entries; a multiplier of
    like magnitudes keeps one bound a statement."""
    rng = np.random.default_rng(3)
    a, ea = rng.uniform(0.5, 2.0, 4000), 7.0
    spread = np.full(4000, 1e-3)
    spread[::500] = 1.0  # largest 1, mean 0.003: 333× (a multiplier of 1: not spread)
    got = bounds.Scalar(a, ea) * bounds.Scalar(spread, 0.0)
    assert not isinstance(got, bounds.Scalar) and np.shape(got.bound) == a.shape
    own = bounds.Bounded(a, np.full(4000, ea)) * bounds.Bounded(spread, np.zeros(4000))
    np.testing.assert_array_equal(got.value, a * spread)
    np.testing.assert_array_equal(got.bound, own.bound)
    one = bounds.Scalar(a, ea) * bounds.Scalar(np.full(4000, 1.0), 0.0)  # no spread
    assert isinstance(one, bounds.Scalar)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bounds, "_SPREAD", np.inf)  # one bound a statement
        scalar = bounds.Scalar(a, ea) * bounds.Scalar(spread, 0.0)
    assert isinstance(scalar, bounds.Scalar)
    assert scalar.bound >= got.bound.max() and np.median(got.bound) < 1e-2 * scalar.bound
    # a multiplier whose entries the sample misses are its only nonzeros (cumsum_profile
    # at 2,000: mean 0.0017 over all, 0 over those taken): spread, per entry
    sparse = np.zeros(40960)
    sparse[5::1000] = 2.0  # the sample takes every 10th from 0
    got = bounds.Scalar(np.ones(40960), ea) * bounds.Scalar(sparse, 0.0)
    assert not isinstance(got, bounds.Scalar)
    assert got.bound.max() == 2.0 + 2.0 * ea and np.count_nonzero(got.bound) == 41


def test_a_quotient_by_a_spread_divisor_is_bounded_per_entry():
    """A quotient of :class:`~dgraph.codegen.bounds.Scalar` operands whose divisor's
    magnitudes spread (one bound: 1/min|b| for the numerator's error, max|v|/min|b| for
    the divisor's, over ``_SPREAD``× their mean) gets each entry's bound, from the
    operands' one bound each: the per-entry rule's at every entry, at most the one
    bound and far below it at most entries (minimal surface: 1/sqrt(1 + |∇u|²)); a
    divisor of like magnitudes, or a number, keeps one bound a statement."""
    rng = np.random.default_rng(4)
    a, ea, eb = rng.uniform(0.5, 2.0, 4000), 7.0, 3.0
    b = np.full(4000, 100.0)
    b[::500] = 1.0  # 1/min|b| = 1, mean 1/|b| ≈ 0.012: 83×
    for ka, kb in ((ea, eb), (ea, 0.0), (0.0, eb)):
        got = bounds.Scalar(a, ka) / bounds.Scalar(b, kb)
        assert not isinstance(got, bounds.Scalar) and np.shape(got.bound) == a.shape
        own = bounds.Bounded(a, np.full(4000, ka)) / bounds.Bounded(b, np.full(4000, kb))
        np.testing.assert_array_equal(got.value, a / b)
        np.testing.assert_array_equal(got.bound, own.bound)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(bounds, "_SPREAD", np.inf)  # one bound a statement
            scalar = bounds.Scalar(a, ka) / bounds.Scalar(b, kb)
        assert isinstance(scalar, bounds.Scalar)
        assert scalar.bound >= got.bound.max() and np.median(got.bound) < 1e-2 * scalar.bound
    like = rng.uniform(1.0, 2.0, 4000)
    assert isinstance(bounds.Scalar(a, ea) / bounds.Scalar(like, eb), bounds.Scalar)
    assert isinstance(bounds.Scalar(a, ea) / 3.0, bounds.Scalar)
    assert isinstance(bounds.Scalar(a, 0.0) / bounds.Scalar(b, 0.0), bounds.Scalar)  # exact


def _cumsum_profile(xp, n: int):
    """benchmarks/real_programs7.py's ``cumsum_profile`` in ``xp`` (NumPy, jax.numpy)."""
    t = np.linspace(0, 1, n)

    def f(x):
        c = xp.cumsum(xp.exp(x))
        p = c / c[-1]
        curv = xp.diff(p, n=2)
        return xp.sum((p - t) ** 2) + xp.sum(curv**2) - 1e-3 * xp.sum(xp.log(xp.diff(c)))

    return f


def test_cumsum_profile_is_decided_at_one_point_as_per_entry(tiers, monkeypatch):
    """real_programs7's cumsum_profile at n = 1,000 (a dense 10⁶-entry Hessian, none
    cancelling): with one bound a statement everywhere (``_SPREAD`` infinite) the first
    point leaves 1,184 entries undecided (their statements' bounds 10⁴–10⁶ × their own:
    a product by an exp-cumsum of spread magnitudes, then scatter-adds and a cumulative
    sum of its entries), decided by the whole point's per-entry bounds; with that
    product's bound per entry the first tier decides them all, as the per-entry bounds
    do at every point (the hook), and the Hessian is jax.hessian's. (One bound a
    statement: benchmarks/cancel_tiers.py's ``--scalar-only``, "whole 1".)"""
    n = 1000
    x = np.random.default_rng(5).normal(size=n) * 0.3
    compared = []
    decided = cancel._decided

    def against_own(w_, parts, found, bound, asked, entries, whole, may_defer=False):
        got = decided(w_, parts, found, bound, asked, entries, whole, may_defer)
        own = cancel._near_zero(*whole(), asked.size) & asked
        near = got[0] & asked
        assert (near | ~own).all()
        if got[1] is None:
            assert (near == own).all()
        compared.append(int(near.sum()))
        return got

    monkeypatch.setattr(cancel, "_decided", against_own)
    # read as written: its diff(c) is a window sum (jaxpr_prefix_sums), read as one a
    # gather of exp(x) with no such product
    monkeypatch.setattr(jaxpr_prefix_sums, "MOST_MEAN", 0)
    H = dgraph.hessian(_cumsum_profile(np, n), x, sparse=True)(x)
    assert compared == [0]  # one point: no entry near 0 (as per entry)
    found = tiers()
    # one point's tiers decide it, never the entries' own bounds: the first tier on main,
    # the whole point's since session 62 (a split product of cumsum's triangle keeps the
    # entries its pairs meet, a gather of the split's values: the same CPU-s, 6.4 vs 6.5)
    assert found["scalar"] + found["whole"] == 1 and found["entries"] == 0
    with jax.enable_x64(True):
        ref = np.asarray(jref.hessian(_cumsum_profile(jnp, n))(jnp.asarray(x)))
    assert H.nnz == n * n == np.count_nonzero(ref)
    np.testing.assert_allclose(H.toarray(), ref, rtol=1e-8, atol=1e-12 * np.abs(ref).max())
