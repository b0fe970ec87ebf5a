"""Seed 003, Pearlmutter–Siskind, *Automatic Differentiation: Inverse Accumulation Mode*:
Fig. 1 (the four modes on one binary step), Fig. 3 (layering, time shift, unlayering),
the §3 greedy-lumping conjecture on a sample, and §7.3's tape-free reverse-inverse mode.
(Fig. 2, Fig. 4, (2.6) and (4.7) are in tests/test_inverse.py.)

Names: the paper's *forward-inverse* mode is J⁻ᵀx̄, first step first (Fig. 1(d), 2(e));
its *reverse-inverse* mode is J⁻¹ẏ, last step first (Fig. 1(e), 2(f)); dgraph's
``forward_inverse`` and ``reverse_inverse`` follow them. The tests below call them by what
they compute, through ``_inverse`` (J⁻¹ẏ) and ``_inverse_transpose`` (J⁻ᵀx̄).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import dgraph
from dgraph.core.graph import vertex_symbol
from dgraph.core.numeric import vertex_values
from dgraph.inverse import (
    adjoint,
    exact_order,
    greedy_order,
    inverse_product,
    linearize,
    linearize_symbolic,
    lump_cost,
    lumps,
    step_matrices,
    tangent,
    tapeless_inverse,
)
from dgraph.inverse import forward_inverse as _inverse_transpose  # J⁻ᵀx̄
from dgraph.inverse import reverse_inverse as _inverse  # J⁻¹ẏ
from dgraph.inverse.programs import program_with_temporaries

# Fig. 1(a): one binary step y₁ = f(x₁, x₂), y₂ = x₂, with f made concrete.
FIGURE_1 = "inputs: x1, x2\noutputs: y1, y2\ny1 = x1*exp(x2)\ny2 = x2\n"
# Fig. 2(d): z₁ ← p(x₁, x₂); z₂ ← q(z₁, x₃); output z₁, x₂, z₂ (p, q made concrete).
FIGURE_2 = "inputs: x1, x2, x3\noutputs: z1, y2, z2\nz1 = x1*exp(x2)\nz2 = x3 + sin(z1)\ny2 = x2\n"


# Four rounds of three invertible in-place updates (a ← a + sin(b)·c, b ← b·exp(c),
# c ← c − a/2), constant width 3; 13 statements with the copy of the output a4.
RING = "inputs: a0, b0, c0\noutputs: a4, b4, c4\n" + "".join(
    f"a{i} = a{i - 1} + sin(b{i - 1})*c{i - 1}\n"
    f"b{i} = b{i - 1}*exp(c{i - 1})\n"
    f"c{i} = c{i - 1} - a{i}/2\n"
    for i in range(1, 5)
)


def statement(text: str) -> dgraph.DGraph:
    return dgraph.from_trace(text, "statement")


def _zero(m) -> bool:
    return all(sympy.simplify(e) == 0 for e in np.ravel(np.asarray(m, dtype=object)))


def test_figure_1_the_four_modes_of_a_binary_step():
    """Fig. 1: J = (a b; 0 1) with a = ∂y₁/∂x₁, b = ∂y₁/∂x₂. (b) tangent ẏ = Jẋ, (c) adjoint
    x̄ = Jᵀȳ, (d) forward-inverse ȳ* = J⁻ᵀx̄* = (1/a 0; −b/a 1) x̄*, (e) reverse-inverse
    ẋ* = J⁻¹ẏ* = (1/a −b/a; 0 1) ẏ*: the inverse has J's sparsity (the same two edges)."""
    g = statement(FIGURE_1)
    lin = linearize_symbolic(g, substitute=False)
    x1, x2 = vertex_symbol("x1"), vertex_symbol("x2")
    a, b = sympy.exp(x2), x1 * sympy.exp(x2)
    steps = [s for s in lin.steps if s.lump.vertices == ("y1",)]
    jac, inv = step_matrices(steps[0], 2)
    assert _zero(jac - np.array([[a, b], [0, 1]], dtype=object))
    assert _zero(inv - np.array([[1 / a, -b / a], [0, 1]], dtype=object))
    assert np.array_equal(jac != 0, inv != 0)  # (2.6): the same sparsity

    u1, u2 = sympy.symbols("u1 u2")
    assert _zero(tangent(lin, [u1, u2]) - np.array([a * u1 + b * u2, u2], dtype=object))
    assert _zero(adjoint(lin, [u1, u2]) - np.array([a * u1, b * u1 + u2], dtype=object))
    forward_inv = _inverse_transpose(lin, [u1, u2])  # Fig. 1(d): J⁻ᵀ, tape-free direction
    assert _zero(forward_inv - np.array([u1 / a, -b / a * u1 + u2], dtype=object))
    reverse_inv = _inverse(lin, [u1, u2])  # Fig. 1(e): J⁻¹
    assert _zero(reverse_inv - np.array([u1 / a - b / a * u2, u2], dtype=object))


def _layers(lin) -> list[tuple[np.ndarray, np.ndarray]]:
    """Fig. 3(b): the layered flow graph — each step a layer of n slots, live values
    carried forward by label-1 edges — as the steps' (J_t, J_t⁻¹) in slot coordinates."""
    return [step_matrices(step, lin.n) for step in lin.steps]


