"""AlphaGrad's MLP and 2-block Transformer encoder at the sizes its runtime notebooks time
(Lohoff & Neftci, NeurIPS 2024; alphagrad ``eval/MLP`` and ``eval/Encoder``), written in
plain ``jax.numpy`` / ``jax.lax`` so that both the project's JAX and Graphax's (0.4.26) run
them: the MLP on a whole batch at once (``x`` of shape (batch, 4·s), one loss per row)
instead of ``vmap`` over single samples, and the encoder of
:mod:`alphagrad_tensor_functions` itself with every matrix ``s`` times larger.

``mlp_inputs(batch, scale)`` and ``encoder_inputs(scale)`` give the arguments (float32,
seeded); the Jacobian timed is with respect to every argument, as AlphaGrad's notebooks
take it (``argnums = range(len(args))``), ``gamma`` and ``beta`` arrays of shape (1,).
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax.numpy as jnp
import numpy as np
from jax import lax

sys.path.insert(0, str(Path(__file__).resolve().parent))

from alphagrad_tensor_functions import _cross_entropy, encoder

__all__ = ["encoder", "encoder_inputs", "mlp", "mlp_inputs"]


def _layer_norm_rows(x, gamma, beta):
    """Per row of a batch: AlphaGrad's layer norm of one sample (mean and variance over
    the last axis)."""
    mean = jnp.mean(x, axis=-1, keepdims=True)
    variance = jnp.sum(lax.integer_pow(x - mean, 2), axis=-1, keepdims=True) / x.shape[-1]
    return (x - mean) / jnp.sqrt(variance + 1e-6) * gamma + beta


def mlp(x, y, w1, b1, w2, b2, gamma, beta):
    """AlphaGrad's Perceptron on a batch: one cross-entropy loss per row of ``x``."""
    h = jnp.tanh(x @ w1.T + b1)
    h = _layer_norm_rows(h, gamma, beta)
    o = jnp.tanh(h @ w2.T + b2)
    return _cross_entropy(o, y)


def _normal(rng, *shape):
    return jnp.asarray(rng.standard_normal(shape), dtype=jnp.float32)


def _gamma_beta():
    """The layer norm's gamma and beta as arrays of shape (1,), as AlphaGrad passes them,
    but 0.5 and 0.1 instead of its 0 and 1 (gamma 0 makes every derivative through the
    norm zero, which would leave the numerical check blind; the times do not depend on
    values)."""
    return jnp.full((1,), 0.5, dtype=jnp.float32), jnp.full((1,), 0.1, dtype=jnp.float32)


def mlp_inputs(batch: int = 512, scale: int = 1):
    """x = ones, y, W1 (8s, 4s), b1 (8s,), W2 (4s, 8s), b2 (4s,), gamma, beta."""
    rng = np.random.default_rng(1234)
    n = 4 * scale
    x, y = jnp.ones((batch, n), dtype=jnp.float32), _normal(rng, batch, n)
    w1, b1 = _normal(rng, 2 * n, n), _normal(rng, 2 * n)
    w2, b2 = _normal(rng, n, 2 * n), _normal(rng, n)
    return (x, y, w1, b1, w2, b2, *_gamma_beta())


def encoder_inputs(scale: int = 16):
    """x = ones (4s, 4s), y (2s, 4s), six (4s, 4s) attention matrices, W1 (4s, 4s),
    W2 (2s, 4s), b1 (4s,), b2 (2s, 1), gamma0, beta0, gamma1, beta1."""
    rng = np.random.default_rng(250197)
    n = 4 * scale
    x, y = jnp.ones((n, n), dtype=jnp.float32), _normal(rng, n // 2, n)
    weights = [_normal(rng, n, n) / np.sqrt(n) for _ in range(7)]
    w2, b1, b2 = _normal(rng, n // 2, n) / np.sqrt(n), _normal(rng, n), _normal(rng, n // 2, 1)
    return (x, y, *weights, w2, b1, b2, *_gamma_beta(), *_gamma_beta())
