#!/bin/sh
# Regenerate every figure in docs/figures from the bundled graphs (run from anywhere).
set -eu
cd "$(dirname "$0")/.."
py=.venv/bin/python
[ -x "$py" ] || py=python3
out=docs/figures
mkdir -p "$out"
data=dgraph/data
$py -m dgraph render $data/naumann_sin.trace -o $out/sin-dataflow.svg
$py -m dgraph render $data/naumann_sin.trace -o $out/sin-dependence.svg --direction dependence
$py -m dgraph render $data/naumann_discrepancy.json -o $out/discrepancy.svg
$py -m dgraph render $data/zhou_two_blocks.json -o $out/two-blocks-dependence.svg --direction dependence
$py -m dgraph render $data/spherical_coordinates.trace -o $out/spherical-coordinates.svg
$py - <<'PY'
from dgraph import bundled
from dgraph.elimination.metagraph import metagraph
from dgraph.render.dot import metagraph_dot

svg = metagraph_dot(metagraph(bundled("naumann_sin.trace"))).pipe(format="svg")
open("docs/figures/sin-metagraph.svg", "wb").write(svg)
print("wrote docs/figures/sin-metagraph.svg")
PY
$py -m dgraph render $data/zhou_complex_block.json -o $out/complex-block.svg --direction dependence
$py -m dgraph accumulate $data/zhou_complex_block.json -m zhou --strategy global --variant backward --graph-out $out/complex-backward.svg > /dev/null
$py -m dgraph accumulate $data/zhou_complex_block.json -m zhou --strategy global --variant forward --graph-out $out/complex-forward.svg > /dev/null
echo "wrote $out/complex-backward.svg $out/complex-forward.svg"
# Elimination stages: dgraph's own eliminations (LabeledGraph) on the bundled graphs,
# drawn by its renderer with each edge labeled by the value it holds at that stage
# (edge symbols, products in matrix order, references expanded).
$py - <<'PY'
import sympy

from dgraph import DGraph, bundled
from dgraph.elimination.labeled import LabeledGraph
from dgraph.render.dot import render


def stage(name, moves, out):
    lg = LabeledGraph(bundled(name))
    for move in moves:
        lg.apply(move)
    refs = {}
    for r, d in lg.references.items():
        refs[r] = d.xreplace(refs)
    g = DGraph(lg.graph.name)
    for v in lg.graph.order():
        if v in lg.g:
            g.add_vertex(v, lg.graph.role(v))
    for u, v in lg.g.edges:
        g.add_edge(u, v)
    labels = {(u, v): sympy.sstr(d["label"].xreplace(refs)) for u, v, d in lg.g.edges(data=True)}
    render(g, out, edge_labels=labels)
    print(f"wrote {out}")


f = "docs/figures"
sin, disc = "naumann_sin.trace", "naumann_discrepancy.json"
stage(sin, [], f"{f}/sin-symbols.svg")
stage(sin, [("vertex", "v1")], f"{f}/sin-vertex-v1.svg")
stage(sin, [("vertex", "v2")], f"{f}/sin-vertex-v2.svg")
stage(sin, [("vertex", "v2"), ("vertex", "v1")], f"{f}/sin-bipartite.svg")
stage(sin, [("forward", ("v1", "y"))], f"{f}/sin-forward-v1-y.svg")
stage(sin, [("backward", ("x0", "v2"))], f"{f}/sin-backward-x0-v2.svg")
stage(disc, [("forward", ("i", "y1"))], f"{f}/discrepancy-forward-i-y1.svg")
PY
# Umbrellas (Murota-Kubota) and D* factor subgraphs, drawn as dashed clusters.
$py - <<'PY'
from dgraph import bundled
from dgraph.render.regions import closed_umbrella_regions, factor_subgraph_regions, umbrella_regions
from dgraph.render.dot import to_dot

