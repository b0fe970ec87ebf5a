"""JAX's ``det`` of a stack of matrices computed one matrix at a time before JAX
differentiates, for the Hessian's gradient program.

The Jacobian's reader reads the ``custom_jvp`` call of a stacked determinant as one
``det`` per matrix (:func:`~.jaxpr_linalg.read_determinant`). The Hessian reads JAX's
*gradient* instead (:mod:`.jax_hessian`), where that call is gone: JAX has applied its
rule, whose cofactor solve is a ``triangular_solve`` of the whole stack, which the array
model holds for one matrix only. So, as :mod:`.jaxpr_reductions` runs a summing loop as a
map before JAX differentiates, :func:`stacked_determinants` evaluates the function's jaxpr
with each stacked ``det`` call replaced by ``det`` of each matrix, stacked into the batch
axes: the gradient then holds one matrix's ``lu`` and solves per matrix, as the Hessian
of one matrix's determinant (and of NumPy's stacked ``np.linalg.det``, read as one
``det`` per matrix) does. The values are the same; the Hessian is checked against JAX's
own derivative of the function as written. (``slogdet``'s rule solves with
``jnp.linalg.solve``, which the Hessian of a stack reads already: left as it is.)"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .jaxpr_arrays import run_eagerly
from .jaxpr_compat import bind_equation, is_literal
from .jaxpr_linalg import STACK_MOST, determinant_of

__all__ = ["stacked_determinants"]

#: the call primitives looked into: their jaxprs are evaluated inline where they hold a
#: stacked determinant (a loop's or a branch's body is left as it is)
_CALLS = frozenset({"pjit", "jit", "closed_call", "core_call"})


def stacked_determinants(
    jax: Any, f: Callable[..., Any], args: list[Any], closed: Any = None
) -> Callable | None:
    """``f`` with each stacked ``det`` call (at its top level or inside the calls ``jnp``
    wraps it in) computed per matrix; None where ``f`` has none. ``closed``: ``f``'s
    jaxpr at ``args``, where the caller traced it already."""
    closed = jax.make_jaxpr(f)(*args) if closed is None else closed
    if not _holds_stack(closed.jaxpr):
        return None
    tree = jax.tree_util.tree_structure(jax.eval_shape(f, *args))

    def per_matrix(*values: Any) -> Any:
        flat = jax.tree_util.tree_leaves(values)
        return jax.tree_util.tree_unflatten(tree, _run(jax, closed.jaxpr, closed.consts, flat))

    return per_matrix


def _stacked(eqn: Any) -> bool:
    """Whether ``eqn`` is JAX's ``det`` of a stack (an operand with batch axes)."""
    if eqn.primitive.name != "custom_jvp_call" or len(eqn.invars) != 1:
        return False
    shape = tuple(eqn.invars[0].aval.shape)
    if len(shape) <= 2 or math.prod(shape[:-2]) > STACK_MOST:  # one det call per matrix
        return False
    return determinant_of(eqn, run_eagerly) == "det"


def _inner(eqn: Any) -> Any:
    """The closed jaxpr a call ``eqn`` runs (None for any other equation)."""
    if eqn.primitive.name not in _CALLS:
        return None
    inner = eqn.params.get("jaxpr", eqn.params.get("call_jaxpr"))
    return inner if hasattr(getattr(inner, "jaxpr", None), "eqns") else None


def _holds_stack(jaxpr: Any) -> bool:
    """Whether ``jaxpr`` or a call in it has a stacked determinant."""
    for eqn in jaxpr.eqns:
        if _stacked(eqn):
            return True
        inner = _inner(eqn)
        if inner is not None and _holds_stack(inner.jaxpr):
            return True
    return False


def _run(jax: Any, jaxpr: Any, consts: list[Any], values: list[Any]) -> list[Any]:
    """``jaxpr``'s outputs at ``values``: each stacked ``det`` per matrix
    (:func:`_per_matrix`), each call holding one evaluated inline, the rest bound as
    they are."""
    env = dict(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, values, strict=True))

    def get(v: Any) -> Any:
        return v.val if is_literal(v) else env[v]

    for eqn in jaxpr.eqns:
        ins = [get(v) for v in eqn.invars]
        inner = _inner(eqn)
        if _stacked(eqn):
            out = [_per_matrix(jax, ins[0])]
        elif inner is not None and _holds_stack(inner.jaxpr):
            out = _run(jax, inner.jaxpr, list(inner.consts), ins)
        else:
            out = bind_equation(eqn, ins)
        env.update(zip(eqn.outvars, out, strict=True))
    return [get(v) for v in jaxpr.outvars]


def _per_matrix(jax: Any, a: Any) -> Any:
    """``det`` of the stack ``a`` (shape ``(..., n, n)``) one matrix at a time, stacked
    into the batch axes."""
    jnp = jax.numpy
    *batch, n, _ = a.shape
    flat = jnp.reshape(a, (math.prod(batch), n, n))
    return jnp.reshape(jnp.stack([jnp.linalg.det(flat[k]) for k in range(len(flat))]), batch)
