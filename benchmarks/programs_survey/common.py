"""Programs as users write them (session 40, survey40): 37 small ML and science
programs in ``programs/``, each ``<name>_np.py`` (NumPy, read with ``--inputs``) and a
JAX version (``<name>_jax.py`` where it is written apart, else the NumPy one in
jax.numpy), their inputs (``INPUTS``), parameters (``PARAMS``) and
points (``POINT``) in the NumPy file. ``api.py`` compares every API case with JAX,
``cli.py`` runs every command twice, ``table.py`` tabulates the two logs."""

import importlib
import os
import re
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TWINS = tempfile.mkdtemp(prefix="jax_twins_")  # the JAX versions read off the NumPy ones
sys.path[:0] = [os.path.join(HERE, "programs"), TWINS]

SCALAR = {"xent", "embed", "logreg", "lj", "convlax", "mlploss", "gmm", "pendulum", "tv", "huber"}
NAMES = [
    "mlp",
    "mlploss",
    "layernorm",
    "xent",
    "attn",
    "conv",
    "convlax",
    "embed",
    "logreg",
    "batchnorm",
    "lj",
    "robertson",
    "lap_roll",
    "lap_slice",
    "burgers",
    "upwind",
    "swe",
    "ieuler",
    "spline",
    "interp",
    "quat",
    "kalman",
    "kalsolve",
    "einsum",
    "cumdiff",
    "fft",
    "complex",
    "gru",
    "rk4",
    "gmm",
    "heat",
    "masked",
    "pendulum",
    "tv",
    "huber",
    "polar",
    "bilinear",
]
# session 41 (survey41): optimization, statistics, physics, robotics, ML, finance, signal
SCALAR |= {"arwhead", "dixmaana", "chainwoo", "penalty1", "lagrange", "studentt", "negbin",
           "poisglm", "mixll", "springs", "softreg", "vae", "flow", "gpnll", "heston", "edges",
           "chainsp"}  # fmt: skip
NAMES41 = [
    "arwhead",
    "dixmaana",
    "chainwoo",
    "broydn3d",
    "penalty1",
    "lagrange",
    "studentt",
    "negbin",
    "poisglm",
    "mixll",
    "nbody",
    "springs",
    "maxwell",
    "vortex",
    "grayscott",
    "lotka",
    "fk6",
    "bundle",
    "se3exp",
    "rnn",
    "lstm",
    "softreg",
    "rope",
    "vae",
    "flow",
    "gpnll",
    "bs",
    "heston",
    "fir",
    "stft",
    "edges",
    "chainsp",
]


def _jax_twin(name):
    """``<name>_jax``: its file where the JAX version is written apart (``jax.nn``,
    ``logsumexp``, ``lax``), else the NumPy file with ``np.`` read as ``jnp.``, written to
    a folder of its own and imported from there."""
    if os.path.exists(os.path.join(HERE, "programs", name + "_jax.py")):
        return importlib.import_module(name + "_jax")
    with open(os.path.join(HERE, "programs", name + "_np.py"), encoding="utf-8") as fh:
        text = fh.read()
    text = "import jax.numpy as jnp\n" + re.sub(r"\bnp\.", "jnp.", text)
    with open(os.path.join(TWINS, name + "_jax.py"), "w", encoding="utf-8") as fh:
        fh.write(text)
    return importlib.import_module(name + "_jax")


def load(name):
    np_mod = None
    if os.path.exists(os.path.join(HERE, "programs", name + "_np.py")):
        np_mod = importlib.import_module(name + "_np")
    jax_mod = _jax_twin(name)
    spec_mod = np_mod or jax_mod
    specs = []
    for item in spec_mod.INPUTS.split(","):
        n, _, s = item.partition(":")
        specs.append((n, tuple(int(d) for d in s.split("x")) if s else ()))
    params = [p for p in getattr(spec_mod, "PARAMS", "").split(",") if p]
    return np_mod, jax_mod, specs, params


