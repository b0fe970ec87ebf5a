"""Work the default build path does once, not twice (counted, never timed): a dense
Jacobian by columns of the tangent program prints the NumPy ``jvp`` sweep that
:func:`~dgraph.codegen.tensor.jacobian_columns.columns_choice` built to price it
(dgraph/codegen/tensor/jacobian_columns.py), the same text as a sweep built again."""

from __future__ import annotations

import collections
import dataclasses

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import dgraph  # noqa: E402
from dgraph.codegen.tensor import function as tensor_function  # noqa: E402
from dgraph.codegen.tensor import jacobian_columns, sweeps  # noqa: E402
from tests import jax_reference as jref  # noqa: E402

N, STEPS = 4, 3
X = np.linspace(0.1, 1.0, N)


def kicks(x):
    """A time loop whose gradient's loops' sweeps count more than N columns: by columns."""

    def step(c, t):
        kick = lambda j, a: a + jnp.sin(x[j] * c[j]) * x  # noqa: E731
        return c + 0.01 * jax.lax.fori_loop(0, N, kick, jnp.zeros(N)), None

    return jnp.sum(jax.lax.scan(step, x, jnp.arange(STEPS))[0] ** 2)


@pytest.fixture(autouse=True)
def _x64():
    with jax.enable_x64(True):
        yield


def test_the_priced_jvp_sweep_is_the_one_printed(monkeypatch):
    """One NumPy ``jvp`` sweep built for a Hessian by columns in NumPy (two before: the
    price's, then the text's); the text is the one a sweep built afresh prints, and the
    Hessian is JAX's."""
    built = collections.Counter()
    build = sweeps._build

    def counted(graph, mode, lang, *args, **kwargs):
        if not args and not kwargs.get("seeds") and not kwargs.get("values"):
            built[(mode, lang)] += 1  # the whole graph's sweep (not a loop body's)
        return build(graph, mode, lang, *args, **kwargs)

    monkeypatch.setattr(sweeps, "_build", counted)
    H = dgraph.make_function(kicks, "hessian", "python", point=(X,))
    generated = H.gradient.generated
    assert "by" in generated.loops[0] and "columns of the tangent program" in generated.loops[0]
    assert built[("jvp", "python")] == 1
    graph = generated.graph
    choice = jacobian_columns.columns_choice(graph)
    assert choice is not None and choice.chosen and choice.sweep is not None
    again = dataclasses.replace(choice, sweep=None)  # printed from a sweep built afresh
    assert jacobian_columns.columns_module(graph, "python", again) == generated.text
    assert jacobian_columns.columns_module(graph, "python", choice) == generated.text
    want = np.asarray(jref.hessian(kicks)(jnp.asarray(X)))
    np.testing.assert_allclose(np.asarray(H(X)), want, rtol=1e-12, atol=1e-12)


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def test_the_array_programs_count_is_taken_when_read(monkeypatch):
    """A NumPy module's array program is counted when ``generated.ops`` is first read, not
    by the build (most callers never read it), once, and to what counting the program
    the build made gives (24 mults, 12 adds: what the build itself counted before)."""
    counted = collections.Counter()
    count = tensor_function.count_array_ops

    def counting(program, *args):
        counted[program.name] += 1
        return count(program, *args)

    monkeypatch.setattr(tensor_function, "count_array_ops", counting)
    made = []
    build = tensor_function.tensor_program
    monkeypatch.setattr(
        tensor_function, "tensor_program", lambda *a, **k: made.append(build(*a, **k)) or made[-1]
    )
    x = np.array([0.5, 1.2, -0.3, 0.8])
    H = dgraph.make_function(rosenbrock, "hessian", "python", point=(x,), sparse=True)
    generated = H.gradient.generated
    assert sum(counted.values()) == 0
    ops = generated.ops
    assert sum(counted.values()) == 1
    assert generated.ops is ops and sum(counted.values()) == 1  # kept once counted
    (program,) = made
    assert program.text == generated.text
    assert ops == count(program)
    assert (ops.ops.mults, ops.ops.adds) == (24, 12)  # what the build counted before
    assert generated.summary()["functions"] == {"jacobian": ops.ops.to_dict()}
    want = np.asarray(jref.hessian(rosenbrock)(jnp.asarray(x)))
    np.testing.assert_allclose(H(x).toarray(), want, rtol=1e-12, atol=1e-12)
