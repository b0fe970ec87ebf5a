"""JAX code out: pure jax.numpy functions of the cheapest verified accumulation that agree
with JAX's own derivatives of the same primal, under jit, vmap and grad."""

from __future__ import annotations

import json

import numpy as np
import pytest

import dgraph
from dgraph.bench.realworld import REAL_WORLD
from dgraph.cli import main
from dgraph.codegen.generate import generate
from dgraph.codegen.python import load_python
from dgraph.errors import DGraphError

jax = pytest.importorskip(
    "jax", reason="JAX is not installed (pip install 'jacobian-accumulation[jax]')"
)


def test_generated_jax_agrees_with_jax_derivatives_of_its_primal():
    """Black-Scholes' Jacobian by Zhou's factorization (the default choice's path) with
    sqrt, exp, log and erf. (The Roe flux, also Zhou's, printed no node of Python's syntax,
    no jnp or jax name and no function that Black-Scholes' module lacks; the heart
    dipole's symbolic program, the other path the choice gives real-world functions,
    reached no line of the JAX printer that Black-Scholes' did not: a Jacobian program is
    one IR whatever built it, and the symbolic builder is tests/test_codegen.py's.) The
    path is named (the same generated text as the choice's), so that no candidate
    program is built and compared: the choice is tests/test_codegen_choice.py's."""
    name = "black-scholes"
    graph = REAL_WORLD[name]()
    gen = generate(graph, "jax", "zhou", modes=("jacobian", "jvp", "vjp"))
    assert gen.verified and gen.check.ok
    module = load_python(gen.text)
    n, m = len(graph.inputs), len(graph.outputs)
    rng = np.random.default_rng(3)
    with jax.enable_x64(True):
        x = rng.uniform(0.5, 1.5, size=(5, n))
        v, w = rng.normal(size=(5, n)), rng.normal(size=(5, m))
        reference = jax.jit(jax.vmap(jax.jacfwd(module.primal)))(x)  # one compile
        jac = jax.jit(jax.vmap(module.jacobian))(x)
        assert jac.shape == (5, m, n)
        np.testing.assert_allclose(jac, reference, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(module.jacobian(x), reference, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(
            jax.jit(module.jvp)(x, v), np.einsum("bij,bj->bi", reference, v), rtol=1e-10
        )
        np.testing.assert_allclose(
            module.vjp(x, w), np.einsum("bi,bij->bj", w, reference), rtol=1e-10, atol=1e-12
        )
        # batch last, the same numbers: x (n, B) -> J (m, n, B)
        last = jax.jit(module.jacobian_batch_last)(x.T)
        np.testing.assert_allclose(
            np.moveaxis(np.asarray(last), -1, 0), reference, rtol=1e-10, atol=1e-12
        )
        np.testing.assert_allclose(
            module.jvp_batch_last(x.T, v.T).T, np.einsum("bij,bj->bi", reference, v), rtol=1e-10
        )
        np.testing.assert_allclose(
            module.vjp_batch_last(x.T, w.T).T,
            np.einsum("bi,bij->bj", w, reference),
            rtol=1e-10,
            atol=1e-12,
        )
        np.testing.assert_allclose(module.primal_batch_last(x.T).T, module.primal(x), rtol=1e-12)
        # grad through the generated primal (under jit: one compiled program, not one per
        # primitive met eagerly; the eager path is run above). A single point under jit
        # is what vmap traced above
        grad = jax.jit(jax.grad(lambda p: module.primal(p)[0]))(x[0])
        np.testing.assert_allclose(grad, reference[0, 0], rtol=1e-10, atol=1e-12)


def test_constant_entries_take_the_batch_shape():
    g = dgraph.from_sympy(["3*x + y", "x*y"], ["x", "y"])  # d(3x + y)/dx is the constant 3
    module = load_python(generate(g, "jax").text)
    with jax.enable_x64(True):
        jac = module.jacobian(np.ones((4, 2)))
    assert jac.shape == (4, 2, 2) and np.allclose(jac[:, 0], [[3.0, 1.0]] * 4)


def test_the_command_writes_all_three_functions_and_refuses_sparse(tmp_path, capsys):
    out = tmp_path / "jac.py"
    sin = str(dgraph.__path__[0]) + "/data/naumann_sin.trace"
    assert main(["codegen", sin, "-o", str(out), "--lang", "jax", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["verified"] is True
    module = load_python(out.read_text())
    assert all(hasattr(module, f) for f in ("primal", "jacobian", "jvp", "vjp"))
    with pytest.raises(DGraphError, match="--sparse is for python and c"):
        generate(dgraph.bundled("naumann_sin.trace"), "jax", sparse=True)


@pytest.mark.parametrize("lang", ["python", "jax"])
def test_an_if_then_else_condition_is_printed_without_simplifying_it(lang, monkeypatch):
    """sympy's NumPy-family printers run ``simplify_logic`` on each ``ITE`` condition of a
    Piecewise (8 of 20 profiled seconds of ``make_function`` of ``norm.logcdf`` at two
    entries); dgraph's (the generated code's and the value check's) print it as
    ``(c & a) | (~c & b)``: no call, the same Jacobian. For JAX the ``ITE`` condition (as
    ``jax.scipy.stats.norm.logcdf``'s ``log_ndtr`` branches give: benchmarks/
    real_programs6.py's tobit_norm_logcdf) prints by nested ``jnp.logical_and``/
    ``logical_or`` (sympy's printer stacks the operands under ``jax.numpy`` itself:
    refused, "it needs jax"); each branch's derivative at a point. (This case was also a
    test of its own, the same generate call and assertions without the count.)"""
    import sympy
    import sympy.logic.boolalg as boolalg

    calls = []
    simplify = boolalg.simplify_logic
    monkeypatch.setattr(
        boolalg, "simplify_logic", lambda *a, **k: calls.append(a) or simplify(*a, **k)
    )
    x, y = sympy.symbols("x y", real=True)
    e = sympy.Piecewise((x * y**2, sympy.ITE(x > 1, y > 0, y < -1)), (sympy.sin(x) + y, True))
    gen = generate(dgraph.from_sympy([e], [x, y]), lang)
    assert gen.verified and calls == []
    points = np.array([[2.0, 0.5], [2.0, -0.5], [0.5, -2.0], [0.5, 0.3]])
    want = [[0.25, 2.0], [np.cos(2.0), 1.0], [4.0, -2.0], [np.cos(0.5), 1.0]]
    with jax.enable_x64(True):
        np.testing.assert_allclose(load_python(gen.text).jacobian(points)[:, 0], want, rtol=1e-14)


def test_a_short_element_module_is_jitted_whole_and_a_wrong_one_still_refused():
    """The module's functions are jitted (``@jax.jit``: the check's call is one program,
    not one per ``jax.numpy`` operation, as is the caller's), the check compiles one
    program per function it runs (its batches of one size: the same report as
    unbatched), the caller's call at a new shape one more and a later call none; the same
    module with a cosine made a sine is refused by the check."""
    import dataclasses

    from dgraph.codegen.check import _caller, check_generated
    from dgraph.core.value_check import check_scalar_code
    from dgraph.frontends import bundled
    from tests.jax_events import counted

    g = bundled("spherical_coordinates.trace")
    lowered, f = counted(lambda: dgraph.make_function(g, "jacobian", "jax"))
    assert f.generated.verified
    assert f.generated.text.count("@jax.jit\ndef ") == 4  # primal, jacobian, both batch-last
    module = load_python(f.generated.text)
    assert callable(module.jacobian.lower)  # a jitted function (eager ones have no .lower)
    assert lowered <= 2  # jacobian, primal: each at the check's one batch of 8 (eagerly 30+)
    x = np.linspace(0.3, 0.9, len(g.inputs))
    with jax.enable_x64(True):
        first, got = counted(lambda: f(x[None, :]))
        again, _ = counted(lambda: f(x[None, :]))
        np.testing.assert_allclose(np.asarray(got)[0], np.asarray(f(x)), rtol=1e-15)
    assert (first, again) == (1, 0)
    text = f.generated.text
    assert text.count("jnp.cos(") >= 1
    wrong = dataclasses.replace(f.generated, text=text.replace("jnp.cos(", "jnp.sin(", 1))
    assert not check_generated(wrong, g).ok
    # the batches of 8 change nothing the check reports: its points, errors, estimate
    with jax.enable_x64(True):
        whole = check_scalar_code(g, _caller(module, jax.device_get), ("primal", "jacobian"))
    assert check_generated(f.generated, g) == whole


def test_a_long_element_module_runs_eagerly(monkeypatch):
    """Past :data:`~dgraph.codegen.jaxcode.JIT_MOST` lines the functions are not jitted
    (XLA's compile of scalar code grows with it) and still verified."""
    from dgraph.codegen import jaxcode
    from dgraph.frontends import bundled

    monkeypatch.setattr(jaxcode, "JIT_MOST", 1)
    f = dgraph.make_function(bundled("naumann_sin.trace"), "jacobian", "jax")
    assert f.generated.verified and "@jax.jit" not in f.generated.text
    assert not hasattr(load_python(f.generated.text).jacobian, "lower")
