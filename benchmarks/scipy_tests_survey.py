"""SciPy's solver test problems through dgraph, unmodified: functions written by others
with their Jacobians and Hessians written by hand, an independent judge of dgraph's values.

``python scipy_tests_survey.py [NAME,...] [--cases c1,c2]`` imports the test modules that
ship inside the installed SciPy (``scipy/integrate/_ivp/tests/test_ivp.py``,
``scipy/integrate/tests/test_bvp.py``, ``test_integrate.py``,
``scipy/optimize/tests/test_least_squares.py``, ``test_minimize_constrained.py``,
``test_optimize.py``, ``test_hessian_update_strategy.py``, ``test_minpack.py``,
``test_differentiable_functions.py``, ``test_slsqp.py``); nothing of them is copied here.
A function local to a test (``test_integration_stiff``'s ``fun_robertson``) is rebuilt
from the test's code object. ``python scipy_tests_survey.py table OUT...`` counts the
outcomes; ``python scipy_tests_survey.py solve`` hands the generated code (Python and C)
to the solvers (:func:`solver_runs`).

Each problem is taken at its test's own point (``own``) and at a point moved by
U(-0.2, 0.2) (``rand``, seed 0), as a user of the solver hands it over: the arguments that
the solver does not differentiate (``t``, a BVP's mesh ``x``, ``args=``) are ``params``.
Cases:

- ``jac``: ``dgraph.make_function(fun, "jacobian", point=..., params=...)`` against the
  hand-written ``jac`` (a BVP's ``(n, n, m)`` blocks read as the block diagonal of the
  ``(n, m, n, m)`` Jacobian; a scalar objective's ``grad``),
- ``jac-sp``: the same with ``sparse=True``: the values, and the pattern within the test's
  own sparsity (``jac_sparsity``, a sparse ``jac``'s) and holding every nonzero,
- ``hess`` / ``hess-sp``: ``make_function(fun, "hessian", ...)`` against ``hess``,
- ``lag``: a ``NonlinearConstraint``'s ``hess(x, v)``: ``make_function(cfun, "hessian",
  weights=v)`` (the Lagrangian ``vᵀc``) against it.

Where dgraph and the hand-written derivative differ, both are compared with central
differences (``scipy.optimize._numdiff.approx_derivative``, 3-point, of the function for
``jac``, of the hand-written gradient for ``hess``): ``THEIRS`` when dgraph agrees with the
differences and the hand-written one does not (a mistake in the test's Jacobian), else
``WRONG``. A problem with no hand-written derivative (``fun_medazko``, ``fun_bvp``,
``fun_robertson``) is judged by the differences alone (``FD`` in the line). Outcomes:
``ok`` right and verified, ``NOTVER`` right and not verified, ``REFUSED`` a one-line
``DGraphError``, ``ERROR`` anything else, ``SLOW`` over ``LIMIT`` CPU-s (SIGPROF).
"""

from __future__ import annotations

import argparse
import functools
import inspect
import sys
import types
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from harness import survey_case, survey_table
from scipy.optimize._numdiff import approx_derivative

import dgraph

warnings.simplefilter("ignore")
TOL = 1e-8
FD_TOL = 1e-5
LIMIT = 60.0
CASES = ["jac", "jac-sp", "hess", "hess-sp", "lag"]


@dataclass
class Problem:
    """``fun(*args)`` differentiated in the arguments ``wrt`` (the rest are params)."""

    name: str
    fun: Callable
    args: tuple
    wrt: tuple[int, ...] = (0,)
    jac: Callable | None = None  # jac(*args), as the test writes it
    hess: Callable | None = None  # hess(*args)
    lag: Callable | None = None  # hess(x, v) of a vector constraint
    sparsity: object = None  # the test's own pattern of the Jacobian
    bvp: bool = False  # jac gives (n, n, m) blocks per mesh point
    extra: dict = field(default_factory=dict)


def local_function(test: Callable, name: str) -> Callable:
    """The function ``name`` defined inside ``test`` (no closure), rebuilt from its code."""
    for const in test.__code__.co_consts:
        if isinstance(const, types.CodeType) and const.co_name == name:
            return types.FunctionType(const, test.__globals__, name)
    raise LookupError(name)