def _unlayered_inverse(lin, layers) -> dict[tuple[str, str], sympy.Expr]:
    """Fig. 3(c)–(e): each layer replaced by J_t⁻¹ (traversed from the outputs), noop
    layers (J_t = I) dropped — the time shift — and the label-1 carries merged: a slot
    keeps its vertex until a step writes it. The result is Fig. 2(f)'s flow graph."""
    n = lin.n
    name = {slot: f"ydot_{y}" for y, slot in zip(lin.graph.outputs, lin.output_slots, strict=True)}
    edges: dict[tuple[str, str], sympy.Expr] = {}
    for step, (jac, inv) in zip(reversed(lin.steps), reversed(layers), strict=True):
        if _zero(jac - np.eye(n, dtype=object)):
            continue  # a noop layer: shifted away
        new = dict(name)
        for i, consumed in zip(step.rows, step.lump.consumed, strict=True):
            new[i] = f"xdot_{consumed}"
            for j in range(n):
                if inv[i, j] != 0:
                    edges[name[j], new[i]] = inv[i, j]
        name = new
    for slot, x in enumerate(lin.graph.inputs):  # the inputs' own vertices, label 1
        if name[slot] != f"xdot_{x}":
            edges[name[slot], f"xdot_{x}"] = sympy.Integer(1)
    return edges


def test_figure_3_layering_time_shift_unlayering():
    """Fig. 3: the program of Fig. 2(d) layered (every layer n = 3 wide), transformed
    layer by layer into reverse-inverse mode, shifted in time to drop the noop layers, and
    unlayered gives Fig. 2(f): five edges, labeled 1/(∂p/∂x₁),
    −(∂p/∂x₂)/(∂p/∂x₁), 1, 1/(∂q/∂x₃) and −(∂q/∂z₁)/(∂q/∂x₃); summing its paths is J⁻¹ẏ*."""
    g = statement(FIGURE_2)
    lin = linearize_symbolic(g, substitute=False)
    layers = _layers(lin)
    assert lin.width == [3] * (len(lin.steps) + 1)  # (b): constant width 3
    noops = [s.lump.vertices for s, (j, _) in zip(lin.steps, layers, strict=True)
             if _zero(j - np.eye(3, dtype=object))]  # fmt: skip
    assert len(layers) == 4 and noops == [("y2",), ("z1",)]  # the copies: y₂ = x₂, z₁ out
    edges = _unlayered_inverse(lin, layers)
    x1, x2, z1 = (vertex_symbol(v) for v in ("x1", "x2", "z1_2"))
    a_p, b_p = sympy.exp(x2), x1 * sympy.exp(x2)  # p = x₁·exp(x₂)
    a_q, b_q = sympy.Integer(1), sympy.cos(z1)  # q = x₃ + sin(z₁)
    expected = {
        ("ydot_z1", "xdot_x1"): 1 / a_p,
        ("ydot_y2", "xdot_x1"): -b_p / a_p,
        ("ydot_y2", "xdot_x2"): sympy.Integer(1),
        ("ydot_z2", "xdot_x3"): 1 / a_q,
        ("ydot_z1", "xdot_x3"): -b_q / a_q,
    }
    assert edges.keys() == expected.keys()
    assert all(sympy.simplify(edges[e] - expected[e]) == 0 for e in expected)
    # (f) evaluated by path sums is the reverse-inverse sweep, J⁻¹ẏ*
    ydot = {f"ydot_{y}": sympy.Symbol(f"ydot_{y}") for y in g.outputs}
    sums = {x: sum(lab * ydot[u] for (u, v), lab in edges.items() if v == f"xdot_{x}")
            for x in g.inputs}  # fmt: skip
    swept = _inverse(lin, [ydot[f"ydot_{y}"] for y in g.outputs])
    assert all(sympy.simplify(sums[x] - s) == 0 for x, s in zip(g.inputs, swept, strict=True))


def test_section_3_greedy_lumping_conjecture_on_a_sample():
    """§3 conjectures that a greedy order lumps optimally. On 20 seeded random programs
    with temporaries (n = 3, 7 statements) the greedy order reaches the exact search's
    largest lump l in all 20 (benchmarks/inverse.py measures 300: greedy 300, min-live
    282, evaluation order 139)."""
    hits = 0
    for seed in range(20):
        g = statement(program_with_temporaries(3, 7, seed))
        hits += lump_cost(lumps(g, greedy_order(g)))[0] == lump_cost(lumps(g, exact_order(g)))[0]
    assert hits == 20


def _outputs(g: dgraph.DGraph, x: np.ndarray) -> np.ndarray:
    values = vertex_values(g, x)
    return np.array([float(values[y]) for y in g.outputs])


def test_section_7_3_reverse_inverse_without_a_tape():
    """§7.3: when every primal step is invertible, reverse-inverse mode needs no tape: the
    states are recomputed backwards from the outputs. ``tapeless_inverse`` gets J⁻¹ẏ from
    the output point y alone and agrees with the taped sweep at the x with F(x) = y."""
    g = statement(FIGURE_2)
    x = np.array([0.7, -0.3, 1.2])
    y = _outputs(g, x)
    ydot = np.array([1.0, 2.0, -0.5])
    result = tapeless_inverse(g, y, ydot)
    assert np.allclose(result.inputs, x)  # the primal run backwards
    assert np.allclose(result.tangent, inverse_product(g, x, ydot).result)
    h = statement(RING)
    xs = np.array([0.6, -0.4, 0.9])
    r = tapeless_inverse(h, _outputs(h, xs), ydot)
    assert r.steps == 13 and np.allclose(r.inputs, xs)
    assert np.allclose(r.tangent, inverse_product(h, xs, ydot).result)
    assert np.allclose(tangent(linearize(h, xs), r.tangent), ydot)


def test_tapeless_inverse_refuses_steps_it_cannot_invert():
    g = statement("inputs: a, b\noutputs: y, b2\ny = sin(a) + b\nb2 = b\n")
    with pytest.raises(dgraph.DGraphError, match="cannot be inverted"):
        tapeless_inverse(g, np.array([0.5, 1.0]), np.array([1.0, 0.0]))
