"""Loops in the array IR (issue 54): a :class:`~dgraph.codegen.ir.Loop` printed as a Python
``for`` loop (NumPy), ``jax.lax.scan`` / ``fori_loop`` (JAX), a C ``for`` loop and a CUDA
launch loop, each run and equal to the evaluator and to a plain Python reference; the
passes work inside the body, never across it; counting is the body's count per step."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess

import numpy as np
import pytest
import scipy

from dgraph.codegen.array_passes import array_shapes, count_array_ops, optimize
from dgraph.codegen.c import compiler
from dgraph.codegen.counting import Ops
from dgraph.codegen.cuda import cxx_compiler
from dgraph.codegen.evaluate import ArrayEvaluator
from dgraph.codegen.ir import (
    ArrayProgram,
    ArrayStatement,
    BinOp,
    Call,
    Const,
    Item,
    Loop,
    LoopBody,
    Name,
    Seq,
    SparseMatrix,
    While,
)
from dgraph.codegen.python import NumPyArrayPrinter
from dgraph.codegen.tensor.c_values import c_values
from dgraph.errors import DGraphError

S = ArrayStatement
needs_jax = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="no JAX")
needs_c = pytest.mark.skipif(compiler() is None, reason="no C compiler")
T = 7  # steps
N = 3  # state size


def _op(a, op, b):
    return BinOp(op, a, b)


def _f(name, *args, **keywords):
    return Call(name, args, tuple(keywords.items()))


def _recurrence(reverse: bool = False) -> Loop:
    """x_{t+1} = 0.5 sin(x_t) + c + s_t, y_t = sin(x_t) s_t (sin written twice: the
    body's common subexpression)."""
    x, s, c = Name("x"), Name("s"), Name("c")
    body = LoopBody(
        ("x", "s", "c"),
        (
            S("n", _op(_op(_op(Const(0.5), "*", _f("sin", x)), "+", c), "+", s)),
            S("y", _op(_f("sin", x), "*", s)),
            S("unused", _f("exp", x)),
        ),
        ("n", "y"),
    )
    return Loop((Name("x0"),), (Name("xs"),), (Name("c"),), body, T, reverse)


def _recurrence_reference(x0, xs, c, reverse):
    x, ys = x0, {}
    for t in range(T - 1, -1, -1) if reverse else range(T):
        ys[t] = np.sin(x) * xs[t]
        x = 0.5 * np.sin(x) + c + xs[t]
    return x, np.stack([ys[t] for t in range(T)])


def _tangent() -> Loop:
    """x' = tanh(A x) + c carrying its tangent J' = diag(1 - x'^2) A J (no xs, no ys)."""
    x, J, A, c = Name("x"), Name("J"), Name("A"), Name("c")
    body = LoopBody(
        ("x", "J", "A", "c"),
        (
            S("z", _f("einsum", Const("ij,j->i"), A, x)),
            S("n", _op(_f("tanh", Name("z")), "+", c)),
            S("d", _op(Const(1.0), "-", _op(_f("tanh", Name("z")), "*", _f("tanh", Name("z"))))),
            S("AJ", _f("einsum", Const("ij,jk->ik"), A, J)),
            S("nJ", _f("einsum", Const("i,ik->ik"), Name("d"), Name("AJ"))),
        ),
        ("n", "nJ"),
    )
    return Loop((Name("x0"), Name("_K2")), (), (Name("A"), Name("c")), body, 5)


def _program(loop: Loop, arguments, shapes) -> ArrayProgram:
    """The loop's outputs flattened into one (1, n) sparse row: the C values' program."""
    outputs = loop.carries + loop.ys
    statements = [S("L", loop)]
    statements += [S(f"o{k}", Item(Name("L"), k)) for k in range(outputs)]
    flat = Seq(tuple(_f("ravel", Name(f"o{k}")) for k in range(outputs)))
    statements.append(S("out", _f("concatenate", flat)))
    program = ArrayProgram("jacobian", arguments, shapes, arguments, statements, ["out"])
    return program


def _run_python(program: ArrayProgram, printer, space: dict, *args):
    text = f"def f({', '.join(program.arguments)}):\n"
    text += "\n".join(printer.statement(s) for s in program.statements)
    text += f"\n    return {program.results[0]}\n"
    exec(text, space)
    return space["f"](*args), text


def _all_targets(program: ArrayProgram, args: list, expected: np.ndarray, constants: dict):
    """The evaluator, NumPy, JAX, C and CUDA (host) against ``expected``."""
    env = dict(zip(program.arguments, args, strict=True)) | constants
    got = ArrayEvaluator().run(program.statements, env)["out"]
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=1e-14)
    space = {"numpy": np, "scipy": scipy, **constants}
    got, text = _run_python(program, NumPyArrayPrinter(), space, *args)
    assert "    for _L_t in range(" in text
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=1e-14)
    if importlib.util.find_spec("jax") is not None:
        import jax
        import jax.numpy as jnp

        from dgraph.codegen.jaxcode import LOOP_HELPERS, JaxArrayPrinter

        with jax.enable_x64(True):
            space = {"jax": jax, "jnp": jnp, **constants}
            exec(LOOP_HELPERS, space)  # the module's _jit_scan and _jit_fori
            _, text = _run_python(program, JaxArrayPrinter(), space, *args)
            got = jax.jit(space["f"])(*args)
            loop = program.statements[0].value
            kind = "_jit_fori(" if not loop.xs and not loop.ys else "_jit_scan("
            assert kind in text
            np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-13, atol=1e-14)
    if compiler() is None:
        return
    size = expected.size
    values = c_values(
        ArrayProgram(
            "jacobian",
            program.arguments,
            program.shapes,
            program.inputs,
            [
                *program.statements,
                S("J", SparseMatrix(Name("out"), Name("_K0"), Name("_K1"), (1, size))),
            ],
            ["J"],
            {
                **constants,
                "_K0": np.arange(size, dtype=np.int32),
                "_K1": np.array([0, size], dtype=np.int32),
            },
        )
    )
    assert "for (long step0 = " in values.text
    np.testing.assert_allclose(values.load()(*args).toarray().ravel(), expected, rtol=1e-13)
    launcher = values.cuda[values.cuda.index("_launch(") :]
    assert "for (long long step0 = " in launcher
    loop = program.statements[0].value
    assert (", step0);" in launcher) == bool(loop.xs or loop.ys)  # a kernel reads the step
    if cxx_compiler() is not None:
        host = values.load_cuda_host()(*args).toarray().ravel()
        np.testing.assert_allclose(host, expected, rtol=1e-13)
    return values


