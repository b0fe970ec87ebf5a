"""Array programs evaluated directly, node by node, without printing them.

What the tensor path must know about its own program's values at generation — the
values of the statements that read no input (constant folding) — it learns by
evaluating the nodes of :mod:`dgraph.codegen.ir` with an array module (their shapes and
types without evaluating: :mod:`dgraph.codegen.shapes`), one
``_eval_<Kind>`` method per node kind as the printers have one ``_print_<Kind>`` per kind
(:class:`~dgraph.codegen.printing.ArrayPrinter`), never by running the text a printer made.

Each method computes what the NumPy (or, with ``jax.numpy``, the JAX) printing of its node
computes, operation for operation: a :class:`~dgraph.codegen.ir.Call` names the array
function the printers name (:data:`~dgraph.codegen.printing.CALLS` maps primitives to those
names), and a :class:`~dgraph.codegen.ir.Formula`'s sympy expression is evaluated in the
order and form its printer writes it (terms and factors in the printer's order, quotients
as quotients, integer powers as products), so that a folded constant has the bits the
printed statement would have given.
"""

from __future__ import annotations

import importlib
import math
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import ModuleType
from typing import Any

import numpy as np
import scipy.sparse
import scipy.special
import sympy
from sympy.printing.numpy import NumPyPrinter

from ..blocks.array_extra import SPECIAL_CALLS
from ..blocks.special_more import lambertw_value
from ..core.regions import LoopNotStopped, trips_allowed
from ..errors import DGraphError
from . import ir
from .counting import LARGEST_PRODUCT_POWER
from .lambertw_code import HELPER, jax_lambertw
from .loop_batch import batched_loop
from .printing import INT_LIMIT, double

__all__ = ["COMPARISONS", "ArrayEvaluator", "evaluate_statements"]

_BINARY = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "**": operator.pow,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}
COMPARISONS = {op: _BINARY[op] for op in ("<", "<=", ">", ">=", "==", "!=")}
"""The comparison operators of the IR, as functions of two arrays."""
_RELATIONS = {
    sympy.StrictLessThan: "less",
    sympy.LessThan: "less_equal",
    sympy.StrictGreaterThan: "greater",
    sympy.GreaterThan: "greater_equal",
    sympy.Equality: "equal",
    sympy.Unequality: "not_equal",
}


def _printed_functions() -> tuple[dict[str, str], dict[str, str]]:
    """The functions sympy's NumPy printer calls, by sympy function name: those of the
    array module (``numpy.<f>``, the builtin ``abs``) and the special functions (its
    ``math.<f>``, which the printers call through ``scipy.special`` / ``jax.scipy.special``;
    ``erfinv``, which the array printers write themselves)."""
    array, special = {}, dict(SPECIAL_CALLS)  # erfinv, polygamma, i0e, ...: array printers
    for name, target in NumPyPrinter().known_functions.items():
        module, _, function = target.rpartition(".")
        if module == "math":
            special[name] = {"lgamma": "gammaln"}.get(function, function)
        elif module in ("numpy", ""):
            array[name] = function
    array["rint"] = "rint"  # dgraph.core.elementary.rint, which prints itself so
    return array, special


_FUNCTIONS, _SPECIAL = _printed_functions()


def _gather(base: Any, key: Any) -> bool:
    """Whether ``base[key]`` is a NumPy vector read at an integer array of positions
    (``numpy.take`` gives the same entries, and the same IndexError out of range)."""
    return (
        type(base) is np.ndarray
        and base.ndim == 1
        and type(key) is np.ndarray
        and key.ndim > 0
        and key.dtype.kind in "iu"
    )


