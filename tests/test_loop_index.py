"""Reads at the loop counter inside a scan or fori_loop body (``c[i]``, ``F[t]``,
``lax.dynamic_slice``, ``jnp.take``): per-step slices of a new ``xs``
(dgraph/frontends/jaxpr_steps.py), against jax.jacfwd on 0-d, 1-d and n-d arrays, read
from an input (a derivative reaches it) and from a constant; exact patterns; the
generated loops; reads and writes of the carry at the counter (per-step masks, exact
patterns); additions at the counter, reads at an outer loop's counter in an inner loop
and in a while_loop at any index its body computes; the refusals (a data-dependent
index, a moving window, another combiner at the counter, a read at an outer loop's
counter of what the inner loop carries)."""

from __future__ import annotations

import numpy as np
import pytest

from dgraph.codegen.c import compiler
from dgraph.codegen.python import load_python
from dgraph.codegen.tensor.c_values import c_values
from dgraph.codegen.tensor.module import tensor_program
from dgraph.core.block_values import dense_jacobian
from dgraph.errors import InputError

jax = pytest.importorskip(
    "jax", reason="JAX is not installed (pip install 'jacobian-accumulation[jax]')"
)
jnp = pytest.importorskip("jax.numpy")
lax = jax.lax
import dgraph  # noqa: E402
from dgraph.core.regions import regions_of  # noqa: E402
from dgraph.methods import accumulate  # noqa: E402
from tests import jax_reference as jref  # noqa: E402

COEFFICIENTS = np.array([1.0, -2.0, 3.0, 0.5])


def horner(x, c):
    """p(x) = ((c0·x + c1)·x + c2)·x + c3 by a fori_loop reading c[i]."""
    return lax.fori_loop(0, c.shape[0], lambda i, acc: acc * x + c[i], jnp.zeros_like(x))


def horner_constant(x):
    """The same with constant coefficients (read from a captured array)."""
    c = jnp.asarray(COEFFICIENTS)
    return lax.fori_loop(0, 4, lambda i, acc: acc * x + c[i], jnp.zeros_like(x))


def forced(u, F, d):
    """Explicit Euler on a ring with a forcing term F[t] read at each step (2-d F)."""

    def step(t, u):
        lap = jnp.roll(u, 1) - 2.0 * u + jnp.roll(u, -1)
        return u + 0.1 * (d * lap + F[t] - u**3)

    return lax.fori_loop(0, F.shape[0], step, u)


def window(x, w):
    """lax.dynamic_slice of a window at i - 1 (clamped at 0 by JAX) and take along axis
    1 of an n-d array, from 1 to 3 with a stride of 1 (fori_loop(1, 4))."""

    def step(i, y):
        part = lax.dynamic_slice(w, (i - 1, 0, 0), (2, 2, 3)).sum(axis=0)
        return y * jnp.take(w, i, axis=1)[0] + jnp.sin(part) * y[::-1]

    return lax.fori_loop(1, 4, step, x)


def own_counter(u, F):
    """A reverse scan carrying its own counter (start 1, stride 2) next to an xs."""

    def step(carry, s):
        k, v = carry
        return (k + 2, v * s + F[k]), v.sum()

    (_, v), ys = lax.scan(step, (1, u), jnp.linspace(0.5, 1.0, 3), reverse=True)
    return v, ys


def rowwise(x):
    """A row-by-row recurrence in the carry: row i from row i-1 and itself (a read and a
    write of the carry at the counter)."""

    def step(i, y):
        return y.at[i].set(jnp.sin(y[i - 1]) * y[i] + 1.0)

    return lax.fori_loop(1, x.shape[0], step, x)


def scaled_rows(x, v):
    """dynamic_update_slice of row i of the carry from row i of an input."""

    def step(i, y):
        return lax.dynamic_update_slice(y, v[i][None, :] * y[i][None, :], (i, 0))

    return lax.fori_loop(0, 3, step, x)


def _flat(blocks, outputs, n_args: int) -> np.ndarray:
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    rows = blocks if isinstance(outputs, tuple) else (blocks,)
    matrix = []
    for row, y in zip(rows, outs, strict=True):
        row = row if n_args > 1 else (row,)
        matrix.append(np.hstack([np.asarray(b).reshape(np.size(y), -1) for b in row]))
    return np.vstack(matrix)


def _check(f, args):
    """The graph, its verified forward Jacobian and jax.jacfwd's (x64)."""
    with jax.enable_x64(True):
        g = dgraph.from_jax(f, *args, level="array")
        es = accumulate(g, "forward")
        assert es.verified
        got = dense_jacobian(es, np.concatenate([np.ravel(a) for a in args]))
        jargs = [jnp.asarray(a) for a in args]
        jac = jref.jacfwd(f, argnums=tuple(range(len(args))))(*jargs)
        want = _flat(jac, jax.eval_shape(f, *jargs), len(args))
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)
    return g, es, want


