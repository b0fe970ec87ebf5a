"""Defects found by survey43 (held-out-style programs through every command and API,
``benchmarks/programs_survey``), one small test each."""

import numpy as np
import pytest

from dgraph.codegen.c import compiler
from dgraph.codegen.tensor.c_values import CValues


@pytest.mark.skipif(compiler() is None, reason="no C compiler")
def test_c_values_of_more_arrays_than_ctypes_passes():
    """An unrolled 300-step IIR filter's C Jacobian took 2,917 pointer arguments (one
    constant index array per gather): ctypes refused the function ("too many
    arguments (2917), maximum is 1024"). Past that the arrays go as one array of
    pointers."""
    count = 1100  # ctypes: at most 1024
    constants = {f"_c{k}": np.full(1, float(k)) for k in range(count)}
    params = ", ".join(f"const double *_c{k}" for k in range(count))
    body = " + ".join(f"_c{k}[0]" for k in (0, 7, count - 1))
    text = (
        "#include <stdint.h>\n"
        f"void jacobian_values_with(const double *x, {params}, double *data,"
        " double *s0, int32_t *s1, int64_t *s2)"
        f" {{ data[0] = x[0] * ({body}); data[1] = x[1]; }}\n"
    )
    values = CValues(
        text=text,
        cuda="",
        constants=constants,
        indices=np.array([0, 1]),
        indptr=np.array([0, 1, 2]),
        shape=(2, 2),
        inputs=("x",),
        input_shapes=((2,),),
    )
    J = values.load()(np.array([2.0, 3.0])).toarray()
    np.testing.assert_array_equal(J, [[2.0 * (0 + 7 + count - 1), 0.0], [0.0, 3.0]])
