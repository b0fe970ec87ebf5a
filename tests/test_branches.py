"""Branches as regions (issue 54, item 2): ``lax.cond`` and ``lax.switch`` read by
``from_jax(..., level="array")`` as one region whose branches are graphs of their own.
The block pattern is the union of the branches'; the values are the taken branch's
Jacobian at the point (never a select: an untaken branch's NaN does not leak); generated
code chooses the branch at run time (NumPy ``if``, JAX ``lax.switch``, C ``if``, the
evaluator); CUDA refuses a cond in one line. Each against ``jax.jacfwd`` at points taking
every branch."""

from __future__ import annotations

import numpy as np
import pytest

from dgraph.blocks import arrays
from dgraph.codegen.array_passes import array_shapes, count_array_ops, optimize
from dgraph.codegen.c import compiler
from dgraph.codegen.cuda import cxx_compiler
from dgraph.codegen.evaluate import ArrayEvaluator
from dgraph.codegen.ir import (
    ArrayProgram,
    ArrayStatement,
    BinOp,
    Call,
    Cond,
    Const,
    Item,
    LoopBody,
    Name,
)
from dgraph.codegen.python import NumPyArrayPrinter
from dgraph.codegen.tensor.c_values import c_values
from dgraph.codegen.tensor.module import tensor_program
from dgraph.codegen.tensor.regions import refuse_unprinted
from dgraph.core.block_values import dense_jacobian
from dgraph.errors import DGraphError

jax = pytest.importorskip(
    "jax", reason="JAX is not installed (pip install 'jacobian-accumulation[jax]')"
)
jnp = pytest.importorskip("jax.numpy")
lax = jax.lax
import dgraph  # noqa: E402
from dgraph.core.regions import regions_of  # noqa: E402
from dgraph.methods import accumulate  # noqa: E402

jax.config.update("jax_enable_x64", True)

from tests import jax_reference as jref  # noqa: E402

from .dense import dense as _dense  # noqa: E402


def _flat(blocks, outputs, n_args: int) -> np.ndarray:
    """A nested Jacobian (JAX's or a generated function's) as one matrix."""
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    rows = blocks if isinstance(outputs, tuple) else (blocks,)
    matrix = []
    for row, y in zip(rows, outs, strict=True):
        row = row if n_args > 1 else (row,)
        parts = [_dense(b) for b in row]
        matrix.append(np.hstack([p.reshape(np.size(y), -1) for p in parts]))
    return np.vstack(matrix)


def _jacfwd(f, args) -> np.ndarray:
    """jax.jacfwd, jitted (one compile, not one per operation), stored (tests/jax_reference.py)."""
    jac = jref.jacfwd(f, argnums=tuple(range(len(args))))(*args)
    return _flat(jac, jax.eval_shape(f, *args), len(args))


def _graph_jacobian(f, args, verify: bool = True):
    g = dgraph.from_jax(f, *args, level="array")
    es = accumulate(g, "forward", verify=verify)
    assert es.verified or not verify
    return g, dense_jacobian(es, np.concatenate([np.ravel(a) for a in args]))


def two_way(x, p):
    """A cond on the input's sign: a reversal times sin in one branch, a log in the other
    (a different pattern per branch)."""
    return lax.cond(
        x[0] > 0, lambda a, q: jnp.sin(a) * a[::-1] * q, lambda a, q: jnp.log(a * a) + q, x, p
    )


def three_way(x):
    """A switch on floor(x[1]) (clamped to the 3 branches by lax.switch)."""
    i = jnp.floor(x[1]).astype(int)
    return lax.switch(i, [lambda a: a**2, lambda a: jnp.exp(a[0]) * a, jnp.cumsum], x)


@pytest.mark.parametrize("x0", [1.0, -1.0])
def test_cond_is_one_region_and_its_jacobian_is_the_taken_branch(x0):
    x, p = np.array([x0, 2.0, 3.0]), np.array(0.5)
    g, J = _graph_jacobian(two_way, (x, p))
    np.testing.assert_allclose(J, _jacfwd(two_way, (x, p)), rtol=1e-14, atol=1e-15)
    ((v, region),) = regions_of(g)
    assert region.kind == "cond" and len(region.branches) == 2
    # the pattern holds whichever branch runs: the union of a diagonal and an anti-diagonal
    block = region.block(0, 1)
    assert sorted(zip(block.rows.tolist(), block.cols.tolist(), strict=True)) == [
        (0, 0), (0, 2), (1, 1), (2, 0), (2, 2)
    ]  # fmt: skip
    assert arrays.describe(g.op(v), 1).startswith("taken branch of 2")