def problems() -> list[Problem]:
    from scipy.integrate._ivp.tests import test_ivp as ivp
    from scipy.integrate.tests import test_bvp as bvp
    from scipy.integrate.tests import test_integrate as ode
    from scipy.optimize import rosen, rosen_der, rosen_hess
    from scipy.optimize.tests import test_hessian_update_strategy as hus
    from scipy.optimize.tests import test_least_squares as ls
    from scipy.optimize.tests import test_minimize_constrained as mc
    from scipy.optimize.tests import test_minpack as mp
    from scipy.optimize.tests import test_optimize as to

    out: list[Problem] = []
    a = np.array
    # solve_ivp: fun(t, y), t a parameter.
    out.append(Problem("ivp.fun_zero", ivp.fun_zero, (0.0, a([1.0, 2.0])), (1,)))
    out.append(
        Problem(
            "ivp.fun_linear",
            ivp.fun_linear,
            (0.0, a([0.0, 2.0])),
            (1,),
            jac=lambda t, y: ivp.jac_linear(),
        )
    )
    out.append(
        Problem(
            "ivp.fun_rational",
            ivp.fun_rational,
            (5.0, a([1 / 3, 2 / 9])),
            (1,),
            jac=ivp.jac_rational,
            sparsity=ivp.jac_rational_sparse(5.0, a([1 / 3, 2 / 9])),
        )
    )
    n = 6
    y0 = np.zeros(2 * n)
    y0[1::2] = 1
    out.append(
        Problem(
            "ivp.fun_medazko",
            ivp.fun_medazko,
            (1.0, y0 + 0.1),
            (1,),
            sparsity=ivp.medazko_sparsity(n),
        )
    )
    out.append(
        Problem(
            "ivp.fun_event_dense_output_LSODA",
            ivp.fun_event_dense_output_LSODA,
            (1.0, a([0.05])),
            (1,),
            jac=lambda t, y: np.atleast_2d(ivp.jac_event_dense_output_LSODA(t, y)),
        )
    )
    out.append(
        Problem(
            "ivp.fun_complex.real", ivp.fun_complex, (0.0, a([0.5, 1.0])), (1,), jac=ivp.jac_complex
        )
    )
    robertson = local_function(ivp.test_integration_stiff, "fun_robertson")
    out.append(Problem("ivp.fun_robertson", robertson, (0.0, a([1e4, 0.0, 0.0])), (1,)))
    # odeint/ode problems: f(z, t).
    osc, decay = ode.SimpleOscillator(), ode.CoupledDecay()
    out.append(Problem("ode.SimpleOscillator.f", osc.f, (osc.z0, 0.0), (0,)))
    out.append(Problem("ode.CoupledDecay.f", decay.f, (a(decay.z0), 0.0), (0,)))
    # solve_bvp: fun(x, y[, p]) vectorised over the mesh x; bc(ya, yb[, p]).
    x = np.linspace(0, 1, 4)
    y2 = np.vstack([np.linspace(0.2, 0.9, 4), np.linspace(-0.3, 0.4, 4)])
    out.append(Problem("bvp.exp_fun", bvp.exp_fun, (x, y2), (1,), jac=bvp.exp_fun_jac, bvp=True))
    out.append(
        Problem("bvp.emden_fun", bvp.emden_fun, (x, y2), (1,), jac=bvp.emden_fun_jac, bvp=True)
    )
    p1 = a([1.3])
    out.append(Problem("bvp.sl_fun", bvp.sl_fun, (x, y2, p1), (1, 2), jac=bvp.sl_fun_jac, bvp=True))
    y8 = np.vstack([np.linspace(0.1 * i, 0.5 + 0.1 * i, 4) for i in range(8)])
    out.append(
        Problem(
            "bvp.big_fun_with_parameters",
            bvp.big_fun_with_parameters,
            (x, y8, a([1.1, 0.7])),
            (1, 2),
            jac=bvp.big_fun_with_parameters_jac,
            bvp=True,
        )
    )
    out.append(Problem("bvp.big_fun", bvp.big_fun, (x, y8), (1,)))
    out.append(Problem("bvp.shock_fun", bvp.shock_fun, (x, y2), (1,)))
    ya, yb = a([0.3, -0.2]), a([0.8, 0.5])
    out.append(Problem("bvp.exp_bc", bvp.exp_bc, (ya, yb), (0, 1), jac=bvp.exp_bc_jac))
    out.append(Problem("bvp.emden_bc", bvp.emden_bc, (ya, yb), (0, 1), jac=bvp.emden_bc_jac))
    out.append(Problem("bvp.sl_bc", bvp.sl_bc, (ya, yb, p1), (0, 1, 2), jac=bvp.sl_bc_jac))
    out.append(
        Problem(
            "bvp.big_bc_with_parameters",
            bvp.big_bc_with_parameters,
            (y8[:, 0], y8[:, -1], a([1.1, 0.7])),
            (0, 1, 2),
            jac=bvp.big_bc_with_parameters_jac,
        )
    )
    out.append(
        Problem("bvp.nonlin_bc_bc", bvp.nonlin_bc_bc, (a([0.01, 0.2]), a([-0.5, 0.1])), (0, 1))
    )
    # least_squares: fun(x).
    out.append(Problem("ls.fun_trivial", ls.fun_trivial, (a([2.0]),), jac=ls.jac_trivial))
    out.append(
        Problem("ls.fun_2d_trivial", ls.fun_2d_trivial, (a([1.0, 2.0]),), jac=ls.jac_2d_trivial)
    )
    out.append(
        Problem("ls.fun_rosenbrock", ls.fun_rosenbrock, (a([-2.0, 1.0]),), jac=ls.jac_rosenbrock)
    )
    out.append(
        Problem(
            "ls.fun_rosenbrock_cropped",
            ls.fun_rosenbrock_cropped,
            (a([-2.0, 1.0]),),
            jac=ls.jac_rosenbrock_cropped,
        )
    )
    out.append(Problem("ls.fun_bvp", ls.fun_bvp, (np.linspace(0.1, 0.9, 16),)))
    br = ls.BroydenTridiagonal(n=12)
    out.append(Problem("ls.BroydenTridiagonal", br.fun, (br.x0,), jac=br.jac, sparsity=br.sparsity))
    ef = ls.ExponentialFittingProblem(1, 0.1, 0.1, rng=0)
    out.append(Problem("ls.ExponentialFittingProblem", ef.fun, (a([0.3, 0.2]),), jac=ef.jac))
    # minimize / trust-constr: fun, grad, hess; constraints' jac and hess(x, v).
    for prob in (mc.Maratos(), mc.HyperbolicIneq(), mc.Elec(n_electrons=3)):
        nm = f"mc.{type(prob).__name__}"
        x0 = np.asarray(prob.x0, dtype=float) + (0.1 if nm == "mc.HyperbolicIneq" else 0.0)
        out.append(Problem(nm, prob.fun, (x0,), jac=prob.grad, hess=prob.hess))
        c = prob.constr
        cs = c.jac(x0)
        out.append(
            Problem(
                nm + ".constr",
                c.fun,
                (x0,),
                jac=lambda x, j=c.jac: np.atleast_2d(dense(j(x))),
                lag=c.hess,
                sparsity=cs if sp.issparse(cs) else None,
            )
        )
    mta = mc.MaratosTestArgs(3, 4)
    out.append(
        Problem("mc.MaratosTestArgs", mta.fun, (a(mta.x0), 3, 4), jac=mta.grad, hess=mta.hess)
    )
    c = mta.constr
    out.append(
        Problem(
            "mc.MaratosTestArgs.constr",
            c.fun,
            (a(mta.x0),),
            jac=lambda x, j=c.jac: np.atleast_2d(j(x)),
            lag=c.hess,
        )
    )
    for n in (2, 6):
        r = mc.Rosenbrock(n)
        out.append(Problem(f"mc.Rosenbrock@{n}", r.fun, (r.x0,), jac=r.grad, hess=r.hess))
    r = hus.Rosenbrock(5)
    out.append(Problem("hus.Rosenbrock@5", r.fun, (r.x0,), jac=r.grad, hess=r.hess))
    out.append(
        Problem(
            "optimize.rosen@7", rosen, (np.linspace(-0.4, 0.7, 7),), jac=rosen_der, hess=rosen_hess
        )
    )
    co = to.CheckOptimize()
    co.setup_method()
    out.append(
        Problem("to.CheckOptimize", co.func, (a([0.1, -0.2, 0.3]),), jac=co.grad, hess=co.hess)
    )
    k = a([1.0, 2.0, 3.0, 4.0])
    out.append(
        Problem(
            "mp.pressure_network",
            mp.pressure_network,
            (a([2.0, 1.5, 1.2, 1.0]), 4.0, k),
            jac=mp.pressure_network_jacobian,
        )
    )
    tl = mp.TestLeastSq()
    tl.setup_method()
    out.append(
        Problem(
            "mp.TestLeastSq.residuals",
            tl.residuals,
            (a([3.0, 40.0, -300.0]), tl.y_meas, tl.x),
            jac=tl.residuals_jacobian,
        )
    )
    # test_differentiable_functions.py's examples; test_slsqp.py (args=(-1.0,): sign a
    # parameter); test_optimize.py TestLBFGSBBounds (p=2.0 a parameter).
    from scipy.optimize.tests import test_differentiable_functions as tdf
    from scipy.optimize.tests import test_slsqp as tsl

    exs, exv = tdf.ExScalarFunction(), tdf.ExVectorialFunction()
    x2 = a([0.7, -0.4])
    out.append(Problem("tdf.ExScalarFunction", exs.fun, (x2,), jac=exs.grad, hess=exs.hess))
    out.append(Problem("tdf.ExVectorialFunction", exv.fun, (x2,), jac=exv.jac, lag=exv.hess))
    sq = tsl.TestSLSQP()
    sq.setup_method()
    out.append(Problem("tsl.TestSLSQP.fun", sq.fun, (a([-1.0, 1.0]), -1.0), jac=sq.jac))
    for nm in ("f_eqcon", "f_ieqcon", "f_ieqcon2"):
        jac = getattr(sq, nm.replace("f_", "fprime_"))
        one = nm != "f_ieqcon2"
        out.append(
            Problem(
                f"tsl.TestSLSQP.{nm}",
                getattr(sq, nm) if not one else functools.partial(getattr(sq, nm), sign=-1.0),
                (a([-1.0, 1.0]),),
                jac=jac if not one else (lambda x, j=jac: j(x, -1.0)),
            )
        )
    lb = to.TestLBFGSBBounds()
    out.append(Problem("to.TestLBFGSBBounds", lb.fun, (a([0.0, -1.0]), 2.0), jac=lb.jac))
    return out