@pytest.mark.parametrize("reverse", [False, True])
def test_a_recurrence_with_xs_and_ys_is_a_loop_in_every_target(reverse):
    rng = np.random.default_rng(3)
    x0, xs, c = rng.normal(size=N), rng.normal(size=(T, N)), rng.normal(size=N)
    program = _program(_recurrence(reverse), ("x0", "xs", "c"), ((N,), (T, N), (N,)))
    x, ys = _recurrence_reference(x0, xs, c, reverse)
    expected = np.concatenate([x, ys.ravel()])
    _all_targets(program, [x0, xs, c], expected, {})


@needs_jax
def test_a_tangent_sweep_carrying_a_matrix_gives_jax_jacobian():
    import jax
    import jax.numpy as jnp

    from tests import jax_reference as jref

    rng = np.random.default_rng(4)
    x0, A, c = rng.normal(size=N), rng.normal(size=(N, N)) / 2, rng.normal(size=N)

    def f(x):
        for _ in range(5):
            x = jnp.tanh(A @ x) + c
        return x

    with jax.enable_x64(True):
        x = np.asarray(f(x0))
        J = np.asarray(jref.jacfwd(f)(x0))
    program = _program(_tangent(), ("x0", "A", "c"), ((N,), (N, N), (N,)))
    expected = np.concatenate([x, J.ravel()])
    values = _all_targets(program, [x0, A, c], expected, {"_K2": np.eye(N)})
    if values is not None and shutil.which("nvcc") is not None:  # the kernels compile
        source = "values.cu"  # (device code: the host launcher is c_values' every-kind test's)
        import pathlib
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp, source)
            path.write_text(values.cuda)
            out = str(path.with_suffix(".cubin"))
            command = ["nvcc", "-arch=sm_80", "-cubin", "-o", out, str(path)]
            done = subprocess.run(command, capture_output=True, text=True)
            assert done.returncode == 0, done.stderr


