"""Generated ``jvp``/``vjp`` of a tensor graph checked before they are returned, by the
one value check (:func:`dgraph.core.value_check.check_code`): here only how to call
them (inputs, then one tangent or cotangent per input or output)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...core.expressions import ExpressionSet
from ...core.value_check import CodeCheck, CodeValues, Point, check_code, code_check
from .check import double_precision

__all__ = ["check_sweep"]


def check_sweep(
    function: Callable[..., dict], mode: str, es: ExpressionSet, lang: str, seed: int = 0
) -> CodeCheck:
    """Run ``function`` (a generated ``jvp`` or ``vjp``, ``mode``) where the value check
    checks, along its direction (``jvp``) or cotangent (``vjp``), and compare it with the
    expression set's ``J·v`` or ``wᵀ·J``."""
    graph = es.graph
    ends = graph.outputs if mode == "jvp" else graph.inputs
    returned: list[str] = []

    def run(point: Point, v: dict, w: dict) -> CodeValues:
        with double_precision(lang):
            given = v if mode == "jvp" else w
            got = function(*(point.inputs[x] for x in graph.inputs), *given.values())
            got = {k: np.asarray(part, dtype=float).ravel() for k, part in got.items()}
        if set(got) != set(ends):
            returned[:] = sorted(got)
            got = {k: np.full(np.size(point.values[k]), np.nan) for k in ends}
        return CodeValues(jv=got) if mode == "jvp" else CodeValues(wj=got)

    values = check_code(es, run, seed, what="the expression set's J·v")
    if returned:
        return CodeCheck(False, True, f"the generated {mode} returns {returned}")
    what = "J·v" if mode == "jvp" else "wᵀ·J (and wᵀ·J·v by the dot-product test)"
    return code_check(values, f"the {lang} {mode}'s {what}", mode, es.method)