def dense(m: object) -> np.ndarray:
    return m.toarray() if hasattr(m, "toarray") else np.asarray(m, dtype=float)


def moved(p: Problem, rng: np.random.Generator) -> tuple:
    """The problem's arguments, those differentiated moved by U(-0.2, 0.2) each."""
    args = list(p.args)
    for i in p.wrt:
        v = np.asarray(args[i], dtype=float)
        args[i] = v + rng.uniform(-0.2, 0.2, v.shape)
    return tuple(args)


def flat(got: object, p: Problem, args: tuple) -> np.ndarray:
    """One matrix (outputs x differentiated entries) from JAX's nesting: one entry per
    output where ``fun`` returns a list, in it one block per differentiated argument."""
    out = p.fun(*args)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    per_output = list(got) if isinstance(out, (list, tuple)) else [got]
    rows = []
    for o, g in zip(outs, per_output, strict=True):
        blocks = list(g) if len(p.wrt) > 1 else [g]
        size = max(np.size(o), 1)
        rows.append(np.hstack([dense(b).reshape(size, -1) for b in blocks]))
    return np.vstack(rows)


def bvp_blocks(p: Problem, args: tuple, theirs: object) -> list[np.ndarray]:
    """A BVP's ``(n, n, m)`` (and ``(n, k, m)``) blocks as the ``(n*m, ...)`` rows of the
    whole Jacobian: ``df_i(x_k)/dy_j(x_l)`` is 0 for ``k != l``."""
    parts = theirs if isinstance(theirs, tuple) else (theirs,)
    y = np.asarray(args[1])
    n, m = y.shape
    out = []
    for i, part in zip(p.wrt, parts, strict=True):
        width = np.asarray(args[i]).size
        if i == 1:
            J = np.zeros((n, m, n, m))
            for k in range(m):
                J[:, k, :, k] = part[:, :, k]
            out.append(J.reshape(n * m, n * m))
        else:
            out.append(np.transpose(part, (0, 2, 1)).reshape(n * m, width))
    return out


