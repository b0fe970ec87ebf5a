"""Session 53 (rev53): the per-call CPU time of a take-dominated vjp, whose cotangent a
take lands (0 by structure off the entries taken) runs through five products to the
input: ``sum(take_along_axis(sqrt(clip(z, 0) + 1) * exp(-z), argmax(z, 1))**2)`` at z of
n x 5 (finite everywhere). Session 52 put a ``where`` on each product of the chain;
session 53 one where something other than a product or a move reads it. Run with
PYTHONPATH set to the tree to time (three trees alternated for the figures); prints the
build's CPU seconds, the median of 7 windows of 0.2 CPU-s of calls, whether the code
verified and its count of ``where`` (of ``?`` in C); a second argument names the
printer (``python``, ``c``, ``jax``: one call first, JAX's compilation), ``text`` as a
third prints the code.

    PYTHONPATH=. python benchmarks/take_chain53.py 3000 [python|c|jax] [text]
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np

import dgraph


def taken_rows(z: np.ndarray) -> np.ndarray:
    """Each row's product at its largest entry, squared and summed."""
    r = np.sqrt(np.clip(z, 0, None) + 1.0) * np.exp(-z)
    k = np.clip(np.argmax(z, axis=1), 0, 4)
    return np.sum(np.take_along_axis(r, k[:, None], axis=1) ** 2)


def main(n: int, lang: str, show: bool) -> None:
    warnings.simplefilter("ignore")
    z = np.random.default_rng(0).normal(size=(n, 5))
    start = time.process_time()
    made = dgraph.make_function(taken_rows, "vjp", lang, point=[z])
    built = time.process_time() - start
    made(z, 1.0)
    calls = []
    for _ in range(7):
        start, k = time.process_time(), 0
        while time.process_time() - start < 0.2:
            made(z, 1.0)
            k += 1
        calls.append((time.process_time() - start) / k)
    text = made.generated.text
    guards = text.count("?") if lang == "c" else text.count("where(")
    print(
        f"n={n} {lang} make {built:.2f} CPU-s call {np.median(calls) * 1e6:.1f} us"
        f" verified {made.generated.verified} wheres {guards}"
    )
    if show:
        print(text)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "python", len(sys.argv) > 3)
