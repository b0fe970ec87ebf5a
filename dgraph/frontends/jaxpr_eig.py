"""The eigenvalues of a real nonsymmetric matrix, and its principal square root, in a
jaxpr, as real arrays.

``jnp.linalg.eig`` and ``eigvals`` bind JAX's ``eig``, whose eigenvalues are complex. The
interpreter of complex values (:mod:`.jaxpr_complex`) writes an ``eig`` of a traced real
matrix as :func:`eig_parts`: one equation of this module's primitive
``dgraph_eig_values``, whose two results are the eigenvalues' real and imaginary parts
(JAX's values, JAX's order), and the array reader reads that equation as the operations
``eig_real`` and ``eig_imag`` (:mod:`dgraph.blocks.linalg`: ``dλ = diag(V⁻¹·dA·V)``), one
matrix's or a stack's (:mod:`.jaxpr_stacks`). The eigenvectors are not differentiated:
their scale and phase are LAPACK's choice, and JAX differentiates them only where asked
(``enable_eigvec_derivs``), so a program that reads them is refused in one line
(:func:`eig_parts`); JAX's gradient of ``eigvals`` reads them (``V⁻¹``), so a Hessian of
eigenvalues is refused so too. Where two eigenvalues are exactly equal there is no
derivative: the graph's is NaN and the value check passes the point over
(:func:`repeated_eigenvalue`).

``jax.scipy.linalg.sqrtm`` computes by ``schur`` (complex, no JAX derivative rule): the
interpreter writes its call of a real matrix (:func:`is_sqrtm`) as one equation of
``dgraph_sqrtm``, the root's real part, which the reader reads as the operation ``sqrtm``
(``X·dX + dX·X = dA``); a matrix with no real root at the point is refused
(:func:`~.point_values.refuse_unread_roots`).
"""

from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Any

import numpy as np

from ..blocks import linalg
from ..blocks.arrays import ArrayOp, Const
from ..errors import InputError

__all__ = [
    "EIG_VALUES",
    "REPEATED",
    "SQRTM",
    "eig_parts",
    "is_sqrtm",
    "read_eig_values",
    "read_sqrtm",
    "reads_eig",
    "repeated_eigenvalue",
    "sqrtm_part",
]

EIG_VALUES = "dgraph_eig_values"
"""The primitive's name: one real matrix (or a stack) in, the real and imaginary parts of
its eigenvalues out."""

VECTORS_REFUSED = (
    "the eigenvectors of a nonsymmetric matrix (jnp.linalg.eig's second result, which"
    " JAX's gradient of eigvals reads, so a Hessian too) are not differentiated here"
    " (their scale and phase are LAPACK's choice; JAX differentiates them only with"
    " enable_eigvec_derivs=True): use jnp.linalg.eigvals, for Jacobians and gradients"
)


@functools.cache
def _primitive(jax: Any) -> Any:
    """``dgraph_eig_values``: its values JAX's ``eigvals`` (real and imaginary parts) of
    one matrix or a stack. It has no derivative rule of its own: a program that holds it
    is read (``eig_real``, ``eig_imag``), never differentiated by JAX (the Hessian of one
    is refused: :data:`~.jax_hessian.HESSIAN_REFUSED`)."""
    from jax.extend.core import Primitive
    from jax.interpreters import mlir

    jnp = jax.numpy
    p = Primitive(EIG_VALUES)
    p.multiple_results = True

    def impl(a: Any) -> list[Any]:
        w = jnp.linalg.eigvals(a)
        return [jnp.real(w), jnp.imag(w)]

    def abstract(a: Any) -> list[Any]:
        part = jax.core.ShapedArray(a.shape[:-1], a.dtype)
        return [part, part]

    p.def_impl(impl)
    p.def_abstract_eval(abstract)
    mlir.register_lowering(p, mlir.lower_fun(impl, multiple_results=True))
    return p


SQRTM = "dgraph_sqrtm"
"""The primitive of ``jax.scipy.linalg.sqrtm`` of a real matrix: its real principal root."""


@functools.cache
def _sqrtm_primitive(jax: Any) -> Any:
    """``dgraph_sqrtm``: the real part of JAX's ``sqrtm`` (NaN where a real eigenvalue is
    at most 0: no real root); read as ``sqrtm`` (:mod:`dgraph.blocks.linalg`), never
    differentiated by JAX, as :func:`_primitive`."""
    from jax.extend.core import Primitive
    from jax.interpreters import mlir

    jnp = jax.numpy
    p = Primitive(SQRTM)

    def impl(a: Any) -> Any:
        return jnp.real(jax.scipy.linalg.sqrtm(a))

    p.def_impl(impl)
    p.def_abstract_eval(lambda a: jax.core.ShapedArray(a.shape, a.dtype))
    mlir.register_lowering(p, mlir.lower_fun(impl, multiple_results=False))
    return p


def is_sqrtm(eqn: Any) -> bool:
    """Whether ``eqn`` is the call ``jax.scipy.linalg.sqrtm`` makes of one real matrix
    (named so, computing by ``schur``)."""
    if eqn.params.get("name") not in ("sqrtm", "_sqrtm") or len(eqn.invars) != 1:
        return False
    inner = _jaxpr_of(eqn.params.get("jaxpr"))
    shape = tuple(eqn.invars[0].aval.shape)
    return (
        inner is not None and len(shape) == 2 and shape[0] == shape[1] and reads_eig(inner, "schur")
    )


def sqrtm_part(jax: Any, a: Any) -> Any:
    """``jax.scipy.linalg.sqrtm`` of the traced real matrix ``a`` (an interpreter's rule):
    its real part, one ``dgraph_sqrtm`` equation (the imaginary part is 0 where a real
    root exists; where none does, the real part is NaN)."""
    return _sqrtm_primitive(jax).bind(a)


