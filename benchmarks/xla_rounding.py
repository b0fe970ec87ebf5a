"""Where XLA's values on the CPU differ from NumPy's, bit for bit (prefold31: which
equations on constants the reader may fold by NumPy as JAX computes them).

    PYTHONPATH=. python benchmarks/xla_rounding.py

100,000 random doubles (and floats), seed 0: jitted ``a * b + c`` (XLA contracts it into
a fused multiply-add), ``a / 3.0 + c`` (a division by a constant as a product with its
reciprocal), and each elementary function jitted, against NumPy; then, seed 1, a
division alone by a constant and by an argument, and ``a * b - b * b``; and whether a
jitted program keeps a subnormal (``1e-310 > 0``). Prints the number of values that
differ.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)


def main() -> None:
    rng = np.random.default_rng(0)
    for dt in (np.float64, np.float32):
        a, b, c = (rng.standard_normal(100000).astype(dt) for _ in range(3))
        fused = np.asarray(jax.jit(lambda a, b, c: a * b + c)(a, b, c))
        print(dt.__name__, "a*b+c", int((fused != a * b + c).sum()))
        third = np.asarray(jax.jit(lambda a, c: a / 3.0 + c)(a, c))
        print(dt.__name__, "a/3+c", int((third != a / dt(3.0) + c).sum()))
        for f in ("sin", "cos", "exp", "log", "tanh", "log1p", "expm1", "sqrt", "tan"):
            x = np.abs(a) * 3 if f in ("log", "sqrt") else a * 3
            jitted = np.asarray(jax.jit(getattr(jnp, f))(x))
            eager = np.asarray(getattr(jnp, f)(x))
            mine = getattr(np, f)(x)
            print(
                dt.__name__,
                f,
                int((jitted != mine).sum()),
                "eager/jit",
                int((eager != jitted).sum()),
            )
    rng = np.random.default_rng(1)
    a = rng.standard_normal(100000)
    print("a/3", int((np.asarray(jax.jit(lambda a: a / 3.0)(a)) != a / 3.0).sum()))
    print("a/b", int((np.asarray(jax.jit(lambda a, b: a / b)(a, a + 2)) != a / (a + 2)).sum()))
    both = np.asarray(jax.jit(lambda a, b: a * b - b * b)(a, a + 2))
    print("a*b-b*b", int((both != a * (a + 2) - (a + 2) * (a + 2)).sum()))
    print("1e-310 > 0 jitted:", bool(jax.jit(lambda x: x > 0)(np.float64(1e-310))))


if __name__ == "__main__":
    main()