@pytest.mark.parametrize("x", [np.array(0.7), np.array([0.3, -1.2, 2.0])], ids=["0d", "1d"])
def test_horner_reads_its_coefficients_at_the_counter(x):
    """c an input: the derivative reaches it through the new xs (c -> its per-step
    gather -> the loop); c a constant: folded into the xs, no vertex."""
    g, _, want = _check(horner, (x, COEFFICIENTS))
    assert sorted(v for v in g.nx if g.nx.in_degree(v) == 0) == ["c", "x"]
    assert [r.kind for _, r in regions_of(g)] == ["scan"]
    assert "gather_flat" in {g.op(v).primitive for v in g.nx if g.op(v) is not None}
    # ∂p/∂c_i = x^(3-i): the derivative reaches c
    powers = np.stack([np.ravel(x) ** (3 - i) for i in range(4)], axis=-1)
    np.testing.assert_allclose(want[:, -4:], powers, rtol=1e-14)
    g2, _, _ = _check(horner_constant, (x,))
    assert len(g2) == 2  # x and the loop: the constant's reads are a constant xs


def test_a_forcing_term_read_at_each_step_with_exact_patterns():
    """F[t] of a 2-d input: right against jax.jacfwd, and the block over F is exactly
    the chain's pattern — step t's row reaches the cells t' < T steps of the stencil
    spread it — no more (compared with the nonzeros of jacfwd at a generic point)."""
    rng = np.random.default_rng(3)
    u, F, d = rng.uniform(0.2, 0.8, 9), rng.uniform(-1, 1, (4, 9)), np.array(0.3)
    g, _, want = _check(forced, (u, F, d))
    (loop,) = [v for v, _ in regions_of(g)]
    gather = next(v for v in g.nx if v != loop and g.op(v) is not None)
    pattern = g.block(gather, loop)  # over the stacked reads: step t's row at row t
    assert pattern.type_name == "sparse"
    structure = np.zeros((9, 36), dtype=bool)
    structure[pattern.rows, pattern.cols] = True
    assert np.array_equal(structure, want[:, 9:45] != 0)
    # 4 steps of a 3-point stencil: F's last row reaches 1 cell, the first 7
    assert structure.reshape(9, 4, 9).sum(axis=(0, 2)).tolist() == [9 * 7, 9 * 5, 9 * 3, 9]
    longer = dgraph.from_jax(forced, u, np.resize(F, (40, 9)), d, level="array")
    assert (len(longer), longer.n_edges) == (len(g), g.n_edges)  # independent of T


def test_a_window_and_a_take_of_an_nd_array():
    """dynamic_slice of a (2, 2, 3) window at (i-1, 0, 0) and take along axis 1 of a
    (4, 4, 3) input, i from 1 to 3."""
    rng = np.random.default_rng(5)
    x, w = rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (4, 4, 3))
    _check(window, (x, w))


def test_a_reverse_scan_with_its_own_counter_and_ys():
    """A counter carried by the scan (1, 3, 5) in a reverse scan with xs and ys."""
    rng = np.random.default_rng(7)
    u, F = rng.uniform(-1, 1, 2), rng.uniform(-1, 1, (6, 2))
    _check(own_counter, (u, F))


def test_generated_loops_index_by_the_step():
    """NumPy: the new xs is indexed by the loop's step variable, as any xs (JAX's
    lax.scan and C's loop of an xs: tests/test_codegen_loops.py), and agrees with
    jax.jacfwd at another point."""
    rng = np.random.default_rng(11)
    u, F, d = rng.uniform(0.2, 0.8, 6), rng.uniform(-1, 1, (5, 6)), np.array(0.2)
    with jax.enable_x64(True):
        g = dgraph.from_jax(forced, u, F, d, level="array")
        point = (rng.uniform(0.2, 0.8, 6), rng.uniform(-1, 1, (5, 6)), np.array(0.4))
        jac = jref.jacfwd(forced, argnums=(0, 1, 2))(*(jnp.asarray(a) for a in point))
        want = np.hstack([np.asarray(b).reshape(6, -1) for b in jac])
    text = tensor_program(accumulate(g, "forward", verify=False)).text
    assert "for x in _loop_forced_xs)" in text  # the reads: an xs of the loop
    got = np.hstack([np.asarray(b).reshape(6, -1) for b in load_python(text).jacobian(*point)])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)


