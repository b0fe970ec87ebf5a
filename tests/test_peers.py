"""The peer tools' own test functions through dgraph (tests/peers/): Graphax's, asdex's
and sparsejac's, each at its own test point and float64, through
``from_jax(level="array")`` and ``make_function`` against JAX's ``jacrev``/``jacfwd``.
Each must be right, or refused in one clear line: none wrong, none crashing, none
failing dgraph's own check. Each function in its first language and mode; the other
combinations (python/jax × dense/sparse) of a small subset and the element level only
where they reach code no other run does (MORE_COMBOS, ELEMENT_LEVEL); benchmarks/peers.py
runs all four for every function and prints the table."""

from __future__ import annotations

import pytest

pytest.importorskip("jax", reason="JAX is not installed (pip install 'jacobian-accumulation[jax]')")

import numpy as np

import dgraph
from dgraph.frontends.jaxpr_arrays import REFERENCE_COMPILE
from tests.peers import CASES
from tests.peers.harness import compile_reference, densified, run, x64
from tests.test_element_expansion import peer_at_the_element_level

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

# -- cases that fail today, by root cause: one table, a line per case with its reason (empty:
# every case of the corpus is right or refused in one line)
XFAIL: dict[str, str] = {}


# Every function runs at the array level in its first combination (python dense, or python
# sparse where the peer's test is about sparsity); its other combinations and its element
# level (the array graph expanded to scalars) run only where they reach code of dgraph that
# no other run of the corpus reaches (branch coverage of dgraph by each run, 2026-12: the 147
# runs left out repeat the paths of these; benchmarks/peers.py runs all four combinations
# of every function)
MORE_COMBOS: dict[str, tuple[tuple[str, bool], ...]] = {
    "asdex/nonlinear": (("python", True),),
    "asdex/rule_sparser_than_primal": (("jax", True),),
    "asdex/squared_differences": (("jax", True),),
    "graphax/BlackScholes_Jacobian": (("jax", False),),
    "graphax/Helmholtz": (("python", True),),
    "graphax/Simple": (("jax", True),),
    "graphax/matmul": (("jax", False), ("jax", True)),
    "sparsejac/diagonal_fwd": (("jax", False), ("jax", True)),
}
ELEMENT_LEVEL = {
    *("asdex/digamma", "asdex/ldexp", "asdex/matmul_after_broadcast", "asdex/polygamma"),
    *("asdex/reduce_min_1d_full", "asdex/reduce_min_after_broadcast", "asdex/relu"),
    *("asdex/rosenbrock_gradient", "asdex/select_n_mixed", "asdex/softmax"),
    *("asdex/straight_through_1d", "asdex/tall", "asdex/where_mask"),
    *("graphax/BlackScholes_Jacobian", "graphax/CloudSchemes_step", "graphax/Lighthouse"),
    *("graphax/RoeFlux_1d", "graphax/broadcast_add", "graphax/eq", "graphax/large_matmul"),
    *("graphax/slicing", "sparsejac/convolutional_1d_nonlinear_fwd"),
    *("sparsejac/convolutional_2d_fwd", "sparsejac/dense_fwd"),
}


def _params():
    for case in CASES:
        first, *others = case.combos
        for lang, sparse in [first, *(c for c in others if c in MORE_COMBOS.get(case.name, ()))]:
            label = f"{case.name}-{lang}-{'sparse' if sparse else 'dense'}"
            reason = XFAIL.get(case.name) or XFAIL.get(
                f"{case.name}[{label[len(case.name) + 1 :]}]"
            )
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            yield pytest.param(case, lang, sparse, id=label, marks=marks)
        if case.name in ELEMENT_LEVEL:
            # next to the case's runs, on the worker that holds its JAX reference
            yield pytest.param(case, "element", False, id=f"{case.name}-element")


@pytest.mark.parametrize(("case", "lang", "sparse"), list(_params()))
def test_peer_function_is_right_or_refused_in_one_line(case, lang, sparse):
    """``case.cite`` names the peer's test; the outcome is right or one clear refusal.
    ``lang`` "element": the case read at the element level instead (the array graph
    expanded to scalars, tests/test_element_expansion.py), against the same reference."""
    if lang == "element":
        peer_at_the_element_level(case)
        return
    outcome = run(case, lang, sparse)
    assert outcome.category in ("right", "refused"), (
        f"{case.name} ({case.cite}): {outcome.category}: {outcome.message}"
    )
    if outcome.category == "refused":
        assert outcome.message and "\n" not in outcome.message.strip()


