"""The polynomial arrays' products and sums (``dgraph.codegen.tensor.poly_arrays``)
against a reference written entry by entry in plain Python: each entry's polynomial a
list of (monomial, coefficient), every product of two coefficients and every sum of
several an exact rational (``fractions.Fraction``), kept where the module's rules keep
it (module docstring: a product no double holds is a number unknown times a power of
two, or taints its entry; a sum is claimed exact when its terms' integers fit 61 bits;
more than ``MAX_DEGREE`` factors or ``MAX_TERMS`` monomials taint). The arrays made must
be equal to the reference's in every array: positions, factor keys (the same width),
coefficients bit for bit, taint."""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dgraph.codegen.tensor import poly_arrays as pa

TINY = np.finfo(float).tiny


# -- the reference ------------------------------------------------------------------------


def _entries(p: pa.PolyArray) -> list[list[tuple[tuple[int, ...], float]] | None]:
    """Per flat entry: its terms (monomial without padding, coefficient), None if tainted."""
    out: list = [None if t else [] for t in p.taint.tolist()]
    for k, row, c in zip(p.pos.tolist(), p.fac.tolist(), p.coef.tolist(), strict=True):
        out[k].append((tuple(f for f in row if f != pa.PAD), c))
    return out


def _bits(v: float) -> tuple[int, int, int]:
    """``v = odd · 2^last``: (odd, its significant bits, last); a subnormal counts 54
    bits (the module's convention: no product with it is taken as exact by its bits)."""
    f = Fraction(v)
    odd, last = abs(f.numerator), 0
    den = f.denominator
    while den > 1:
        den //= 2
        last -= 1
    while odd % 2 == 0:
        odd //= 2
        last += 1
    subnormal = abs(v) < TINY
    return int(math.copysign(odd, v)), 54 if subnormal else odd.bit_length(), last


def _double_bits(v: float) -> int:
    return struct.unpack("<q", struct.pack("<d", v))[0]


def _product(x: float, y: float) -> tuple[float, int | None] | None:
    """``x · y`` as (coefficient, a number unknown's key or None); None: not kept."""
    hi = x * y
    normal = math.isfinite(hi) and abs(hi) >= TINY
    dekker = math.isfinite(hi) and abs(x) < 2.0**995 and abs(y) < 2.0**995 and abs(hi) > 2.0**-900
    exact = Fraction(x) * Fraction(y)
    if normal and (_bits(x)[1] + _bits(y)[1] <= 53 or (dekker and Fraction(hi) == exact)):
        return hi, None
    if not dekker:
        return None
    lo = exact - Fraction(hi)
    assert Fraction(float(lo)) == lo  # Dekker: the rest is a double
    lo = float(lo)
    e = math.frexp(hi)[1]
    sign = math.copysign(1.0, hi)
    scale = math.ldexp(sign, e - 1)
    head, tail = math.ldexp(abs(hi), 1 - e), math.ldexp(lo * sign, 1 - e)
    if math.ldexp(tail, e - 1) * sign != lo:
        return None
    number = pa._NUMBERS.get((_double_bits(head), _double_bits(tail)))
    key = -2 if number is None else (pa.NUMBER_ATOM << pa.SHIFT) | number  # -2: never made
    return scale, key


def _sum(values: list[float]) -> float | None:
    """The sum claimed exact (None: not claimed)."""
    if len(values) == 1:
        return values[0] if math.isfinite(values[0]) else None
    parts = [_bits(v) for v in values]
    lowest = min(last for _, _, last in parts)
    room = 61 - (len(values) - 1).bit_length()
    if any(room - bits - (last - lowest) < 0 for _, bits, last in parts):
        return None
    total = sum(odd << (last - lowest) for odd, _, last in parts)
    if int(float(total)) != total:
        return None
    value = math.ldexp(float(total), lowest)
    if not math.isfinite(value) or (value != 0.0 and abs(value) < TINY):
        return None
    return value


