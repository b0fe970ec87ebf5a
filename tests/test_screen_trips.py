"""A ``while_loop`` written to converge at the user's data (BLP's share inversion, a
fixed point to 1e-12: survey42) never stops at some random points: the cancellation
screen (dgraph/codegen/tensor/cancel.py) ran it there for minutes. It now stops after
``SCREEN_TRIPS`` trips and passes over that point (nothing proven there), and the sparse
Jacobian is JAX's."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.codegen import ir  # noqa: E402
from dgraph.codegen.evaluate import ArrayEvaluator  # noqa: E402
from dgraph.codegen.tensor import cancel  # noqa: E402
from dgraph.core import value_check  # noqa: E402
from dgraph.core.regions import LoopNotStopped, trip_limit  # noqa: E402
from tests import jax_reference as jref  # noqa: E402


def blp(s, beta, X):
    """Berry-Levinsohn-Pakes' contraction: mean utilities whose logit shares are ``s``."""

    def body(c):
        delta, _ = c
        share = jax.nn.softmax(jnp.concatenate([jnp.zeros(1), delta + X @ beta]))[1:]
        new = delta + jnp.log(s) - jnp.log(share)
        return new, jnp.max(jnp.abs(new - delta))

    return jax.lax.while_loop(lambda c: c[1] > 1e-12, body, (jnp.zeros(s.size), 1.0))[0]


def test_a_fixed_point_loop_is_passed_over_where_it_never_stops(monkeypatch):
    monkeypatch.setattr(cancel, "SCREEN_TRIPS", 50)  # the same outcome, sooner
    # the check's random points: the loop stops in none of RANGES by 10^4 trips either
    monkeypatch.setattr(value_check, "DRAWN_POINT_TRIPS", 500)
    rng = np.random.default_rng(0)
    shares = rng.uniform(1.0, 3.0, size=8)
    point = [0.8 * shares / shares.sum(), 0.5 * rng.normal(size=3), rng.normal(size=(8, 3))]
    with jax.enable_x64(True):
        graph = dgraph.from_jax(blp, *point, level="array")
        J = dgraph.make_function(graph, "jacobian", sparse=True)
        want = np.asarray(jref.jacfwd(blp)(*[jnp.asarray(p) for p in point]))
    assert J.generated.verified
    got = J(*point)[0]  # by the shares (one block an input)
    got = got.toarray() if hasattr(got, "toarray") else np.asarray(got)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_the_evaluator_stops_a_loop_at_its_limit():
    body = ir.LoopBody(("c",), (ir.ArrayStatement("d", ir.Name("c")),), ("d",))
    cond = ir.LoopBody(("c",), (ir.ArrayStatement("t", ir.Const(True)),), ("t",))
    loop = ir.While(init=(ir.Const(0.0),), invariants=(), cond=cond, body=body)
    with trip_limit(3), pytest.raises(LoopNotStopped, match="after 3 trips"):
        ArrayEvaluator().run([ir.ArrayStatement("y", loop)], {})
