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
from tests import jax_reference as jref  # noqa: E402
from tests.jax_events import counted  # noqa: E402


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
    # correctly rounded float arithmetic, each operation as JAX binds it alone
    "times two": lambda a, k: lax.mul(a, 2 * jnp.ones_like(a)),
    "divide": lambda a, k: lax.div(a, 7.0 * jnp.ones_like(a)),
    "a * b + c": lambda a, k: a * (a + 0.3) + a[::-1],
    "sqrt": lambda a, k: jnp.sqrt(a + 0.1),
    "cube": lambda a, k: (a - 1.3) ** 3,
    "fifth power": lambda a, k: lax.integer_pow(a + 0.7, 5),
    "reciprocal cube": lambda a, k: lax.integer_pow(a + 0.7, -3),
    "rem": lambda a, k: lax.rem(a * 3.7 - 4.0, 0.9 * jnp.ones_like(a)),
    "floor": lambda a, k: jnp.floor(a * 3.0 - 2.5),
    "round away": lambda a, k: lax.round(a * 2.0 - 2.5, lax.RoundingMethod.AWAY_FROM_ZERO),
    "round even": lambda a, k: lax.round(a * 2.0 - 2.5, lax.RoundingMethod.TO_NEAREST_EVEN),
    "sign": lambda a, k: jnp.sign(a - 1.0),
    "max": lambda a, k: jnp.maximum(a, 1.0),
    "clamp": lambda a, k: lax.clamp(0.5, a, 2.0),
    "reduce max": lambda a, k: jnp.max(a - 3.0, axis=(0, 2)),
    "argmax": lambda a, k: jnp.argmax(jnp.cos(0.0) * a[:, ::-1], axis=1),
    "cummax": lambda a, k: lax.cummax(jnp.flip(a), axis=2, reverse=True),
    "where": lambda a, k: jnp.where(a > 1.0, a, -a),
    "float to int": lambda a, k: a.astype(np.int32),
    "float to bool": lambda a, k: (a - 1.0).astype(bool),
    "float64 to float32": lambda a, k: a.astype(np.float32),
    "pad": lambda a, k: jnp.pad(a, ((1, 0), (0, 2), (1, 1)), constant_values=-1.5),
    "split": lambda a, k: jnp.split(a, [1, 3], axis=2)[1],
    # integers: a loop's counter, indices, masks (two's complement wraps alike)
    "int add": lambda a, k: k + jnp.int32(5),
    "int wraps": lambda a, k: k * jnp.int32(2**30) + jnp.int32(2**31 - 1),
    "int div": lambda a, k: lax.div(k, jnp.array([2, 3, -4], dtype=np.int32)),
    "int rem": lambda a, k: lax.rem(k, jnp.array([-2, 3, 4], dtype=np.int32)),
    "int cube": lambda a, k: k**3,
    "int abs": lambda a, k: jnp.abs(k - 1),
    "counter": lambda a, k: jnp.where(k < 3, k + 1, 0).astype(np.int64) * 2,
    "int sum": lambda a, k: jnp.sum(k * 7, dtype=np.int32),
    "int cumsum": lambda a, k: jnp.cumsum(k, dtype=np.int32),
    "int cumsum reverse": lambda a, k: lax.cumsum(k, reverse=True),
    "int min": lambda a, k: jnp.min(k),
    "int to int8": lambda a, k: (k * 100).astype(np.int8),
    "bool and": lambda a, k: (k > 0) & (k < 5),
    "bool not": lambda a, k: ~(k > 0),
    "int xor": lambda a, k: k ^ jnp.int32(6),
    "comparison": lambda a, k: a >= 1.0,
}

LEFT_TO_JAX = {
    "large int to float": lambda a, k: (k.astype(np.int64) + 2**60).astype(np.float64),
    "exp": lambda a, k: jnp.exp(a),
    "sin": lambda a, k: jnp.sin(a),
    "tanh": lambda a, k: jnp.tanh(a),
    "power": lambda a, k: a**1.5,
    "float sum": lambda a, k: jnp.sum(a, axis=1),
    "float cumsum": lambda a, k: jnp.cumsum(a, axis=1),
    "dot": lambda a, k: a[0] @ a[1].T,
    "int div by zero": lambda a, k: lax.div(k, jnp.zeros_like(k)),
    "lowest int by -1": lambda a, k: lax.div(k * 0 - 2**31, -jnp.ones_like(k)),
    "NaN operand": lambda a, k: a * jnp.nan,
    "max of -0.0": lambda a, k: jnp.maximum(-0.0 * a, 0.0),
    "sign of -0.0": lambda a, k: jnp.sign(-0.0 * a),
    "float to int out of range": lambda a, k: (a * 1e10).astype(np.int32),
    "subnormal result": lambda a, k: (a + 1.0) * 1e-310,
    "to a subnormal float32": lambda a, k: ((a + 1.0) * 1e-40).astype(np.float32),
}


