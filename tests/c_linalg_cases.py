"""Helpers shared by the tests of linear algebra in generated C (tests/test_c_qr_svd.py,
tests/test_c_eigh.py, tests/test_c_linalg.py, tests/test_codegen_c_values.py): a program
of array statements whose values are the data of a diagonal sparse result, derivatives
compared to JAX's to a fraction of their largest entry, a C helper's text mutated for a
test, a batched program's values checked in C, in CUDA on the host and by nvcc, and the
signs dgraph's helpers give singular and eigen vectors.

The tests imported ``_diagonal_program`` from tests/test_codegen_c_values.py, which each
worker then imported a second time as a top-level module (with test_codegen_arrays and
the command line's modules); the decompositions' files each held a copy of the rest."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np

from dgraph.codegen import c_special
from dgraph.codegen.cuda import cxx_compiler
from dgraph.codegen.ir import ArrayProgram, ArrayStatement, Call, Const, Name, SparseMatrix
from dgraph.codegen.python import NumPyArrayPrinter


def diagonal_program(statements, shape, constants=None):
    """``statements`` computing ``y`` from ``x`` of ``shape``, ``y`` flattened the values
    of a diagonal sparse result (so that ``data`` is y in C order); and the statements
    run before it (``x_``, ``x`` reshaped, then ``statements``)."""
    x_ = Call("reshape", (Call("asarray", (Name("x"),)), Const(shape)))
    space = {"x": np.zeros(shape), "numpy": np, **(constants or {})}
    body = [ArrayStatement("x_", x_), *statements]
    for s_ in body:
        exec(NumPyArrayPrinter().statement(s_).strip(), space)
    n = int(np.size(space["y"]))
    k = {"_K90": np.arange(n, dtype=np.int32), "_K91": np.arange(n + 1, dtype=np.int32)}
    flat = ArrayStatement("flat", Call("ravel", (Name("y"),)))
    result = ArrayStatement("J", SparseMatrix(Name("flat"), Name("_K90"), Name("_K91"), (n, n)))
    program = ArrayProgram(
        "jacobian",
        ("x",),
        (shape,),
        ("x",),
        [*body, flat, result],
        ["J"],
        {**(constants or {}), **k},
    )
    return program, body


def run_numpy(body, x: np.ndarray, constants=None) -> dict:
    """The statements of :func:`diagonal_program`'s ``body`` run by NumPy at ``x`` (and
    the program's ``constants``): the names they assign."""
    space = {"x": x, "numpy": np, **(constants or {})}
    for statement in body:
        exec(NumPyArrayPrinter().statement(statement).strip(), space)
    return space


def dense(value) -> np.ndarray:
    """A sparse Jacobian as a dense array; anything else as an array."""
    return value.toarray() if hasattr(value, "toarray") else np.asarray(value)


def close(got, expected, tol: float = 1e-9) -> None:
    """``got`` (dense or sparse, any shape of ``expected``'s size) equal to ``expected`` to
    ``tol`` of its largest entry."""
    got = dense(got).reshape(np.shape(expected))
    scale = abs(np.asarray(expected)).max()
    np.testing.assert_allclose(got, expected, rtol=0, atol=tol * scale)


def mutated(name: str, old: str, new: str, monkeypatch) -> None:
    """The C helper ``name`` with ``old`` replaced by ``new`` (which must occur) for the
    rest of the test."""
    changed = tuple(text.replace(old, new) for text in c_special._FUNCTIONS[name])
    assert changed != c_special._FUNCTIONS[name]
    monkeypatch.setitem(c_special._FUNCTIONS, name, changed)


def largest_entry_signs(v: np.ndarray) -> np.ndarray:
    """The sign of each column's entry of largest magnitude (the last two axes matrices):
    dgraph's helpers make that entry of each singular or eigen vector positive."""
    big = np.take_along_axis(v, abs(v).argmax(axis=-2)[..., None, :], axis=-2)
    return np.sign(big)


def c_and_cuda_equal(values, x: np.ndarray, expected: np.ndarray, tmp_path, atol=1e-12):
    """``values`` (:func:`~dgraph.codegen.tensor.c_values.c_values`) at ``x`` equal to
    ``expected`` to ``atol`` in C and, where a C++ compiler is, in CUDA on the host; nvcc,
    where installed, compiles the CUDA text's device code to machine code (not run here;
    ``-cubin``, two thirds of ``-c``'s CPU time: the host launcher, the same printer's for
    every program, is compiled by tests/test_codegen_c_values.py's every-kind test)."""
    np.testing.assert_allclose(values.load()(x).data, expected, rtol=0, atol=atol)
    if cxx_compiler() is not None:
        got = values.load_cuda_host()(x).data
        np.testing.assert_allclose(got, expected, rtol=0, atol=atol)
    if shutil.which("nvcc") is not None:
        source = tmp_path / "values.cu"
        source.write_text(values.cuda)
        command = ["nvcc", "-arch=sm_80", "-cubin", "-o", str(tmp_path / "values.cubin")]
        done = subprocess.run([*command, str(source)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
