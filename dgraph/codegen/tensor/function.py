"""``make_function`` for tensor graphs: generate, check, load."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...core.expressions import ExpressionSet
from ...core.graph import DGraph
from ...errors import DGraphError, VerificationError
from ...methods import accumulate
from ..check import CodeCheck
from ..python import load_python
from .check import check_tensor
from .module import tensor_module

__all__ = ["DEFAULT_METHODS", "TensorGenerated", "make_tensor_function"]

DEFAULT_METHODS = ("forward", "reverse", "markowitz")  # without a method: the cheapest


@dataclass
class TensorGenerated:
    """Generated code of a tensor graph's Jacobian, its expression set and its check."""

    text: str
    lang: str
    expression_set: ExpressionSet
    sparse: bool
    check: CodeCheck

    @property
    def verified(self) -> bool:
        return self.check.ok

    @property
    def method(self) -> str:
        return self.expression_set.method

    @property
    def mults(self) -> int:
        """Scalar multiplications of the block products (the expression set's price)."""
        return self.expression_set.mults


def make_tensor_function(
    source: DGraph | ExpressionSet,
    mode: str,
    lang: str,
    method: str | None,
    budget: float | None,
    sparse: bool,
) -> tuple[TensorGenerated, Any]:
    """The checked ``jacobian`` of a tensor graph and what was generated; without
    ``method``, the cheapest of :data:`DEFAULT_METHODS` (by their block prices)."""
    if mode != "jacobian":
        raise DGraphError(f"tensor graphs: only mode 'jacobian' is generated, not {mode!r}")
    if lang not in ("python", "jax"):
        raise DGraphError(f"tensor graphs: code in python or jax, not {lang!r}")
    if isinstance(source, ExpressionSet):
        if method is not None:
            raise DGraphError("give a method or an expression set, not both")
        es = source
        if not es.verified and not es.verify():
            raise DGraphError(f"the expression set ({es.method}) does not verify; no code")
    elif method is not None:
        es = accumulate(source, method, budget=budget)
    else:
        candidates = [accumulate(source, m) for m in DEFAULT_METHODS]
        es = min(candidates, key=lambda c: c.mults)
    if not es.verified:
        raise DGraphError(f"method {es.method!r} gave an expression set that did not verify")
    text = tensor_module(es, lang, sparse)
    function = load_python(text).jacobian
    check = check_tensor(function, es, lang)
    if not check.ok:
        raise VerificationError(check.detail)
    return TensorGenerated(text, lang, es, sparse, check), function
