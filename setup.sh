#!/bin/sh
# Set up dgraph on a fresh machine (Python >= 3.10 with pip; root or sudo for apt) and run
# one job:  sh setup.sh demo [-o DIR]   |   sh setup.sh test [pytest args]   |   sh setup.sh docs
set -eu
cd "$(dirname "$0")"
task="${1:-demo}"
[ $# -gt 0 ] && shift

if ! command -v dot >/dev/null 2>&1; then
  echo "setup: graphviz's dot is missing; installing the Debian package graphviz" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get install -y -q graphviz >/dev/null 2>&1 ||
    { $sudo apt-get update -q >/dev/null && $sudo apt-get install -y -q graphviz >/dev/null; }
fi

# apt-get install PACKAGES for tests that skip without them: on failure apt's last lines and
# what will skip, which in CI (CI=true) fails the run (tests/skip_policy.py). Without the
# packages they recommend, which the tests never use (chromium's are 150: printing, Samba,
# Perl's web stack, a second Python): a third less install time (benchmarks/RESULTS.md,
# session 67). Graphviz keeps its own: its fonts set the drawings' sizes.
optional_install() {
  what="$1"
  shift
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if log=$($sudo apt-get install -y -q --no-install-recommends "$@" 2>&1) ||
    log=$({ $sudo apt-get update -q &&
      $sudo apt-get install -y -q --no-install-recommends "$@"; } 2>&1); then
    return 0
  fi
  printf '%s\n' "$log" | tail -n 5 >&2
  echo "setup: $* not installed: $what will be skipped (a CI run fails on that skip)" >&2
}

# The browser tests (tests/test_browser.py, test_explore_browser.py) show example notebooks
# in headless chromium.
if [ "$task" = test ] && ! command -v chromium >/dev/null 2>&1 &&
  ! command -v chromium-browser >/dev/null 2>&1; then
  echo "setup: chromium is missing; installing the Debian package chromium" >&2
  optional_install "the browser tests" chromium
fi

# The LaTeX tests (tests/test_latex.py, test_render*.py) compile every TikZ view and an
# expression set with pdflatex.
if [ "$task" = test ] && ! command -v pdflatex >/dev/null 2>&1; then
  echo "setup: pdflatex is missing; installing texlive-latex-base texlive-pictures" >&2
  optional_install "the LaTeX tests" texlive-latex-base texlive-pictures
fi

# A virtual environment that reuses what the system Python already has.
[ -x .venv/bin/python ] || python3 -m venv --system-site-packages .venv
extras=""
[ "$task" = test ] && extras="[test,jax]"  # the suite runs the JAX frontend's tests too
[ "$task" = docs ] && extras="[docs]"  # Sphinx, myst-nb, numpydoc: docs/conf.py
# --no-compile: pip would compile every installed module's bytecode (~14 of its 34 CPU-s
# here); Python compiles the few hundred a run imports on first import instead
if ! log=$(.venv/bin/python -m pip install -q --no-compile --disable-pip-version-check \
  -e ".$extras" 2>&1); then
  echo "$log" >&2
  echo "setup: pip install failed" >&2
  exit 1
fi

case "$task" in
  demo) exec .venv/bin/python -m dgraph demo "$@" ;;
  test) exec .venv/bin/python -m pytest "$@" ;;
  # the site, warnings as errors; notebooks without stored outputs run once (cached)
  docs) exec .venv/bin/python -m sphinx -b html -c docs -W --keep-going -q "$@" . docs/_build/html ;;
  *) echo "usage: sh setup.sh demo|test|docs" >&2; exit 2 ;;
esac