def point(mod_np, mod_jax, specs, seed):
    rng = np.random.default_rng(seed)
    for m in (mod_np, mod_jax):
        if m is not None and hasattr(m, "POINT"):
            return [np.asarray(a, float) for a in m.POINT(rng)]
    return [rng.normal(size=s) for _, s in specs]


def flat_fn(fj, specs, params, args):
    """g(xflat) -> concatenated flattened outputs, params fixed at args' values."""
    import jax.numpy as jnp

    diff = [i for i, (n, _) in enumerate(specs) if n not in params]

    def g(xf):
        a = list(args)
        off = 0
        for i in diff:
            shp = specs[i][1]
            size = int(np.prod(shp)) if shp else 1
            a[i] = xf[off : off + size].reshape(shp)
            off += size
        out = fj(*a)
        out = tuple(out.values()) if isinstance(out, dict) else out  # a dict: its key order
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return jnp.concatenate([jnp.ravel(jnp.asarray(o)) for o in outs])

    xf = np.concatenate([np.ravel(args[i]) for i in diff])
    pf = (
        np.concatenate([np.ravel(args[i]) for i, (n, _) in enumerate(specs) if n in params])
        if params
        else None
    )
    return g, xf, pf, diff


# session 42 (survey42): FEM, power systems, optimal control, chemistry, statistics, ML,
# numerics
SCALAR |= {"neohook", "truss", "weibull", "gammall", "dirichlet", "vonmises", "betabin", "zip",
           "tobit", "ordinal", "cox", "pinball", "infonce", "krr", "tsne", "sinkhorn",
           "mdn"}  # fmt: skip
NAMES42 = ["femp1", "neohook", "truss", "cotan", "powerflow", "mshoot", "hermsimp",
           "arrhenius", "cstr", "weibull", "gammall", "dirichlet", "vonmises", "betabin",
           "zip", "tobit", "ordinal", "cox", "pinball", "infonce", "cossim", "krr", "tsne",
           "sinkhorn", "groupnorm", "causal", "mdn", "cheb", "polytrap", "xcorr", "kepler",
           "blp", "pdist"]  # fmt: skip


# session 43 (survey43): vision, robotics, signal processing, finance, PDE, ML, statistics
SCALAR |= {"ik3", "nsiegel", "cvar", "poisson2", "cnnpool", "focal", "lsmooth", "hawkes", "hmm",
           "arma", "garch", "lasso", "triplet", "lqr", "btrank", "amer"}  # fmt: skip
NAMES43 = ["homog", "splat", "ik3", "iir", "biquad", "dftwin", "savgol", "amer", "sabr",
           "nsiegel", "cvar", "poisson2", "levelset", "wave", "cnnpool", "gelu", "focal",
           "gumbel", "lsmooth", "node", "cubic", "condscan", "hawkes", "hmm", "arma", "garch",
           "camdist", "cumprod", "lasso", "triplet", "haar", "lqr", "trim", "btrank"]  # fmt: skip


# session 44 (survey44): molecular dynamics, transformers, MoE, GPs, smoothing, particle
# filters, epidemics, pharmacology, statistical physics, rods/contact, tensor networks,
# uncertainty quantification, finance, vision, flows, PINNs, control, linear algebra
SCALAR |= {"morse", "matern", "pfll", "pkpd", "ising", "rod", "contact", "shrink", "oflow",
           "pinn", "clipsort"}  # fmt: skip
NAMES44 = ["morse", "tblock", "moe", "matern", "rts", "pfll", "seir", "pkpd", "ising", "rod",
           "contact", "whit", "mps", "pce", "impvol", "ycurve", "shrink", "oflow", "coupling",
           "pinn", "cbf", "lstsq", "icdf", "einrep", "cjvp", "batchmm", "clipsort",
           "otvmap"]  # fmt: skip


