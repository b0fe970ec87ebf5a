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

# The browser test (tests/test_browser.py) shows example notebooks in headless chromium;
# without it that test is skipped, so a failed install is not fatal.
if [ "$task" = test ] && ! command -v chromium >/dev/null 2>&1 &&
  ! command -v chromium-browser >/dev/null 2>&1; then
  echo "setup: chromium is missing; installing the Debian package chromium" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get install -y -q chromium >/dev/null 2>&1 ||
    { $sudo apt-get update -q >/dev/null 2>&1 && $sudo apt-get install -y -q chromium >/dev/null 2>&1; } ||
    echo "setup: chromium not installed; the browser test will be skipped" >&2
fi

# The LaTeX test (tests/test_latex.py) compiles every TikZ view and an expression set with
# pdflatex; without it that test is skipped, so a failed install is not fatal.
if [ "$task" = test ] && ! command -v pdflatex >/dev/null 2>&1; then
  echo "setup: pdflatex is missing; installing texlive-latex-base texlive-pictures" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  tex="texlive-latex-base texlive-pictures"
  $sudo apt-get install -y -q $tex >/dev/null 2>&1 ||
    { $sudo apt-get update -q >/dev/null 2>&1 && $sudo apt-get install -y -q $tex >/dev/null 2>&1; } ||
    echo "setup: pdflatex not installed; the LaTeX test will be skipped" >&2
fi

# A virtual environment that reuses what the system Python already has.
[ -x .venv/bin/python ] || python3 -m venv --system-site-packages .venv
extras=""
[ "$task" = test ] && extras="[test,jax]"  # the suite runs the JAX frontend's tests too
[ "$task" = docs ] && extras="[docs]"  # Sphinx, myst-nb, numpydoc: docs/conf.py
if ! log=$(.venv/bin/python -m pip install -q --disable-pip-version-check -e ".$extras" 2>&1); then
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