def test_switch_takes_the_clamped_branch_at_the_point():
    for x1, taken in [(0.5, 0), (1.5, 1), (7.5, 2), (-3.0, 0)]:
        x = np.array([0.3, x1, 2.0])
        g, J = _graph_jacobian(three_way, (x,), verify=x1 == 1.5)
        np.testing.assert_allclose(J, _jacfwd(three_way, (x,)), rtol=1e-14, atol=1e-15)
        ((_, region),) = regions_of(g)
        assert region.taken([np.asarray(np.floor(x1), dtype=int), x]) == taken


def test_an_untaken_branch_that_is_nan_does_not_leak():
    """log(-x) is NaN at positive x, in the branch not taken: the derivative is finite
    and JAX's (a select multiplying it by zero would give NaN)."""

    def f(x):
        return lax.cond(x[0] > 0, lambda a: jnp.log(a) * a, lambda a: jnp.log(-a), x)

    x = np.array([1.0, 2.0, 4.0])
    _, J = _graph_jacobian(f, (x,))
    want = _jacfwd(f, (x,))
    assert np.isfinite(J).all() and np.isfinite(want).all()
    np.testing.assert_allclose(J, want, rtol=1e-14)
    with np.errstate(invalid="ignore"):
        text = dgraph.make_function(
            dgraph.from_jax(f, x, level="array"), "jacobian", method="forward"
        )
        got = text(x)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-14)


@pytest.mark.parametrize("sparse", [False, True])
def test_make_function_chooses_the_branch_at_run_time(sparse):
    """One generated function, built at one point, right at points taking either branch:
    NumPy's make_function (an if on the index, verified) and the JAX module (lax.switch,
    jitted; make_function's JAX checks cost seconds of XLA compiles)."""
    from dgraph.codegen.python import load_python

    x, p = np.array([1.0, 2.0, 3.0]), np.array(0.5)
    g = dgraph.from_jax(two_way, x, p, level="array")
    J = dgraph.make_function(g, "jacobian", lang="python", sparse=sparse, method="forward")
    assert J.generated.verified and "_index == 0:" in J.generated.text
    text = tensor_program(accumulate(g, "forward", verify=False), "jax", sparse).text
    assert " = _jit_switch(" in text
    K = jax.jit(load_python(text).jacobian)
    for point in (x, np.array([-1.0, 0.5, -2.0])):
        want = _jacfwd(two_way, (point, p))
        for got in (J(point, p), K(point, p)):
            got = _flat(got, jax.eval_shape(two_way, point, p), 2)
            np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


def test_jvp_and_vjp_take_the_branch_at_run_time():
    x, p = np.array([1.0, 2.0, 3.0]), np.array(0.5)
    g = dgraph.from_jax(two_way, x, p, level="array")
    v, w = (np.array([0.2, -0.1, 0.4]), np.array(0.3)), np.array([0.7, -0.3, 0.2])
    jvp = dgraph.make_function(g, "jvp", method="forward")
    vjp = dgraph.make_function(g, "vjp", method="forward")
    for point in (x, -x):
        J = _jacfwd(two_way, (point, p))
        np.testing.assert_allclose(jvp(point, p, *v), J @ np.append(*v), rtol=1e-14)
        got = np.concatenate([np.ravel(c) for c in vjp(point, p, w)])
        np.testing.assert_allclose(got, w @ J, rtol=1e-14)


def test_a_cond_inside_a_scan_body_switches_branch_between_steps():
    """c <- sin(c)·p if c[0] > 0.5 else c² + 0.3: at p = 0.6 the branch alternates along
    the 4 steps; the graph's Jacobian and make_function's equal jax.jacfwd."""

    def f(x, p):
        def step(c, _):
            c = lax.cond(c[0] > 0.5, lambda a: jnp.sin(a) * p, lambda a: a * a + 0.3, c)
            return c, c[1]

        return lax.scan(step, x, None, length=4)

    x, p = np.array([0.9, 0.2, 0.4]), np.array(0.6)
    g, J = _graph_jacobian(f, (x, p))
    want = _jacfwd(f, (x, p))
    np.testing.assert_allclose(J, want, rtol=1e-13, atol=1e-15)
    (loop,) = {r for _, r in regions_of(g)}
    assert [r.kind for _, r in regions_of(loop.body.graph)] == ["cond"]
    F = dgraph.make_function(g, "jacobian", lang="python", method="forward")
    got = _flat(F(x, p), jax.eval_shape(f, x, p), 2)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    if compiler() is not None:  # C: an if inside the for loop
        C = dgraph.make_function(g, "jacobian", lang="c", sparse=True, method="forward")
        np.testing.assert_allclose(C.stacked(x, p).toarray(), want, rtol=1e-13, atol=1e-15)