# session 45 (survey45): stable softplus/entropy by np.where, np.select/np.piecewise,
# robust losses, norms, pooling, linear recurrences (associative_scan), vmap in_axes, CRF,
# CTC, soft-DTW, beam FEM, leapfrog, chemical equilibrium, pipe networks, a battery model,
# copulas, Mahalanobis, Kabsch, SO(3) log, de Boor, Chebyshev, MUSCL, level-k, power
# iteration, expm, masked log-softmax, Elo, Weibull AFT
SCALAR |= {"splus", "entropy", "tukey", "persample", "crf", "ctc", "sdtw", "chemeq", "copula",
           "kabsch", "levelk", "mlogsm", "elo", "aft"}  # fmt: skip
NAMES45 = ["splus", "entropy", "pwise", "norms", "crf", "beam", "tukey", "avgpool", "linrec",
           "persample", "ctc", "sdtw", "leapfrog", "chemeq", "pipes", "ecm", "copula", "mahal",
           "kabsch", "so3log", "deboor", "chebd", "muscl", "levelk", "power", "expm", "mlogsm",
           "elo", "aft"]  # fmt: skip


# session 46 (survey46): GNN message passing (np.add.at / segment_sum), mixed models
# (np.bincount weights), RMSNorm + SwiGLU (a params dict, tree_map), ALiBi causal
# attention (np.triu of -inf), a reparameterised ELBO, stick-breaking, Simpson quadrature,
# spectral derivatives (rfft/irfft), rigid bodies (np.cross, fori_loop), dihedrals,
# Colebrook (while_loop), MPC with saturation, portfolios (np.cov), leave-one-out KDE
# (np.fill_diagonal), haversine trilateration, Bézier arc length (leggauss), a bucket
# hydrology model, CES demand, Erlang queues, a ZINB GLM, ray tracing, an energy balance
# model (np.gradient), the Wishart density (tril_indices), PointNet (jax.checkpoint,
# custom_jvp), Laplacian eigenvalues (eigvalsh)
SCALAR |= {"mixed", "elbo", "stick", "spectral", "dihedral", "mpc", "sharpe", "kdeloo",
           "haversine", "bezier", "zinb", "wishart", "pointnet"}  # fmt: skip
NAMES46 = ["gcn", "mixed", "rmsnorm", "alibi", "elbo", "stick", "simpson", "spectral",
           "rigidb", "dihedral", "colebrook", "mpc", "sharpe", "kdeloo", "haversine",
           "bezier", "hbv", "ces", "erlang", "zinb", "snell", "ebm", "wishart", "pointnet",
           "fiedler"]  # fmt: skip


# session 47 (survey47): hyperbolic embeddings (arccosh), NeRF rendering (a dict of
# outputs), CIR yields (expm1, a dataclass default), SPH kernels, ListMLE (argsort,
# logaddexp.accumulate reversed), drawdowns (maximum.accumulate, quantile), a VQE (np.kron),
# Tucker (tensordot, moveaxis), Markov chains (matrix_power, vstack), Hodgkin-Huxley (a
# NamedTuple and a class with __call__), a double slit (sinc at 0), a weighted SVM (fmax,
# heaviside), Beta KL (digamma), a censored Poisson (gammainc), ex-Gaussian (erfc),
# Box-Cox (scipy.special.boxcox at 0), Johnson SU (arcsinh), a diode (lambertw), pose
# graphs (einsum ellipsis), QR least squares, soft Q-learning (stop_gradient), a bicycle
# model (functools.partial, scan), polyfit, Gaussian blobs (ogrid, pad modes), a
# piecewise-exponential hazard (digitize), Heckman selection (scipy.stats.norm)
SCALAR |= {"poincare", "cir", "listmle", "drawdown", "vqe", "tucker", "slit", "svm", "betakl",
           "cenpois", "exgauss", "boxcox", "johnsonsu", "tdq", "blobs", "pwhaz",
           "heckman"}  # fmt: skip
