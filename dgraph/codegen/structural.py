"""Integer parameters that fix a program's structure: a trip count ``range(n)``, a
``lax.fori_loop(0, n, ...)`` bound, a shape ``np.zeros(n)``, a static index or slice
``x[:n]``, a flag ``if bias:``.

A parameter is read as a number, so that the generated code takes its value at each call
(:mod:`dgraph.frontends`); a value that decides how many operations there are cannot be
read so (JAX refuses a ``fori_loop`` of a float64 bound, the NumPy tracer ``int()`` of a
traced value). Where the reading fails and such a parameter was given as an integer in
``point``, the function is made with the point's values closed over
(:class:`~dgraph.frontends.integer_arguments.ClosedOver`, as JAX's ``static_argnums``),
and the made function still takes them at their places: a call that gives the point's
value runs, any other is refused in one line (:class:`Structural`), never computed with
the value it was made at.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError

__all__ = ["Structural", "structural"]


@dataclass(frozen=True)
class Structural:
    """Where a made function takes its closed-over parameters ``values`` (name, value)
    in a call of ``count`` arguments: ``at``, the position of each, by name."""

    mode: str
    values: tuple[tuple[str, int | bool], ...]
    count: int
    at: tuple[tuple[int, str], ...]

    def strip(self, arrays: Sequence[Any]) -> list[Any]:
        """``arrays`` less the closed-over parameters, each checked to be the value the
        function was made at.

        Raises
        ------
        InputError
            One line: another number of arguments, or another value.
        """
        value = dict(self.values)
        if len(arrays) != self.count:
            where = ", ".join(f"{n} (= {value[n]}) as argument {k + 1}" for k, n in self.at)
            raise InputError(
                f"{self.mode}: {len(arrays)} arguments given, not {self.count}: it takes"
                f" {where}, the value it was made at (it fixes the program's structure)"
            )
        for k, name in self.at:
            given = _scalar(arrays[k])
            if given is None:
                what = (
                    "a traced value (jax.jit: mark it static, static_argnums)"
                    if _traced(arrays[k])
                    else f"an array of shape {np.shape(arrays[k])}"
                )
                raise InputError(
                    f"{self.mode}: {name} is {what}: it fixes the program's structure, made at"
                    f" {name} = {value[name]}; give that number there"
                )
            if given != value[name]:
                raise InputError(
                    f"{self.mode}: {name} = {given}, but the function was made at {name} ="
                    f" {value[name]}, which fixes its structure (a trip count, a shape, a"
                    f" branch): make it again at a point with {name} = {given}"
                )
        skip = {k for k, _ in self.at}
        return [a for k, a in enumerate(arrays) if k not in skip]

    def note(self) -> str:
        """What the made function's docstring says of them."""
        values = ", ".join(f"{n} = {v}" for n, v in self.values)
        return (
            f"\n\nRead at {values}, which fixes the program's structure (a trip count, a"
            " shape, a branch): a call gives that value at its place; any other is refused"
            " (make the function again for another)."
        )


def _traced(value: Any) -> bool:
    """Whether ``value`` has no numbers here (a JAX tracer under ``jit``)."""
    try:
        np.asarray(value)
    except Exception:  # JAX's TracerArrayConversionError
        return True
    return False


def _scalar(value: Any) -> int | bool | None:
    """``value`` as one integer or boolean, None where it is not one (an array of other
    than one entry, a fraction, a traced value)."""
    try:
        array = np.asarray(value)
    except Exception:  # a JAX tracer under jit: the value is not known here
        return None
    if array.shape != () or array.dtype.kind not in "iubf":
        return None
    if array.dtype.kind == "b":
        return bool(array)
    number = float(array)
    return int(number) if number.is_integer() else None


def structural(
    mode: str,
    values: dict[str, int | bool],
    order: Sequence[str],
    groups: dict[str, int],
    params: int,
) -> Structural:
    """The :class:`Structural` of a made function of ``mode`` whose call has ``groups``
    (the count of its inputs ``x``, and of its outputs ``w`` for a ``vjp``) and
    ``params`` parameters left: the closed-over ``values`` are among the parameters,
    in ``order`` (the function's parameters, in its order), as if never closed over."""
    x, w = groups["x"], groups.get("w", 1)
    first = {"jvp": 2 * x, "vjp": x + w}.get(mode, x)  # hvp(x, p, t): p after x
    count = {"jvp": 2 * x, "vjp": x + w, "hvp": 2 * x}.get(mode, x) + params + len(values)
    at = tuple(sorted((first + order.index(n), n) for n in values))
    return Structural(mode, tuple(values.items()), count, at)