def test_a_loop_inside_a_loop_body():
    """An inner loop (3 steps of x <- x * a) inside the body of an outer one (4 steps of
    x <- inner(x) + s_t): names of the two bodies kept apart in every target."""
    inner = Loop(
        (Name("x"),),
        (),
        (Name("a"),),
        LoopBody(("v", "a"), (S("w", _op(Name("v"), "*", Name("a"))),), ("w",)),
        3,
    )
    body = LoopBody(
        ("x", "s", "a"),
        (
            S("M", inner),
            S("n", _op(Item(Name("M"), 0), "+", Name("s"))),
        ),
        ("n", "n"),
    )
    loop = Loop((Name("x0"),), (Name("xs"),), (Name("a"),), body, 4)
    rng = np.random.default_rng(5)
    x0, xs, a = rng.normal(size=N), rng.normal(size=(4, N)), rng.uniform(0.5, 1.0, N)
    x, ys = x0, []
    for t in range(4):
        x = x * a**3 + xs[t]
        ys.append(x)
    program = _program(loop, ("x0", "xs", "a"), ((N,), (4, N), (N,)))
    _all_targets(program, [x0, xs, a], np.concatenate([x, np.ravel(ys)]), {})


def test_passes_work_inside_the_body_never_across_it():
    program = _program(_recurrence(), ("x0", "xs", "c"), ((N,), (T, N), (N,)))
    # one step: 0.5*sin (3 mults), sin*s (3), two additions (6), sin twice and exp (9
    # calls): each times the 7 steps
    assert count_array_ops(program).ops == Ops(mults=6 * T, adds=6 * T, calls=9 * T)
    shapes = array_shapes(program)
    assert shapes["o0"] == (N,) and shapes["o1"] == (T, N) and shapes["out"] == (N + T * N,)
    optimized = optimize(program)
    assert [s.target for s in optimized.statements] == [s.target for s in program.statements]
    body = optimized.statements[0].value.body
    assert [s.target for s in body.statements] == ["_c1", "n", "y"]  # sin once, exp dropped
    assert body.arguments == ("x", "s", "c") and body.results == ("n", "y")
    assert count_array_ops(optimized).ops == Ops(mults=6 * T, adds=6 * T, calls=3 * T)
    rng = np.random.default_rng(6)
    env = {"x0": rng.normal(size=N), "xs": rng.normal(size=(T, N)), "c": rng.normal(size=N)}
    before = ArrayEvaluator().run(program.statements, dict(env))["out"]
    after = ArrayEvaluator().run(optimized.statements, dict(env))["out"]
    np.testing.assert_array_equal(before, after)
    # a loop nothing reads is dead; two equal loops are one
    twice = [S("M", _recurrence()), *program.statements]
    kept = optimize(ArrayProgram("f", program.arguments, program.shapes, (), twice, ["out"]))
    assert [s.target for s in kept.statements].count("M") == 0
    twice = [S("M", _recurrence()), S("m", Item(Name("M"), 0)), *program.statements]
    twice.append(S("both", _op(Name("m"), "+", Name("o0"))))
    kept = optimize(ArrayProgram("f", program.arguments, program.shapes, (), twice, ["both"]))
    assert sum(isinstance(s.value, Loop) for s in kept.statements) == 1


def test_a_malformed_loop_is_refused_in_one_line():
    body = LoopBody(("x",), (), ("x",))
    with pytest.raises(DGraphError, match="takes 1 arguments, not the 2"):
        Loop((Name("a"),), (Name("b"),), (), body, 3)
    with pytest.raises(DGraphError, match="a loop of 0 steps"):
        Loop((Name("a"),), (), (), body, 0)
    with pytest.raises(DGraphError, match="not part of an expression"):
        NumPyArrayPrinter().doprint(
            _op(Item(Loop((Name("a"),), (), (), body, 2), 0), "+", Name("a"))
        )


# -- loop regions (the graph's scan / fori_loop vertices) lowered to a Loop ------------------

A_BODY = np.array([[0.5, 0.1, 0.0], [0.2, 0.3, 0.1], [0.0, 0.4, 0.2]])


def _scan_function(reverse: bool):
    import jax
    import jax.numpy as jnp

    def f(x, p, xs):
        def step(c, xt):
            return jnp.tanh(A_BODY @ c) * p + xt, jnp.sin(c) * xt[0]

        return jax.lax.scan(step, x, xs, reverse=reverse)

    return f


