"""What real programs met (benchmarks/real_programs.py): a function's parameters with
defaults (``def heat(u, nu=0.1)``) keep them, from Python and on the command line, and a
program that computes in float32 is checked against its float64 program, not against
JAX's float32 ``jvp`` (which differs by float32's rounding, not by a wrong rule)."""

import contextlib
import importlib.util
import io

import numpy as np
import pytest

import dgraph
from dgraph.cli import main

jax = pytest.importorskip("jax")
jnp = jax.numpy

X = np.array([0.3, 0.7, 1.1])


def heat_jax(u, nu=0.1, dx=0.5):
    return nu * (jnp.roll(u, 1) - 2 * u + jnp.roll(u, -1)) / dx**2 + jnp.sin(u) * u[0]


def heat_numpy(u, nu=0.1, dx=0.5):
    return nu * (np.roll(u, 1) - 2 * u + np.roll(u, -1)) / dx**2 + np.sin(u) * u[0]


@pytest.fixture(scope="module")
def expected():
    """JAX's Jacobian of heat_jax at X, once for the module (a read-only array)."""
    with jax.enable_x64(True):
        found = np.array(jax.jit(jax.jacfwd(heat_jax))(jnp.asarray(X)))
    found.flags.writeable = False
    return found


@pytest.mark.parametrize("f", [heat_jax, heat_numpy])
def test_parameters_with_defaults_keep_them(f, expected):
    # the method: the one make_function's choice gives (the same generated text), named so
    # that the tests, of reading a function's defaults, do not build and cost every candidate
    made = dgraph.make_function(f, point=[X], method="forward")
    assert np.allclose(made(X), expected, atol=1e-12)
    made = dgraph.make_function(f, sizes=[3], method="forward")
    assert np.allclose(made(X), expected, atol=1e-12)
    assert np.allclose(dgraph.jacobian(f, point=[X]).evaluate(X), expected, atol=1e-12)


