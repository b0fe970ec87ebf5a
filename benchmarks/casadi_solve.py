"""CasADi on the mass-matrix form: is ``kane.rhs()`` CasADi's best route for pendulums?

    python benchmarks/casadi_solve.py [--links 2,3,4]

For each n-link pendulum (dgraph.bench.pendulum): CasADi SX given the same linear system
dgraph's ``--system`` route reads (the residual graph of ``from_linear_system``, traced into
SX, M = -dr/ds and F = r(x, 0) by CasADi itself), solved with ``casadi.solve(M, F)`` and
differentiated with ``jacobian`` (cse on), against CasADi's ``jacobian`` of ``kane.rhs()``
(what benchmarks/pendulums.py compares with); operations counted by
dgraph.codegen.counting.casadi_ops. Prints a Markdown table.
"""

from __future__ import annotations

import argparse

import casadi as ca

from dgraph.bench.pendulum import n_link_pendulum
from dgraph.codegen.compare import _trace, casadi_jacobian
from dgraph.codegen.counting import Ops, casadi_ops
from dgraph.frontends import from_linear_system, from_sympy

FUNCTIONS = {name: getattr(ca, name) for name in ("sin", "cos", "exp", "log", "sqrt")}


def solve_route(n: int) -> Ops:
    p = n_link_pendulum(n)
    graph = from_linear_system(
        p.kane.mass_matrix_full, p.kane.forcing_full, p.states, params=p.params
    )
    free = [q for q in graph.parameters if q not in graph.solved]
    x = ca.SX.sym("x", len(graph.inputs))
    k = ca.SX.sym("p", len(free))
    s = ca.SX.sym("s", len(graph.solved))
    symbols = {q: k[i] for i, q in enumerate(free)} | {q: s[i] for i, q in enumerate(graph.solved)}
    inputs = [x[i] for i in range(len(graph.inputs))]
    r = ca.vertcat(
        *_trace(graph, inputs, [FUNCTIONS, "math"], [symbols[q] for q in graph.parameters])
    )
    mass = -ca.jacobian(r, s)
    forcing = ca.substitute(r, s, ca.DM.zeros(len(graph.solved)))
    jacobian = ca.densify(ca.jacobian(ca.solve(mass, forcing), x))
    return casadi_ops(ca.Function("jacobian", [x, k], [jacobian], {"cse": True}))


def rhs_route(n: int) -> Ops:
    p = n_link_pendulum(n)
    baseline = casadi_jacobian(from_sympy(p.rhs, p.states, params=p.params))
    assert baseline is not None
    return baseline.ops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", default="2,3,4")
    args = parser.parse_args()
    print("| n | CasADi SX, jacobian of kane.rhs() | CasADi SX, jacobian of solve(M, F) |")
    print("|---|---|---|")
    for n in (int(t) for t in args.links.split(",")):
        rhs, solved = rhs_route(n), solve_route(n)
        cells = [f"{o.mults} / {o.adds} / {o.divs}" for o in (rhs, solved)]
        print(f"| {n} | {cells[0]} | {cells[1]} |", flush=True)


if __name__ == "__main__":
    main()
