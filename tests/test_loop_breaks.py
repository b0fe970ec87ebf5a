"""Breaks the value check did not see before session 66 (``dgraph.core.breaks``): a relu,
``where`` or ``max`` tie inside a ``scan``/``fori_loop``/``while_loop`` body or a ``cond``
branch at the trip where it ties, a ``while_loop`` whose condition ties (its trip count
jumps), ``floor``/``round``/``fmod`` at a jump, ``sort``/``top_k``/``median``/
``argmax``-gather at tied entries. There the function has no derivative, JAX's value is
its rule's convention, and the result was "verified"; now it is "not verified" with the
break named, the values unchanged (JAX's, written out below). And NumPy functions
differenced (no JAX): ``|x|³`` and ``x⁴`` at 0 are smooth (were a false "slope jumps"),
while ``|x|`` at 0 at the array level is not verified (was verified at the random points
alone, the user's point passed over)."""

from __future__ import annotations

import re

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax

import dgraph  # noqa: E402
from dgraph import from_function, from_jax  # noqa: E402
from dgraph.methods import accumulate  # noqa: E402


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


def _scan_relu(x):
    c, ys = lax.scan(lambda c, xt: (c + jax.nn.relu(xt) * 2.0, c), 0.0, x)
    return c + jnp.sum(ys)


def _fori_where(x):
    return jnp.sum(lax.fori_loop(0, 2, lambda i, c: jnp.where(c > 0, c, -c) + 1.0, x))


def _while_relu(x):
    body = lambda s: (s[0] + 1, s[1] + jax.nn.relu(x[0]) + 0.1 * x[1])  # noqa: E731
    return lax.while_loop(lambda s: s[0] < 3, body, (0, 0.0))[1]


def _while_trips(x):  # while c < x₀: at x₀ = 2 the loop stops exactly at c = 2
    body = lambda c: (c[0] + 1.0, c[1] * x[1])  # noqa: E731
    return lax.while_loop(lambda c: c[0] < x[0], body, (0.0, 1.0))[1]


def _cond_relu(x):
    return jnp.sum(lax.cond(x[1] > 0, lambda x: jax.nn.relu(x) * 2.0, lambda x: -x, x))


W3 = np.arange(1.0, 4.0)
SORT = r"sort \(\w+\)"
BODY = r"gt \(\w+\) in the body of the"
KINKED = {  # function, point at its break, the reason's words, JAX's Jacobian there
    "scan": (_scan_relu, [0.3, 0.0, -0.2], BODY + r" scan of \w+ at trip 1", [6, 0, 0]),
    "fori": (_fori_where, [0.0, 0.5], BODY + r" scan of \w+ at trip 0", [-1, 1]),
    "while": (_while_relu, [0.0, 0.5], BODY + r" while of \w+ at trip 0", [0, 0.3]),
    "trips": (
        _while_trips,
        [2.0, 1.5],
        r"lt \(the condition\) of the while_loop of \w+ before trip 2",
        [0, 3],
    ),
    "cond": (_cond_relu, [0.0, 0.5], r"gt \(\w+\) in branch 1 of \w+", [0, 2]),
    "floor": (lambda x: jnp.sum(jnp.floor(x) * x), [1.0, 0.5], r"floor \(\w+\)", [1, 0]),
    "round": (lambda x: jnp.sum(jnp.round(x) + x), [0.5, 0.2], r"round \(\w+\)", [1, 1]),
    "fmod": (lambda x: jnp.sum(jnp.fmod(x, 0.5)), [1.0, 0.2], r"rem \(\w+\)", [1, 1]),
    "sort": (lambda x: jnp.sort(x) @ W3, [0.5, 0.5, 0.1], SORT, [2, 3, 1]),
    "top_k": (lambda x: lax.top_k(x, 2)[0] @ W3[::2], [0.5, 0.5, 0.1], SORT, [1, 3, 0]),
    "argmax": (lambda x: (x * W3)[jnp.argmax(x)], [0.5, 0.5, 0.1], r"argmax \(\w+\)", [1, 0, 0]),
    "median": (lambda x: jnp.median(x * W3[[0, 1, 0]]), [0.5, 0.25, 0.1], SORT, [1, 0, 0]),
}


@pytest.mark.parametrize("name", sorted(KINKED))
def test_a_break_in_a_loop_a_jump_or_a_sorted_tie_is_not_verified(name):
    f, x, words, want = KINKED[name]
    x = np.array(x)
    es = accumulate(from_jax(f, x, level="array"), "forward")
    detail = str(es.verification.detail)
    assert es.verification.status == "not verified", detail
    assert "one-sided differences do not converge" in detail, detail
    assert re.search(rf"not confirmed: its {words} is at its break there", detail), detail
    np.testing.assert_allclose(np.ravel(es.evaluate(x)), want, atol=1e-15)


def test_smooth_through_a_break_in_a_loop_is_verified():
    """relu³ of a scan's slice at 0 (the break is found at trip 0 and confirmed), and
    ``x[i]`` in a ``fori_loop`` (its counter's ``i < 0`` at ``i = 0``: integers, no
    break) are verified, with JAX's values."""
    relu3 = lambda x: lax.scan(lambda c, t: (c + jax.nn.relu(t) ** 3 + t, None), 0.0, x)[0]  # noqa: E731
    es = accumulate(from_jax(relu3, np.array([0.0, 0.5]), level="array"), "forward")
    assert es.verified, es.verification.detail
    np.testing.assert_allclose(np.ravel(es.evaluate(np.array([0.0, 0.5]))), [1, 1.75])
    x = np.array([0.3, 0.0, -0.2])
    f = lambda x: lax.fori_loop(0, 3, lambda i, c: c * jnp.sin(x[i]) + x[i], 1.0)  # noqa: E731
    g = from_jax(f, x, level="array")
    es = accumulate(g, "forward")
    assert es.verified, es.verification.detail
    c1 = np.sin(0.3) + 0.3
    want = [
        np.sin(0.0) * np.sin(-0.2) * (np.cos(0.3) + 1),
        np.sin(-0.2) * (c1 * np.cos(0.0) + 1),
        c1 * np.sin(0.0) * np.cos(-0.2) + 1,
    ]
    np.testing.assert_allclose(np.ravel(es.evaluate(x)), want, rtol=1e-14)


def test_numpy_smooth_powers_at_zero_are_verified_and_a_kink_is_not():
    """Central differences of NumPy functions: ``|x|³`` and ``x⁴`` at 0 have a
    derivative (0), whose kink test's jump shrinks with the step; ``|x|`` at 0 has none,
    and at the array level the user's point passed over is no pass."""
    zero = np.zeros(2)
    for f in (lambda x: np.sum(np.abs(x) ** 3), lambda x: np.sum(x**4)):
        made = dgraph.make_function(f, point=[zero])
        assert made.generated.verified is True, made.generated.check.detail
        np.testing.assert_array_equal(made(zero), [0.0, 0.0])
    x = np.array([0.0, 0.5])
    es = accumulate(from_function(lambda x: np.sum(np.abs(x) + x), point=[x], level="array"))
    assert es.verification.status == "not verified", es.verification.detail
    assert "central differences find the slope jumps" in es.verification.detail
    np.testing.assert_allclose(np.ravel(es.evaluate(x)), [1.0, 2.0])
