"""optimistix's test problems (github.com/patrick-kidger/optimistix, ``tests/helpers.py``:
JAX functions ``fn(y, args)`` of pytrees ``y``), restated here idiom for idiom without
equinox's ``ω`` and given to dgraph as a user of optimistix would, ``lambda y: fn(y,
args)`` (session 63, ``benchmarks/optimistix_survey.py`` runs the originals). Values
against hand-derived ones, nesting against JAX's (``jax.jacfwd``, ``jax.hessian``)."""

from dataclasses import dataclass

import numpy as np
import pytest

import dgraph

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jfu = pytest.importorskip("jax.flatten_util")
jax.config.update("jax_enable_x64", True)


def _same_tree(got, want, atol=1e-12) -> None:
    """``got`` nests as ``want`` does (JAX's tree structure) and each leaf has its
    values."""
    assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want), strict=True):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(np.asarray(g, dtype=float), np.asarray(w), atol=atol)


def himmelblau(tree, args):
    """helpers.py ``_himmelblau``: ``(y, z) = tree`` of a list of two 0-d JAX arrays
    (``minimisation_fn_minima_init_args``'s ``[jnp.array(2.0), jnp.array(2.5)]``)."""
    (y, z) = tree
    const1, const2 = args
    return (y**2 + z - const1) ** 2 + (y + z**2 - const2) ** 2


def test_himmelblau_of_a_list_of_jax_scalars_nests_as_jax() -> None:
    """A list of JAX arrays is a pytree, as JAX reads it: the gradient is a list of two
    scalars and the Hessian a list of lists (it was one vector and one 2×2 matrix: NumPy
    reads the list as one array). Hand-derived at (2, 2.5): a = y² + z - 11 = -4.5,
    b = y + z² - 7 = 1.25; ∇ = (4ya + 2b, 2a + 4zb), H = [[12y² + 4z - 42, 4(y + z)],
    [4(y + z), 12z² + 4y - 26]]."""
    args = (jnp.array(11.0), jnp.array(7.0))
    y0 = [jnp.array(2.0), jnp.array(2.5)]
    H = dgraph.make_function(lambda y: himmelblau(y, args), "value_gradient_hessian", point=[y0])
    value, gradient, hessian = H(y0)
    assert H.generated.verified is True
    assert float(value) == pytest.approx(4.5**2 + 1.25**2, abs=1e-12)
    _same_tree(gradient, [-33.5, 3.5])
    _same_tree(hessian, [[16.0, 18.0], [18.0, 57.0]])
    y, z = -1.3, 0.4  # another call, another point
    hand = [[12 * y**2 + 4 * z - 42, 4 * (y + z)], [4 * (y + z), 12 * z**2 + 4 * y - 26]]
    _same_tree(H([jnp.array(y), jnp.array(z)])[2], hand)


def rosenbrock(tree, args):
    """helpers.py ``rosenbrock`` (least squares): the residuals of ``ravel_pytree`` of the
    tree, a tuple of two arrays."""
    (y, _) = jfu.ravel_pytree(tree)
    const = args
    return (100 * (y[1:] - y[:-1]), const - y[:-1])


def test_rosenbrock_residuals_of_a_list_are_a_tuple_of_lists() -> None:
    """``least_squares_fn_minima_init_args``'s ``[jnp.array(1.5), jnp.array(1.5)]``:
    ``jax.jacfwd`` gives a tuple over the two residuals, each a list over the two leaves
    (hand-derived: r₁ = 100(y₁ - y₀), r₂ = 1 - y₀)."""
    y0 = [jnp.array(1.5), jnp.array(1.5)]
    f = lambda y: rosenbrock(y, jnp.array(1.0))  # noqa: E731
    J = dgraph.make_function(f, point=[y0])
    assert J.generated.verified is True
    _same_tree(
        J(y0), ([np.array([-100.0]), np.array([100.0])], [np.array([-1.0]), np.array([0.0])])
    )


