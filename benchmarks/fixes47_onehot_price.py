"""Session 47 (fixes47): the dense price at index data. A take ``u[T]`` and a scatter-add
at ``T`` have a union block (n × positions, its values a one-hot); the generated dense
Jacobian and Hessian multiply by it as a gather and a segment sum (session 46), and
the price now counts those as they are printed (0 multiplications, :class:`OneHot`).

``python benchmarks/fixes47_onehot_price.py M`` (an M x M grid mesh, ``T`` int64): for
the P1 energy's dense Hessian and its assembled residual's dense Jacobian, the
method chosen, the price (``mults``), the generated module's own count of scalar
multiplications (``ops``: its leaf values and primal included), the worst error
against the assembled stiffness and whether it is verified.
"""

import sys
import warnings
from pathlib import Path

import numpy as np

import dgraph

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_gather46 import cases, energy, residual, stiffness


def run(m: int) -> None:
    (T, A, G), _ = cases(m)
    u = np.random.default_rng(2).normal(size=m * m)
    for label in ("energy hessian", "residual jacobian"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if label == "energy hessian":
                made = dgraph.hessian(energy, u, T, A, G, params=["A", "G"])
                g = made.gradient.generated
            else:
                made = dgraph.make_function(
                    residual, "jacobian", point=[u, T, A, G], params=["A", "G"]
                )
                g = made.generated
        error = np.abs(np.asarray(made(u, T, A, G)) - stiffness(u, T, A, G)).max()
        ops = g.ops.ops.mults if g.ops is not None else None
        print(
            f"| {m}x{m} | {label} | {g.expression_set.method} | {g.mults:,} | {ops:,} |"
            f" {error:.1e} | {g.verified} |",
            flush=True,
        )


if __name__ == "__main__":
    run(int(sys.argv[1]))
