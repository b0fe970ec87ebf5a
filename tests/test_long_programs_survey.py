"""benchmarks/long_programs_survey.py's own check of a generated Hessian: ``uᵀHv``
against JAX where the program traces with ``jax.numpy`` (session 39). The four-point
difference it used (step 1e-4) is off by 8e-4 relative for a product of factors
``1 + 0.01 sin(k x)`` with k up to 249, and called JAX's exact Hessian WRONG."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _survey():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(
            "long_programs_survey", BENCHMARKS / "long_programs_survey.py"
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # its dataclass looks the module up
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


def _product_hessian(n: int, x: np.ndarray) -> np.ndarray:
    """The Hessian of ``prod_k (1 + 0.01 sin(k x[k % 8]))`` in closed form: with
    ``f`` the product and ``g_k`` its factors, ``H = f (a aᵀ + diag(b))``, ``a_i`` the
    sum of ``g_k'/g_k`` and ``b_i`` of ``g_k''/g_k - (g_k'/g_k)²`` over the factors of
    ``x_i``."""
    k = np.arange(n)
    at = x[k % 8]
    g = 1.0 + 0.01 * np.sin(k * at)
    d1, d2 = 0.01 * k * np.cos(k * at) / g, -0.01 * k**2 * np.sin(k * at) / g
    a = np.bincount(k % 8, d1, 8)
    b = np.bincount(k % 8, d2 - d1**2, 8)
    return np.prod(g) * (np.outer(a, a) + np.diag(b))


def _hessian_module(path: Path, H: np.ndarray) -> Path:
    path.write_text(
        f"import numpy as np\n\nH = np.array({H.tolist()!r})\n\n\ndef hessian(x):\n    return H\n"
    )
    return path


def _checked(survey, tmp_path: Path, n: int, wrong: float = 0.0) -> str:
    """The survey's verdict on the exact Hessian of ``product`` at ``n`` factors, one
    off-diagonal pair of entries made ``wrong`` (relative to the largest)."""
    shape = next(s for s in survey.SHAPES if s.name == "product")
    source = tmp_path / f"model{n}.py"
    source.write_text(shape.source(n))
    H = _product_hessian(n, np.random.default_rng(n).uniform(0.5, 1.5, 8))  # its point
    H[0, 1] = H[1, 0] = H[0, 1] + wrong * np.max(np.abs(H))
    return survey._check(shape, n, source, _hessian_module(tmp_path / f"h{n}.py", H), True)


def test_the_surveys_hessian_check_passes_the_exact_hessian_and_flags_a_wrong_one(tmp_path):
    survey = _survey()
    assert _checked(survey, tmp_path, 150) == ""  # main: "uᵀHv 1061.44 vs 1061.31"
    assert _checked(survey, tmp_path, 40, wrong=1e-6).startswith("uᵀHv")
