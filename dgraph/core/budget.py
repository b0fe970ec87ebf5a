"""The wall-clock ceiling of a work budget, shared by every search that takes ``--budget``.

A budget of S seconds is counted work (each search counts its own steps), so the same
input gives the same result on every machine; the ceiling, :data:`CEILING_FACTOR` × S plus
:data:`CEILING_SLACK` seconds, stops a machine far slower than the one the work counts
were set for, and a search that it cut says so (``info["cut_by_time"]``).

>>> ceiling_for(2.0)
11.0
"""

from __future__ import annotations

__all__ = ["CEILING_FACTOR", "CEILING_SLACK", "ceiling_for"]

CEILING_FACTOR = 3.0  # a machine three times slower than the work rates assume still fits
# seconds for what the work budget does not count: forks, imports, building and verifying
# the winner, the structure methods
CEILING_SLACK = 5.0


def ceiling_for(budget: float, slack: float = CEILING_SLACK) -> float:
    """The wall-clock ceiling of a work budget.

    Parameters
    ----------
    budget
        The work budget, in seconds of counted work.
    slack
        Seconds added for what the budget does not count: forks, imports, building and
        verifying the winner.

    Returns
    -------
    float
        :data:`CEILING_FACTOR` × ``budget`` + ``slack``, in seconds.
    """
    return CEILING_FACTOR * budget + slack
