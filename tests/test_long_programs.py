"""Code generation of long programs (issue 40): a time-stepping chain ``v = sin(v)`` and
one statement summing many terms give code whose Jacobian matches an independent value,
with no statement nested deeper than the IR allows and no recursion on the program's
length."""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy

from dgraph.codegen.counting import count_ops
from dgraph.codegen.generate import generate
from dgraph.codegen.ir import STATEMENT_HEIGHT, height
from dgraph.codegen.passes import LONGEST, WIDE, _inline_single_use, split_wide
from dgraph.codegen.python import load_python
from dgraph.frontends import from_trace


def chain_trace(n: int, v: str = "v") -> str:
    """``v_k = sin(v_(k-1))``, k = 1..n, x to y (as benchmarks/long_programs.py writes it;
    ``v`` names the steps)."""
    steps = [f"{v}{k} = sin({'x' if k == 1 else f'{v}{k - 1}'})" for k in range(1, n)]
    return "\n".join(["inputs: x", "outputs: y", *steps, f"y = sin({v}{n - 1})"]) + "\n"


def sum_trace(n: int) -> str:
    """``y = x**1*y0 + ... + x**n*y0``."""
    terms = " + ".join(f"x**{k}*y0" for k in range(1, n + 1))
    return f"inputs: x, y0\noutputs: y\ny = {terms}\n"


CHAIN = 300  # steps (the old code's RecursionError began near 300); the benchmark times
# 500 to 10,000 (benchmarks/long_programs.py)
TERMS = 200


def _chain_derivative(x: float, n: int) -> float:
    """d/dx of sin applied n times: the product of cos over the iterates (NumPy)."""
    product, v = 1.0, x
    for _ in range(n):
        product *= np.cos(v)
        v = np.sin(v)
    return product


def test_height_is_iterative_and_exact() -> None:
    x = sympy.Symbol("x")
    e = x
    for _ in range(3000):  # far deeper than Python's default recursion limit allows
        e = sympy.sin(e, evaluate=False)
    assert height(e) == 3000
    assert height(x * sympy.cos(x) + 1) == 3


def test_inlining_a_chain_keeps_statements_shallow() -> None:
    """v_k = sin(v_{k-1}), each used once: inlined up to the height limit, not into one
    tree of the chain's depth (it was: RecursionError past a few hundred steps)."""
    v = sympy.symbols(f"v0:{301}")
    named = [(v[k], sympy.sin(v[k - 1])) for k in range(1, 301)]
    kept, results = _inline_single_use(named, [((0,), v[300])])
    assert all(height(e) <= STATEMENT_HEIGHT for _, e in kept)
    assert height(results[0][1]) <= STATEMENT_HEIGHT
    assert len(kept) >= 300 // STATEMENT_HEIGHT
    # the program still computes sin applied 300 times
    values = {v[0]: 0.9}
    for s, e in kept:
        values[s] = float(e.xreplace(values))
    assert float(results[0][1].xreplace(values)) == pytest.approx(_iterate(0.9, 300), rel=1e-12)


def _iterate(x: float, n: int) -> float:
    for _ in range(n):
        x = np.sin(x)
    return x


def test_inlining_a_wide_sum_substitutes_every_term() -> None:
    """Single-use terms of a wide sum go in together (one rebuild, not one per term)."""
    x = sympy.Symbol("x")
    t = sympy.symbols(f"t1:{41}")
    named = [(t[k], x ** (k + 1)) for k in range(40)]
    kept, results = _inline_single_use(named, [((0,), sympy.Add(*t))])
    assert kept == []
    assert results[0][1] == sum(x ** (k + 1) for k in range(40))


