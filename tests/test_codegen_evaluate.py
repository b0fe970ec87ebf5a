"""The IR evaluator (dgraph.codegen.evaluate): every node kind gives the bits its NumPy
(and JAX) printing gives, and no module of dgraph.codegen runs text it printed to learn
about the program (issue 53, item 2)."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.special
import sympy

from dgraph.codegen.evaluate import ArrayEvaluator, _unsigned_product
from dgraph.codegen.ir import ArrayStatement, BinOp, Call, Const, Formula, Index, Name, Slice
from dgraph.codegen.python import NumPyArrayPrinter
from dgraph.codegen.tensor.dialect import DIALECTS
from dgraph.errors import DGraphError

sys.path.insert(0, str(Path(__file__).resolve().parent))

CODEGEN = Path(__file__).resolve().parents[1] / "dgraph" / "codegen"
needs_jax = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="no JAX")


def _calls_of(path: Path, names: set[str]) -> list[tuple[int, str]]:
    """The lines where ``path`` calls one of the builtins ``names``."""
    tree = ast.parse(path.read_text(), str(path))
    return [
        (node.lineno, node.func.id)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names
    ]


def test_no_codegen_module_runs_the_text_it_printed():
    """exec/eval appear in dgraph/codegen only where the product is loaded to be run
    (load_python); folded constants come from the IR evaluator, shapes from shape inference."""
    found = {
        str(path.relative_to(CODEGEN)): _calls_of(path, {"exec", "eval"})
        for path in sorted(CODEGEN.rglob("*.py"))
    }
    found = {k: v for k, v in found.items() if v}
    assert list(found) == ["python.py"], found
    source = (CODEGEN / "python.py").read_text()
    (line, _), *rest = found["python.py"]
    assert not rest
    assert "def load_python(" in "\n".join(source.splitlines()[line - 12 : line])
    for name in ("tensor/c_values.py", "tensor/module.py", "evaluate.py", "shapes.py"):
        assert not _calls_of(CODEGEN / name, {"exec", "eval", "compile"}), name


def _run_printed(statements, env, printer=None):
    """The statements' NumPy printing run (what the evaluator must agree with)."""
    printer = printer or NumPyArrayPrinter()
    space = {"numpy": np, "scipy": scipy, **env}
    exec("\n".join(["import scipy.sparse", *DIALECTS["python"].helpers()]), space)
    for s in statements:
        exec(printer.statement(s).strip(), space)
    return space


def _same(a, b) -> None:
    if hasattr(a, "toarray"):
        a, b = a.toarray(), b.toarray()
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)  # bit for bit (NaN where NaN)


def test_every_statement_kind_gives_the_bits_of_its_numpy_printing():
    """The C values test's program of every statement kind (scatters, scatter-adds,
    segment sums, gathers, slices, pads, concatenations, sums, casts, the CSR result)."""
    from test_codegen_c_values import _every_kind

    program = _every_kind()
    x = np.random.default_rng(3).uniform(-1.5, 1.5, program.shapes[0])
    env = {**program.constants, "x": x}
    got = ArrayEvaluator().run(program.statements, dict(env))
    want = _run_printed(program.statements, env)
    assert len(program.statements) > 10
    for s in program.statements:
        _same(got[s.target], want[s.target])


