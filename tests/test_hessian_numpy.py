"""Hessians of functions written with NumPy (issue 55): the array tracer's graph, its
primal evaluated with jax.numpy and read back through JAX's gradient
(dgraph.codegen.tensor.primal), against jax.hessian of the same function written with
jax.numpy; patterns exact; C values compiled; bad input one line."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
import scipy.sparse

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.codegen.c import compiler  # noqa: E402
from dgraph.codegen.tensor.primal import jax_primal  # noqa: E402
from dgraph.errors import DGraphError  # noqa: E402
from dgraph.frontends import from_function  # noqa: E402
from tests import jax_reference as jref  # noqa: E402

N = 7
X = np.random.default_rng(3).uniform(-1.0, 1.0, N)
M = np.where(np.random.default_rng(4).uniform(size=(N, N)) < 0.3, 2.0, 0.0) + np.eye(N)

needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler")


def rosenbrock_np(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_jnp(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def quadratic_np(x):
    return 0.5 * x @ (M @ x) + np.sum(x**4)


def quadratic_jnp(x):
    return 0.5 * x @ (M @ x) + jnp.sum(x**4)


def logsum_np(x):
    return np.sum(np.log(1.0 + np.exp(x))) + np.log(np.sum(np.exp(x[:3])))


def logsum_jnp(x):
    return jnp.sum(jnp.log(1.0 + jnp.exp(x))) + jnp.log(jnp.sum(jnp.exp(x[:3])))


CASES = [
    ("rosenbrock", rosenbrock_np, rosenbrock_jnp),
    ("quadratic form", quadratic_np, quadratic_jnp),
    ("log-sum", logsum_np, logsum_jnp),
]


def reference(f, x):
    with jax.enable_x64(True):  # stored (tests/jax_reference.py)
        return jref.hessian(f)(jnp.asarray(x))


@pytest.mark.parametrize(("name", "f_np", "f_jnp"), CASES)
def test_numpy_function_dense_and_sparse_match_jax_hessian(name, f_np, f_jnp):
    x2 = X[::-1] * 0.7  # another point than the one it was made at
    ref = reference(f_jnp, x2)
    if name == "rosenbrock":
        dense = dgraph.hessian(f_np, X)
        assert dense.generated.verified
        np.testing.assert_allclose(dense(x2), ref, rtol=1e-12, atol=1e-12)
    h = dgraph.hessian(f_np, X, sparse=True)(x2)
    assert isinstance(h, scipy.sparse.csr_array)
    assert h.nnz == np.count_nonzero(ref), name  # the pattern is exact
    assert np.array_equal(h.toarray(), h.toarray().T)  # mirrored, bit for bit
    np.testing.assert_allclose(h.toarray(), ref, rtol=1e-12, atol=1e-12, err_msg=name)


def test_a_graph_from_the_array_tracer_gives_its_hessian_and_modes():
    g = from_function(logsum_np, sizes=[(N,)], level="array")
    ref = reference(logsum_jnp, X)
    np.testing.assert_allclose(dgraph.make_function(g, "hessian")(X), ref, rtol=1e-12, atol=1e-13)
    t = np.linspace(-1.0, 1.0, N)
    np.testing.assert_allclose(dgraph.make_function(g, "hvp")(X, t), ref @ t, rtol=1e-12)
    f, grad, h = dgraph.make_function(g, "value_gradient_hessian", sparse=True, tril=True)(X)
    with jax.enable_x64(True):  # JAX's value and gradient: one compilation
        value, expected = jref.references(
            [jref.Reference("value_and_grad", logsum_jnp, (jnp.asarray(X),))]
        )[0]
        assert float(f) == pytest.approx(float(value), rel=1e-14)
        expected = np.asarray(expected)
    np.testing.assert_allclose(grad, expected, rtol=1e-13)
    np.testing.assert_allclose(h.toarray(), np.tril(ref), rtol=1e-12, atol=1e-13)


def test_a_tensor_graph_of_a_matrix_argument():
    # test_hessian_arrays refused this graph ("not read from JAX") before NumPy was read
    u = np.array([[0.5, -1.0], [2.0, 0.25]])
    g = dgraph.from_function(lambda u: np.sum(u**3), sizes=[(2, 2)], level="array")
    h = dgraph.make_function(g, "hessian")(u)
    assert h.shape == (2, 2, 2, 2)
    np.testing.assert_allclose(h.reshape(4, 4), np.diag(6.0 * u.ravel()), atol=1e-14)


def test_lagrangian_of_a_numpy_constraint_takes_weights_per_call():
    def constraints(x):
        return x[:-2] * x[1:-1] + np.exp(x[2:]) + 2.0 * x[:-2]

    def constraints_jnp(x):
        return x[:-2] * x[1:-1] + jnp.exp(x[2:]) + 2.0 * x[:-2]

    v = np.linspace(0.5, 1.5, N - 2)
    H = dgraph.make_function(constraints, "hessian", point=[X], weights=v, sparse=True)
    w = -3.0 * v
    with jax.enable_x64(True):
        ref = jref.hessian(lambda x: jnp.dot(w, constraints_jnp(x)))(jnp.asarray(X))
    assert H(X, w).nnz == np.count_nonzero(ref)
    np.testing.assert_allclose(H(X, w).toarray(), ref, rtol=1e-12, atol=1e-12)


def test_the_jax_primal_is_the_graph_s_function():
    g = from_function(quadratic_np, sizes=[(N,)], level="array")
    with jax.enable_x64(True):
        got = float(jax.jit(jax_primal(g))(jnp.asarray(X)))
    assert got == pytest.approx(float(quadratic_np(X)), rel=1e-14)


def _lattice_np(x):  # a binomial tree's backward sweep: a new shape each level
    V = np.maximum(1.0 - x[0] * np.exp(0.3 * np.arange(5.0) - 0.6), 0.0)
    for level in range(3, -1, -1):
        S = x[0] * np.exp(0.3 * np.arange(level + 1.0) - 0.15 * level)
        V = np.maximum(x[2] * (x[1] * V[1:] + (1.0 - x[1]) * V[:-1]), 1.0 - S)
    return V[0]


def _lattice_jnp(x):
    V = jnp.maximum(1.0 - x[0] * jnp.exp(0.3 * jnp.arange(5.0) - 0.6), 0.0)
    for level in range(3, -1, -1):
        S = x[0] * jnp.exp(0.3 * jnp.arange(level + 1.0) - 0.15 * level)
        V = jnp.maximum(x[2] * (x[1] * V[1:] + (1.0 - x[1]) * V[:-1]), 1.0 - S)
    return V[0]


def test_a_long_primal_is_checked_from_one_trace_not_a_kernel_per_shape(monkeypatch):
    """Past REFERENCE_JIT_MOST operations (here patched to 0) the primal's check traces
    it once and runs its equations by NumPy: the primal only ever sees tracers (run by
    jax.numpy on arrays, each call compiled a kernel per primitive and level's shape);
    its values still checked (a primal off by 1e-9 refused), the Hessian JAX's."""
    from dgraph.codegen.tensor import primal as primal_module
    from dgraph.errors import VerificationError

    monkeypatch.setattr(primal_module, "REFERENCE_JIT_MOST", 0)
    x = np.array([0.9, 0.52, 0.99])
    g = from_function(_lattice_np, sizes=[(3,)], level="array")
    f = jax_primal(g)
    seen = []

    def recorded(*a):
        seen.append(all(isinstance(v, jax.core.Tracer) for v in a))
        return f(*a)

    primal_module.check_primal(g, recorded, [x])
    assert seen == [True]
    with pytest.raises(VerificationError, match="differs from its own values"):
        primal_module.check_primal(g, lambda *a: f(*a) + 1e-9, [x])
    with jax.enable_x64(True):
        ref = np.asarray(jref.hessian(_lattice_jnp)(jnp.asarray(x)))
    assert np.abs(ref).max() > 0.1
    np.testing.assert_allclose(dgraph.hessian(_lattice_np, x)(x), ref, rtol=1e-12, atol=1e-14)


def test_a_parameter_of_a_numpy_function_is_taken_per_call():
    def f(x, a):
        return np.sum(a * x**2 * x[0])

    a = np.arange(1.0, N + 1.0)
    H = dgraph.hessian(f, X, a, params=["a"])
    b = a[::-1] * 0.5
    with jax.enable_x64(True):
        ref = jref.hessian(lambda x: jnp.sum(b * x**2 * x[0]))(jnp.asarray(X))
    np.testing.assert_allclose(H(X, b), ref, rtol=1e-13, atol=1e-13)


def test_a_parameter_before_the_input_is_taken_in_its_place():
    """``f(a, x)`` with ``params=["a"]``: the graph takes x, then a (H(x, a), as the JAX
    path); the example arguments were given to it in f's order, a for x (a traceback
    where their shapes differ: "cannot reshape array of size 4 into shape (7,)", a check
    at a swapped point where they agree). Hessian and hvp, python and C."""

    def f(a, x):
        return np.sum(a[1:] * np.tanh(x * a[0]) ** 2)

    a = np.linspace(0.5, 1.5, N + 1)
    b = a[::-1] * 0.5
    with jax.enable_x64(True):
        g = jref.hessian(lambda x: jnp.sum(b[1:] * jnp.tanh(x * b[0]) ** 2))
        ref = np.asarray(g(jnp.asarray(X)))
    v = np.linspace(-1.0, 1.0, N)
    for lang in ("python", "c") if compiler() else ("python",):
        H = dgraph.hessian(f, a, X, params=["a"], lang=lang)
        np.testing.assert_allclose(H(X, b), ref, rtol=1e-12, atol=1e-14)
    hvp = dgraph.make_function(f, "hvp", params=["a"], point=[a, X])
    np.testing.assert_allclose(hvp(X, b, v), ref @ v, rtol=1e-12, atol=1e-14)


class _Namespace:
    xp = jnp  # JAX reached through an attribute: uses_jax does not see it


def test_a_jax_function_the_numpy_tracer_cannot_read_is_read_from_jax():
    def f(x):
        return _Namespace.xp.sum(_Namespace.xp.sin(x) * x)

    x = np.linspace(0.1, 1.0, 4)
    expected = np.diag(2.0 * np.cos(x) - x * np.sin(x))  # (x sin x)''
    np.testing.assert_allclose(dgraph.hessian(f, x)(x), expected, rtol=1e-13, atol=1e-15)


def test_without_jax_a_numpy_function_s_hessian_is_refused_in_one_line(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "jax.numpy", None)  # import jax.numpy fails
    g = from_function(rosenbrock_np, sizes=[(N,)], level="array")
    with pytest.raises(DGraphError, match=r"^the Hessian of a NumPy function is read with JAX"):
        jax_primal(g)


@needs_cc
def test_c_values_of_a_numpy_function_s_sparse_hessian():
    H = dgraph.hessian(rosenbrock_np, X, sparse=True, lang="c")
    assert H.lang == "c" and H.generated.verified
    h = H(X)
    assert h.nnz == 3 * N - 2
    assert np.array_equal(h.toarray(), h.toarray().T)
    np.testing.assert_allclose(h.toarray(), reference(rosenbrock_jnp, X), rtol=1e-12, atol=1e-12)


@needs_cc
def test_c_value_gradient_hessian_of_a_numpy_function_dense():
    """Dense in C: the compiled values scattered into jax.hessian's shape; (f, ∇f) from
    the same call."""
    f, g, h = dgraph.make_function(rosenbrock_np, "value_gradient_hessian", point=[X], lang="c")(X)
    with jax.enable_x64(True):
        g_ref = jref.grad(rosenbrock_jnp)(jnp.asarray(X))
    np.testing.assert_allclose([float(f), *g], [rosenbrock_np(X), *g_ref], rtol=1e-12)
    np.testing.assert_allclose(h, reference(rosenbrock_jnp, X), rtol=1e-12, atol=1e-12)


def _argsorted_rows(x):
    return np.sum(x[:6].reshape(2, 3)[np.argsort(x[:2])] ** 3)


def _shifted_argmax(x):
    return np.sum(x[:4].reshape(2, 2)[np.argsort(x[:2]) + 0] ** 3)  # positions, moved


def test_rows_taken_at_an_argsort_equal_jax_s():
    """``A[np.argsort(x)]``: rows at positions computed from x (``take_dynamic``), at X
    and at X reversed (another order); refused before."""
    h = dgraph.hessian(_argsorted_rows, X)
    reference = jref.hessian(lambda x: jnp.sum(x[:6].reshape(2, 3)[jnp.argsort(x[:2])] ** 3))
    with jax.enable_x64(True):
        for x in (X, X[::-1].copy()):
            np.testing.assert_allclose(h(x), reference(jnp.asarray(x)), rtol=1e-12, atol=0)


def test_a_hessian_through_a_sort_equals_jax_s():
    """JAX's gradient of a sort scatters at positions that depend on x
    (``scatter_add_dynamic``); at X and at X reversed (another order)."""
    h = dgraph.hessian(lambda x: np.sort(x)[0] * x[1], X)
    reference = jref.hessian(lambda x: jnp.sort(x)[0] * x[1])  # stored
    with jax.enable_x64(True):
        for x in (X, X[::-1].copy()):
            np.testing.assert_allclose(h(x), reference(jnp.asarray(x)), rtol=1e-12, atol=0)


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        # an index that depends on x other than np.argmax/argmin/argsort's positions themselves
        (lambda: dgraph.hessian(_shifted_argmax, X), "indexing with a value that depends"),
        (lambda: dgraph.hessian(lambda x: x[0] * x[1] if x[0] > 0 else x[1], X), "numpy.where"),
        (lambda: dgraph.hessian(lambda x: x * x, X), "give weights="),
        (
            lambda: dgraph.hessian(lambda x: np.trace(x[:4].reshape(2, 2), 0, 1, 1) ** 2, X),
            "numpy.diagonal: axis1 and axis2 cannot be the same",
        ),
    ],
)
def test_bad_input_is_one_line(call, needle):
    with pytest.raises(DGraphError) as raised:
        call()
    message = str(raised.value)
    assert needle in message and "\n" not in message


