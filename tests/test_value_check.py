"""The one value check (dgraph/core/value_check.py) and the third state it gives,
``not verified``: the user's point first, JAX's jvp where the source is JAX, differences
with step control elsewhere, errors against |J|·|v|; never ``verified`` without a value
compared."""

from __future__ import annotations

import dataclasses
import json
import pickle
import re
import warnings

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import dgraph  # noqa: E402
from dgraph import make_function  # noqa: E402
from dgraph.core import block_values  # noqa: E402
from dgraph.core.verify import Verification  # noqa: E402
from dgraph.frontends import from_function, from_jax  # noqa: E402
from dgraph.methods import accumulate  # noqa: E402
from tests import jax_reference as jref  # noqa: E402

NEAR = np.array([0.01, 0.02, 0.03])  # where narrow() is finite, outside every random range


def narrow(x):
    """Finite only for 0 < x < 0.05 (as Graphax's RoeFlux_1d is finite near its own test
    point and nowhere in the random ranges)."""
    return jnp.log(x) * jnp.log(0.05 - x) + x * x


def steep(x):
    """A gradient of 9·10¹⁴ at x₀ = 1.3e-5: central differences at a fixed step are far
    off there."""
    return jnp.sum(1 / x**2) + jnp.sum(jnp.sin(x))


def _scaled(name: str, factor: float):
    original = block_values.block_value

    def block_value(op, k, values, block):
        value = original(op, k, values, block)
        return value * factor if op.primitive == name else value

    return block_value


def test_a_program_finite_only_near_the_user_s_point_is_checked_there(monkeypatch):
    g = from_jax(narrow, NEAR, level="array")
    np.testing.assert_array_equal(g.point["x"], NEAR)
    es = accumulate(g, "forward")
    assert es.verified
    assert "JAX's jvp at the user's point" in es.verification.detail
    assert "no random point" in es.verification.detail
    assert "give a point" not in es.verification.detail  # the user gave one (survey61)
    monkeypatch.setattr(block_values, "block_value", _scaled("log", 1.001))
    check = es.verify()
    assert check.status == "wrong" and "at the user's point" in check.detail
    monkeypatch.undo()
    g.set_point(None)  # without it, nothing is finite: not verified, never a pass
    check = accumulate(g, "forward").verification
    assert check.status == "not verified" and not check


def test_the_point_is_kept_by_copy():
    x = NEAR.copy()
    g = from_jax(narrow, x, level="array")
    x[0] = 7.0
    assert g.point["x"][0] == 0.01 and not g.point["x"].flags.writeable
    assert g.copy().point["x"][0] == 0.01


def test_finite_nowhere_is_not_verified_in_every_report():
    def nowhere(x):
        return jnp.log(-(x * x) - 1)

    g = from_jax(nowhere, NEAR, level="array")
    es = accumulate(g, "forward")
    assert not es.verified and es.verification.status == "not verified"
    data = json.loads(json.dumps(es.to_dict()))
    assert data["verified"] is False and data["verification"] == "not verified"
    assert "values not checked" in data["verification_detail"]
    with pytest.warns(UserWarning, match="NOT verified"):
        J = make_function(g, "jacobian")
    assert not J.generated.verified
    assert J.generated.summary()["verification"] == "not verified"


def test_a_huge_gradient_that_is_right_verifies():
    """Against JAX's jvp (exact), and against differences whose step is chosen per point
    and whose error estimate enters the tolerance; the gradient equals jax.grad."""
    x = np.array([1.3e-5, 0.5, 2.0])
    g = from_jax(steep, x, level="array")
    es = accumulate(g, "reverse")
    assert es.verified and "JAX's jvp" in es.verification.detail
    plain = g.copy()
    plain.set_jvp_reference(None)
    es_plain = accumulate(plain, "reverse")
    assert es_plain.verified and "central differences" in es_plain.verification.detail
    J = make_function(es, "jacobian")
    with jax.enable_x64(True):
        expected = np.asarray(jref.grad(steep)(jnp.asarray(x)))  # stored, or jitted
    got = np.ravel(J(x))
    assert abs(expected[0]) > 8e14
    np.testing.assert_allclose(got, expected, rtol=1e-15)


def test_scale_does_not_hide_a_wrong_rule(monkeypatch):
    """The issue's cases, through the NumPy tracer (references: differences)."""
    for name, f, scale, factor in (("sin", np.sin, 1e-6, 2.0), ("exp", np.exp, 1e-3, 1.001)):
        g = from_function(lambda u, f=f, scale=scale: scale * f(u), sizes=[(3,)], level="array")
        es = accumulate(g, "forward")
        assert es.verified and "central differences" in es.verification.detail
        with monkeypatch.context() as m:
            m.setattr(block_values, "block_value", _scaled(name, factor))
            assert es.verify().status == "wrong"


def test_the_reference_is_pickled_where_the_function_is():
    g = from_jax(narrow, NEAR, level="array")
    again = pickle.loads(pickle.dumps(g))
    assert again.jvp_reference is not None and accumulate(again, "forward").verified
    h = from_jax(lambda x: jnp.sin(x) * 2, NEAR, level="array")
    again = pickle.loads(pickle.dumps(h))  # a lambda: dropped, checked by differences
    assert h.jvp_reference is not None and again.jvp_reference is None
    es = accumulate(again, "forward")
    assert es.verified and "central differences" in es.verification.detail


def test_a_changed_graph_drops_its_reference():
    g = from_jax(narrow, NEAR, level="array")
    assert g.jvp_reference is not None
    g._changed()
    assert g.jvp_reference is None


def test_a_selection_is_checked_entry_by_entry(monkeypatch):
    def two(x, y):
        return {"a": jnp.sin(x) * y, "b": jnp.exp(x)}

    g = from_jax(two, NEAR, NEAR + 1, level="array")
    full = accumulate(g, "forward", verify=False)
    chosen = [("a", "y"), ("b", "x")]
    es = dataclasses.replace(full, jacobian={k: full.jacobian[k] for k in chosen}, pairs=chosen)
    assert es.verify() and es.verified and "JAX's jvp" in es.verification.detail
    monkeypatch.setattr(block_values, "block_value", _scaled("exp", 1.001))
    assert es.verify().status == "wrong"


