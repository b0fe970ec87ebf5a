"""Seconds of default ``dgraph codegen`` (issue 28, item 4), before and after, in one run.

    python benchmarks/codegen_seconds.py [--before DIR] [--links 2,3,4,6]

Inputs: the Roe flux (``dgraph.bench.realworld.roe_flux``) and the explicit equations of
motion of n-link pendulums from ``sympy.physics.mechanics`` (KanesMethod,
``M.LUsolve(F)`` of ``mass_matrix_full`` and ``forcing_full``; lengths 1 + 0.1 k, masses
1 + 0.2 k, g = 9.81 substituted, the dynamicsymbols replaced by plain symbols), written as
dgraph JSON. Each is given to ``python -m dgraph codegen FILE -o jac.py --json`` in a fresh
process (import included): with this checkout, and with the package at ``--before`` (e.g.
``git worktree add /tmp/before dd50ee1``) when given, alternately, so both see the same
load. Reported: wall and CPU seconds (user + system) of the process, and the method and
the multiplications, additions and divisions of the shipped ``jacobian``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import sympy
from sympy.physics import mechanics as me

from dgraph.bench.realworld import roe_flux
from dgraph.frontends import from_sympy

HERE = Path(__file__).resolve().parent.parent


def pendulum(n: int):
    """The n-link planar pendulum's (q', u') = f(q, u), numeric parameters."""
    q, u = me.dynamicsymbols(f"q1:{n + 1}"), me.dynamicsymbols(f"u1:{n + 1}")
    frame, origin = me.ReferenceFrame("N"), me.Point("O")
    origin.set_vel(frame, 0)
    particles, forces, kinematics, point = [], [], [], origin
    for k in range(n):
        link = frame.orientnew(f"A{k}", "Axis", [q[k], frame.z])
        link.set_ang_vel(frame, u[k] * frame.z)
        bob = point.locatenew(f"P{k}", (1.0 + 0.1 * k) * link.x)
        bob.v2pt_theory(point, frame, link)
        mass = 1.0 + 0.2 * k
        particles.append(me.Particle(f"B{k}", bob, mass))
        forces.append((bob, -mass * 9.81 * frame.y))
        kinematics.append(q[k].diff() - u[k])
        point = bob
    kane = me.KanesMethod(frame, q_ind=q, u_ind=u, kd_eqs=kinematics)
    kane.kanes_equations(particles, forces)
    rhs = kane.mass_matrix_full.LUsolve(kane.forcing_full)
    plain = sympy.symbols(f"q1:{n + 1}") + sympy.symbols(f"u1:{n + 1}")
    rename = dict(zip(list(q) + list(u), plain, strict=True))
    return from_sympy([e.xreplace(rename) for e in rhs], list(plain), name=f"pendulum-{n}")


def run(package: Path, graph_file: Path, out: Path) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "dgraph", "codegen", str(graph_file), "-o", str(out), "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(package)},
        cwd=graph_file.parent,  # python -m puts the working directory first on the path
        check=True,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    data = json.loads(done.stdout.splitlines()[0])
    return {"wall": wall, "cpu": cpu, **{k: data[k] for k in ("method", "mults", "adds", "divs")}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="a checkout of the former dgraph")
    parser.add_argument("--links", default="2,3,4,6")
    args = parser.parse_args()
    builds = {"roe-flux": roe_flux}
    builds |= {f"pendulum-{n}": lambda n=n: pendulum(n) for n in map(int, args.links.split(","))}
    versions = {"now": HERE} | ({"before": args.before} if args.before else {})
    print(
        "| function | "
        + " | ".join(f"{v}: method, mults/adds/divs, wall s, CPU s" for v in versions)
        + " |"
    )
    print("|---|" + "---|" * len(versions))
    with tempfile.TemporaryDirectory() as tmp:
        for name, build in builds.items():
            graph_file = Path(tmp, f"{name}.json")
            graph_file.write_text(build().to_json())
            cells = []
            for version, package in versions.items():
                r = run(package, graph_file, Path(tmp, f"{name}-{version}.py"))
                counts = f"{r['mults']}/{r['adds']}/{r['divs']}"
                cells.append(f"{r['method']}, {counts}, {r['wall']:.1f}, {r['cpu']:.1f}")
            print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