def test_reads_and_writes_of_the_carry_at_the_counter_have_exact_patterns():
    """y.at[i].set(f(y[i-1], y[i])) on a (5, 3) carry and dynamic_update_slice from an
    input's row: right against jax.jacfwd, each block exactly jacfwd's nonzeros at a
    generic point (the chain of per-step selections: 45 of 225 entries; the union over
    the steps would give 117), in the generated NumPy and C too (a mask xs in CUDA:
    tests/test_codegen_loops.py)."""
    rng = np.random.default_rng(13)
    x = rng.uniform(0.1, 0.9, (5, 3))
    g, _, want = _check(rowwise, (x,))
    ((loop, region),) = regions_of(g)
    assert region.step_tables  # the per-step masks, new xs of the loop
    block = g.block("x", loop)
    structure = np.zeros((15, 15), dtype=bool)
    structure[block.rows, block.cols] = True
    assert np.array_equal(structure, want != 0) and block.nnz == 45
    x2, v = rng.uniform(0.1, 0.9, (3, 3)), rng.uniform(-1, 1, (3, 3))
    g2, _, _ = _check(scaled_rows, (x2, v))
    assert g2.block("x", "y").nnz == 9  # each entry scaled once, by its own row of v
    es = accumulate(g, "forward", verify=False)
    text = tensor_program(es).text
    np.testing.assert_allclose(load_python(text).jacobian(x).reshape(15, 15), want, rtol=1e-13)
    values = c_values(tensor_program(es, "python", True, "jacobian", keep_arrays=True))
    if compiler() is not None:
        np.testing.assert_allclose(values.load()(x).toarray(), want, rtol=1e-13, atol=1e-14)


def test_an_index_scanned_over_a_constant_arange():
    """lax.scan over jnp.arange(T) (a constant integer xs) as the index: a reverse scan
    reading F[i], and a write and read of the carry at 2 i with ys."""

    def reads(c, F):
        step = lambda c, i: (c * 0.9 + F[i] * c[::-1], None)  # noqa: E731
        return lax.scan(step, c, jnp.arange(F.shape[0]), reverse=True)[0]

    def writes(x):
        step = lambda y, i: (y.at[i].set(jnp.cos(y[i]) + y[0]), y[i])  # noqa: E731
        return lax.scan(step, x, 2 * jnp.arange(3))

    _check(reads, (np.array([0.3, 0.6]), np.linspace(-1, 1, 8).reshape(4, 2)))
    _check(writes, (np.linspace(0.1, 0.9, 6),))


def _refused(f, *args) -> str:
    with pytest.raises(InputError) as caught:
        dgraph.from_jax(f, *args, level="array")
    assert "\n" not in str(caught.value)
    return str(caught.value)


def test_an_addition_at_the_counter_has_exact_patterns():
    """y.at[i].add(...) in the carry (a scalar into entry i; a row into row i from the
    row before it and an input's row): right against jax.jacfwd, blocks exactly jacfwd's
    nonzeros (the per-step masks, as for .set)."""

    def adds(x):
        return lax.fori_loop(0, 3, lambda i, y: y.at[i].add(y[0] * y[i]), x)

    def rows(x, v):
        return lax.fori_loop(1, 4, lambda i, y: y.at[i].add(jnp.sin(y[i - 1]) * v[i]), x)

    g, _, want = _check(adds, (np.array([0.5, -0.5, 1.5]),))
    assert g.block("x", "y").nnz == int((want != 0).sum()) == 5
    x, v = np.linspace(0.1, 0.9, 12).reshape(4, 3), np.linspace(-1, 1, 12).reshape(4, 3)
    g, _, want = _check(rows, (x, v))
    assert g.block("x", "y").nnz == int((want[:, :12] != 0).sum()) == 30