def test_the_xfail_table_names_only_cases_of_the_corpus():
    names = {case.name for case in CASES}
    assert {key.split("[")[0] for key in XFAIL} <= names
    assert set(MORE_COMBOS) | ELEMENT_LEVEL <= names
    combos = {case.name: case.combos for case in CASES}
    assert all(set(more) <= set(combos[name][1:]) for name, more in MORE_COMBOS.items())
    assert len(names) == len(CASES)  # each case named once


# -- patterns where a constant makes entries structurally zero: equal to asdex's ----------
# asdex's expected pattern, stated as its test states it (adrhill/asdex, tests/_interpret/)
_W = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
_ASDEX = "adrhill/asdex tests/_interpret"
PATTERNS = [
    (  # test_elementwise.py::test_mul_zero_second_operand
        "mul_zero_second_operand",
        lambda x: x * jnp.array([1.0, 0.0, 1.0]),
        np.array([1.0, 2.0, 3.0]),
        [[1, 0, 0], [0, 0, 0], [0, 0, 1]],
    ),
    (  # the same mask inside a nonlinear function, plus a dependence on x[0]
        "mul_zero_then_sin",
        lambda x: jnp.sin(x * jnp.array([1.0, 0.0, 1.0])) + x[0],
        np.array([0.5, 1.0, 1.5]),
        [[1, 0, 0], [1, 0, 0], [1, 0, 1]],
    ),
    (  # test_elementwise.py::test_div_zero_numerator
        "div_zero_numerator",
        lambda x: jnp.array([0.0, 1.0, 0.0]) / x,
        np.array([1.0, 2.0, 3.0]),
        [[0, 0, 0], [0, 1, 0], [0, 0, 0]],
    ),
    (  # test_dot_general.py::test_matmul_with_constant
        "matmul_with_constant",
        lambda x: _W @ x,
        np.array([1.0, 2.0, 3.0]),
        [[1, 0, 0], [0, 1, 0]],
    ),
    (  # the constant on the right, a matrix argument (x @ Wᵀ, rows of x independent)
        "matmul_constant_right",
        lambda x: jnp.tanh(x @ _W.T),
        np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]),
        [[1, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 1, 0]],
    ),
    (  # test_select.py::test_select_n_mixed_deps: a constant predicate picks per element
        "select_n_mixed_deps",
        lambda x: jnp.where(jnp.array([True, False, True]), x[:3], jnp.array([x[3], x[4], x[3]])),
        np.arange(5.0),
        [[1, 0, 0, 0, 0], [0, 0, 0, 0, 1], [0, 0, 1, 0, 0]],
    ),
    (  # where with a constant predicate and a constant branch
        "where_constant_predicate",
        lambda x: jnp.where(jnp.array([True, False, True]), jnp.sin(x), 0.0),
        np.array([1.0, 2.0, 3.0]),
        [[1, 0, 0], [0, 0, 0], [0, 0, 1]],
    ),
    (  # test_select.py::test_ifelse_one_branch_constant: the predicate reads x
        "ifelse_one_branch_constant",
        lambda x: jnp.array([jnp.where(x[1] < x[2], x[0] + x[1], 1.0)]),
        np.array([1.0, 2.0, 3.0, 4.0]),
        [[1, 1, 0, 0]],
    ),
    (  # x**0 beside x: the power has no dependence (test_integer_pow_zero_base_exp_zero)
        "integer_pow_zero_beside_x",
        lambda x: x**0 + jnp.sin(x),
        np.array([1.0, 2.0, 3.0]),
        [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
    ),
    (  # 0*x beside x[::-1]: only the reversal remains
        "zero_times_x_beside_reverse",
        lambda x: 0 * x + x[::-1],
        np.array([1.0, 2.0, 3.0]),
        [[0, 0, 1], [0, 1, 0], [1, 0, 0]],
    ),
    (  # test_elementwise.py::test_binary_broadcast_size1_dim with a zero row weight
        "broadcast_size1_zero_weight",
        lambda x: (x.reshape(3, 4) * jnp.array([[1.0], [0.0], [2.0]])).reshape(-1),
        np.arange(12.0),
        np.diag([1] * 4 + [0] * 4 + [1] * 4).tolist(),
    ),
]


