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
  echo "\`python benchmarks/scale.py\` in the same run: random layered graphs (3 edges into every"
  echo "vertex); structure = everything \`dgraph structure\` reports; dstar includes verifying"
  echo "its result (by random matrices at these sizes)."
  echo
  $py benchmarks/scale.py
} > benchmarks/RESULTS.md.tmp
mv benchmarks/RESULTS.md.tmp benchmarks/RESULTS.md
echo "wrote benchmarks/RESULTS.md"