def _unsigned_product(coeff: sympy.Expr, rest: sympy.Expr) -> sympy.Expr:
    """``coeff*rest`` (``coeff`` a positive number) as sympy's code printers form it to
    print ``-coeff*rest``: the coefficient kept as a factor, not distributed over a sum.

    This is what sympy's ``CodePrinter._print_Mul`` gets from its private helper
    ``sympy.core.mul._keep_coeff(coeff, rest)``, written out here with public API so that
    a change to a private name cannot break the evaluator (checked against sympy 1.14:
    the same expression, argument for argument, for any number ``coeff`` other than -1;
    ``Mul(..., evaluate=False)`` is ``Mul._from_args`` and the constructor postprocessors,
    which do nothing to scalars; tests/test_codegen_evaluate.py compares the two).
    """
    if rest is sympy.S.One:
        return coeff
    if coeff is sympy.S.One:
        return rest
    if rest.is_Add:
        return sympy.Mul(coeff, rest, evaluate=False)
    if rest.is_Mul:
        factors = list(rest.args)
        if factors[0].is_Number:
            factors[0] *= coeff
            if factors[0] == 1:
                factors.pop(0)
        else:
            factors.insert(0, coeff)
        return sympy.Mul(*factors, evaluate=False)
    product = coeff * rest
    if product.is_Number and not rest.is_Number:
        product = sympy.Mul(coeff, rest, evaluate=False)
    return product


