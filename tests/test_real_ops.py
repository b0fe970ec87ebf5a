"""Operations of common JAX code that ``make_function`` refused or broke on (issue 54, item
3): each against ``jax.jacfwd`` at a point, on small operands."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

import sympy  # noqa: E402

import dgraph  # noqa: E402
from dgraph.codegen.c import CPrinter  # noqa: E402
from tests import jax_reference as jref  # noqa: E402


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


X = np.random.default_rng(2).uniform(0.2, 1.2, 6)


def _agrees(f, x=X, **kwargs) -> None:
    fn = dgraph.make_function(f, point=[x], **kwargs)
    expected = np.asarray(jref.jacfwd(f)(x)).reshape(-1, x.size)  # stored, or jitted
    got = np.asarray(fn(x)).reshape(expected.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


ELEMENT_LEVEL = {  # crashed or could not print at the element level
    "nan_to_num": lambda x: jnp.nan_to_num(x / x[0]),  # finfo.max: 2 * value overflowed
    "gammaln": lambda x: jax.scipy.special.gammaln(x**2 + 1),  # polygamma(0, .)
    "digamma": lambda x: jax.scipy.special.digamma(x**2 + 1),  # polygamma(1, .)
    "logsumexp": lambda x: jax.scipy.special.logsumexp(x.reshape(2, 3), axis=1),  # isfinite
    "erfinv": lambda x: jax.scipy.special.erfinv(x / 3) * x,  # SciPy's, JAX's erfinv
}


# the method the choice gives each (the same code in every language): the tests are of
# the element level's reading and printing, the choice has its own (test_codegen_choice)
CHOSEN = {"nan_to_num": "reverse", "logsumexp": "reverse"}


@pytest.mark.parametrize(
    "name, lang",
    [(n, "python") for n in sorted(ELEMENT_LEVEL)] + [("gammaln", "jax"), ("erfinv", "jax")],
)
def test_element_level_prints(name: str, lang: str) -> None:
    _agrees(ELEMENT_LEVEL[name], lang=lang, method=CHOSEN.get(name, "forward"))


def test_element_level_c() -> None:
    """C prints isfinite (C99's macro) and polygamma (dgraph.codegen.c_special's); an
    order that is not an integer it refuses in one line."""
    _agrees(ELEMENT_LEVEL["logsumexp"], lang="c", method="reverse")
    _agrees(ELEMENT_LEVEL["gammaln"], lang="c", method="forward")
    _agrees(ELEMENT_LEVEL["digamma"], lang="c", method="forward")
    with pytest.raises(dgraph.DGraphError, match="cannot print polygamma of order 1/2"):
        CPrinter().doprint(sympy.polygamma(sympy.Rational(1, 2), sympy.Symbol("x")))


ARRAY_LEVEL = {  # refused at the array level before ("jaxpr primitive ... is not supported")
    "median": lambda x: jnp.median(x),  # reduce_or
    "inv": lambda x: jnp.linalg.inv(x[:4].reshape(2, 2) + 2 * jnp.eye(2)).ravel(),
}


@pytest.mark.parametrize("name", sorted(ARRAY_LEVEL))
def test_array_level_through_make_function(name: str) -> None:
    _agrees(ARRAY_LEVEL[name])
