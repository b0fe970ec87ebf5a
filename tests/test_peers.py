"""The peer tools' own test functions through dgraph (tests/peers/): Graphax's, asdex's
and sparsejac's, each at its own test point and float64, through
``from_jax(level="array")`` and ``make_function`` against JAX's ``jacrev``/``jacfwd``.
Each must be right, or refused in one clear line: none wrong, none crashing, none
failing dgraph's own check. By default one language and mode per function, all four
(python/jax × dense/sparse) for a small subset; benchmarks/peers.py runs all four for
every function and prints the table."""

from __future__ import annotations

import pytest

pytest.importorskip("jax", reason="JAX is not installed (pip install 'jacobian-accumulation[jax]')")

from tests.peers import CASES
from tests.peers.harness import run

# -- cases that fail today, by root cause (one table; remove a line when its cause is fixed)
POW_0D = "x**n on a 0-d array: derivative n instead of n*x**(n-1) (issue 52, cause 1)"
INF_NAME = "softmax's -inf guard: generated code raises NameError: name 'inf' (cause 5)"
CUSTOM_JVP = "custom_jvp rule ignored: the primal is differentiated, not JAX's rule (cause 4)"
PRNG_KEY = "jax.random.permutation(PRNGKey(0), ...): the key is folded as an array (cause 5)"

XFAIL = {
    "graphax/RobotArm_6DOF": POW_0D,
    "graphax/RoeFlux_1d": POW_0D,  # returned wrong: 0-d u**2, and no check at the user's point
    "graphax/KerrSenn_metric": POW_0D,
    "graphax/PropaneCombustion": POW_0D,
    "graphax/HumanHeartDipole": POW_0D,
    "graphax/SteadyStateCombustion": POW_0D,
    "asdex/mixed_sparsity": POW_0D,
    "asdex/dense": POW_0D,
    "asdex/different_points_1": POW_0D,
    "asdex/different_points_2": POW_0D,
    "asdex/different_points_3": POW_0D,
    "asdex/single_input": POW_0D,
    "sparsejac/dense": POW_0D,
    "sparsejac/dense_fwd": POW_0D,
    "graphax/Perceptron": INF_NAME,
    "graphax/vmap_Perceptron": INF_NAME,
    "graphax/Encoder": INF_NAME,
    "graphax/EncoderDecoder": INF_NAME,
    "asdex/softmax": INF_NAME,
    "asdex/rule_sparser_than_primal": CUSTOM_JVP,
    "asdex/rule_reads_other_elements": CUSTOM_JVP,
    "asdex/closure_dependencies_dropped": CUSTOM_JVP,
    "sparsejac/diagonal_shuffled": PRNG_KEY,
    "sparsejac/diagonal_shuffled_fwd": PRNG_KEY,
}


def _params():
    for case in CASES:
        for lang, sparse in case.combos:
            marks = []
            if case.name in XFAIL:
                marks.append(pytest.mark.xfail(strict=True, reason=XFAIL[case.name]))
            label = f"{case.name}-{lang}-{'sparse' if sparse else 'dense'}"
            yield pytest.param(case, lang, sparse, id=label, marks=marks)


@pytest.mark.parametrize(("case", "lang", "sparse"), list(_params()))
def test_peer_function_is_right_or_refused_in_one_line(case, lang, sparse):
    """``case.cite`` names the peer's test; the outcome is right or one clear refusal."""
    outcome = run(case, lang, sparse)
    assert outcome.category in ("right", "refused"), (
        f"{case.name} ({case.cite}): {outcome.category}: {outcome.message}"
    )
    if outcome.category == "refused":
        assert outcome.message and "\n" not in outcome.message.strip()


def test_the_xfail_table_names_only_cases_of_the_corpus():
    names = {case.name for case in CASES}
    assert set(XFAIL) <= names
    assert len(names) == len(CASES)  # each case named once
