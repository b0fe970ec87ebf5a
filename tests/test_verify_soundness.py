"""Random-point verification is sound above the exact limit (issue 21, item 5).

The old check evaluated both sides at random 4x4 matrices modulo one prime, which accepts
every polynomial identity of 4x4 matrices (the standard polynomials S_8, S_10, ...;
Amitsur-Levitzki) and every coefficient divisible by the prime. These tests add exactly
those to correct expression sets on graphs with more than ``EXACT_PATH_LIMIT`` paths.
"""

from __future__ import annotations

import dataclasses
import itertools

import networkx as nx
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dgraph.core import verify as verify_module
from dgraph.core.expressions import ExpressionSet
from dgraph.core.paths import count_paths
from dgraph.core.verify import (
    EXACT_PATH_LIMIT,
    FAILURE_BITS,
    failure_bound,
    primes_for,
    shapes_and_bound,
    trials_for,
    verify,
)
from dgraph.elimination.vertex import reverse
from dgraph.errors import DGraphError, VerificationError
from dgraph.frontends.random_graphs import random_layered
from dgraph.methods import accumulate

OLD_PRIME = 1_073_741_789  # the modulus of the old random-matrix check


@pytest.fixture(scope="module")
def graph():
    """A layered random DAG with 174,024 input-output paths, the longest of 9 edges."""
    g = random_layered(2, 10, 8, 3)
    assert count_paths(g) == 174_024 > EXACT_PATH_LIMIT
    return g


@pytest.fixture(scope="module")
def correct(graph) -> ExpressionSet:
    return reverse(graph)


def _path_labels(graph, x: str, y: str) -> list[sympy.Symbol]:
    """The labels of one x -> y path, in matrix order (output end first)."""
    path = nx.shortest_path(graph.nx, x, y)
    return [graph.symbol(u, v) for u, v in reversed(list(itertools.pairwise(path)))]


def _path_word(graph, x: str, y: str) -> sympy.Expr:
    return sympy.Mul(*_path_labels(graph, x, y))


def _with_entry(es: ExpressionSet, key, entry, references=None) -> ExpressionSet:
    jacobian = dict(es.jacobian)
    jacobian[key] = entry
    refs = {**dict(es.references), **(references or {})}
    return dataclasses.replace(es, references=refs, jacobian=jacobian)


def _standard_polynomial(letters: list[sympy.Expr], start: int = 10_000):
    """S_n(a_1..a_n) = sum over permutations of sign * a_s(1)...a_s(n), written with one
    reference per subset of the letters (S(T) = sum_j (-1)^j t_j S(T - t_j)), so S_10 is
    1,024 short references instead of 3,628,800 words. Returns (references, S_n)."""
    n = len(letters)
    refs: dict[sympy.Symbol, sympy.Expr] = {}
    name: dict[int, sympy.Expr] = {0: sympy.Integer(1)}
    for mask in sorted(range(1, 2**n), key=lambda m: bin(m).count("1")):
        members = [i for i in range(n) if mask >> i & 1]
        terms = [(-1) ** j * letters[i] * name[mask & ~(1 << i)] for j, i in enumerate(members)]
        r = sympy.Symbol(f"r{start + mask}", commutative=False)
        refs[r] = sympy.Add(*terms)
        name[mask] = r
    return refs, name[2**n - 1]


def _evaluate(refs, root, values, k: int, p: int) -> np.ndarray:
    """``root`` at k x k integer matrices mod p (the old check's algebra)."""
    memo = dict(values)
    for r, definition in refs.items():
        total = np.zeros((k, k), dtype=np.int64)
        for term in sympy.Add.make_args(definition):
            coeff, factors = term.args_cnc()
            acc = np.eye(k, dtype=np.int64) * (int(sympy.Mul(*coeff)) % p)
            for f in factors:
                acc = acc @ memo[f] % p
            total = (total + acc) % p
        memo[r] = total
    return memo[root]


def _entry_key(correct):
    return next(iter(correct.jacobian))


# -- correct sets pass, quickly ----------------------------------------------------------


