"""A set of one entry per loop step, ``K[e, e + 1] = sin(u[e]) * u[e + 1]`` into an n×n
array (tests/test_hessian_numpy.py): the sparse Hessian's build CPU-s and the operation
counts of the gradient graph's NumPy module (comparisons, entries gathered through index
arrays of the result's size or more).

Usage: ``python benchmarks/set_entries.py 20 40 80``
"""

from __future__ import annotations

import sys
import time

import jax
import numpy as np

import dgraph
from dgraph.codegen import ir
from dgraph.codegen.tensor.module import tensor_program
from dgraph.codegen.tensor.primal import jax_primal
from dgraph.frontends import from_function
from dgraph.frontends.jax_hessian import gradient_graph
from dgraph.methods import accumulate

_COMPARE = ("<", "<=", "==", ">", ">=", "!=")


def _loop(n: int):
    def f(u):
        K = np.zeros((n, n))
        for e in range(n - 1):
            K[e, e + 1] = np.sin(u[e]) * u[e + 1]
        return u @ K @ u

    return f


def _size(program, node) -> int:
    return int(np.prod(program.constant_shapes.get(getattr(node, "id", None), (0,))))


def main(sizes: list[int]) -> None:
    for n in sizes:
        f, x = _loop(n), np.cos(np.linspace(0.0, 3.0, n))
        start = time.process_time()
        h = dgraph.hessian(f, x, sparse=True)
        build = time.process_time() - start
        H = h(x)
        with jax.enable_x64(True):
            grad = gradient_graph(jax_primal(from_function(f, sizes=[(n,)], level="array")), x)
        program = tensor_program(accumulate(grad, "forward"), "python", sparse=True)
        nodes = [node for s in program.statements for node in ir.walk(s.value)]
        compares = sum(isinstance(v, ir.BinOp) and v.op in _COMPARE for v in nodes)
        gathered = sum(
            max((_size(program, i) for i in v.items), default=0)
            for v in nodes
            if isinstance(v, ir.Index)
        )
        print(
            f"n={n} build_cpu_s={build:.2f} statements={len(program.statements)} "
            f"nodes={len(nodes)} compares={compares} gathered_entries={gathered} "
            f"text_chars={len(program.text)} H_sum={H.sum():.17g} nnz={H.nnz}",
            flush=True,
        )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [20, 40, 80])
