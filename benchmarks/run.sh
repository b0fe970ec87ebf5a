#!/bin/sh
# Regenerate benchmarks/RESULTS.md: every figure in it comes from this one run.
set -eu
cd "$(dirname "$0")/.."
py=.venv/bin/python
[ -x "$py" ] || py=python3
cmd="dgraph bench --suite full --budget 5 --markdown"
{
  echo "# Benchmark results"
  echo
  echo "Produced by \`sh benchmarks/run.sh\`, i.e. \`$cmd\`, on $(date -u +%Y-%m-%d)"
  echo "($(uname -m), $(nproc) cores, $($py --version), sympy $($py -c 'import sympy; print(sympy.__version__)'))."
  echo
  cat benchmarks/NOTES.md
  echo
  $py -m dgraph bench --suite full --budget 5 --markdown
  echo
  echo "## Scale"
  echo
  echo "\`python benchmarks/scale.py\` in the same run: time against edges for every stage, with"
  echo "the fitted exponent k of time ~ edges^k (least-squares slope of log seconds over log"
  echo "edges, cells of at least 0.05 s). Random layered graphs have 3 edges into every vertex,"
  echo "4 inputs and 4 outputs; Chebyshev T_n and the real spherical harmonics are built from"
  echo "sympy expressions of their recurrences. A cell is seconds to accumulate + seconds to"
  echo "verify, the structural multiplications in brackets and the child's peak memory; each"
  echo "cell runs in a forked child stopped at 60 s (\"> 60\"). The last table runs \`best\` with"
  echo "a budget of 2 s on layered graphs with one level of inputs and outputs: seconds are wall"
  echo "time, the winner built and verified; the note appears when building and verifying one"
  echo "expression set alone takes longer than the budget."
  echo
  $py benchmarks/scale.py
  echo
  echo "### Face checks without paths"
  echo
  echo "\`python benchmarks/faces_scale.py\` in the same run: \`check_faces\` alone on chains of n"
  echo "diamonds (2^n paths) and layered graphs; the exponent is in the number of paths."
  echo
  $py benchmarks/faces_scale.py
  echo
  echo "## Trust: reading input and verifying at scale"
  echo
  echo "\`python benchmarks/trust.py\` in the same run: traces of n statements (a two-variable"
  echo "recurrence) read by the restricted parser at statement and at elemental granularity,"
  echo "then written as dgraph/1 JSON and read back (timed apart); then reverse-mode expression"
  echo "sets of random layered graphs"
  echo "(3 edges into every vertex, 4 inputs and 4 outputs) verified above the"
  echo "exact limit: the word-shape check, the coefficient bound and random points modulo"
  echo "primes. Growth exponents are least-squares slopes of log(seconds) over log(size)."
  echo
  $py benchmarks/trust.py
  echo
  echo "## Generated code"
  echo
  echo "\`python benchmarks/codegen.py\` in the same run: multiplications in the whole generated"
  echo "\`jacobian(x)\` (primal values, local partials, accumulation) against sympy's"
  echo "\`Matrix.jacobian\` + \`cse\` and CasADi SX \`jacobian\`, counted by one rule"
  echo "(dgraph/codegen/counting.py), then time per point for a batch of 10,000 points. CasADi and"
  echo "JAX columns appear when the \`bench\` extra is installed."
  echo
  $py benchmarks/codegen.py
  echo
  echo "## best on real-world functions"
  echo
  echo "\`python benchmarks/best.py 20\` in the same run (budget 20 s each). Cells: structural /"
  echo "effective multiplications. The goal set for \`best\` is a ratio of 0.80 or lower."
  echo "\"any elimination ≥\" bounds every vertex, edge and face elimination and every dgraph"
  echo "method: what the multiplications at each vertex or joined group of vertices cost"
  echo "(dgraph.search.junction_bounds) or, larger where HiGHS proves it within 240 s, the fewest"
  echo "multiplications that bracket every path (dgraph.search.bracketing_bound). \"lowest ratio"
  echo "possible\" divides it by the best baseline, so where it is above 0.80 no elimination"
  echo "reaches the goal."
  echo
  $py benchmarks/best.py 20
  echo
  echo "## Face elimination"
  echo
  echo "\`python benchmarks/faces.py\` in the same run: whether \`dgraph faces\` realizes each"
  echo "method's expression set by face elimination. \"= m\": realized with exactly its m"
  echo "multiplications; \"< s (m)\": realized with s < m (the method writes a product twice);"
  echo "\"cycle\": circular elimination dependencies; \"-\": the method refused the graph. The"
  echo "check follows no paths, so functions with millions of paths are checked too."
  echo
  $py benchmarks/faces.py
  echo
  echo "## Jacobian chains"
  echo
  echo "\`python benchmarks/chain.py\` in the same run: seeded random chains of q factors (sizes in"
  echo "[1, 50]); costs in fma; ratio = best homogeneous method / optimum; seconds = best of three"
  echo "runs of the dynamic program alone, unbounded and with the tape bound M̄."
  echo
  $py benchmarks/chain.py
  echo
  echo "## Inverse accumulation"
  echo
  echo "\`python benchmarks/inverse.py\` in the same run: J^-1 v by Pearlmutter–Siskind inverse"
  echo "accumulation against forming J and solving densely (numpy, one BLAS thread), on relaxation"
  echo "programs of n variables with and without temporaries; then how well the order rules"
  echo "keep lumps small against the exact search."
  echo
  OPENBLAS_NUM_THREADS=1 $py benchmarks/inverse.py
  echo
  echo "## The peers' test functions"
  echo
  echo "\`python benchmarks/peers.py\` in the same run: Graphax's, asdex's and sparsejac's own test"
  echo "functions (tests/peers/, each citing the test it re-states), at their test points in"
  echo "float64, through \`from_jax(level=\"array\")\` and \`make_function\` in python and jax, dense"
  echo "and sparse, against \`jax.jacrev\`/\`jacfwd\`. Right: equal to JAX's Jacobian; refused: one"
  echo "line; self-check: dgraph's own check refused it (\"did not verify\")."
  echo
  $py benchmarks/peers.py 2>/dev/null
  # sections measured apart (a GPU, long runs) follow the marker line: kept as they are
  if [ -f benchmarks/RESULTS.md ]; then
    echo
    sed -n '/^<!-- outside the full run: benchmarks\/run.sh keeps everything below this line -->$/,$p' \
      benchmarks/RESULTS.md
  fi
} > benchmarks/RESULTS.md.tmp
mv benchmarks/RESULTS.md.tmp benchmarks/RESULTS.md
echo "wrote benchmarks/RESULTS.md"