def _compiled(path, tmp_path):
    """The C file at ``path`` compiled into a shared library (the C tests' compiler)."""
    import ctypes
    import subprocess

    library = tmp_path / (path.stem + ".so")
    command = [compiler(), "-O2", "-shared", "-fPIC", "-o", str(library), str(path), "-lm"]
    subprocess.run(command, check=True, capture_output=True)
    return ctypes.CDLL(str(library))


def _pointer(a):
    import ctypes

    return a.ctypes.data_as(ctypes.c_void_p)


@needs_cc
def test_command_line_writes_a_numpy_function_s_hessian_in_c(tmp_path, monkeypatch, capsys):
    import ctypes

    from dgraph.cli import main
    from dgraph.codegen.tensor.c_values import read_index_file

    (tmp_path / "model.py").write_text(
        "import numpy as np\n\n\ndef rosenbrock(x):\n"
        "    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)\n"
    )
    monkeypatch.chdir(tmp_path)
    argv = ["codegen", "model.py:rosenbrock", "--inputs", f"x:{N}", "--mode", "hessian"]
    assert main([*argv, "--level", "array", "-o", "arrays.c"]) == 0  # values, then dense H
    assert "void hessian(" in (tmp_path / "arrays.c").read_text()  # (test_codegen_c_values)
    capsys.readouterr()
    # no level named: a small function is read at the element level, a dense hessian(x, H)
    assert main([*argv, "-o", "dense.c", "--method", "symbolic"]) == 0  # the choice's, named
    assert "hessian(rosenbrock) gradient graph" in capsys.readouterr().out
    dense = _compiled(tmp_path / "dense.c", tmp_path)
    h = np.zeros((N, N))
    dense.hessian(_pointer(np.ascontiguousarray(X)), _pointer(h))
    np.testing.assert_allclose(h, reference(rosenbrock_jnp, X), rtol=1e-12, atol=1e-12)
    assert main([*argv, "--sparse", "-o", "hess.c"]) == 0
    assert "hess.bin" in capsys.readouterr().out
    arrays = read_index_file(tmp_path / "hess.bin")
    indices, indptr, shape = (arrays.pop(k) for k in ("indices", "indptr", "shape"))
    lib = _compiled(tmp_path / "hess.c", tmp_path)
    data = np.zeros(indices.size)
    constants = [np.ascontiguousarray(a) for a in arrays.values()]
    x = np.ascontiguousarray(X)
    lib.jacobian_values(*(_pointer(a) for a in [x, *constants, data]))
    lib.hessian_mirror(ctypes.c_long(N), _pointer(indptr), _pointer(indices), _pointer(data))
    h = scipy.sparse.csr_array((data, indices, indptr), shape=tuple(shape)).toarray()
    assert indices.size == 3 * N - 2 and np.array_equal(h, h.T)
    np.testing.assert_allclose(h, reference(rosenbrock_jnp, X), rtol=1e-12, atol=1e-12)


