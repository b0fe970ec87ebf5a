"""The md5 of the generated text of a handful of programs (tests/test_cond_in_loop.py's
loops with conds, and the Rosenbrock function), to compare two checkouts' code:

    PYTHONPATH=. python benchmarks/generated_md5.py
    PYTHONPATH=/work/main python benchmarks/generated_md5.py   # run from this checkout
"""

import hashlib
import sys
from pathlib import Path

import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import test_cond_in_loop as cases  # noqa: E402

import dgraph  # noqa: E402


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


X = cases.X
jobs = [
    ("scan_switch_cond hessian c sparse", cases.scan_switch_cond, "hessian", "c", True),
    ("scan_switch_cond hvp python", cases.scan_switch_cond, "hvp", "python", False),
    ("cond_cond_fori hessian python", cases.cond_cond_fori, "hessian", "python", False),
    ("loop_in_loop hessian jax", cases.loop_in_loop, "hessian", "jax", False),
    (
        "while_trips value_gradient_hessian python",
        cases.while_trips,
        "value_gradient_hessian",
        "python",
        True,
    ),
    ("rosenbrock hessian python", rosenbrock, "hessian", "python", False),
    ("rosenbrock jacobian c", rosenbrock, "jacobian", "c", False),
]
for name, f, mode, lang, sparse in jobs:
    fn = dgraph.make_function(f, mode, point=(X,), lang=lang, sparse=sparse)
    g = fn.generated
    text = g.text
    print(f"{hashlib.md5(text.encode()).hexdigest()} {len(text):7d} {name}")