def _canonical(shape: tuple[int, ...], entries: list) -> dict:
    """The arrays of the canonical form of per-entry term lists (None: tainted)."""
    width = max(
        (len(m) for terms in entries if terms for m, _ in terms if len(m) <= pa.MAX_DEGREE),
        default=0,
    )
    pos, fac, coef, taint = [], [], [], []
    for k, terms in enumerate(entries):
        if terms is None or any(len(m) > pa.MAX_DEGREE for m, _ in terms):
            taint.append(True)
            continue
        groups: dict[tuple[int, ...], list[float]] = {}
        for m, c in terms:
            groups.setdefault(m, []).append(c)
        sums = {m: _sum(cs) for m, cs in groups.items()}
        if len(sums) > pa.MAX_TERMS or any(s is None for s in sums.values()):
            taint.append(True)
            continue
        taint.append(False)
        rows = sorted(((pa.PAD,) * (width - len(m)) + m, s) for m, s in sums.items() if s != 0)
        for row, s in rows:
            pos.append(k)
            fac.append(row)
            coef.append(s)
    return {
        "shape": tuple(shape),
        "pos": pos,
        "fac": [list(r) for r in fac],
        "width": width,
        "coef": [_double_bits(c) for c in coef],
        "taint": taint,
    }


def _flat_index(shape: tuple[int, ...], to: tuple[int, ...]) -> list[int]:
    return np.broadcast_to(np.arange(math.prod(shape)).reshape(shape), to).reshape(-1).tolist()


def reference_multiply(a: pa.PolyArray, b: pa.PolyArray) -> dict:
    shape = tuple(np.broadcast_shapes(a.shape, b.shape))
    ea, eb = _entries(a), _entries(b)
    entries: list = []
    for i, j in zip(_flat_index(a.shape, shape), _flat_index(b.shape, shape), strict=True):
        if ea[i] is None or eb[j] is None:
            entries.append(None)
            continue
        terms = []
        for ma, ca in ea[i]:
            for mb, cb in eb[j]:
                product = _product(ca, cb)
                if product is None:
                    terms = None
                    break
                c, number = product
                terms.append((tuple(sorted(ma + mb + ((number,) if number else ()))), c))
            if terms is None:
                break
        entries.append(terms)
    return _canonical(shape, entries)


def reference_add(*terms: pa.PolyArray) -> dict:
    shape = tuple(np.broadcast_shapes(*(p.shape for p in terms)))
    each = [(_entries(p), _flat_index(p.shape, shape)) for p in terms]
    entries: list = []
    for k in range(math.prod(shape)):
        parts = [e[index[k]] for e, index in each]
        entries.append(None if any(p is None for p in parts) else [t for p in parts for t in p])
    return _canonical(shape, entries)


def arrays(p: pa.PolyArray) -> dict:
    return {
        "shape": tuple(p.shape),
        "pos": p.pos.tolist(),
        "fac": p.fac.tolist(),
        "width": p.fac.shape[1],
        "coef": p.coef.view(np.int64).tolist(),
        "taint": p.taint.tolist(),
    }


# -- drawn arrays ---------------------------------------------------------------------------

# Coefficients whose products and sums are exact, rounded (0.1·0.3: a number unknown),
# cancel, underflow (1e-300²), overflow (1e300²), or are subnormal; factor keys of a few
# atoms (one far from the others) and elements (some far apart: the codes are then
# searched for, not looked up).
COEFFICIENTS = [1.0, -1.0, 2.0, 0.5, -3.0, 0.1, 0.3, -0.7, 1 / 3, 3.0, 1.5, 2.0**60]
COEFFICIENTS += [2.0**-60, 1e-300, 1e300, 5e-324, -(2.0**-1070), 6.0, 0.25, -0.1]
ATOMS = [1, 2, 5, 90_000]
ELEMENTS = [0, 1, 2, 3, 7, 1_000, 2**31 + 5]
SHAPES = [
    ((6,), (6,)),
    ((3, 1), (1, 4)),
    ((), (5,)),
    ((2, 3), (3,)),
    ((4,), ()),
    ((0,), (1,)),
    ((24,), (24,)),
]