def _flat(blocks, outputs) -> np.ndarray:
    """JAX's nested Jacobian blocks as one matrix (outputs' rows, inputs' columns)."""
    return np.block(
        [
            [np.asarray(b).reshape(np.size(y), -1) for b in row]
            for row, y in zip(blocks, outputs, strict=True)
        ]
    )


@needs_jax
@pytest.mark.parametrize("reverse", [False, True])
def test_a_scan_region_is_one_loop_and_its_jacobian_is_jax_jacfwd(reverse):
    """A scan with a constant matrix, an active parameter, active xs and ys: the loop's
    value and tangent sweep in NumPy and JAX (the module's value_and_jacobian
    jitted; make_function's JAX checks cost seconds of XLA compiles) equal jax.jacfwd."""
    import jax

    import dgraph
    from dgraph.codegen.python import load_python
    from dgraph.codegen.tensor.module import tensor_program
    from dgraph.methods import accumulate
    from tests import jax_reference as jref

    f = _scan_function(reverse)
    x0, p = np.array([0.3, -0.2, 0.5]), np.array([1.1, 0.9, 1.3])
    xs = np.linspace(0.1, 0.6, 15).reshape(5, 3)
    with jax.enable_x64(True):
        g = dgraph.from_jax(f, x0, p, xs, level="array")
        outputs = f(x0, p, xs)
        want = _flat(jref.jacfwd(f, (0, 1, 2))(x0, p, xs), outputs)
        J = dgraph.make_function(g, "jacobian", lang="python", method="forward")
        assert J.generated.verified
        assert J.generated.text.count("_body(") == 2  # defined once, called once: not unrolled
        np.testing.assert_allclose(_flat(J(x0, p, xs), outputs), want, rtol=1e-13, atol=1e-15)
        if reverse:
            return
        es = accumulate(g, "forward")
        text = tensor_program(es, "jax", mode="value_and_jacobian").text
        assert " = _jit_scan(" in text
        value, blocks = jax.jit(load_python(text).value_and_jacobian)(x0, p, xs)
        np.testing.assert_allclose(np.asarray(value[1]), np.asarray(outputs[1]), rtol=1e-14)
        np.testing.assert_allclose(_flat(blocks, outputs), want, rtol=1e-13, atol=1e-15)


@needs_jax
def test_a_fori_loop_region_gives_jvp_vjp_and_c_values():
    """fori_loop (an integer counter no derivative reaches): jvp and vjp against
    jax.jacfwd's J·v and wᵀ·J, the C values of its sparse Jacobian; the code's size does not
    grow with the trip count."""
    import jax
    import jax.numpy as jnp

    import dgraph
    from dgraph.codegen.tensor.module import tensor_program
    from dgraph.methods import accumulate
    from tests import jax_reference as jref

    def loop(steps):
        return lambda x, p: jax.lax.fori_loop(0, steps, lambda i, c: jnp.sin(c) * p + 0.1 * c, x)

    x0, p = np.array([0.3, -0.2, 0.5]), np.array([1.1, 0.9, 1.3])
    v, w = (np.array([0.2, -0.1, 0.4]), np.array([0.3, 0.5, -0.2])), np.array([0.7, -0.3, 0.2])
    with jax.enable_x64(True):
        f = loop(6)
        g = dgraph.from_jax(f, x0, p, level="array")
        want = np.hstack([np.asarray(b) for b in jref.jacfwd(f, (0, 1))(x0, p)])
        tangent = want @ np.concatenate(v)
        cotangents = np.split(w @ want, 2)
        got = dgraph.make_function(g, "jvp", lang="python", method="forward")(x0, p, *v)
        np.testing.assert_allclose(got, tangent, rtol=1e-13, atol=1e-15)
        got = dgraph.make_function(g, "vjp", lang="python", method="forward")(x0, p, w)
        for a, b in zip(got, cotangents, strict=True):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-13, atol=1e-15)
        texts = [  # the module's text, unchecked (the checks above ran on the same code)
            tensor_program(accumulate(g_, "forward", verify=False)).text
            for g_ in (g, dgraph.from_jax(loop(60), x0, p, level="array"))
        ]
        assert len(texts[0].splitlines()) == len(texts[1].splitlines())
        assert "range(6)" in texts[0] and "range(60)" in texts[1]
        if compiler() is not None:
            C = dgraph.make_function(g, "jacobian", lang="c", sparse=True, method="forward")
            np.testing.assert_allclose(C.stacked(x0, p).toarray(), want, rtol=1e-13, atol=1e-15)


