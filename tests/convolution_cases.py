"""Convolutions small enough for every test: 1-D and 2-D, both layouts (NCHW/OIHW and
NHWC/HWIO), strides, SAME/VALID/explicit and negative padding, lhs and rhs dilation,
feature and batch groups; shared by tests/test_rules_vs_jax.py and
tests/test_convolution.py."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

STENCIL = np.array([1.0, -2.0, 1.0])  # the peers' second difference (sparsejac)

# name: (lhs shape, rhs shape, lax.conv_general_dilated's keywords)
CONVOLUTIONS: dict[str, tuple[tuple[int, ...], tuple[int, ...], dict]] = {
    "1-d-ncw": ((1, 2, 6), (3, 2, 3), dict(window_strides=(2,), padding=((1, 2),))),
    "1-d-nwc-dilated": (
        (1, 5, 2),
        (2, 2, 2),
        dict(
            window_strides=(1,),
            padding=((-1, 1),),
            lhs_dilation=(2,),
            rhs_dilation=(2,),
            dimension_numbers=("NWC", "WIO", "NWC"),
        ),
    ),
    "2-d-nchw-groups": (
        (1, 2, 4, 5),
        (4, 1, 2, 3),
        dict(
            window_strides=(1, 2),
            padding=((1, 0), (0, 1)),
            rhs_dilation=(2, 1),
            feature_group_count=2,
        ),
    ),
    "2-d-nhwc-same": (
        (1, 4, 4, 2),
        (2, 2, 2, 3),
        dict(window_strides=(2, 1), padding="SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
    ),
    "2-d-batch-groups": (
        (2, 2, 3, 3),
        (2, 2, 2, 2),
        dict(window_strides=(1, 1), padding="VALID", batch_group_count=2),
    ),
}


def conv(**keywords) -> Callable:
    """``lax.conv_general_dilated(x, w, **keywords)`` (jax imported when called)."""

    def f(x, w):
        import jax

        return jax.lax.conv_general_dilated(x, w, **keywords)

    return f
