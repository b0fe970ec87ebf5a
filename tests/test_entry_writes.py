"""Single entries written into a fresh NumPy array (``out[i] = v`` in a Python loop) are
kept aside by the tracer and put in as one ``scatter`` when the array is used whole: a
read of a written entry is its value's vertex. The counts (scatters, their positions)
are linear in the writes, not quadratic; values against JAX."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dgraph import from_function, make_function

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)

from tests import jax_reference as jref  # noqa: E402


def _scatters(graph) -> list:
    ops = [graph.op(v) for v in graph.order() if graph.op(v) is not None]
    return [op for op in ops if op.primitive == "scatter"]


def _positions(graph) -> int:
    """All positions the scatters hold (a scatter over all of x holds x.size)."""
    return sum(len(op.param["sources"]) for op in _scatters(graph))


def _recurrence(n):
    def f(x):
        out = np.empty(n)
        out[0] = np.sin(x[0])
        for i in range(1, n):
            out[i] = 0.5 * out[i - 1] + np.cos(x[i]) * x[i - 1]
        return out

    def ref(x):  # the same recurrence as a scan: a small program, not n steps unrolled
        def step(previous, pair):
            out = 0.5 * previous + jnp.cos(pair[0]) * pair[1]
            return out, out

        first = jnp.sin(x[0])
        _, rest = jax.lax.scan(step, first, (x[1:], x[:-1]))
        return jnp.concatenate([first[None], rest])

    return f, ref


def test_loop_fill_is_one_scatter():
    n = 40
    f, ref = _recurrence(n)
    x = np.random.default_rng(0).normal(size=n)
    graph = from_function(f, sizes=[(n,)], level="array")
    # main: 40 scatters of 40 positions each (1,600)
    assert len(_scatters(graph)) == 1
    assert _positions(graph) == n
    J = make_function(f, "jacobian", point=[x])(x)
    want = np.asarray(jref.jacfwd(ref)(jnp.asarray(x)))
    np.testing.assert_allclose(np.asarray(J).reshape(n, n), want, rtol=1e-13, atol=1e-14)


def test_whole_reads_between_writes_2d():
    """Entries of a 2-D array by tuple keys (negative ones, one written twice), a read of
    an entry not written, a whole-array use between the writes: each whole use puts the
    writes so far in (two scatters here, one per run of writes)."""

    def f(x):
        a = np.zeros((3, 4))
        a[0, 0] = x[0] * x[1]
        a[-1, -1] = np.exp(x[2])
        a[0, 0] = a[0, 0] + x[3]  # the same entry again: the last write wins
        s = np.sum(a * a)  # whole use: the three writes put in
        a[1, 2] = s * a[2, 3] + a[1, 1]  # a[1, 1] was never written: 0
        a[2, 0] = np.tanh(a[1, 2])
        return a.ravel() * 2.0

    def ref(x):
        a = jnp.zeros((3, 4))
        a = a.at[0, 0].set(x[0] * x[1]).at[2, 3].set(jnp.exp(x[2]))
        a = a.at[0, 0].set(a[0, 0] + x[3])
        s = jnp.sum(a * a)
        a = a.at[1, 2].set(s * a[2, 3] + a[1, 1])
        a = a.at[2, 0].set(jnp.tanh(a[1, 2]))
        return a.ravel() * 2.0

    x = np.array([0.3, -1.2, 0.4, 0.7])
    graph = from_function(f, sizes=[(4,)], level="array")
    assert len(_scatters(graph)) == 2  # main: 5, one per write
    value, J = make_function(f, "value_and_jacobian", point=[x])(x)
    want = np.asarray(jref.jacfwd(ref)(jnp.asarray(x)))
    np.testing.assert_allclose(np.asarray(J).reshape(want.shape), want, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(np.ravel(value), np.asarray(ref(x)), rtol=1e-14)


def _euler_rows(p):
    """Explicit Euler into a preallocated (steps, 2) array, the rows read by entry or
    whole: ``y[i, 0]`` and ``y[i]`` of a fresh array read before its first traced write
    were refused ("after a view of it was taken"), as if the read were a live view."""
    y = np.zeros((6, 2))
    y[0] = [1.0, 0.0]
    for i in range(5):
        if i % 2:
            y[i + 1] = y[i] + 0.1 * np.array([y[i, 1], -p[0] * np.sin(y[i, 0])])
        else:
            y[i + 1, 0] = y[i, 0] + 0.1 * y[i, 1]
            y[i + 1, 1] = y[i, 1] - 0.1 * (p[0] * np.sin(y[i, 0]) + p[1] * y[i, 1])
    return np.sum(y**2)


def _euler_rows_jax(p):
    y = [jnp.array([1.0, 0.0])]
    for i in range(5):
        a, b = y[-1][0], y[-1][1]
        if i % 2:
            y.append(jnp.stack([a + 0.1 * b, b - 0.1 * p[0] * jnp.sin(a)]))
        else:
            y.append(jnp.stack([a + 0.1 * b, b - 0.1 * (p[0] * jnp.sin(a) + p[1] * b)]))
    return jnp.sum(jnp.stack(y) ** 2)


def test_rows_of_a_fresh_array_read_before_it_is_written():
    p = np.array([2.0, 0.3])
    H = make_function(_euler_rows, "hessian", point=[p])
    np.testing.assert_allclose(H(p), jref.hessian(_euler_rows_jax)(p), rtol=1e-12)


def test_a_view_alive_at_the_write_is_still_refused():
    """NumPy's ``r = y[0]`` sees a later ``y[0, 0] = …``; the trace would not."""

    def live_view(p):
        y = np.zeros((3, 2))
        r = y[0]
        y[0, 0] = p[0]
        return np.sum(r) * p[1]

    with pytest.raises(Exception, match="after a view of it was taken"):
        make_function(live_view, "jacobian", point=[np.array([0.3, 0.5])])