@needs_jax
def test_a_while_loop_region_is_a_while_loop_in_every_target():
    """A Newton solve of x^3 + b x = a (a while_loop): NumPy's while loop, JAX's
    lax.while_loop, C's loop with a break and the CUDA launcher's loop (its kernels run on
    the host, one thread each) carrying the tangents give jax.jacfwd's Jacobian at the
    trip count of each point (two points, 6 and 8 trips)."""
    import jax
    import jax.numpy as jnp

    import dgraph
    from dgraph.codegen.python import load_python
    from dgraph.codegen.tensor.module import tensor_program
    from dgraph.methods import accumulate
    from tests import jax_reference as jref

    def newton(a, b):
        def step(x):
            return x - (x**3 + b * x - a) / (3 * x**2 + b)

        return jax.lax.while_loop(lambda x: jnp.max(jnp.abs(x**3 + b * x - a)) > 1e-12, step, a)

    a, b = np.array([2.0, 3.0]), np.array([1.0, 0.5])
    with jax.enable_x64(True):
        g = dgraph.from_jax(newton, a, b, level="array")
        want = np.hstack([np.asarray(m) for m in jref.jacfwd(newton, (0, 1))(a, b)])
        J = dgraph.make_function(g, "jacobian", method="forward")
        assert "    while _loop_newton_cond(" in J.generated.text
        np.testing.assert_allclose(np.hstack(J(a, b)), want, rtol=1e-13, atol=1e-15)
        text = tensor_program(accumulate(g, "forward", verify=False), "jax").text
        assert " = _jit_while(" in text
        got = jax.jit(load_python(text).jacobian)(a, b)
        np.testing.assert_allclose(np.hstack(got), want, rtol=1e-13, atol=1e-15)
    if compiler() is None:
        return
    C = dgraph.make_function(g, "jacobian", lang="c", sparse=True, method="forward")
    assert C.generated.verified and "break;" in C.generated.text
    cuda = C.generated.values.cuda
    assert "for (long long loop_newton_trips = 0; ; loop_newton_trips++) {" in cuda
    host = C.generated.values.load_cuda_host() if cxx_compiler() is not None else None
    trips = set()
    for point in (a, np.array([9.0, 0.2])):
        with jax.enable_x64(True):
            want = np.hstack([np.asarray(m) for m in jref.jacfwd(newton, (0, 1))(point, b)])
        x, count = point.copy(), 0  # the trips the loop runs from this point
        while np.max(np.abs(x**3 + b * x - point)) > 1e-12:
            x, count = x - (x**3 + b * x - point) / (3 * x**2 + b), count + 1
        trips.add(count)
        np.testing.assert_allclose(C.stacked(point, b).toarray(), want, rtol=1e-13, atol=1e-15)
        if host is not None:
            np.testing.assert_allclose(host(point, b).toarray(), want, rtol=1e-13, atol=1e-15)
    assert trips == {6, 8}


def test_a_while_node_in_numpy_jax_and_the_evaluator():
    """x <- x / 2 while sum(x) > s (hand-built): 3 trips from (3, 2) at s = 1."""
    body = LoopBody(("x", "s"), (S("n", _op(Name("x"), "*", Const(0.5))),), ("n",))
    cond = LoopBody(("x", "s"), (S("ok", _op(_f("sum", Name("x")), ">", Name("s"))),), ("ok",))
    node = While((Name("x0"),), (Name("s"),), cond, body)
    program = ArrayProgram(
        "f",
        ("x0", "s"),
        ((2,), ()),
        ("x0", "s"),
        [S("W", node), S("out", Item(Name("W"), 0))],
        ["out"],
    )
    args = [np.array([3.0, 2.0]), np.float64(1.0)]
    expected = np.array([3.0, 2.0]) / 8
    got = ArrayEvaluator().run(program.statements, {"x0": args[0], "s": args[1]})["out"]
    np.testing.assert_array_equal(got, expected)
    got, text = _run_python(program, NumPyArrayPrinter(), {"numpy": np}, *args)
    assert "    while _W_cond(" in text
    np.testing.assert_array_equal(got, expected)
    assert array_shapes(program)["out"] == (2,)
    assert not count_array_ops(program).complete  # its trip count is known only at run time
    if importlib.util.find_spec("jax") is not None:
        import jax
        import jax.numpy as jnp

        from dgraph.codegen.jaxcode import LOOP_HELPERS, JaxArrayPrinter

        with jax.enable_x64(True):
            space = {"jax": jax, "jnp": jnp}
            exec(LOOP_HELPERS, space)  # the module's _jit_while
            _, text = _run_python(program, JaxArrayPrinter(), space, *args)
            np.testing.assert_array_equal(np.asarray(jax.jit(space["f"])(*args)), expected)
    with pytest.raises(DGraphError, match="takes 1 arguments, not the 2"):
        While((Name("x0"),), (Name("s"),), LoopBody(("x",), (), ("x",)), body)


