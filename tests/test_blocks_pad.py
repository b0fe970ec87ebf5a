"""``lax.pad``'s forward value (``dgraph.blocks.arrays``, what a graph's vertex values and
the checks evaluate): the kept entries along each axis copied as strided slices, equal to
``lax.pad``'s for low and high padding of either sign and interior padding."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dgraph.blocks.arrays import _pad

jax = pytest.importorskip("jax")

SIDES = st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(0, 2))


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_pad_is_lax_pad(shape, data):
    config = tuple(data.draw(SIDES) for _ in shape)
    x = np.random.default_rng(len(shape)).standard_normal(shape)
    with jax.enable_x64(True):
        try:
            expected = np.asarray(jax.lax.pad(jax.numpy.asarray(x), 7.5, config))
        except (TypeError, ValueError):  # a negative size: lax refuses it too
            return
    assert np.array_equal(_pad(x, np.asarray(7.5), config, expected.shape), expected)
