"""Which constant statements of a JAX module NumPy folds to XLA's bits.

A JAX module's statements that read no input are computed once, when the module is
generated (:func:`~.module._fold`). NumPy (:class:`~dgraph.codegen.evaluate.ArrayEvaluator`)
computes them with nothing to compile, XLA by a jitted program compiled for them (at the
minimal surface's 10⁵ unknowns 0.2 s of CPU, far more than the arithmetic). Both give
the same bits where every operation is exactly rounded or moves entries: IEEE's ``+ - *
/`` and square root, comparisons, negation, the moves, the constructors and the scatters
(each position once, or added in order), an integer power written as a product, as the
printers and the evaluator write it. XLA's CPU backend contracts a product feeding a sum
into one fused multiply-add (one rounding, not two: a quarter of ``a*b + c``'s entries
differ from NumPy's), so a batch with both a product and a sum or difference is left to
XLA, as are a reduction, a transcendental function and a power by a float."""

from __future__ import annotations

import sympy

from .. import ir
from ..counting import LARGEST_PRODUCT_POWER
from ..ir import ArrayStatement, BinOp, Call, Formula, Index, Scatter, ScatterAdd

__all__ = ["numpy_exact"]

_CALLS = frozenset(
    {
        "ravel",
        "reshape",
        "broadcast_to",
        "pad",
        "concatenate",
        "stack",
        "ones",
        "zeros",
        "transpose",
        "expand_dims",
        "squeeze",
        "where",
        "maximum",
        "minimum",
        "abs",
        "negative",
        "sqrt",
    }
)
"""Array functions whose every entry is an operand's entry, a constant or one exactly
rounded operation on its operands' entries."""

_BINARY = frozenset({"+", "-", "*", "/", "<", "<=", ">", ">=", "==", "!="})
_NODES = (ir.Name, ir.Const, ir.Slice, ir.Seq, ir.AsType, ir.Entries, Index, Scatter, ScatterAdd)


def numpy_exact(statements: list[ArrayStatement]) -> bool:
    """Whether NumPy computes ``statements`` (no stores) as XLA does, bit for bit
    (module docstring).

    >>> a, b, c = ir.Name("a"), ir.Name("b"), ir.Name("c")
    >>> numpy_exact([ArrayStatement("t", BinOp("*", a, b))])
    True
    >>> numpy_exact([ArrayStatement("t", BinOp("*", a, b)),
    ...              ArrayStatement("u", BinOp("+", ir.Name("t"), c))])
    False
    """
    nodes = [n for s in statements for n in ir.walk(s.value)]
    if any(s.at for s in statements) or not all(_exact(n) for n in nodes):
        return False
    ops = set().union(*(_arithmetic(n) for n in nodes))
    return not {"*", "+"} <= ops


def _exact(n: ir.Node) -> bool:
    if isinstance(n, _NODES):
        return True
    if isinstance(n, BinOp):
        return n.op in _BINARY
    if isinstance(n, ir.UnaryOp):
        return n.op == "-"
    if isinstance(n, Call):
        return n.func in _CALLS
    if isinstance(n, Formula):
        return all(_exact_term(e) for e in sympy.preorder_traversal(n.expr))
    return False


def _arithmetic(n: ir.Node) -> set[str]:
    """``"*"`` where ``n`` multiplies, ``"+"`` where it adds or subtracts (the pair XLA
    fuses)."""
    if isinstance(n, BinOp):
        return {"*"} if n.op == "*" else {"+"} if n.op in ("+", "-") else set()
    if isinstance(n, Formula):
        terms = list(sympy.preorder_traversal(n.expr))
        found = {"*"} if any(_product(e) for e in terms) else set()
        return found | {"+"} if any(e.is_Add for e in terms) else found
    return set()


def _product(e: sympy.Basic) -> bool:
    """A product the printers write with ``*`` (``-x`` is a negation, ``x**k`` products)."""
    if e.is_Mul:
        return not (len(e.args) == 2 and e.args[0] == -1)
    return bool(e.is_Pow and e.exp.is_Integer and abs(e.exp) > 1)


def _exact_term(e: sympy.Basic) -> bool:
    """A formula's subexpression the evaluator computes by exactly rounded operations:
    sums and products (one rounding each, in the printers' order), numbers, integer
    powers (products; ``1/product`` where negative) and ±1/2 powers (square roots)."""
    if e.is_Symbol or e.is_Number or e.is_NumberSymbol or e.is_Add or e.is_Mul:
        return True
    if e.is_Pow:
        exp = e.exp
        if exp.is_Integer and exp != 0 and abs(exp) <= LARGEST_PRODUCT_POWER:
            return True
        return exp in (sympy.S.Half, -sympy.S.Half)
    return False
