"""asdex's Jacobian tests (github adrhill/asdex: tests/test_decompression.py, the
reference tests against ``jax.jacobian``, and tests/_interpret/test_custom_jvp.py),
re-stated: each test's function at its own point. asdex compares its sparse Jacobian with
``jax.jacobian`` (reverse mode); here dgraph's is compared with ``jax.jacrev``."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .harness import Case

DECOMP = "adrhill/asdex tests/test_decompression.py"
CUSTOM = "adrhill/asdex tests/_interpret/test_custom_jvp.py"


def diagonal(x):  # test_diagonal, test_bcoo_format, test_column_partition_diagonal
    return x**2


def lower_triangular(x):  # test_lower_triangular: running sums
    return jnp.array([x[0], x[0] + x[1], x[0] + x[1] + x[2]])


def upper_triangular(x):  # test_upper_triangular: the sums from the end
    return jnp.array([x[0] + x[1] + x[2], x[1] + x[2], x[2]])


def mixed_sparsity(x):  # test_mixed_sparsity, test_column_partition_mixed
    return jnp.array([x[0] ** 2, 2 * x[0] * x[1] ** 2, jnp.sin(x[2])])


def dense(x):  # test_dense: the total, twice the total, its square
    total = jnp.sum(x)
    return jnp.array([total, total * 2, total**2])


def zero_jacobian(x):  # test_zero_jacobian: a constant
    del x
    return jnp.array([1.0, 2.0, 3.0])


def squared_differences(x):  # test_precomputed_colors, test_precomputed_col_colors
    return (x[1:] - x[:-1]) ** 2


def different_points(x):  # test_different_input_points (at each of its three points)
    return jnp.array([x[0] * x[1], x[1] ** 2, jnp.exp(x[2])])


def single_output(x):  # test_single_output
    return jnp.array([jnp.sum(x**2)])


def single_input(x):  # test_single_input
    return jnp.array([x[0], x[0] ** 2, jnp.sin(x[0])])


def tridiagonal(x):  # test_tridiagonal_pattern, test_column_partition_tridiagonal
    n = x.shape[0]
    rows = []
    for i in range(n):
        value = x[i]
        if i > 0:
            value = value + x[i - 1]
        if i < n - 1:
            value = value + x[i + 1]
        rows.append(value)
    return jnp.array(rows)


def block_diagonal(x):  # test_block_diagonal: two 2×2 blocks
    return jnp.array([x[0] + x[1], x[0] * x[1], x[2] + x[3], x[2] * x[3]])


def nonlinear(x):  # test_nonlinear_functions
    return jnp.array(
        [jnp.sin(x[0]) * jnp.cos(x[1]), jnp.exp(x[1]) + jnp.log(x[2] + 1), jnp.tanh(x[2]) * x[0]]
    )


def wide(x):  # test_wide_jacobian: two partial sums of five
    return jnp.array([jnp.sum(x[:2]), jnp.sum(x[2:])])


def tall(x):  # test_tall_jacobian, test_auto_picks_column_for_tall
    return jnp.array([x[0], x[1], x[0] + x[1], x[0] * x[1], x[0] - x[1]])


def overlapping_sums(x):  # test_auto_picks_row_for_wide: sums sharing x[2]
    return jnp.array([jnp.sum(x[:3]), jnp.sum(x[2:])])


def rosenbrock_gradient(x):  # test_hessian_rosenbrock's function, its gradient's Jacobian
    return jax.grad(lambda z: jnp.sum((1 - z[:-1]) ** 2 + 100 * (z[1:] - z[:-1] ** 2) ** 2))(x)


# --- tests/_interpret/test_custom_jvp.py: JAX differentiates with the rule, not the primal


@jax.custom_jvp
def straight_through_round(x):  # _straight_through_round: round, with the identity rule
    return jnp.round(x)


straight_through_round.defjvp(lambda p, t: (straight_through_round(*p), t[0]))


def straight_through_2d(x):  # test_straight_through_estimator_2d
    return straight_through_round(x.reshape(3, 4)).ravel()


@jax.custom_jvp
def sum_coupled(x):  # test_rule_sparser_than_primal: x * sum(x), the rule 2 t
    return x * jnp.sum(x)


sum_coupled.defjvp(lambda p, t: (sum_coupled(*p), 2.0 * t[0]))


@jax.custom_jvp
def first_two(x):  # test_rule_reads_other_elements_than_primal: x[:2], the rule t[1:]
    return x[:2]


first_two.defjvp(lambda p, t: (first_two(*p), t[0][1:]))


def closure(x):  # test_closure_dependencies_are_dropped
    y = 2.0 * x[::-1]

    @jax.custom_jvp
    def g(z):
        return z * y

    g.defjvp(lambda p, t: (3.0 * p[0], 3.0 * t[0]))
    return g(x)


@jax.custom_jvp
def times_n(x, n):  # test_integer_argument
    return x * n


times_n.defjvp(lambda p, t: (times_n(*p), t[0] * p[1]))


def ldexp(x):  # test_jnp_ldexp
    return jnp.ldexp(x, 2)


def relu_2d(x):  # test_jax_nn_relu
    return jax.nn.relu(x.reshape(3, 4)).ravel()


def softmax_2d(x):  # test_jax_nn_softmax
    return jax.nn.softmax(x.reshape(3, 4)).ravel()


ALL = (("python", False), ("python", True), ("jax", False), ("jax", True))
X3 = np.array([1.0, 2.0, 3.0])
CASES = [
    Case("asdex/diagonal", f"{DECOMP}::test_diagonal", diagonal,
         lambda: (np.array([1.0, 2.0, 3.0, 4.0]),), "jacrev", ALL),
    Case("asdex/lower_triangular", f"{DECOMP}::test_lower_triangular", lower_triangular,
         lambda: (X3,)),
    Case("asdex/upper_triangular", f"{DECOMP}::test_upper_triangular", upper_triangular,
         lambda: (X3,)),
    Case("asdex/mixed_sparsity", f"{DECOMP}::test_mixed_sparsity", mixed_sparsity,
         lambda: (np.array([1.0, 2.0, 0.5]),), "jacrev", ALL),
    Case("asdex/dense", f"{DECOMP}::test_dense", dense, lambda: (X3,)),
    Case("asdex/zero_jacobian", f"{DECOMP}::test_zero_jacobian", zero_jacobian,
         lambda: (np.array([1.0, 2.0]),)),
    Case("asdex/squared_differences", f"{DECOMP}::test_precomputed_colors",
         squared_differences, lambda: (np.array([1.0, 2.0, 4.0, 3.0, 5.0]),), "jacrev", ALL),
    Case("asdex/different_points_1", f"{DECOMP}::test_different_input_points (1st)",
         different_points, lambda: (np.array([1.0, 2.0, 0.5]),)),
    Case("asdex/different_points_2", f"{DECOMP}::test_different_input_points (2nd)",
         different_points, lambda: (np.zeros(3),)),
    Case("asdex/different_points_3", f"{DECOMP}::test_different_input_points (3rd)",
         different_points, lambda: (np.array([-1.0, 3.0, -0.5]),)),
    Case("asdex/single_output", f"{DECOMP}::test_single_output", single_output, lambda: (X3,)),
    Case("asdex/single_input", f"{DECOMP}::test_single_input", single_input,
         lambda: (np.array([2.0]),)),
    Case("asdex/tridiagonal", f"{DECOMP}::test_tridiagonal_pattern", tridiagonal,
         lambda: (np.array([1.0, 2.0, 3.0, 4.0]),)),
    Case("asdex/block_diagonal", f"{DECOMP}::test_block_diagonal", block_diagonal,
         lambda: (np.array([1.0, 2.0, 3.0, 4.0]),)),
    Case("asdex/nonlinear", f"{DECOMP}::test_nonlinear_functions", nonlinear,
         lambda: (np.array([0.5, 1.0, 0.3]),), "jacrev", ALL),
    Case("asdex/wide", f"{DECOMP}::test_wide_jacobian", wide,
         lambda: (np.array([1.0, 2.0, 3.0, 4.0, 5.0]),)),
    Case("asdex/tall", f"{DECOMP}::test_tall_jacobian", tall, lambda: (np.array([2.0, 3.0]),)),
    Case("asdex/overlapping_sums", f"{DECOMP}::test_auto_picks_row_for_wide", overlapping_sums,
         lambda: (np.array([1.0, 2.0, 3.0, 4.0, 5.0]),)),
    Case("asdex/rosenbrock_gradient", f"{DECOMP}::test_hessian_rosenbrock (the gradient)",
         rosenbrock_gradient, lambda: (np.ones(4),)),
    Case("asdex/straight_through_1d", f"{CUSTOM}::test_straight_through_estimator_1d",
         straight_through_round, lambda: (np.array([0.3, 1.7, -2.4]),)),
    Case("asdex/straight_through_2d", f"{CUSTOM}::test_straight_through_estimator_2d",
         straight_through_2d, lambda: (np.arange(12.0) / 7,)),
    Case("asdex/rule_sparser_than_primal", f"{CUSTOM}::test_rule_sparser_than_primal",
         sum_coupled, lambda: (X3,), "jacrev", ALL),
    Case("asdex/rule_reads_other_elements", f"{CUSTOM}::test_rule_reads_other_elements_than_primal",
         first_two, lambda: (X3,)),
    Case("asdex/closure_dependencies_dropped", f"{CUSTOM}::test_closure_dependencies_are_dropped",
         closure, lambda: (X3,)),
    Case("asdex/integer_argument", f"{CUSTOM}::test_integer_argument",
         lambda x: times_n(x, 2), lambda: (X3,)),
    Case("asdex/ldexp", f"{CUSTOM}::test_jnp_ldexp", ldexp, lambda: (np.array([1.5, 3.0, 0.7]),)),
    Case("asdex/relu", f"{CUSTOM}::test_jax_nn_relu", relu_2d,
         lambda: (np.array([-1.0, 2.0, 3.0, -0.5, 0.5, -2.0, 1.0, 4.0, 1.0, 1.0, -3.0, 2.0]),)),
    Case("asdex/softmax", f"{CUSTOM}::test_jax_nn_softmax", softmax_2d,
         lambda: (np.arange(12.0) / 5,), "jacrev", ALL),
    Case("asdex/straight_through_scalar", f"{CUSTOM}::test_scalar_input",
         straight_through_round, lambda: (np.array(0.3),)),
]  # fmt: skip
