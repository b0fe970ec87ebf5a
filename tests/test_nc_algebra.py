"""The fast noncommutative product and sum build exactly what sympy's operators build."""

from __future__ import annotations

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dgraph.core.algebra import nc_product, nc_sum, nc_symbol

SYMBOLS = [nc_symbol(n) for n in ("a", "b", "c", "d")]
LEAVES = st.sampled_from([*SYMBOLS, sympy.Integer(1), sympy.Integer(-1), sympy.Integer(2)])


def _expressions():
    def extend(children):
        pairs = st.tuples(children, children)
        return st.one_of(
            pairs.map(lambda p: p[0] * p[1]),
            pairs.map(lambda p: p[0] + p[1]),
            children.map(lambda e: e**2),
        )

    return st.recursive(LEAVES, extend, max_leaves=8)


@settings(max_examples=400, deadline=None)
@given(_expressions(), _expressions())
def test_same_object_as_sympy(a, b):
    for fast, slow in ((nc_product(a, b), a * b), (nc_sum(a, b), a + b)):
        assert fast == slow
        assert fast.args == slow.args
        assert hash(fast) == hash(slow)
        assert sympy.srepr(fast) == sympy.srepr(slow)


def test_rules_that_need_sympy_still_apply():
    a, b = SYMBOLS[:2]
    assert nc_product(a * b, b * a) == a * b**2 * a
    assert nc_sum(a * b, -(a * b)) == 0
    assert nc_sum(a, 2 * a) == 3 * a
    assert nc_product(sympy.Integer(1), a) == a


@settings(max_examples=300, deadline=None)
@given(st.lists(_expressions(), min_size=1, max_size=6))
def test_canonical_key_sorts_like_sympy_and_sums_of_many(terms):
    from sympy.core.basic import _args_sortkey

    from dgraph.core.algebra import canonical_key, nc_sum_of

    unique = list(dict.fromkeys(terms))
    assert sorted(unique, key=canonical_key) == sorted(unique, key=_args_sortkey)
    fast, slow = nc_sum_of(terms), sympy.Add(*terms)
    assert fast == slow and fast.args == slow.args