def read_sqrtm(eqn: Any, ins: list[Any]) -> ArrayOp:
    """The ``dgraph_sqrtm`` equation as the operation ``sqrtm``."""
    x = Const.of(ins[0]) if not isinstance(ins[0], str) else ins[0]
    op = ArrayOp("sqrtm", (x,), (), tuple(int(n) for n in eqn.outvars[0].aval.shape))
    linalg.check(op, [tuple(int(n) for n in eqn.invars[0].aval.shape)])
    return op


def eig_parts(jax: Any, eqn: Any, a: Any, used: set, where: str) -> list[Any]:
    """``eig`` of the traced real matrix ``a`` (an interpreter's rule): the eigenvalues as
    ``(re, im)`` and, where ``eqn`` computes eigenvectors that nothing reads (``w, v =
    jnp.linalg.eig(A)`` using ``w`` only), zeros for them.

    Raises
    ------
    InputError
        Where an eigenvector is read (:data:`VECTORS_REFUSED`).
    """
    _, *vectors = eqn.outvars
    if any(v in used for v in vectors):
        raise InputError(f"{where}: {VECTORS_REFUSED}")
    re, im = _primitive(jax).bind(a)
    zeros = [jax.numpy.zeros(v.aval.shape, re.dtype) for v in vectors]
    return [(re, im), *((z, None) for z in zeros)]


def read_eig_values(eqn: Any, ins: list[Any]) -> list[ArrayOp]:
    """The ``dgraph_eig_values`` equation of one square matrix as ``eig_real`` and
    ``eig_imag`` (a stack's: :mod:`.jaxpr_stacks`, which calls this one matrix at a time).

    Raises
    ------
    InputError
        For an operand that is not a square matrix.
    """
    x = Const.of(ins[0]) if not isinstance(ins[0], str) else ins[0]
    shape = tuple(int(n) for n in eqn.outvars[0].aval.shape)
    ops = [ArrayOp(name, (x,), (), shape) for name in ("eig_real", "eig_imag")]
    linalg.check(ops[0], [tuple(int(n) for n in eqn.invars[0].aval.shape)])
    return ops


REPEATED = (
    "a nonsymmetric matrix's eigenvalue is repeated there, or its eigenvectors are ill"
    " conditioned (jnp.linalg.eigvals): it has no derivative, or none V·diag(λ)·V⁻¹ reads"
    " (JAX's jvp gives diag(V⁻¹·dA·V) for LAPACK's basis), the graph's is NaN"
)


def _defective(a: np.ndarray) -> bool:
    """Whether a matrix of the stack ``a`` has eigenvectors past
    :data:`~dgraph.blocks.linalg.COND_MOST` (where the graph's derivative is NaN)."""
    if not np.isfinite(a).all():
        return False
    return bool(np.any(~(linalg.eigenvector_condition(a) <= linalg.COND_MOST)))


def reads_eig(jaxpr: Any, name: str = "eig") -> bool:
    """Whether ``jaxpr`` (or one it calls) has an ``eig`` equation (a ``name`` one)."""
    todo = [jaxpr]
    while todo:
        j = todo.pop()
        for e in j.eqns:
            if e.primitive.name == name:
                return True
            todo += [_jaxpr_of(p) for p in e.params.values() if _jaxpr_of(p) is not None]
    return False


def _jaxpr_of(param: Any) -> Any:
    inner = getattr(param, "jaxpr", param)
    return inner if hasattr(inner, "eqns") else None


def repeated_eigenvalue(jax: Any, f: Any, args: list[Any]) -> str:
    """:data:`REPEATED` where ``f`` at ``args`` takes the eigenvalues of a matrix with
    two exactly equal (JAX's own values, its ``eig`` equations' operands, in the calls
    ``f`` makes too), else "": a point the value check passes over
    (:class:`~dgraph.core.value_check.Declined`) rather than compare with JAX's number."""
    from .jaxpr_static_while import evaluate_with

    found: list[bool] = []

    def eig(eqn: Any, ins: list[Any]) -> Any:
        a = np.asarray(ins[0], dtype=float)
        w = np.sort_complex(np.linalg.eigvals(a).reshape(-1))
        found.append(bool(np.any(w[1:] == w[:-1])) or _defective(a))  # a stack's: any's
        bound = eqn.primitive.get_bind_params(eqn.params)
        sub, params = bound if isinstance(bound, tuple) else ((), bound)
        return eqn.primitive.bind(*sub, *ins, **params)

    def call(eqn: Any, ins: list[Any]) -> Any:
        inner = next(_jaxpr_of(p) for p in eqn.params.values() if _jaxpr_of(p) is not None)
        closed = eqn.params.get("jaxpr", eqn.params.get("call_jaxpr"))
        consts = list(getattr(closed, "consts", ()))
        outs = walk(
            SimpleNamespace(jaxpr=inner, consts=consts), ins[len(ins) - len(inner.invars) :]
        )
        return outs if eqn.primitive.multiple_results else outs[0]

    def walk(closed: Any, values: list[Any]) -> list[Any]:
        rules = {}
        for k, e in enumerate(closed.jaxpr.eqns):
            if e.primitive.name == "eig":
                rules[k] = eig
            elif e.primitive.name in ("pjit", "jit", "closed_call", "custom_jvp_call") and any(
                reads_eig(j) for j in map(_jaxpr_of, e.params.values()) if j is not None
            ):
                rules[k] = call
        return evaluate_with(jax, closed, values, rules)

    closed = jax.make_jaxpr(f)(*args)
    if reads_eig(closed.jaxpr):
        walk(closed, list(args))
    return REPEATED if any(found) else ""