def test_an_inner_loop_reads_at_the_outer_counter():
    """x[i] and A[i, j] in an inner fori_loop, i the outer loop's counter: the
    selections of every (outer, inner) step are one gather outside the outer loop (a
    vertex whatever the trip counts); right against jax.jacfwd, in a reverse scan too."""

    def vector(x):
        inner = lambda i: lambda j, z: z * x[i] + x[j]  # noqa: E731
        return lax.fori_loop(0, 2, lambda i, y: lax.fori_loop(0, 2, inner(i), y), x)

    def matrix(A, v):
        def outer(y, i):
            z = lax.fori_loop(0, 4, lambda j, z: z + jnp.sin(A[i, j] * z), y)
            return z, z.sum()

        return lax.scan(outer, v, jnp.arange(3), reverse=True)

    def nested_write(x):  # a write at the outer counter: a take's transpose (refused before)
        inner = lambda i: lambda j, z: z.at[i].set(z[j] * 2.0)  # noqa: E731
        return lax.fori_loop(0, 2, lambda i, y: lax.fori_loop(0, 2, inner(i), y), x)

    g, _, _ = _check(vector, (np.array([0.5, -0.5, 1.5]),))
    assert sorted(g.nx) == ["gather_flat1", "x", "y"]
    _check(nested_write, (np.array([0.5, -0.5, 1.5]),))
    A = np.linspace(-1, 1, 12).reshape(3, 4)
    g, _, want = _check(matrix, (A, np.array([0.3, 0.7])))
    (gather,) = [v for v in g.nx if g.op(v) is not None and g.op(v).primitive == "gather_flat"]
    assert g.block("A", gather).nnz == 12  # each A[i, j] read once, at its own steps
    ys = g.block(gather, g.outputs[1])  # exact per step: the ys' nonzeros are jacfwd's
    assert ys.type_name == "sparse" and ys.nnz == int((want[2:, :12] != 0).sum()) < 36
    # the generated vjp: the inner loop's operand i (an expression of the outer counter)
    vjp = dgraph.make_function(g, "vjp")
    w = (np.array([0.4, -1.1]), np.array([0.5, 0.2, -0.3]))
    with jax.enable_x64(True):
        want = jax.vjp(matrix, A, np.array([0.3, 0.7]))[1](w)
    for a, b in zip(vjp(A, np.array([0.3, 0.7]), *w), want, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-13)


def test_a_while_loop_reads_at_any_index_it_computes():
    """x[i] at a while_loop's counter (a fori_loop whose bounds are known only at run
    time; a while_loop counting by 2, reading its carry), at an index from a value, and
    at the counter of a triangle's inner loop, which starts at the outer one's: right
    against jax.jacfwd at the point, and the generated NumPy code at a point where the
    loop runs one trip fewer."""

    def bounded(x, W):
        n = (jnp.sum(x) > 0).astype(int) + 2  # the trip count depends on the values
        step = lambda i, y: jnp.tanh(W[i] * y + lax.dynamic_slice(W, (i, 1), (2, 2)).sum())  # noqa: E731
        return lax.fori_loop(0, n, step, x)

    def carried(x):  # a while_loop counting by 2 from 1, reading its own carry
        def body(s):
            i, y = s
            return i + 2, jnp.sin(y) * y[i] + lax.dynamic_slice(y, (i - 1,), (2,)).sum()

        return lax.while_loop(lambda s: s[0] < 4, body, (1, x))[1]

    def by_value(x):  # an index from a value, not the counter (refused before)
        def body(s):
            i, y = s
            return i + 1, y * x[(y[0] > 0).astype(int)]

        return lax.while_loop(lambda s: s[0] < 3, body, (0, x))[1]

    def triangle(x):  # Σ_{i<j} 1/(1 + (x_i - x_j)²): the inner counter starts at i + 1
        pair = lambda i: lambda j, a: a + 1 / (1 + (x[i] - x[j]) ** 2)  # noqa: E731
        return lax.fori_loop(0, 4, lambda i, a: lax.fori_loop(i + 1, 4, pair(i), a), 0.0)

    x, W = np.array([0.5, -0.5, 1.5]), np.linspace(-1, 1, 12).reshape(4, 3)
    g, es, _ = _check(bounded, (x, W))
    assert [r.kind for _, r in regions_of(g)] == ["while"]
    _check(carried, (np.array([0.5, -0.5, 1.5, 0.7]),))
    for point in (x, -x):  # y[0] > 0 and not: the other entry read
        _check(by_value, (point,))
    _check(triangle, (np.array([0.5, -0.5, 1.5, 0.7]),))
    other = np.array([-0.3, -0.9, 0.4])  # sum < 0: 2 trips, not 3
    with jax.enable_x64(True):
        want = jref.jacfwd(bounded, argnums=(0, 1))(other, W)
    got = load_python(tensor_program(es).text).jacobian(other, W)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-13)