def reference(p: Problem, args: tuple) -> np.ndarray | None:
    """The hand-written Jacobian at ``args`` as one matrix (outputs x differentiated
    entries), None where the test gives none."""
    if p.jac is None:
        return None
    theirs = p.jac(*args)
    if p.bvp:
        return np.hstack(bvp_blocks(p, args, theirs))
    if isinstance(theirs, tuple):
        return np.hstack([dense(b).reshape(dense(b).shape[0], -1) for b in theirs])
    J = dense(theirs)
    return J.reshape(1, -1) if J.ndim == 1 else J


def differences(p: Problem, args: tuple, of: Callable | None = None) -> np.ndarray:
    """Central differences of ``of`` (the function) in the differentiated arguments."""
    sizes = [np.asarray(args[i]).size for i in p.wrt]
    shapes = [np.shape(args[i]) for i in p.wrt]
    of = of or p.fun

    def g(z: np.ndarray) -> np.ndarray:
        full = list(args)
        at = 0
        for i, s, sh in zip(p.wrt, sizes, shapes, strict=True):
            full[i] = z[at : at + s].reshape(sh)
            at += s
        return np.asarray(of(*full), dtype=float).ravel()

    z0 = np.concatenate([np.asarray(args[i], dtype=float).ravel() for i in p.wrt])
    return np.atleast_2d(approx_derivative(g, z0, method="3-point"))