@needs_cc
def test_command_line_writes_a_hessian_vector_product(tmp_path, monkeypatch, capsys):
    """``codegen --mode hvp``: H·v as the gradient graph's tangent sweep, ``hvp`` (= ``jvp``)
    in Python and JAX, ``jvp`` in C (a graph of scalars', or the array level's with its
    index file)."""
    from dgraph.cli import main
    from dgraph.codegen.python import load_python
    from dgraph.codegen.tensor.c_values import read_index_file

    (tmp_path / "model.py").write_text(
        "import numpy as np\n\n\ndef rosenbrock(x):\n"
        "    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)\n"
    )
    monkeypatch.chdir(tmp_path)
    argv = ["codegen", "model.py:rosenbrock", "--inputs", f"x:{N}", "--mode", "hvp"]
    v = np.linspace(-1.0, 1.0, N)
    want = reference(rosenbrock_jnp, X) @ v
    assert main([*argv, "-o", "hvp.py"]) == 0
    assert main([*argv, "-o", "hvp_jax.py", "--lang", "jax"]) == 0
    for name in ("hvp.py", "hvp_jax.py"):
        module = load_python((tmp_path / name).read_text())
        with jax.enable_x64(True):  # JAX computes in float32 unless asked
            got = np.asarray(module.hvp(X, v))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # a small function: its graph of scalars (the method the choice takes, named)
    assert main([*argv, "-o", "hvp.c", "--method", "paths"]) == 0
    lib = _compiled(tmp_path / "hvp.c", tmp_path)
    got = np.zeros(N)
    lib.jvp(*(_pointer(np.ascontiguousarray(a)) for a in (X, v, got)))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # the array level: the gradient graph's jvp in C with its index file (constants K…)
    assert main([*argv, "--level", "array", "-o", "array.c"]) == 0
    arrays = read_index_file(tmp_path / "array.bin")
    constants = [np.ascontiguousarray(arrays[k]) for k in arrays if k.startswith("K")]
    got = np.zeros(N)
    _compiled(tmp_path / "array.c", tmp_path).jvp(
        *(_pointer(np.ascontiguousarray(a)) for a in (X, v, *constants, got))
    )
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def _fem_np(u):
    """A 1-D finite-element energy as NumPy users assemble it: ``np.add.at`` of each
    element's 2×2 stiffness into ``np.zeros((n, n))`` (benchmarks/real_programs3.py)."""
    n = u.shape[0]
    K = np.zeros((n, n))
    for e in range(n - 1):
        idx = np.array([e, e + 1])
        ke = (1 + ((u[e] + u[e + 1]) / 2) ** 2) * np.array([[1.0, -1.0], [-1.0, 1.0]])
        np.add.at(K, (idx[:, None], idx[None, :]), ke)
    return 0.5 * u @ K @ u


