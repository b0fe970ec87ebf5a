"""Programs with infinities among their values (masked logits, ``-inf`` padding, ``±inf``
cut points): the Jacobian's and the Hessian's error against JAX and whether the
generated code is verified, for the survey programs that hold ``-inf``
(real_programs3/5/6/9) and the masked ``logsumexp`` / softmax / ``logaddexp`` patterns.

    cd benchmarks && python infinite_logits.py [NAME ...]

Each row: ``make_function(f, "jacobian")`` and ``dgraph.hessian(f, x)`` (a scalar program)
at the survey's small size, the largest error relative to JAX's largest entry, and the
verification status (``verified`` / ``not verified``), or the one-line refusal.
"""

from __future__ import annotations

import importlib
import sys
import time
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

import dgraph

jax.config.update("jax_enable_x64", True)
warnings.filterwarnings("ignore")

SURVEY = {  # name -> (module, program)
    "transformer_block": ("real_programs3", "transformer_block"),
    "cnn_pooling": ("real_programs5", "cnn_pooling"),
    "argmax_margin_select": ("real_programs6", "argmax_margin_select"),
    "log_returns_nan_to_num": ("real_programs6", "log_returns_nan_to_num"),
    "sm_ordered_logit": ("real_programs9", "sm_ordered_logit"),
}
X = np.linspace(0.1, 1.0, 6)
MASK = np.array([1, 0, 1, 1, 0, 1], bool)


def _masked(x):
    return jnp.where(MASK, x, -jnp.inf)


PATTERNS: dict[str, Callable] = {
    "logaddexp_minus_inf": lambda x: jnp.sum(jnp.logaddexp(x, -jnp.inf) ** 2),
    "logaddexp_masked": lambda x: jnp.sum(jnp.sin(jnp.logaddexp(x, _masked(x)))),
    "logsumexp_masked": lambda x: jax.scipy.special.logsumexp(_masked(x)) ** 2,
    "softmax_masked": lambda x: jnp.sum(jnp.sin(jax.nn.softmax(_masked(x))) * np.arange(6.0)),
    "log_softmax_masked": lambda x: jnp.sum(
        jnp.where(MASK, jax.nn.log_softmax(_masked(x)), 0.0) ** 2
    ),
}


def _case(name: str):
    if name in PATTERNS:
        f = PATTERNS[name]
        return f, (X,), True, f
    module, program = SURVEY[name]
    builders = importlib.import_module(module).PROGRAMS
    builder, small, _ = builders[program]
    return builder(small)


def _status(made) -> str:
    return "verified" if made.generated.verified else "not verified"


def _error(found, want) -> float:
    found, want = np.asarray(found, dtype=float), np.asarray(want, dtype=float)
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1e-300)
    return float(np.max(np.abs(found.reshape(want.shape) - want), initial=0.0)) / scale


def row(name: str) -> str:
    f, xs, scalar, ref = _case(name)
    cells = []
    for mode in ("jacobian", "hessian"):
        if mode == "hessian" and (not scalar or len(xs) > 1):
            cells.append("-")
            continue
        try:
            if mode == "jacobian":
                made = dgraph.make_function(f, "jacobian", point=list(xs))
                want = jax.jacfwd(ref)(*map(jnp.asarray, xs))
            else:
                made = dgraph.hessian(f, *xs)
                want = jax.hessian(ref)(jnp.asarray(xs[0]))
            found = made(*xs)
            cells.append(f"{_error(found, want):.1e} {_status(made)}")
        except Exception as e:  # the table records every refusal
            cells.append(f"refused: {str(e).splitlines()[0][:70]}")
    return f"| {name} | {cells[0]} | {cells[1]} |"


def main(argv: list[str]) -> None:
    names = argv or [*SURVEY, *PATTERNS]
    print("| program | jacobian (error, status) | hessian (error, status) | CPU-s |")
    print("|---|---|---|---|")
    for name in names:
        start = time.process_time()
        line = row(name)
        print(f"{line[:-2]} | {time.process_time() - start:.1f} CPU-s |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
