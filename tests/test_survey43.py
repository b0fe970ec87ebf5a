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


def test_merged_scatter_adds_stay_printable_as_jax():
    """An unrolled 300-step IIR filter's JAX Jacobian: its sums' scatter-adds, merged one
    into the next, became one chain of thousands of ``.at[K].add(d)`` calls that Python
    could not compile ("maximum recursion depth exceeded during compilation"). A merged
    scatter-add now holds at most ``MOST_PARTS`` parts; the rest stay statements."""
    from dgraph.codegen.ir import ArrayStatement, Name, ScatterAdd
    from dgraph.codegen.jaxcode import JaxArrayPrinter
    from dgraph.codegen.tensor.scatter_chains import merged_scatter_adds

    statements, base = [], Name("x")
    for k in range(12):  # 12 statements of 100 parts each, every one read by the next
        parts = tuple((Name(f"K{j % 3}"), Name(f"d{j % 5}")) for j in range(100))
        statements.append(ArrayStatement(f"t{k}", ScatterAdd(base, parts)))
        base = Name(f"t{k}")
    merged = merged_scatter_adds(statements)
    printer = JaxArrayPrinter()
    text = "\n".join(f"{s.target} = {printer.doprint(s.value)}" for s in merged)
    compile(text, "<jax>", "exec")  # RecursionError where 1,200 parts were one chain
    read = {s.target for s in merged for _, d in s.value.parts} | {
        n.id for s in merged if isinstance((n := s.value.base), Name)
    }
    kept = [s for s in merged if s.target == "t11" or s.target in read]
    # the last statement's chain adds all 1,200 parts, in order, over x
    chain, node = 0, Name("t11")
    while isinstance(node, Name) and node.id != "x":
        value = {s.target: s.value for s in kept}[node.id]
        chain += len(value.parts)
        node = value.base
    assert chain == 1200
    assert max(len(s.value.parts) for s in merged) <= 128


class _GuardedNumpy:
    """NumPy as ``c_values`` sees it, its ``empty`` arrays followed by guard entries: a C
    function writing past its ``data`` changes them."""

    GUARD = 7.25

    def __init__(self) -> None:
        self.guards: list[tuple[np.ndarray, int]] = []

    def __getattr__(self, name):
        return getattr(np, name)

    def empty(self, shape, *args, **kwargs):
        n = int(np.prod(shape))
        block = np.full(n + 16, self.GUARD)
        self.guards.append((block, n))
        return block[:n].reshape(shape)


@pytest.mark.skipif(compiler() is None, reason="no C compiler")
def test_a_loop_carry_longer_than_the_values_is_not_written_into_data(monkeypatch):
    """An LQR cost by ``fori_loop`` with the start ``x0`` a parameter: the loop carries
    the tangents of the gain (8 entries) and of ``x0`` (4), the Jacobian is the first 8.
    The C code took the 12-entry carry as ``data`` itself (a prefix of it was the result)
    and wrote 4 doubles past the caller's array: Python aborted at exit ("corrupted
    size vs. prev_size"). Now the carry is a buffer of its own, copied into ``data``."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    import dgraph
    from dgraph.codegen.tensor import c_values
    from dgraph.frontends.jaxpr_arrays import x64

    A = jnp.array([[1.0, 0.1, 0, 0], [0, 1.0, 0.1, 0], [0, 0, 1.0, 0.1], [0.01, 0, 0, 0.98]])
    B = jnp.array([[0, 0], [0.1, 0], [0, 0], [0, 0.1]])

    def f(Kg, x0):
        def body(_, c):
            x, J = c
            u = -Kg @ x
            return A @ x + B @ u, J + x @ x + 0.1 * (u @ u)

        return jax.lax.fori_loop(0, 6, body, (x0, 0.0))[1]

    guarded = _GuardedNumpy()
    monkeypatch.setattr(c_values, "np", guarded)
    Kg, x0 = 0.5 * np.ones((2, 4)), np.array([1.0, -0.5, 0.3, 0.2])
    F = dgraph.make_function(f, "jacobian", "c", sparse=True, params=["x0"], point=[Kg, x0])
    got = F(Kg, x0).toarray()
    assert guarded.guards  # the calls' data went through the guarded empty
    for block, n in guarded.guards:
        assert (block[n:] == _GuardedNumpy.GUARD).all(), "written past data"
    with x64(jax):
        want = jax.jit(jax.grad(f))(Kg, x0)
    np.testing.assert_allclose(got.reshape(2, 4), np.asarray(want), rtol=1e-12)
