"""Session 46 (args46): made functions called with the callable's own arguments at both
levels, and boolean masks read at each call.

    python benchmarks/own_arguments.py [--langs python,jax,c] [--reps N]

1. ``g(A, b) = tanh(A @ b)`` and ``g2(A, b) = (tanh(A @ b), sum(A²)·b₀)``, A 3×2, b (2,):
   ``make_function`` at the level its size chooses (the element level) and at the array
   level (``traced_function(..., level="array")``), modes jacobian (dense, sparse), jvp,
   vjp, value_and_jacobian: the largest difference from ``jax.jacfwd(g, argnums=(0, 1))``
   / ``jax.jvp`` / ``jax.vjp`` and whether the two levels return the same pytree (types
   and shapes).
2. ``sum(where(m, x², sin x))`` with ``m`` a boolean array, NumPy and JAX, n = 6 (element
   level) and 600 (array level), modes jacobian (dense, sparse), jvp, vjp, hessian, hvp:
   the largest difference from the closed form at ``m`` and at ``~m``.
3. CPU time of one element-level ``jacobian`` call of ``g``: the own call ``J(A, b)``
   and the flat one ``J(x)``, the median of ``--reps`` runs of 2,000 calls, µs a call.
"""

from __future__ import annotations

import argparse
import sys
import time


def _desc(r):
    if isinstance(r, tuple):
        return "(" + ", ".join(_desc(x) for x in r) + ")"
    return f"{type(r).__name__}{tuple(r.shape)}"


def _dense(x, shape):
    if hasattr(x, "toarray"):
        return x.toarray().reshape(shape)
    if hasattr(x, "todense"):
        import numpy as np

        return np.asarray(x.todense()).reshape(shape)
    return x


def main(argv: list[str]) -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np

    import dgraph
    from dgraph.codegen.tensor.function import TensorGenerated
    from dgraph.methods.registry import traced_function

    jax.config.update("jax_enable_x64", True)
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--langs", default="python,jax,c")
    p.add_argument("--reps", type=int, default=5)
    a = p.parse_args(argv)

    def g(A, b):
        return jnp.tanh(A @ b)

    def g2(A, b):
        return jnp.tanh(A @ b), jnp.sum(A**2) * b[0]

    rng = np.random.default_rng(0)
    A, b = rng.normal(size=(3, 2)), rng.normal(size=2)
    tA, tb = rng.normal(size=A.shape), rng.normal(size=b.shape)
    leaves = jax.tree_util.tree_leaves
    print("1. own arguments: function lang mode sparse | element err, array err, same pytree")
    for f in (g, g2):
        y = f(A, b)
        ws = y if isinstance(y, tuple) else (y,)
        ws = tuple(np.cos(np.arange(np.size(w))).reshape(np.shape(w)) for w in ws)
        J = jax.jacfwd(f, argnums=(0, 1))(A, b)
        wanted = {
            "jacobian": J,
            "value_and_jacobian": (y, J),
            "jvp": jax.jvp(f, (A, b), (tA, tb))[1],
            "vjp": jax.vjp(f, A, b)[1](ws if isinstance(y, tuple) else ws[0]),
        }
        array = traced_function(f, point=[A, b], level="array")
        for lang in a.langs.split(","):
            for mode, sparse in [("jacobian", False), ("jacobian", True), ("jvp", False),
                                 ("vjp", False), ("value_and_jacobian", False)]:  # fmt: skip
                args = {"jvp": (A, b, tA, tb), "vjp": (A, b, *ws)}.get(mode, (A, b))
                errors, found = [], []
                for source in (f, array):
                    point = [A, b] if source is f else None
                    made = dgraph.make_function(source, mode, lang, sparse=sparse, point=point)
                    assert (source is f) != isinstance(made.generated, TensorGenerated)
                    r = made(*args)
                    is_leaf = lambda t: hasattr(t, "todense")  # noqa: E731
                    got = leaves(r, is_leaf=is_leaf)
                    want = leaves(wanted[mode])
                    errors.append(max(float(np.abs(np.asarray(_dense(x, np.shape(w))) - w).max())
                                      for x, w in zip(got, want, strict=True)))  # fmt: skip
                    found.append(_desc(r))
                same = found[0] == found[1]
                print(f"  {f.__name__:3s} {lang:6s} {mode:18s} {sparse!s:5s} | {errors[0]:.1e}"
                      f" {errors[1]:.1e} {same} {found[0]}")  # fmt: skip

    print("2. masks: library n mode sparse | err at m, err at ~m, level")
    for lib in (np, jnp):

        def h(x, m, lib=lib):
            return lib.sum(lib.where(m, x**2, lib.sin(x)))

        for n in (6, 600):
            x = np.linspace(0.1, 1.2, n)
            m = np.arange(n) % 3 == 0
            t = np.cos(np.arange(n))
            for mode, sparse in [("jacobian", False), ("jacobian", True), ("jvp", False),
                                 ("vjp", False), ("hessian", False), ("hessian", True),
                                 ("hvp", False)]:  # fmt: skip
                made = dgraph.make_function(h, mode, point=[x, m], sparse=sparse)
                errors = []
                for mask in (m, ~m):
                    grad = np.where(mask, 2 * x, np.cos(x))
                    H = np.diag(np.where(mask, 2.0, -np.sin(x)))
                    r, want = {
                        "jacobian": lambda: (made(x, mask), grad),  # noqa: B023
                        "jvp": lambda: (made(x, t, mask), grad @ t),  # noqa: B023
                        "vjp": lambda: (made(x, np.ones(()), mask), grad),  # noqa: B023
                        "hessian": lambda: (made(x, mask), H),  # noqa: B023
                        "hvp": lambda: (made(x, mask, t), H @ t),  # noqa: B023
                    }[mode]()
                    r = _dense(r, np.shape(want)) if sparse else r
                    errors.append(float(np.abs(np.ravel(r) - np.ravel(want)).max()))
                level = "array" if isinstance(made.generated, TensorGenerated) else "element"
                print(f"  {lib.__name__:9s} {n:4d} {mode:8s} {sparse!s:5s} | {errors[0]:.1e}"
                      f" {errors[1]:.1e} {level}")  # fmt: skip

    J = dgraph.make_function(g, point=[A, b])
    x = np.r_[A.ravel(), b]
    for name, call in (("own J(A, b)", lambda: J(A, b)), ("flat J(x)", lambda: J(x))):
        runs = []
        for _ in range(a.reps):
            start = time.process_time()
            for _ in range(2000):
                call()
            runs.append((time.process_time() - start) / 2000 * 1e6)
        print(f"3. {name}: {sorted(runs)[len(runs) // 2]:.1f} µs a call (median of {a.reps})")


if __name__ == "__main__":
    main(sys.argv[1:])