def test_a_correct_set_verifies_at_random_points_quickly(graph, correct, monkeypatch):
    """Quickly: no path word of the 174,024 paths is expanded (the exact check would)."""

    def no_paths(*args, **kwargs):
        raise AssertionError("the random-point check expanded path words")

    with monkeypatch.context() as patched:
        patched.setattr(verify_module, "path_words", no_paths)
        patched.setattr(verify_module, "_expand_all", no_paths)
        result = verify(correct)
    assert result.ok and result.mode == "random-point", result.detail
    assert verify(correct, seed=1).ok and verify(correct, seed=2).ok
    es = accumulate(graph, "markowitz")  # what users run: verified on the way out
    assert es.verified and es.verification.mode == "random-point"


def test_the_reported_bound_matches_the_formula(graph, correct):
    result = verify(correct, "random-point", seed=5)
    depth = nx.dag_longest_path_length(graph.nx)
    assert depth == 9
    p = primes_for(shapes_and_bound(correct))[-1]
    assert p == 2**31 - 1  # the largest prime below 2^31 (a Mersenne prime)
    trials = trials_for(depth, p)
    assert (depth / p) ** trials <= 2.0**-FAILURE_BITS < (depth / p) ** (trials - 1)
    assert trials == 3
    b = failure_bound(depth, p, trials)
    assert 2.0 ** -(b + 1) < (depth / p) ** trials <= 2.0**-b
    assert result.detail == (
        f"3 random points mod 1 prime > 2^30, every term a path word; "
        f"P(wrong set passes) <= (9/{p})^3 <= 2^-{b}"
    )
    assert b == 83


def test_the_outcome_depends_only_on_the_seed(correct):
    key = _entry_key(correct)
    y, x = key
    wrong = _with_entry(correct, key, correct.jacobian[key] + _path_word(correct.graph, x, y))
    assert verify(wrong, seed=3) == verify(wrong, seed=3)
    assert verify(correct, seed=3) == verify(correct, seed=3)


# -- polynomial identities of 4x4 matrices -----------------------------------------------


@pytest.mark.parametrize("n", [8, 10])
def test_standard_polynomials_are_rejected(graph, correct, n):
    letters = [graph.symbol(u, v) for u, v in graph.edges()[: 2 * n : 2]]
    refs, s_n = _standard_polynomial(letters)
    key = _entry_key(correct)
    wrong = _with_entry(correct, key, correct.jacobian[key] + s_n, refs)
    for seed in range(3):
        result = verify(wrong, seed=seed)
        assert not result.ok and result.mode == "random-point"
        assert "that is not a path" in result.detail


@pytest.mark.parametrize("n", [8, 9])
def test_standard_polynomials_along_a_path_are_rejected_though_4x4_matrices_miss_them(
    graph, correct, n
):
    key = _entry_key(correct)
    y, x = key
    # a 9-edge path x -> y, labels in matrix order; S_9 of them, or the last label times
    # S_8 of the others: one word is the path itself, the other words are not paths
    letters = _path_labels(graph, x, y)
    assert len(letters) == 9
    refs, s_n = _standard_polynomial(letters[9 - n :])
    added = sympy.Mul(*letters[: 9 - n]) * s_n
    rng = np.random.default_rng(0)
    matrices = {s: rng.integers(0, OLD_PRIME, size=(5, 5)) for s in letters}
    assert _evaluate(refs, s_n, matrices, 5, OLD_PRIME).any()  # not an identity of M_5
    matrices = {s: m[:4, :4] for s, m in matrices.items()}
    assert not _evaluate(refs, s_n, matrices, 4, OLD_PRIME).any()  # Amitsur-Levitzki
    wrong = _with_entry(correct, key, correct.jacobian[key] + added, refs)
    for seed in range(3):
        result = verify(wrong, seed=seed)
        assert not result.ok and "that is not a path" in result.detail


# -- coefficients divisible by the moduli ------------------------------------------------

P1, P2, P3 = primes_for(2**62)  # the three largest primes below 2^31


