"""np.einsum, np.median, np.linalg.matrix_power and np.pad's copying modes traced at the
array level: make_function's Jacobian and dgraph.hessian equal JAX's (jax.grad and
jax.hessian of the same function written with jax.numpy, in float64), on 1-d and n-d
operands; what they do not support is one InputError line."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import dgraph
from dgraph.errors import InputError
from dgraph.frontends import from_function

jax = pytest.importorskip("jax", reason="JAX is not installed")
jnp = pytest.importorskip("jax.numpy")
from tests import jax_reference as jref  # noqa: E402

# each case: a function of (xp, x) with xp numpy or jax.numpy, and the length of x
EINSUM = {
    "dot_1d": (lambda xp, x: xp.einsum("i,i->", x, xp.sin(x)), 5),
    "implicit_matvec": (lambda xp, x: xp.sum(xp.einsum("ij,j", x.reshape(2, 3), x[:3]) ** 2), 6),
    "matmul_transposed_out": (
        lambda xp, x: xp.sum(xp.tanh(xp.einsum("ij,jk->ki", x.reshape(2, 3), x.reshape(3, 2)))),
        6,
    ),
    "trace_and_diagonal": (
        lambda xp, x: (
            xp.einsum("ii", x.reshape(3, 3)) * xp.sum(xp.einsum("ii->i", x.reshape(3, 3)) ** 3)
        ),
        9,
    ),
    "batched_three_operands": (
        lambda xp, x: xp.sum(
            xp.einsum(
                "bij,bjk,k->bi",
                x.reshape(2, 2, 3)[:, :, :2],
                x.reshape(2, 3, 2)[:, :2, :],
                xp.cos(x[:2]),
            )
            ** 2
        ),
        12,
    ),
    "ellipsis_and_constant": (
        lambda xp, x: xp.sum(
            xp.exp(xp.einsum("...j,jk->...k", x.reshape(2, 2, 2), xp.arange(6.0).reshape(2, 3) / 6))
        ),
        8,
    ),
    "outer_then_sum_out": (
        lambda xp, x: xp.sum(xp.einsum("i,j,ij->j", x[:2], x[2:], xp.outer(x[:2], x[2:]))),
        5,
    ),
    "interleaved": (lambda xp, x: xp.einsum(x.reshape(2, 2), [0, 1], x.reshape(2, 2), [1, 0]), 4),
    "scalar_operand": (lambda xp, x: xp.sum(xp.einsum(",i->i", x[0], x) ** 2), 3),
}

OTHERS = {
    "median_odd": (lambda xp, x: xp.median(x) * xp.sum(x**2), 5),
    "median_even": (lambda xp, x: xp.median(xp.sin(x)) ** 2, 6),
    "median_axis": (lambda xp, x: xp.sum(xp.median(x.reshape(2, 3), axis=1) ** 2), 6),
    "median_axis0_keepdims": (
        lambda xp, x: xp.sum(xp.median(x.reshape(4, 2), axis=0, keepdims=True) * x.reshape(4, 2)),
        8,
    ),
    "matrix_power_3": (lambda xp, x: xp.sum(xp.linalg.matrix_power(x.reshape(2, 2) * 0.5, 3)), 4),
    "matrix_power_stack_4": (
        lambda xp, x: xp.sum(xp.linalg.matrix_power(x.reshape(2, 2, 2) * 0.5, 4) ** 2),
        8,
    ),
    "matrix_power_0_and_1": (
        lambda xp, x: xp.sum(
            xp.linalg.matrix_power(x.reshape(2, 2), 0) * x.reshape(2, 2)
            + xp.linalg.matrix_power(x.reshape(2, 2), 1) ** 2
        ),
        4,
    ),
    "matrix_power_negative": (
        lambda xp, x: xp.sum(xp.linalg.matrix_power(x.reshape(2, 2) + 2 * xp.eye(2), -2)),
        4,
    ),
    "pad_edge_1d": (lambda xp, x: xp.sum(xp.pad(x**2, 2, mode="edge") * xp.arange(9.0)), 5),
    "pad_edge_2d": (
        lambda xp, x: xp.sum(xp.pad(xp.sin(x.reshape(2, 3)), ((1, 2), (0, 1)), mode="edge") ** 2),
        6,
    ),
    "pad_reflect_symmetric_wrap": (
        lambda xp, x: xp.sum(
            xp.pad(x, (2, 3), mode="reflect")
            * xp.pad(x, (3, 2), mode="symmetric")
            * xp.pad(x, (1, 4), mode="wrap")
        ),
        5,
    ),
    "argmax_take": (lambda xp, x: x[xp.argmax(x)] ** 2 + xp.sum(xp.take(x, xp.asarray([1, 3]))), 6),
    "argmin_take_rows": (
        lambda xp, x: xp.sum(xp.sin(x.reshape(3, 2)[xp.argmin(x[:3])]) * x[3:5]),
        6,
    ),
    "argsort_take": (lambda xp, x: xp.sum(x[xp.argsort(x)] * xp.arange(5.0)) * x[0], 5),
    "searchsorted": (
        lambda xp, x: xp.sum(x**2 * xp.searchsorted(xp.asarray([0.0, 0.3, 0.6, 1.0]), x)),
        6,
    ),
    "searchsorted_right_2d": (
        lambda xp, x: xp.sum(
            xp.sin(x).reshape(2, 3)
            * xp.searchsorted(xp.asarray([0.0, 0.5, 0.5, 1.0]), x.reshape(2, 3), side="right")
        ),
        6,
    ),
    "interp": (
        lambda xp, x: xp.sum(
            xp.interp(x * 1.4 - 0.2, xp.linspace(0, 1, 7), xp.sin(3 * xp.linspace(0, 1, 7))) ** 2
            * x
        ),
        7,
    ),
    "interp_2d_left_right": (
        lambda xp, x: xp.sum(
            xp.interp(
                x.reshape(2, 3) * 2 - 0.5,
                xp.asarray([0.0, 0.5, 1.0]),
                xp.asarray([1.0, -1.0, 2.0]),
                left=3.0,
                right=-2.0,
            )
            * x.reshape(2, 3)
        ),
        6,
    ),
}

# np.tensordot, read as the einsum it is: axes pairs, an integer, the default 2, negative axes
OTHERS |= {
    "tensordot_pairs": (
        lambda xp, x: xp.sum(
            xp.tensordot(x.reshape(2, 3, 2), xp.cos(x[:6]).reshape(3, 2), axes=([1, 2], [0, 1]))
            ** 2
        ),
        12,
    ),
    "tensordot_int": (
        lambda xp, x: xp.sum(xp.tensordot(x.reshape(2, 3), x.reshape(3, 2), 1) ** 2),
        6,
    ),
    "tensordot_default": (
        lambda xp, x: xp.tensordot(x.reshape(2, 2), xp.sin(x).reshape(2, 2)) ** 2,
        4,
    ),
    "tensordot_negative_constant": (
        lambda xp, x: xp.sum(
            xp.tensordot(x.reshape(2, 3), xp.arange(6.0).reshape(3, 2) / 6, axes=([-1], [0])) ** 3
        ),
        6,
    ),
}

CASES = {**EINSUM, **OTHERS}
# one function per family, the sum of its cases, each on its own slice of x: one build
# checks them all (a build's fixed cost, ~1 s, is most of a small case's)
FAMILIES = {
    "einsum": list(EINSUM),
    **{
        family: [name for name in OTHERS if name.startswith(family)]
        for family in ("median", "matrix_power", "pad", "searchsorted", "interp", "tensordot")
    },
    "take": [name for name in OTHERS if name.endswith("_take") or "_take_" in name],
}


def _family(names: list[str]):
    sizes = [CASES[name][1] for name in names]
    ends = np.cumsum([0, *sizes])

    def f(xp, x):
        return sum(
            CASES[name][0](xp, x[a:b])
            for name, a, b in zip(names, ends[:-1], ends[1:], strict=True)
        )

    return f, int(ends[-1])


def _point(family: str, n: int) -> np.ndarray:
    return np.random.default_rng(len(family)).uniform(0.2, 0.9, n)


@functools.cache
def _references() -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """JAX's value, gradient and Hessian of every family at its point (float64), stored
    (tests/jax_reference.py) or else all in one jitted program: one compile, not one per
    family and derivative, nor one per eager primitive (read-only). The Hessian is
    ``jax.hessian``'s forward over reverse, the value and gradient carried out of the same
    trace (``has_aux``): each family traced once, not three times."""
    functions = {family: _family(names) for family, names in FAMILIES.items()}
    with jax.enable_x64(True):
        found = jref.references(
            [
                jref.Reference(
                    "value_gradient_hessian",
                    lambda z, f=f: f(jnp, z),
                    (jnp.asarray(_point(family, n)),),
                )
                for family, (f, n) in functions.items()
            ]
        )
    return dict(zip(functions, found, strict=True))


# (Jacobian's, Hessian's): the methods make_function's choice gives each family (the same
# generated text, compared when they were named), named so that the tests, of the
# frontend, do not build and cost every candidate's program (the choice is codegen's,
# tests/test_codegen_choice.py)
CHOSEN = {
    "einsum": ("reverse", "forward"),
    "median": ("reverse", "forward"),
    "matrix_power": ("reverse", "markowitz"),
    "pad": ("reverse", "forward"),
    "searchsorted": ("forward", "forward"),
    "interp": ("forward", "forward"),
    "tensordot": ("forward", "markowitz"),
    "take": ("reverse", "markowitz"),
}


def test_every_case_is_in_one_family():
    members = [name for names in FAMILIES.values() for name in names]
    assert sorted(members) == sorted(CASES)
    assert sorted(CHOSEN) == sorted(FAMILIES)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_jacobian_and_hessian_equal_jax_s(family):
    f, n = _family(FAMILIES[family])
    x = _point(family, n)
    numpy_f = lambda x: f(np, x)  # noqa: E731
    value, gradient, hessian = _references()[family]
    assert np.isclose(numpy_f(x), float(value))
    # the array level, the tracer's own operations (the element level expands them)
    graph = from_function(numpy_f, sizes=[n], level="array")
    jacobian = dgraph.make_function(graph, method=CHOSEN[family][0])
    np.testing.assert_allclose(np.asarray(jacobian(x)).reshape(n), gradient, rtol=1e-10, atol=1e-12)
    got = dgraph.hessian(numpy_f, x, method=CHOSEN[family][1])(x)
    np.testing.assert_allclose(np.asarray(got).reshape(n, n), hessian, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "subscripts,shapes",
    [("ij,jk->ik", [(2, 3), (3, 4)]), ("ii->", [(3, 3)]), ("...i,i", [(2, 3, 4), (4,)]),
     ("ij,ij,j->i", [(2, 3), (2, 3), (3,)]), ("iij,jk->ki", [(2, 2, 3), (3, 2)])],
)  # fmt: skip
def test_einsum_of_several_arguments_has_numpy_s_value_and_jax_s_jacobian(subscripts, shapes):
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s) for s in shapes]
    f = {
        1: lambda a: np.einsum(subscripts, a),
        2: lambda a, b: np.einsum(subscripts, a, b),
        3: lambda a, b, c: np.einsum(subscripts, a, b, c),
    }[len(shapes)]
    graph = from_function(f, sizes=shapes, level="array")
    value, jacobians = dgraph.make_function(graph, "value_and_jacobian")(*args)
    np.testing.assert_allclose(np.asarray(value).reshape(f(*args).shape), f(*args), atol=1e-12)
    with jax.enable_x64(True):
        g = lambda *a: jnp.einsum(subscripts, *a)  # noqa: E731
        expected = jref.jacrev(g, argnums=tuple(range(len(args))))(*args)  # one compile
    jacobians = jacobians if len(args) > 1 else (jacobians,)
    for got, want in zip(jacobians, expected, strict=True):
        np.testing.assert_allclose(np.asarray(got).reshape(want.shape), want, atol=1e-12)


@pytest.mark.parametrize(
    "f,message",
    [
        (lambda x: np.einsum("ij,jk", x.reshape(2, 3), x.reshape(2, 3)), "label 'j' has"),
        (lambda x: np.einsum("i,i->k", x, x), "the output label 'k' is in no operand"),
        (lambda x: np.einsum("ij", x), "the subscripts 'ij' do not fit an operand of shape (6,)"),
        (lambda x: np.median(x.reshape(2, 3), axis=(0, 1)), "numpy.median over several axes"),
        (lambda x: np.linalg.matrix_power(x.reshape(2, 3), 2), "square matrices are supported"),
        (lambda x: np.linalg.matrix_power(x[:4].reshape(2, 2), 1.5), "must be an integer"),
        (lambda x: np.pad(x, 2, mode="reflect", reflect_type="odd"), "with reflect_type="),
        (lambda x: np.pad(x, 1, mode="mean"), "numpy.pad(mode='mean')"),
        (lambda x: x[np.argmax(x) + 1], "positions from np.argmax, np.argmin or np.argsort"),
        (lambda x: np.searchsorted(x.reshape(2, 3), x), "a sorted 1-D array is supported"),
        (lambda x: np.interp(x, x, x, period=2.0), "numpy.interp with period=, or left or"),
    ],
)  # fmt: skip
def test_what_is_not_supported_is_one_line(f, message):
    with pytest.raises(InputError) as info:
        from_function(f, sizes=[6], level="array")
    text = str(info.value)
    assert message in text and "\n" not in text
