"""A ``cond`` / ``switch`` inside a loop's body through the generated Hessian modes: one
row per program (tests/test_cond_in_loop.py's, and real_programs5's thermostat scan with
``weights=``), one column per (mode, lang, sparse), each cell ``ok`` (verified, values
against ``jax.jacfwd(jax.jacfwd(f))`` within 1e-10 at the point made and at a point
taking the other branches), ``refused`` (a DGraphError, its message printed below), or
``WRONG``. Run on two checkouts (``PYTHONPATH``) to read before → after.

    python benchmarks/cond_in_loop.py [--langs=python,jax,c] [NAME ...]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import test_cond_in_loop as cases  # noqa: E402

import dgraph  # noqa: E402
from dgraph.errors import DGraphError  # noqa: E402

lax = jax.lax
MODES = (
    ("hessian", False),
    ("hessian", True),
    ("hvp", False),
    ("value_gradient_hessian", True),
)


def thermostat(u):
    """real_programs5.scan_cond_body (a hysteresis scan choosing cool or heat by a cond
    on its carry), its temperatures summed with weights 1, 2, …: a scalar objective."""

    def step(c, ui):
        c = lax.cond(c > 0.5, lambda c: 0.8 * c - 0.1 * ui**2, lambda c: c + 0.3 * jnp.tanh(ui), c)
        return c, c

    _, T = lax.scan(step, 0.0, u)
    return jnp.sum(T * jnp.arange(1.0, T.size + 1))


PROGRAMS = {
    "fori_cond": cases.fori_cond,
    "scan_carry_cond": cases.scan_carry_cond,
    "while_fixed": cases.while_fixed,
    "while_trips": cases.while_trips,
    "switch_fori": cases.switch_fori,
    "cond_cond_fori": cases.cond_cond_fori,
    "loop_in_loop": cases.loop_in_loop,
    "scan_switch_cond": cases.scan_switch_cond,
    "thermostat": thermostat,
}


def cell(f, mode: str, lang: str, sparse: bool) -> tuple[str, str]:
    x, other = cases.X, cases.POINTS[1]
    try:
        fn = dgraph.make_function(f, mode, point=(x,), lang=lang, sparse=sparse)
    except DGraphError as e:
        return "refused", str(e).splitlines()[0][:160]
    for p in (x, other):
        H = cases._reference(f, p)
        if mode == "hvp":
            got, H = np.asarray(fn(p, cases.T)), H @ cases.T
        elif mode == "hessian":
            got = cases._dense(fn(p))
        else:
            got = cases._dense(fn(p)[2])
        if not np.allclose(got.reshape(H.shape), H, rtol=1e-10, atol=1e-10):
            return "WRONG", f"{np.abs(got.reshape(H.shape) - H).max():.1e}"
    return ("ok" if fn.generated.verified is True else "unverified"), ""


def main(argv: list[str]) -> None:
    langs = ["python", "jax", "c"]
    names = []
    for a in argv:
        if a.startswith("--langs="):
            langs = a.split("=", 1)[1].split(",")
        else:
            names.append(a)
    columns = [(m, lang, s) for lang in langs for m, s in MODES]
    print(f"dgraph from {Path(dgraph.__file__).parent}")
    print("| program | " + " | ".join(f"{m}{' sp' if s else ''} {lang}" for m, lang, s in columns))
    print("|---" * (len(columns) + 1) + "|")
    notes, totals = [], {}
    start = time.process_time()
    for name in names or PROGRAMS:
        row = []
        for m, lang, s in columns:
            status, note = cell(PROGRAMS[name], m, lang, s)
            totals[status] = totals.get(status, 0) + 1
            row.append(status)
            if note:
                notes.append(f"{name} {m} {lang}{' sparse' if s else ''}: {note}")
        print(f"| {name} | " + " | ".join(row) + " |", flush=True)
    print("totals:", ", ".join(f"{k} {v}" for k, v in sorted(totals.items())))
    print(f"{time.process_time() - start:.0f} CPU-s")
    for n in sorted(set(notes)):
        print("  " + n)


if __name__ == "__main__":
    main(sys.argv[1:])