def test_positions_the_body_computes_are_dynamic_takes():
    """A read at a position computed from the values in a scan body (``x[argmax(x·c)]``,
    ``y[argmax(y)]`` of the carry, a window at ``argmin``, ``x[(y[0] > 0)]``; refused
    before): the take at run-time positions (``take_dynamic``, its block the union over
    positions) in the body's graph, verified, its Jacobian jacfwd's; the Hessian, whose
    gradient reads the positions the forward loop stacks (a loop result read as data,
    printed by the loop's own code), ``jax.hessian``'s."""
    x = np.array([0.5, -0.5, 1.5, 0.2])

    def scan_argmax(x):
        step = lambda c, _: (c + x[jnp.argmax(x * c)] * c, None)  # noqa: E731
        return lax.scan(step, 0.5, None, length=3)[0]

    def carry_argmax(x):
        return lax.fori_loop(0, 3, lambda i, y: y * jnp.sin(y[jnp.argmax(y)]), x)

    def window_at_argmin(x):
        read = lambda a: lax.dynamic_slice(x, (jnp.argmin(x * a),), (2,))  # noqa: E731
        return lax.fori_loop(0, 3, lambda i, a: a + jnp.sum(read(a)) * a, 1.0)

    def by_value(x):  # the index depends on the carry's values, not on the counter
        return lax.fori_loop(0, 3, lambda i, y: y + x[(y[0] > 0).astype(int)], x)

    for f in (scan_argmax, carry_argmax, window_at_argmin, by_value):
        _check(f, (x,))
    for f in (carry_argmax, by_value):  # the gradient reads the positions it stacks
        total = lambda x, f=f: jnp.sum(f(x) ** 3)  # noqa: E731
        h = dgraph.make_function(total, "hessian", "python", point=[x])
        with jax.enable_x64(True):
            want = jref.hessian(total)(x + 0.1)  # one compilation, not one an operation
        np.testing.assert_allclose(h(x + 0.1), want, rtol=1e-12, atol=1e-13)


def test_what_stays_refused_in_one_line():
    x = np.array([0.5, -0.5, 1.5])

    def multiplies(x):  # another combiner at the counter
        return lax.fori_loop(0, 3, lambda i, y: y.at[i].multiply(y[0]), x)

    def adds_twice(x):  # two update entries added into one entry at a step
        at = lambda i: jnp.stack([i, i])  # noqa: E731
        return lax.fori_loop(0, 3, lambda i, y: y.at[at(i)].add(y[:2]), x)

    def while_write(x):  # a write at a while_loop's counter (only reads are)
        def body(s):
            i, y = s
            return i + 1, y.at[i].set(y[i] * x[0])

        return lax.while_loop(lambda s: s[0] < 3, body, (0, x))[1]

    def while_take(x):  # a gather at a while_loop's counter (only dynamic_slice is read)
        def body(s):
            i, y = s
            return i + 1, y * jnp.take(x, jnp.stack([i, 0]))[0]

        return lax.while_loop(lambda s: s[0] < 3, body, (0, x))[1]

    def nested_carried(x):  # a read at the outer counter of the inner loop's carry
        inner = lambda i: lambda j, z: z * z[i]  # noqa: E731
        return lax.fori_loop(0, 2, lambda i, y: lax.fori_loop(0, 2, inner(i), y), x)

    def operand_index(x):  # an index from a loop operand the values give, not a counter
        n = (x[0] > 0).astype(int)
        return lax.fori_loop(0, 2, lambda i, y: y * x[n], x)

    assert "x.at[i].set, x.at[i].add and dynamic_update_slice are" in _refused(multiplies, x)
    assert "adds several update entries into one entry" in _refused(adds_twice, x)
    assert "trip to trip of a while_loop" in _refused(while_write, x)
    assert "trip to trip of a while_loop" in _refused(while_take, x)
    assert "of an array this loop carries or computes" in _refused(nested_carried, x)
    assert "an index read from a loop operand" in _refused(operand_index, x)


def test_live_records_are_those_a_derivative_flows_through():
    """The records reached from the roots through differentiable operands only (a
    comparison has none), and only through the names in ``reaches`` where given."""
    from types import SimpleNamespace

    from dgraph.blocks.arrays import ArrayOp
    from dgraph.frontends.jaxpr_loops import live_records

    ops = {
        "p": ArrayOp("sin", ("x",), (), (2,)),
        "q": ArrayOp("lt", ("p", "x"), (), (2,)),  # a derivative flows through neither
        "r": ArrayOp("mul", ("p", "s"), (), (2,)),
        "s": ArrayOp("cos", ("x",), (), (2,)),
        "t": ArrayOp("add", ("r", "q"), (), (2,)),
    }
    reader = SimpleNamespace(
        records=[SimpleNamespace(op=op) for op in ops.values()],
        index={name: k for k, name in enumerate(ops)},
    )
    assert ops["q"].differentiable() == []
    assert live_records(reader, ["t", "x"]) == {0, 1, 2, 3, 4}
    assert live_records(reader, ["r"]) == {0, 2, 3}
    assert live_records(reader, ["q"]) == {1}
    assert live_records(reader, ["t"], reaches={"r", "p"}) == {0, 2, 4}