@jax.tree_util.register_dataclass
@dataclass
class MLP:
    """``simple_nn``'s ``eqx.nn.MLP`` (in_size 1, width 8, depth 1) as a dataclass
    registered with ``jax.tree_util`` (what an equinox ``Module`` is): the made function
    of it returns the Jacobian as an ``MLP`` of blocks, as ``jax.jacfwd`` does."""

    weight1: jax.Array
    bias1: jax.Array
    weight2: jax.Array
    bias2: jax.Array

    def __call__(self, x):
        return self.weight2 @ jax.nn.relu(self.weight1 @ x + self.bias1) + self.bias2


def simple_nn(model, args):
    """helpers.py ``simple_nn``: residuals of the model over ``linspace(0, 1, 100)``
    against ``data**2``, through ``jax.vmap`` (``eqx.filter_vmap`` there)."""
    data = args
    x = jnp.linspace(0, 1, 100)[..., None]
    return (jax.vmap(model)(x) - data**2) ** 2


def test_simple_nn_over_a_registered_model_nests_as_the_model() -> None:
    """A point that is an object of a class registered with ``jax.tree_util`` (optimistix's
    ``simple_nn`` minimises over an ``eqx.nn.MLP``) was refused ("point= entry 0 is a
    MLP, not an array or a number"); now its leaves are the inputs."""
    rng = np.random.default_rng(0)
    model = MLP(*(jnp.asarray(rng.normal(size=s)) for s in ((8, 1), (8,), (1, 8), (1,))))
    data = jnp.linspace(0, 1, 100)[..., None]
    f = lambda m: simple_nn(m, data)  # noqa: E731
    J = dgraph.make_function(f, point=[model])
    assert J.generated.verified is True
    got = J(model)
    assert isinstance(got, MLP)
    x = np.linspace(0, 1, 100)  # by hand: r = e², e = w₂·relu(w₁x + b₁) + b₂ - data²
    h = np.outer(x, model.weight1[:, 0]) + model.bias1
    e = np.maximum(h, 0) @ model.weight2[0] + model.bias2[0] - x**2
    on = (h > 0) * model.weight2[0]  # d e / d b₁
    hand = MLP(
        (2 * e[:, None] * on * x[:, None])[:, None, :, None],
        (2 * e[:, None] * on)[:, None, :],
        (2 * e[:, None] * np.maximum(h, 0))[:, None, None, :],
        (2 * e)[:, None, None],
    )
    _same_tree(got, hand)


def diagonal_quadratic_bowl(tree, args):
    """helpers.py ``diagonal_quadratic_bowl``: ``(ω(tree).call(jnp.square) * (0.1 +
    weight_vector**ω)).ω``, a tree of the input's structure, here by ``tree_map``."""
    return jax.tree_util.tree_map(lambda y, w: jnp.square(y) * (0.1 + w), tree, args)


def test_a_tree_of_the_input_s_structure_is_a_tree_of_trees() -> None:
    """``({"a": (2, 3, 3)}, (2,))`` in, the same out: the Jacobian a tree of trees nested
    as ``jax.jacfwd``'s (the output's tree outside, the input's inside), its diagonal
    blocks diag(2y(0.1 + w)) and the others zero."""
    rng = np.random.default_rng(1)
    y0 = ({"a": jnp.asarray(rng.normal(size=(2, 3, 3)))}, jnp.asarray(rng.normal(size=2)))
    w = jax.tree_util.tree_map(lambda v: v**2, y0)
    f = lambda y: diagonal_quadratic_bowl(y, w)  # noqa: E731
    got = dgraph.make_function(f, point=[y0])(y0)
    a, b = (np.asarray(v) for v in jax.tree_util.tree_leaves(y0))
    wa, wb = (np.asarray(v) for v in jax.tree_util.tree_leaves(w))
    aa = np.diag((2 * a * (0.1 + wa)).ravel()).reshape(a.shape * 2)
    bb = np.diag(2 * b * (0.1 + wb))
    zero_ab, zero_ba = np.zeros(a.shape + b.shape), np.zeros(b.shape + a.shape)
    _same_tree(got, ({"a": ({"a": aa}, zero_ab)}, ({"a": zero_ba}, bb)), atol=1e-14)