def error(a: np.ndarray, b: np.ndarray) -> float:
    if a.shape != b.shape:
        return float("inf")
    scale = max(1.0, float(np.abs(b).max(initial=0.0)))
    return float(np.abs(a - b).max(initial=0.0) / scale) if np.isfinite(a).all() else np.inf


def verdict(ours: np.ndarray, theirs: np.ndarray | None, fd: Callable[[], np.ndarray]) -> str:
    """``ok``, ``THEIRS`` or ``WRONG`` with the errors."""
    if theirs is not None:
        err = error(ours, theirs)
        if err <= TOL:
            return f"ok err {err:.1e}"
    judge = fd()
    err_fd = error(ours, judge)
    if theirs is None:
        return f"{'ok' if err_fd <= FD_TOL else 'WRONG'} FD err {err_fd:.1e}"
    theirs_fd = error(theirs, judge)
    if err_fd <= FD_TOL < theirs_fd:
        return f"THEIRS err {err:.1e} (theirs vs FD {theirs_fd:.1e}, ours vs FD {err_fd:.1e})"
    return f"WRONG err {err:.1e} (theirs vs FD {theirs_fd:.1e}, ours vs FD {err_fd:.1e})"


def stored(J: object) -> object:
    """``J``'s tree with each sparse block replaced by its pattern (1 where stored)."""
    if isinstance(J, (tuple, list)):
        return type(J)(stored(b) for b in J)
    if not sp.issparse(J):
        raise TypeError("not sparse")
    pattern = sp.csr_array(J, dtype=float, copy=True)
    pattern.data[:] = 1.0  # stored zeros too: the structure, not the values
    return pattern


def pattern_check(p: Problem, flatten: Callable, J: object, truth: np.ndarray) -> str:
    """Where dgraph's sparse pattern is not within the test's own sparsity or misses a
    nonzero of ``truth``: a line saying so, else ''."""
    try:
        tree = stored(J)
    except TypeError:
        return " | not sparse"
    ours = flatten(tree) != 0
    ours = ours.reshape(truth.shape)
    big = np.abs(truth) > 1e-12 * max(1.0, float(np.abs(truth).max(initial=0.0)))
    missed = int(np.count_nonzero(big & ~ours))
    out = f" | PATTERN misses {missed} nonzeros" if missed else ""
    if p.sparsity is not None:
        theirs = dense(sp.coo_array(p.sparsity).astype(bool).astype(float)) != 0
        if theirs.shape == ours.shape:
            extra = int(np.count_nonzero(ours & ~theirs))
            out += f" | PATTERN {extra} entries outside theirs" if extra else ""
            out += f" | nnz {int(ours.sum())} theirs {int(theirs.sum())}"
    return out


