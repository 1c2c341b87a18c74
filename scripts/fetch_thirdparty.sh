#!/usr/bin/env bash
# Fetch the third-party web apps the tests under tests/thirdparty/ walk (nothing of them is committed).
#
#   scripts/fetch_thirdparty.sh           fetch when missing (quick no-op when the copy is there)
#   scripts/fetch_thirdparty.sh --force   fetch again
#
# TodoMVC's implementations, written by other people, come from the npm registry as the pinned
# package todomvc@0.1.1, fetched with the ordinary npm client (`npm pack`). The tarball is checked
# against the registry's sha512 integrity written below before anything is unpacked. Only what the
# tests serve is kept, under .cache/thirdparty/todomvc/package/:
#   examples/vanillajs/  examples/backbone/  (each with its own bower_components)
#   learn.json           (todomvc-common's base.js loads it from the site root for its side bar)
#
# Cypress's TodoMVC app (cypress-io/cypress-example-todomvc, React in TypeScript) is built from its
# sources in tests/corpus/import/cypress-todomvc/app/: `npm ci` installs the versions its
# package-lock.json pins (each tarball checked against the lock's sha512 integrity), then tsc and
# browserify build js/bundle.js as upstream's `npm run build` does. Only what the app serves is kept,
# under .cache/thirdparty/cypress-todomvc/ (index.html, js/bundle.js, the three node_modules files
# index.html loads); the marker is the lock's and the sources' sha256.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pkg="todomvc@0.1.1"
# `npm view todomvc@0.1.1 dist.integrity`
integrity="sha512-gd6+DoObD0yzXEpbvHvkSoOd9/krxd/wvUTbzvKe7uTjAM2v9wG6zy4Icl6aUcMpDof53Cz2l5O/9mdN3Jk+ag=="
dest="$here/.cache/thirdparty/todomvc"
keep=(package/examples/vanillajs package/examples/backbone package/learn.json)

force=0
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "fetch_thirdparty.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'fetch_thirdparty.sh: error: %s\n  hint: %s\n' "$1" "$2" >&2; exit 1; }

# The marker is written last, so a copy with the right marker is a complete copy of this version.
fetch_cypress_todomvc() {
  local src="$here/tests/corpus/import/cypress-todomvc/app" out="$here/.cache/thirdparty/cypress-todomvc"
  local marker build
  marker=$(cd "$src" && cat package-lock.json index.html js/* | sha256sum | cut -d' ' -f1)
  if [ "$force" = 0 ] && [ "$(cat "$out/.integrity" 2>/dev/null || true)" = "$marker" ] && [ -f "$out/js/bundle.js" ]; then
    say "Cypress's TodoMVC app already in ${out#"$here"/}"
    return 0
  fi
  build=$(mktemp -d "${TMPDIR:-/tmp}/flowwalk-cypress-todomvc.XXXXXX")
  cp -R "$src/." "$build/"
  say "installing the packages Cypress's TodoMVC app is built from (its package-lock.json) from the npm registry"
  if ! (cd "$build" && npm ci --ignore-scripts --no-audit --no-fund --silent >"$build/ci.out" 2>"$build/ci.err"); then
    sed 's/^/  npm: /' "$build/ci.err" >&2
    rm -rf "$build"
    die "'npm ci' of Cypress's TodoMVC app failed" "check that the npm registry is reachable, then run again"
  fi
  # tsc exits 2 on the type errors React 16's types have under es5 (upstream's own build too), and
  # writes the JavaScript all the same: what counts is that app.js was written
  (cd "$build" && node node_modules/typescript/bin/tsc -p ./js/ >"$build/tsc.out" 2>&1 || true)
  if [ ! -f "$build/js/app.js" ] || ! (cd "$build" && node node_modules/browserify/bin/cmd ./js/app.js -o ./js/bundle.js); then
    sed 's/^/  tsc: /' "$build/tsc.out" >&2
    rm -rf "$build"
    die "could not build Cypress's TodoMVC app" "run again with --force; if it persists, report it"
  fi
  rm -rf "$out"
  mkdir -p "$out/js"
  cp "$build/index.html" "$out/"
  cp "$build/js/bundle.js" "$out/js/"
  for file in todomvc-common/base.css todomvc-app-css/index.css director/build/director.js; do
    mkdir -p "$out/node_modules/$(dirname "$file")"
    cp "$build/node_modules/$file" "$out/node_modules/$file"
  done
  rm -rf "$build"
  printf '%s\n' "$marker" >"$out/.integrity"
  say "Cypress's TodoMVC app ready in ${out#"$here"/}"
}

if [ "$force" = 0 ] && [ "$(cat "$dest/.integrity" 2>/dev/null || true)" = "$integrity" ]; then
  complete=1
  for path in "${keep[@]}"; do [ -e "$dest/$path" ] || complete=0; done
  if [ "$complete" = 1 ]; then
    say "third-party apps already in ${dest#"$here"/} ($pkg)"
    fetch_cypress_todomvc
    exit 0
  fi
fi

command -v npm >/dev/null 2>&1 \
  || die "npm is not installed; it fetches $pkg for tests/thirdparty/" \
         "install Node.js and npm (Debian: apt-get install npm), then run scripts/fetch_thirdparty.sh again"
command -v node >/dev/null 2>&1 \
  || die "node is not installed; it checks the integrity of $pkg" "install Node.js (Debian: apt-get install nodejs)"

work=$(mktemp -d "${TMPDIR:-/tmp}/flowwalk-thirdparty.XXXXXX")
trap 'rm -rf "$work"' EXIT

say "fetching $pkg from the npm registry"
if ! (cd "$work" && npm pack "$pkg" --silent >"$work/pack.out" 2>"$work/pack.err"); then
  sed 's/^/  npm: /' "$work/pack.err" >&2
  die "'npm pack $pkg' failed" "check that the npm registry is reachable (npm config get registry; proxy settings), then run again"
fi
tarball="$work/todomvc-0.1.1.tgz"
[ -f "$tarball" ] || die "'npm pack $pkg' did not write $(basename "$tarball")" "run 'npm pack $pkg' by hand to see what npm says"

# npm's integrity string is "sha512-" + the base64 of the tarball's SHA-512 digest.
actual="sha512-$(node -e 'const c=require("crypto"),f=require("fs");process.stdout.write(c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$tarball")"
[ "$actual" = "$integrity" ] \
  || die "the tarball of $pkg has integrity '$actual', expected '$integrity'" \
         "the registry served something else than the pinned release; do not use it (check the registry or mirror you use)"

mkdir -p "$work/unpacked"
tar -xzf "$tarball" -C "$work/unpacked" "${keep[@]}" \
  || die "could not unpack ${keep[*]} from $(basename "$tarball")" "run again with --force; if it persists, report it"

rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$work/unpacked" "$dest"
printf '%s\n' "$integrity" >"$dest/.integrity"
say "third-party apps ready in ${dest#"$here"/} ($pkg)"
fetch_cypress_todomvc