A, B, C = sympy.symbols("_a0 _a1 _a2", real=True)
FORMULAS = [
    A - 2 * B,
    A / (B * C),
    -A * B / (C + 1),
    B / A**2,
    3 * A ** sympy.Rational(1, 3),
    A ** sympy.Rational(5, 2) - A**-7 + A**20 - B ** (-20),
    sympy.Max(A, B, C) + sympy.Min(A, 2 * B),
    sympy.exp(A) * sympy.sin(B) + sympy.log(sympy.Abs(C)),
    1 / A + sympy.sqrt(B) / sympy.sqrt(C) + 1 / sympy.sqrt(A + B**2),
    A / 3 + sympy.Rational(10**30 + 1, 7) * B + sympy.pi * C,
    sympy.Heaviside(A) + sympy.Heaviside(B, 1) + sympy.sign(C) * sympy.atan2(A, B),
    sympy.Piecewise((A * B, A < B), (C, True)),
    sympy.asinh(A) + sympy.tanh(B) - sympy.cosh(C) + sympy.floor(A) * sympy.cos(B),
    (A + B + C + 1) * (A - C) ** 3 / (B * C - A) ** 2 - 1 / (A * B),
    A**B + 10**19 * C,
    # negative coefficients: the sign taken out as sympy's printers take it (_unsigned_product)
    -sympy.Rational(3, 4) * A * B / C**2,
    -2.5 * sympy.sin(A) * B - 1.0 * C,
    -3 * (A + B) * C - sympy.sqrt(2) * A / B,
    sympy.Mul(-1, 2, A, evaluate=False) + sympy.Mul(-sympy.Rational(1, 2), 2, C, evaluate=False),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # sqrt of the negative c: NaN both ways
@pytest.mark.parametrize("expr", FORMULAS, ids=str)
def test_a_formula_gives_the_bits_of_its_numpy_printing(expr):
    rng = np.random.default_rng(4)
    env = {n: rng.uniform(0.2, 2.0, (7,)) for n in ("a", "b")}
    env["c"] = rng.uniform(-2.0, 2.0, (3, 1))
    operands = tuple((s, Name(n)) for s, n in zip((A, B, C), "abc", strict=True))
    statement = ArrayStatement("y", Formula(expr, operands))
    got = ArrayEvaluator().run([statement], dict(env))["y"]
    want = _run_printed([statement], env)["y"]
    assert np.ndim(got) >= 1
    _same(got, want)


def test_views_gathers_and_calls():
    x = np.arange(24.0).reshape(4, 6)
    k = np.array([5, 0, 3], dtype=np.int32)
    statements = [
        ArrayStatement("a", Index(Name("x"), (Slice(1, None), Slice(None, None, -2)))),
        ArrayStatement("b", Index(Call("ravel", (Name("x"),)), (Name("k"),))),
        ArrayStatement(
            "c", Call("einsum", (Const("ab,b->a"), Name("x"), Call("ones", (Const(6),))))
        ),
        ArrayStatement("d", BinOp("<", Name("b"), Const(4.0))),
        ArrayStatement("e", Call("sum", (Name("a"),), (("axis", Const(-1)),))),
    ]
    env = {"x": x, "k": k}
    got = ArrayEvaluator().run(statements, dict(env))
    want = _run_printed(statements, env)
    for s in statements:
        _same(got[s.target], want[s.target])
    assert got["c"].tolist() == [15.0, 51.0, 87.0, 123.0]


def test_what_it_cannot_evaluate_is_one_clear_error():
    with pytest.raises(DGraphError, match="y is not defined"):
        ArrayEvaluator().value(Name("y"), {})
    with pytest.raises(DGraphError, match="no array function nonesuch"):
        ArrayEvaluator().value(Call("nonesuch", (Const(1.0),)), {})
    f = sympy.Function("f")
    with pytest.raises(DGraphError, match="cannot evaluate f"):
        ArrayEvaluator().formula(f(A), {A: np.ones(2)})


@needs_jax
@pytest.mark.parametrize("expr", FORMULAS[:10], ids=str)
def test_with_jax_a_formula_gives_the_bits_of_its_jax_printing(expr):
    import jax
    import jax.numpy as jnp
    import jax.scipy.special

    from dgraph.codegen.jaxcode import JaxArrayPrinter

    rng = np.random.default_rng(5)
    env = {n: rng.uniform(0.2, 2.0, (5,)) for n in "abc"}
    operands = tuple((s, Name(n)) for s, n in zip((A, B, C), "abc", strict=True))
    statement = ArrayStatement("y", Formula(expr, operands))
    with jax.enable_x64(True):
        got = ArrayEvaluator(jnp, jax.scipy.special).run([statement], dict(env))["y"]
        space = {"jnp": jnp, "jax": jax, **env}
        exec(JaxArrayPrinter().statement(statement).strip(), space)
        _same(np.asarray(got), np.asarray(space["y"]))


_X, _Y, _Z = sympy.symbols("x y z")
UNSIGNED = [  # (coefficient, rest, sympy 1.14's _keep_coeff(coefficient, rest) as srepr)
    (sympy.S(2), _X, "Mul(Integer(2), Symbol('x'))"),
    (sympy.S.Half, _X + _Y, "Mul(Rational(1, 2), Add(Symbol('x'), Symbol('y')))"),
    (sympy.Rational(3, 4), _X * _Y, "Mul(Rational(3, 4), Symbol('x'), Symbol('y'))"),
    (sympy.Float(1.0), _X, "Mul(Float('1.0', precision=53), Symbol('x'))"),
    (
        sympy.Float(2.5),
        _X / _Y**2,
        "Mul(Float('2.5', precision=53), Symbol('x'), Pow(Symbol('y'), Integer(-2)))",
    ),
    (sympy.S(2), sympy.sqrt(2), "Mul(Integer(2), Pow(Integer(2), Rational(1, 2)))"),
    (sympy.S(3), sympy.Mul(2, _X, evaluate=False), "Mul(Integer(6), Symbol('x'))"),
    (sympy.S.Half, sympy.Mul(2, _X, evaluate=False), "Symbol('x')"),
    (sympy.S(2), sympy.S.One, "Integer(2)"),
    (sympy.S(2), sympy.S(3), "Integer(6)"),
    (sympy.oo, _X, "Mul(oo, Symbol('x'))"),
    (sympy.S.One, _X * _Y, "Mul(Symbol('x'), Symbol('y'))"),
    (sympy.S(5), sympy.sin(_X), "Mul(Integer(5), sin(Symbol('x')))"),
    (
        sympy.Rational(1, 3),
        sympy.Mul(_X, _Y + _Z, evaluate=False),
        "Mul(Rational(1, 3), Symbol('x'), Add(Symbol('y'), Symbol('z')))",
    ),
]


@pytest.mark.parametrize(("coeff", "rest", "want"), UNSIGNED, ids=lambda v: str(v)[:20])
def test_the_sign_is_taken_out_of_a_product_as_sympys_printers_take_it(coeff, rest, want):
    """_unsigned_product is sympy's private _keep_coeff (as CodePrinter._print_Mul calls
    it) to the argument: the same tree, so the same ordered factors, so the same bits."""
    got = _unsigned_product(coeff, rest)
    assert sympy.srepr(got) == want
    try:
        from sympy.core.mul import _keep_coeff
    except ImportError:  # gone from sympy: the recorded trees above still hold us to it
        return
    kept = _keep_coeff(coeff, rest)
    assert sympy.srepr(got) == sympy.srepr(kept)
    assert got.as_ordered_factors() == kept.as_ordered_factors()
