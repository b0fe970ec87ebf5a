"""What the jaxpr readers share: JAX itself, imported when first needed, and the values
with no array operation (:class:`Opaque`)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError

__all__ = ["Opaque", "jax_module"]


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
    operation (``argmax``): fine until something reads it as data."""

    primitive: str
    shape: tuple[int, ...]
