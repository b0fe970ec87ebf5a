"""Generated ``jvp``/``vjp`` of a tensor graph checked before they are returned, by the
one value check (:func:`dgraph.core.value_check.check_code`): here only how to call
them (inputs, then one tangent or cotangent per input or output) and read their
result (one array, or a tuple over the outputs or inputs)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...core.expressions import ExpressionSet
from ...core.graph import DGraph
from ...core.value_check import (
    CodeCheck,
    CodeValues,
    Point,
    check_code,
    check_code_by_sweep,
    code_check,
)
from .check import double_precision

__all__ = ["check_sweep"]


def check_sweep(
    function: Callable[..., object],
    mode: str,
    es: ExpressionSet | DGraph,
    lang: str,
    seed: int = 0,
) -> CodeCheck:
    """Run ``function`` (a generated ``jvp`` or ``vjp``, ``mode``) where the value check
    checks, along its direction (``jvp``) or cotangent (``vjp``), and compare it with the
    expression set's ``J·v`` or ``wᵀ·J``; given a graph instead (a ``jvp`` whose
    reference set cannot be priced), with the graph's own tangent sweep
    (:func:`~dgraph.core.value_check.check_code_by_sweep`)."""
    graph = es if isinstance(es, DGraph) else es.graph
    ends = graph.outputs if mode == "jvp" else graph.inputs
    returned: list[str] = []

    def run(point: Point, v: dict, w: dict) -> CodeValues:
        with double_precision(lang):
            given = v if mode == "jvp" else w
            primals = [point.inputs[x] for x in graph.inputs]
            params = [point.inputs[p] for p in graph.parameter_shapes]  # last
            result = function(*primals, *(given[s] for s in given), *params)
            parts = [result] if len(ends) == 1 else result
            if len(ends) > 1 and not (isinstance(result, tuple) and len(result) == len(ends)):
                returned[:] = [type(result).__name__]
                parts = [np.nan] * len(ends)
            got = {
                k: np.asarray(part, dtype=float).ravel()
                for k, part in zip(ends, parts, strict=True)
            }
        for k in ends:
            if got[k].size != np.size(point.values[k]):
                returned[:] = returned or [f"{k}: {got[k].size} entries"]
                got[k] = np.full(np.size(point.values[k]), np.nan)
        return CodeValues(jv=got) if mode == "jvp" else CodeValues(wj=got)

    if isinstance(es, DGraph):
        values = check_code_by_sweep(graph, run, seed, what="the graph's tangent sweep's J·v")
        method, against = "forward", "the graph's tangent sweep"
    else:
        values = check_code(es, run, seed, what="the expression set's J·v")
        method, against = es.method, "the expression set's blocks"
    if returned:
        what = "the output's array or a tuple over the outputs"
        if mode == "vjp":
            what = "the input's array or a tuple over the inputs"
        return CodeCheck(False, True, f"the generated {mode} returns {returned[0]}, not {what}")
    what = "J·v" if mode == "jvp" else "wᵀ·J (and wᵀ·J·v by the dot-product test)"
    return code_check(values, f"the {lang} {mode}'s {what}", mode, method, against)
