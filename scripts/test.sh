#!/usr/bin/env bash
# The test command: installs what the tests need (Debian's Chromium, the package and its test
# dependencies into .venv), then runs the whole suite. Extra arguments go to pytest.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/install.sh" --with-tests
cd "$here"
# Four pytest-xdist workers: most browser tests wait on pages and timeouts, so four overlap those
# waits on two cores; the container tests stay on one worker (one image build, one podman storage).
# FLOWWALK_TEST_WORKERS=0 runs them in this process, one after the other. Work goes out in
# collection order, where tests/conftest.py puts the tests marked `long` first.
exec "$here/.venv/bin/python" -m pytest -q -p no:cacheprovider -n "${FLOWWALK_TEST_WORKERS:-4}" --dist loadgroup \
  --no-loadscope-reorder "$@"
