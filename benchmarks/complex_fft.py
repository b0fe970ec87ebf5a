"""Complex intermediates and ``fft`` read as pairs of real arrays
(dgraph/frontends/jaxpr_complex.py): CPU seconds to make the Jacobian of a power spectrum
``|rfft(x)|²/n`` and the Hessian of a spectral loss (real_programs6's
``fft_power_spectrum``), and their largest error against ``jax.jacobian`` /
``jax.hessian``, at each n given (median of ``--repeats`` builds). ``--numpy``: the same
two programs written with NumPy (``np.abs(np.fft.rfft(x))**2``), read by the NumPy tracer
(dgraph/frontends/array_complex.py), against the same JAX references.

    python benchmarks/complex_fft.py 64 256 1024 --repeats=3 [--numpy]
"""

from __future__ import annotations

import statistics
import sys
import time
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

import dgraph

jax.config.update("jax_enable_x64", True)


def spectrum(x):
    return jnp.abs(jnp.fft.rfft(x)) ** 2 / x.shape[0]


def loss(x):
    n = x.shape[0]
    target = jnp.linspace(0.5, 1.5, n // 2 + 1)
    return jnp.sum((jnp.log(spectrum(x) + 1e-2) - jnp.log(target)) ** 2)


def np_spectrum(x):
    return np.abs(np.fft.rfft(x)) ** 2 / x.shape[0]


def np_loss(x):
    n = x.shape[0]
    target = np.linspace(0.5, 1.5, n // 2 + 1)
    return np.sum((np.log(np_spectrum(x) + 1e-2) - np.log(target)) ** 2)


def _timed(make, repeats: int) -> tuple[float, object]:
    seconds, made = [], None
    for _ in range(repeats):
        start = time.process_time()
        made = make()
        seconds.append(time.process_time() - start)
    return statistics.median(seconds), made


def main(argv: list[str]) -> None:
    repeats = next((int(a.split("=")[1]) for a in argv if a.startswith("--repeats=")), 3)
    sizes = [int(a) for a in argv if not a.startswith("--")] or [64, 256, 1024]
    read = (np_spectrum, np_loss) if "--numpy" in argv else (spectrum, loss)
    print(f"{'n':>6} {'jacobian CPU-s':>15} {'error':>8} {'hessian CPU-s':>14} {'error':>8}")
    for n in sizes:
        x = np.random.default_rng(0).uniform(-1.0, 1.0, n)
        tj, J = _timed(partial(dgraph.make_function, read[0], "jacobian", point=(x,)), repeats)
        ej = np.abs(np.asarray(J(x)) - np.asarray(jax.jacobian(spectrum)(x))).max()
        th, H = _timed(partial(dgraph.make_function, read[1], "hessian", point=(x,)), repeats)
        eh = np.abs(np.asarray(H(x)) - np.asarray(jax.hessian(loss)(x))).max()
        print(f"{n:>6} {tj:>15.2f} {ej:>8.1e} {th:>14.2f} {eh:>8.1e}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
