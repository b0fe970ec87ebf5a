"""A scan step's writes at its positions in generated code (issue 55;
``dgraph.codegen.tensor.step_writes``): the generated loop adds a select at the step's
positions as a scatter-add there and writes the tangent rows of those positions alone,
so its operations grow with the entries it writes, not with n at every step."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import dgraph  # noqa: E402
from dgraph.codegen.evaluate import ArrayEvaluator  # noqa: E402
from dgraph.codegen.ir import (  # noqa: E402
    ArrayProgram,
    ArrayStatement,
    BinOp,
    Call,
    Const,
    Index,
    Loop,
    LoopBody,
    Name,
    ScatterAdd,
    Slice,
)
from dgraph.codegen.loop_in_place import in_place  # noqa: E402
from dgraph.codegen.tensor.step_writes import step_writes  # noqa: E402
from tests import jax_reference as jref  # noqa: E402


def _chained(x):
    body = lambda i, a: a + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2  # noqa: E731
    return jax.lax.fori_loop(0, x.shape[0] - 1, body, 0.0)


def _crossing(x):
    """Writes at i and n - 1 - i: for odd n the two meet at the middle step only."""
    n = x.shape[0]
    body = lambda i, a: a + jnp.sin(x[i]) * x[n - 1 - i] ** 2  # noqa: E731
    return jax.lax.fori_loop(0, n, body, 0.0)


def _ops(f, n: int, lang: str = "python") -> int:
    """The generated Hessian's scalar operations (each loop's body × its steps), its
    values checked against ``jax.hessian`` at another point."""
    jax.config.update("jax_enable_x64", True)
    x = np.linspace(-0.8, 0.9, n)
    h = dgraph.hessian(f, x, sparse=True, lang=lang)
    at = x + 0.01
    got = h(at)
    got = np.asarray(got.todense() if hasattr(got, "todense") else got.toarray())
    want = np.asarray(jref.hessian(f)(at))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-13 * np.abs(want).max())
    ops = h.generated.ops
    assert ops.complete
    return ops.ops.mults + ops.ops.adds + ops.ops.compares


@pytest.mark.usefixtures("loops_as_regions")
@pytest.mark.parametrize("lang", ["python", "jax", "c"])
def test_the_generated_steps_cost_the_entries_they_write(lang):
    """The chained Rosenbrock's gradient loop writes 3 of its n entries a step (and their
    tangent rows): the generated program's operations grow as n (main: as n², each
    step's masks, selects, sums and tangent products on all n entries: 24,908 → 223,668
    from 20 to 60 unknowns in NumPy; JAX and C as NumPy). JAX prints the NumPy module's
    program, whose count is the NumPy case's: its values at one size."""
    if lang == "jax":
        _ops(_chained, 12, lang)
        return
    small, large = (_ops(_chained, n, lang) for n in (12, 36))
    assert large < 3.5 * small


@pytest.mark.usefixtures("loops_as_regions")
def test_positions_that_meet_at_some_steps_are_evaluated_whole():
    """Two tables of positions that meet at one step (odd n) cannot be one scatter-add's
    parts at every step: that loop is generated whole, and both are JAX's Hessian; at
    even n they never meet and the step writes at them."""
    odd, even = _ops(_crossing, 15), _ops(_crossing, 16)
    assert even < odd / 2


def _body(n: int, second: str) -> ArrayProgram:
    """``c + select(arange(n) == p, v, 0) + select(arange(n) == <second>, w, 0)``."""
    statements = []
    for mask, position, value, into, out in (
        ("m1", "p", "v", "c", "s"),
        ("m2", second, "w", "s", "t"),
    ):
        spread = Call(
            "broadcast_to", (Call("reshape", (Name(position), Const((1, 1)))), Const((n, 1)))
        )
        statements += [
            ArrayStatement(mask + "_", BinOp("==", spread, Name("K"))),
            ArrayStatement(mask, Call("reshape", (Name(mask + "_"), Const((n,))))),
            ArrayStatement(
                mask + "v", Call("where", (Name(mask), Call("ravel", (Name(value),)), Const(0.0)))
            ),
            ArrayStatement(out, BinOp("+", Name(into), Name(mask + "v"))),
        ]
    arguments = ("c", "p", "q", "v", "w", "K")
    shapes = ((n,), (1,), (1,), (1,), (1,), (n, 1))
    constants = {"K": np.arange(n).reshape(n, 1)}
    return ArrayProgram("body", arguments, shapes, arguments, statements, ["t"], constants)


