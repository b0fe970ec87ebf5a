"""Build CPU seconds (``time.process_time``) of dense Hessians whose checks grew fastest:
``forces`` (benchmarks/region_body_maps.py, by columns of the tangent program) and the
binomial-tree American put (benchmarks/real_programs11.py, a new array shape each level),
each case in turn in one process (the first pays JAX's start), with the check's status,
the note of how the Jacobian was built and the largest error against ``jax.hessian``.

    python benchmarks/hessian_builds.py [--lang python|jax] forces:N:T ... binomial:LEVELS ...
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=["forces:20:10", "binomial:12"])
    parser.add_argument("--lang", default="python", choices=["python", "jax"])
    args = parser.parse_args()
    import jax

    jax.config.update("jax_enable_x64", True)
    import dgraph

    for case in args.cases:
        name, *sizes = case.split(":")
        if name == "binomial":
            import real_programs11

            f, xs, _, ref = real_programs11.PROGRAMS["binomial_tree_american"][0](int(sizes[0]))
            x = xs[0]
        else:
            from region_body_maps import FUNCTIONS

            f = ref = FUNCTIONS[name](int(sizes[0]), int(sizes[1]))
            x = np.linspace(0.1, 1.0, int(sizes[0]))
        t = time.process_time()
        H = dgraph.make_function(f, "hessian", args.lang, point=(x,))
        built = time.process_time() - t
        want = np.asarray(jax.hessian(ref)(x))
        error = np.abs(np.asarray(H(x)) - want).max() / np.abs(want).max()
        generated = H.gradient.generated
        note = generated.loops[0][:40] if generated.loops else "-"
        print(
            f"{case} {args.lang} build {built:.2f} {generated.check.status} | {note} |"
            f" error {error:.1e}",
            flush=True,
        )


if __name__ == "__main__":
    main()
