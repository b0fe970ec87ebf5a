"""``scipy.spatial.transform.Rotation`` while a NumPy function is traced: refused in one
line that names it where an argument depends on the inputs (scipy converts its
arguments to NumPy arrays, which a traced array refuses with a generic line), run as
scipy's own where every argument is a number. Its rotation vectors, quaternions and
Euler angles are a few array operations each (a rotation vector's matrix is Rodrigues'
formula), which the user writes with NumPy, or with ``jax.scipy.spatial.transform`` in
a function written with JAX (read by the jaxpr reader)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import InputError

__all__ = ["ROTATION", "is_rotation", "traced_rotation"]

ROTATION = (
    "scipy.spatial.transform.Rotation of values that depend on the inputs is not"
    " supported: write the rotation with numpy (a rotation vector's matrix by Rodrigues'"
    " formula, a quaternion's by its products), or use jax.scipy.spatial.transform.Rotation"
    " in a function written with jax.numpy"
)


def is_rotation(value: Any) -> bool:
    """Whether ``value`` is scipy's ``Rotation`` class or one of its rotations."""
    kind = value if isinstance(value, type) else type(value)
    return kind.__name__ == "Rotation" and kind.__module__.startswith("scipy.spatial.transform")


def traced_rotation(value: Any, traced: Callable[[Any], bool]) -> Any:
    """``value`` (the class or a rotation) whose methods refuse an argument ``traced``
    holds for (:data:`ROTATION`) and wrap the rotations they return."""
    return _Refusing(value, traced)


class _Refusing:
    def __init__(self, value: Any, traced: Callable[[Any], bool]) -> None:
        self._value, self._traced = value, traced

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._value, name)
        return self._method(found) if callable(found) else found

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._method(self._value)(*args, **kwargs)

    def __mul__(self, other: Any) -> Any:
        return self._method(type(self._value).__mul__)(self._value, other)

    def __len__(self) -> int:
        return len(self._value)

    def __getitem__(self, key: Any) -> Any:
        return self._method(type(self._value).__getitem__)(self._value, key)

    def _method(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            flat = [*args, *kwargs.values()]
            flat += [x for a in flat if isinstance(a, (list, tuple)) for x in a]
            if any(self._traced(a) for a in flat):
                raise InputError(ROTATION)
            args = tuple(a._value if isinstance(a, _Refusing) else a for a in args)
            out = method(*args, **kwargs)
            return _Refusing(out, self._traced) if is_rotation(out) else out

        return call