def test_a_verification_s_status_matches_ok():
    assert Verification(True, "exact", "x").status == "verified"
    assert Verification(False, "exact", "x").status == "wrong"
    assert not Verification(False, "exact", "x", "not verified")
    with pytest.raises(ValueError):
        Verification(True, "exact", "x", "not verified")


def test_the_cli_takes_the_point(tmp_path, capsys):
    from dgraph.cli.main import main

    source = tmp_path / "model.py"
    source.write_text(
        "import jax.numpy as jnp\n\n\ndef narrow(x):\n"
        "    return jnp.log(x) * jnp.log(0.05 - x) + x * x\n"
    )
    spec = f"{source}:narrow"
    argv = ["accumulate", spec, "--inputs", "x:3", "--level", "array", "-m", "forward", "--json"]
    assert main(argv) == 1  # no point: not verified
    data = json.loads(capsys.readouterr().out)
    assert data["verified"] is False and data["verification"] == "not verified"
    assert main([*argv, "--at", "0.01,0.02,0.03"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verified"] is True and "the user's point" in data["verification_detail"]
    # two methods: the default's searches (best's annealing, the optimal methods) were
    # most of this test and check nothing more about the point
    compared = ["compare", spec, "--inputs", "x:3", "--level", "array"]
    assert main([*compared, "--methods", "forward,reverse"]) == 1
    assert "not checked" in capsys.readouterr().out


def test_no_warning_where_the_code_is_verified():
    g = from_jax(narrow, NEAR, level="array")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        J = make_function(g, "jvp")
    assert J.generated.verified and "the user's point" in J.generated.check.detail


def test_scalar_code_is_checked_at_the_user_s_point_first():
    """An element-level graph keeps from_jax's example arguments: generated code is run
    there first, and where nothing else is finite, there alone (not refused)."""
    from dgraph.codegen.generate import generate

    g = from_jax(lambda x, y: jnp.log(x) * jnp.log(0.05 - x) + y, 0.02, 0.5)
    check = generate(g, "python", "forward").check
    assert check.ok and check.points == ((0.02, 0.5),)
    g = from_jax(lambda x, y: jnp.sin(x) * y, 0.02, 0.5)
    check = generate(g, "python", "forward").check
    assert check.ok and check.points[0] == (0.02, 0.5) and len(check.points) == 4


def test_the_numpy_tracer_keeps_the_point_given():
    """from_function(point=...): the graph's point, where the values are checked first;
    a NumPy program finite only near it is verified there by differences."""

    def narrow_np(x):
        return np.log(x) * np.log(0.05 - x) + x * x

    g = from_function(narrow_np, sizes=[(3,)], level="array", point=[NEAR])
    np.testing.assert_array_equal(g.point["x"], NEAR)
    es = accumulate(g, "forward")
    assert es.verified and "central differences" in es.verification.detail
    assert "the user's point" in es.verification.detail
    scalar = from_function(lambda a, b: a * b, point=[2.0, 3.0])
    assert {x: float(v) for x, v in scalar.point.items()} == {"a": 2.0, "b": 3.0}
    with pytest.raises(Exception, match="point= has 1 number; it needs 2"):
        from_function(lambda a, b: a * b, point=[2.0])


@pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")  # the child never calls JAX
def test_a_forked_child_checks_against_differences():
    """JAX does not survive a fork: a graph's JAX reference inherited by a forked child
    declines there (the check uses differences); unpickled in a child, it runs."""
    import multiprocessing
    import os

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork on this platform")
    g = from_jax(narrow, NEAR, level="array")
    reference = g.jvp_reference
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no JAX call, only the pid test
        os.write(write, b"1" if reference(g.point, g.point) is None else b"0")
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 1) == b"1"
    again = pickle.loads(pickle.dumps(reference))
    assert again(g.point, g.point) is not None


def test_the_point_travels_in_json():
    """A graph's point (small) is written to dgraph/1 and read back; the loaded graph
    has no JAX reference and is checked there by differences."""
    from dgraph.frontends import from_json

    g = from_jax(narrow, NEAR, level="array")
    data = json.loads(g.to_json())
    assert data["point"] == {"x": NEAR.tolist()}
    back = from_json(json.dumps(data))
    np.testing.assert_array_equal(back.point["x"], NEAR)
    check = accumulate(back, "forward").verification
    assert check and "central differences" in check.detail and "the user's point" in check.detail


def test_a_custom_vjp_reference_is_jax_s_reverse_rule():
    """JAX has no forward mode through a ``custom_vjp``: the reference is then the transpose
    of JAX's pullback, so J·v follows the bwd rule (3·cos here), as ``jax.jacrev`` does."""
    import jax

    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)

    f.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda c, w: (3.0 * c * w,))
    x, v = np.array([0.1, 0.4, 0.9]), np.array([1.0, -2.0, 0.5])
    g = from_jax(f, x, level="array")
    got = g.jvp_reference({"x": x}, {"x": v})
    (y,) = g.outputs
    np.testing.assert_allclose(got[y], 3.0 * np.cos(x) * v, rtol=1e-14)
    assert accumulate(g, "forward").verification.status == "verified"