def test_a_default_left_out_on_the_command_line_keeps_it(tmp_path, expected):
    model = tmp_path / "model.py"
    model.write_text(
        "import jax.numpy as jnp\n\n\ndef heat(u, nu=0.1, dx=0.5):\n"
        "    return nu * (jnp.roll(u, 1) - 2 * u + jnp.roll(u, -1)) / dx**2"
        " + jnp.sin(u) * u[0]\n"
    )
    out = tmp_path / "jac.py"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["codegen", f"{model}:heat", "--inputs", "u:3", "-o", str(out)]) == 0
    spec = importlib.util.spec_from_file_location("jac", out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert np.allclose(module.jacobian(X), expected, atol=1e-12)


def test_a_parameter_without_default_left_out_is_still_one_line(tmp_path, capsys):
    model = tmp_path / "model.py"
    model.write_text("def f(u, nu, dx=0.5):\n    return u * nu / dx\n")
    assert main(["codegen", f"{model}:f", "--inputs", "u:3", "-o", str(tmp_path / "j.py")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "'nu' is not given" in err
    assert not (tmp_path / "j.py").exists()


def test_a_float32_program_is_checked_in_float64():
    """JAX's float32 jvp differs from the float64 derivative by ~1e-4 of |J|·|v| here; the
    check said the partials were wrong (a VerificationError). The graph now has no JAX
    reference, says why, and the generated Jacobian verifies and matches JAX."""

    def f(x):
        y = x.astype(jnp.float32)
        return jnp.tanh(jnp.cumsum(jnp.sin(y) * y))

    x = np.linspace(0.1, 1.0, 6)
    made = dgraph.make_function(f, point=[x], method="forward")  # the choice's (the same text)
    assert made.generated.verified
    with jax.enable_x64(True):
        want = np.asarray(jax.jit(jax.jacfwd(f))(jnp.asarray(x)), dtype=float)
    assert np.abs(made(x) - want).max() < 1e-5  # float32's rounding in JAX's
    graph = dgraph.frontends.from_python(f, point=[x], level="array")
    assert graph.jvp_reference is None
    assert any("computes in float32" in note for note in graph.notes)


class _FlatTree(tuple):
    """Newer JAX's ``ft_in`` as far as scan_layout reads it: ``unpack()`` into the flat
    trees of consts, carry and xs, each ``len`` its leaf count."""

    def unpack(self):
        return tuple(self)


def test_scan_layout_reads_both_jax_parameter_sets():
    from dgraph.frontends.jaxpr_compat import scan_layout

    closed = jax.make_jaxpr(lambda x: x * 2)(1.0)
    old = {"jaxpr": closed, "num_consts": 1, "num_carry": 2}
    assert scan_layout(old) == (closed, 1, 2)
    new = {"jaxpr": closed.jaxpr, "ft_in": _FlatTree(((None,), (None, None, None), ()))}
    body, consts, carry = scan_layout(new)
    assert (consts, carry, body.jaxpr, tuple(body.consts)) == (1, 3, closed.jaxpr, ())


def test_params_with_every_argument_in_point():
    """``loss(w, X, y)`` with ``params=("X", "y")`` and the three example arguments, as
    ``dgraph.hessian`` takes them (it was refused: 'give sizes= for every argument')."""
    rng = np.random.default_rng(0)
    X, y, w = rng.normal(size=(5, 2)), rng.normal(size=5), np.array([0.3, -0.2])

    def loss(w, X, y):
        return jnp.mean((X @ w - y) ** 2)

    made = dgraph.make_function(loss, point=[w, X, y], params=("X", "y"), method="reverse")
    want = 2 * X.T @ (X @ w - y) / 5
    assert np.allclose(made(w, np.concatenate([X.ravel(), y])), want, atol=1e-12)
    with pytest.raises(dgraph.DGraphError, match="or point= for every argument"):
        dgraph.make_function(loss, point=[w, X], params=("X", "y"))


def test_a_pytree_point_is_one_line_without_jax_s_tree_util(monkeypatch):
    """A dict point is read where JAX is installed (pytree53: tests/test_args46.py); where
    it is not (JAX's tree_util flattens the pytrees), refused in one line as before."""
    import dgraph.frontends.pytrees as pytrees

    monkeypatch.setattr(pytrees, "has_jax", lambda: False)
    with pytest.raises(dgraph.DGraphError, match="point= entry 0 is a dict"):
        dgraph.make_function(lambda p: np.sin(p["b"]), point=[{"b": np.ones(3)}])


def test_the_hessian_of_a_solve():
    """A gradient's ``jnp.linalg.solve`` is a transposed solve (matvec ``Aᵀ·x``): it was
    refused ('custom_linear_solve with a matvec other than a product with one matrix'),
    and with a constant right side its code's ``numpy.matmul(b, inv(A)ᵀ)`` was counted as
    a broadcast, (6,) and (6, 6) to (6, 6), and an einsum over it raised ValueError."""
    b = np.array([1.0, -2.0, 0.5])

    def f(a):
        A = a.reshape(3, 3) @ a.reshape(3, 3).T + 3 * jnp.eye(3)
        return b @ jnp.linalg.solve(A, b)

    a = np.linspace(-0.5, 0.7, 9)
    with jax.enable_x64(True):
        want = np.asarray(jax.jit(jax.hessian(f))(jnp.asarray(a)))
    assert np.abs(dgraph.hessian(f, a, method="reverse")(a) - want).max() < 1e-10  # the choice's


@pytest.mark.parametrize(
    "a, b", [((6,), (6, 6)), ((6, 6), (6,)), ((6,), (6,)), ((2, 3, 4), (4, 5)), ((4,), (2, 4, 5))]
)
def test_matmul_shapes_are_numpy_s(a, b):
    from dgraph.codegen.call_shapes import Operand, call_shape

    got = call_shape("numpy.matmul", [Operand(a), Operand(b)], {})
    assert got == np.matmul(np.ones(a), np.ones(b)).shape