@st.composite
def poly_arrays(draw, shape: tuple[int, ...], keys: list[int], big: bool) -> pa.PolyArray:
    """A canonical polynomial array: per entry tainted or a few distinct monomials."""
    n = math.prod(shape)
    most_terms = 10 if big else 4
    most_degree = 7 if big else 3
    entries = []
    for _ in range(n):
        if draw(st.integers(0, 9)) == 0:
            entries.append(None)
            continue
        terms = {}
        for _ in range(draw(st.integers(0, most_terms))):
            # a term in two draws, not 2 + degree (hypothesis's draws were most of this
            # test's time): its degree and coefficient (the quotient and remainder of one),
            # then its ``degree`` keys (the digits, base len(keys), of one integer). Every
            # term one draw per factor could give is drawn; in 1,500 draws each degree and
            # coefficient came about as often as before, and monomials of one repeated key
            # somewhat less often (hypothesis favours an integer's small values, and
            # sampled_from its first element, differently)
            degree, c = divmod(
                draw(st.integers(0, (most_degree + 1) * len(COEFFICIENTS) - 1)), len(COEFFICIENTS)
            )
            code = draw(st.integers(0, len(keys) ** degree - 1))
            m = tuple(sorted(keys[code // len(keys) ** i % len(keys)] for i in range(degree)))
            terms[m] = COEFFICIENTS[c]
        entries.append(terms)
    width = max((len(m) for e in entries if e for m in e), default=0)
    width += draw(st.integers(0, 2))  # columns no row uses are allowed in an input
    pos, fac, coef = [], [], []
    for k, e in enumerate(entries):
        for m, c in sorted(((pa.PAD,) * (width - len(m)) + m, c) for m, c in (e or {}).items()):
            pos.append(k)
            fac.append(m)
            coef.append(c)
    return pa.PolyArray(
        shape,
        np.array(pos, dtype=np.int64),
        np.array(fac, dtype=np.int64).reshape(len(fac), width),
        np.array(coef, dtype=float),
        np.array([e is None for e in entries], dtype=bool),
    )


@st.composite
def operands(draw, count: int):
    shapes = draw(st.sampled_from(SHAPES))
    atoms = draw(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=3, unique=True))
    elements = draw(st.lists(st.sampled_from(ELEMENTS), min_size=1, max_size=4, unique=True))
    keys = [(a << pa.SHIFT) | e for a in atoms for e in elements]
    big = draw(st.booleans())
    return [draw(poly_arrays(shapes[k % 2], keys, big)) for k in range(count)]


@settings(max_examples=100)
@given(operands(2))
def test_multiply_equals_the_entry_by_entry_reference(pair):
    a, b = pair
    got = arrays(pa.multiply(a, b))  # first: the numbers it makes are registered
    assert got == reference_multiply(a, b)
    assert arrays(pa.multiply(b, a)) == reference_multiply(b, a)


@settings(max_examples=60)
@given(operands(3))
def test_add_equals_the_entry_by_entry_reference(terms):
    assert arrays(pa.add(*terms)) == reference_add(*terms)


def test_a_product_of_many_entries_equals_the_reference():
    """SPIN2LS's kind of product (four monomials of up to four factors per entry, times
    the same), at 400 entries: more rows than one 63-bit key holds (several words, ties
    in the first), codes looked up per atom."""
    keys = [(a << pa.SHIFT) | e for a in (1, 3) for e in range(60)]

    def drawn(seed: int) -> pa.PolyArray:
        rng = np.random.default_rng(seed)
        pos, fac, coef = [], [], []
        for k in range(400):
            terms = {}
            for _ in range(4):
                degree = int(rng.integers(1, 5))
                m = tuple(sorted(int(rng.choice(keys)) for _ in range(degree)))
                terms[(pa.PAD,) * (4 - degree) + m] = float(rng.choice([2.0, -2.0, 4.0, 1.0]))
            for m, c in sorted(terms.items()):
                pos.append(k)
                fac.append(m)
                coef.append(c)
        return pa.PolyArray(
            (400,), np.array(pos), np.array(fac), np.array(coef), np.zeros(400, dtype=bool)
        )

    a, b = drawn(1), drawn(2)
    product = pa.multiply(a, b)
    assert arrays(product) == reference_multiply(a, b)
    assert product.fac.shape[1] == 8 and product.rows > 5_000
    square = pa.multiply(a, a)  # a·a: xy and yx one monomial, coefficients doubled
    assert arrays(square) == reference_multiply(a, a)
    assert square.rows < product.rows


def test_a_product_too_large_to_form_gives_up_before_forming_it():
    """700 entries of 64 monomials of degree 6, times themselves: 2.9 million rows of 13
    factor keys before equal monomials are added, past ``MAX_PRODUCT``: GiveUp (nothing
    claimed) before they are formed. Main formed them (a Hessian's cancellation pass of a
    SiLU MLP of 400 weights took 20 GB and was killed; real_programs5's
    silu_softplus_bce)."""
    entries, terms, degree = 700, 64, 6
    fac = (1 << pa.SHIFT) | np.arange(entries * terms * degree).reshape(-1, degree)
    a = pa.PolyArray((entries,), np.repeat(np.arange(entries), terms), fac,
                     np.ones(entries * terms), np.zeros(entries, dtype=bool))  # fmt: skip
    with pytest.raises(pa.GiveUp, match="too many terms"):
        pa.multiply(a, a)
    assert entries * terms**2 * (2 * degree + 1) > pa.MAX_PRODUCT