def test_the_code_check_shares_the_verification_s_points_and_references(monkeypatch):
    """Within one make_function call generated code is checked at the points and
    directions its expression set was verified at: their vertex values are evaluated
    once per point and JAX's J·v run once per point, not again for the code; code that
    is wrong there still fails."""
    from dgraph.blocks import scoped
    from dgraph.codegen.tensor.check import check_tensor
    from dgraph.core import value_check

    g = from_jax(lambda x: jnp.sin(x) * x[::-1], NEAR, level="array")
    evaluated, runs = [], []
    values, jvp = value_check.vertex_values, value_check._jax_jvp
    monkeypatch.setattr(value_check, "vertex_values", lambda *a: evaluated.append(1) or values(*a))
    monkeypatch.setattr(value_check, "_jax_jvp", lambda *a: runs.append(1) or jvp(*a))
    f = make_function(g, "jacobian", sparse=True)
    assert f.generated.verified and f.generated.check.ok
    assert len(evaluated) == 2 and len(runs) == 2  # the user's point and a random one
    with scoped():
        es = accumulate(g, "forward")
        assert es.verified
        right = check_tensor(f, es, "python")
        wrong = check_tensor(lambda x: f(x) * 1.001, es, "python")
    assert right.ok and not wrong.ok and wrong.ran
    assert len(evaluated) == 4 and len(runs) == 4  # a new scope: evaluated again, once


def _unrolled(x):
    """A Python loop of 120 steps, unrolled by tracing: J·v is 1,320 equations."""
    for _ in range(120):
        x = x + 0.01 * jnp.sin(x) * x
    return x


_long = jax.jit(_unrolled)  # a user's jit: inlined by the reference, not compiled whole


def _recorded_jit(monkeypatch) -> list[dict]:
    """``jax.jit`` wrapped to record each call's keyword arguments (the list returned),
    with no compiled reference kept from an earlier test (``jaxpr_key``'s table empty)
    and none run by NumPy instead (``REFERENCE_NUMPY_MOST``: these tests are of the
    compiled ones)."""
    from collections import OrderedDict

    from dgraph.frontends import jaxpr_arrays, jaxpr_key

    monkeypatch.setattr(jaxpr_key.REFERENCES, "programs", OrderedDict())
    monkeypatch.setattr(jaxpr_arrays, "REFERENCE_NUMPY_MOST", -1)
    jitted: list[dict] = []
    plain_jit = jax.jit

    def recording(*args, **kwargs):
        jitted.append(kwargs)
        return plain_jit(*args, **kwargs)

    monkeypatch.setattr(jax, "jit", recording)
    return jitted


def test_a_long_reference_runs_operation_by_operation(monkeypatch, caplog):
    """JAX's J·v of a program of more than REFERENCE_JIT_MOST equations is not compiled
    as one program (XLA's compile time grows faster than the program: minutes for a loop
    of a few hundred steps), but run operation by operation, with JAX's values; a short
    one is compiled once, with the check's compile options; the graph of the long one is
    verified against it."""
    import logging

    import jax

    from dgraph.frontends.jaxpr_arrays import (
        REFERENCE_COMPILE,
        REFERENCE_JIT_MOST,
        JaxJvp,
    )

    jitted = _recorded_jit(monkeypatch)
    x, v = np.array([0.1, 0.2, 0.3]), np.array([1.0, -0.5, 2.0])
    with jax.enable_x64(True):
        want = np.asarray(jax.jvp(_unrolled, (jnp.asarray(x),), (jnp.asarray(v),))[1])
    long = JaxJvp(_long, ["x"], ["y"])
    assert long.jitted is None
    with caplog.at_level(logging.WARNING), jax.log_compiles(True):
        got = long({"x": x}, {"x": v})["y"]
    compiled = [r.getMessage() for r in caplog.records if "Compiling" in r.getMessage()]
    assert not any("_unrolled" in m or "jvp" in m for m in compiled)
    assert long.jitted is False and long.equations > REFERENCE_JIT_MOST
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert jitted == []
    short = JaxJvp(narrow, ["x"], ["y"])
    got = short({"x": NEAR}, {"x": v})["y"]
    assert short.jitted is True and short.equations < 50
    slope = np.log(0.05 - NEAR) / NEAR - np.log(NEAR) / (0.05 - NEAR) + 2 * NEAR
    np.testing.assert_allclose(got, slope * v, rtol=1e-12)
    assert jitted == [{"compiler_options": REFERENCE_COMPILE}]
    monkeypatch.undo()
    g = from_jax(_long, x, level="array")
    check = accumulate(g, "forward").verification
    assert check.status == "verified" and "JAX's jvp" in check.detail
    assert g.jvp_reference.jitted is False