class ArrayEvaluator:
    """The values of array nodes with an array module: NumPy and SciPy (the NumPy
    printer's meaning), or ``jax.numpy`` and ``jax.scipy.special`` (the JAX printer's,
    traceable by ``jax.jit``).

    Parameters
    ----------
    xp
        The array module (``numpy`` or ``jax.numpy``).
    special
        Its special functions (``scipy.special`` or ``jax.scipy.special``).
    batch_loops
        A loop's statements that read no changing carry evaluated for every step at
        once (:mod:`dgraph.codegen.loop_batch`): values for a screen, not for folding.
    """

    def __init__(
        self, xp: ModuleType = np, special: ModuleType = scipy.special, batch_loops: bool = False
    ) -> None:
        self.xp = xp
        self.special = special
        self.jax = xp is not np
        self.batch_loops = batch_loops

    # -- programs -------------------------------------------------------------------------

    def run(self, statements: Iterable[ir.ArrayStatement], env: dict[str, Any]) -> dict[str, Any]:
        """Evaluate ``statements`` in order into ``env`` (name -> value: the arguments and
        constants they read; each target is added, a store updates its array) and return
        ``env``."""
        for s in statements:
            value = self.value(s.value, env)
            if not s.at:
                env[s.target] = value
                continue
            at = self._key([self.value(a, env) for a in s.at])
            if self.jax:
                env[s.target] = env[s.target].at[at].set(value)
            else:
                env[s.target][at] = value
        return env

    def _compiled(self, statements: Sequence[ir.ArrayStatement]) -> Callable[[dict], None]:
        """:meth:`run` of ``statements`` as a function of ``env``: each statement's trees
        put in order once (children first, each node once, as
        :func:`~dgraph.codegen.ir.fold` visits them), so that a loop body runs at every
        step without walking its trees again (the walk cost more than the arrays' work
        for a scalar body)."""

        def order(root: ir.Node) -> list[tuple[Any, Any, tuple[int, ...]]]:
            slots: dict[int, int] = {}
            plan: list[tuple[Any, Any, tuple[int, ...]]] = []  # (node, method, children)

            def visit(n: ir.Node, values: list[int]) -> int:
                method = None if isinstance(n, ir.Name) else self._method(n)
                slots[id(n)] = len(plan)
                plan.append((n, method, tuple(values)))
                return slots[id(n)]

            ir.fold(root, visit)
            return plan

        def evaluated(plan, env: dict) -> Any:
            values: list[Any] = [None] * len(plan)
            for k, (n, method, kids) in enumerate(plan):
                if method is None:
                    values[k] = self._name(n, env)
                else:
                    values[k] = method(n, [values[c] for c in kids])
            return values[-1]

        plans = [(s, order(s.value), [order(a) for a in s.at]) for s in statements]

        def run(env: dict) -> None:
            for s, plan, at in plans:
                value = evaluated(plan, env)
                if not at:
                    env[s.target] = value
                    continue
                key = self._key([evaluated(a, env) for a in at])
                if self.jax:
                    env[s.target] = env[s.target].at[key].set(value)
                else:
                    env[s.target][key] = value

        return run

    def _method(self, n: ir.Node) -> Callable[[Any, list], Any]:
        return getattr(self, f"_eval_{type(n).__name__}")

    def value(self, node: ir.Node, env: Mapping[str, Any]) -> Any:
        """The value of ``node``, reading names from ``env`` (without recursion)."""

        def combine(n: ir.Node, values: list[Any]) -> Any:
            if isinstance(n, ir.Name):
                return self._name(n, env)
            return getattr(self, f"_eval_{type(n).__name__}")(n, values)

        return ir.fold(node, combine)

    # -- one method per node kind: ``values`` are its children's, in field order ----------

    def _name(self, node: ir.Name, env: Mapping[str, Any]) -> Any:
        try:
            return env[node.id]
        except KeyError:
            raise DGraphError(f"evaluating the array program: {node.id} is not defined") from None

    def _eval_Const(self, node: ir.Const, values: list) -> Any:
        return node.value

    def _eval_BinOp(self, node: ir.BinOp, values: list) -> Any:
        return _BINARY[node.op](*values)

    def _eval_UnaryOp(self, node: ir.UnaryOp, values: list) -> Any:
        if node.op != "-":
            raise DGraphError(f"evaluating the array program: unary {node.op}")
        return -values[0]

    def _eval_Call(self, node: ir.Call, values: list) -> Any:
        args = values[: len(node.args)]
        keywords = dict(zip((k for k, _ in node.keywords), values[len(node.args) :], strict=True))
        return self._function(node.func)(*args, **keywords)

    def _eval_AsType(self, node: ir.AsType, values: list) -> Any:
        dtype = {"int": int, "float": float}.get(node.dtype)
        if dtype is None:
            raise DGraphError(f"evaluating the array program: astype({node.dtype})")
        return values[0].astype(dtype)

    def _eval_Slice(self, node: ir.Slice, values: list) -> slice:
        return slice(node.lower, node.upper, node.step)

    def _eval_Index(self, node: ir.Index, values: list) -> Any:
        base, key = values[0], self._key(values[1:])
        if _gather(base, key):  # the same entries as base[key], read faster
            return np.take(base, key)
        return base[key]

    def _eval_Seq(self, node: ir.Seq, values: list) -> list:
        return list(values)

    def _eval_Dict(self, node: ir.Dict, values: list) -> dict:
        return dict(zip((k for k, _ in node.items), values, strict=True))

    def _eval_Formula(self, node: ir.Formula, values: list) -> Any:
        operands = {s: v for (s, _), v in zip(node.operands, values, strict=True)}
        return self.formula(node.expr, operands)

    def _eval_Entries(self, node: ir.Entries, values: list) -> Any:
        xp = self.xp
        return xp.reshape(xp.array(values), node.shape)

    def _eval_Scatter(self, node: ir.Scatter, values: list) -> Any:
        flat, data = values
        if self.jax:
            return self.xp.zeros(node.size).at[flat].set(data)
        out = np.zeros(node.size)
        out[flat] = data
        return out

    def _eval_ScatterAdd(self, node: ir.ScatterAdd, values: list) -> Any:
        base, parts = values[0], values[1:]
        if self.jax:
            out = self.xp.asarray(base)
            for flat, data in zip(parts[::2], parts[1::2], strict=True):
                out = out.at[flat].add(data)
            return out
        out = np.array(base, dtype=float)
        for flat, data in zip(parts[::2], parts[1::2], strict=True):
            np.add.at(out, flat, data)
        return out

    def _eval_SegmentSum(self, node: ir.SegmentSum, values: list) -> Any:
        data, ids = values
        if self.jax:
            import jax

            return jax.ops.segment_sum(data, ids, num_segments=node.n)
        return np.bincount(ids, weights=data, minlength=node.n)

    def _eval_SparseMatrix(self, node: ir.SparseMatrix, values: list) -> Any:
        if self.jax:
            from jax.experimental import sparse as jsparse

            if node.data is None:
                empty = (self.xp.zeros(0), self.xp.zeros((0, 2), self.xp.int32))
                return jsparse.BCOO(empty, shape=node.shape)
            data, indices = values
            return jsparse.BCOO(
                (data, indices), shape=node.shape, indices_sorted=True, unique_indices=True
            )
        if node.data is None:
            return scipy.sparse.csr_array(node.shape)
        return scipy.sparse.csr_array(tuple(values), shape=node.shape)

    def _eval_Loop(self, node: ir.Loop, values: list) -> tuple:
        """The steps one after another (what the printed ``for`` loop or ``lax.scan``
        computes), the body's statements evaluated in an environment of its own."""
        if self.batch_loops:
            found = batched_loop(self, node, values)
            if found is not None:
                return found
        init, rest = values[: node.carries], values[node.carries :]
        xs, invariants = rest[: len(node.xs)], rest[len(node.xs) :]
        carries, ys = list(init), [[] for _ in range(node.ys)]
        steps = range(node.length - 1, -1, -1) if node.reverse else range(node.length)
        run = self._compiled(node.body.statements)
        for t in steps:
            values = [*carries, *(x[t] for x in xs), *invariants]
            env = dict(zip(node.body.arguments, values, strict=True))
            run(env)
            out = [self._name(ir.Name(r), env) for r in node.body.results]
            carries = out[: node.carries]
            for stacked, y in zip(ys, out[node.carries :], strict=True):
                stacked.append(y)
        if node.reverse:
            ys = [stacked[::-1] for stacked in ys]
        return (*carries, *(self.xp.stack(stacked) for stacked in ys))

    def _eval_While(self, node: ir.While, values: list) -> tuple:
        """The body run while the condition holds (what the printed ``while`` loop or
        ``lax.while_loop`` computes)."""
        carries, invariants = list(values[: node.carries]), values[node.carries :]

        def run(part: ir.LoopBody) -> list:
            env = dict(zip(part.arguments, [*carries, *invariants], strict=True))
            self.run(part.statements, env)
            return [self._name(ir.Name(r), env) for r in part.results]

        limit, trips = trips_allowed(), 0
        while bool(run(node.cond)[0]):
            if limit is not None and trips >= limit:  # a random point's loop may never stop
                raise LoopNotStopped(f"while_loop: still running after {limit} trips")
            carries = run(node.body)
            trips += 1
        return tuple(carries)

    def _eval_Cond(self, node: ir.Cond, values: list) -> tuple:
        """The taken branch alone (the index clamped, as ``lax.switch`` does); an index
        JAX traces (a gradient of the program evaluated in ``jax.numpy``) by
        ``lax.switch`` itself, which reads no concrete value."""

        def branch(part: ir.LoopBody) -> Callable[..., tuple]:
            def taken(*operands: Any) -> tuple:
                env = dict(zip(part.arguments, operands, strict=True))
                self.run(part.statements, env)
                return tuple(self._name(ir.Name(r), env) for r in part.results)

            return taken

        last = len(node.branches) - 1
        if self.jax and _traced(values[0]):
            from jax import lax

            index = self.xp.clip(self.xp.reshape(values[0], (-1,))[0].astype(int), 0, last)
            return lax.switch(index, [branch(p) for p in node.branches], *values[1:])
        index = int(np.asarray(values[0]).reshape(-1)[0])
        return branch(node.branches[min(max(index, 0), last)])(*values[1:])

    def _eval_Item(self, node: ir.Item, values: list) -> Any:
        return values[0][node.index]

    # -- helpers ------------------------------------------------------------------------------

    def _function(self, name: str) -> Any:
        """The array function a :class:`~dgraph.codegen.ir.Call` names (``special.<f>``:
        a special function), as the printers resolve it."""
        if name == HELPER:  # Lambert's W, the module's own (..lambertw_code)
            return self._lambertw()
        _, special, short = name.rpartition("special.")
        found = getattr(self.special if special else self.xp, short, None)
        if name.startswith("scipy.linalg."):  # jax.scipy.linalg's in JAX, as printed
            found = getattr(_linalg_beside(self.special), name[13:], None)
        if found is None and short.startswith("linalg."):  # numpy.linalg.inv, as printed
            found = _nan_where_refused(getattr(self.xp.linalg, short[7:], None))
        if found is None and not special and "." in short:  # a ufunc's method, as printed:
            head, _, method = short.partition(".")  # logaddexp.accumulate (cumlogsumexp)
            found = getattr(getattr(self.xp, head, None), method, None)
        if found is None:
            raise DGraphError(f"evaluating the array program: no array function {name}")
        return found

    def _lambertw(self) -> Any:
        """W as the printed module computes it: SciPy's real part, or JAX's Halley steps."""
        return lambertw_value if self.xp is np else jax_lambertw(self.xp)

    @staticmethod
    def _key(items: list[Any]) -> Any:
        """An index as the printed ``x[a]`` or ``x[a, b]`` reads it."""
        return items[0] if len(items) == 1 and not isinstance(items[0], slice) else tuple(items)

    # -- scalar formulas, elementwise ----------------------------------------------------

    def formula(self, expr: sympy.Expr, operands: Mapping[sympy.Symbol, Any]) -> Any:
        """``expr`` elementwise, each symbol the array in ``operands``, evaluated as the
        printers write it (:class:`~dgraph.codegen.printing.PowersAsProducts`,
        :class:`~dgraph.codegen.printing.ArrayFunctions`, sympy's code printers' sums and
        products), without recursion."""
        self._done: dict[sympy.Basic, Any] = dict(operands)
        try:
            return self._sub(expr)
        finally:
            del self._done

    def _sub(self, e: sympy.Basic) -> Any:
        """The value of a subexpression of the formula (or of a power or product rebuilt
        from its parts, as the printers rebuild them), each once."""
        return ir.bottom_up(e, self._scalar, self._done)

    def _scalar(self, e: sympy.Basic, args: list[Any]) -> Any:
        xp = self.xp
        if e.is_Symbol:
            raise DGraphError(f"evaluating the array program: the formula reads {e}, unbound")
        if e in (sympy.oo, -sympy.oo, sympy.nan, sympy.zoo) or e.is_NumberSymbol:
            return float(e)
        if e.is_Number:
            return _number(e)
        if e is sympy.true or e is sympy.false:
            return bool(e)
        if e.is_Add:
            return self._add(e)
        if e.is_Mul:
            return self._mul(e)
        if e.is_Pow:
            return self._pow(e)
        name = type(e).__name__
        if name in ("Max", "Min"):  # ArrayFunctions: nested, the last innermost
            function = xp.maximum if name == "Max" else xp.minimum
            out = args[-1]
            for a in reversed(args[:-1]):
                out = function(a, out)
            return out
        if name == "Heaviside":
            return xp.heaviside(args[0], args[1] if len(args) > 1 else 0.5)
        if name == "Piecewise":
            return self._piecewise(e)
        if name == "ExprCondPair":  # a Piecewise's part: read by it
            return None
        if type(e) in _RELATIONS:
            return getattr(xp, _RELATIONS[type(e)])(*args)
        if name in ("And", "Or"):
            function = xp.logical_and if name == "And" else xp.logical_or
            out = args[0]
            for a in args[1:]:
                out = function(out, a)
            return out
        if name == "Not":
            return xp.logical_not(args[0])
        if name in _FUNCTIONS:
            return getattr(xp, _FUNCTIONS[name])(*args)
        if name == "polygamma":  # jax.scipy.special's takes an integer order only
            args = [xp.asarray(args[0]).astype(int), *args[1:]]
        if name in _SPECIAL and _SPECIAL[name] == HELPER:
            return self._lambertw()(*args)
        if name in _SPECIAL:
            return getattr(self.special, _SPECIAL[name])(*args)
        raise DGraphError(f"evaluating the array program: cannot evaluate {name} ({e})")

    def _add(self, e: sympy.Add) -> Any:
        """Terms in the printer's order, summed left to right (a term printed with a
        minus is subtracted: the same bits as adding its negation)."""
        terms = e.as_ordered_terms()  # the code printers' order (theirs is None)
        total = self._sub(terms[0])
        for term in terms[1:]:
            total = total + self._sub(term)
        return total

    def _mul(self, e: sympy.Mul) -> Any:
        """sympy's code printers' product: the sign taken out, the factors with negative
        rational powers in a denominator, ``a*b/(c*d)``."""
        c, rest = e.as_coeff_Mul()
        negative = c < 0
        expr = _unsigned_product(-c, rest) if negative else e
        above, below = [], []
        for item in expr.as_ordered_factors():
            if item.is_Pow and item.exp.is_Rational and item.exp.is_negative:
                below.append(sympy.Pow(item.base, -item.exp, evaluate=item.exp == -1))
            else:
                above.append(item)
        out = self._product(above or [sympy.S.One])
        if negative:
            out = -out
        if below:
            out = out / self._product(below)
        return out

    def _product(self, factors: list[sympy.Expr]) -> Any:
        out = self._sub(factors[0])
        for f in factors[1:]:
            out = out * self._sub(f)
        return out

    def _pow(self, e: sympy.Pow) -> Any:
        """:class:`~dgraph.codegen.printing.PowersAsProducts`' powers: an integer power
        as a product, ``1/product`` where negative, a square root where ±1/2, else
        ``base ** exponent`` as NumPy's printer writes it."""
        base, exp = e.base, e.exp
        if exp.is_Integer and exp != 0 and abs(exp) <= LARGEST_PRODUCT_POWER:
            b = self._sub(base)
            product = b
            for _ in range(abs(int(exp)) - 1):
                product = product * b
            return product if exp > 0 else 1 / product
        if exp == sympy.S.Half:
            return self.xp.sqrt(self._sub(base))
        if exp == -sympy.S.Half:
            return 1 / self.xp.sqrt(self._sub(base))
        if exp.is_integer and exp.is_negative:  # NumPy's printer: a float exponent
            return self._sub(base) ** double(exp)
        return self._sub(base) ** self._sub(exp)

    def _piecewise(self, e: sympy.Piecewise) -> Any:
        """NumPy's printer's ``select(conditions, values, default=nan)``."""
        xp = self.xp
        conditions = [self._sub(c) for _, c in e.args]
        choices = [self._sub(v) for v, _ in e.args]
        return xp.select(conditions, choices, default=math.nan)


