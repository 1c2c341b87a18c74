#!/usr/bin/env bash
# composite/action.yml, step `install`: flowwalk into a virtual environment of its own.
#
#   PYTHON            the interpreter to build the environment from (setup-python's python-path)
#   FLOWWALK_VERSION  the released version this action pins (action.yml keeps it equal to the package's)
#   FLOWWALK_PACKAGE  optional, set by the caller: what pip installs instead (a wheel, a checkout, a
#                     mirror's requirement), for testing a commit or for a runner without PyPI access
#
# Writes `python=<the environment's interpreter>` to $GITHUB_OUTPUT. Playwright comes as a pip
# dependency without any browser: the browser is the runner's own (browser.sh).
set -euo pipefail

: "${PYTHON:?PYTHON names the interpreter to build the environment from}"
: "${GITHUB_OUTPUT:?GITHUB_OUTPUT is set by the runner}"
package=${FLOWWALK_PACKAGE:-flowwalk==${FLOWWALK_VERSION:?FLOWWALK_VERSION is set by action.yml}}
venv="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/flowwalk-venv"

echo "flowwalk: installing $package into $venv"
"$PYTHON" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$package"
"$venv/bin/python" -m flowwalk.cli --version
echo "python=$venv/bin/python" >>"$GITHUB_OUTPUT"