def test_a_reference_at_large_arguments_is_compiled_with_xla_s_own_options(monkeypatch):
    """JAX's J·v whose arguments' entries times its equations reach
    REFERENCE_OPTIMIZED_FROM is compiled with XLA's own optimizations, REFERENCE_OPTIMIZED
    (its runs there cost more than the optimizations' compile); below that, or for a
    program of more than REFERENCE_OPTIMIZED_MOST equations, with the quick
    REFERENCE_COMPILE; both with XLA's older emitters (OLDER_EMITTERS); the values are
    JAX's jvp either way."""

    from dgraph.frontends import jaxpr_arrays
    from dgraph.frontends.jaxpr_arrays import (
        OLDER_EMITTERS,
        REFERENCE_COMPILE,
        REFERENCE_OPTIMIZED,
        REFERENCE_OPTIMIZED_FROM,
        REFERENCE_OPTIMIZED_MOST,
        JaxJvp,
        reference_options,
    )

    for options in (REFERENCE_COMPILE, REFERENCE_OPTIMIZED):
        assert options.items() >= OLDER_EMITTERS.items()
    assert REFERENCE_OPTIMIZED.get("xla_backend_optimization_level") is None
    big = np.zeros(REFERENCE_OPTIMIZED_FROM // 100)
    assert reference_options([big], 100) is REFERENCE_OPTIMIZED
    assert reference_options([big], 99) is REFERENCE_COMPILE
    assert reference_options([big, big], REFERENCE_OPTIMIZED_MOST) is REFERENCE_OPTIMIZED
    assert reference_options([big], REFERENCE_OPTIMIZED_MOST + 1) is REFERENCE_COMPILE
    jitted = _recorded_jit(monkeypatch)
    monkeypatch.setattr(jaxpr_arrays, "REFERENCE_OPTIMIZED_FROM", 5_000)

    def f(x):
        return jnp.sin(x) * x[::-1]

    rng = np.random.default_rng(3)
    for n, options in ((10, REFERENCE_COMPILE), (5_000, REFERENCE_OPTIMIZED)):
        x, v = rng.uniform(-1, 1, n), rng.standard_normal(n)
        jitted.clear()
        reference = JaxJvp(f, ["x"], ["y"])
        got = reference({"x": x}, {"x": v})["y"]
        assert 1 <= reference.equations < 100
        assert jitted == [{"compiler_options": options}]
        want = np.cos(x) * x[::-1] * v + np.sin(x) * v[::-1]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_the_same_program_built_again_compiles_its_reference_once(monkeypatch, caplog):
    """Building the same JAX program again (a new function object, as each build's
    reference is: another mode or language of make_function) reuses the reference compiled
    for it: no jax.jit, no XLA compile of jit_jvp; so does one differing only in a
    floating-point literal (its numbers are arguments: ``jaxpr_key.lifted_literals``); one
    differing in a constant or a shape is compiled for itself; each reference gives its own
    program's J·v (its own literal's too). A parameter the key cannot compare by value
    leaves the program unkeyed."""
    import logging

    from dgraph.frontends.jaxpr_arrays import JaxJvp
    from dgraph.frontends.jaxpr_key import program_key

    jitted = _recorded_jit(monkeypatch)
    rng = np.random.default_rng(5)
    x, v = rng.uniform(-1, 1, 6), rng.standard_normal(6)
    scale = np.linspace(1.0, 2.0, 6)

    def made(c: float, weights: np.ndarray):  # a new closure per build, as a Hessian's
        return lambda x: jnp.tanh(x * jnp.asarray(weights)) * c + x[::-1] ** 2

    def slope(c, weights, x, v):
        return c * weights * v / np.cosh(x * weights) ** 2 + 2 * x[::-1] * v[::-1]

    runs = [(1.5, scale), (1.5, scale.copy()), (2.5, scale), (1.5, scale + 1e-9)]
    for c, weights in runs:
        got = JaxJvp(made(c, weights), ["x"], ["y"])({"x": x}, {"x": v})["y"]
        np.testing.assert_allclose(got, slope(c, weights, x, v), rtol=1e-12)
    assert len(jitted) == 2  # the second and third (a literal) are the first; a constant differs
    with caplog.at_level(logging.WARNING), jax.log_compiles(True):
        again = JaxJvp(made(1.5, scale.copy()), ["x"], ["y"])
        np.testing.assert_allclose(
            again({"x": x}, {"x": v})["y"], slope(1.5, scale, x, v), rtol=1e-12
        )
        longer = JaxJvp(made(1.5, np.ones(7)), ["x"], ["y"])
        x7, v7 = np.linspace(0, 1, 7), np.ones(7)
        np.testing.assert_allclose(
            longer({"x": x7}, {"x": v7})["y"], slope(1.5, np.ones(7), x7, v7), rtol=1e-12
        )
    compiled = [r.getMessage() for r in caplog.records if "Compiling" in r.getMessage()]
    assert len([m for m in compiled if "jit(jvp)" in m]) == 1  # the 7 entries' only
    assert len(jitted) == 3
    with jax.enable_x64(True):  # as the references trace
        closed = jax.make_jaxpr(made(1.5, scale))(x)
        assert program_key(closed) == program_key(jax.make_jaxpr(made(1.5, scale.copy()))(x))
        assert program_key(closed) != program_key(jax.make_jaxpr(made(1.5, scale + 1))(x))
    eqn = closed.jaxpr.eqns[0]
    monkeypatch.setattr(eqn, "params", {**eqn.params, "opaque": [{1, 2}]}, raising=False)
    assert program_key(closed) is None


def test_a_check_holds_one_point_s_vertex_values_at_a_time(monkeypatch):
    """The random point is drawn, and its vertex values evaluated, only after the user's
    point has been checked and let go (at 10⁶ unknowns each point's values are some
    0.5 GB); the points, their order and the report are check_points' own."""
    import gc
    import weakref

    from dgraph.core import value_check

    g = from_jax(lambda x: jnp.sin(x) * x[::-1], NEAR, level="array")
    events, held = [], []
    finite, evaluate = value_check.finite_point, value_check.jvp_and_scale

    def jvp_and_scale(es, values, direction):
        events.append("checked")
        inner = next(v for name, v in values.items() if name not in g.inputs)
        held.append(weakref.ref(inner))  # a vertex's value: made for this point alone
        return evaluate(es, values, direction)

    monkeypatch.setattr(value_check, "jvp_and_scale", jvp_and_scale)

    def random_point(*a):
        if not all(ref() is None for ref in held):  # cyclic garbage: only a collection frees it
            gc.collect()  # a walk over the process's whole heap (seconds late in a worker)
        events.append(("drawn after checks", len(held), all(ref() is None for ref in held)))
        return finite(*a)

    monkeypatch.setattr(value_check, "finite_point", random_point)
    es = accumulate(g, "forward")
    assert es.verified
    assert events == ["checked", ("drawn after checks", 1, True), "checked"]  # let go
    points = value_check.check_points(g)
    assert [p.label for p in points.points] == ["the user's point", "a random point in [0.5, 1.5)"]
    assert "at the user's point and a random point" in es.verification.detail


def test_a_compile_option_xla_does_not_know_is_left_out(monkeypatch):
    """A reference compiled with an option this XLA refuses ("No such compile option", as
    an older XLA refuses REFERENCE_COMPILE's one module) is compiled without it, with
    JAX's values, and the option is left out of later compiles in the process; the options
    are passed as they are where XLA refused none."""
    import jax

    from dgraph.frontends import jaxpr_arrays
    from dgraph.frontends.jaxpr_arrays import REFERENCE_COMPILE, known_options, quick_jit

    monkeypatch.setattr(jaxpr_arrays, "_UNKNOWN_OPTIONS", set())
    assert known_options(REFERENCE_COMPILE) is REFERENCE_COMPILE
    options = {**REFERENCE_COMPILE, "xla_no_such_option_for_dgraph": 1}
    with jax.enable_x64(True):
        got = quick_jit(jax, lambda x: jnp.sin(x) * x, options)(np.array([0.5, 2.0]))
    np.testing.assert_allclose(got, np.sin([0.5, 2.0]) * [0.5, 2.0], rtol=1e-15)
    assert known_options(options) == REFERENCE_COMPILE


def _near_a_pole(x):
    return 1.0 / (x * x)


def test_differences_across_a_pole_are_no_evidence():
    """1/x² at x = 1e-9 beside entries of 1: the direction moves that entry by 1e-3 of the
    largest, so the first steps span the pole, where the differences grow as the step
    shrinks. Their extrapolations agreed with each other to 5e-10 of |J|·|v|, and the
    right Jacobian was reported "wrong" (and generated code refused); such steps are now
    no estimate, and a smaller one verifies it."""
    from dgraph.core.value_check import richardson, scaled

    x = np.array([1e-9, 0.5, 0.7])
    v = scaled(x, np.array([1.0, -0.6, 0.4]))
    unit = {"y": np.abs(-2 / x**3) * np.abs(v)}
    spanning = richardson(lambda hs: [{"y": _near_a_pole(x + h * v)} for h in hs], unit, (1e-3,))
    assert isinstance(spanning, str) and "cannot resolve" in spanning
    graph = from_function(_near_a_pole, sizes=[3], point=[x], level="array")
    es = accumulate(graph, "reverse")
    assert es.verification.status == "verified", es.verification.detail
    J = make_function(_near_a_pole, "jacobian", point=[x])(x)
    np.testing.assert_allclose(np.diag(J), -2 / x**3, rtol=1e-14)


def _clipped(x):
    return np.clip(x, -1.0, 1.0)


def _capped(x):
    return np.where(x > 0.0, x * x, 3.0)


@pytest.mark.parametrize("level", ["element", "array"])
@pytest.mark.parametrize("mode", ["jacobian", "jvp", "vjp"])
@pytest.mark.parametrize("f", [_clipped, _capped], ids=["clip", "where"])
def test_entries_held_constant_at_the_point_are_verified(f, mode, level):
    """``np.clip`` with a bound active at the user's point: the clipped entries keep a
    value the size of the others while their J·v and |J|·|v| are exactly 0. Their unit
    was the floor (1e-6 of the largest |J|·|v|, or 0 for a graph of scalars), below what
    the differences' rounding (10·eps·|f| per step) can resolve, so generated code was
    "not verified" at every point where a bound was active. Values that do not move at
    any step, where the derivative says they do not, are now judged against the output's
    largest unit."""
    x = np.array([0.5, 2.0, -3.0, 0.1])
    graph = from_function(f, sizes=[4], point=[x], level=level)
    # the element level's: the method the choice gives (the same code)
    method = {_clipped: "forward", _capped: "symbolic"}[f] if level == "element" else None
    generated = make_function(graph, mode, method=method)
    assert generated.generated.verified, generated.generated.check.summary()
    J = make_function(graph, "jacobian", method=method)(x)
    jf = {
        _clipped: lambda t: jnp.clip(t, -1.0, 1.0),
        _capped: lambda t: jnp.where(t > 0, t * t, 3.0),
    }
    with jax.enable_x64(True):
        np.testing.assert_allclose(J, jref.jacfwd(jf[f])(x), rtol=1e-15)  # stored, or jitted


def test_still_entries_that_move_are_not_resolved():
    """The rule above needs both: values that do not move, bit for bit, and a computed
    |J|·|v| of zero. An entry the derivative calls still but whose values move (a rule
    made wrong on purpose) keeps its own unit; one whose values do not move but whose
    derivative is not zero (1e16 + x: x's steps round away) keeps its own unit too, so
    neither is taken as agreeing."""
    from dgraph.core.value_check import richardson

    x, v = np.array([0.5, 2.0]), np.array([0.3, -0.2])
    unit = {"y": np.array([0.0, 0.4])}
    moving = richardson(
        lambda hs: [{"y": np.sin(x + h * v)} for h in hs],
        unit,
        (1e-3,),
        still={"y": np.array([True, False])},
    )
    assert isinstance(moving, str) and "cannot resolve" in moving
    offset = richardson(
        lambda hs: [{"y": 1e16 + (x + h * v)} for h in hs],
        {"y": np.abs(v)},
        (1e-3,),
        still={"y": np.array([False, False])},
    )
    assert isinstance(offset, str) and "cannot resolve" in offset
    held = richardson(
        lambda hs: [{"y": np.array([1.0, np.sin(2.0 + h * 0.3)])} for h in hs],
        {"y": np.array([0.0, abs(np.cos(2.0) * 0.3)])},
        (1e-3,),
        still={"y": np.array([True, False])},
    )
    value, estimate, _ = held
    assert value["y"][0] == 0.0 and estimate["y"][0] < 1e-7 * abs(np.cos(2.0) * 0.3)
    np.testing.assert_allclose(value["y"][1], np.cos(2.0) * 0.3, rtol=1e-9)


def test_a_stationary_point_is_resolved_against_the_slope_within_the_step():
    """At a minimum every path's partial is zero, so |J|·|v| is zero, yet the values move
    (at second order): every gradient at a global optimum of scipy's benchmark functions
    was "central differences cannot resolve J·v there" (session 62). Differences that are
    zero within their estimate are judged against the slope reached within the step, and
    the J·v they give is zero; a first-order motion is never taken as zero."""
    from dgraph.core.value_check import richardson

    v = np.array([0.3, -0.2])
    bowl = richardson(
        lambda hs: [{"y": np.array([np.sum(1 - np.cos(3 * h * v)) + 2.5])} for h in hs],
        {"y": np.array([0.0])},
        still={"y": np.array([True])},
    )
    value, estimate, _ = bowl
    assert abs(value["y"][0]) <= 2 * estimate["y"][0] < 1e-9
    tilted = richardson(
        lambda hs: [{"y": np.array([np.sum(1 - np.cos(3 * h * v)) + 1e-3 * h])} for h in hs],
        {"y": np.array([0.0])},
        still={"y": np.array([True])},
    )
    assert isinstance(tilted, str) and "cannot resolve" in tilted


def test_a_kink_at_the_point_decides_nothing():
    """At a tie ``np.sort``'s derivative is one side's (JAX's choice), the central
    differences the average of both sides: the right Jacobian was reported "did not
    verify". A slope that jumps at the point (one-sided slopes whose difference does not
    shrink with the step) now leaves the point unresolved: the random points are checked,
    and the user's point, where the derivative does not exist, leaves the result not
    verified (session 66; it was verified by the random points alone)."""
    from dgraph.core.value_check import richardson

    x, v = np.array([0.0, 0.5, 2.0]), np.array([0.3, -0.2, 0.1])

    def moved(f):
        return lambda hs: [{"y": f(x + h * v)} for h in hs]

    unit = {"y": np.abs(v)}
    kinked = richardson(moved(np.abs), unit, (1e-3,))
    assert isinstance(kinked, str) and "kink" in kinked
    smooth = [
        (np.sin, np.cos),
        (lambda z: np.exp(8 * z), lambda z: 8 * np.exp(8 * z)),
        (lambda z: z * z * z + z, lambda z: 3 * z * z + 1),
    ]
    for f, derivative in smooth:
        found = richardson(moved(f), {"y": np.abs(derivative(x) * v)}, (1e-3,))
        assert not isinstance(found, str), found
        np.testing.assert_allclose(found[0]["y"], derivative(x) * v, rtol=1e-9)
    tie = np.array([1.0, 2.0, 1.0, 3.0])
    graph = from_function(np.sort, sizes=[4], point=[tie], level="array")
    es = accumulate(graph, "forward")
    assert es.verification.status == "not verified", es.verification.detail
    assert "kink" in es.verification.detail and "the user's point" in es.verification.detail
    assert "agrees with central differences" in es.verification.detail
    with jax.enable_x64(True):
        expected = jref.jacfwd(jnp.sort)(tie)  # stored, or jitted
    np.testing.assert_array_equal(make_function(graph, "jacobian")(tie), expected)


def test_inputs_far_apart_in_scale_are_stepped_each_by_its_own_size():
    """Colebrook's friction factor at a Reynolds number 10⁶ and a roughness 10⁻⁵: one
    step size over all inputs (10⁻³ of the largest) took the roughness below 0 (the
    user's point passed over); each input stepped by its own size verifies there, and the
    roughness's partial 0.1 % off is still caught."""
    import sympy

    from dgraph.errors import VerificationError

    def colebrook(re, rough):
        x = np.full(re.shape, 8.0)
        for _ in range(1):
            x = -2.0 * np.log10(rough / 3.7 + 2.51 * x / re)
        return 1.0 / x**2

    g = from_function(colebrook, sizes=[2, 0], point=[np.array([4e3, 1e6]), np.array(1e-5)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "NOT verified" fails the test
        made = make_function(g, method="reverse")  # the choice's method (the same code)
    assert made.generated.verified and made.generated.check.points[0] == (4e3, 1e6, 1e-5)
    bad = g.copy()
    edge = bad._g.edges["rough", "t1"]  # the rule of rough/3.7, 0.1 % off
    edge["partial"] = g.partial("rough", "t1") * sympy.Rational(1001, 1000)
    bad._changed()
    with pytest.raises(VerificationError, match="disagrees with central differences"):
        make_function(bad, method="reverse")


def test_a_user_s_point_the_differences_cannot_resolve_is_not_verified():
    """SciPy's ``xlogy(x, x)`` at ``x = 0`` (finite, its definition's derivative 0 there,
    the program not finite beside it): the spare point that replaces a random point on a
    kink once replaced the user's point too, and the code was verified."""
    import scipy.special

    x = np.array([0.0, 0.5, 1.5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made = make_function(lambda x: scipy.special.xlogy(x, x), point=[x])
    assert made.generated.verified is False
    assert "not compared at the given point x = (0, 0.5, 1.5)" in made.generated.check.detail
    np.testing.assert_allclose(made(x), np.diag([0.0, *(np.log(x[1:]) + 1)]), rtol=1e-14)


def _pair_lengths(x, pairs):
    i, j = pairs[:, 0].astype(int), pairs[:, 1].astype(int)
    return np.sum(np.sqrt(np.sum((x[i] - x[j]) ** 2, axis=-1)))


def test_parameters_that_reach_an_index_keep_the_user_s_values(monkeypatch):
    """Index data given as float parameters (``pairs.astype(int)``): drawn in [0.5, 1.5)
    at the random point every pair became (0, 0) or (1, 1), a length 0 whose partial is
    not finite, and the check said "did not verify" (survey47's poincare). They keep the
    user's values there, and a wrong rule is still caught."""
    x = np.array([[0.1, 0.2], [0.5, -0.3], [1.0, 0.4]])
    pairs = np.array([[0, 1], [1, 2], [0, 2]], dtype=float)
    fn = make_function(_pair_lengths, "jacobian", point=[x, pairs], params=["pairs"])
    check = fn.generated.check
    assert fn.generated.verified and "pairs at the user's values" in check.detail
    expected = np.zeros_like(x)
    for i, j in pairs.astype(int):
        unit = (x[i] - x[j]) / np.linalg.norm(x[i] - x[j])
        expected[i] += unit
        expected[j] -= unit
    np.testing.assert_allclose(np.ravel(fn(x, pairs)), expected.ravel(), rtol=1e-14)
    es = dgraph.jacobian(_pair_lengths, point=[x, pairs], params=["pairs"])
    assert es.verified
    monkeypatch.setattr(block_values, "block_value", _scaled("sqrt", 1.001))
    assert es.verify().status == "wrong"


def test_a_small_kink_beside_a_large_curvature_is_a_kink_not_an_error():
    """``np.interp`` with one query on a breakpoint, in a sum of twenty squares: its slope
    jump is small beside the sum's curvature, so the ratio test did not see it, and the
    differences' average of the two sides was compared with JAX's one-sided rule: "wrong"
    (1.7e-5 of |J|·|v|), and make_function refused. The jump, ``2·inner − outer``, is the
    same at every step; the point is passed over as a kink."""
    import dgraph

    xk = np.linspace(0.0, 4.0, 9)
    x = np.random.default_rng(0).uniform(0.2, 3.8, size=20)
    x[0] = xk[3]

    def f(x):
        return np.sum(np.interp(x, xk, np.cos(xk)) ** 2)

    es = dgraph.jacobian(f, point=[x])
    assert es.verification.status != "wrong", es.verification.detail
    made = dgraph.make_function(f, "jacobian", point=[x])
    moved = x + 1e-3  # off the breakpoint: the one-sided slope is the derivative
    slopes = np.diff(np.cos(xk)) / np.diff(xk)
    segment = np.clip(np.searchsorted(xk, moved, side="right") - 1, 0, 7)
    want = 2 * np.interp(moved, xk, np.cos(xk)) * slopes[segment]
    np.testing.assert_allclose(np.ravel(made(moved)), want, rtol=1e-12)


def _heston(z: np.ndarray):
    """A full-truncation Heston Monte Carlo of len(z[0]) steps with fixed normals ``z``
    (2, steps, paths), of p = (v0, kappa, theta, xi): a variance below 0 is read as 0,
    and ``sqrt(max(v, 0)*dt)``'s partial is infinite at it (JAX's jacfwd is NaN too)."""

    def hestmc(p):
        v0, kappa, theta, xi = p[0], p[1], p[2], p[3]
        rho, dt = -0.7, 0.1
        x = np.zeros(z.shape[2])
        v = v0 * np.ones(z.shape[2])
        for k in range(z.shape[1]):
            vp = np.maximum(v, 0.0)
            sq = np.sqrt(vp * dt)
            x = x - 0.5 * vp * dt + sq * z[1, k]
            w = rho * z[1, k] + np.sqrt(1 - rho**2) * z[0, k]
            v = v + kappa * (theta - vp) * dt + xi * sq * w
        return np.mean(np.exp(x))

    return hestmc


def test_a_partial_not_finite_at_the_user_s_point_is_named():
    """Heston's variance goes below 0 on one path (10 steps, 8 paths): J·v at the user's
    point is not finite, and the refusal says which partial is not (sqrt at its argument
    0, and where: the vertex and the entry), so the user knows to keep the variance off
    0. On main it said only 'by not finite of |J|·|v|'."""
    z = np.random.default_rng(3).standard_normal((2, 10, 8))
    z[0, 2, 0] = -4.0  # path 1's variance below 0 after step 3
    point = np.array([0.04, 1.5, 0.04, 0.3])
    with pytest.raises(dgraph.DGraphError) as caught:
        make_function(_heston(z), point=[point])
    message = str(caught.value)
    assert "by not finite of |J|·|v|" in message
    named = (
        r"the partial of sqrt at its argument 0 is infinite there \(t\d+ = sqrt\(t\d+\), entry 2"
    )
    assert re.search(named, message), message


def test_a_scalar_graph_s_partial_not_finite_at_the_user_s_point_is_named():
    """The element level's note, where the user's point is passed over: which partial."""
    with pytest.warns(UserWarning, match="NOT verified"):
        f = make_function(
            lambda x: np.sqrt(np.maximum(x[0], 0.0)) * x[1] + x[0], point=[np.array([-1.0, 2.0])]
        )
    detail = f.generated.check.detail
    assert (
        "not finite at the given point x = (-1, 2): the partial of sqrt at its argument 0" in detail
    )


def test_a_linear_map_whose_value_cancels_is_no_kink():
    """``Σ x·b`` of 0.048 from terms up to 2 (session 62's 4×4 pair): the differences'
    rounding is the terms', not the value's, and the kink test judged it against the
    value's: a linear map was "NOT verified: the slope jumps there". Judged against the
    rounding its ``|J|·|v|`` allows, it resolves; a kink of 10⁻⁶ of ``|J|·|v|`` inside the
    same cancelling sum is still a kink."""
    from dgraph.core.value_check import KINK, richardson, scaled

    def line(a, b, v, jump=0.0):
        return lambda hs: [{"y": np.array([np.sum((a + h * v) * b) + jump * abs(h)])} for h in hs]

    rng = np.random.default_rng(1)
    for _ in range(4):
        a, b = rng.standard_normal(16), rng.standard_normal(16)
        b = b - np.sum(a * b) / np.sum(a * a) * a + 1e-6 * a  # the value 1e-6 of the terms
        v = scaled(a, rng.standard_normal(16))
        unit = {"y": np.array([np.sum(np.abs(b * v))])}
        found = richardson(line(a, b, v), unit)
        assert not isinstance(found, str), found
        assert abs(found[0]["y"][0] - np.dot(b, v)) <= 1e-12 * unit["y"][0]
        assert richardson(line(a, b, v, 1e-6 * unit["y"][0]), unit) == KINK
    elsewhere = np.linspace(-1.5, 1.4, 16).reshape(4, 4)
    made = make_function(lambda x: np.sum(x * _CANCELLING_B), point=[_CANCELLING_A])
    assert made.generated.verified is True, made.generated.check.detail
    np.testing.assert_array_equal(np.ravel(made(elsewhere)), _CANCELLING_B.ravel())


_CANCELLING_A = np.array(
    [
        [-0.2063870748534761, 0.044027520584134006, 0.4715748853727155, -0.40572825610506175],
        [-0.2762204274910154, -0.3893938992235058, 1.443013050055472, -1.4826354170063627],
        [-0.9940054460270098, -0.24341218454431798, -0.1559020441389771, -1.2741077160394811],
        [-0.7712319984428163, -0.5383833204815023, 0.7318607999474861, 0.42173648654211887],
    ]
)
_CANCELLING_B = np.array(
    [
        [0.9812895711896412, -0.5960632914753003, -1.1654768901948187, 0.7535477298973884],
        [-0.6004494403676993, -1.2676035419317229, -0.691977643513747, 0.015775369709603103],
        [-1.9616190148861103, -0.4312795605614408, 1.0911045466052032, -0.5129337517210709],
        [0.6995120264336018, 1.4005383647679845, 0.32556518216150604, 0.026827660291679017],
    ]
)


def test_terms_rounding_is_taken_only_as_far_as_the_values_move():
    """scipy's Infinity, ``Σ x⁶·(sin(1/x) + 2)`` at 10⁻¹⁶ (benchmarks/go_functions_survey.py):
    its ``|J|·|v|`` is 10¹⁶ times what its values move there, so the rounding its terms
    allow is bounded by the values' own movement; taken whole, the differences resolved to
    garbage and the made function was refused."""
    x = np.array([1e-16, 2e-16])
    made = make_function(lambda v: np.sum(v**6 * (np.sin(1 / v) + 2)), point=[x])
    want = 6 * x**5 * (np.sin(1 / x) + 2) - x**4 * np.cos(1 / x)
    np.testing.assert_allclose(np.ravel(made(x)), want, rtol=1e-12, atol=0)


def test_a_hessian_held_zero_by_a_float32_cast_is_verified():
    """``x.astype(float32)`` inside a float64 function: no JAX jvp reference (it rounds to
    float32), so differences check the gradient's program, which does not move at all;
    every entry is held fixed by the graph (no path from x), so its zero is exact (it was
    judged against the floor 2e-308: "cannot resolve", not verified). The same program
    with a curvature still compares its differences."""
    c = np.array([0.7, -1.1, 0.4])
    x = np.array([0.3, 0.5, 0.9])
    H = make_function(lambda x: jnp.sum(c * x.astype(jnp.float32)), "hessian", point=[x])
    assert H.generated.verified is True
    np.testing.assert_array_equal(H(x), np.zeros((3, 3)))
    H2 = make_function(lambda x: jnp.sum(c * x.astype(jnp.float32) ** 2), "hessian", point=[x])
    assert H2.generated.verified is True
    np.testing.assert_allclose(H2(x), np.diag(2 * c), rtol=1e-7)


def _power_graph(y: int, point: list[float] | None = None):
    """u (3) → u**y → its sum, as dgraph/1 (what the fuzzer's mutation made of ``u**2``)."""
    from dgraph.frontends import from_json

    data = {
        "format": "dgraph/1",
        "inputs": ["u"],
        "outputs": ["s"],
        "vertices": [
            {"id": "u", "shape": [3]},
            {
                "id": "t",
                "shape": [3],
                "op": {"primitive": "integer_pow", "operands": ["u"], "params": {"y": y}},
            },
            {
                "id": "s",
                "shape": [],
                "op": {"primitive": "reduce_sum", "operands": ["t"], "params": {"axes": [0]}},
            },
        ],
        "edges": [{"source": "u", "target": "t"}, {"source": "t", "target": "s"}],
    }
    if point is not None:
        data["point"] = {"u": point}
    return from_json(json.dumps(data))


def test_a_power_past_2_53_keeps_its_sign_in_values_and_code(tmp_path, capsys):
    """Past 2⁵³ every double is even: NumPy's and C's x**y with y as a double gave
    (-1)**(2**53 + 1) = 1 and d/dx x**(10**41) = +1e41 at -1 (it is -1e41, 10⁴¹ - 1 odd).
    The block's values and the generated code's (Python run, C text) keep the sign."""
    from dgraph.blocks.arrays import integer_power
    from dgraph.cli import main

    x = np.array([-1.0, 1.0, -1.0])
    np.testing.assert_array_equal(integer_power(x, 2**53 + 1), [-1.0, 1.0, -1.0])
    g = _power_graph(10**41)
    d = block_values.edge_values(g, block_values.vertex_values(g, {"u": x}, {}))
    np.testing.assert_array_equal(np.ravel(d[("u", "t")].values), [-1e41, 1e41, -1e41])
    (tmp_path / "g.json").write_text(g.to_json())
    for lang in ("python", "c"):
        out = str(tmp_path / f"j.{lang[0]}")
        assert main(["codegen", str(tmp_path / "g.json"), "--lang", lang, "-o", out]) == 0
    capsys.readouterr()
    namespace: dict = {}
    exec((tmp_path / "j.p").read_text(), namespace)
    np.testing.assert_array_equal(namespace["jacobian"](x), [-1e41, 1e41, -1e41])
    assert "(in0[i] * pow(in0[i], 1e+41))" in (tmp_path / "j.c").read_text()
    # a scalar graph's printers: x**(10**41) + x at -1, d/dx = -1e41 + 1
    (tmp_path / "p.trace").write_text(f"inputs: x\noutputs: y\ny = x**{10**41} + x\n")
    assert main(["codegen", str(tmp_path / "p.trace"), "-o", str(tmp_path / "p.py")]) == 0
    assert "underflows to 0 at every point compared" in capsys.readouterr().out
    namespace = {}
    exec((tmp_path / "p.py").read_text(), namespace)
    assert namespace["jacobian"](np.array([-1.0]))[0, 0] == -1e41


def test_a_vertex_underflowed_at_every_point_is_not_verified():
    """u**(10**41) is 0 at every |u| < 1 and so is its derivative: J·v there is 0
    whatever rule computed it, so a check at random points in [-1, 1) saw nothing of the
    rule (it said verified); u**3 there is verified."""
    es = accumulate(_power_graph(10**41), "reverse")
    assert es.verification.status == "not verified"
    assert "'t' underflows to 0" in es.verification.detail
    assert accumulate(_power_graph(3), "reverse").verification.status == "verified"
