"""Equations on constants that NumPy folds (:func:`dgraph.frontends.jaxpr_exact.exact_fold`)
get JAX's values bit for bit, dtype and shape included; any other equation is left to
JAX; and the reader compiles no program for a function whose constants are only moved."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="JAX is not installed")
jnp = jax.numpy
lax = jax.lax

from dgraph.frontends.jaxpr_exact import exact_fold  # noqa: E402


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


_A = np.arange(24.0).reshape(2, 3, 4) / 7.0
_K = np.array([3, -2, 7], dtype=np.int32)

# each a function of the constants (a, k): traced, each equation then folded at them
FOLDED = {
    "broadcast": lambda a, k: lax.broadcast_in_dim(a[0, 0], (3, 4), (1,)),
    "broadcast literal": lambda a, k: jnp.ones((2, 5)),
    "reshape": lambda a, k: jnp.reshape(a, (6, 4)),
    "squeeze": lambda a, k: lax.squeeze(a[:1], (0,)),
    "transpose": lambda a, k: jnp.transpose(a, (2, 0, 1)),
    "rev": lambda a, k: lax.rev(a, (1, 2)),
    "slice": lambda a, k: lax.slice(a, (0, 1, 0), (2, 3, 4), (1, 1, 3)),
    "concatenate": lambda a, k: jnp.concatenate([a, a[:1]]),
    "iota float": lambda a, k: lax.iota(np.float64, 7),
    "iota int 2-d": lambda a, k: lax.broadcasted_iota(np.int32, (3, 4), 1),
    "int32 to int64": lambda a, k: k.astype(np.int64),
    "int to float": lambda a, k: k.astype(np.float64),
    "bool to float": lambda a, k: (k > 0).astype(np.float64),
    "float32 to float64": lambda a, k: a.astype(np.float32).astype(np.float64),
    "times one": lambda a, k: lax.mul(a, jnp.ones_like(a)),
}

LEFT_TO_JAX = {
    "times two": lambda a, k: lax.mul(a, 2 * jnp.ones_like(a)),
    "divide": lambda a, k: lax.div(a, 7.0 * jnp.ones_like(a)),
    "float to int": lambda a, k: a.astype(np.int32),
    "float64 to float32": lambda a, k: a.astype(np.float32),
    "large int to float": lambda a, k: (k.astype(np.int64) + 2**60).astype(np.float64),
}


def _folded(f):
    """Each equation of ``f``'s jaxpr at the constants: NumPy's value (or None), JAX's."""
    closed = jax.make_jaxpr(f)(_A, _K)
    env = dict(zip(closed.jaxpr.constvars, map(np.asarray, closed.consts), strict=True))
    env.update(zip(closed.jaxpr.invars, (_A, _K), strict=True))
    out = []
    for e in closed.jaxpr.eqns:
        ins = [np.asarray(v.val) if hasattr(v, "val") else env[v] for v in e.invars]
        theirs = np.asarray(e.primitive.bind(*ins, **e.params))
        out.append((e, exact_fold(e, ins), theirs))
        env[e.outvars[0]] = theirs
    return out


@pytest.mark.parametrize("case", FOLDED)
def test_numpy_folds_moves_and_exact_conversions_as_jax_does(case):
    found = _folded(FOLDED[case])
    last, mine, theirs = found[-1]
    assert mine is not None, (case, last)
    for _, mine, theirs in found:
        if mine is not None:
            (value,) = mine
            assert value.dtype == theirs.dtype and value.shape == theirs.shape
            assert value.tobytes() == theirs.tobytes()
            assert not value.flags.writeable


@pytest.mark.parametrize("case", LEFT_TO_JAX)
def test_rounding_equations_are_left_to_jax(case):
    last, mine, _ = _folded(LEFT_TO_JAX[case])[-1]
    assert mine is None, (case, last)


def test_a_subnormal_operand_is_left_to_jax():
    """XLA on this processor flushes subnormals to zero (5e-324 * 1 is 0 there)."""
    ((e, _, _),) = _folded(lambda a, k: lax.mul(a, a))
    tiny = np.full(_A.shape, 5e-324)
    assert exact_fold(e, [tiny, np.ones(_A.shape)]) is None
    assert exact_fold(e, [np.ones(_A.shape), tiny]) is None
    assert exact_fold(e, [_A, np.ones(_A.shape)])[0].tobytes() == _A.tobytes()


def test_a_function_of_moved_constants_compiles_no_program(monkeypatch):
    """The Rosenbrock gradient's constants (a broadcast of 1.0 and 100 times it) once
    compiled one XLA program to fold."""
    from jax._src import compiler

    from dgraph.frontends.jax_hessian import gradient_graph

    compiled = []
    inner = compiler.backend_compile_and_load
    monkeypatch.setattr(
        compiler,
        "backend_compile_and_load",
        lambda *a, **k: compiled.append(1) or inner(*a, **k),
    )

    def rosenbrock(x):
        return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

    g = gradient_graph(rosenbrock, np.linspace(0.5, 1.5, 7))
    assert g.is_tensor and not compiled