def case(p: Problem, args: tuple, kind: str) -> str:
    names = list(inspect.signature(p.fun).parameters)
    params = [names[i] for i in range(len(args)) if i not in p.wrt]
    order = [args[i] for i in p.wrt] + [args[i] for i in range(len(args)) if i not in p.wrt]
    extra = ""
    if kind in ("jac", "jac-sp"):
        made = dgraph.make_function(
            p.fun, "jacobian", point=list(args), params=params, sparse=kind == "jac-sp"
        )
        got = made(*order)
        ours = flat(got, p, args)
        theirs = reference(p, args)
        if theirs is not None and ours.shape != theirs.shape and ours.size == theirs.size:
            ours = ours.reshape(theirs.shape)  # a scalar objective's gradient
        msg = verdict(ours, theirs, lambda: differences(p, args))
        if kind == "jac-sp":
            extra = pattern_check(
                p,
                lambda t: flat(t, p, args),
                got,
                theirs if theirs is not None else differences(p, args),
            )
    elif kind in ("hess", "hess-sp"):
        if p.hess is None:
            return "SKIP no hess"
        made = dgraph.make_function(
            p.fun, "hessian", point=list(args), params=params, sparse=kind == "hess-sp"
        )
        ours = dense(made(*order))
        theirs = dense(p.hess(*args))
        msg = verdict(ours, theirs, lambda: differences(p, args, p.jac))
        if kind == "hess-sp":
            extra = pattern_check(p, dense, made(*order), theirs)
    else:
        if p.lag is None:
            return "SKIP no lag"
        x = args[0]
        m = np.atleast_1d(p.fun(x)).size
        v = np.linspace(0.7, -0.4, m)
        made = dgraph.make_function(p.fun, "hessian", point=[x], weights=v)
        ours = dense(made(x, v))
        theirs = dense(p.lag(x, v))
        msg = verdict(ours, theirs, lambda: differences(p, (x,), lambda z: v @ p.jac(z)))
    verified = getattr(made.generated, "verified", "?")
    if msg.startswith("ok") and verified is not True:
        msg = "NOTVER " + msg[3:]
    why = "" if verified is True else " | " + str(made.generated.check.status)[:160]
    return f"{msg} verified={verified}{extra}{why}"


def run(p: Problem, cases: list[str]) -> None:
    rng = np.random.default_rng(0)
    for where, args in (("own", p.args), ("rand", moved(p, rng))):
        for kind in cases:
            msg, cpu = survey_case(functools.partial(case, p, args, kind), LIMIT)
            if not msg.startswith("SKIP"):
                print(f"{p.name:34s} {where:4s} {kind:8s} {cpu:6.2f}s {msg}", flush=True)


def main() -> None:
    if sys.argv[1:2] == ["table"]:
        survey_table(sys.argv[2:], CASES, "problems")
        return
    if sys.argv[1:2] == ["solve"]:
        solver_runs()
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("names", nargs="?", default="")
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    wanted = set(args.names.split(",")) if args.names else None
    for p in problems():
        if wanted is None or p.name in wanted:
            run(p, args.cases.split(","))


# ----------------------------------------------------------------------------- solvers


