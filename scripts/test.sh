#!/usr/bin/env bash
# The test command: installs what the tests need (Debian's Chromium, the package and its test
# dependencies into .venv), then runs the whole suite. Extra arguments go to pytest.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/install.sh" --with-tests
cd "$here"
exec "$here/.venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