def _diagonal_accumulated(p):
    """A matrix made as ``np.eye(3) * 2.0`` and written into (``A[k, k] += …``): np.eye's
    array was NumPy's own, and an operation on a fresh array's numbers gave a NumPy array,
    both refused ("assignment into a NumPy array")."""
    A = np.eye(3) * 2.0
    B = np.identity(3)
    for k in range(3):
        A[k, k] += p[k] ** 2
        A[k, (k + 1) % 3] -= p[k + 3]
        B[k, k] = p[k]
    return np.sum(np.linalg.solve(A, np.ones(3))) + np.sum(B @ p[:3])


def _diagonal_accumulated_jax(p):
    A = jnp.eye(3) * 2.0
    for k in range(3):
        A = A.at[k, k].add(p[k] ** 2).at[k, (k + 1) % 3].add(-p[k + 3])
    return jnp.sum(jnp.linalg.solve(A, jnp.ones(3))) + jnp.sum(p[:3] ** 2)


def test_a_matrix_from_eye_written_into():
    p = np.array([0.3, -0.7, 1.1, 0.5, 0.2, -0.4])
    H = make_function(_diagonal_accumulated, "hessian", point=[p])
    np.testing.assert_allclose(H(p), jref.hessian(_diagonal_accumulated_jax)(p), rtol=1e-11)


def _literal_matrices(p):
    """Arrays of constants NumPy makes inside the function (a literal, ``np.asarray`` of
    a list, ``np.diag``, ``np.arange``, ``np.linspace``, ``np.tile``, ``np.copy``) written
    into: refused before ("assignment into a NumPy array"), as only ``np.zeros`` and its
    kin made arrays that may be written into."""
    M = np.array([[2.0, 1.0], [1.0, 3.0]])
    M[0, 0] = p[0] ** 2
    c = np.asarray([0.5, 1.5, 2.5])
    c[2] += p[1]
    D = np.diag([1.0, 2.0, 3.0])
    D[0, 1] = p[2]
    k = np.arange(3.0)
    k[0] = p[0] * p[1]
    s = np.linspace(0.0, 1.0, 3)
    s[1] *= p[2]
    t = np.tile([1.0, 2.0], 2)
    t[3] = np.exp(p[0])
    q = np.copy(s)
    q[0] = p[1] ** 3
    return M @ p[:2] @ p[:2] + c @ p**2 + p @ D @ p + k @ p + s @ p + t[1:] @ p + q @ p


def _literal_matrices_jax(p):
    M = jnp.array([[p[0] ** 2, 1.0], [1.0, 3.0]])
    c = jnp.array([0.5, 1.5, 2.5 + p[1]])
    D = jnp.diag(jnp.array([1.0, 2.0, 3.0])).at[0, 1].set(p[2])
    k = jnp.array([p[0] * p[1], 1.0, 2.0])
    s = jnp.array([0.0, 0.5 * p[2], 1.0])
    t = jnp.array([2.0, 1.0, jnp.exp(p[0])])
    q = s.at[0].set(p[1] ** 3)
    return M @ p[:2] @ p[:2] + c @ p**2 + p @ D @ p + k @ p + s @ p + t @ p + q @ p


