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
echo "wrote $out/complex-block.svg $out/complex-backward.svg $out/complex-forward.svg"