g = bundled("spherical_coordinates.trace")
open("docs/figures/umbrellas.svg", "wb").write(to_dot(g, regions=umbrella_regions(g)).pipe(format="svg"))
print("wrote docs/figures/umbrellas.svg")
t = bundled("zhou_two_blocks.json")
inner = [r for r in closed_umbrella_regions(t, hierarchy=True) if r.name != "closed umbrella t->r"]
open("docs/figures/closed-umbrellas.svg", "wb").write(to_dot(t, "dependence", regions=inner).pipe(format="svg"))
print("wrote docs/figures/closed-umbrellas.svg")
d = bundled("naumann_discrepancy.json")
(top, count), = factor_subgraph_regions(d)[:1]
open("docs/figures/dstar-factor.svg", "wb").write(to_dot(d, "dependence", regions=[top]).pipe(format="svg"))
print(f"wrote docs/figures/dstar-factor.svg ({top.name}, in {count} pairs)")
PY
# A unit-joined group: what every elimination owes at u and v together (concepts §12).
$py - <<'PY'
from dgraph import from_trace
from dgraph.render.regions import Region
from dgraph.render.dot import to_dot
from dgraph.search.junction_bounds import group_bounds

g = from_trace("inputs: x1, x2\noutputs: y1, y2\nu = x1*x2\nv = u + 1\ny1 = sin(v)\ny2 = cos(v)")
(members, owed), = group_bounds(g)
group = Region(f"group {', '.join(members)}: owes {owed}", frozenset(members), frozenset({("u", "v")}))
labels = {(a, b): g.partial(a, b) for a, b in g.edges()}
open("docs/figures/junction-group.svg", "wb").write(to_dot(g, edge_labels=labels, regions=[group]).pipe(format="svg"))
print("wrote docs/figures/junction-group.svg")
PY
# Four entries through one product, each owing its own last multiplication (concepts §12).
$py - <<'PY'
from dgraph import from_trace
from dgraph.render.dot import to_dot

g = from_trace("inputs: x0, x1\noutputs: y0, y1\nt1 = x0*x1\nt2 = cos(t1)\ny0 = t2\ny1 = t2*x0")
labels = {(a, b): g.partial(a, b) for a, b in g.edges()}
open("docs/figures/bracketing-entries.svg", "wb").write(to_dot(g, edge_labels=labels).pipe(format="svg"))
print("wrote docs/figures/bracketing-entries.svg")
PY
# Face elimination: the line graph before and after one face, and the circular example.
$py - <<'PY'
from dgraph import bundled
from dgraph.faces.elimination import FaceState
from dgraph.faces.examples import circular_example
from dgraph.render.faces import face_state_dot

def write(dot, name):
    open(f"docs/figures/{name}", "wb").write(dot.pipe(format="svg"))
    print(f"wrote docs/figures/{name}")

s = FaceState(bundled("naumann_discrepancy.json"))
write(face_state_dot(s, [("k->i", "i->y1")], "line graph of the discrepancy graph"), "discrepancy-line-graph.svg")
s.eliminate(*s.face_by_name("k->i", "i->y1"))
write(face_state_dot(s, [], "after eliminating [k→i, i→y1]"), "discrepancy-line-graph-after.svg")
c = FaceState(circular_example().graph)
write(face_state_dot(c, [("s->u", "u->v"), ("u->v", "v->t")], "the two faces that wait for each other"), "circular-line-graph.svg")
PY
# A linear system's residual graph: the double pendulum in mass-matrix form (codegen.md).
$py - <<'PY'
from dgraph import from_linear_system
from dgraph.bench.pendulum import n_link_pendulum
from dgraph.render.dot import to_dot
p = n_link_pendulum(2)
g = from_linear_system(p.kane.mass_matrix_full, p.kane.forcing_full, p.states, params=p.params, name="double pendulum, mass-matrix form")
labels = {(a, b): g.partial(a, b) for a, b in g.edges()}
open("docs/figures/linear-system.svg", "wb").write(to_dot(g, edge_labels=labels).pipe(format="svg"))
print("wrote docs/figures/linear-system.svg")
PY
# The gallery: every benchmark graph and the notebooks' figures as SVG and PNG.
$py docs/gallery/make_gallery.py
# A tensor graph (docs/arrays.md): a dense layer read from its jaxpr at the array level.
$py - <<'PY'
import jax.numpy as jnp
import numpy as np

from dgraph import from_jax
from dgraph.render import draw


def layer(x, W):
    h = jnp.tanh(x @ W)
    return jnp.sum(h * h, axis=1)


