# The image behind action.yml: .github/workflows/release.yml builds it for linux/amd64 and
# linux/arm64 on a version tag and pushes it to ghcr.io, and action.yml runs
# `docker://ghcr.io/flowwalk/flowwalk:<version>`; the project's CI builds this file for each commit,
# and tests/container/ builds it and runs it as GitHub's runner does.
#
# Debian bookworm with Python 3.11. Chromium's headless shell comes from Debian's own packages
# through scripts/install.sh, the same install script the README and CI use: `--system` installs
# flowwalk into this image's Python instead of a virtual environment, `--headless-only` leaves out
# Debian's full `chromium` (every run walks in the headless shell; docs/action.md says what that
# saved). Two steps, so the layer of Debian's packages is rebuilt only when install.sh changes.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_ROOT_USER_ACTION=ignore

COPY scripts/install.sh /opt/flowwalk/scripts/install.sh
RUN /opt/flowwalk/scripts/install.sh --system --headless-only --packages-only \
    && rm -rf /var/lib/apt/lists/*

# PYTHONDONTWRITEBYTECODE above means no run writes bytecode, and the editable install compiles
# nothing: without compileall every job would compile flowwalk's sources again before its first
# check (about 0.1 to 0.3 s of CPU, measured on `validate` and `run` outside the image).
COPY . /opt/flowwalk
RUN /opt/flowwalk/scripts/install.sh --system --headless-only \
    && python -m compileall -q /opt/flowwalk/src \
    && flowwalk --version

# No USER: the runner mounts the workspace owned by root and the action must write its report
# there. No WORKDIR: the runner starts the container in /github/workspace, which it mounts.
ENTRYPOINT ["/usr/local/bin/python", "-m", "flowwalk.github.entrypoint"]
