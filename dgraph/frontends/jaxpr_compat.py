"""jaxpr primitives and parameters of newer JAX (0.11 and later, on Python 3.12 and later),
read as the older ones they stand for:

* ``unstack[axis]`` (``a, b = x``: iterating an array): one ``slice`` of width 1 along
  ``axis`` per output, squeezed;
* ``one_minus_square`` (in ``tanh``'s derivative: a Hessian's gradient graph): ``1 - x·x``;
* ``scan`` with ``ft_in`` (the flat trees of its consts, carry and xs) instead of
  ``num_consts`` and ``num_carry``, and its body a ``Jaxpr`` with no consts instead of a
  ``ClosedJaxpr`` (:func:`scan_layout`).

Each rewrite is re-traced as the JAX function it stands for (:func:`~.jaxpr_rewrites.read_as`),
so values and derivatives are JAX's own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .jaxpr_rewrites import read_as

__all__ = ["COMPAT", "bind_equation", "is_literal", "scan_layout"]


def _unstack(reader, eqn, ins: list[Any]) -> list[Any]:
    from jax import lax

    axis, count = int(eqn.params["axis"]), len(eqn.outvars)
    return read_as(
        reader, eqn, ins, lambda x: [lax.index_in_dim(x, k, axis, False) for k in range(count)]
    )


def _one_minus_square(reader, eqn, ins: list[Any]) -> list[Any]:
    return read_as(reader, eqn, ins, lambda x: [1 - x * x])


COMPAT: dict[str, Callable[..., list[Any] | None]] = {
    "unstack": _unstack,
    "one_minus_square": _one_minus_square,
}


def is_literal(v: Any) -> bool:
    """Whether a jaxpr equation's operand ``v`` is a literal (its value in ``v.val``), not a
    variable: by the class's name, which every JAX version keeps, without importing JAX."""
    return type(v).__name__ == "Literal"


def scan_layout(params) -> tuple[Any, int, int]:
    """A ``scan`` equation's body as a closed jaxpr, its number of consts and of carried
    values, from either JAX's parameters (``num_consts``/``num_carry`` or ``ft_in``)."""
    body = params["jaxpr"]
    if "num_consts" in params:
        return body, int(params["num_consts"]), int(params["num_carry"])
    consts, carry, _ = params["ft_in"].unpack()  # flat trees: len is the leaf count
    if not hasattr(body, "consts"):  # a Jaxpr: its consts are operands already
        from jax.extend.core import ClosedJaxpr

        body = ClosedJaxpr(body, ())
    return body, len(consts), len(carry)


def bind_equation(eqn: Any, args: Sequence[Any]) -> list:
    """``eqn``'s primitive applied to ``args``, its outputs a list (how
    ``jax.core.eval_jaxpr`` applies it; ``get_bind_params`` gave ``(subfuns, params)``
    before JAX 0.7, the params alone since)."""
    bound = eqn.primitive.get_bind_params(eqn.params)
    subfuns, params = bound if isinstance(bound, tuple) else ((), bound)
    out = eqn.primitive.bind(*subfuns, *args, **params)
    return list(out) if eqn.primitive.multiple_results else [out]
