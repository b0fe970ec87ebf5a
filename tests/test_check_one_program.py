"""The value check runs generated JAX code as one program (dgraph/codegen/tensor/check.py's
``checked_call``): traced once, lowered and compiled once, then run at both points,
where called eagerly each ``jax.numpy`` operation was lowered and compiled on its own.
A wrong module is still caught; one JAX cannot trace, one too long to compile and one
that jits its own parts run as they are. Counted by the module's Python body (run once
for both points: a trace) and by JAX's lowerings (``jax.monitoring``), never by time."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

from dgraph import from_jax  # noqa: E402
from dgraph.codegen.function import make_function  # noqa: E402
from dgraph.codegen.python import load_python  # noqa: E402
from dgraph.codegen.tensor import check as tensor_check  # noqa: E402
from dgraph.codegen.tensor.check import check_tensor, checked_call  # noqa: E402
from dgraph.codegen.tensor.sweep_check import check_sweep  # noqa: E402

_LOWERINGS: list[str] = []
_COUNTING = [False]


def _listener(event: str, seconds: float, **kwargs) -> None:
    if _COUNTING[0] and event.endswith("jaxpr_to_mlir_module_duration"):
        _LOWERINGS.append(event)


jax.monitoring.register_event_duration_secs_listener(_listener)

X = np.array([0.3, -0.7, 1.1, 0.5, -1.3, 0.9])


def _f(x):
    w = jnp.arange(18.0).reshape(3, 6) / 10
    return jnp.tanh(w @ x) * jnp.exp(-x[:3]) + jnp.sin(x[::2]) ** 2


@pytest.fixture(scope="module")
def made():
    """The dense JAX Jacobian of ``_f`` (checked as it was made) and its expression set."""
    J = make_function(from_jax(_f, X, level="array"), "jacobian", "jax")
    assert J.generated.check.status == "verified"
    return J.generated


def _counted(text: str, mode: str, damage=lambda t: t):
    """The module's ``mode`` function from ``text`` (``damage`` applied), and a list its
    body appends to at each run of its Python code."""
    runs: list[int] = []
    module = load_python(damage(text))
    inner = getattr(module, mode)

    def counted(*args):
        runs.append(1)
        return inner(*args)

    return counted, runs


def _check(function, es, mode="jacobian"):
    """check_tensor's result, and the lowerings JAX made for it."""
    _COUNTING[0], before = True, len(_LOWERINGS)
    try:
        check = check_tensor(function, es, "jax", mode=mode)
    finally:
        _COUNTING[0] = False
    return check, len(_LOWERINGS) - before


def test_the_check_traces_the_module_once_and_lowers_one_program(made):
    function, runs = _counted(made.text, "jacobian")
    check, lowerings = _check(function, made.expression_set)
    assert check.status == "verified" and check.ok
    assert len(runs) == 1  # traced once for both points; eagerly: once per point
    assert lowerings == 1  # the module's program (the reference was compiled at the build)


def test_a_wrong_module_is_still_caught_under_jit(made):
    old = "    return J_y_x"
    assert old in made.text

    def damage(text):  # one entry off by 1e-6 of itself
        return text.replace(old, "    return J_y_x.at[1, 2].multiply(1 + 1e-6)")

    function, runs = _counted(made.text, "jacobian", damage)
    check, _ = _check(function, made.expression_set)
    assert check.status == "wrong" and not check.ok and len(runs) == 1


def _untraceable(text: str, factor: float):
    """The module's jacobian behind a Python ``if`` on a value (JAX cannot trace it)."""
    module = load_python(text)

    def jacobian(x):
        if float(np.asarray(x)[0]) > -100.0:  # true at both points
            return module.jacobian(x) * factor
        return module.jacobian(x)

    return jacobian


@pytest.mark.parametrize(("factor", "status"), [(1.0, "verified"), (1.001, "wrong")])
def test_a_module_jax_cannot_trace_runs_eagerly_and_is_checked(made, factor, status):
    calls: list[int] = []
    inner = _untraceable(made.text, factor)

    def jacobian(x):
        calls.append(1)
        return inner(x)

    check, _ = _check(jacobian, made.expression_set)
    assert check.status == status
    assert len(calls) == 3  # the trace that failed, then one eager call per point


def test_a_module_too_long_to_compile_runs_eagerly(made, monkeypatch):
    monkeypatch.setattr(tensor_check, "REFERENCE_JIT_MOST", 3)
    function, runs = _counted(made.text, "jacobian")
    check, _ = _check(function, made.expression_set)
    assert check.status == "verified" and len(runs) == 3  # traced, counted; then eager


def test_a_module_that_jits_its_own_parts_is_called_as_it_is(made):
    sparse = make_function(made.expression_set, "jacobian", "jax", sparse=True)
    assert sparse.generated.check.status == "verified"
    module = load_python(sparse.generated.text)
    assert "_bound" in vars(module)  # its values are one jitted function already
    assert checked_call(module.jacobian, "jax") is module.jacobian
    plain = load_python(made.text).jacobian
    assert checked_call(plain, "python") is plain
    assert checked_call(plain, "jax") is not plain


def test_the_jvp_check_runs_one_program_too(made):
    jvp = make_function(made.expression_set, "jvp", "jax")
    assert jvp.generated.check.status == "verified"
    function, runs = _counted(jvp.generated.text, "jvp")
    check = check_sweep(function, "jvp", made.expression_set, "jax")
    assert check.status == "verified" and len(runs) == 1
    wrong, runs = load_python(jvp.generated.text), []

    def scaled(*args):
        runs.append(1)
        return wrong.jvp(*args) * 1.001

    check = check_sweep(scaled, "jvp", made.expression_set, "jax")
    assert check.status == "wrong" and len(runs) == 1


def test_a_compile_option_xla_refuses_is_left_out(made, monkeypatch):
    """The check's program compiled with an option this XLA refuses ("No such compile
    option") is compiled without it, as a reference is (quick_jit)."""
    from dgraph.frontends import jaxpr_arrays
    from dgraph.frontends.jaxpr_arrays import REFERENCE_COMPILE, known_options

    monkeypatch.setattr(jaxpr_arrays, "_UNKNOWN_OPTIONS", set())
    options = {**REFERENCE_COMPILE, "xla_no_such_option_for_dgraph": 1}
    monkeypatch.setattr(tensor_check, "reference_options", lambda args, equations: options)
    function, runs = _counted(made.text, "jacobian")
    check, lowerings = _check(function, made.expression_set)
    assert check.status == "verified" and len(runs) == 1 and lowerings == 1
    assert known_options(options) == REFERENCE_COMPILE
