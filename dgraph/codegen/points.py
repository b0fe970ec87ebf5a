"""The points a generated function takes per call: the one line that refuses a batch of
points where the result is of one point (a sparse matrix is two-dimensional: SciPy CSR
and JAX BCOO hold one Jacobian or Hessian), and a wrong-shaped argument, before NumPy's
or JAX's own error (a reshape's ValueError or TypeError) is raised from inside the
generated code. The sweeps (``jvp``, ``vjp``, ``hvp``) of the array level take one point
and one tangent (cotangent) per call: each is checked so, named by its role."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import InputError

__all__ = ["check_point", "one_point", "one_point_calls"]


def one_point(what: str, sparse: bool = True, batches: bool = True) -> InputError:
    """The one line for a batch of points given to a ``what`` (``"Jacobian"``,
    ``"Hessian"``, a sweep's ``"jvp"``, ``"vjp"``, ``"hvp"``) of one point; ``batches``:
    whether the dense function takes a batch (the element level's does, the array
    level's does not)."""
    hint = " (batched points: sparse=False)" if batches else ""
    kind = "sparse " if sparse else ""
    article = "an" if not sparse and what == "hvp" else "a"
    return InputError(f"{article} {kind}{what} is of one point: call it per point{hint}")


def check_point(
    names: Sequence[str],
    shapes: Sequence[tuple[int, ...]],
    arrays: Sequence[Any],
    what: str,
    sparse: bool,
    roles: Sequence[str] | None = None,
) -> None:
    """Raise one line unless each of ``arrays`` (one per name; the rest, parameters, are
    not looked at) has exactly its shape: an input's leading batch axis is
    :func:`one_point` (the array level computes one point per call), any other shape
    says which argument (``roles``: each name's, ``"input"`` where not given; a
    ``"tangent"`` or ``"cotangent"`` of a sweep) and both shapes. Reads only ``.shape``
    (a JAX tracer's too)."""
    roles = ["input"] * len(names) if roles is None else roles
    for name, shape, a, role in zip(names, shapes, arrays, roles, strict=False):
        try:
            given = tuple(int(d) for d in np.shape(a))
        except (TypeError, ValueError):  # a ragged list: NumPy's ValueError
            raise InputError(f"{role} {name}: not an array of numbers") from None
        if given == tuple(shape):
            continue
        k = len(shape)
        if role == "input" and len(given) > k and given[len(given) - k :] == tuple(shape):
            raise one_point(what, sparse, batches=False)
        raise InputError(f"{role} {name}: shape {given}, not {tuple(shape)} (one point per call)")


def one_point_calls(
    function: Callable[..., Any],
    names: Sequence[str],
    shapes: Sequence[tuple[int, ...]],
    what: str,
    sparse: bool,
    roles: Sequence[str] | None = None,
    positions: Sequence[int] | None = None,
) -> Callable[..., Any]:
    """``function`` that runs :func:`check_point` on its arguments first (its name and
    docstring kept): the first ones, or those at ``positions`` (one per name: an
    ``hvp``'s tangents follow its parameters); an argument missing is left to
    ``function``'s own count."""
    at = range(len(names)) if positions is None else tuple(positions)

    def checked(*arrays: Any, **options: Any) -> Any:
        given = [arrays[k] for k in at if k < len(arrays)]
        check_point(names, shapes, given, what, sparse, roles)
        return function(*arrays, **options)

    checked.__name__ = getattr(function, "__name__", "function")
    checked.__doc__ = getattr(function, "__doc__", None)
    checked.__wrapped__ = function  # type: ignore[attr-defined]
    return checked
