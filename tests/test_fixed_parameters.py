"""Integer parameters that fix a program's structure, closed over at their given values
by every reader of a Python function (:mod:`dgraph.frontends.fixed_parameters`):
``dgraph.jacobian``, ``from_function`` with every argument's value, ``load`` and the
command line's ``--params n=3``, and the graph commands after them (compare, best,
codegen). Each against ``jax.jacfwd`` of the loop at that count (tests/test_loop_counts.py
has ``make_function``'s; tests/test_hostile.py the refusals)."""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import dgraph
from dgraph.cli.main import main

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax

Y = np.array([0.3, 0.7, 1.1])
LOOPS = Path(__file__).parent / "hostile" / "loop_count.py"


def _numpy_steps(y, n):
    for _ in range(n):
        y = y + 0.1 * np.sin(y) * y[::-1]
    return y


def _jax_steps(y, n):
    return lax.fori_loop(0, n, lambda i, y: y + 0.1 * jnp.sin(y) * y[::-1], y)


@functools.cache
def _expected(n: int) -> np.ndarray:
    """JAX's Jacobian of ``n`` steps at ``Y`` (one trace per count)."""
    with jax.enable_x64(True):
        return np.asarray(jax.jacfwd(_jax_steps)(jnp.asarray(Y), n))


def _values(es) -> np.ndarray:
    return np.asarray(es.evaluate(Y), dtype=float)


@pytest.mark.parametrize("f", [_numpy_steps, _jax_steps], ids=["numpy-range", "jax-fori_loop"])
def test_jacobian_closes_a_trip_count_over_and_says_so(f):
    """Was refused: the NumPy tracer's ``int()`` of a value of the parameters alone, JAX's
    'lower and upper arguments to fori_loop must have equal types'."""
    es = dgraph.jacobian(f, point=[Y, 3], params=["n"])
    assert es.verified and es.graph.fixed_parameters == {"n": 3}
    assert "n" not in es.graph.parameters
    assert any(note.startswith("read at n = 3, closed over") for note in es.graph.notes)
    np.testing.assert_allclose(_values(es), _expected(3), rtol=0, atol=1e-14)


def test_compare_and_best_on_the_closed_graph():
    """Every method of the comparison, ``best`` among them, verified and equal to JAX's;
    its JSON says at what value the graph was read."""
    g = dgraph.from_function(_numpy_steps, params=["n"], point=[Y, 2])
    assert g.fixed_parameters == {"n": 2}
    comparison = dgraph.compare(g, ["forward", "reverse", "best"])
    assert set(comparison.results) == {"forward", "reverse", "best"}
    for es in comparison.results.values():
        assert es.verified
        np.testing.assert_allclose(_values(es), _expected(2), rtol=0, atol=1e-14)
    assert comparison.to_dict()["fixed_parameters"] == {"n": 2}


def test_a_value_read_as_a_number_stays_a_parameter():
    """``y ** n`` and ``y * a``: reading them as numbers works, so nothing is closed over;
    the values given are the graph's parameter point."""
    es = dgraph.jacobian(lambda y, n: y**n, point=[Y, 3], params=["n"])
    assert es.graph.fixed_parameters == {} and es.graph.parameters == ("n",)
    g = dgraph.from_function(lambda y, a: y * a, params=["a"], point=[Y, 0.5])
    assert g.fixed_parameters == {} and float(g.parameter_point["a"]) == 0.5


def test_the_command_line_gives_the_value(tmp_path, monkeypatch, capsys):
    """``--params n=3``: the note and the JSON say the value; the written module is
    checked, titled with it, and computes JAX's Jacobian."""
    monkeypatch.chdir(tmp_path)
    spec = f"{LOOPS}:steps"
    assert main(["accumulate", spec, "--inputs", "y:3", "--params", "n=3", "--json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["verified"] is True and data["fixed_parameters"] == {"n": 3}
    assert "dgraph: note: read at n = 3, closed over" in err
    assert main(["codegen", spec, "--inputs", "y:3", "--params", "n=3", "-o", "j.py"]) == 0
    capsys.readouterr()
    text = (tmp_path / "j.py").read_text()
    assert "read at n = 3, which fixes the program's structure" in text.split("\n", 1)[0]
    module_spec = importlib.util.spec_from_file_location("fixed_j", tmp_path / "j.py")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    np.testing.assert_allclose(module.jacobian(Y), _expected(3), rtol=0, atol=1e-14)
