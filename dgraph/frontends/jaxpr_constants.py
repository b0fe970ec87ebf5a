"""Which equations of a jaxpr read only constants, found as constants appear.

The jaxpr reader folds the equations on constants (:meth:`~.jaxpr_arrays._Reader.fold`)
and evaluates batches of them together (:meth:`~.jaxpr_arrays._Reader.prefold`). A
batch is what reads only constants at the start, and then what a call's constant results
make constant; :class:`ConstantFrontier` finds each batch by following the readers of
the values that became constant, so that every equation is looked at once per operand
over the whole list, not once per call (a program of ``n`` equations and ``m`` calls on
constants: ``O(n)``, not ``O(n·m)``). :func:`signature` names what JAX compiles an
equation bound on its own for.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any

__all__ = ["ConstantFrontier", "signature"]


class ConstantFrontier:
    """The equations of one equation list that read only constants.

    Parameters
    ----------
    eqns
        The equations, in order.
    known
        Whether a variable holds a constant before the first equation (the jaxpr's
        constants, constant arguments).
    skip
        Equations never taken into a batch (calls: read by the reader, their results
        made constant afterwards through :meth:`constant`).
    """

    def __init__(
        self, eqns: list, known: Callable[[Any], bool], skip: Callable[[Any], bool]
    ) -> None:
        from jax.extend.core import Literal

        self.eqns, self.skip = eqns, skip
        self.chosen = [False] * len(eqns)  # in a batch: its results are constants
        self.looked = 0  # operands looked at: linear in the program's size
        self.missing: list[int] = []  # per equation, its operands not known constant
        self.readers: dict[Any, list[int]] = {}
        for k, eqn in enumerate(eqns):
            unknown = {a for a in eqn.invars if not isinstance(a, Literal) and not known(a)}
            self.looked += len(eqn.invars)
            self.missing.append(len(unknown))
            for var in unknown:
                self.readers.setdefault(var, []).append(k)

    def start(self) -> list:
        """The equations that read only constants from the start (directly or through
        one another), in order."""
        ready = [k for k, n in enumerate(self.missing) if n == 0]
        return self._taken(ready)

    def constant(self, variables: Iterable[Any]) -> list:
        """The equations not yet taken that read only constants once ``variables`` hold
        constants (an equation's results the reader made constant), in order."""
        ready = []
        for var in variables:
            for k in self.readers.pop(var, ()):
                self.looked += 1
                self.missing[k] -= 1
                if self.missing[k] == 0:
                    ready.append(k)
        return self._taken(ready)

    def _taken(self, ready: list[int]) -> list:
        """``ready`` and what reads only them and constants, without recursion."""
        taken: list[int] = []
        stack = [k for k in ready if not self.chosen[k] and not self.skip(self.eqns[k])]
        for k in stack:
            self.chosen[k] = True
        while stack:
            k = stack.pop()
            taken.append(k)
            for var in self.eqns[k].outvars:
                for j in self.readers.pop(var, ()):
                    self.looked += 1
                    self.missing[j] -= 1
                    free = self.missing[j] == 0 and not self.chosen[j]
                    if free and not self.skip(self.eqns[j]):
                        self.chosen[j] = True
                        stack.append(j)
        return [self.eqns[k] for k in sorted(taken)]


def signature(eqn) -> Hashable:
    """What JAX compiles ``eqn`` bound on its own for: its primitive, params and
    operand shapes and dtypes (the equation itself where a param is not hashable)."""
    shapes = tuple((tuple(a.aval.shape), str(a.aval.dtype)) for a in eqn.invars)
    key = (eqn.primitive, tuple(sorted(eqn.params.items())), shapes)
    try:
        hash(key)
    except TypeError:
        return id(eqn)
    return key
