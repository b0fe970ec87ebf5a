"""Idioms of Google Tangent's test functions (github.com/google/tangent, ``tests/
functions.py``, ``tests/test_hessian_vector_products.py``) through the NumPy reader.

The functions here are written for these tests, each the same mathematical function as
the Tangent one its comment names; the full survey of Tangent's own file is
``benchmarks/tangent_survey.py``. Expected values are closed forms.
"""

from __future__ import annotations

import numpy as np
import pytest

import dgraph

# ----------------------------------------------------------------------------- branches
# A Python ``if``/``while`` on a value that depends on the inputs takes one path per input:
# no one formula holds for every input, so the reader refuses it, saying why and what to
# write instead.


def sign_scaled(a):  # functions.py: overwrite_if
    a = 3.0 * a if a > 0 else 2.0 * a
    return a


def three_way(a):  # functions.py: overwrite_ifelse (elif with the constant on the left)
    if a > 0:
        return 3.0 * a
    elif 0 > a:  # noqa: SIM300 (the reflected comparison is the case)
        return 2.0 * a
    return a


def inner_square(a):  # functions.py: nested_if
    if a > 0:
        if a < 10:
            return a * a
        return a
    return 3.0 * a


def on_arithmetic(a):  # functions.py: multiarg_if (a condition on a computed value)
    scale = 3.0 if a * a / 3.0 > 0 else 4.0
    return a * scale


def halve_until_small(a):  # functions.py: while_big
    while np.abs(a) > 0.1:
        a = 0.5 * a
    return a


def square_if_small(a):  # functions.py: cond_iterpower1 (a branch inside a loop)
    for _ in range(3):
        if a < 20:
            a = a * a
    return a


@pytest.mark.parametrize(
    "f",
    [sign_scaled, three_way, inner_square, on_arithmetic, halve_until_small, square_if_small],
)
def test_branch_on_a_value_refused_saying_why(f):
    with pytest.raises(dgraph.InputError) as caught:
        dgraph.jacobian(f, point=[0.5])
    (line,) = str(caught.value).splitlines()
    assert "no one formula holds for every input: write it with numpy.where" in line


# ----------------------------------------------------------------------------- idioms


def write_product_first(x):  # functions.py: test_subscript2 (assignment into the input)
    first, second = x[0], x[1]
    x[0] = first * second
    return np.sum(x)


def listed(a):  # functions.py: test_anf_list (a list literal summed)
    return np.sum([1.0, a * a, 2.0])


def unpacked(abc):  # functions.py: unpacking_args_saxpy (a tuple argument)
    a, b, c = abc
    return a * b + c


def fourth(a):  # functions.py: augassign
    y = a * a
    y *= y
    return y


def _times(a, b):
    return a * b


def called(a, b):  # functions.py: mul_with_call (an inner function)
    return _times(a, b)


def squarings(a, n):  # functions.py: iterpower (range of an integer argument)
    for _ in range(n):
        a = _times(a, a)
    return a


@pytest.mark.parametrize("read", ["jacobian", "make_function"])
def test_a_count_given_as_an_integer_but_differentiated_says_so(read):
    call = {"jacobian": dgraph.jacobian, "make_function": dgraph.make_function}[read]
    with pytest.raises(dgraph.InputError) as caught:
        call(squarings, point=[1.1, 2])
    (line,) = str(caught.value).splitlines()
    assert "n is given as the integer 2 but differentiated" in line
    assert line.endswith("a count or a size is a parameter (params=['n'])")


def square_positive_then_repeat(a, n):  # functions.py: serial_ifthenfor
    if a > 0:
        a = a * a
    for _ in range(n):
        a = _times(a, a)
    return a


@pytest.mark.parametrize("read", ["jacobian", "make_function"])
def test_a_branch_with_a_count_differentiated_keeps_its_line(read):
    call = {"jacobian": dgraph.jacobian, "make_function": dgraph.make_function}[read]
    with pytest.raises(dgraph.InputError) as caught:
        call(square_positive_then_repeat, point=[1.1, 2])
    (line,) = str(caught.value).splitlines()
    assert "no one formula holds for every input: write it with numpy.where" in line
    assert line.endswith("a count or a size is a parameter (params=['n'])")


def recurrence(inputs, W):  # functions.py: rnn (rows written into np.zeros in a loop)
    h = np.zeros((4, 3))
    for t in range(3):
        h[t + 1] = inputs[t] @ W + h[t]
    return np.sum(h[1:])


def _gradient(f, point, params=()):
    made = dgraph.make_function(f, "jacobian", point=point, params=list(params))
    assert made.generated.verified is True
    return made


def test_assignment_into_the_input():
    x = np.array([0.3, -1.2, 0.7, 2.0])
    made = _gradient(write_product_first, [x.copy()])
    expected = np.array([x[1], x[0] + 1.0, 1.0, 1.0])
    assert np.allclose(made(x.copy()), expected, rtol=1e-14, atol=0)


def test_list_literal_tuple_argument_and_augmented_assignment():
    assert np.isclose(_gradient(listed, [1.5])(-0.5), -1.0, rtol=1e-14)
    blocks = _gradient(unpacked, [(2.0, -1.5, 0.5)])((0.5, 1.5, -2.0))
    assert np.allclose(np.asarray(blocks, dtype=float), [1.5, 0.5, 1.0], rtol=1e-14)
    assert np.isclose(_gradient(fourth, [1.5])(-0.5), 4 * (-0.5) ** 3, rtol=1e-14)


def test_inner_calls_and_a_count_argument():
    da, db = _gradient(called, [2.0, -1.0])(1.5, 0.5)
    assert (float(da), float(db)) == (0.5, 1.5)
    made = _gradient(squarings, [1.1, 2], params=["n"])  # a**4, n closed over at 2
    assert np.isclose(made(0.9, 2), 4 * 0.9**3, rtol=1e-14)
    with pytest.raises(dgraph.InputError, match="made at n = 2"):
        made(0.9, 3)


def test_rows_written_in_a_loop():
    rng = np.random.default_rng(3)
    inputs, W = rng.standard_normal((3, 2)), rng.standard_normal((2, 3))
    d_inputs, d_W = _gradient(recurrence, [inputs, W])(inputs, W)
    weights = np.array([3.0, 2.0, 1.0])  # row t reaches h[t+1:], 3 - t rows
    assert np.allclose(d_inputs, np.outer(weights, W.sum(axis=1)), rtol=1e-13)
    assert np.allclose(d_W, np.outer(weights @ inputs, np.ones(3)), rtol=1e-13)


def fifth_powers(x):  # test_hessian_vector_products.py: f_straightline, sum(x**5)
    cubed = x * x * x
    return np.sum(cubed * x**2.0)


def test_hvp_of_a_straight_line():
    rng = np.random.default_rng(0)
    x, v = rng.standard_normal(30), rng.standard_normal(30)
    made = dgraph.make_function(fifth_powers, "hvp", point=[x])
    assert made.generated.verified is True
    assert np.allclose(made(x, v), 20 * x**3 * v, rtol=1e-13, atol=1e-14)
