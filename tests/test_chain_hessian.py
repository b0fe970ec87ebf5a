"""Hessian chain bracketing (Naumann and Burela; DOMAIN.md §11, seed 002's DP at second
order): hand-counted costs, the dynamic program against every bracketing, the value of
bracketings against the chain rule and jax.hessian, the text format and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dgraph.chain.hessian import (
    HessianProblem,
    forward_over_reverse,
    hessian_notation,
    parse_hessian_problem,
    product_cost,
    random_hessian_problem,
    second_order_tangent,
    solve_hessian,
)
from dgraph.chain.hessian_check import (
    brute_force_hessian,
    chain_rule_hessian,
    count_bracketings,
    evaluate_hessian,
    hessian_solutions,
    random_factors,
    recount,
)
from dgraph.chain.problem import bundled_problem
from dgraph.cli import main
from dgraph.errors import InputError, SearchTooLarge

S5 = "3\n3 3 29\n1 3 14\n2 1 7\n"  # seed 002's §5 chain, code only


def test_seed_002_chain_costs_by_hand():
    p = parse_hessian_problem(S5)
    # Σ|E| = 50; second-order term = |E| per factor, so Σ(e + s) = 100; output R², input R³
    assert forward_over_reverse(p) == (2 + 3) * 50 + 2 * 3 * 100 == 850
    assert second_order_tangent(p) == 3 * 50 + 6 * 100 == 750
    s = solve_hessian(p)
    # F̈₃·I₁: 1·7 + 1·14; I₁·F̄̇₂·F̄̇₁: (1+3)·43 + 1·3·86; ∘ at the root: 2·1·(1·3 + 2·6)
    assert s.cost == 21 + 430 + 30 == 481
    assert s.bracketing() == "(F̈₃·I₁)∘(I₁·F̄̇₂·F̄̇₁)"
    assert s.bracketing(latex=True).startswith(r"(\ddot{F}_{3} \cdot I_{1}) \circ")


def test_dense_product_cost_and_small_optimum():
    p = HessianProblem.dense([(4, 3), (1, 4)])
    # H₂ ×₃ F'₁ (1·4·4·3), F'₁ᵀ· over a ≤ b (1·4·6), F'₂·F''₁ over a ≤ b (1·4·6), F' (1·4·3)
    assert product_cost(p, 2, 1, 1) == 48 + 24 + 24 + 12
    assert product_cost(p, 2, 1, 1, jacobian=False) == 96
    assert solve_hessian(p).cost == 96
    assert forward_over_reverse(p) == (1 + 3) * 16 + 3 * (12 + 48 + 4 + 20) == 316
    assert second_order_tangent(p) == 3 * 16 + 6 * 84 == 552


def test_count_and_enumerate():
    assert [count_bracketings(k) for k in (1, 2)] == [3, 17]
    p = HessianProblem.dense([(2, 2), (3, 2), (1, 3)])
    assert len(hessian_solutions(p)) == count_bracketings(3)
    with pytest.raises(SearchTooLarge):
        hessian_solutions(HessianProblem.dense([(1, 1)] * 7))


@st.composite
def problems(draw, max_q=4):
    q = draw(st.integers(1, max_q))
    sizes = draw(st.lists(st.integers(1, 5), min_size=q + 1, max_size=q + 1))
    m, n = tuple(sizes[1:]), tuple(sizes[:-1])
    edges = tuple(draw(st.integers(0, 40)) for _ in range(q))
    second = tuple(draw(st.integers(0, 40)) for _ in range(q))
    flags = tuple(draw(st.booleans()) for _ in range(q))
    return HessianProblem(m, n, edges, second, flags, symmetric=draw(st.booleans()))


@settings(max_examples=40, deadline=None)
@given(problems())
def test_dp_optimum_equals_brute_force(p):
    s = solve_hessian(p)
    best = brute_force_hessian(p)
    assert s.cost == best.cost
    assert recount(s.tree(), p) == s.cost == s.tree().cost
    # both baselines are bracketings in the space
    assert s.cost <= forward_over_reverse(p) and s.cost <= second_order_tangent(p)


@settings(max_examples=15, deadline=None)
@given(problems(max_q=5), st.integers(0, 2**16))
def test_optimum_computes_the_hessian(p, seed):
    factors = random_factors(p, seed)
    _, hess = evaluate_hessian(solve_hessian(p).tree(), factors)
    np.testing.assert_allclose(hess, chain_rule_hessian(factors), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(hess, hess.transpose(0, 2, 1), atol=1e-9)


def test_every_bracketing_computes_the_hessian():
    p = HessianProblem(
        m=(3, 2, 2), n=(2, 3, 2), edges=(5, 4, 3), second=(2, 7, 1), given=(True, False, True)
    )
    factors = random_factors(p, 7)
    reference = chain_rule_hessian(factors)
    jac_ref = factors[2][0] @ factors[1][0] @ factors[0][0]
    trees = hessian_solutions(p)
    # F₁, F₃ alone: 3 ways (given or a run), F₂: 2; F(2,1), F(3,2): 2 + 3·2 + 3 + 2 = 13;
    # F(3,1): 2 + (13·3 + 13 + 3) + (3·13 + 3 + 13) = 112
    assert len(trees) == 112
    for tree in trees:
        jac, hess = evaluate_hessian(tree, factors)
        np.testing.assert_allclose(hess, reference, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(jac, jac_ref, rtol=1e-9, atol=1e-12)


def test_optimum_against_jax_hessian():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    a = jnp.array([[0.3, -1.2, 0.5], [0.7, 0.1, -0.4], [-0.9, 0.6, 0.2], [0.4, 0.8, -1.1]])

    def f1(x):  # R³ → R⁴
        return jnp.sin(a @ x)

    def f2(z):  # R⁴ → R²
        return jnp.stack([z[0] * z[1] + z[2], jnp.exp(z[2]) * z[3] - z[1] ** 2])

    def f3(w):  # R² → R
        return jnp.stack([w[0] ** 2 * w[1] + jnp.cos(w[1])])

    @jax.jit  # one compilation instead of one per operation
    def derivatives(x):
        z1 = f1(x)
        z2 = f2(z1)
        local = [(jax.jacfwd(f)(z), jax.hessian(f)(z)) for f, z in ((f1, x), (f2, z1), (f3, z2))]
        return local, jax.hessian(lambda v: f3(f2(f1(v)))[0])(x)

    local, expected = derivatives(jnp.array([0.2, -0.5, 0.9]))
    factors = [(np.asarray(j, float), np.asarray(h, float)) for j, h in local]
    p = HessianProblem.dense([(4, 3), (2, 4), (1, 2)])
    for s in (solve_hessian(p), solve_hessian(p, ("adjoint",)), solve_hessian(p, ("tangent",))):
        _, hess = evaluate_hessian(s.tree(), factors)
        np.testing.assert_allclose(hess[0], np.asarray(expected), rtol=1e-4, atol=1e-5)


def test_restricted_operations():
    p = parse_hessian_problem(S5)
    # adjoints only: I₂·F̄̇₃ ((2+1)·7 + 2·1·14 = 49) seeds a sweep over F₂, F₁ ((2+3)·43 +
    # 2·3·(86 + 1²) = 737), cheaper than one sweep over all three (forward-over-reverse)
    adjoints = solve_hessian(p, ("adjoint",))
    assert (adjoints.cost, forward_over_reverse(p)) == (49 + 737, 850)
    assert adjoints.bracketing() == "(I₂·F̄̇₃)·F̄̇₂·F̄̇₁"
    assert solve_hessian(p, ("tangent",)).cost == second_order_tangent(p)
    with pytest.raises(InputError, match="not given"):
        solve_hessian(p, ("given", "product"))
    with pytest.raises(InputError, match="unknown operation"):
        solve_hessian(p, ("magic",))


def test_a_seeded_adjoint_run_beats_one_sweep():
    # seed 002's §4 chain R⁸ → R⁴ → R² → R: preaccumulating the upper Hessian blocks and
    # seeding the lower sweep with them saves the upper factors' 8 tangent directions
    p = HessianProblem.from_chain(bundled_problem("example_s4.txt"))
    s = solve_hessian(p)
    assert (s.cost, forward_over_reverse(p)) == (1208, 1400)
    assert s.bracketing() == "((I₁·F̄̇₃)·F̄̇₂)·F̄̇₁"


def test_dense_random_chains_beat_forward_over_reverse():
    p = random_hessian_problem(8, 15, seed=4)
    assert p.m[-1] == 1 and all(p.given)
    assert forward_over_reverse(p) >= 3 * solve_hessian(p).cost


def test_text_format():
    p = parse_hessian_problem("# dense, then code\n3\n4 3\n2 4 9\n1 2 5 7\n")
    assert p.given == (True, False, False)
    assert p.edges == (12, 9, 5) and p.second == (48, 9, 7)
    assert parse_hessian_problem(p.to_text()) == p
    for text, message in [
        ("", "empty file"),
        ("2\n4 3\n", "2 factors announced, 1 given"),
        ("1\n4 3\n2 4\n", "line 3: more than q = 1"),
        ("2\n4 3\n2 5\n", "line 3: factor 2 takes n = 5"),
        ("1\n4 3 1 2 3\n", "expected 'm n'"),
        ("1\n0 3\n", "sizes must be positive"),
        ("1\n4 x\n", "line 2: expected .* as integers"),
    ]:
        with pytest.raises(InputError, match=message):
            parse_hessian_problem(text)


def test_cli_json_and_report(capsys, tmp_path):
    path = tmp_path / "s5.txt"
    path.write_text(S5)
    assert main(["chain", "--hessian", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["optimal"] == 481 and data["forward_over_reverse"] == 850
    assert data["bracketing"] == "(F̈₃·I₁)∘(I₁·F̄̇₂·F̄̇₁)"
    assert data["products_only"] is None
    assert main(["chain", "--hessian", str(path)]) == 0
    out = capsys.readouterr().out
    assert "optimal: 481 fma" in out and "forward-over-reverse (second-order adjoints): 850" in out
    assert main(["chain", "--hessian", "--random", "4", "--seed", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["optimal"] <= data["products_only"] and data["q"] == 4


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--random", "3", "--memory", "5"], "do not apply"),
        (["--random", "200"], "exceed the limit of 150"),
        (["--random", "3", "--write", "x.txt"], "--write does not apply"),
    ],
)
def test_cli_bad_input(capsys, argv, message):
    assert main(["chain", "--hessian", *argv]) == 2
    assert message in capsys.readouterr().err


def test_notation_of_given_leaves():
    p = HessianProblem.dense([(2, 2), (1, 2)])
    tree = solve_hessian(p).tree()
    assert hessian_notation(tree, p) == "(F″₂)∘(F″₁)"
    assert hessian_notation(tree, p, latex=True) == "(F''_{2}) \\circ (F''_{1})"


def test_reference_implementation_example():
    # Naumann and Burela's reference implementation (github.com/shubhadityaburela/
    # Dense-Hessian-Bracketing, "Approach 1/README"): the chain 5×3, 2×5, 1×2, 4×1, 1×4 of
    # given dense factors, every Hessian entry counted (no symmetry). Its table lists
    # F''(1,0) = 330, F''(2,1) = 120, F''(3,2) = 40, F''(4,3) = 24 (0-based, without
    # forming the subchain's F'; ours include it: + m_j·m_k·n_i) and the optimum 345 with
    # the same left-to-right bracketing. Its total counts the upper parts' Jacobians afresh
    # at each step (F'(4,3) = 4 and F'(4,2) = 6 fma again inside F'(4,1) = 16): 345 − 10.
    p = HessianProblem.dense([(5, 3), (2, 5), (1, 2), (4, 1), (1, 4)], symmetric=False)
    s = solve_hessian(p, ("given", "product"))
    table = {(r["j"], r["i"]): r["cost"] for r in s.rows() if not r.get("root")}
    assert table[2, 1] == 330 + 2 * 5 * 3
    assert table[3, 2] == 120 + 1 * 2 * 5
    assert table[4, 3] == 40 + 4 * 1 * 2
    assert table[5, 4] == 24 + 1 * 4 * 1
    assert s.cost == 345 - 10
    assert s.bracketing() == "((((F″₅)∘(F″₄))∘(F″₃))∘(F″₂))∘(F″₁)"
    assert solve_hessian(HessianProblem.dense(p.sizes())).cost < s.cost  # a ≤ b only