SHAPES = {
    "a constant branch": lambda x: lax.cond(x[0] > 0, lambda a: a * 2.0, jnp.zeros_like, x),
    "a cond in a branch": lambda x: lax.cond(
        x[0] > 0, lambda a: lax.cond(a[1] > 0, jnp.sin, jnp.cos, a), lambda a: a**3, x
    ),
    "an integer output": lambda x: lax.cond(
        x[0] > 0, lambda a: (a * 2.0, 1), lambda a: (a + 1.0, 2), x
    )[0],
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_branches_of_other_shapes_give_jax_jacobian_in_numpy(name):
    f = SHAPES[name]
    x = np.array([0.5, -0.7, 0.9])
    F = dgraph.make_function(dgraph.from_jax(f, x, level="array"), "jacobian", method="forward")
    assert F.generated.verified
    for point in (x, -x):
        np.testing.assert_allclose(np.asarray(F(point)), _jacfwd(f, (point,)), rtol=1e-14)


def test_a_constant_index_reads_its_branch_in_place():
    def f(x):
        return lax.cond(True, jnp.sin, jnp.cos, x)

    x = np.array([0.2, 0.4])
    g, J = _graph_jacobian(f, (x,))
    assert regions_of(g) == []
    np.testing.assert_allclose(J, np.diag(np.cos(x)), rtol=1e-15)


@pytest.mark.skipif(compiler() is None, reason="no C compiler")
def test_c_values_of_a_cond_are_an_if_chosen_at_run_time():
    """The C sparse values: an if / else if chain on the clamped index, right at points
    of either branch; a cond in a scan body too. CUDA: the launcher reads the index back
    and launches the taken branch's kernels (run on the host, one thread each)."""
    x, p = np.array([1.0, 2.0, 3.0]), np.array(0.5)
    g = dgraph.from_jax(two_way, x, p, level="array")
    C = dgraph.make_function(g, "jacobian", lang="c", sparse=True, method="forward")
    assert C.generated.verified and "} else if (cond_two_way_i == 1) {" in C.generated.text
    for point in (x, np.array([-1.0, 0.5, -2.0])):
        want = _jacfwd(two_way, (point, p))
        np.testing.assert_allclose(C.stacked(point, p).toarray(), want, rtol=1e-14, atol=1e-15)
    es = accumulate(g, "forward", verify=False)
    program = tensor_program(es, "python", True, "jacobian", keep_arrays=True)
    values = c_values(program)
    assert "} else if (cond_two_way_i == 1) {" in values.cuda
    refuse_unprinted(g, ("c", "cuda"))  # nothing refused: every target prints a cond
    if cxx_compiler() is not None:
        host = values.load_cuda_host()
        for point in (x, np.array([-1.0, 0.5, -2.0])):
            want = _jacfwd(two_way, (point, p))
            np.testing.assert_allclose(host(point, p).toarray(), want, rtol=1e-14, atol=1e-15)


# -- the Cond IR kind, hand-built ---------------------------------------------------------


def _cond_program() -> ArrayProgram:
    """y = sin(x)·sin(x) if i == 0 else log(x) (sin written twice: the branch's common
    subexpression); i clamped: 5 takes branch 1."""
    x = Name("a")
    twice = BinOp("*", Call("sin", (x,)), Call("sin", (x,)))
    b0 = LoopBody(("a",), (ArrayStatement("r", twice),), ("r",))
    b1 = LoopBody(("a",), (ArrayStatement("r", Call("log", (x,))),), ("r",))
    cond = Cond(Name("i"), (Name("x"),), (b0, b1))
    statements = [ArrayStatement("c", cond), ArrayStatement("y", Item(Name("c"), 0))]
    return ArrayProgram("f", ("i", "x"), ((), (3,)), ("i", "x"), statements, ["y"])


@pytest.mark.parametrize(("i", "branch"), [(0, np.sin), (1, np.log), (5, np.log), (-2, np.sin)])
def test_a_cond_node_in_numpy_jax_and_the_evaluator(i, branch):
    from dgraph.codegen.jaxcode import LOOP_HELPERS, JaxArrayPrinter

    program = _cond_program()
    x = np.array([0.5, 1.5, 2.5])
    want = branch(x) ** (2 if branch is np.sin else 1)
    got = ArrayEvaluator().run(program.statements, {"i": np.array(i), "x": x})["y"]
    np.testing.assert_allclose(got, want, rtol=1e-15)
    for printer, xp in ((NumPyArrayPrinter(), "numpy"), (JaxArrayPrinter(), "jnp")):
        lines = ["def f(i, x):", *(printer.statement(s) for s in program.statements)]
        space = {"numpy": np, "jnp": jnp, "jax": jax}
        exec(LOOP_HELPERS, space)  # the module's _jit_switch
        exec("\n".join([*lines, "    return y"]), space)
        np.testing.assert_allclose(np.asarray(space["f"](np.array(i), x)), want, rtol=1e-14)
        assert ("if _c_index == 0:" in "\n".join(lines)) == (xp == "numpy")


def test_passes_work_inside_each_branch_and_ops_are_uncounted():
    program = _cond_program()
    assert array_shapes(program)["y"] == (3,)
    optimized = optimize(program)
    (b0, _) = optimized.statements[0].value.branches
    assert len(b0.statements) == 2  # sin(a) once, then its square
    assert count_array_ops(program).uncounted


def test_a_malformed_cond_is_refused():
    b0 = LoopBody(("a",), (), ("a",))
    b1 = LoopBody(("a", "b"), (), ("a",))
    with pytest.raises(DGraphError, match="arguments"):
        Cond(Const(0), (Name("x"),), (b0, b1))
    with pytest.raises(DGraphError, match="no branches"):
        Cond(Const(0), (Name("x"),), ())


def test_drawings_show_both_branches():
    """The cond vertex's edges say what they hold; draw_regions draws each branch's graph
    (the sin·reversal branch and the log branch)."""
    from dgraph.render import draw, draw_regions

    x, p = np.array([1.0, 2.0, 3.0]), np.array(0.5)
    g = dgraph.from_jax(two_way, x, p, level="array")
    assert "taken branch of 2" in draw(g).source
    drawings = draw_regions(g)
    assert list(drawings) == ["y: branch 0", "y: branch 1"]
    assert "log" in drawings["y: branch 0"].source and "sin" in drawings["y: branch 1"].source


def _squared_in_a_branch(x):
    """A branch that runs a scan squaring while its step is below a piecewise-constant
    count: JAX's gradient stacks the scan's per-step choice (integers) as a residual of
    the cond, an output no derivative reaches that reads a loop inside the branch."""
    s = jnp.floor(jnp.abs(x[0]) * 3)

    def step(c, t):
        return jnp.where(t < s, c * c, c), None

    def squared(x):
        return lax.scan(step, x * 0.5, jnp.arange(4.0))[0]

    return jnp.sum(lax.cond(x[1] > 0, squared, jnp.sin, x))


def test_a_branch_output_read_from_a_loop_in_the_branch():
    """Such an output is computed by the branch's program (its loop's value; refused
    before: "a loop output computed from the body's vertices"): the Hessian is JAX's."""
    x = np.array([0.9, 0.4, 1.3])
    h = dgraph.hessian(_squared_in_a_branch, x)(x)
    h = h.toarray() if hasattr(h, "toarray") else np.asarray(h)
    np.testing.assert_allclose(h, jref.hessian(_squared_in_a_branch)(x), rtol=1e-12, atol=1e-14)


def test_a_jax_switch_promotes_a_branch_s_integer_result_to_the_other_s_floats():
    """A branch may pass on an operand of integers (a zero tangent folded to the int32
    constant of the program's counter) where the other computes floats: lax.switch
    requires one type per result, so the module's ``_jit_switch`` gives each result the
    type its branches' promote to (it raised "switch branches must have equal output
    types" from the generated Hessian of a function calling jax.scipy.linalg.expm)."""
    from dgraph.codegen.jaxcode import LOOP_HELPERS, JaxArrayPrinter

    b0 = LoopBody(("a", "k"), (ArrayStatement("r", Call("sin", (Name("a"),))),), ("r",))
    b1 = LoopBody(("a", "k"), (), ("k",))
    cond = Cond(Name("i"), (Name("x"), Name("k")), (b0, b1))
    statements = [ArrayStatement("c", cond), ArrayStatement("y", Item(Name("c"), 0))]
    printer = JaxArrayPrinter()
    space = {"numpy": np, "jnp": jnp, "jax": jax}
    exec(LOOP_HELPERS, space)
    lines = ["def f(i, x, k):", *(printer.statement(s) for s in statements), "    return y"]
    exec("\n".join(lines), space)
    x, k = np.array([0.5, 1.5]), np.zeros(2, dtype=np.int32)
    with jax.enable_x64(True):
        for i, want in ((0, np.sin(x)), (1, np.zeros(2))):
            got = space["f"](np.array(i), x, k)
            assert got.dtype == np.float64
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-15)


def test_a_branch_returning_constant_nan_is_printed():
    """``jax.scipy.linalg.expm`` of a 1×1 matrix: its switch's non-finite branch returns
    ``full_like(A, nan)``, folded to the constant ``[[nan]]``, one number NaN != NaN
    made look like several (refused: "a loop output that is a constant array"). The
    Jacobian is exp(a) on both sides of the scaling's branch."""
    f = jax.scipy.linalg.expm
    j = dgraph.make_function(f, point=[np.array([[0.3]])])
    assert j.generated.verified is True
    for a in (0.3, 7.0):
        np.testing.assert_allclose(np.ravel(j(np.array([[a]]))), [np.exp(a)], rtol=1e-10)
