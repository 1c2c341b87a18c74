#!/usr/bin/env bash
# flowwalk's main job on the bundled example: installs what it needs, serves examples/site on
# 127.0.0.1, walks examples/flows (and the example rule file and .robot suite) against it, stops
# the site, and leaves the report in flowwalk-report/. Extra arguments go to `flowwalk run`.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/install.sh"
cd "$here"
# The demo password of the example site's demo user; a real run reads secrets from CI secrets.
export DEMO_PASSWORD="${DEMO_PASSWORD:-correct-horse-battery}"
paths=(examples/flows)
for extra in examples/rules examples/robot; do [ -d "$extra" ] && paths+=("$extra"); done
exec "$here/.venv/bin/flowwalk" run "${paths[@]}" --serve examples/site \
  --var DEMO_USER=ada@example.com --secret DEMO_PASSWORD --out flowwalk-report "$@"
