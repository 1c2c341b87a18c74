#!/usr/bin/env bash
# composite/action.yml, step `browser`: which Chrome or Chromium of the runner flowwalk launches.
#
# In order: FLOWWALK_CHROMIUM when the caller pins one (it must exist); CHROME_BIN (GitHub's
# Ubuntu images set it to their Google Chrome); then google-chrome, google-chrome-stable, chromium
# and chromium-browser on PATH. Writes `executable=<path>` to $GITHUB_OUTPUT; the next step hands it
# to flowwalk as FLOWWALK_CHROMIUM. No browser is downloaded: a runner without one gets an error
# that says how to add one.
set -euo pipefail

: "${GITHUB_OUTPUT:?GITHUB_OUTPUT is set by the runner}"

fail() {
  echo "::error title=flowwalk browser::$1"
  printf 'flowwalk: error: %s\n  hint: %s\n' "$1" "$2" >&2
  exit 1
}

found=""
if [ -n "${FLOWWALK_CHROMIUM:-}" ]; then
  [ -x "$FLOWWALK_CHROMIUM" ] \
    || fail "FLOWWALK_CHROMIUM is '$FLOWWALK_CHROMIUM', which is not an executable file" \
            "point it at an installed Chrome or Chromium, or leave it unset to use the runner's"
  found=$FLOWWALK_CHROMIUM
elif [ -n "${CHROME_BIN:-}" ] && [ -x "$CHROME_BIN" ]; then
  found=$CHROME_BIN
else
  for name in google-chrome google-chrome-stable chromium chromium-browser; do
    if path=$(command -v "$name"); then
      found=$path
      break
    fi
  done
fi

[ -n "$found" ] \
  || fail "no Chrome or Chromium on this runner (looked at CHROME_BIN, google-chrome, google-chrome-stable, chromium, chromium-browser)" \
          "install one in an earlier step (Debian/Ubuntu: apt-get install chromium), or set FLOWWALK_CHROMIUM to its path"

echo "flowwalk: browser $found"
echo "executable=$found" >>"$GITHUB_OUTPUT"