@needs_jax
def test_a_scan_inside_a_scan_body_is_a_loop_inside_a_loop():
    import jax
    import jax.numpy as jnp

    import dgraph
    from tests import jax_reference as jref

    def f(x, p):
        def outer(c, _):
            inner = jax.lax.scan(lambda d, __: (jnp.sin(d) * p + 0.3 * d, None), c, None, length=3)[
                0
            ]
            return inner * 0.5 + c, jnp.cos(c)

        return jax.lax.scan(outer, x, None, length=4)

    x0, p = np.array([0.3, -0.2, 0.5]), np.array([1.1, 0.9, 1.3])
    with jax.enable_x64(True):
        g = dgraph.from_jax(f, x0, p, level="array")
        outputs = f(x0, p)
        want = _flat(jref.jacfwd(f, (0, 1))(x0, p), outputs)
        J = dgraph.make_function(g, "jacobian", method="forward")
    assert J.generated.text.count("_body(") == 4  # two loops, each defined and called once
    np.testing.assert_allclose(_flat(J(x0, p), outputs), want, rtol=1e-13, atol=1e-15)


@needs_jax
@needs_c
def test_the_cli_writes_a_while_loop_in_c_and_a_cond_in_cuda(tmp_path, capsys):
    """`dgraph codegen` of tests/hostile/jax_model.py's halve (a while_loop) to C and of
    its sign_branch (a cond) to CUDA: files written, checked, and (where nvcc is) the CUDA
    text of both compiled to PTX (not run: no GPU here)."""
    from pathlib import Path

    from dgraph.cli import main

    model = str(Path(__file__).parent / "hostile" / "jax_model.py")
    written = []
    for function, suffix in (("halve", "c"), ("sign_branch", "cu"), ("halve", "cu")):
        target = tmp_path / f"{function}.{suffix}"
        argv = ["codegen", f"{model}:{function}", "--inputs", "c:3", "--level", "array"]
        assert main([*argv, "--sparse", "-o", str(target)]) == 0, capsys.readouterr()
        written.append(target)
    text = written[0].read_text()
    assert "for (long loop_halve_trips = 0; ; loop_halve_trips++) {" in text
    assert "dgraph_read(" in written[1].read_text() and "} else if (" in written[1].read_text()
    if shutil.which("nvcc") is None:
        return
    for source in written[1:]:
        command = ["nvcc", "-std=c++17", "-ptx", "-arch=sm_80", "-o", str(source) + ".ptx"]
        done = subprocess.run([*command, str(source)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


def test_a_boolean_constant_read_per_step_is_a_mask_in_every_target():
    """x <- where(m_t, 2 x, x + 1) with m a constant boolean xs (the masks of indexing
    at a loop counter): C reads a boolean constant as doubles, as its type says."""
    x, m = Name("x"), Name("m")
    body = LoopBody(
        ("x", "m"),
        (S("n", _f("where", m, _op(Const(2.0), "*", x), _op(x, "+", Const(1.0)))),),
        ("n",),
    )
    masks = np.random.default_rng(4).random((T, N)) > 0.5
    loop = Loop((Name("x0"),), (Name("_K2"),), (), body, T)
    program = _program(loop, ("x0",), ((N,),))
    x0 = np.array([0.5, -1.0, 2.0])
    expected = x0.copy()
    for row in masks:
        expected = np.where(row, 2 * expected, expected + 1)
    _all_targets(program, [x0], expected, {"_K2": masks})