def _number(e: sympy.Number) -> int | float:
    """A number as the printers write it: an int while it fits a 32-bit int, else the
    nearest double (:func:`~dgraph.codegen.printing.double_literal`)."""
    if e.is_Integer and abs(int(e)) < INT_LIMIT:
        return int(e)
    return double(e)


def evaluate_statements(
    statements: Iterable[ir.ArrayStatement],
    env: dict[str, Any],
    xp: ModuleType = np,
    special: ModuleType = scipy.special,
) -> dict[str, Any]:
    """``ArrayEvaluator(xp, special).run(statements, env)``: the statements' values."""
    return ArrayEvaluator(xp, special).run(statements, env)


def _nan_where_refused(f: Any) -> Any:
    """A linear-algebra function, NaN where LAPACK refuses the matrix (the program's
    shapes are found at random inputs, where a Cholesky factor may not exist)."""
    if f is None:
        return None

    def safe(a, *args, **kwargs):
        try:
            return f(a, *args, **kwargs)
        except np.linalg.LinAlgError:
            return np.full(np.shape(a), np.nan)

    return safe


def _linalg_beside(special: ModuleType) -> ModuleType:
    """``scipy.linalg`` beside ``scipy.special`` (``jax.scipy.linalg`` beside JAX's)."""
    return importlib.import_module(special.__name__.rpartition(".")[0] + ".linalg")


def _traced(value: Any) -> bool:
    """Whether ``value`` is a JAX tracer (no concrete value to branch on in Python)."""
    from jax.core import Tracer

    return isinstance(value, Tracer)