g = from_jax(layer, np.ones((8, 3)), np.ones((3, 4)), level="array", name="layer")
draw(g).save("docs/figures/tensor-layer.svg")
print("wrote docs/figures/tensor-layer.svg")
PY
# A loop as a region (docs/control_flow.md): a reaction-diffusion scan of 3 steps on a ring
# of 12 cells, its one region vertex, and the body graph the region holds.
$py - <<'PY'
import jax.numpy as jnp
import numpy as np
from jax import lax

from dgraph import from_jax
from dgraph.core.regions import regions_of
from dgraph.render import draw


def integrate(u, d):
    def step(u, _):
        lap = jnp.roll(u, 1) + jnp.roll(u, -1) - 2.0 * u
        return u + 0.1 * (d * lap + u - u**3), None

    return lax.scan(step, u, None, length=3)[0]


g = from_jax(integrate, np.full(12, 0.5), np.array(0.3), level="array", name="rd")
((_, region),) = regions_of(g)
draw(g).save("docs/figures/loop-region.svg")
draw(region.body.graph).save("docs/figures/loop-body.svg")
print("wrote docs/figures/loop-region.svg docs/figures/loop-body.svg")
PY
# Sparse Jacobians (docs/sparse.md): the Bratu residual's tensor graph, and the patterns of
# the Bratu and Brusselator Jacobians on an 8×8 grid (matplotlib's spy; needs matplotlib).
$py - <<'PY'
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import dgraph
from dgraph.frontends import from_function
from dgraph.render import draw


def residuals(n):
    def bratu(u):
        p = np.pad(u, 1)
        lap = (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u) * (n + 1) ** 2
        return lap + 5.0 * np.exp(u)

    def laplacian(w):
        p = np.pad(w, 1)
        return (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * w) * (n + 1) ** 2

    def brusselator(u, v):
        uuv = u * u * v
        return 0.02 * laplacian(u) + 1.0 + uuv - 2.5 * u, 0.02 * laplacian(v) + 1.5 * u - uuv

    return bratu, brusselator


def matrix(jacobian, g):  # one CSR matrix, from either form of the sparse result
    if not isinstance(jacobian, dict):
        return jacobian
    import scipy.sparse

    return scipy.sparse.block_array([[jacobian.get((y, x)) for x in g.inputs] for y in g.outputs], format="csr")


bratu, _ = residuals(32)
draw(from_function(bratu, sizes=[(32, 32)], level="array", name="bratu")).save("docs/figures/sparse-bratu.svg")
print("wrote docs/figures/sparse-bratu.svg")
n = 8
bratu, brusselator = residuals(n)
fig, axes = plt.subplots(1, 2, figsize=(9, 4.6))
for ax, f, k, name in zip(axes, (bratu, brusselator), (1, 2), ("Bratu", "Brusselator")):
    g = from_function(f, sizes=[(n, n)] * k, level="array")
    J = matrix(dgraph.make_function(g, "jacobian", sparse=True)(*[np.full((n, n), 0.5)] * k), g)
    ax.spy(J, markersize=2.5 if k == 1 else 1.5)
    ax.set_xlabel(f"{name}, {n}×{n} grid: {J.shape[0]}×{J.shape[1]}, {J.nnz} nonzeros")
fig.tight_layout()
fig.savefig("docs/figures/sparse-pattern.png", dpi=110)
print("wrote docs/figures/sparse-pattern.png")
PY
# The architecture page's two pictures: the pipeline (hand-drawn DOT) and the layers (read from the code).
dot -Tsvg docs/pipeline.dot -o $out/pipeline.svg
$py docs/layers.py | dot -Tsvg -o $out/layers.svg
echo "wrote $out/pipeline.svg $out/layers.svg"
# Dixon's Hessian graph in its mirror layout (dgraph.render.hessian): DOMAIN §11's worked
# example and f = sin(a·b + c), where all three kinds of edge appear.
$py - <<'PY'
import sympy

from dgraph.frontends import from_sympy, from_trace
from dgraph.render import draw_hessian

x, y = sympy.symbols("x y")
draw_hessian(from_sympy(x * y + sympy.sin(x), [x, y])).save("docs/figures/hessian-worked.svg")
trace = "inputs: a, b, c\noutputs: f\nv = a*b\nw = v + c\nf = sin(w)"
draw_hessian(from_trace(trace)).save("docs/figures/hessian-sin-ab.svg")
print("wrote docs/figures/hessian-worked.svg docs/figures/hessian-sin-ab.svg")
PY