def test_arrays_of_constants_numpy_makes_are_written_into():
    p = np.array([0.3, -0.7, 1.1])
    H = make_function(_literal_matrices, "hessian", point=[p])
    np.testing.assert_allclose(H(p), jref.hessian(_literal_matrices_jax)(p), rtol=1e-12)


def test_a_view_of_an_argument_made_by_numpy_is_still_refused():
    """``np.asarray`` of a module's array is that array: writing into it would change the
    module's numbers, so it stays refused."""

    def into_held(p):
        a = np.asarray(_HELD)
        a[0] = p[0]
        return a @ p

    with pytest.raises(Exception, match=r"assignment x\[\.\.\.\] = \.\.\. into a NumPy array"):
        make_function(into_held, "jacobian", point=[np.array([0.3, 0.5])])
    np.testing.assert_array_equal(_HELD, [1.0, 2.0])


_HELD = np.array([1.0, 2.0])


_TEMPLATE = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])


def _augmented_and_copied(p):
    """``y[1:] += v`` as a fresh array's first traced write (NumPy's in-place add of the
    temporary ``y[1:]``: "numpy.add(..., out=...) writes into an array" before), and a
    module's template matrix copied and filled in (``_TEMPLATE.copy()``, ``astype``,
    ``copy.deepcopy``, arithmetic of it: NumPy's arrays before, refused when written)."""
    import copy

    y = np.zeros(4)
    y[1:] += p**2
    A = np.ones((3, 3))
    A[0, :] *= p
    A[:, 1] -= p**2
    B = _TEMPLATE.copy()
    B[0] += p
    C = _TEMPLATE.astype(float)
    C[1, 1] = p[1] ** 3
    D = copy.deepcopy(_TEMPLATE) * 2.0
    D[2, 0] = np.sin(p[2])
    return y @ y + np.sum(A * A) + p @ B @ p + p @ C @ p + p @ D @ p


def _augmented_and_copied_jax(p):
    y = jnp.concatenate([jnp.zeros(1), p**2])
    A = jnp.ones((3, 3)).at[0, :].multiply(p).at[:, 1].add(-(p**2))
    B = jnp.asarray(_TEMPLATE).at[0].add(p)
    C = jnp.asarray(_TEMPLATE).at[1, 1].set(p[1] ** 3)
    D = (2.0 * jnp.asarray(_TEMPLATE)).at[2, 0].set(jnp.sin(p[2]))
    return y @ y + jnp.sum(A * A) + p @ B @ p + p @ C @ p + p @ D @ p


def test_augmented_writes_and_copies_of_a_module_s_matrix():
    p = np.array([0.3, -0.7, 1.1])
    H = make_function(_augmented_and_copied, "hessian", point=[p])
    np.testing.assert_allclose(H(p), jref.hessian(_augmented_and_copied_jax)(p), rtol=1e-12)
    np.testing.assert_array_equal(_TEMPLATE[0], [2.0, 1.0, 0.0])  # the module's, unchanged


def test_an_in_place_operation_on_a_named_view_is_still_refused():
    """``t = y[1:]; t += p`` changes ``y`` in NumPy; the trace would only rebind ``t``."""

    def named_view(p):
        y = np.zeros(3)
        t = y[1:]
        t += p[:2]
        return np.sum(y * p)

    with pytest.raises(Exception, match=r"numpy\.add\(\.\.\., out=\.\.\.\) writes into an array"):
        make_function(named_view, "jacobian", point=[np.array([0.3, 0.5, 0.2])])


class _Spring:
    """A model whose method copies and fills in its own matrices (``self.K.copy()``)."""

    def __init__(self) -> None:
        self.K = np.array([[2.0, 1.0], [1.0, 3.0]])
        self.w = np.array([0.5, 1.5])

    def energy(self, p):
        K = self.K.copy()
        K[0, 0] = p[0] ** 2
        b = self.w * 2.0
        b[0] = np.exp(p[1])
        return p @ K @ p + b @ p