PATTERN_XFAIL: dict[str, str] = {}

# each pattern in one language, both languages several times (all pairs of pattern and
# language: 22 runs, 2026-12, of which these reach every line of dgraph the 22 reached
# that no other test of tests/test_peers.py, test_faces*.py, test_umbrellas.py or
# test_dstar.py reaches); the others in Python
PATTERN_LANGUAGES = {
    "select_n_mixed_deps": ("python", "jax"),
    "ifelse_one_branch_constant": ("jax",),
    "matmul_constant_right": ("jax",),
    "mul_zero_then_sin": ("jax",),
    "zero_times_x_beside_reverse": ("jax",),
}


def _patterns():
    for name, f, x, expected in PATTERNS:
        reason = PATTERN_XFAIL.get(name)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        for lang in PATTERN_LANGUAGES.get(name, ("python",)):
            yield pytest.param(name, f, x, expected, lang, marks=marks, id=f"{lang}-{name}")


_PATTERN_REFERENCES: dict[str, np.ndarray] = {}
_PATTERN_GRAPHS: dict[str, dgraph.DGraph] = {}


def _pattern_reference(name: str, f, x: np.ndarray) -> np.ndarray:
    """``jax.jacrev(f)(x)``, jitted (one compilation, not one per primitive), kept per
    pattern: a pattern's languages compare with the same one."""
    if name not in _PATTERN_REFERENCES:
        compiled = compile_reference(jax.jit(jax.jacrev(f)).lower(x), REFERENCE_COMPILE)
        _PATTERN_REFERENCES[name] = np.asarray(compiled(x))
    return _PATTERN_REFERENCES[name]


def _pattern_graph(name: str, f, x: np.ndarray) -> dgraph.DGraph:
    """``from_jax(f, x, level="array")``, built once per pattern: a pattern's languages'
    code is made from the same graph."""
    if name not in _PATTERN_GRAPHS:
        _PATTERN_GRAPHS[name] = dgraph.from_jax(f, x, level="array")
    return _PATTERN_GRAPHS[name]


@pytest.mark.parametrize(("name", "f", "x", "expected", "lang"), list(_patterns()))
def test_sparse_pattern_equals_asdex_where_a_constant_zeroes_entries(name, f, x, expected, lang):
    """The sparse Jacobian stores exactly asdex's pattern, and its values are JAX's."""
    with x64():
        g = _pattern_graph(name, f, x)
        J = dgraph.make_function(g, "jacobian", lang, sparse=True)(x)
        want = _pattern_reference(name, f, x).reshape(len(expected), x.size)
        got = densified(J)
    stored = np.zeros(J.shape, dtype=int)
    if lang == "python":
        coo = J.tocoo()
        stored[coo.row, coo.col] = 1
    else:
        rows, cols = np.asarray(J.indices).T
        stored[rows, cols] = 1
    assert stored.tolist() == expected
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("f", "why"),
    [
        (lambda x: x**0, "test_integer_pow_zero_base_exp_zero: x**0 has no dependence"),
        (lambda x: 0 * x, "0*x has no dependence"),
        (lambda x: jnp.where(jnp.array([False] * 3), x, 1.0), "a predicate that never picks x"),
    ],
)
def test_a_function_a_constant_makes_independent_has_a_zero_jacobian(f, why):
    """asdex's pattern is empty: no edge from x; the Jacobian is zero, as JAX's, and a
    note says the output does not depend on the inputs."""
    x = np.array([1.0, 2.0, 3.0])
    with x64():
        g = dgraph.from_jax(f, x, level="array")
        got = dgraph.make_function(g, "jacobian", "python")(x)
    assert g.n_edges == 0 and not np.any(got), why
    assert any("does not depend on the inputs" in n for n in g.notes)