def solver_runs() -> None:
    """dgraph's generated code handed to the solvers as their tests hand theirs: each
    line a solver, the Jacobian given (dgraph's in Python and C, the test's own, none),
    whether it succeeded, its counts and its distance from the test's expected answer."""
    from scipy.integrate import solve_ivp
    from scipy.integrate._ivp.tests import test_ivp as ivp
    from scipy.optimize import NonlinearConstraint, least_squares, minimize
    from scipy.optimize.tests import test_least_squares as ls
    from scipy.optimize.tests import test_minimize_constrained as mc

    y0 = np.array([1 / 3, 2 / 9])
    robertson = local_function(ivp.test_integration_stiff, "fun_robertson")
    r0 = np.array([1e4, 0.0, 0.0])
    for lang in ("python", "c"):
        J = dgraph.make_function(
            ivp.fun_rational, "jacobian", lang=lang, point=[5.0, y0], params=["t"]
        )
        R = dgraph.make_function(robertson, "jacobian", lang=lang, point=[0.0, r0], params=["t"])
        for method in ("BDF", "Radau", "LSODA"):
            # test_ivp.py test_integration: t_span [5, 9], errors against sol_rational
            for name, jac in (
                (f"dgraph-{lang}", lambda t, y, J=J: J(y, t)),
                ("theirs", ivp.jac_rational),
            ):
                if lang == "c" and name == "theirs":
                    continue
                res = solve_ivp(
                    ivp.fun_rational, [5, 9], y0, rtol=1e-3, atol=1e-6, method=method, jac=jac
                )
                e = ivp.compute_error(res.y, ivp.sol_rational(res.t), 1e-3, 1e-6)
                print(
                    f"ivp fun_rational {method:6s} {name:14s} success={res.success} "
                    f"nfev={res.nfev} njev={res.njev} nlu={res.nlu} max_e={np.max(e):.3f}"
                    " (test: e < 5)"
                )
            # test_integration_stiff: Robertson over [0, 1e8], nfev < 5000, njev < 200
            for name, jac in (
                (f"dgraph-{lang}", lambda t, y, R=R: np.vstack(R(y, t))),
                ("none", None),
            ):
                if lang == "c" and name == "none":
                    continue
                res = solve_ivp(
                    robertson, [0, 1e8], r0, rtol=1e-6, atol=1e-6, method=method, jac=jac
                )
                print(
                    f"ivp fun_robertson {method:6s} {name:14s} success={res.success} "
                    f"nfev={res.nfev} njev={res.njev} nlu={res.nlu} y_end={res.y[:, -1]}"
                    " (test: nfev < 5000, njev < 200)"
                )
    # test_least_squares.py SparseMixin: BroydenTridiagonal, trf, its sparse jac
    p = ls.BroydenTridiagonal(n=100)
    for lang in ("python", "c"):
        Js = dgraph.make_function(p.fun, "jacobian", lang=lang, point=[p.x0], sparse=True)
        for name, jac in ((f"dgraph-{lang}", Js), ("theirs", p.jac)):
            if lang == "c" and name == "theirs":
                continue
            res = least_squares(p.fun, p.x0, jac=jac, bounds=(p.lb, p.ub), method="trf")
            print(
                f"least_squares BroydenTridiagonal(100) trf {name:14s} status={res.status} "
                f"nfev={res.nfev} njev={res.njev} cost={res.cost:.1e} "
                f"optimality={res.optimality:.1e}"
            )
    # test_minimize_constrained.py TestTrustRegionConstr: trust-constr to x_opt
    for prob in (mc.Maratos(), mc.HyperbolicIneq(), mc.Elec(n_electrons=4)):
        x0 = np.asarray(prob.x0, dtype=float)
        c = prob.constr
        for lang in ("python", "c"):
            g = dgraph.make_function(prob.fun, "jacobian", lang=lang, point=[x0])
            h = dgraph.make_function(prob.fun, "hessian", lang=lang, point=[x0])
            cj = dgraph.make_function(c.fun, "jacobian", lang=lang, point=[x0])
            v = np.ones(np.size(c.fun(x0)))
            ch = dgraph.make_function(c.fun, "hessian", lang=lang, point=[x0], weights=v)
            ours = NonlinearConstraint(
                c.fun,
                c.lb,
                c.ub,
                lambda x, cj=cj: np.atleast_2d(cj(x)),
                lambda x, v, ch=ch: ch(x, v),
            )
            for name, args in (
                (f"dgraph-{lang}", (g, h, ours)),
                ("theirs", (prob.grad, prob.hess, c)),
            ):
                if lang == "c" and name == "theirs":
                    continue
                res = minimize(
                    prob.fun,
                    x0,
                    method="trust-constr",
                    jac=args[0],
                    hess=args[1],
                    constraints=args[2],
                    bounds=prob.bounds,
                )
                off = (
                    f"|x - x_opt| = {np.max(np.abs(res.x - prob.x_opt)):.1e}"
                    if prob.x_opt is not None
                    else f"fun={res.fun:.10f}"
                )
                print(
                    f"trust-constr {type(prob).__name__:14s} {name:14s} status={res.status} "
                    f"nit={res.nit} nfev={res.nfev} njev={res.njev} nhev={res.nhev} {off}"
                )


if __name__ == "__main__":
    main()
