#!/usr/bin/env bash
# Make the stand-in for the Dockerfile's `FROM python:3.11-slim-bookworm` from Debian's own
# packages, and import it into the test's podman storage under that very name, so the test builds
# the Dockerfile unchanged (`podman build --pull=never`). No container registry is reachable here.
#
#   tests/container/base.sh IMAGE_NAME RECIPE_LABEL      (run by tests/container/engine.py, as root)
#
# How it is made, and what differs from the released base (docs/action.md says it too):
#   - debootstrap --variant=minbase bookworm: the same bootstrap debuerreotype runs for
#     debian:bookworm-slim, from today's bookworm (not a snapshot.debian.org timestamp, which is not
#     reachable here), then the same "slimify": dpkg excludes docs, man pages, info and locales (the
#     copyright files stay), and the same apt settings of Debian's container images;
#   - Python is Debian's python3 (3.11.2) and python3-pip (23.0.1), not python.org's 3.11.x built
#     into /usr/local with pip 24: /usr/local/bin/python and python3 are links to /usr/bin/python3,
#     and Debian's "externally managed" marker is removed, so `pip install` as root installs into
#     /usr/local as it does in the python image; Debian's pip uses the system CA bundle;
#   - the python image's environment is set: PATH with /usr/local/bin first, LANG=C.UTF-8.
set -euo pipefail

name=${1:?image name}
recipe=${2:?recipe label}
mirror=${FLOWWALK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$(mktemp -d "${TMPDIR:-/tmp}/flowwalk-base.XXXXXX")
root="$work/root"
trap 'rm -rf "$work"' EXIT

say() { printf '==> %s\n' "$*" >&2; }
[ "$(id -u)" = 0 ] || { echo "base.sh: debootstrap needs root" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "base.sh: debootstrap is missing (scripts/install.sh --with-tests installs it)" >&2; exit 1; }

say "debootstrap --variant=minbase bookworm from $mirror"
debootstrap --variant=minbase --include=ca-certificates,netbase,tzdata,python3,python3-pip \
  bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; exit 1; }

say "slimify (as debian:bookworm-slim) and python-image parity"
excludes=('/usr/share/doc/*' '/usr/share/groff/*' '/usr/share/info/*' '/usr/share/linda/*'
          '/usr/share/lintian/overrides/*' '/usr/share/locale/*' '/usr/share/man/*')
{
  echo "# The \"slim\" variant, as in debian:bookworm-slim: these files are never installed."
  for pattern in "${excludes[@]}"; do echo "path-exclude $pattern"; done
  echo "path-include /usr/share/doc/*/copyright"
} >"$root/etc/dpkg/dpkg.cfg.d/docker"
for pattern in "${excludes[@]}"; do
  dir=$root${pattern%/\*}
  if [ -d "$dir" ]; then
    find "$dir" -mindepth 1 -depth ! -type d ! -path "$root/usr/share/doc/*/copyright" -delete
  fi
done
cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
echo 'Acquire::Languages "none";' >"$root/etc/apt/apt.conf.d/docker-no-languages"
echo 'Apt::AutoRemove::SuggestsImportant "false";' >"$root/etc/apt/apt.conf.d/docker-autoremove-suggests"
rm -f "$root"/usr/lib/python3*/EXTERNALLY-MANAGED
ln -sf /usr/bin/python3 "$root/usr/local/bin/python"
ln -sf /usr/bin/python3 "$root/usr/local/bin/python3"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/var/cache/ldconfig/aux-cache \
  "$root"/var/log/dpkg.log "$root"/var/log/bootstrap.log "$root"/var/log/alternatives.log "$root"/var/log/apt/*
: >"$root/etc/resolv.conf"
echo localhost >"$root/etc/hostname"

say "podman import as $name"
tar --numeric-owner --xattrs -C "$root" -c . | podman import \
  --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["python3"]' \
  --change "LABEL io.flowwalk.test-base=$recipe" \
  --message "flowwalk test stand-in for python:3.11-slim-bookworm (debootstrap minbase + Debian's python3)" \
  - "$name" >/dev/null
say "base ready: $name ($(du -sh "$root" | cut -f1))"
