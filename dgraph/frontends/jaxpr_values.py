"""What the jaxpr readers share: JAX itself, imported when first needed, and the values
with no array operation (:class:`Opaque`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError

__all__ = ["Opaque", "jax_module", "resolved"]


def jax_module():
    try:
        import jax
    except ImportError:
        raise InputError(
            "from_jax needs JAX: pip install 'jacobian-accumulation[jax]' (or jax[cpu])"
        ) from None
    return jax


@dataclass(frozen=True)
class Opaque:
    """An integer or boolean value computed from the inputs by a primitive with no array
    operation (``argmax``): fine until something reads it as data. With ``deferred``, a
    value whose reading waits until something reads it (``lu``'s results, which
    ``jnp.linalg.solve`` computes for a solve that is read without them):
    :func:`resolved` reads it then, result ``output`` of the call's results."""

    primitive: str
    shape: tuple[int, ...]
    deferred: Callable[[], list[Any]] | None = field(default=None, compare=False, repr=False)
    output: int = 0


def resolved(value: Any) -> Any:
    """``value``, or where it is an :class:`Opaque` whose reading was deferred, its value
    read now (once for all the results of its call)."""
    if isinstance(value, Opaque) and value.deferred is not None:
        return value.deferred()[value.output]
    return value
