"""The linear MPC of FastDifferentiation.jl's issue #26 at the array level (issue 41).

    python benchmarks/mpc.py [--steps 100] [--nx 40] [--nu 20]

The equality constraints of a linear model-predictive control problem, written with NumPy:
states X (N+1, nx), inputs U (N, nu), initial state x0 (nx,), constant dynamics A (nx, nx)
and B (nx, nu) (seeded: A = I + 0.01·G, B = 0.1·G'), residuals

    r = [X[0] - x0;  X[1:] - X[:-1] Aᵀ - U Bᵀ]        (shape (N+1, nx)).

With x0 among the differentiated inputs the variables number (N+1)·nx + N·nu + nx, 6,080
at N = 100, nx = 40, nu = 20 (the issue's count). Measured, in one run: the array-level
graph (:func:`dgraph.frontends.from_function`, ``level="array"``; its vertex and edge
counts), the three accumulations, ``make_function`` of the sparse Jacobian and of ``jvp``
in NumPy and JAX (each checked before it returns), one call of each, the Jacobian's
nonzeros, ``dgraph codegen … --mode jvp`` as a command, and agreement with a dense
``jax.jacfwd`` (and ``jax.jvp``) of the same function in jax.numpy at that size.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

STEPS, NX, NU = 100, 40, 20


def dynamics(nx: int, nu: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A stable-ish A (nx, nx) and B (nx, nu), seeded."""
    rng = np.random.default_rng(seed)
    return np.eye(nx) + 0.01 * rng.standard_normal((nx, nx)), 0.1 * rng.standard_normal((nx, nu))


def make_residuals(nx: int = NX, nu: int = NU, xp=np, seed: int = 0):
    """The MPC's residuals ``r(X, U, x0)`` in the array module ``xp`` (NumPy or jax.numpy)."""
    A, B = dynamics(nx, nu, seed)

    def residuals(X, U, x0):
        first = X[0] - x0
        rest = X[1:] - X[:-1] @ A.T - U @ B.T
        return xp.concatenate([first[None, :], rest], axis=0)

    return residuals


residuals = make_residuals()  # dgraph codegen benchmarks/mpc.py:residuals --inputs ...


def shapes(steps: int, nx: int, nu: int) -> list[tuple[int, ...]]:
    return [(steps + 1, nx), (steps, nu), (nx,)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--nx", type=int, default=NX)
    parser.add_argument("--nu", type=int, default=NU)
    args = parser.parse_args()
    import jax
    import jax.numpy as jnp

    from dgraph.codegen.function import make_function
    from dgraph.frontends import from_function
    from dgraph.methods import accumulate

    jax.config.update("jax_enable_x64", True)
    n, nx, nu = args.steps, args.nx, args.nu
    sizes = shapes(n, nx, nu)
    variables = sum(int(np.prod(s)) for s in sizes)
    print(
        f"linear MPC: N = {n}, nx = {nx}, nu = {nu}: {variables} variables,"
        f" {(n + 1) * nx} residuals"
    )
    f = make_residuals(nx, nu)
    t = time.perf_counter()
    g = from_function(f, name="mpc", sizes=sizes, level="array")
    print(f"graph: {time.perf_counter() - t:.3f} s, {len(g.nx)} vertices, {g.n_edges} edges")
    for method in ("forward", "reverse", "markowitz"):
        t = time.perf_counter()
        es = accumulate(g, method)
        print(
            f"accumulate {method}: {time.perf_counter() - t:.2f} s, {es.mults} mults,"
            f" verified {es.verified}"
        )
    rng = np.random.default_rng(1)
    point = [rng.standard_normal(s) for s in sizes]
    tangent = [rng.standard_normal(s) for s in sizes]
    made = {}
    for mode, sparse in (("jacobian", True), ("jvp", False)):
        for lang in ("python", "jax"):
            t = time.perf_counter()
            F = make_function(g, mode, lang, sparse=sparse)
            seconds = time.perf_counter() - t
            arguments = point if mode == "jacobian" else point + tangent
            t = time.perf_counter()
            result = F(*arguments)
            jax.block_until_ready(result) if lang == "jax" else None
            call = time.perf_counter() - t
            t = time.perf_counter()
            result = F(*arguments)
            jax.block_until_ready(result) if lang == "jax" else None
            again = time.perf_counter() - t
            print(
                f"make_function {mode} {lang}{' sparse' if sparse else ''}: {seconds:.2f} s"
                f" ({len(F.source) / 1e6:.2f} MB of text), one call {call:.4f} s"
                f" (again {again:.4f} s); {F.generated.check.detail}"
            )
            made[(mode, lang)] = result
    jac = made[("jacobian", "python")]
    nnz = sum(block.nnz for block in jac)  # one output, three inputs: a tuple of blocks
    print(
        f"Jacobian: {nnz} nonzeros of {(n + 1) * nx} x {variables}"
        f" ({nnz / ((n + 1) * nx * variables):.2%})"
    )
    fj = make_residuals(nx, nu, jnp)
    args_j = tuple(jnp.asarray(p) for p in point)
    t = time.perf_counter()
    dense = jax.jacfwd(fj, argnums=(0, 1, 2))(*args_j)
    jax.block_until_ready(dense)
    print(f"jax.jacfwd (dense, not jitted): {time.perf_counter() - t:.2f} s")
    worst = 0.0
    for k in range(len(g.inputs)):
        expected = np.asarray(dense[k]).reshape((n + 1) * nx, -1)
        for lang in ("python", "jax"):
            block = made[("jacobian", lang)][k]
            got = block.toarray() if hasattr(block, "toarray") else np.asarray(block.todense())
            worst = max(worst, float(np.abs(got - expected).max()))
    _, jv = jax.jvp(fj, args_j, tuple(jnp.asarray(v) for v in tangent))
    for lang in ("python", "jax"):
        worst = max(worst, float(np.abs(np.asarray(made[("jvp", lang)]) - jv).max()))
    print(f"against jax.jacfwd and jax.jvp: max abs. difference {worst:.1e}")
    assert worst < 1e-12, worst
    root = Path(__file__).resolve().parent.parent
    spec = ",".join(
        f"{x}:{'x'.join(map(str, s))}"
        for x, s in zip(("X", "U", "x0"), shapes(STEPS, NX, NU), strict=True)
    )
    with tempfile.TemporaryDirectory() as tmp:
        command = [
            sys.executable,
            "-m",
            "dgraph",
            "codegen",
            f"{__file__}:residuals",
            "--inputs",
            spec,
            "--mode",
            "jvp",
            "-o",
            str(Path(tmp) / "jvp.py"),
        ]
        t = time.perf_counter()
        done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - t
    shown = " ".join(command[1:]).replace(str(root) + "/", "").replace(tmp, "TMP")
    print(f"`{shown}`: exit {done.returncode} in {seconds:.2f} s (process, import included)")
    if (n, nx, nu) != (STEPS, NX, NU):
        print("(the command traces the module's residuals: N = 100, nx = 40, nu = 20)")


if __name__ == "__main__":
    main()