@pytest.mark.parametrize(
    "multiple", [OLD_PRIME, P1, P2, P3, P1 * P2, P1 * P3, P1 * P2 * P3, OLD_PRIME * P1 * P2]
)
def test_coefficients_divisible_by_the_primes_are_rejected(correct, multiple):
    key = _entry_key(correct)
    y, x = key
    word = _path_word(correct.graph, x, y)
    wrong = _with_entry(correct, key, correct.jacobian[key] + multiple * word)
    bound = shapes_and_bound(wrong)
    assert bound >= multiple + 1
    product = 1
    for p in primes_for(bound):
        product *= p
    assert product > 2 * (bound + 1) and multiple % product != 0  # CRT: some prime sees it
    result = verify(wrong)
    assert not result.ok and result.mode == "random-point"
    assert result.detail == f"entry ({y}, {x}) differs from Bauer's formula"


def test_prime_times_a_non_path_word_is_rejected_by_its_shape(correct):
    key = _entry_key(correct)
    a, b = (correct.graph.symbol(u, v) for u, v in correct.graph.edges()[:2])
    result = verify(_with_entry(correct, key, correct.jacobian[key] + OLD_PRIME * a * b))
    assert not result.ok and "that is not a path" in result.detail


# -- missing, doubled, cancelling --------------------------------------------------------


@pytest.mark.parametrize(("change", "ok"), [(-1, False), (+1, False), (0, True)])
def test_a_path_missing_or_counted_twice_is_rejected(correct, change, ok):
    key = _entry_key(correct)
    y, x = key
    word = _path_word(correct.graph, x, y)
    if change:
        entry = correct.jacobian[key] + change * word
    else:  # "+ 2*w - w - w": correct but odd; every word is a path, so it passes
        entry = sympy.Add(correct.jacobian[key], 2 * word, -word, -word, evaluate=False)
        assert len(entry.args) == 4 and 2 * word in entry.args
    for seed in range(3):
        result = verify(_with_entry(correct, key, entry), seed=seed)
        assert result.ok is ok, result.detail
        assert result.mode == "random-point"


def test_cancelling_non_path_terms_are_rejected_at_random_points_but_not_exactly(sin_graph):
    """A term that is not a path and cancels (``+ q - q``) leaves a correct matrix, and the
    exact mode (which expands) accepts it; the random-point mode rejects every word that is
    not a path before anything cancels, so it refuses the set."""
    es = reverse(sin_graph)
    q = sin_graph.symbol("x1", "v1") * sin_graph.symbol("x0", "v2")  # d_v1_x1*d_v2_x0
    entry = sympy.Add(es.jacobian["y", "x1"], q, -q, evaluate=False)
    odd = _with_entry(es, ("y", "x1"), entry)
    assert verify(odd, "exact").ok
    result = verify(odd, "random-point")
    assert not result.ok
    assert result.detail == "entry (y, x1) has a term d_v1_x1*d_v2_x0 that is not a path"


def test_wrong_endpoints_and_constants_are_named(sin_graph):
    es = reverse(sin_graph)
    d = {str(s): s for s in sin_graph.edge_symbols}
    wrong = _with_entry(es, ("y", "x1"), es.jacobian["y", "x1"] + d["d_y_v2"] * d["d_v2_x0"])
    assert verify(wrong, "random-point").detail == (
        "entry (y, x1) has a term d_y_v2*d_v2_x0 that is not a path from x1 to y"
    )
    constant = _with_entry(es, ("y", "x1"), es.jacobian["y", "x1"] + 3)
    assert verify(constant, "random-point").detail == (
        "entry (y, x1) has a term 3 that is not a path from x1 to y"
    )


def test_an_unknown_mode_is_an_error(correct):
    with pytest.raises(VerificationError, match="unknown verification mode 'random-matrix'"):
        verify(correct, "random-matrix")
    assert issubclass(VerificationError, DGraphError)


def test_astronomical_coefficients_are_refused_not_computed(correct):
    """r1 = 2, r(k+1) = r(k)^2: B would be 2^(2^40); it saturates and the set is refused."""
    refs = {sympy.Symbol("r9001", commutative=False): sympy.Integer(2)}
    for k in range(9002, 9042):
        prev = sympy.Symbol(f"r{k - 1}", commutative=False)
        refs[sympy.Symbol(f"r{k}", commutative=False)] = prev * prev
    key = _entry_key(correct)
    y, x = key
    entry = correct.jacobian[key] + list(refs)[-1] * _path_word(correct.graph, x, y)
    refused = _with_entry(correct, key, entry, refs)
    assert verify_module.shapes_and_bound(refused) == verify_module.BOUND_CAP  # saturated
    result = verify(refused)
    assert (
        not result.ok and result.detail == "coefficients of more than 4096 bits cannot be checked"
    )
    assert result.status == "not verified"  # undecided, which is not wrong


