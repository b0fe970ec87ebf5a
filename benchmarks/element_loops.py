"""CPU seconds of ``make_function(f, "hessian", point=[x])`` for finite element energies
written as a Python loop over the elements (session 59, mesh59): a tet mesh's
compressible neo-Hookean energy (per tet a 3×3 ``np.linalg.inv`` of the rest shape, the
deformation gradient, its ``np.linalg.det``) and a triangle mesh's symmetric Dirichlet
energy (per triangle ``np.linalg.inv`` of the 2×2 deformation gradient), each against
``jax.hessian`` of its ``jax.numpy`` twin. One process per case (the first build pays
the imports: a warm-up build first), ``process_time`` of the build alone.

    PYTHONPATH=. python benchmarks/element_loops.py tet 48
    PYTHONPATH=. python benchmarks/element_loops.py tri 200 [--no-check]
"""

from __future__ import annotations

import sys
import time

import numpy as np

import dgraph

MU, LAM = 1.0, 10.0
KUHN = [(0, 1, 3, 7), (0, 1, 5, 7), (0, 2, 3, 7), (0, 2, 6, 7), (0, 4, 5, 7), (0, 4, 6, 7)]


def tet_mesh(count: int) -> tuple[np.ndarray, np.ndarray]:
    """The first ``count`` tets of a k×k×k grid of cubes, six Kuhn tets a cube, each
    positively oriented, the vertices renumbered to those used."""
    k = 1
    while 6 * k**3 < count:
        k += 1
    grid = np.array([[i, j, m] for i in range(k + 1) for j in range(k + 1) for m in range(k + 1)])
    tets = []
    for i in range(k):
        for j in range(k):
            for m in range(k):
                corner = [
                    ((i + (b >> 2 & 1)) * (k + 1) + j + (b >> 1 & 1)) * (k + 1) + m + (b & 1)
                    for b in range(8)
                ]
                for kuhn in KUHN:
                    t = [corner[a] for a in kuhn]
                    if np.linalg.det(grid[t[1:]] - grid[t[0]]) < 0:
                        t[1], t[2] = t[2], t[1]
                    tets.append(t)
    used, renumbered = np.unique(np.array(tets[:count]), return_inverse=True)
    return grid[used].astype(float), renumbered.reshape(-1, 4)


def tri_mesh(count: int) -> tuple[np.ndarray, np.ndarray]:
    """The first ``count`` triangles of a k×k grid of squares, two a square."""
    k = 1
    while 2 * k * k < count:
        k += 1
    grid = np.array([[i, j] for i in range(k + 1) for j in range(k + 1)], dtype=float)
    tris = []
    for i in range(k):
        for j in range(k):
            a, b = i * (k + 1) + j, (i + 1) * (k + 1) + j
            tris += [[a, b, b + 1], [a, b + 1, a + 1]]
    used, renumbered = np.unique(np.array(tris[:count]), return_inverse=True)
    return grid[used], renumbered.reshape(-1, 3)


def tet_energy(count: int, xp=np):
    """``(f, x0)``: the neo-Hookean energy of ``count`` tets as a loop, ``xp`` its array
    module (``jax.numpy``: the twin), and a deformed point."""
    rest, tets = tet_mesh(count)

    def f(x):
        x = x.reshape(-1, 3)
        e = 0.0
        for t in tets:
            dm = (rest[t[1:]] - rest[t[0]]).T
            volume = np.linalg.det(dm) / 6.0
            F = (x[t[1:]] - x[t[0]]).T @ np.linalg.inv(dm)
            J = xp.linalg.det(F)
            e = e + volume * (0.5 * MU * (xp.sum(F * F) - 3.0) - MU * (J - 1.0)
                              + 0.5 * LAM * (J - 1.0) ** 2)  # fmt: skip
        return e

    rng = np.random.default_rng(0)
    return f, (rest * 1.1 + 0.05 * rng.standard_normal(rest.shape)).ravel()


def tri_energy(count: int, xp=np):
    """``(f, x0)``: the symmetric Dirichlet energy ``|F|² + |F⁻¹|²`` of ``count``
    triangles as a loop, and a deformed point."""
    rest, tris = tri_mesh(count)

    def f(x):
        x = x.reshape(-1, 2)
        e = 0.0
        for t in tris:
            dm = (rest[t[1:]] - rest[t[0]]).T
            F = (x[t[1:]] - x[t[0]]).T @ np.linalg.inv(dm)
            Fi = xp.linalg.inv(F)
            e = e + 0.5 * np.linalg.det(dm) * (xp.sum(F * F) + xp.sum(Fi * Fi))
        return e

    rng = np.random.default_rng(1)
    return f, (rest * 1.05 + 0.03 * rng.standard_normal(rest.shape)).ravel()


def main() -> None:
    kind, count = sys.argv[1], int(sys.argv[2])
    energy = {"tet": tet_energy, "tri": tri_energy}[kind]
    f, x0 = energy(count)
    dgraph.make_function(lambda x: np.sum(np.sin(x) ** 2), "hessian", point=[np.ones(3)])
    start = time.process_time()
    H = dgraph.make_function(f, "hessian", point=[x0])
    seconds = time.process_time() - start
    line = f"{kind} {count} elements, {x0.size} inputs: build {seconds:.2f} CPU-s"
    line += f", verified {H.generated.verified}"
    if "--no-check" not in sys.argv:
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)
        want = np.asarray(jax.hessian(energy(count, jnp)[0])(x0))
        line += f", |H - jax.hessian| / |H| = {np.abs(H(x0) - want).max() / np.abs(want).max():.1e}"
    print(line, flush=True)


if __name__ == "__main__":
    main()
