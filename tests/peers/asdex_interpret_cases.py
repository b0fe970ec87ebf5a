"""asdex's propagation tests (github adrhill/asdex, tests/_interpret/: test_reduce.py,
test_dot_general.py, test_select.py, test_elementwise.py), re-stated as Jacobian cases:
asdex checks the detected pattern of each function of a flat input; here each function's
Jacobian, at a point of its input's size drawn with NumPy (asdex detects at zeros; a
generic point avoids the ties of max and min there), is compared with ``jax.jacrev``."""

from __future__ import annotations

import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
from jax import lax

from .harness import Case

REPO = "adrhill/asdex tests/_interpret"


def _point(n: int, seed: int = 7) -> tuple[np.ndarray]:
    return (np.random.default_rng(seed).uniform(0.1, 0.9, n),)


_REDUCE = {
    "sum": lambda x, axes: jnp.sum(x, axis=axes),
    "max": lambda x, axes: lax.reduce_max(x, axes=axes),
    "min": lambda x, axes: lax.reduce_min(x, axes=axes),
    "prod": lambda x, axes: lax.reduce_prod(x, axes=axes),
}
# test_reduce.py::test_reduce, a selection of its shapes and axes
_SHAPES_AXES = {
    "1d_full": ((5,), (0,)),
    "2d_axis0": ((3, 4), (0,)),
    "2d_axis1": ((3, 4), (1,)),
    "3d_two_axes": ((2, 3, 4), (0, 2)),
    "4d": ((2, 3, 4, 5), (1, 3)),
}


def _reduction(kind: str, shape, axes):
    def reduction(x):
        return _REDUCE[kind](x.reshape(shape), axes).flatten()

    return reduction


def _reduce_after_broadcast(kind: str):  # test_reduce_after_broadcast
    def reduction(x):
        return _REDUCE[kind](jnp.broadcast_to(x, (2, 3)), (0,))

    return reduction


def argmax_as_index(x):  # test_reduce.py::test_argmax_as_index
    return x[0] * jnp.argmax(x).astype(float)


# test_dot_general.py
def dot_1d(x):  # test_dot_1d
    return jnp.dot(x, x).reshape(1)


def matvec(x):  # test_matvec: A from x[:6], v from x[6:]
    return x[:6].reshape(2, 3) @ x[6:]


def matmul_2x3_3x2(x):  # test_matmul_2x3_3x2
    return (x[:6].reshape(2, 3) @ x[6:].reshape(3, 2)).flatten()


def matmul_self(x):  # test_matmul_self: X @ X.T
    m = x.reshape(2, 3)
    return (m @ m.T).flatten()


def batched_matmul(x):  # test_batched_matmul
    return jnp.matmul(x[:24].reshape(3, 2, 4), x[24:].reshape(3, 4, 5)).flatten()


def outer_dot_general(x):  # test_outer_product_via_dot_general
    return lax.dot_general(x[:3], x[3:], (((), ()), ((), ()))).flatten()


def multi_contract(x):  # test_multi_contract_dims
    a, b = x[:30].reshape(5, 3, 2), x[30:].reshape(3, 2, 4)
    return lax.dot_general(a, b, (((1, 2), (0, 1)), ((), ()))).flatten()


def batch_and_contract(x):  # test_batch_and_contract
    a, b = x[:24].reshape(2, 3, 4), x[24:].reshape(2, 4, 5)
    return lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))).flatten()


def double_matmul(x):  # test_double_matmul
    return ((x[:6].reshape(2, 3) @ x[6:18].reshape(3, 4)) @ x[18:].reshape(4, 2)).flatten()


def vecdot(x):  # test_vecdot
    return jnp.vdot(x[:6].reshape(2, 3), x[6:].reshape(2, 3)).reshape(1)


def matmul_after_broadcast(x):  # test_matmul_after_broadcast
    m = jnp.broadcast_to(x, (2, 3))
    return (m @ m.T).flatten()


# test_select.py
def ifelse_both_branches(x):  # test_ifelse_both_branches
    return jnp.array([jnp.where(x[1] < x[2], x[0] + x[1], x[2] * x[3])])


def where_mask(x):  # test_where_mask
    return jnp.where(x > 0.5, x, -x)


