"""Where a result comes from, typed: which search found it, whether it is proven optimal,
the lower bounds known (a value, its unit and the family of accumulations it bounds),
its time and any note on its budget.

Methods write their details into ``ExpressionSet.info`` (the JSON of ``accumulate``);
the fields every caller reads are these, as types rather than keys to look up.

>>> import dgraph
>>> es = dgraph.accumulate(dgraph.bundled("naumann_discrepancy.json"), "edge-optimal")
>>> es.provenance.optimal, [str(b) for b in es.provenance.bounds]
(True, ['edge elimination >= 13 mults'])
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

__all__ = ["FAMILIES", "UNITS", "Bound", "Provenance"]

# what a bound holds for: every accumulation of the family
FAMILIES = (
    "vertex elimination",
    "edge elimination",
    "face elimination",
    "any elimination",  # vertex, edge or face: every method dgraph has
    "any accumulation",  # every expression set that forms each path's product once
)
UNITS = ("mults", "effective mults")  # structural, or with ±1 labels free and constants folded


@dataclass(frozen=True)
class Bound:
    """At least ``value`` multiplications (``unit``) for every accumulation of ``family``."""

    value: int
    family: Literal[
        "vertex elimination",
        "edge elimination",
        "face elimination",
        "any elimination",
        "any accumulation",
    ]
    unit: Literal["mults", "effective mults"] = "mults"

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"unknown family {self.family!r}; known: {', '.join(FAMILIES)}")
        if self.unit not in UNITS:
            raise ValueError(f"unknown unit {self.unit!r}; known: {', '.join(UNITS)}")
        if not isinstance(self.value, int) or self.value < 0:
            raise ValueError(f"a bound is a count of multiplications, not {self.value!r}")

    @property
    def key(self) -> str:
        """Its key in ``best``'s ``info["lower_bounds"]``: the family for structural
        bounds, ``family, effective mults`` for the others."""
        return self.family if self.unit == "mults" else f"{self.family}, {self.unit}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        return f"{self.family} >= {self.value} {self.unit}"


@dataclass(frozen=True)
class Provenance:
    """The typed account of a result (:attr:`dgraph.ExpressionSet.provenance`)."""

    method: str
    found_by: str
    optimal: bool | None  # None: the method does not search for an optimum
    bounds: tuple[Bound, ...]
    seconds: float | None
    budget_note: str | None

    @classmethod
    def of(cls, method: str, info: Any) -> Provenance:
        """Read from a result's method and info (``bounds``: :class:`Bound` objects)."""
        optimal = info.get("optimal")
        seconds = info.get("seconds")
        return cls(
            method=method,
            found_by=str(info.get("found_by") or method),
            optimal=optimal if isinstance(optimal, bool) else None,
            bounds=tuple(info.get("bounds", ())),
            seconds=None if seconds is None else float(seconds),
            budget_note=info.get("budget_note"),
        )

    def bound(self, family: str, unit: str = "mults") -> Bound | None:
        """The bound for ``family`` in ``unit``, if one is known."""
        return next((b for b in self.bounds if (b.family, b.unit) == (family, unit)), None)