def test_outputs_with_no_block_are_compared_as_zero():
    """Every output is compared with JAX's jvp, one with no block as zero: an integer
    output (its tangent JAX's float0, read as zeros; this raised NumPy's ValueError), a
    constant and a stopped gradient verify."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    import dgraph

    x = np.linspace(0.1, 0.9, 4)
    for f in (
        lambda x: (jnp.sin(x), jnp.argmax(x)),
        lambda x: (jnp.sin(x), jnp.ones(3)),
        lambda x: (jnp.sin(x), jax.lax.stop_gradient(x) * 2),
    ):
        g = dgraph.make_function(f, "jacobian", point=[x])
        assert g.generated.verified and "JAX's jvp" in g.generated.check.against


# -- the largest coefficient of a long chain's set ---------------------------------------


def _mixed_chain(n: int) -> str:
    """``v_k = v*(1 - 0.5*v**2) + 0.1*cos(v)``, n steps: each step's reference adds
    three terms begun by different edges (benchmarks/cse_scale.py)."""
    lines = ["inputs: x", "outputs: y"]
    v = "x"
    for k in range(1, n + 1):
        w = "y" if k == n else f"v{k}"
        lines.append(f"{w} = {v}*(1 - 0.5*{v}**2) + 0.1*cos({v})")
        v = w
    return "\n".join(lines) + "\n"


def _unused_mixed_reference(es):
    """``es`` with an unused reference adding two edges of different shapes: the table
    gives no node two shapes, so the set goes to the general folds."""
    a, b = list(es.graph.edge_symbols)[:2]
    junk = sympy.Symbol("unused", commutative=False)
    return dataclasses.replace(es, references={**es.references, junk: a + b})


@pytest.mark.parametrize("method", ["forward", "reverse"])
@pytest.mark.parametrize("route", ["table", "general"])
def test_a_long_chain_s_terms_begun_or_ended_by_different_edges_bound_by_the_larger(method, route):
    """The forward (reverse) set of a 60-step chain: its l1 norm is 3^60, its largest
    coefficient 1, and its references' terms begin (end) with different edges (at 2,600
    steps 3^n passed 2^4096 and the set 'cannot be checked': benchmarks/cse_scale.py's
    3,000-step chain had no verified candidate; the reverse set and the general folds
    still bounded 3^n). It verifies by random points with one prime, through the table
    and through the general folds; the same set with one reference's term doubled, or
    two factors swapped, is caught."""
    from dgraph.core.exprtable import expression_table
    from dgraph.core.verify import table_shapes_and_bound
    from dgraph.frontends import from_trace

    es = accumulate(from_trace(_mixed_chain(60)), method, verify=False)
    if route == "general":
        es = _unused_mixed_reference(es)
        assert table_shapes_and_bound(es, expression_table(es)) is None
    else:
        assert table_shapes_and_bound(es, expression_table(es)) == 1
    assert shapes_and_bound(es) == 1
    check = verify(es, "random-point")
    assert check.ok and "mod 1 prime " in check.detail
    name, definition = next((n, d) for n, d in es.references.items() if d.is_Add)
    term = sympy.Add.make_args(definition)[0]
    doubled = dataclasses.replace(es, references={**es.references, name: definition + term})
    assert verify(doubled, "random-point").status == "wrong"
    product = next(t for t in sympy.Add.make_args(definition) if t.is_Mul)
    swapped = sympy.Mul(*reversed(product.args))
    changed = definition.xreplace({product: swapped})
    result = verify(dataclasses.replace(es, references={**es.references, name: changed}))
    assert result.status == "wrong" and "not a path" in result.detail


# -- the bound is at least the largest coefficient ----------------------------------------


def _random_set(rnd):
    """A random DAG and an expression set on it whose terms are all path words, built
    from products, sums, integer multiples, shared references and one unused reference
    whose terms have different shapes (or include the empty word)."""
    from dgraph.core.expressions import make_expression_set
    from dgraph.core.graph import DGraph

    n = rnd.randint(4, 7)
    names = [f"v{i}" for i in range(n)]
    g = DGraph("random")
    for i, v in enumerate(names):
        g.add_vertex(v, "input" if i < 2 else "output" if i == n - 1 else "intermediate")
    for i in range(2, n):  # every vertex reaches the next: none dangles
        for j in {i - 1, *rnd.sample(range(i), min(i, 2)), *([0] if i == 2 else [])}:
            g.add_edge(names[j], names[i])
    g.validate()
    reach = {v: {v} | set(nx.descendants(g.nx, v)) for v in names}
    refs: dict[sympy.Symbol, sympy.Expr] = {}
    by_shape: dict[tuple[str, str], list[sympy.Symbol]] = {}

    def words(u: str, v: str, depth: int) -> sympy.Expr:
        """An expression whose words all run from u to v (v reachable from u)."""
        mids = [m for m in names if m not in (u, v) and m in reach[u] and v in reach[m]]
        kinds = (["edge"] if g.nx.has_edge(u, v) else []) + by_shape.get((u, v), [])
        if depth > 0:
            kinds += ["sum", "multiple", "one plus"] + ["product"] * 2 * bool(mids)
        kind = rnd.choice(kinds or ["product"])
        if kind == "edge":
            return g.symbol(u, v)
        if isinstance(kind, sympy.Symbol):
            return kind
        if kind == "product":
            m = rnd.choice(mids)
            return sympy.Mul(words(m, v, depth - 1), words(u, m, depth - 1))
        if kind == "sum":
            return sympy.Add(words(u, v, depth - 1), words(u, v, depth - 1))
        k = rnd.choice([2, -1, 3])
        if kind == "multiple":
            return sympy.Mul(k, words(u, v, depth - 1))
        return sympy.Mul(sympy.Add(1, k), words(u, v, depth - 1))  # the empty word, twice

    pairs = [(u, v) for u in names for v in reach[u] - {u}]
    for k in range(rnd.randint(1, 5)):
        u, v = rnd.choice(pairs)
        refs[sympy.Symbol(f"r{k}", commutative=False)] = words(u, v, 3)
        by_shape.setdefault((u, v), []).append(list(refs)[-1])
    (u1, v1), (u2, v2) = rnd.sample(pairs, 2)
    mixed = sympy.Add(words(u1, v1, 2), words(u2, v2, 2), rnd.choice([0, 1]))
    refs[sympy.Symbol("unused", commutative=False)] = mixed
    x, y = names[0], names[-1]
    return make_expression_set(g, refs, {(y, x): words(x, y, 4)})


def _largest_coefficient(expr: sympy.Expr, refs) -> int:
    """The largest |coefficient| of ``expr``'s exact noncommutative expansion."""
    for name, definition in reversed(list(refs.items())):
        expr = expr.xreplace({name: definition})
    terms = sympy.Add.make_args(sympy.expand(expr))
    return max((abs(int(t.as_coeff_Mul()[0])) for t in terms if t != 0), default=0)


@settings(max_examples=40, deadline=None)
@given(st.randoms(use_true_random=False))
def test_the_bound_is_at_least_every_largest_coefficient(rnd):
    """Every reference's and entry's bound from the general folds is at least the largest
    coefficient of its exact expansion (sympy, noncommutative), and at most the table's
    bound where the table reads the set (the general folds keep bounds by letter)."""
    from dgraph.core.exprtable import expression_table
    from dgraph.core.verify import _shape_parts, table_shapes_and_bound

    es = _random_set(rnd)
    refs, entries = _shape_parts(es)
    for name, parts in [*refs.items(), *entries.items()]:
        expr = es.jacobian.get(name, name)
        bound = max((part.bound for part in parts.values()), default=0)
        assert _largest_coefficient(expr, es.references) <= bound
    used = dataclasses.replace(es, references=dict(list(es.references.items())[:-1]))
    table = table_shapes_and_bound(used, expression_table(used))
    assert table is not None and shapes_and_bound(used) <= table
    assert shapes_and_bound(es) == shapes_and_bound(used)