def select_n_mixed(x):  # test_select_n_mixed_deps
    b = jnp.array([x[3], x[4], x[3]])
    return jnp.where(jnp.array([True, False, True]), x[:3], b)


# test_elementwise.py
def constant_added(x):  # test_constant_in_elementwise_op
    return x + jnp.array([1.0, 2.0, 3.0])


def broadcast_size1(x):  # test_binary_broadcast_size1_dim
    return (x.reshape(3, 4) * jnp.ones((3, 1))).reshape(-1)


def broadcast_dependent(x):  # test_binary_broadcast_dependent_operands
    m = x.reshape(2, 3)
    return (m * m.sum(axis=1, keepdims=True)).reshape(-1)


def mul_zero_second(x):  # test_mul_zero_second_operand
    return x * jnp.array([1.0, 0.0, 1.0])


def div_zero_numerator(x):  # test_div_zero_numerator
    return jnp.array([0.0, 1.0, 0.0]) / x


_UNARY = {  # test_erf, test_erfc, test_erf_inv, test_digamma, test_lgamma, test_bessel_*
    "erf": lax.erf,
    "erfc": jss.erfc,
    "erf_inv": jss.erfinv,
    "digamma": jss.digamma,
    "lgamma": lax.lgamma,
    "bessel_i0e": jss.i0e,
    "bessel_i1e": jss.i1e,
    "polygamma": lambda x: jss.polygamma(0, x),
}


def _unary(fn):
    def unary(x):
        return fn(x)

    return unary


CASES = [
    *(
        Case(f"asdex/reduce_{kind}_{label}", f"{REPO}/test_reduce.py::test_reduce[{kind}-{label}]",
             _reduction(kind, shape, axes), lambda shape=shape: _point(int(np.prod(shape))))
        for kind in _REDUCE
        for label, (shape, axes) in _SHAPES_AXES.items()
    ),
    *(
        Case(f"asdex/reduce_{kind}_after_broadcast",
             f"{REPO}/test_reduce.py::test_reduce_after_broadcast[{kind}]",
             _reduce_after_broadcast(kind), lambda: _point(3))
        for kind in _REDUCE
    ),
    Case("asdex/argmax_as_index", f"{REPO}/test_reduce.py::test_argmax_as_index",
         argmax_as_index, lambda: _point(3)),
    *(
        Case(f"asdex/{fn.__name__}", f"{REPO}/test_dot_general.py::{test}", fn,
             lambda n=n: _point(n))
        for fn, test, n in (
            (dot_1d, "test_dot_1d", 3),
            (matvec, "test_matvec", 9),
            (matmul_2x3_3x2, "test_matmul_2x3_3x2", 12),
            (matmul_self, "test_matmul_self", 6),
            (batched_matmul, "test_batched_matmul", 84),
            (outer_dot_general, "test_outer_product_via_dot_general", 5),
            (multi_contract, "test_multi_contract_dims", 54),
            (batch_and_contract, "test_batch_and_contract", 64),
            (double_matmul, "test_double_matmul", 26),
            (vecdot, "test_vecdot", 12),
            (matmul_after_broadcast, "test_matmul_after_broadcast", 3),
        )
    ),
    *(
        Case(f"asdex/{fn.__name__}", f"{REPO}/test_select.py::{test}", fn, lambda n=n: _point(n))
        for fn, test, n in (
            (ifelse_both_branches, "test_ifelse_both_branches", 4),
            (where_mask, "test_where_mask", 3),
            (select_n_mixed, "test_select_n_mixed_deps", 5),
        )
    ),
    *(
        Case(f"asdex/{fn.__name__}", f"{REPO}/test_elementwise.py::{test}", fn,
             lambda n=n: _point(n))
        for fn, test, n in (
            (constant_added, "test_constant_in_elementwise_op", 3),
            (broadcast_size1, "test_binary_broadcast_size1_dim", 12),
            (broadcast_dependent, "test_binary_broadcast_dependent_operands", 6),
            (mul_zero_second, "test_mul_zero_second_operand", 3),
            (div_zero_numerator, "test_div_zero_numerator", 3),
        )
    ),
    *(
        Case(f"asdex/{name}", f"{REPO}/test_elementwise.py::test_{name}", _unary(fn),
             lambda: _point(4))
        for name, fn in _UNARY.items()
    ),
]  # fmt: skip