NAMES47 = ["poincare", "nerf", "cir", "listmle", "vqe", "betakl", "sph", "drawdown", "tucker",
           "markov", "hh", "slit", "svm", "cenpois", "exgauss", "boxcox", "johnsonsu", "diode",
           "posegraph", "qrls", "tdq", "bicycle", "polyfit", "blobs", "pwhaz",
           "heckman"]  # fmt: skip


# session 48 (survey48): GEV and generalized Pareto likelihoods (the xi -> 0 branch,
# scipy.stats.genpareto), sparsemax and 1.5-entmax (sort, cumsum, take_along_axis), a
# rational-quadratic spline flow (searchsorted bins), a Mamba selective scan
# (associative_scan), relu6 / hard-swish / mish (jax.nn), ArcFace (arccos of a clipped
# cosine, a float32 constant), an ARD GP (cdist, cho_factor), Peng-Robinson (a fixed-count
# Newton), the XY model (roll, mod), Stillinger-Weber three-body loops, gradient /
# trapezoid / convolve(same) / sinc, vander / cross / hypot / mod, a Gauss-Hermite GLMM
# (hermgauss), a bisection quantile (fori_loop), Tweedie deviance (0 ** (2 - p)),
# Dirichlet-multinomial, Kumaraswamy, Black-76 (T = 0), a Merton jump series, dict / pytree
# parameters (tree_map), Kuramoto (complex order parameter), sorting Wasserstein, a
# projectile (hypot, argmax of a crossing)
SCALAR |= {"gev", "gpd", "entmax", "rqspline", "mamba", "arcface", "ardgp", "xymodel",
           "swthree", "numgrad", "ghglmm", "bisect", "tweedie", "dirmult", "kumar",
           "treeparams", "kuramoto", "w1sort"}  # fmt: skip
NAMES48 = ["gev", "sparsemax", "rqspline", "activ", "arcface", "tweedie", "gpd", "entmax",
           "mamba", "ardgp", "pengrob", "xymodel", "swthree", "numgrad", "vander", "ghglmm",
           "bisect", "dirmult", "kumar", "black76", "merton", "treeparams", "kuramoto",
           "w1sort", "projectile"]  # fmt: skip


# session 50 (lead): an interior-point log barrier, RankNet pairs (triu_indices, a tie), a
# hand-written stable log-sum-exp (a tie at the max), log det by slogdet with a trace of an
# inverse, Student-t regression with its degrees of freedom (gammaln), an L2-SVM (squared
# hinge at a margin exactly 0), a mixture by np.logaddexp.reduce, a Chebyshev fit (chebval,
# chebder of traced coefficients), scipy.optimize.rosen, scipy.stats.multivariate_normal
# with a learned covariance, soft labels by log_softmax and xlogy, spectral and nuclear
# norms, a learned convolution kernel and clip bounds, torques by np.cross, KL by rel_entr,
# an eigenvalue barrier (eigvalsh), np.interp and a CubicSpline at traced queries (one on a
# knot), np.unwrap of wrapped phases, ellipsis einsums, ELU / SELU / stable softplus
SCALAR |= {"logbar", "pairrank", "smoothmax", "slogreg", "studnu", "hingesq", "mixlse",
           "chebfit", "rosenopt", "mvnlp", "xlogsm", "specnorm", "convclip", "torque",
           "relentr", "eigmin", "interpq", "unwrap", "einell", "elu", "maskattn", "pairdist",
           "wlse", "trapz2", "newton3", "lbfgs2", "cummax"}  # fmt: skip
NAMES50 = ["logbar", "pairrank", "smoothmax", "slogreg", "studnu", "hingesq", "mixlse",
           "chebfit", "rosenopt", "mvnlp", "xlogsm", "specnorm", "convclip", "torque",
           "relentr", "eigmin", "interpq", "unwrap", "einell", "elu", "maskattn", "pairdist",
           "wlse", "trapz2", "newton3", "lbfgs2", "cummax"]  # fmt: skip


