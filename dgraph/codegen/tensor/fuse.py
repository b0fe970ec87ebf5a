"""Dense JAX output only: a one-operand ``einsum`` (an axis permutation or a sum, e.g. a
transpose vertex's block) of a single-use ``einsum`` without a contraction (a batch of
outer products) folded into that einsum's output subscripts, so the product is computed
once, elementwise, in the order it is read.

Without it XLA on a CPU computes the product (a batch of outer products, 512 × 128 × 64
for the MLP's ``d loss / d W1``) in one layout and then copies it into the other: a whole
extra pass over an output block (the MLP-16 Jacobian 20 % slower than Graphax's ``jacve``,
which builds the block in place). A producer that contracts is a dot whose result order
the BLAS call fixes: permuting its output subscripts makes XLA transpose after the dot
anyway, and on the transformer encoder (products feeding further products) it was slower
than leaving the permutation to fuse into its consumer, so those are left alone.

>>> from dgraph.codegen.ir import ArrayStatement as S, Call, Const, Name
>>> r1 = S("r1", Call("einsum", (Const("ab,ca->acb"), Name("u"), Name("v"))))
>>> t2 = S("t2", Call("einsum", (Const("abc->acb"), Name("r1"))))
>>> [s.target for s in fold_permutations([r1, t2], ["t2"])]
['t2']
>>> fold_permutations([r1, t2], ["t2"])[0].value.args[0]
Const(value='ab,ca->abc')
"""

from __future__ import annotations

from collections import Counter

from ..ir import ArrayStatement, Call, Const, Name, Node, substituted, walk

__all__ = ["fold_permutations"]


def _einsum(node: Node) -> tuple[str, str, tuple[Node, ...]] | None:
    """An ``einsum`` call's input subscripts, output subscripts and operands."""
    if not (isinstance(node, Call) and node.func == "einsum" and not node.keywords):
        return None
    spec = node.args[0] if node.args else None
    if not (isinstance(spec, Const) and isinstance(spec.value, str) and "->" in spec.value):
        return None
    left, _, out = spec.value.partition("->")
    return left, out, node.args[1:]


def fold_permutations(
    statements: list[ArrayStatement], returned: list[str]
) -> list[ArrayStatement]:
    """``statements`` (the function body, in order) with every ``einsum('S->P', B)`` whose
    ``B`` is an einsum read nowhere else folded into ``B``'s einsum (its output letters
    renamed through S, then taken in P's order); where the consumer's statement is that
    call alone, it takes over the producer's statement."""
    out: list[ArrayStatement | None] = list(statements)
    reads: Counter[str] = Counter(returned)
    for s in statements:
        reads.update(n.id for n in walk(s.value) if isinstance(n, Name))
    where = {s.target: i for i, s in enumerate(statements) if _einsum(s.value) is not None}
    for i in range(len(statements)):
        if out[i] is None:
            continue
        calls = [
            n
            for n in walk(out[i].value)  # type: ignore[union-attr]
            if (e := _einsum(n)) is not None and len(e[2]) == 1 and isinstance(e[2][0], Name)
        ]
        if len(calls) != 1:
            continue
        call = calls[0]
        sub, p, (source,) = _einsum(call)  # type: ignore[misc]
        j = where.get(source.id)
        if j is None or reads[source.id] != 1 or out[j] is None or j == i:
            continue
        left, z, operands = _einsum(out[j].value)  # type: ignore[misc, union-attr]
        if len(sub) != len(z) or len(set(sub)) != len(sub) or not set(p) <= set(sub):
            continue  # a diagonal or a shape mismatch: left as it is
        if not set(left) - {","} <= set(z):
            continue  # a contraction (a dot): its order is the BLAS call's, see above
        folded = "".join(z[sub.index(c)] for c in p)
        producer = Call("einsum", (Const(f"{left}->{folded}"), *operands))
        target = out[i].target  # type: ignore[union-attr]
        if out[i].value == call:  # type: ignore[union-attr]  # the producer's statement renamed
            out[j] = ArrayStatement(target, producer)
            out[i] = None
            where[target] = j
        else:
            out[j] = ArrayStatement(source.id, producer)
            out[i] = ArrayStatement(target, substituted(out[i].value, {call: source}))  # type: ignore[union-attr]
    return [s for s in out if s is not None]
