"""The scalar path on the array IR (dgraph.codegen.lowering): one builder, the array passes
and their counts for every level."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from dgraph.codegen.array_passes import count_array_ops
from dgraph.codegen.ir import Program
from dgraph.codegen.lowering import batched, lowered, result_entries
from dgraph.codegen.program import jacobian_program, jvp_program, value_and_jacobian_program
from dgraph.frontends import bundled
from dgraph.methods import accumulate


def _values(program: Program, point: dict[sympy.Symbol, float]) -> dict:
    """The program's results at ``point``, its assignments evaluated in order."""
    known = dict(point)
    for s, e in program.assignments:
        known[s] = float(e.xreplace(known))
    return {k: float(e.xreplace(known)) for k, e in program.results}


def test_a_value_computed_under_two_names_is_computed_once():
    """Two names for one value (the sympy passes leave such pairs: black-scholes's
    Jacobian computed r16 = r10): value numbering finds c = a, the results read a,
    one multiplication fewer, the same values."""
    x, y, a, b, c = sympy.symbols("x y a b c", real=True)
    program = Program(
        "f",
        (("xs", (x, y)),),
        ((a, x * y), (b, sympy.sin(x) * y), (c, y * x)),
        (((0,), a * b + c * b), ((1,), c)),
        (2,),
    )
    low = lowered(program)
    assert program.ops.mults == 5
    assert low.ops.mults == 4  # a = x*y, b = sin(x)*y, 2*a*b (c = y*x gone)
    assert [str(s) for s, _ in low.assignments] == ["a", "b"]
    assert count_array_ops(low.arrays).ops == low.ops
    point = {x: 0.3, y: -1.7}
    assert _values(low, point) == pytest.approx(_values(program, point), rel=1e-15)


@pytest.mark.parametrize("trace", ["naumann_sin.trace", "spherical_coordinates.trace"])
def test_the_programs_count_is_their_array_statements_count(trace):
    """Every built program carries its array statements of shape (); the array passes'
    counter charges them what the scalar counter charges the assignments."""
    es = accumulate(bundled(trace), "reverse")
    for program in (
        jacobian_program(es),
        jvp_program(es, "sweep"),
        value_and_jacobian_program(es),
    ):
        assert program.arrays is not None
        counted = count_array_ops(program.arrays)
        assert counted.complete
        assert counted.ops == program.ops


def test_the_printers_views_of_the_statements():
    """Batched: argument entries read as ``x[..., k]``, results stored at ``out[..., i, j]``
    (flat: at their position); as one array: the stores at their entries, zeros elsewhere."""
    program = jacobian_program(accumulate(bundled("naumann_sin.trace"), "reverse"))
    arrays = program.arrays
    found = batched(arrays, "out")
    stores = [s for s in found if s.at]
    assert len(stores) == len(program.results)
    assert [tuple(i.value for i in s.at[1:]) for s in stores] == [k for k, _ in program.results]
    assert all(s.at[0].value is Ellipsis for s in stores)
    flat = [s for s in batched(arrays, "out", flat=True) if s.at]
    assert [s.at[1].value for s in flat] == list(range(len(program.results)))
    entries = result_entries(arrays, program.shape)
    assert entries.shape == program.shape == (1, 2)
    assert len(entries.items) == 2 and np.prod(program.shape) == 2


def test_numbers_a_bit_apart_are_not_merged():
    """1.848 and 1.8480000000000003 print alike at sympy's default precision; the values
    they scale differ in the last bit and stay two statements."""
    x, y, a, b = sympy.symbols("x y a b", real=True)
    one, other = sympy.Float(1.848), sympy.Float(1.8480000000000003)
    program = Program(
        "f",
        (("xs", (x, y)),),
        ((a, y - one * x), (b, y - other * x)),
        (((0,), a * y), ((1,), b * y)),
        (2,),
    )
    low = lowered(program)
    assert [str(s) for s, _ in low.assignments] == ["a", "b"]
    assert low.ops == program.ops