def test_inlining_into_a_max_or_min_does_not_evaluate_it(monkeypatch) -> None:
    """Single-use assignments substituted into a Max and a Min rebuild them unevaluated:
    sympy's evaluation (pairwise comparisons of the arguments, 7 ms a rebuild in
    tests/test_numpy_idioms.py) is never asked for (it raises here), and the result
    is the same maximum and minimum (NumPy's at three points)."""
    from sympy.functions.elementary.miscellaneous import MinMaxBase

    x, y = sympy.symbols("x y", real=True)
    s, t, u = sympy.symbols("s t u")
    named = [(s, sympy.sin(x)), (t, sympy.cos(y) * x), (u, x**2 - y)]
    result = sympy.Max(s, t, 0.25) + sympy.Min(u, -x)

    def asked(*args, **kwargs):
        raise AssertionError("Max/Min evaluated")

    monkeypatch.setattr(MinMaxBase, "_collapse_arguments", classmethod(asked))
    monkeypatch.setattr(MinMaxBase, "_find_localzeros", classmethod(asked))
    kept, results = _inline_single_use(named, [((0,), result)])
    monkeypatch.undo()
    assert kept == []
    got = sympy.lambdify((x, y), results[0][1], "numpy")
    for a, b in [(0.3, -1.2), (-0.7, 0.4), (1.5, 2.0)]:
        want = max(np.sin(a), np.cos(b) * a, 0.25) + min(a**2 - b, -a)
        assert got(a, b) == pytest.approx(want, rel=1e-15)


@pytest.fixture(scope="module")
def chain_set():
    from dgraph.methods import accumulate

    return accumulate(from_trace(chain_trace(CHAIN)), "forward")


def test_inlining_a_product_chain_keeps_products_narrow() -> None:
    """A tangent sweep's t_k = d_k*t_(k-1): products stop growing at WIDE factors (one
    product of every factor was rebuilt at each step: quadratic), the value unchanged."""
    n = 300
    d = sympy.symbols(f"d0:{n + 1}")
    t = sympy.symbols(f"t0:{n + 1}")
    named = [(t[k], d[k] * t[k - 1]) for k in range(1, n + 1)]
    kept, results = _inline_single_use(named, [((0,), t[n])])
    statements = [e for _, e in kept] + [results[0][1]]
    assert all(len(e.args) <= WIDE + 1 for e in statements)
    values = {s: 1.0 + k / n for k, s in enumerate(d)} | {t[0]: 0.5}
    for s, e in kept:
        values[s] = float(e.xreplace(values))
    expected = 0.5 * np.prod([1.0 + k / n for k in range(1, n + 1)])
    assert float(results[0][1].xreplace(values)) == pytest.approx(expected, rel=1e-12)


def test_long_products_and_sums_are_computed_in_parts() -> None:
    """A 5,000-step loop's Jacobian is one product of 5,000 partials: printed whole,
    Python's compiler nests it 5,000 deep (RecursionError). In parts of LONGEST factors,
    with the same operations and value."""
    n = 3 * LONGEST + 7
    d = sympy.symbols(f"d1:{n + 1}")
    x = sympy.Symbol("x")
    product, total = sympy.Mul(*d), sympy.Add(*d)
    named = [(x, sympy.sin(product))]
    results = [((0,), 2 * product), ((1,), total)]
    kept, final = split_wide(named, results, set(d))
    statements = [e for _, e in kept] + [e for _, e in final]
    assert all(len(a.args) <= LONGEST for e in statements for a in sympy.preorder_traversal(e))
    assert count_ops(statements) == count_ops([e for _, e in named] + [e for _, e in results])
    values = {s: 1.0 + 1e-5 * k for k, s in enumerate(d)}
    for s, e in kept:
        values[s] = float(e.xreplace(values))
    expected = np.prod([1.0 + 1e-5 * k for k in range(n)])
    assert values[x] == pytest.approx(np.sin(expected), rel=1e-12)
    assert float(final[0][1].xreplace(values)) == pytest.approx(2 * expected, rel=1e-12)
    assert float(final[1][1].xreplace(values)) == pytest.approx(
        sum(1.0 + 1e-5 * k for k in range(n)), rel=1e-12
    )


