"""JAX MD's energies, their forces and Hessians through dgraph, unmodified.

``python jaxmd_survey.py DIR [NAME,...] [--cases c1,c2] [--n 8] [--d 2]`` where ``DIR``
holds ``jax_md`` and the packages it imports at module level (``pip install --no-deps
--target DIR jax-md flax ml_collections jraph e3nn-jax msgpack rich treescope optax``);
nothing of it is copied here. ``python jaxmd_survey.py table OUT...`` counts the outcomes;
``python jaxmd_survey.py DIR NAME --scale 8,64,512`` times one energy's cases over sizes.

Each energy (``jax_md.energy``'s pair potentials on ``space.free()`` and
``space.periodic(L)``, a bonded spring, Stillinger-Weber, Tersoff, Gupta, EAM) is the total
energy ``E(R)`` of ``N`` particles in ``d`` dimensions, taken at two configurations of
``R``: ``rand``, a square (cubic) lattice jittered by U(-0.1, 0.1) spacings (seed 0, no
two particles closer than 0.8 spacings), and ``cut``, the same with particle 1 moved to
exactly ``r_cutoff`` from particle 0 along the first axis (the potential's kink, where
JAX takes one side: dgraph must give JAX's value or say "not verified"). Cases:

- ``grad``: ``dgraph.make_function(E, "jacobian", point=[R])`` against ``jax.jacfwd(E)``
  (``jax.grad`` is NaN wherever its reverse sweep meets ``0 · inf``),
- ``force``: ``make_function(quantity.force(E), "jacobian")`` against
  ``jax.jacfwd(quantity.force(E))`` (the negative Hessian, from JAX's own gradient),
- ``hess`` / ``hess-sp``: ``make_function(E, "hessian", sparse=...)`` against
  ``jax.hessian(E)``; ``hess-sp`` also gives the pattern's entries against the entries
  nonzero in JAX's Hessian at the point (``pat`` dgraph's / JAX's).

Outcomes as in ``optimistix_survey.py``: ``ok`` right and verified, ``NOTVER`` right and
not verified, ``WRONG`` above ``TOL`` of the largest |reference| (at least 1),
``REFUSED`` a one-line ``DGraphError``, ``ERROR`` anything else, ``SLOW`` over ``LIMIT``
CPU-s (SIGPROF).
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
import time
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)
from harness import log_slope, survey_case, survey_table  # noqa: E402

import dgraph  # noqa: E402

warnings.simplefilter("ignore")
TOL = 1e-8
LIMIT = 60.0
CASES = ["grad", "force", "hess", "hess-sp"]

#: Tersoff's silicon, Tersoff (1988) Phys. Rev. B 38, 9902, in LAMMPS's 17 columns.
#: over two lines (``load_lammps_tersoff_parameters`` fails on a line of all 17)
SI_TERSOFF = (
    "Si Si Si 3.0 1.0 0.0 1.0039e5 16.217 -0.59825 0.78734\n"
    "1.1000e-6 1.7322 471.18 2.85 0.15 2.4799 1830.8\n"
)


def lattice(n: int, d: int, spacing: float, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """``n`` points of a jittered square (cubic) lattice and its periodic box side."""
    k = math.ceil(n ** (1 / d) - 1e-9)
    grid = np.stack(np.meshgrid(*[np.arange(k)] * d, indexing="ij"), -1).reshape(-1, d)[:n]
    R = (grid + 0.5 + rng.uniform(-0.1, 0.1, (n, d))) * spacing
    return R, k * spacing


def energies(md: object) -> dict[str, tuple[Callable, float, float]]:
    """``name -> (build(displacement, n, d) -> E, lattice spacing, r_cutoff)``."""
    energy, space = md.energy, md.space
    two = np.arange(64) % 2

    def bks(disp, n, d):
        m = lambda a, b, c: jnp.array([[a, b], [b, c]])  # noqa: E731
        return energy.bks_pair(  # a metric: bks_pair does not canonicalize a displacement
            space.metric(disp), two[:n], m(5.76, -2.88, 1.44), m(0.0, 18003.7572, 1388.7730),
            m(1.0, 1 / 4.87318, 1 / 2.76), m(0.0, -133.5381, -175.0),
            m(0.0, 1.0, 1.0), 0.2, 5.5,
        )  # fmt: skip

    def tersoff(disp, n, d):
        import io

        return energy.tersoff(disp, energy.load_lammps_tersoff_parameters(io.StringIO(SI_TERSOFF)))

    def spring(disp, n, d):
        bonds = np.stack([np.arange(n - 1), np.arange(1, n)], 1)
        return energy.simple_spring_bond(disp, jnp.asarray(bonds), length=1.0)

    def eam(disp, n, d):
        return energy.eam(
            disp, lambda r: jnp.exp(-2 * r), lambda rho: -jnp.sqrt(rho),
            lambda r: jnp.exp(-3 * (r - 1)),
        )  # fmt: skip

    return {
        "soft_sphere": (lambda disp, n, d: energy.soft_sphere_pair(disp), 0.9, 1.0),
        "lennard_jones": (lambda disp, n, d: energy.lennard_jones_pair(disp), 1.1, 2.5),
        "morse": (lambda disp, n, d: energy.morse_pair(disp), 1.1, 2.5),
        "spring": (spring, 1.0, math.inf),
        "bks": (bks, 1.6, 5.5),
        "stillinger_weber": (lambda disp, n, d: energy.stillinger_weber(disp), 2.35, 3.77118),
        "tersoff": (tersoff, 2.35, 3.0),
        "gupta": (lambda disp, n, d: energy.gupta_gold55(disp), 2.9, 8.0),
        "eam": (eam, 1.0, math.inf),
    }


def spaces(md: object, box: float) -> dict[str, Callable]:
    return {"free": md.space.free()[0], "periodic": md.space.periodic(box)[0]}


def configuration(spacing: float, cutoff: float, n: int, d: int, where: str) -> tuple:
    R, box = lattice(n, d, spacing, np.random.default_rng(0))
    if where == "cut" and math.isfinite(cutoff):
        box = max(box, 2 * (cutoff + spacing))  # the pair's own image beyond the cutoff
        R[1] = R[0]
        R[1, 0] = R[0, 0] + cutoff
    return R, box


def dense(a: object) -> np.ndarray:
    return a.toarray() if hasattr(a, "toarray") else np.asarray(a, dtype=float)


def compare(ours: np.ndarray, ref: np.ndarray) -> tuple[str, float, str]:
    """``ok``/``WRONG``, the error relative to the largest finite |reference| (at least
    1), and a note where both are NaN at the same entries (JAX's NaN kept, as a
    degenerate configuration gives it)."""
    ours, ref = np.asarray(ours, dtype=float).ravel(), np.asarray(ref, dtype=float).ravel()
    if ours.size != ref.size:
        return "WRONG-SIZE", math.inf, ""
    both = np.isnan(ours) & np.isnan(ref)
    ours, ref = ours[~both], ref[~both]
    scale = max(1.0, float(np.abs(ref[np.isfinite(ref)]).max(initial=0.0)))
    diff = np.abs(ours - ref)
    err = float(diff.max(initial=0.0) / scale) if np.isfinite(ours).all() else math.inf
    note = f" NaN-as-JAX {int(both.sum())}" if both.any() else ""
    return ("ok" if err <= TOL else "WRONG"), err, note


def case(md: object, E: Callable, R: np.ndarray, kind: str) -> str:
    R = jnp.asarray(R)
    extra = ""
    if kind == "grad":
        made = dgraph.make_function(E, "jacobian", point=[R])
        value, ref = made(R), jax.jacfwd(E)(R)  # forward: no reverse sweep's 0 · inf
    elif kind == "force":
        F = md.quantity.force(E)
        made = dgraph.make_function(F, "jacobian", point=[R])
        value, ref = made(R), jax.jacfwd(F)(R)
    else:
        sparse = kind == "hess-sp"
        made = dgraph.make_function(E, "hessian", point=[R], sparse=sparse)
        value, ref = made(R), np.asarray(jax.hessian(E)(R)).reshape(R.size, R.size)
        if sparse:
            extra = f" pat {value.nnz}/{np.count_nonzero(ref)}"
        value = dense(value)
    verdict, err, note = compare(value, ref)
    extra += note
    verified = getattr(made.generated, "verified", "?")
    if verdict == "ok" and verified is not True:
        verdict = "NOTVER"
    why = "" if verified is True else " | " + str(made.generated.check.status)[:160]
    return f"{verdict} err {err:.1e} verified={verified}{extra}{why}"


def run(md: object, name: str, n: int, d: int, cases: list[str]) -> None:
    build, spacing, cutoff = energies(md)[name]
    for where in ("rand", "cut"):
        if where == "cut" and not math.isfinite(cutoff):
            continue
        R, box = configuration(spacing, cutoff, n, d, where)
        for space_name, disp in spaces(md, box).items():
            E = build(disp, n, d)
            label = f"{name}/{space_name}/N{n}d{d}"
            for kind in cases:
                msg, cpu = survey_case(functools.partial(case, md, E, R, kind), LIMIT)
                print(f"{label:36s} {where:4s} {kind:8s} {cpu:6.2f}s {msg}", flush=True)


def scale(md: object, name: str, space_name: str, sizes: list[int], cases: list[str]) -> None:
    """CPU seconds of each case over ``sizes`` (d = 2, ``rand``) and their exponent."""
    build, spacing, cutoff = energies(md)[name]
    for kind in cases:
        seconds = []
        for n in sizes:
            R, box = configuration(spacing, cutoff, n, 2, "rand")
            E = build(spaces(md, box)[space_name], n, 2)
            t0 = time.process_time()
            msg, cpu = survey_case(functools.partial(case, md, E, R, kind), LIMIT)
            seconds.append(time.process_time() - t0)
            print(f"{name}/{space_name} N={n:4d} {kind:8s} {cpu:6.2f}s {msg[:120]}", flush=True)
        done = [(n, s) for n, s in zip(sizes, seconds, strict=True)]
        print(f"{kind}: exponent {log_slope(*zip(*done, strict=True)):.2f} over N", flush=True)


def table(paths: list[str]) -> None:
    """:func:`harness.survey_table` of the logs at ``paths``, by energy."""
    survey_table(paths, CASES, "energies")


def main() -> None:
    if sys.argv[1:2] == ["table"]:
        table(sys.argv[2:])
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("names", nargs="?", default="")
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--n", type=int, default=8)
    parser.add_argument("--d", type=int, default=2)
    parser.add_argument("--scale", default="", help="sizes N, e.g. 8,64,512 (d = 2)")
    parser.add_argument("--space", default="periodic")
    args = parser.parse_args()
    sys.path.insert(0, args.folder)
    import jax_md  # from the folder given

    cases = args.cases.split(",")
    if args.scale:
        sizes = [int(s) for s in args.scale.split(",")]
        scale(jax_md, args.names, args.space, sizes, cases)
        return
    for name in energies(jax_md):
        if not args.names or name in args.names.split(","):
            run(jax_md, name, args.n, args.d, cases)


if __name__ == "__main__":
    main()