# session 55 (survey55): CUTEst objectives from their published formulas (BROYDN7D with
# |t|^(7/3) at t = 0, SROSENBR by strided slices, FLETCHCR, NONDIA by a loop, TRIDIA, DQRTIC,
# EDENSCH, CRAGGLVY with tan, GENHUMPS at its start), a Levenberg-Marquardt step (solve of
# JᵀJ + μI), a fit through np.linalg.pinv, smooth L1 / dice / contrastive losses, Plackett-
# Luce (reversed cumsum), quantile regression (np.percentile of traced residuals),
# tensordot with axes tuples and axes=0, np.kron, np.pad reflect/edge/wrap/symmetric and
# np.diff(n=2, prepend, append), np.gradient with two spacings and reversed cumsums,
# np.isclose / np.isfinite guards and np.clip with array bounds, logsumexp(where=), one_hot,
# take(mode="clip"), a fixed jax.random key, scipy.linalg.solve_banded of an array built in
# place, a Black-Scholes book's greeks, an augmented Lagrangian (np.average weights=),
# max pooling (sliding_window_view; lax.reduce_window SAME), a sliced Wasserstein (sort of 2-D)
SCALAR |= {"broydn7d", "srosenbr", "fletchcr", "nondia", "tridia", "dqrtic", "edensch",
           "cragglvy", "genhumps", "gaussnewton", "pinvfit", "segloss", "plackett",
           "quantreg", "guards", "nnmask", "randkey", "bsgreeks", "lagrangian", "maxpool",
           "sliced", "assoc2", "femenergy", "lstsqj", "matpow", "taxbrk", "f32mlp"}  # fmt: skip
NAMES55 = ["broydn7d", "srosenbr", "fletchcr", "nondia", "tridia", "dqrtic", "edensch",
           "cragglvy", "genhumps", "gaussnewton", "pinvfit", "segloss", "plackett", "quantreg",
           "tensnet", "padstencil", "gradcum", "guards", "nnmask", "randkey", "implicit",
           "bsgreeks", "lagrangian", "maxpool", "sliced", "assoc2", "femenergy", "lstsqj", "matpow",
           "taxbrk", "f32mlp"]  # fmt: skip


# session 61 (survey61): robotics (planar and DH forward kinematics, a geometric manipulator
# Jacobian, Newton-Euler inverse dynamics, manipulability, Euler-angle PnP), chemical
# kinetics (an H2/O2 mechanism with third bodies, Troe fall-off, an Arrhenius fit, an RK4
# batch reactor), finance (Heston by complex Gil-Pelaez quadrature, a bond curve by np.interp,
# CDS par spreads from hazards, a Monte Carlo Asian call), signal and image processing
# (scipy.signal.convolve2d, bilinear warping by floor indices, scipy.signal.lfilter, Sobel
# edges), geometry (barycentric coordinates, ray-sphere shading, vertex normals by
# np.add.at, quaternion slerp), geodesy and astronomy (Kepler elements to ECI, geodetic to
# ENU with Bowring steps, RA/Dec to alt/az, an orbit fit), and JAX idioms (vmap inside,
# lax.switch/cond, custom_jvp, checkpoint in a scan, NamedTuple pytrees with tree_map,
# eigvalsh/qr/cholesky)
SCALAR |= {"manip", "kinfit", "asian", "sobel", "orbitfit", "jckpt", "jtree", "jcustom"}
NAMES61 = ["planar3", "mjac", "rnea", "manip", "eulerpc", "h2o2", "troe", "kinfit", "batchrx",
           "hestoncf", "bondcurve", "cds", "asian", "conv2d", "warp", "lfilt", "sobel", "bary",
           "raysph", "vnormals", "slerp", "orbit", "geodetic", "altaz", "orbitfit", "jvmapfk",
           "jswitch", "jcustom", "jckpt", "jtree", "jeigh"]  # fmt: skip