@pytest.mark.parametrize(
    ("second", "table", "rewritten"),
    [
        ("p", None, True),  # one table twice: one group, the same position added twice
        ("q", np.arange(7)[::-1] + 1, True),  # never meets p's
        ("q", np.arange(7)[::-1], False),  # meets p's at the middle step
        ("q", np.arange(7) + 2, False),  # leaves the vector of 8 entries
    ],
)
def test_a_step_adds_its_selects_at_their_positions(second, table, rewritten):
    """The pass on a body of two selects added onto a carry: rewritten into one
    scatter-add where its positions' tables allow (each step the whole body's numbers,
    bit for bit), else left whole."""
    n = 8
    program = _body(n, second)
    tables = {"p": np.arange(7).reshape(7, 1)}
    if table is not None:
        tables["q"] = table.reshape(7, 1)
    names = (f"_n{k}" for k in range(100))
    found = step_writes(program, tables, lambda: next(names))
    assert (found is not None) == rewritten
    if found is None:
        return
    last = next(s for s in found.statements if s.target == "t")
    assert isinstance(last.value.args[0], ScatterAdd)  # one scatter-add of both selects
    assert len(last.value.args[0].parts) == 2
    rng = np.random.default_rng(0)
    for step in range(7):
        env = {"c": rng.normal(size=n), "v": rng.normal(size=1), "w": rng.normal(size=1)}
        env |= {
            "p": tables["p"][step],
            "q": tables.get("q", tables["p"])[step],
            "K": program.constants["K"],
        }
        whole = ArrayEvaluator().run(program.statements, dict(env))["t"]
        steps = ArrayEvaluator().run(found.statements, dict(env))["t"]
        assert np.array_equal(whole, steps)


@pytest.mark.usefixtures("loops_as_regions")
def test_a_numpy_step_adds_into_its_dead_carry():
    """The NumPy loop writes the step's entries into its carried vector and tangent (no
    copy of their n entries a step: no ``_scatter_add`` in a loop body), starting from a
    copy of the initial value: two calls give the same Hessian, JAX's."""
    jax.config.update("jax_enable_x64", True)
    x = np.linspace(-0.8, 0.9, 12)
    h = dgraph.hessian(_chained, x, sparse=True)
    text = h.generated.text
    bodies = [part.split("        return")[0] for part in text.split("    def _loop")[1:]]
    assert sum(b.count("_scatter_add(") for b in bodies) == 0
    assert sum(b.count("_scatter_add_into(") for b in bodies) == 4  # value, tangent; 2 programs
    want = np.asarray(jref.hessian(_chained)(x))
    first, second = h(x).toarray(), h(x).toarray()
    assert np.array_equal(first, second)
    np.testing.assert_allclose(first, want, rtol=0, atol=1e-13 * np.abs(want).max())


def _loop(statements, results) -> Loop:
    body = LoopBody(("c", "p"), tuple(statements), tuple(results))
    return Loop((Name("K"),), (Name("P"),), (), body, 3)


_SLICE = ArrayStatement("r", Index(Name("c"), (Slice(0, 2),)))  # a view of the carry


@pytest.mark.parametrize(
    ("before", "after", "results", "into"),
    [
        ([], [], ("s",), True),
        ([], [ArrayStatement("r", Call("ravel", (Name("c"),)))], ("s", "r"), False),  # read after
        ([], [], ("s", "c"), False),  # the old carry a result too
        ([], [], ("s", "s"), False),  # the new carry also a y
        ([_SLICE], [], ("s", "r"), False),  # a view made before, returned
    ],
)
def test_a_scatter_add_goes_into_the_carry_only_where_it_is_dead(before, after, results, into):
    added = ScatterAdd(Call("ravel", (Name("c"),)), ((Name("p"), Const(1.0)),))
    loop = _loop([*before, ArrayStatement("s", added), *after], results)
    found, owned = in_place(loop)
    value = found.body.statements[len(before)].value
    assert (isinstance(value, Call) and value.func == "_scatter_add_into") == into
    assert owned == ({0} if into else set())
