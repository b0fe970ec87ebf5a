"""The positions where a mask computed from the inputs holds (``np.where(c)``,
``np.nonzero(c)``, ``np.flatnonzero(c)``, ``c.nonzero()``): their count depends on the
inputs, so they are kept as the mask itself and read only as an index into an array of
the mask's shape, where they select what the mask selects (``x[np.where(x > 0)]`` is
``x[x > 0]``, ``y[np.nonzero(m)] = 0`` is ``y[m] = 0``: a masked selection). Any other
use (``len``, arithmetic, one axis's positions of a mask of several) is one line.

>>> rows, columns = of_mask("m", 2)
>>> as_mask((rows, columns)), as_mask(of_mask("v", 1)[0]), as_mask(3)
('m', 'v', None)
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError

__all__ = ["MaskPositions", "as_mask", "of_mask"]

_ONLY_AS_AN_INDEX = (
    "the positions where a mask computed from the inputs holds (np.where(c), np.nonzero(c))"
    " have a count that depends on the inputs: they are read only as the index of an array of"
    " the mask's shape (x[np.where(c)]); use np.where(c, x, 0) or np.sum(c)"
)


class MaskPositions:
    """The positions along ``axis`` of the entries where ``mask`` (of ``ndim`` axes)
    holds."""

    __slots__ = ("axis", "mask", "ndim")

    def __init__(self, mask: Any, axis: int, ndim: int) -> None:
        self.mask, self.axis, self.ndim = mask, axis, ndim

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise InputError(_ONLY_AS_AN_INDEX)

    __len__ = __iter__ = __array__ = __array_function__ = __array_ufunc__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __getitem__ = _refuse
    __index__ = __int__ = __float__ = __bool__ = _refuse

    def __getattr__(self, name: str) -> Any:  # .size, .shape, .astype(...)
        raise InputError(_ONLY_AS_AN_INDEX)


def of_mask(mask: Any, ndim: int) -> tuple[MaskPositions, ...]:
    """``np.nonzero(mask)``: one :class:`MaskPositions` per axis."""
    return tuple(MaskPositions(mask, k, ndim) for k in range(ndim))


def as_mask(key: Any) -> Any:
    """The mask an index of positions stands for (all of one mask's axes, in order), else
    None; a part of them (``x[np.nonzero(M)[0]]`` of a matrix mask) is refused."""
    parts = key if isinstance(key, tuple) else (key,)
    found = [p for p in parts if isinstance(p, MaskPositions)]
    if not found:
        return None
    mask = found[0].mask
    if (
        len(found) == len(parts) == found[0].ndim
        and all(p.mask is mask for p in found)
        and [p.axis for p in found] == list(range(len(found)))
    ):
        return mask
    raise InputError(_ONLY_AS_AN_INDEX)
