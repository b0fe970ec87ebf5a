"""Cancellations at the array level (issue 55 item 4): an entry of a sparse Jacobian or
Hessian whose summands vary with the input, yet add up to the zero polynomial over
value-numbered unknowns (``sin x_i`` computed twice is one unknown; ``x·y`` and ``y·x`` one
monomial), leaves the pattern, and the generated code no longer computes it
(``dgraph.codegen.tensor.cancel``, ``poly_values``, ``poly_arrays``). Sound: the pattern
is never smaller than ``jax.hessian``'s nonzeros at drawn points of drawn programs; exact
on the cases; nothing is decided by a value at a point."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.codegen.tensor import poly_arrays as pa  # noqa: E402
from dgraph.frontends import from_jax  # noqa: E402
from tests import jax_reference as jref  # noqa: E402

N = 6
X = np.random.default_rng(0).uniform(0.2, 1.0, N)
Y = np.random.default_rng(1).uniform(0.2, 1.0, N)


def nonzeros(f, args, v=None) -> tuple[np.ndarray, np.ndarray]:
    """The test oracle: where ``jax.hessian`` (of ``vᵀf``) is not 0 at ``args`` or at a
    drawn point, beyond its rounding (the residue of ``a·b − b·a`` computed otherwise);
    and its value at ``args`` (the blocks of several inputs as one matrix)."""
    found, at_args = None, None
    with jax.enable_x64(True):
        g = f if v is None else (lambda *a: jnp.dot(v, f(*a)))
        n = len(args)
        drawn = [np.random.default_rng(10).uniform(-1.5, 1.5, np.shape(a)) for a in args]
        hessian = jref.hessian(g, argnums=tuple(range(n)))  # one compile, two points (stored)
        for point in (args, drawn):
            h = hessian(*map(jnp.asarray, point))
            h = np.block([[np.asarray(h[i][j]) for j in range(n)] for i in range(n)])
            at_args = h if at_args is None else at_args
            nz = np.abs(h) > 1e-9 * (1.0 + np.abs(h).max())
            found = nz if found is None else found | nz
    return found, at_args


def pattern(h) -> np.ndarray:
    """The stored entries of a sparse Hessian (one CSR, or the nested blocks of several
    inputs) as one boolean matrix."""
    if not isinstance(h, tuple):
        return _stored(h)
    return np.block([[_stored(b) for b in row] for row in h])


def _stored(b) -> np.ndarray:
    out = np.zeros(b.shape, dtype=bool)
    coo = b.tocoo()
    out[coo.row, coo.col] = True
    return out


s, c = jnp.sin, jnp.cos
CASES = [
    # the case: sin(a)·b − b·sin(a) is 0; only a² is left: the diagonal of a
    ("sin(a)b - b sin(a)", lambda a, b: jnp.sum(s(a) * b - b * s(a)) + jnp.sum(a**2), 2, N, 3 * N),
    # (a + b)² − a² − 2ab − b² is 0, each square a polynomial; tanh(x·y) − tanh(y·x) too
    (
        "square expanded",
        lambda a, b: (
            jnp.sum((a + b) ** 2 - a**2 - 2 * a * b - b**2 + jnp.tanh(a * b))
            - jnp.sum(jnp.tanh(b * a))
            + jnp.sum(b**3)
        ),
        2,
        N,
        4 * N,
    ),
    # the same subexpression written twice, neighbours coupled: exp(x_i+1)·sin(x_i) − …
    (
        "written twice",
        lambda x: (
            jnp.sum(jnp.exp(x[1:]) * s(x[:-1]))
            - jnp.sum(s(x[:-1]) * jnp.exp(x[1:]))
            + jnp.sum(c(x))
        ),
        1,
        N,
        3 * N - 2,
    ),
]


@pytest.mark.parametrize(("name", "f", "inputs", "nnz", "before"), CASES)
def test_varying_cancellations_leave_the_hessian_pattern(name, f, inputs, nnz, before):
    """``before``: what the pattern held when only constant summands were seen to cancel."""
    args = [X, Y][:inputs]
    H = dgraph.hessian(f, *args, sparse=True)
    got = pattern(H(*args))
    truth, ref = nonzeros(f, args)
    assert got.sum() == nnz == truth.sum() < before, name
    assert not (truth & ~got).any()
    h = H(*args)
    dense = np.block([[b.toarray() for b in row] for row in h]) if inputs > 1 else h.toarray()
    np.testing.assert_allclose(dense, ref, rtol=1e-12, atol=1e-12)


def test_a_lagrangian_whose_terms_cancel():
    """Constraints x_i·x_i+1 − x_i+1·x_i + x_i² and sin(x_i+1)·x_i − x_i·sin(x_i+1): the
    Lagrangian's Hessian is the diagonal of the first constraints' squares, weights per
    call."""

    def constraints(x):
        first = x[:-1] * x[1:] - x[1:] * x[:-1] + x[:-1] ** 2
        return jnp.concatenate([first, s(x[1:]) * x[:-1] - x[:-1] * s(x[1:])])

    v = np.random.default_rng(2).uniform(0.5, 1.5, 2 * (N - 1))
    H = dgraph.make_function(constraints, "hessian", point=[X], weights=v, sparse=True)
    truth, ref = nonzeros(constraints, [X], v)
    assert H(X, v).nnz == N - 1 == truth.sum()  # was 3N − 2
    np.testing.assert_allclose(H(X, -v).toarray(), -ref, rtol=1e-12, atol=1e-12)


def test_the_jacobian_goes_through_the_same_pass():
    """sin(x)·y − y·sin(x) as one output: its blocks are empty (were both diagonals)."""

    def f(x, y):
        return s(x) * y - y * s(x), x * y

    J = dgraph.make_function(from_jax(f, X, Y, level="array"), "jacobian", sparse=True)
    blocks = J(X, Y)
    assert [[b.nnz for b in row] for row in blocks] == [[0, 0], [N, N]]
    np.testing.assert_allclose(blocks[1][0].toarray(), np.diag(Y))


@pytest.mark.parametrize("lang", ["python", "jax"])
def test_entries_still_asked_after_the_narrowed_points_are_decided_on_the_whole_program(
    monkeypatch, lang
):
    """A symmetric NumPy Hessian's entries are asked at the narrowed program's points
    (``cancel.none_cancel``); p_i+1·p_i·p_i+1 − p_i+1·p_i+1·p_i (p = pad(x)) is 0 at
    every point, so its entries stay asked there, and the module is made again with the
    pass on the whole program, which proves them 0: the diagonal of cos² is left (3n − 2
    entries before)."""
    from dgraph.codegen.tensor import module

    n = 300
    x = np.random.default_rng(3).uniform(0.2, 1.0, n)

    def f(x):
        p = jnp.pad(x, 1)
        return jnp.sum(p[1:] * p[:-1] * p[1:] - p[1:] * p[1:] * p[:-1]) + jnp.sum(c(p) ** 2)

    seen: list = []
    decided, dropped = getattr(module, "none_cancel", None), module.drop_cancelled

    def watched_decided(*args, **kwargs):
        seen.append(decided(*args, **kwargs))
        return seen[-1]

    def watched_dropped(w, valued, *args, **kwargs):
        found = dropped(w, valued, *args, **kwargs)
        seen.append((valued[0].nnz, found[0].nnz))
        return found

    monkeypatch.setattr(module, "none_cancel", watched_decided, False)  # (none before)
    monkeypatch.setattr(module, "drop_cancelled", watched_dropped)
    H = dgraph.make_function(f, "hessian", lang, point=[x], sparse=True)
    assert seen == [False, (3 * n - 2, n)]
    truth, ref = nonzeros(f, [x])
    with jax.enable_x64(True):  # (JAX: a BCOO in doubles)
        h = H(x)
        nnz = h.nnz if lang == "python" else h.nse
        got = h.toarray() if lang == "python" else np.asarray(h.todense())
    assert nnz == n == truth.sum()
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


def test_what_no_polynomial_identity_shows_stays():
    """x_i·x_i+1·(sin² x_i + cos² x_i) − x_i·x_i+1 is 0, but only through sin² + cos² = 1:
    the polynomials cancel on the diagonal (sin' = cos, cos' = −sin), not off it, which
    stays (sound, not exact)."""

    def f(x):
        return jnp.sum(x[:-1] * x[1:] * (s(x[:-1]) ** 2 + c(x[:-1]) ** 2)) - jnp.sum(x[:-1] * x[1:])

    h = dgraph.hessian(f, X, sparse=True)(X)
    assert h.nnz == 2 * (N - 1)  # the off-diagonal pairs; the diagonal dropped
    near = np.abs(np.subtract.outer(np.arange(N), np.arange(N))) == 1
    np.testing.assert_array_equal(pattern(h), near)  # stored (its values round near 0)


# -- drawn programs: never smaller than the true nonzeros ------------------------------

LEAVES = (lambda x: x[:-1], lambda x: x[1:], lambda x: 0.5 * x[:-1])
UNARY = (jnp.sin, jnp.exp, lambda u: u * u, lambda u: -u)
BINARY = (jnp.add, jnp.subtract, jnp.multiply, lambda a, b: a / (2.0 + b * b))


def _trees(depth: int):
    leaf = st.tuples(st.just("leaf"), st.integers(0, len(LEAVES) - 1))
    if depth == 0:
        return leaf
    inner = _trees(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(st.just("un"), st.integers(0, len(UNARY) - 1), inner),
        st.tuples(st.just("bin"), st.integers(0, len(BINARY) - 1), inner, inner),
    )


def _value(tree, x):
    if tree[0] == "leaf":
        return LEAVES[tree[1]](x)
    if tree[0] == "un":
        return UNARY[tree[1]](_value(tree[2], x))
    return BINARY[tree[1]](_value(tree[2], x), _value(tree[3], x))


def _commuted(tree):
    """The same values written otherwise: the operands of sums and products swapped."""
    if tree[0] == "leaf":
        return tree
    if tree[0] == "un":
        return ("un", tree[1], _commuted(tree[2]))
    a, b = _commuted(tree[2]), _commuted(tree[3])
    return ("bin", tree[1], *((b, a) if tree[1] in (0, 2) else (a, b)))


@settings(max_examples=5, deadline=None)
@given(_trees(3), _trees(2), st.booleans(), st.sampled_from([1.0, 0.5, 0.1]))
def test_drawn_programs_patterns_are_never_smaller_than_the_nonzeros(e1, e2, same, k):
    """f = k·Σ e1 − k·Σ e1' + Σ e2, e1' e1 commuted (cancelling) or e2 (not)."""
    other = _commuted(e1) if same else e2

    def f(x):
        return k * jnp.sum(_value(e1, x)) - k * jnp.sum(_value(other, x)) + jnp.sum(_value(e2, x))

    H = dgraph.hessian(f, X, sparse=True)
    truth, ref = nonzeros(f, [X])
    got = pattern(H(X))
    assert not (truth & ~got).any()
    np.testing.assert_allclose(H(X).toarray(), ref, rtol=1e-10, atol=1e-10)


# -- the polynomial arrays themselves -----------------------------------------------


def test_value_numbering_of_elementwise_functions_of_moved_entries():
    """sin(x)[1:] and sin(x[1:]) are one array of unknowns; sin(2x) is not sin(x)."""
    from dgraph.codegen.ir import ArrayStatement, Call, Index, Name, Slice
    from dgraph.codegen.shapes import Shaped
    from dgraph.codegen.tensor.poly_values import PolyValues

    x = Name("x")
    statements = [
        ArrayStatement("a", Call("sin", (x,))),
        ArrayStatement("b", Index(Name("a"), (Slice(1, None),))),
        ArrayStatement("c", Call("sin", (Index(x, (Slice(1, None),)),))),
        ArrayStatement("d", Call("sin", (Call("multiply", (Name("two"), x)),))),
    ]
    values = PolyValues(
        statements,
        {"two": np.array(2.0)},
        {"x": Shaped((4,), np.dtype(float)), "two": Shaped.of(np.array(2.0))},
        {"x", "a", "b", "c", "d"},
    )
    b, c, d, a = values.of([Name("b"), Name("c"), Name("d"), Name("a")])
    assert pa.add(b, pa.negate(c)).zero().all()
    assert not pa.add(pa.gather(d, np.arange(1, 4), (3,)), pa.negate(c)).zero().any()
    assert not pa.add(a, pa.negate(d)).zero().any()


def test_coefficients_are_exact_or_the_entry_is_not_claimed():
    """Coefficients are added as the exact rationals they are: 0.1 + 0.2 − 0.3000…04 is
    −2⁻⁵⁵ (no zero); 0.1 − 0.1 + 0.1 − 0.1 is 0; 1 + 10⁻³⁰ − 1 rounds to 0 but is not
    claimed zero (its integers would not fit: the entry is tainted); 1/3 · 3, no double,
    is an unknown of its own that −3 · 1/3 cancels."""
    x = pa.atom_array(1, (4,))
    columns = np.array(
        [[0.1, 0.1, 1.0, 0.5], [0.2, -0.1, 1e-30, 0.25], [-(0.1 + 0.2), 0.1, -1.0, 0.25]]
    )
    terms = [pa.multiply(x, pa.constant(k)) for k in columns]
    total = pa.add(*terms, pa.negate(pa.multiply(x, pa.constant(np.array([0.0, 0.1, 0.0, 1.0])))))
    assert total.zero().tolist() == [False, True, False, True]
    assert total.taint.tolist() == [False, False, True, False]
    assert total.coef.tolist() == [-(2.0**-55)]
    square = pa.multiply(pa.add(x, x), x)  # 2x² − 2x²: exactly zero
    assert pa.add(square, pa.negate(pa.multiply(x, pa.add(x, x)))).zero().all()
    third = pa.multiply(pa.constant(np.array(1 / 3)), pa.constant(np.array(3.0)))
    assert (third.fac >> pa.SHIFT).tolist() == [[pa.NUMBER_ATOM]]  # 1 − 2⁻⁵⁴: an unknown
    assert not pa.add(third, pa.constant(np.array(-1.0))).zero().any()
    minus = pa.multiply(pa.constant(np.array(-3.0)), pa.constant(np.array(1 / 3)))
    assert pa.add(third, minus).zero().all()


def test_a_point_s_bounds_are_each_entry_s_own_computation_s_magnitudes():
    """The rounding bound at a drawn point (what ``near`` compares sums against) is each
    entry's own running error bound (units of the roundoff): an operation adds its own
    result's magnitude to its operands' errors carried through; a gather, a scatter and
    a reshape move the bounds with the values (0 where the scatter writes nothing); the
    inputs and constants are exact. ``(x + 1) − x`` is bounded by |x + 1| + |result|,
    not by its result alone. On main the bound was one number, the largest value
    anywhere (1e3·max|x| for every entry)."""
    from types import SimpleNamespace

    from dgraph.codegen import ir
    from dgraph.codegen.tensor import cancel

    n = 5
    k = np.array([4, 0, 2, 2], dtype=np.int32)
    place = np.array([1, 3, 5, 7], dtype=np.int32)
    big = ir.BinOp("*", ir.Name("x_"), ir.Const(-1e3))
    shifted = ir.BinOp("-", ir.BinOp("+", ir.Name("x_"), ir.Const(1.0)), ir.Name("x_"))
    statements = [
        ir.ArrayStatement(
            "x_", ir.Call("reshape", (ir.Call("asarray", (ir.Name("x"),)), ir.Const((n,))))
        ),
        ir.ArrayStatement("a", big),  # the largest values: entries of a
        ir.ArrayStatement("g", ir.Index(ir.Call("ravel", (ir.Name("a"),)), (ir.Name("K"),))),
        ir.ArrayStatement("s", ir.Scatter(9, ir.Name("P"), ir.Call("ravel", (ir.Name("g"),)))),
        ir.ArrayStatement("r", ir.Call("reshape", (ir.Name("s"), ir.Const((3, 3))))),
        ir.ArrayStatement("t", ir.BinOp("*", ir.Name("g"), ir.Const(1e-3))),
        ir.ArrayStatement("u", shifted),
    ]
    w = SimpleNamespace(
        statements=statements,
        constants=SimpleNamespace(arrays={"K": k, "P": place}),
        varying={"x", "x_", "a", "g", "s", "r", "t", "u"},
    )
    nodes = [ir.Name("r"), ir.Name("t"), ir.Name("u")]
    _, _, found, bounds = cancel._at_a_point(w, nodes, 7)
    x = np.random.default_rng(7).uniform(0.25, 0.75, n)
    a = -1e3 * x
    s = np.zeros(9)
    s[place] = a[k]
    np.testing.assert_array_equal(found[0], s.reshape(3, 3))
    np.testing.assert_array_equal(found[1], a[k] * 1e-3)
    np.testing.assert_array_equal(found[2], (x + 1.0) - x)
    np.testing.assert_array_equal(bounds[0], np.abs(s).reshape(3, 3))
    np.testing.assert_allclose(bounds[1], 2e-3 * np.abs(a[k]), rtol=1e-15)
    np.testing.assert_allclose(bounds[2], np.abs(found[2]) + x + 1.0, rtol=1e-15)


def test_entries_tiny_at_positive_points_are_kept_at_a_point_of_mixed_signs(monkeypatch):
    """A logistic loss over an MLP whose inputs are all in [0.25, 0.75] sums like-signed
    terms (z ≈ 70): sigmoid'(z) ≈ 1e-30 scales every entry between hidden units, below
    the rounding bound at such a point, though none is 0. The second point's inputs have
    either sign, so those entries are kept there: two points, each over the whole program
    (most entries asked: no per-entry lookups; the first with one bound a statement, its
    undecided entries left to the second, evaluated with each entry's own), no polynomials
    (main: three points, two tries at the asked entries alone), and the Hessian is dense
    and jax.hessian's."""
    from dgraph.codegen.tensor import cancel, poly_values

    h, rng = 40, np.random.default_rng(5)
    X, y = rng.uniform(2, 3, (20, 3)), np.sign(rng.uniform(-1, 1, 20))

    def loss(w):
        a = X @ w[: 3 * h].reshape(3, h)
        z = (jax.nn.silu(a) + 0.5 * jax.nn.softplus(-a)) @ w[3 * h :]
        return jnp.mean(jnp.logaddexp(0.0, -y * z)) + 1e-3 * jnp.sum(w**2)

    counted = {"points": 0, "at entries": 0, "polynomials": 0}

    def counting(name, key):
        original = getattr(cancel, name)

        def watched(*args, **kwargs):
            counted[key] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(cancel, name, watched)

    counting("_at_a_point", "points")
    counting("_near_at_entries", "at entries")
    of = poly_values.PolyValues.of

    def polynomials(self, nodes):
        counted["polynomials"] += 1
        return of(self, nodes)

    monkeypatch.setattr(poly_values.PolyValues, "of", polynomials)
    x = rng.uniform(0.25, 0.75, 4 * h)
    H = dgraph.hessian(loss, x, sparse=True)(x)
    assert counted == {"points": 2, "at entries": 0, "polynomials": 0}
    with jax.enable_x64(True):
        ref = np.asarray(jref.hessian(loss)(jnp.asarray(x)))
    assert H.nnz == (4 * h) ** 2 == np.count_nonzero(ref)
    np.testing.assert_allclose(H.toarray(), ref, rtol=1e-12, atol=1e-15)


def _watched_polynomials(monkeypatch) -> list:
    """Every node whose polynomial value the pass forms (kept alive: compared by identity)."""
    from dgraph.codegen.tensor import poly_values

    made: list = []
    node = poly_values.PolyValues.node

    def watched(self, n):
        made.append(n)
        return node(self, n)

    monkeypatch.setattr(poly_values.PolyValues, "node", watched)
    return made


def test_entries_zero_at_every_drawn_point_are_kept_at_the_users_point(monkeypatch):
    """A Jacobian computed only where x > 2 is 0 at every drawn point (inputs within ±0.75)
    and not at the user's (x from 2.5 to 7): the user's point keeps its entries, so no
    polynomial is formed (main: each one's polynomials, proving nothing), and the sparse
    Jacobian is jax.jacobian's, every entry kept."""
    made = _watched_polynomials(monkeypatch)

    def f(x):
        return jnp.where(x > 2.0, jnp.sin(x) * x[::-1], 0.0)

    x = np.array([[3.0, 4.0, 5.0], [2.5, 6.0, 7.0]])
    J = dgraph.make_function(from_jax(f, x, level="array"), "jacobian", sparse=True)(x)
    with jax.enable_x64(True):
        ref = np.asarray(jref.jacobian(f)(jnp.asarray(x))).reshape(6, 6)
    assert made == []
    assert J.nnz == np.count_nonzero(ref) == 12
    np.testing.assert_allclose(J.toarray(), ref, rtol=1e-14)


def test_the_blocks_of_one_program_form_each_statement_s_polynomials_once(monkeypatch):
    """∂/∂x, ∂/∂y and ∂/∂z of a loop's result kept where x > 5 are 0 at every point, the
    user's too, so each block's entries are asked of their polynomials: the loop's
    statements are evaluated once a point (three drawn and the user's) and formed once
    for the three blocks (main: once per block, 9 evaluations), and the blocks are
    jax.jacobian's."""
    from dgraph.codegen.tensor import cancel

    made = _watched_polynomials(monkeypatch)
    evaluated: list = []
    run_bounded = cancel.run_bounded

    def watched(ev, plainly, statement, env):
        evaluated.append(statement)
        return run_bounded(ev, plainly, statement, env)

    monkeypatch.setattr(cancel, "run_bounded", watched)

    def f(x, y, z):
        s = x
        for _ in range(6):
            s = s * y + jnp.sin(z) * s
        return jnp.where(x > 5.0, s, 0.0)

    args = [np.full((2, 2), 0.5), np.full((2, 2), 0.3), np.full((2, 2), 0.7)]
    J = dgraph.make_function(from_jax(f, *args, level="array"), "jacobian", sparse=True)
    blocks = J(*args)
    counts = {}
    for n in made:
        counts[id(n)] = counts.get(id(n), 0) + 1
    assert len(made) > 20 and max(counts.values()) == 1
    runs: dict = {}
    for statement in evaluated:
        runs[id(statement)] = runs.get(id(statement), 0) + 1
    assert max(runs.values()) == 4
    with jax.enable_x64(True):
        ref = jref.jacobian(f, argnums=(0, 1, 2))(*map(jnp.asarray, args))
    for block, r in zip(blocks, ref, strict=True):
        np.testing.assert_array_equal(block.toarray(), np.reshape(r, (4, 4)))