def test_chain_code_matches_the_product_of_cosines(chain_set) -> None:
    code = generate(chain_set, "python", modes=("jacobian", "vjp"), check=False)
    for program in code.programs.values():
        assert all(height(e) <= STATEMENT_HEIGHT for _, e in program.assignments)
    module = load_python(code.text)
    x = np.array([[0.9], [-1.3]])
    expected = [_chain_derivative(float(p[0]), CHAIN) for p in x]
    assert module.jacobian(x)[:, 0, 0] == pytest.approx(expected, rel=1e-10)
    w = np.array([[2.0], [-0.5]])
    assert module.vjp(x, w)[:, 0] == pytest.approx(w[:, 0] * expected, rel=1e-10)
    assert module.primal(x)[:, 0] == pytest.approx([_iterate(p[0], CHAIN) for p in x])


def test_sum_code_matches_the_closed_form() -> None:
    """y = sum_k x**k y0: dy/dx = y0 sum_k k x**(k-1), dy/dy0 = sum_k x**k."""
    g = from_trace(sum_trace(TERMS))
    code = generate(g, "python", "forward", check=False)
    module = load_python(code.text)
    x, y0 = 0.97, 1.3
    k = np.arange(1, TERMS + 1)
    jacobian = module.jacobian(np.array([[x, y0]]))[0]
    assert jacobian[0, 0] == pytest.approx(y0 * np.sum(k * x ** (k - 1)), rel=1e-10)
    assert jacobian[0, 1] == pytest.approx(np.sum(x**k), rel=1e-10)


def test_chain_c_code_matches_the_product_of_cosines(chain_set) -> None:
    from dgraph.codegen.c import compiler, load_c

    if compiler() is None:
        pytest.skip("no C compiler")
    module = load_c(generate(chain_set, "c", check=False).text)
    x = np.array([[0.9]])
    assert module.jacobian(x)[0, 0, 0] == pytest.approx(_chain_derivative(0.9, CHAIN), rel=1e-10)


def test_default_codegen_of_a_long_chain_under_a_small_recursion_limit(
    tmp_path: Path, capsys
) -> None:
    """The default path (the choice among candidates, every pass, the printed code and
    its check) on a chain of 300 steps, ``dgraph codegen`` with 400 frames of recursion
    left: nothing recurses on the chain's length (the old code failed here, at sympy's
    default limit too). In this process (a fresh interpreter cost more than the
    codegen); the chain's vertices are named apart from the other tests' (``w``), so
    none of its expressions is one sympy's cache already holds."""
    from dgraph.cli import main

    trace = tmp_path / "chain.trace"
    trace.write_text(chain_trace(CHAIN, "w"))
    out = tmp_path / "jac.py"
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 400)
    try:
        status = main(["codegen", str(trace), "-o", str(out), "--json"])
    finally:
        sys.setrecursionlimit(limit)
    assert status == 0
    assert '"ok": true' in capsys.readouterr().out
    module = load_python(out.read_text())
    assert module.jacobian(np.array([[0.9]]))[0, 0, 0] == pytest.approx(
        _chain_derivative(0.9, CHAIN), rel=1e-10
    )


def test_a_chains_exact_check_gives_way_to_the_random_point_one(monkeypatch) -> None:
    """A chain's one path word is n long, but the words written on the way to every
    vertex are n²/2 symbols: past EXACT_WORD_LIMIT the check is random-point (it was
    exact, quadratic: 2.6 s of a 10,000-step chain's codegen), and still passes. The
    limit (2·10⁶: 2,000 steps) lowered to 2·10⁴ here, which 250 steps pass and 100 do
    not (the elimination and its check of 2,500 steps cost a second)."""
    from dgraph.core import verify as verify_module
    from dgraph.core.paths import prefix_length
    from dgraph.core.verify import verify
    from dgraph.methods import accumulate

    assert verify_module.EXACT_WORD_LIMIT == 2_000_000
    limit = 20_000
    monkeypatch.setattr(verify_module, "EXACT_WORD_LIMIT", limit)
    small, long = from_trace(chain_trace(100)), from_trace(chain_trace(250))
    assert prefix_length(small) == 100 * 101 // 2 < limit
    assert prefix_length(long) == 250 * 251 // 2 > limit
    assert verify(accumulate(small, "forward")).mode == "exact"
    check = verify(accumulate(long, "forward"))
    assert check and check.mode == "random-point"