def test_a_bound_method_fills_in_a_copy_of_its_instance_s_matrix():
    spring, p = _Spring(), np.array([0.3, 0.7])
    H = make_function(spring.energy, "hessian", point=[p])

    def reference(p):
        K = jnp.array([[p[0] ** 2, 1.0], [1.0, 3.0]])
        return p @ K @ p + jnp.exp(p[1]) * p[0] + 3.0 * p[1]

    np.testing.assert_allclose(H(p), jref.hessian(reference)(p), rtol=1e-12)
    assert type(spring.K) is np.ndarray and spring.K[0, 0] == 2.0  # given back unchanged


class _Called:
    """A callable instance: its ``__call__``'s module is read as a function's is."""

    def __init__(self) -> None:
        self.K = np.array([[2.0, 1.0], [1.0, 3.0]])

    def __call__(self, p):
        import math

        K = self.K.copy()
        K[0, 0] = p[0] ** 2
        A = np.zeros((2, 2))
        A[1, 1] = math.exp(p[1])
        return p @ (K + A) @ p


def _partial_body(p, c):
    A = np.zeros((2, 2))
    A[0, 1] = p[0] * c
    return p @ A @ p + math.exp(p[1]) * c


def test_a_callable_instance_and_a_partial_are_traced_as_functions():
    """Neither had its module patched (no ``__globals__``): ``np.zeros`` was NumPy's,
    ``math.exp`` of a traced value a float() error."""
    import functools

    p = np.array([0.3, 0.7])

    def called(p):
        K = jnp.array([[p[0] ** 2, 1.0], [1.0, 3.0 + jnp.exp(p[1])]])
        return p @ K @ p

    H = make_function(_Called(), "hessian", point=[p])
    np.testing.assert_allclose(H(p), jref.hessian(called)(p), rtol=1e-12)
    H = make_function(functools.partial(_partial_body, c=2.0), "hessian", point=[p])
    reference = jref.hessian(lambda p: 2.0 * p[0] ** 2 * p[1] + 2.0 * jnp.exp(p[1]))
    np.testing.assert_allclose(H(p), reference(p), rtol=1e-12)


def test_a_named_view_written_in_place_is_not_read_by_jax_instead():
    """The array tracer refuses ``t = y[1:]; t += p``; the Hessian's route then read the
    function with JAX's arrays, where ``t += p`` rebinds ``t`` and leaves ``y`` zero: a
    zero Hessian, silently (``Σ pᵢ⁴``'s is not). JAX's reading is now compared with
    NumPy's own run first."""
    from dgraph import hessian

    def named_view(p):
        y = np.zeros(4)
        t = y[1:]
        t += p**2
        return y @ y

    with pytest.raises(Exception, match=r"numpy\.add\(\.\.\., out=\.\.\.\) writes into an array"):
        hessian(named_view, np.array([0.3, -0.7, 1.1]))


def _filled(K0, p, c=1.0):
    K = K0.copy()
    K[0, 0] = p[0] ** 2
    return c * (p @ K @ p)


def test_a_partial_s_array_argument_copied_and_filled_in():
    """``partial(energy, K0)``: its array argument is the trace's while it runs, as a
    module's is (``K0.copy()`` was NumPy's array, refused when written), and the partial
    holds its own array again after."""
    import functools

    K0, p = np.array([[2.0, 1.0], [1.0, 3.0]]), np.array([0.3, 0.7])
    partial = functools.partial(_filled, K0, c=2.0)
    H = make_function(partial, "hessian", point=[p])
    reference = jref.hessian(lambda p: 2.0 * (p[0] ** 4 + 2 * p[0] * p[1] + 3 * p[1] ** 2))
    np.testing.assert_allclose(H(p), reference(p), rtol=1e-12)
    assert type(partial.args[0]) is np.ndarray and partial.args[0] is K0


_HELPER = """import numpy as np

K_TEMPLATE = np.array([[2.0, 1.0], [1.0, 3.0]])


def stiffness(p):
    K = K_TEMPLATE.copy()
    K[0, 0] = p[0] ** 2
    return K
"""


def test_a_helper_module_s_template_copied_and_filled_in(tmp_path):
    """The helper's module arrays are the trace's too, not only ``f``'s module's."""
    import importlib.util

    path = tmp_path / "entry_writes_helper.py"
    path.write_text(_HELPER)
    spec = importlib.util.spec_from_file_location("entry_writes_helper", path)
    helper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helper)

    def f(p):
        return p @ helper.stiffness(p) @ p

    p = np.array([0.3, 0.7])
    H = make_function(f, "hessian", point=[p])
    reference = jref.hessian(lambda p: p[0] ** 4 + 2 * p[0] * p[1] + 3 * p[1] ** 2)
    np.testing.assert_allclose(H(p), reference(p), rtol=1e-12)
    assert type(helper.K_TEMPLATE) is np.ndarray  # given back