def _fem_jnp(u):
    a = 1 + ((u[:-1] + u[1:]) / 2) ** 2
    return 0.5 * jnp.sum(a * (u[1:] - u[:-1]) ** 2)


def test_an_assembly_s_scatters_transpose_to_gathers_of_the_touched_entries():
    """Each ``np.add.at`` of 4 entries into an n×n array is, in the JAX primal the Hessian
    reads, ``x.at[targets].add(u)``: its gradient scatters 4 entries, where a gather over
    all n² positions (untouched ones clamped to update 0) scattered n² (a statement n²
    deep per element: 253 s and a RecursionError at n = 30)."""
    n = 6
    x = np.cos(np.linspace(0.0, 3.0, n))
    g = from_function(_fem_np, sizes=[(n,)], level="array")
    with jax.enable_x64(True):
        jaxpr = jax.make_jaxpr(jax.grad(jax_primal(g)))(jnp.asarray(x)).jaxpr
    sizes = [
        int(np.prod(e.invars[2].aval.shape)) for e in jaxpr.eqns if "scatter" in str(e.primitive)
    ]
    assert sizes and max(sizes) == 4
    h = dgraph.hessian(_fem_np, x)
    np.testing.assert_allclose(h(x), reference(_fem_jnp, x), rtol=1e-12, atol=1e-12)


