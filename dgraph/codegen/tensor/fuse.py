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

>>> lines = ["    r1 = jnp.einsum('ab,ca->acb', u, v)", "    t2 = jnp.einsum('abc->acb', r1)"]
>>> fold_permutations(lines, "    return {'k': t2}")
["    t2 = jnp.einsum('ab,ca->abc', u, v)"]
"""

from __future__ import annotations

import re

__all__ = ["fold_permutations"]

_PRODUCER = re.compile(r"    (\w+) = jnp\.einsum\('([a-z,]*)->([a-z]*)', (.*)\)")
_CONSUMER = re.compile(r"jnp\.einsum\('([a-z]+)->([a-z]*)', (\w+)\)")


def fold_permutations(lines: list[str], returned: str) -> list[str]:
    """``lines`` (``name = expression`` statements of the function body, in order) with
    every ``einsum('S->P', B)`` whose ``B`` is an einsum read nowhere else folded into
    ``B``'s einsum (its output letters renamed through S, then taken in P's order); where
    the consumer's statement is that call alone, it takes over the producer's statement."""
    lines: list[str | None] = list(lines)
    reads: dict[str, int] = {}
    for text in (*(line.partition(" = ")[2] for line in lines), returned):
        for word in re.findall(r"\w+", text):
            reads[word] = reads.get(word, 0) + 1
    where = {}
    for i, line in enumerate(lines):
        match = _PRODUCER.fullmatch(line)
        if match and _one_call(match.group(4)):
            where[match.group(1)] = i
    for i, line in enumerate(lines):
        if line is None:
            continue
        target, _, expression = line.strip().partition(" = ")
        calls = _CONSUMER.findall(expression)
        if len(calls) != 1:
            continue
        (s, p, source) = calls[0]
        j = where.get(source)
        if j is None or reads.get(source) != 1 or lines[j] is None:
            continue
        producer = _PRODUCER.fullmatch(lines[j])
        left, z, arguments = producer.group(2), producer.group(3), producer.group(4)
        if len(s) != len(z) or len(set(s)) != len(s) or not set(p) <= set(s):
            continue  # a diagonal or a shape mismatch: left as it is
        if not set(left) - {","} <= set(z):
            continue  # a contraction (a dot): its order is the BLAS call's, see above
        folded = "".join(z[s.index(c)] for c in p)
        call = f"jnp.einsum('{s}->{p}', {source})"
        if expression == call:  # the producer's statement under the consumer's name
            lines[j] = f"    {target} = jnp.einsum('{left}->{folded}', {arguments})"
            lines[i] = None
            where[target] = j
        else:
            lines[j] = f"    {source} = jnp.einsum('{left}->{folded}', {arguments})"
            lines[i] = "    " + target + " = " + expression.replace(call, source)
    return [line for line in lines if line is not None]


def _one_call(arguments: str) -> bool:
    """The einsum's arguments close where the statement ends (no ``einsum(...) * k``)."""
    depth = 0
    for c in arguments:
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(c, 0)
        if depth < 0:
            return False
    return depth == 0
