"""dgraph: differentiation graphs, the cheapest verified formulas for their Jacobians,
and drawings of both.

>>> import dgraph
>>> g = dgraph.from_trace("inputs: x0, x1\\noutputs: y\\nv1 = sin(x1)\\nv2 = x0*v1\\ny = v2*v1")
>>> dgraph.accumulate(g, "reverse").to_text()
'dy/dx0 = d_y_v2*d_v2_x0\\ndy/dx1 = (d_y_v1 + d_y_v2*d_v2_v1)*d_v1_x1'
>>> J = dgraph.make_function(g, "jacobian", method="reverse")
>>> J([2.0, 1.0]).round(4).tolist()
[[0.7081, 1.8186]]
"""

from . import render  # noqa: F401  (installs the output printers: text, LaTeX, HTML, SVG)
from .core.expressions import ExpressionSet, Step
from .core.graph import DGraph
from .core.hessian_graph import hessian_graph
from .core.paths import count_paths, depth_levels, naive_cost, path_length
from .core.verify import Verification, verify
from .errors import DGraphError, GraphError, InputError, SearchTooLarge
from .frontends import (
    bundled,
    from_dict,
    from_function,
    from_jax,
    from_json,
    from_linear_system,
    from_sympy,
    from_trace,
    load,
)
from .methods import METHODS, Comparison, accumulate, compare, jacobian
from .methods.hessian import accumulate_hessian, compare_hessian
from .version import __version__

__all__ = [
    "METHODS",
    "Comparison",
    "DGraph",
    "DGraphError",
    "ExpressionSet",
    "GraphError",
    "InputError",
    "SearchTooLarge",
    "Step",
    "Verification",
    "__version__",
    "accumulate",
    "accumulate_hessian",
    "bundled",
    "compare",
    "compare_hessian",
    "count_paths",
    "depth_levels",
    "draw",
    "explore",
    "from_dict",
    "from_function",
    "from_jax",
    "from_json",
    "from_linear_system",
    "from_sympy",
    "from_trace",
    "hessian",
    "hessian_graph",
    "jacobian",
    "load",
    "load_cuda",
    "make_function",
    "naive_cost",
    "path_length",
    "steps",
    "verify",
]

# loaded on first use, so that ``import dgraph`` stays light
_LAZY = {
    "make_function": "dgraph.codegen.function",
    "hessian": "dgraph.codegen.function",
    "load_cuda": "dgraph.codegen.cuda",
    "draw": "dgraph.render.drawing",
    "explore": "dgraph.render.widget",
    "steps": "dgraph.render.stepviews",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'dgraph' has no attribute {name!r}")