def test_a_few_updates_into_a_large_array_are_added_where_they_land():
    """``np.add.at`` of 4, of 4 (three at one position: three layers) and of 12 updates
    (all at one position) into a 100×100 array: in the NumPy, JAX and C programs each is
    a ``ScatterAdd`` (a layer a part) or a ``SegmentSum`` of its updates, no gather
    reading 10⁴ positions (each was ``K + where(L < 0, 0, ravel(u)[L])`` over every
    position, a layer a gather: 16 gathers of 10⁴); value and Jacobian those of JAX."""
    from dgraph.codegen import ir
    from dgraph.codegen.tensor.module import tensor_program
    from dgraph.methods import accumulate

    n = 100
    c = np.cos(np.arange(n * n)).reshape(n, n)
    two = np.array([3, 7])
    rep = (np.array([5, 5, 5, 9]), np.array([2, 2, 2, 9]))
    many = (np.zeros(12, dtype=int), np.ones(12, dtype=int))

    def f(u):
        K = np.zeros((n, n))
        np.add.at(K, (two[:, None], two[None, :]), np.exp(u).reshape(2, 2))
        np.add.at(K, rep, u * u)
        np.add.at(K, many, np.sin(u[0] * np.arange(12.0)))
        return (K + c)[:12, :12] ** 2

    def fj(u):
        K = jnp.zeros((n, n)).at[two[:, None], two[None, :]].add(jnp.exp(u).reshape(2, 2))
        K = K.at[rep].add(u * u).at[many].add(jnp.sin(u[0] * jnp.arange(12.0)))
        return (K + c)[:12, :12] ** 2

    es = accumulate(from_function(f, sizes=[(4,)], level="array"), "forward")
    for lang in ("python", "jax"):
        p = tensor_program(es, lang, sparse=True, mode="value_and_jacobian", keep_arrays=True)
        nodes = [node for s in p.statements for node in ir.walk(s.value)]
        read = [
            np.size(p.constants[i.id])
            for node in nodes
            if isinstance(node, ir.Index)
            for i in node.items
            if isinstance(i, ir.Name) and i.id in p.constants
        ]
        assert read and max(read) <= 12  # on main: 16 of 10⁴
        added = [n for n in nodes if isinstance(n, ir.ScatterAdd)]
        if lang == "jax":  # a part at a few runs of positions: a pad of each (XLA fuses them)
            added += [n for n in nodes if isinstance(n, ir.Call) and n.func == "pad"]
        assert len(added) >= 2
    x = np.array([0.3, -0.2, 0.9, 0.4])
    with jax.enable_x64(True):
        value = np.asarray(jax.jit(fj)(jnp.asarray(x)))  # one compilation, not one an operation
        jac = np.asarray(jref.jacobian(fj)(jnp.asarray(x))).reshape(144, 4)
    for lang in ("python", "c") if compiler() is not None else ("python",):
        made = dgraph.make_function(f, "value_and_jacobian", lang, sparse=True, point=[x])
        assert made.generated.verified
        got, J = made(x)
        np.testing.assert_allclose(got, value, rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(J.toarray(), jac, rtol=1e-13, atol=1e-13)


def _constant_size(program, node) -> int:
    """Entries of the module constant ``node`` names (0 for any other node)."""
    shape = program.constant_shapes.get(getattr(node, "id", None))
    return int(np.prod(shape)) if shape is not None else 0


def test_a_set_of_one_entry_transposes_to_one_segment_sum():
    """``K[e, e + 1] = ...`` into an n×n array: JAX's gradient of the primal's
    ``where(L < 0, K, ravel(v)[max(L, 0)])`` adds all n² cotangent entries onto the one
    update (n² layers), written as one ``SegmentSum``, where a ``+`` per layer made a
    statement of 721 nodes at n = 12 (and a RecursionError at n = 20, after 59 s); the
    Hessian equals JAX's."""
    from dgraph.codegen import ir
    from dgraph.codegen.tensor.module import tensor_program
    from dgraph.frontends.jax_hessian import gradient_graph
    from dgraph.methods import accumulate

    n = 12

    def f(u):
        K = np.zeros((n, n))
        for e in range(n - 1):
            K[e, e + 1] = np.sin(u[e]) * u[e + 1]
        return u @ K @ u

    def fj(u):
        K = jnp.zeros((n, n)).at[jnp.arange(n - 1), jnp.arange(1, n)].set(jnp.sin(u[:-1]) * u[1:])
        return u @ K @ u

    x = np.cos(np.linspace(0.0, 3.0, n))
    with jax.enable_x64(True):
        grad = gradient_graph(jax_primal(from_function(f, sizes=[(n,)], level="array")), x)
    program = tensor_program(accumulate(grad, "forward"), "python", sparse=True)
    sizes = [sum(1 for _ in ir.walk(s.value)) for s in program.statements]
    # the largest statement is the one ScatterAdd of the held writes' parts, both
    # scatter-adds of the gradient merged (tensor/scatter_chains.py): 12n - 6 nodes (138,
    # 282, 570 at n = 12, 24, 48: linear; 6n - 7 unmerged); a + per layer made 721 at n = 12
    assert max(sizes) <= 12 * n
    # the set a ScatterAdd of its n - 1 updates onto K cleared there (set21): its
    # transpose gathers n - 1 cotangents, no SegmentSum of n² of them onto one update
    summed = [s.value for s in program.statements if isinstance(s.value, ir.SegmentSum)]
    assert all(_constant_size(program, s.ids) < n * n for s in summed)
    h = dgraph.hessian(f, x, sparse=True)
    np.testing.assert_allclose(h(x).toarray(), reference(fj, x), rtol=1e-13, atol=1e-13)


def test_a_set_of_three_entries_reads_no_array_of_the_result_s_size():
    """``K[[1, 50, 99], [2, 3, 4]] = ...`` into a 100×100 array: the module clears
    the three positions of K (a constant mask: a NaN there would not leak) and adds
    the three updates there — no gather over the 10⁴ positions and no comparison (on
    main: ``where(L < 0, K, ravel(v)[max(L, 0)])``, a gather and a compare of 10⁴ each);
    the value and Jacobian in NumPy, JAX and C equal JAX's."""
    from dgraph.codegen import ir
    from dgraph.codegen.tensor.module import tensor_program
    from dgraph.methods import accumulate

    n = 100

    def f(x):
        K = np.zeros((n, n))
        K[[1, 50, 99], [2, 3, 4]] = np.sin(x[[1, 2, 1]]) * x[[2, 1, 2]]
        return np.tanh(K).sum(axis=0)

    def fj(x):
        K = (
            jnp.zeros((n, n))
            .at[jnp.array([1, 50, 99]), jnp.array([2, 3, 4])]
            .set(jnp.sin(x[jnp.array([1, 2, 1])]) * x[jnp.array([2, 1, 2])])
        )
        return jnp.tanh(K).sum(axis=0)

    g = from_function(f, sizes=[(3,)], level="array")
    program = tensor_program(accumulate(g, "forward"), "python", sparse=True)
    nodes = [node for s in program.statements for node in ir.walk(s.value)]
    big = [node for node in nodes if isinstance(node, ir.Index)]
    gathers = [node for node in big if any(_constant_size(program, i) >= n * n for i in node.items)]
    compares = [node for node in nodes if isinstance(node, ir.BinOp) and node.op in ("<", "==")]
    assert gathers == [] and compares == []  # on main: 1 gather, 1 compare of 10⁴
    langs = ["python", "jax"] + (["c"] if compiler() is not None else [])
    with jax.enable_x64(True):
        # each made once (from g alone: no point), run at both points
        made = {
            lang: dgraph.make_function(g, "value_and_jacobian", lang, sparse=lang != "jax")
            for lang in langs
        }
        for x in (np.array([0.3, -0.7, 1.1]), np.array([1.2, 0.4, -0.9])):
            value, jac = jref.references([jref.Reference("value_and_jacfwd", fj, (x,))])[0]
            for lang in langs:
                v, J = made[lang](x)
                np.testing.assert_allclose(np.asarray(v), value, rtol=1e-14)
                J = J.toarray() if scipy.sparse.issparse(J) else np.asarray(J)
                np.testing.assert_allclose(J.reshape(jac.shape), jac, rtol=1e-13, atol=1e-14)


def test_the_numpy_minimal_surface_writes_its_boundary_rows_in_place():
    """``p = np.pad(u, 1); p[0, :] = edge; p[-1, :] = edge`` (constant rows): JAX's
    gradient selects them under a boolean mask, ``where(M, p, C)``; the NumPy module
    writes the two rows into the fresh padded grid in place, no select over its
    (m + 2)² entries (on main: ``numpy.where(_K1 == 0, _K2, v_pad2)``, twice)."""
    m = 5
    h = 1.0 / (m + 1)
    edge = 1.0 - (2.0 * np.linspace(0.0, 1.0, m + 2) - 1.0) ** 2

    def area(p, xp):
        dx, dy = (p[1:, :-1] - p[:-1, :-1]) / h, (p[:-1, 1:] - p[:-1, :-1]) / h
        return 0.5 * h * h * xp.sum(xp.sqrt(1.0 + dx**2 + dy**2))

    def f(u):
        p = np.pad(np.reshape(u, (m, m)), 1)
        p[0, :], p[-1, :] = edge, edge
        return area(p, np)

    def fj(u):
        return area(jnp.pad(jnp.reshape(u, (m, m)), 1).at[0, :].set(edge).at[-1, :].set(edge), jnp)

    x = np.random.default_rng(6).uniform(0.0, 0.5, m * m)
    H = dgraph.hessian(f, x, sparse=True)
    text = H.gradient.generated.text
    assert "numpy.where(" not in text and f"[{m + 1}:{m + 2}, 0:{m + 2}] = " in text
    x2 = x[::-1] * 0.7
    np.testing.assert_allclose(H(x2).toarray(), reference(fj, x2), rtol=1e-12, atol=1e-12)


def _repeats_np(x):
    """``np.repeat`` as a membrane energy spreads each triangle's energy to its corners
    (benchmarks/real_programs14.py): one count, one per row, the flattened array, and the
    method with an axis."""
    M = np.reshape(x, (2, 3))
    spread = np.repeat(x**2, 3) * np.arange(18)
    rows = np.repeat(M, [1, 2], axis=0) ** 3
    flat = np.repeat(M, 2)
    return np.sum(spread) + np.sum(rows) + np.sum(np.sin(M.repeat(2, axis=1))) + flat @ flat[::-1]


def _repeats_jnp(x):
    M = jnp.reshape(x, (2, 3))
    spread = jnp.repeat(x**2, 3) * jnp.arange(18)
    rows = jnp.repeat(M, np.array([1, 2]), axis=0, total_repeat_length=3) ** 3
    flat = jnp.repeat(M, 2)
    return (
        jnp.sum(spread)
        + jnp.sum(rows)
        + jnp.sum(jnp.sin(jnp.repeat(M, 2, axis=1)))
        + (flat @ flat[::-1])
    )


def test_numpy_repeat_of_a_traced_array_is_a_selection():
    """``np.repeat`` of an array that depends on the inputs was refused ("numpy.repeat on
    an array that depends on the inputs is not supported"); now a ``take`` of each
    position as often as its count, its Hessian JAX's at another point."""
    x = X[:6]
    H = dgraph.hessian(_repeats_np, x, sparse=True)
    x2 = x[::-1] * 0.7
    np.testing.assert_allclose(H(x2).toarray(), reference(_repeats_jnp, x2), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("counts", "needle"),
    [([1, -1], "a negative repeat count"), ([1, 2, 3], "one per entry of the axis (2)")],
)
def test_numpy_repeat_with_bad_counts_is_one_line(counts, needle):
    with pytest.raises(DGraphError) as raised:
        dgraph.hessian(lambda x: np.sum(np.repeat(x.reshape(2, 3), counts, axis=0) ** 3), X[:6])
    assert needle in str(raised.value) and "\n" not in str(raised.value)


def _residual_list(x):
    """Residuals a user returns as a list of scalars (a sympy or NumPy system)."""
    return [np.exp(x[0] - x[1]) + x[1] ** 2, np.sqrt(1 + x[0] ** 2) * x[2], x[0] * x[2] ** 3]


def _residual_jnp(x):
    return jnp.stack([jnp.exp(x[0] - x[1]) + x[1] ** 2, jnp.sqrt(1 + x[0] ** 2) * x[2],
                      x[0] * x[2] ** 3])  # fmt: skip


def test_the_lagrangian_of_a_list_of_outputs_takes_one_weight_per_entry(tmp_path, monkeypatch):
    """A function returning a list of scalars: its Jacobian stacks them, and its
    Lagrangian's Hessian was refused ("the Hessian is of a function returning one array;
    f returns 3 leaves"; on the command line "--weights: the function must return one
    array"). Now ``vᵀf`` over the entries in order, in the API and the CLI."""
    from dgraph.cli import main

    x, v = np.array([0.3, -0.2, 0.7]), np.array([1.0, -2.0, 0.5])
    want = reference(lambda z: jnp.dot(v, _residual_jnp(z)), x)
    H = dgraph.hessian(_residual_list, x, weights=v, sparse=True)
    np.testing.assert_allclose(H(x, v).toarray(), want, rtol=1e-12, atol=1e-12)
    (tmp_path / "model.py").write_text(
        "import numpy as np\n\n\ndef r(x):\n    return [np.exp(x[0] - x[1]) + x[1] ** 2,"
        " np.sqrt(1 + x[0] ** 2) * x[2], x[0] * x[2] ** 3]\n"
    )
    monkeypatch.chdir(tmp_path)
    argv = ["codegen", "model.py:r", "--inputs", "x:3", "--mode", "hessian", "-o", "h.py"]
    assert main([*argv, "--weights", "1,-2,0.5"]) == 0
    spec = importlib.util.spec_from_file_location("h", tmp_path / "h.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    np.testing.assert_allclose(module.hessian(x, v), want, rtol=1e-12, atol=1e-12)


def _traces(x, xp):
    """Traces and diagonals over chosen axes: a stack of matrices' traces
    (``np.trace(A, axis1=1, axis2=2)``, the method with swapped axes), an offset diagonal
    of a 3-D array, and a matrix's offset trace."""
    A, B = xp.reshape(x, (3, 2, 2)), xp.reshape(x, (2, 3, 2))
    t, g = xp.trace(A, axis1=1, axis2=2), A.trace(axis1=2, axis2=1)
    d, e = xp.diagonal(B, 1, 0, 1), xp.diagonal(B, -1, 2, 1)
    m = xp.trace(xp.reshape(x[:9], (3, 3)), 1)
    return xp.sum(t**3) + xp.sum(d**2) * xp.sum(e) + xp.sum(xp.sin(g)) + m**2


def test_numpy_trace_and_diagonal_over_chosen_axes():
    """``np.trace(A, axis1=1, axis2=2)`` of traced arrays was refused ("numpy.trace with
    these arguments"), as was ``np.diagonal`` of any axes but a matrix's (0, 1)."""
    x = np.random.default_rng(8).normal(size=12)
    H = dgraph.hessian(lambda z: _traces(z, np), x, sparse=True)
    x2 = x[::-1] * 0.7
    want = reference(lambda z: _traces(z, jnp), x2)
    np.testing.assert_allclose(H(x2).toarray(), want, rtol=1e-12, atol=1e-12)


def _implicit_euler(xp):
    def f(p):
        A = xp.array([[0.0, 1.0], [-1.0, -0.1]])
        y = xp.stack([p[0], p[1]])
        for _ in range(2):
            y = xp.linalg.solve(xp.eye(2) - 0.1 * (A + p[2] * xp.diag(xp.cos(y))), y)
        return xp.sum(y**2) + p[3] ** 3

    return f


_EULER_JAX = _implicit_euler(jnp)


@pytest.mark.parametrize(
    ("lang", "mode"),
    [  # value_gradient_hessian's square part in NumPy's module (JAX's is the same) and C's;
        # C's Hessian alone: its pattern in test_a_c_file_s_hessian_pattern_is_symmetric
        ("python", "hessian"),
        ("jax", "hessian"),
        ("python", "value_gradient_hessian"),
        pytest.param("c", "value_gradient_hessian", marks=needs_cc),
    ],
)
def test_a_pattern_whose_blocks_are_not_symmetric(lang, mode):
    """Implicit Euler steps (a solve) of three unknowns and p₃³ beside them: the blocks'
    union gave the gradient's entry for p₃ a dense row of the others (13 entries, not
    the true 10), and the mirroring refused "the Hessian's pattern is not symmetric: a
    bug" in every sparse form and C. The entries whose mirror images have no block are
    dropped (zero, as those are): 10 entries, JAX's values."""
    p = np.array([0.3, -0.7, 1.1, 0.5])
    H = dgraph.make_function(_implicit_euler(np), mode, lang=lang, point=[p], sparse=True)
    h = H(p) if mode == "hessian" else H(p)[2]
    with jax.enable_x64(True):
        want = np.asarray(jref.hessian(_EULER_JAX)(p))  # compiled once for the cases
    dense = h.todense() if hasattr(h, "todense") else h.toarray()
    tol = 1e-6 if lang == "jax" else 1e-12  # JAX's module: floats unless x64 is global
    np.testing.assert_allclose(np.asarray(dense), want, rtol=tol, atol=tol)
    stored = h.nse if lang == "jax" else h.nnz  # BCOO's stored entries, CSR's
    assert stored == 10 and np.count_nonzero(want) == 10


@needs_cc
def test_a_c_file_s_hessian_pattern_is_symmetric(tmp_path):
    """``dgraph codegen --mode hessian --lang c``: its ``hessian_mirror`` bisects for each
    upper entry's mirror image, so the index file's pattern must be symmetric."""
    from dgraph.cli import main
    from dgraph.codegen.tensor.c_values import read_index_file

    source = tmp_path / "m.py"
    source.write_text(
        "import numpy as np\n"
        "def f(p):\n"
        "    A = np.array([[0.0, 1.0], [-1.0, -0.1]])\n"
        "    y = np.array([p[0], p[1]])\n"
        "    y = np.linalg.solve(np.eye(2) - 0.1 * (A + p[2] * np.diag(np.cos(y))), y)\n"
        "    return np.sum(y**2) + p[3]**3\n"
    )
    out = tmp_path / "h.c"
    argv = ["codegen", f"{source}:f", "--inputs", "p:4", "--mode", "hessian", "--lang", "c"]
    assert main([*argv, "--sparse", "-o", str(out)]) == 0
    index = read_index_file(tmp_path / "h.bin")
    indptr, indices = index["indptr"], index["indices"]
    pairs = {(i, int(j)) for i in range(4) for j in indices[indptr[i] : indptr[i + 1]]}
    assert len(pairs) == 10 and all((j, i) in pairs for i, j in pairs)


def _names_jnp_for_a_constant(x):
    return np.sum(np.sin(x) ** 2) * jnp.pi


def test_a_numpy_function_naming_jnp_for_a_constant():
    """Read with JAX first (it names ``jnp``), which cannot trace ``np.sin`` of its value:
    the Hessian falls back to the NumPy tracer, as ``dgraph accumulate`` does (it raised
    "tracing f with JAX failed")."""
    x = np.array([0.3, -0.7, 1.1])
    H = dgraph.make_function(_names_jnp_for_a_constant, "hessian", point=[x])
    np.testing.assert_allclose(H(x), np.diag(2 * np.pi * np.cos(2 * x)), rtol=1e-13)