def _deepest(text: str) -> int:
    """The deepest nesting of the module's syntax tree (walked without recursion)."""
    deepest, stack = 0, [(ast.parse(text), 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack += [(child, depth + 1) for child in ast.iter_child_nodes(node)]
    return deepest


def test_codegen_of_a_long_chain_completes_and_is_right() -> None:
    """The default codegen path (choice, passes, printing, check) on 1,300 steps, and
    make_function's loaded function, against the product of cosines, with 400 frames of
    recursion left: any recursion on the chain's length raises RecursionError, and so
    does Python's compiler on a product of the 1,300 partials printed whole (it allows
    three times the frames left, 1,200, on Python 3.10 and 3.11; at the default limit the chain
    took 5,000 steps to show it). On any version the printed code nests at most about
    LONGEST deep."""
    from dgraph.codegen.function import make_function

    n = 1300  # past the 1,200 nested operands Python's compiler allows here
    graph = from_trace(chain_trace(n))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 400)
    try:  # generated once: the module's text and the loaded function
        J = make_function(graph)
        module = load_python(J.generated.text)
    finally:
        sys.setrecursionlimit(limit)
    code = J.generated
    assert code.check.ok
    assert _deepest(code.text) <= LONGEST + 16
    expected = _chain_derivative(0.9, n)
    assert module.jacobian(np.array([[0.9]]))[0, 0, 0] == pytest.approx(expected, rel=1e-10)
    assert J(np.array([0.9]))[0, 0] == pytest.approx(expected, rel=1e-10)


def test_a_sum_of_thousands_of_terms_is_evaluated_and_checked(monkeypatch) -> None:
    """The reference values of a vertex summing 3,000 terms and of one multiplying 60
    factors (a line of Python each: its compiler recursed once per ``+`` and failed past
    about 2,500, so a 4,000-term statement was "not verified"), and the Jacobian's: 2·x
    and the product over each factor. Past FLAT_TERMS (500, well below 2,500) both are
    printed flat; here it is lowered to 50, so that the product and each of its partials
    pass it with 60 factors (with 502, their printing and compiling took 1.5 CPU-s)."""
    from dgraph.core import numeric, value_check
    from dgraph.core.numeric import vertex_values

    n, m = 3000, 60
    assert numeric.FLAT_TERMS <= 500 < 2500 < n  # a sum of n printed flat at any rate
    monkeypatch.setattr(numeric, "FLAT_TERMS", 50)
    assert m - 1 > numeric.FLAT_TERMS  # the product and each partial (59 factors) flat
    names = [f"x{i}" for i in range(n)]
    square_sum = " + ".join(f"{v}*{v}" for v in names)
    product = "*".join(names[:m])
    g = from_trace(f"inputs: {', '.join(names)}\noutputs: y, z\ny = {square_sum}\nz = {product}\n")
    x = np.linspace(0.5, 1.5, n)
    values = vertex_values(g, x)
    assert values["y"] == pytest.approx(np.sum(x * x), rel=1e-13)
    assert values["z"] == pytest.approx(np.prod(x[:m]), rel=1e-12, abs=0)  # ~1e-18: no abs
    _, jac, _ = value_check.sweep_reference(g, x[None, :], None)
    assert jac[0, 0] == pytest.approx(2 * x, rel=1e-14)
    assert jac[0, 1, :m] == pytest.approx(np.prod(x[:m]) / x[:m], rel=1e-11, abs=0)


def test_a_long_product_s_partials_are_diff_s_without_a_rebuild(monkeypatch) -> None:
    """The partial of a product of symbols (after a coefficient or not) by one of them is
    its other arguments as they stand, no ``Mul`` flattened and sorted again (n² for the
    partials of a product of n: 3 s of 600 factors); the same expression as ``diff``
    gives, and where the others could combine (a coefficient over a sum), ``Mul``'s."""
    from dgraph.core.graph import _elemental_derivative, vertex_symbol

    xs = [vertex_symbol(f"q_long_product_{i}") for i in range(12)]  # new: no cache hits
    flattened: list[int] = []
    flatten = sympy.Mul.flatten.__func__
    counting = classmethod(lambda cls, seq: flattened.append(1) or flatten(cls, seq))
    products = [sympy.Mul(*xs), -3 * sympy.Mul(*xs), sympy.Rational(1, 2) * xs[0] * xs[1]]
    wanted = {(e, x): sympy.diff(e, x) for e in products for x in xs if x in e.args}
    monkeypatch.setattr(sympy.Mul, "flatten", counting)
    got = {(e, x): _elemental_derivative(e, x) for e, x in wanted}
    assert not flattened
    assert all(sympy.srepr(got[k]) == sympy.srepr(d) for k, d in wanted.items())
    monkeypatch.undo()
    mixed = 2 * xs[0] * (xs[1] + xs[2])  # 2*(x1 + x2) distributes: Mul's own result
    assert sympy.srepr(_elemental_derivative(mixed, xs[0])) == sympy.srepr(2 * xs[1] + 2 * xs[2])


def test_a_chains_elimination_keeps_no_product_of_every_step(monkeypatch) -> None:
    """Forward elimination of a chain extends one product by a factor per step; the
    products nc_product remembered (to skip re-checking their factors) were all kept
    alive, n²/2 factors (5.6 GB at 20,000 steps). Now at most the limit's factors
    (PLAIN_LIMIT, 2²⁰; here lowered to 2¹², which 200 steps pass as 2,000 pass 2²⁰: the
    elimination's n² work a hundredth) stay in products, besides the Jacobian's one
    product of n partials."""
    import gc

    from dgraph.core import algebra
    from dgraph.methods import accumulate

    assert algebra._PLAIN_PRODUCTS.limit == algebra.PLAIN_LIMIT  # the limit it keeps to
    limit = 1 << 12
    monkeypatch.setattr(algebra._PLAIN_PRODUCTS, "limit", limit)
    n = 200  # n²/2 = 2·10⁴ factors > limit + n
    steps = [f"q{k} = sin({'x' if k == 1 else f'q{k - 1}'})" for k in range(1, n)]
    trace = "\n".join(["inputs: x", "outputs: y", *steps, f"y = sin(q{n - 1})"]) + "\n"
    es = accumulate(from_trace(trace), "forward")
    (entry,) = es.jacobian.values()
    assert len(entry.args) == n  # the one path's n partials
    gc.collect()
    ours = set(entry.args)  # by equality: no factor printed (every Mul alive was)
    alive = sum(
        len(o.args)
        for o in gc.get_objects()
        if type(o) is sympy.Mul and o.args and o.args[-1] in ours
    )
    assert limit + n >= alive > n  # products of the chain were remembered, not all kept


def test_cse_is_handed_only_what_it_can_share(monkeypatch) -> None:
    """A chain's statements ``v_k = sin(v_(k-1))`` and partials ``d_k = cos(v_(k-1))``
    share nothing: ``cse`` would give them back as they are, after rebuilding (so
    evaluating again) every ``sin`` and ``cos``, a quarter of a 20,000-step chain's
    codegen. It is handed only the rest, and the program is the one ``cse`` of
    everything gives: here the product, and ``sin(x)`` used twice."""
    from dgraph.codegen import passes

    handed: list[int] = []
    cse = sympy.cse

    def counting(exprs, *args, **kwargs):
        handed.append(len(exprs))
        return cse(exprs, *args, **kwargs)

    monkeypatch.setattr(sympy, "cse", counting)
    x = sympy.Symbol("x")
    for n in (100, 200):
        v = sympy.symbols(f"v1:{n + 1}")
        d = sympy.symbols(f"d1:{n + 1}")
        named = [(v[0], sympy.sin(x))]
        named += [(v[k], sympy.sin(v[k - 1])) for k in range(1, n)]
        named += [(d[0], sympy.cos(x))] + [(d[k], sympy.cos(v[k - 1])) for k in range(1, n)]
        results = [((0,), sympy.Mul(*d)), ((1,), sympy.exp(sympy.sin(x)))]
        handed.clear()
        ordered, reduced = passes._cse(named, results, {x})
        assert handed == [3]  # sin(x), the product and exp(sin(x)): not 2n + 2
        s = sympy.Symbol("s1")
        assert dict(ordered)[s] == sympy.sin(x)
        assert dict(ordered)[v[0]] == s and dict(ordered)[v[1]] == sympy.sin(v[0])
        assert reduced == [((0,), sympy.Mul(*d)), ((1,), sympy.exp(s))]
        replacements, everything = cse([e for _, e in named + results], symbols=iter([s]))
        assert replacements == [(s, sympy.sin(x))]
        assert [e for t, e in ordered if t != s] == everything[: len(named)]


def test_conditions_cse_named_go_back_once_per_statement(monkeypatch):
    """``cse`` names a condition two Piecewise share (``s1 = x > 0``) and the pass puts it
    back into both. The Piecewise are held through cse and built again unevaluated
    (:mod:`dgraph.codegen.pieces`): none is evaluated, neither by cse's rebuilding nor
    with its condition put back, the first time or when the same statements come again
    (another pass order, another candidate's program); the program is the one given."""
    from collections import OrderedDict

    from sympy.core.relational import Relational

    from dgraph.codegen import passes

    evaluated = []
    original = sympy.Piecewise.eval.__func__

    def counting(cls, *args):
        evaluated.append(any(isinstance(c, Relational) for _, c in args))
        return original(cls, *args)

    monkeypatch.setattr(passes, "_CONDITIONED", OrderedDict())
    monkeypatch.setattr(sympy.Piecewise, "eval", classmethod(counting))
    x, y = sympy.symbols("x y")
    v1, v2 = sympy.symbols("v1 v2")
    named = [
        (v1, sympy.Piecewise((x * y, x > 0), (0, True))),
        (v2, sympy.Piecewise((x**2, x > 0), (y, True))),
    ]
    results = [((0,), v1 + v2), ((1,), sympy.Piecewise((y, x > 0), (1, True)))]
    expected = ([*named], [results[0], ((1,), results[1][1])])
    for _ in range(2):  # the second time from the caches
        evaluated.clear()
        ordered, reduced = passes._cse(named, results, {x, y})
        assert (ordered, reduced) == expected
        assert not evaluated


def test_the_inlining_pass_substitutes_a_use_and_definition_once(monkeypatch):
    """The same use and definition met again (another pass order, another candidate's
    program: 1,416 of 3,043 substitutions in tests/test_element_nan.py) are looked up in
    ``_SUBSTITUTED``, not rebuilt; the program is the same."""
    from collections import OrderedDict

    from dgraph.codegen import passes

    walks = []
    original = passes.bottom_up

    def counting(*args, **kwargs):
        walks.append(args[0])
        return original(*args, **kwargs)

    monkeypatch.setattr(passes, "_SUBSTITUTED", OrderedDict())
    monkeypatch.setattr(passes, "bottom_up", counting)
    x, y = sympy.symbols("x y")
    v1, v2 = sympy.symbols("v1 v2")
    named = [(v1, sympy.sin(x) * y), (v2, sympy.cos(v1) + 2 * v1**0 * x)]
    results = [((0,), v2 * y)]
    expected = ([], [((0,), y * (x * 2 + sympy.cos(y * sympy.sin(x))))])
    for run in range(2):
        walks.clear()
        assert _inline_single_use(list(named), list(results)) == expected
        assert len(walks) == (2 if run == 0 else 0)
