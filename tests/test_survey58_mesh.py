"""Defects found by mesh58's survey of mesh, mechanics and molecular programs (session 58;
the programs themselves are outside the repository, benchmarks/RESULTS.md lists them),
one small test each, against central differences of the NumPy function itself (NumPy's
semantics of masks and indices are the point)."""

import numpy as np
import pytest

import dgraph

RC2 = 0.15


def _r2(x):
    return np.sum((x[:, None] - x[None]) ** 2, axis=-1)


def _central(f, x, h=1e-6):
    """The Jacobian of f at x by central differences (f smooth near x)."""
    steps = np.eye(x.size).reshape(x.size, *x.shape)
    columns = [(np.ravel(f(x + h * e)) - np.ravel(f(x - h * e))) / (2 * h) for e in steps]
    return np.stack(columns, axis=-1)


def _check(f, x):
    G = dgraph.make_function(f, "jacobian", point=[x])
    assert G.generated.verified
    want = _central(f, x)
    np.testing.assert_allclose(np.asarray(G(x)).reshape(want.shape), want, rtol=1e-7, atol=1e-9)


def test_neighbour_pairs_from_nonzero_of_a_triu_mask():
    # was "read wrongly ... a dgraph bug": np.triu of a mask computed from the inputs read
    # as floats, then r2[i, j] at np.nonzero of it as positions 0 and 1 (an MD neighbour
    # list: the pairs i < j within the cutoff)
    def f(x):
        r2 = _r2(x)
        i, j = np.nonzero(np.triu(r2 < RC2, k=1))
        return np.sum((r2[i, j] - 0.1) ** 2)

    _check(f, np.random.default_rng(0).uniform(size=(6, 2)))


@pytest.mark.parametrize(
    "select",
    [
        lambda x: x[:, 0][(x[:, 1] > 0.5)[::-1]],  # a reversed mask
        lambda x: x[1:, 0][(x[:, 1] > 0.5)[1:]],  # a sliced one
        lambda x: _r2(x)[(_r2(x) < RC2).T],  # a transposed one
        lambda x: x[:, 0][(x[:, 1] > 0.2) * (x[:, 0] < 0.9)],  # bool * bool: and
        lambda x: x[:, 0][np.where(x[:, 1] > 0.5, True, False)],  # bools chosen by a mask
        lambda x: np.log(x[:, 1] - 0.3)[np.isfinite(np.log(x[:, 1] - 0.3))],  # NaN dropped
    ],
    ids=["rev", "slice", "T", "mul", "where", "isfinite"],
)
def test_moved_or_combined_masks_select(select):
    # each was read as positions 0 and 1 (caught by the read check: "read wrongly"), or
    # refused (isfinite: "a data-dependent index"); NumPy keeps them boolean, a selection
    def f(x):
        return np.sum((select(x) - 0.1) ** 2)

    _check(f, np.random.default_rng(0).uniform(size=(6, 2)))


@pytest.mark.parametrize(
    "f",
    [
        # signed triangle areas by NumPy's 2-D cross (was refused: "3-vectors only")
        lambda xp, q: (
            0.5
            * xp.cross(q.reshape(6, 2)[1::2] - q.reshape(6, 2)[::2], xp.sin(q[:6]).reshape(3, 2))
        ),
        # a MATLAB port's flat state in Fortran order (was refused: reshape(order='F'))
        lambda xp, q: xp.sin(q.reshape(-1, 3, order="F")) @ xp.arange(1.0, 4.0),
        lambda xp, q: xp.cumsum(xp.exp(q.reshape(4, 3)).ravel(order="F"))[::3],
    ],
    ids=["cross2d", "reshapeF", "ravelF"],
)
def test_numpy_forms_of_mesh_programs(f):
    _check(lambda q: f(np, q), np.random.default_rng(1).normal(size=12))


def test_a_table_at_a_mask_as_integers():
    # was refused as a masked selection ("selects a number of entries that depends on
    # them"): a tension-only cable's stiffness K[(strain > 0).astype(int)] reads positions
    # 0 and 1, as NumPy does; astype(bool) of a mask (was refused) is the mask
    K = np.array([0.1, 5.0])
    rest = np.array([1.0, 0.8, 1.3, 0.9])

    def f(x):
        strain = np.abs(x[1:] - x[:-1]) - rest
        taut = (strain > 0).astype(bool)
        return 0.5 * np.sum(K[taut.astype(int)] * strain**2)

    _check(f, np.array([0.0, 1.2, 1.7, 3.2, 4.0]))
