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


def test_a_long_chain_s_terms_begun_by_different_edges_bound_by_the_larger():
    """The forward set of a 60-step chain: its l1 norm is 3^60, its largest coefficient 1
    (at 2,600 steps 3^n passed 2^4096 and the set 'cannot be checked': benchmarks/
    cse_scale.py's 3,000-step chain had no verified candidate); it verifies by random
    points with one prime, and the same set with one reference's term doubled is caught."""
    from dgraph.core.exprtable import expression_table
    from dgraph.core.verify import table_shapes_and_bound
    from dgraph.frontends import from_trace

    es = accumulate(from_trace(_mixed_chain(60)), "forward")
    assert table_shapes_and_bound(es, expression_table(es)) == 1
    assert es.verification.ok and es.verification.mode == "random-point"
    assert "mod 1 prime" in es.verification.detail
    name, definition = next(iter(es.references.items()))
    term = sympy.Add.make_args(definition)[0]
    wrong = dataclasses.replace(es, references={**es.references, name: definition + term})
    result = verify(wrong)
    assert not result.ok and result.status == "wrong"
