"""Ties of max-like operations (issue 54 item 3): the derivative shared as JAX shares it.

JAX gives each of k tied entries of ``reduce_max``/``reduce_min`` and of a
``scatter_max``/``scatter_min`` position (the operand's entry and the updates aimed at
it) 1/k, and each side of a binary ``max``/``min`` 1/2 (so a nested ``maximum(maximum(a,
b), c)`` gives 1/4, 1/4, 1/2). The element level and the array level match
``jax.jacfwd`` and ``jax.jacrev`` at ties of 2, 3 and 4, 0-d, 1-d and n-d; the element
level's partials are checked by its generated code and its verification at the point.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from dgraph.methods import accumulate

jax = pytest.importorskip("jax", reason="JAX is not installed")
jnp = jax.numpy

from dgraph.frontends.jaxpr import from_jax  # noqa: E402


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


_I = jnp.array([0, 0, 0, 1, 1, 2, 2, 2, 2])  # positions 0, 1, 2 get 3, 2, 4 updates


def _scatter(m):
    return lambda x, u: getattr(x.at[_I], m)(u)


# tied values: v is the extreme (the largest for max, the smallest for min, by sign)
_ROWS = np.array([[1.0, 1.0, 0.5, 1.0], [0.2, 1.0, 1.0, 0.3], [1.0, 1.0, 1.0, 1.0]])
CASES = {
    # 0-d: three scalars stacked, all equal (a tie of 3) and a tie of 2 below them
    "reduce-0-d": (lambda f: lambda a, b, c: f(jnp.stack([a, b, c])), (1.0, 1.0, 1.0)),
    "reduce-0-d-two": (lambda f: lambda a, b, c: f(jnp.stack([a, b, c])), (1.0, 0.4, 1.0)),
    # 1-d: ties of 3 and of 4 (every entry)
    "reduce-1-d-three": (lambda f: lambda x: f(x), (np.array([0.7, 1.0, 1.0, 1.0]),)),
    "reduce-1-d-four": (lambda f: lambda x: f(x), (np.ones(4),)),
    # n-d: rows with ties of 3, 2 and 4, along axis 1; and along axis 0 of the transpose
    "reduce-n-d-rows": (lambda f: lambda x: f(x, axis=1), (_ROWS,)),
    "reduce-n-d-columns": (lambda f: lambda x: f(x, axis=0), (_ROWS.T.copy(),)),
    "reduce-n-d-all": (lambda f: lambda x: f(x), (np.ones((2, 2)),)),
}
SCATTERS = {
    # the operand's entry in the tie (3 + 1, 2 + 1, 4 + 1 values) or below it (3, 2, 4)
    "scatter-1-d-with-operand": (np.ones(3), np.ones(9)),
    "scatter-1-d-updates-only": (np.full(3, 0.5), np.ones(9)),
    "scatter-1-d-mixed": (np.array([1.0, 0.5, 1.0]), np.array([1, 0.7, 1, 1, 1, 0.2, 1, 1, 0.9])),
}


def _sign(name: str) -> float:
    return 1.0 if "max" in name else -1.0


def _jax_jacobians(f, args) -> list[np.ndarray]:
    """jax.jacfwd's and jax.jacrev's Jacobians, inputs side by side (both in one jitted
    program: one compilation, not one per eager operation)."""
    argnums = tuple(range(len(args)))
    both = jax.jit(lambda *a: [jac(f, argnums=argnums)(*a) for jac in (jax.jacfwd, jax.jacrev)])
    out = []
    for parts in both(*map(jnp.asarray, args)):
        out.append(
            np.hstack(
                [np.asarray(p).reshape(-1, np.size(a)) for p, a in zip(parts, args, strict=True)]
            )
        )
    return out


def _dgraph_jacobian(graph, args) -> np.ndarray:
    point = np.concatenate([np.ravel(a) for a in args])
    es = accumulate(graph, "forward", verify=False)
    return np.asarray(es.evaluate(point), dtype=float).reshape(-1, point.size)


def _check(f, args) -> None:
    forward, reverse = _jax_jacobians(f, args)
    np.testing.assert_allclose(forward, reverse, atol=1e-15)  # JAX's own modes agree
    for level in ("element", "array"):
        got = _dgraph_jacobian(from_jax(f, *args, level=level), args)
        np.testing.assert_allclose(got, forward, rtol=1e-12, atol=1e-15, err_msg=level)


@pytest.mark.parametrize("name", ["reduce_max", "reduce_min"])
@pytest.mark.parametrize("what", sorted(CASES))
def test_reductions_share_among_k_ties_as_jax(name, what) -> None:
    make, args = CASES[what]
    f = make(jnp.max if name == "reduce_max" else jnp.min)
    args = tuple(_sign(name) * np.asarray(a, dtype=float) for a in args)
    _check(f, args)


@pytest.mark.parametrize("m", ["max", "min"])
@pytest.mark.parametrize("what", sorted(SCATTERS))
def test_scatters_share_among_k_ties_as_jax(m, what) -> None:
    x, u = (_sign(m) * a for a in SCATTERS[what])
    _check(_scatter(m), (x, u))


def test_the_share_is_one_over_k() -> None:
    """The numbers themselves: a row of four with ties of 3 gets 1/3 each, of 4 1/4."""
    rows = np.array([[1.0, 1.0, 1.0, 0.5], [1.0, 1.0, 1.0, 1.0]])
    got = _dgraph_jacobian(from_jax(lambda x: jnp.max(x, axis=1), rows), (rows,))
    np.testing.assert_allclose(got[0], [1 / 3, 1 / 3, 1 / 3, 0, 0, 0, 0, 0])
    np.testing.assert_allclose(got[1], [0, 0, 0, 0, 0.25, 0.25, 0.25, 0.25])


def test_a_nested_binary_max_keeps_jaxs_halves() -> None:
    """``maximum(maximum(a, b), c)`` at a tie of three: 1/4, 1/4, 1/2 (each binary max
    halves), not the n-ary 1/3."""
    f = lambda x: jnp.maximum(jnp.maximum(x[0], x[1]), x[2])  # noqa: E731
    _check(f, (np.array([1.0, 1.0, 1.0]),))
    got = _dgraph_jacobian(from_jax(f, np.ones(3)), (np.ones(3),))
    np.testing.assert_allclose(got[0], [0.25, 0.25, 0.5])


def test_a_constant_in_the_tie_takes_its_share() -> None:
    """A constant entry equal to the maximum counts among the ties (no tangent of its own),
    as in JAX: two inputs and a constant 1.0 tied get 1/3 each."""
    f = lambda x: jnp.max(jnp.concatenate([x, jnp.array([1.0])]))  # noqa: E731
    _check(f, (np.array([1.0, 1.0, 0.2]),))


def test_the_element_level_keeps_the_share_at_a_tie_not_verified() -> None:
    """At a tie of three the element level's J·v agrees with JAX's at the point, and its
    generated NumPy Jacobian prints the count: 1/3 each (the accumulation is verified
    against the graph's partials). The maximum has no derivative there (its one-sided
    slopes differ): the share is JAX's convention, so the code's check does not compare
    the point and the result is not verified (session 65)."""
    from dgraph.codegen.function import make_function

    x = np.array([1.0, 1.0, 1.0, 0.5])
    graph = from_jax(lambda x: jnp.max(x), x)
    assert accumulate(graph, "reverse").verified
    made = make_function(graph, lang="python")
    np.testing.assert_allclose(np.ravel(made(x)), [1 / 3, 1 / 3, 1 / 3, 0])
    assert made.generated.verified is False
    assert "its Max (y) is at its break" in made.generated.check.detail


def test_the_value_check_catches_the_half_share_at_a_tie_of_three(monkeypatch) -> None:
    """sympy's own step (1/2 to each of three tied arguments) is what the element level
    had: the generated code's check at the user's point, against JAX's J·v, finds it
    wrong there (and the shares above right)."""
    import sympy

    from dgraph.codegen.check import check_generated
    from dgraph.codegen.generate import generate
    from dgraph.core import extremes

    def step(kind, args, i):
        rest = kind(*(a for j, a in enumerate(args) if j != i), evaluate=False)
        return sympy.Heaviside(args[i] - rest if kind is sympy.Max else rest - args[i])

    x = np.array([1.0, 1.0, 1.0, 0.5])
    monkeypatch.setattr(extremes, "share", step)
    graph = from_jax(lambda x: jnp.max(x), x)
    check = check_generated(generate(graph, "python", "forward", check=False), graph)
    assert check.ran and not check.ok and "JAX's jvp" in check.detail
    assert "(1, 1, 1, 0.5)" in check.detail


def test_an_entry_repeated_in_the_tie_counts_once_per_entry() -> None:
    """JAX counts a tie per entry: ``max(concatenate([x, x[:1]]))`` at x0 = x1 gives x0
    2/3 and x1 1/3; a scatter whose updates repeat u1 gives u1 two shares of four. The
    element level makes a copy vertex of each repeat (a Max holds an argument once)."""
    _check(lambda x: jnp.max(jnp.concatenate([x, x[:1]])), (np.array([1.0, 1.0, 0.0]),))
    _check(lambda x: jnp.min(jnp.concatenate([x, x, x[1:]])), (np.array([1.0, 1.0]),))
    twice = jnp.array([1, 1, 0])
    f = lambda x, u: x.at[jnp.array([0, 0, 0])].max(u[twice])  # noqa: E731
    _check(f, (np.array([1.0, 0.0]), np.array([1.0, 1.0])))
    ones = (np.ones(2), np.ones(2))  # x0 = u0 = u1 (twice): four entries tied at position 0
    got = _dgraph_jacobian(from_jax(f, *ones), ones)
    np.testing.assert_allclose(got[0], [0.25, 0, 0.25, 0.5])


def test_code_generation_never_evaluates_a_max_again(monkeypatch):
    """cse rebuilds what it walks; a Max rebuilt evaluates its arguments pairwise (a
    ``factor_terms`` per pair: seconds for a softmax's six entries). Held, it is not."""
    import sympy

    from dgraph.codegen.generate import generate
    from dgraph.frontends import from_python

    calls = []
    original = sympy.Max._find_localzeros.__func__

    def counted(cls, values, **options):
        calls.append(len(values))
        return original(cls, values, **options)

    g = from_python(lambda x: jax.nn.softmax(x), sizes=[6], level=None)
    es = accumulate(g, "reverse")
    monkeypatch.setattr(sympy.Max, "_find_localzeros", classmethod(counted))
    text = generate(es, "python").text
    assert calls == [] and "max" in text


def test_held_and_released_remember_a_programs_statements():
    """The code generator's cse holds each statement's Max and releases it after, some 16
    times per program and candidate: :func:`held` and :func:`released` remember the
    statements of a program (here 39), not the last few (16 before element31: every
    second call below was computed again)."""
    import sympy

    from dgraph.core import extremes

    x = sympy.symbols("x0:40", real=True)
    exprs = [sympy.Max(x[k], x[k + 1], evaluate=False) * x[k] for k in range(39)]
    holding = [extremes.held(e) for e in exprs]
    back = [extremes.released(h) for h in holding]
    assert back == exprs and all(not h.has(sympy.Max) for h in holding)
    held_hits = extremes.held.cache_info().hits
    released_hits = extremes.released.cache_info().hits
    assert all(extremes.held(e) is h for e, h in zip(exprs, holding, strict=True))
    assert all(extremes.released(h) is b for h, b in zip(holding, back, strict=True))
    assert extremes.held.cache_info().hits - held_hits == 39
    assert extremes.released.cache_info().hits - released_hits == 39


def test_abs_at_zero_in_jax_is_passed_over_by_its_symmetric_derivative(monkeypatch) -> None:
    """JAX's ``|x|`` takes +1 at 0, the graph ``sign(0) = 0``: an L1 term at a weight
    exactly 0 was refused, the element level's code ("disagrees with JAX's jvp") and the
    array level's expression set ("did not verify"): the differences' kink excused
    nothing. The symmetric derivative ``(f(h) - f(-h)) / 2h`` resolves J·v to the
    graph's there and not to JAX's, so the graph's 0 is kept; the function has no
    derivative there (its one-sided differences are ±w, session 65): not verified. A
    rule giving 1/2 at 0 resolves to neither: the point is not compared (an |x| at an
    exact 0) and the result not verified."""
    import sympy

    from dgraph import from_jax, make_function
    from dgraph.blocks import arrays

    A = np.random.default_rng(0).normal(size=(3, 4))
    A[1, 2] = 0.0
    w = np.arange(12.0).reshape(3, 4)

    def f(A):
        return jnp.sum(jnp.abs(A) * w)

    for made, x in (
        (make_function(f, point=[A]), A.ravel()),
        (make_function(from_jax(f, A, level="array")), A),
    ):
        np.testing.assert_array_equal(np.reshape(made(x), A.shape), np.sign(A) * w)
        assert made.generated.verified is False
        assert re.search(r"its (Abs|abs) \(\w+\) is at its break", made.generated.check.detail)
    half = (np.abs, (2 * sympy.Heaviside(arrays.A, sympy.Rational(3, 4)) - 1,))
    monkeypatch.setitem(arrays.ELEMENTWISE, "abs", half)
    arrays._derivative_function.cache_clear()  # the rule's compiled partial, cached
    try:
        with pytest.warns(UserWarning, match="reads an entry exactly 0"):
            halved = make_function(from_jax(f, A, level="array"))
        assert halved.generated.verified is False
        assert np.reshape(halved(A), A.shape)[1, 2] == 0.5 * w[1, 2]
    finally:
        monkeypatch.undo()
        arrays._derivative_function.cache_clear()


def test_a_lone_abs_at_zero_is_passed_over_as_beside_other_terms() -> None:
    """``|x₀|`` alone at 0 (element level): |J|·|v| is zero everywhere, and the
    symmetric differences of the user's function were judged against that zero unit, so
    they never resolved and JAX's +1 was "the generated jacobian() disagrees with JAX's
    jvp" (refused); beside another term (``|x₀| + x₁²`` at (0, 1)) the same kink was
    passed over. Now alone too: the symmetric derivative 0; the function has no
    derivative there (its one-sided slopes are ±1, session 65): not verified."""
    from dgraph import make_function

    made = make_function(lambda x: jnp.abs(x[0]), point=[np.zeros(1)])
    np.testing.assert_array_equal(np.ravel(made(np.zeros(1))), [0.0])
    assert made.generated.verified is False
    assert "its Abs (y) is at its break" in made.generated.check.detail