def _folded(f):
    """Each equation of ``f``'s jaxpr at the constants (calls inlined, as the reader reads
    them): NumPy's value (or None), JAX's (bound alone, eagerly)."""
    closed = jax.make_jaxpr(f)(_A, _K)
    out = []

    def run(jaxpr, consts, args):
        env = dict(zip(jaxpr.constvars, map(np.asarray, consts), strict=True))
        env.update(zip(jaxpr.invars, args, strict=True))
        for e in jaxpr.eqns:
            ins = [np.asarray(v.val) if hasattr(v, "val") else env[v] for v in e.invars]
            if e.primitive.name in ("pjit", "jit"):
                inner = e.params["jaxpr"]
                theirs = run(inner.jaxpr, inner.consts, ins)
            else:
                bound = e.primitive.bind(*ins, **e.params)
                theirs = [
                    np.asarray(b) for b in (bound if e.primitive.multiple_results else [bound])
                ]
                out.append((e, exact_fold(e, ins), theirs))
            env.update(zip(e.outvars, theirs, strict=True))
        return [np.asarray(v.val) if hasattr(v, "val") else env[v] for v in jaxpr.outvars]

    run(closed.jaxpr, closed.consts, [_A, _K])
    return out


@pytest.mark.parametrize("case", FOLDED)
def test_numpy_folds_moves_and_exact_conversions_as_jax_does(case):
    found = _folded(FOLDED[case])
    last, mine, theirs = found[-1]
    assert mine is not None, (case, last)
    for _, mine, theirs in found:
        for value, their in zip(mine, theirs, strict=True) if mine is not None else ():
            assert value.dtype == their.dtype and value.shape == their.shape
            assert value.tobytes() == their.tobytes()
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


_RNG = np.random.default_rng(31)
_WIDE = _RNG.standard_normal(4000) * np.exp2(_RNG.integers(-60, 60, 4000))
_OTHER = _RNG.standard_normal(4000) * np.exp2(_RNG.integers(-60, 60, 4000))

RANDOM = {
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "add": lambda x, y: x + y,
    "sqrt": lambda x, y: jnp.sqrt(jnp.abs(x)),
    "x**3": lambda x, y: x**3,
    "x**7": lambda x, y: lax.integer_pow(x, 7),
    "x**-2": lambda x, y: lax.integer_pow(x, -2),
    "rem": lambda x, y: lax.rem(x, y),
    "round": lambda x, y: lax.round(x * 1e-17, lax.RoundingMethod.AWAY_FROM_ZERO),
    "to float32": lambda x, y: x.astype(np.float32),
    "float32 mul": lambda x, y: x.astype(np.float32) * y.astype(np.float32),
}


@pytest.mark.parametrize("case", RANDOM)
def test_random_doubles_fold_bit_for_bit_as_jax_binds_them(case):
    """4,000 doubles over 120 binades: NumPy's fold is JAX's eager value bit for bit
    (``x**7`` by ``np.power`` instead of JAX's products differs at some of them)."""
    closed = jax.make_jaxpr(RANDOM[case])(_WIDE, _OTHER)
    env = dict(zip(closed.jaxpr.invars, (_WIDE, _OTHER), strict=True))
    folded = 0
    for e in closed.jaxpr.eqns:
        ins = [np.asarray(v.val) if hasattr(v, "val") else env[v] for v in e.invars]
        theirs = np.asarray(e.primitive.bind(*ins, **e.params))
        mine = exact_fold(e, ins)
        if mine is not None:
            assert mine[0].dtype == theirs.dtype and mine[0].tobytes() == theirs.tobytes(), e
            folded += 1
        env[e.outvars[0]] = theirs
    assert folded == len(closed.jaxpr.eqns)


def test_a_reader_of_counters_masks_and_arithmetic_on_constants_lowers_nothing():
    """Weights from integer counters, a mask, a remainder and float arithmetic on them:
    every equation on constants folded by NumPy, no program lowered (before: 9 lowerings,
    for 9 batches of 1 to 12 equations); the gradient's Hessian is JAX's."""
    from dgraph import accumulate
    from dgraph.frontends.jaxpr import from_jax

    def f(x):
        k = jnp.arange(x.size)
        w = jnp.where(k % 3 == 0, 2.0, (k + 1) / 7.0) ** 3 - jnp.sqrt(k * 0.5 + 1.0)
        w = jnp.clip(w, -0.5, None) * (k < 5)
        return jnp.sum(w * x**3) + jnp.sum(x[1:] * x[:-1])

    x = np.linspace(-1.0, 1.2, 7)
    lowered, g = counted(lambda: from_jax(jax.grad(f), x, level="array"))
    assert lowered == 0
    want = np.asarray(jref.hessian(f)(x))
    got = accumulate(g, "forward").evaluate([x])[0]
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


def _find(jaxpr, name: str):
    for e in jaxpr.eqns:
        if e.primitive.name == name:
            return e
        for value in e.params.values():
            for sub in value if isinstance(value, (tuple, list)) else (value,):
                inner = getattr(sub, "jaxpr", sub)
                found = _find(inner, name) if hasattr(inner, "eqns") else None
                if found is not None:
                    return found
    return None


def test_a_scan_s_empty_buffer_is_jax_s_zero():
    """``empty2`` (the buffer a gradient's ``cond`` in a loop fills): JAX's zero."""

    def f(x):
        body = lambda i, a: lax.cond(i > 0, lambda a: a * jnp.sin(x[i]), lambda a: a + x[i], a)  # noqa: E731
        return lax.fori_loop(0, 3, body, 1.0)

    e = _find(jax.make_jaxpr(jax.grad(f))(np.ones(4)).jaxpr, "empty2")
    if e is None:
        pytest.skip("no empty2 in this JAX's gradient")
    (mine,) = exact_fold(e, [])
    theirs = np.asarray(e.primitive.bind(**e.params))
    assert mine.dtype == theirs.dtype and mine.tobytes() == theirs.tobytes()