def _constants_as_arguments(p):
    """Arrays of constants made in the function (fresh, so writable) passed beside traced
    values to functions that take a constant there: ``np.linalg.lstsq``'s matrix
    ("a matrix that depends on the inputs" when the literal became fresh),
    ``gammaincc``'s shape, ``np.interp``'s table."""
    import scipy.special

    K = np.array([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 4.0]])
    shape = np.array([0.7, 1.5, 3.0])
    table = np.array([0.2, 0.5, 0.9])
    fit = np.linalg.lstsq(K, p, rcond=None)[0]
    return (
        fit @ fit + np.sum(scipy.special.gammaincc(shape, p**2)) + np.interp(p, table, table**2) @ p
    )


def test_arrays_of_constants_are_constants_to_the_functions_they_are_given_to():
    p = np.array([0.3, 0.7, 1.1])
    H = make_function(_constants_as_arguments, "hessian", point=[p])

    def reference(p):
        K = jnp.array([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 4.0]])
        fit = jnp.linalg.solve(K, p)
        table = jnp.array([0.2, 0.5, 0.9])
        gamma = jax.scipy.special.gammaincc(jnp.array([0.7, 1.5, 3.0]), p**2)
        return fit @ fit + jnp.sum(gamma) + jnp.interp(p, table, table**2) @ p

    np.testing.assert_allclose(H(p), jref.hessian(reference)(p), rtol=1e-10, atol=1e-12)


def _assembly(n):
    """A 1-D finite-element residual assembled element by element: ``r[e + 1]`` is read
    (never written yet) between the writes of ``r[e]`` and ``r[e + 1]``."""

    def f(u):
        r = np.zeros(n + 1)
        for e in range(n):
            flux = (1.0 + 0.25 * (u[e] + u[e + 1]) ** 2) * (u[e + 1] - u[e])
            r[e] -= flux
            r[e + 1] += flux
            r[e] += 0.5 * np.sin(u[e])
        return r

    def ref(u):
        r = jnp.zeros(n + 1)
        for e in range(n):
            flux = (1.0 + 0.25 * (u[e] + u[e + 1]) ** 2) * (u[e + 1] - u[e])
            r = r.at[e].add(-flux).at[e + 1].add(flux).at[e].add(0.5 * jnp.sin(u[e]))
        return r

    return f, ref


def test_reads_of_entries_not_written_put_nothing_in():
    """A read of an entry not written among single-entry writes is that entry before
    them: the assembly is one scatter of n + 1 positions (main: a scatter over all of r
    per element, 3n scatters and about 3n² positions)."""
    n = 12
    f, ref = _assembly(n)
    graph = from_function(f, sizes=[(n + 1,)], level="array")
    assert len(_scatters(graph)) == 1  # main: 36 scatters
    assert _positions(graph) == n + 1  # main: 468
    u = np.random.default_rng(1).uniform(0.5, 1.5, n + 1)
    made = make_function(f, "value_and_jacobian", point=[u], method="zhou")  # the choice's
    value, J = made(u)
    want = np.asarray(jref.jacfwd(ref)(jnp.asarray(u)))
    np.testing.assert_allclose(np.asarray(J).reshape(want.shape), want, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(np.ravel(value), np.asarray(ref(u)), rtol=1e-14, atol=1e-15)


def test_an_entry_of_a_traced_array_read_among_writes():
    """The same for an array that already depends on the inputs (no numbers held): the
    unwritten entry read is the array's before the writes."""

    def f(u):
        r = u * u
        for e in range(3):
            r[e] = r[e + 1] * u[e]
        return r

    def ref(u):
        r = u * u
        for e in range(3):
            r = r.at[e].set(r[e + 1] * u[e])
        return r

    u = np.array([0.3, -1.1, 0.7, 1.4])
    graph = from_function(f, sizes=[(4,)], level="array")
    assert len(_scatters(graph)) == 1  # main: 3
    J = make_function(f, "jacobian", point=[u])(u)
    want = np.asarray(jref.jacfwd(ref)(jnp.asarray(u)))
    np.testing.assert_allclose(np.asarray(J).reshape(want.shape), want, rtol=1e-13, atol=1e-14)
