"""podman for tests/container/: its own settings and storage, the stand-in base, the image built once.

Nothing global changes. podman reads `containers.conf` beside this file (CONTAINERS_CONF: runc,
no default ulimits, cgroupfs) and a `storage.conf` written into the project's cache folder
(CONTAINERS_STORAGE_CONF: overlay storage under `~/.cache/flowwalk/containers/`, or
`$FLOWWALK_CONTAINER_CACHE`), so the machine's own images and containers are never seen, let alone
touched. The cache is outside the checkout on purpose: CI runs a fresh clone, and the base image
(see base.sh) is kept between runs on the machine and made again only when it is missing or its
recipe changed.

Everything here is created by these tests; what they remove is theirs: the containers they
started, the session's image tag, and images of their own storage left untagged for an hour.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Mapping, Sequence

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CONTAINERS_CONF = HERE / "containers.conf"
BASE_SCRIPT = HERE / "base.sh"
#: the Dockerfile's FROM, made locally by base.sh under this very name (only in the tests' storage)
BASE_IMAGE = "docker.io/library/python:3.11-slim-bookworm"
IMAGE_REPO = "localhost/flowwalk-test"
HOST_CA = Path("/etc/ssl/certs/ca-certificates.crt")


def cache_dir() -> Path:
    explicit = os.environ.get("FLOWWALK_CONTAINER_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "flowwalk" / "containers"


class EngineUnavailable(RuntimeError):
    """podman cannot build or run a container on this machine; the message says why and what to do."""


@dataclass
class Podman:
    cache: Path = field(default_factory=cache_dir)
    #: ("cached" or "made", seconds) once ensure_base ran
    base_state: tuple[str, float] = ("unknown", 0.0)

    def __post_init__(self) -> None:
        self.cache.mkdir(parents=True, exist_ok=True)
        self.storage_conf = self.cache / "storage.conf"
        wanted = ('# written by tests/container/engine.py: the container tests\' own storage\n'
                  '[storage]\ndriver = "overlay"\n'
                  f'graphroot = "{self.cache / "storage"}"\nrunroot = "{self.cache / "run"}"\n')
        if not self.storage_conf.exists() or self.storage_conf.read_text() != wanted:
            self.storage_conf.write_text(wanted)

    @property
    def env(self) -> dict[str, str]:
        """This process's environment with the tests' own podman settings."""
        return {**os.environ, "CONTAINERS_CONF": str(CONTAINERS_CONF),
                "CONTAINERS_STORAGE_CONF": str(self.storage_conf)}

    def __call__(self, *args: str, check: bool = True, timeout: float = 300,
                 input: str | None = None) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(["podman", *args], env=self.env, capture_output=True, text=True,
                              timeout=timeout, input=input)
        if check and proc.returncode != 0:
            raise AssertionError(f"podman {' '.join(args[:3])} ... exited {proc.returncode}\n"
                                 f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        return proc

    def popen(self, *args: str, **kwargs: object) -> subprocess.Popen[str]:
        return subprocess.Popen(["podman", *args], env=self.env, text=True, **kwargs)  # type: ignore[call-overload, no-any-return]

    @contextmanager
    def lock(self, name: str) -> Iterator[None]:
        """One builder at a time on this machine (several worktrees may run the tests at once)."""
        with open(self.cache / f"{name}.lock", "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    # --- the base ------------------------------------------------------------------------------

    def image_label(self, image: str, label: str) -> str | None:
        proc = self("image", "inspect", "--format", "{{index .Labels \"" + label + "\"}}", image, check=False)
        return proc.stdout.strip() if proc.returncode == 0 else None

    def ensure_base(self) -> tuple[str, float]:
        """The stand-in base, made when missing or when base.sh changed: ("cached"|"made", seconds)."""
        recipe = hashlib.sha256(BASE_SCRIPT.read_bytes()).hexdigest()[:16]
        started = time.monotonic()
        with self.lock("base"):
            if self.image_label(BASE_IMAGE, "io.flowwalk.test-base") == recipe:
                self.base_state = ("cached", time.monotonic() - started)
                return self.base_state
            proc = subprocess.run(["bash", str(BASE_SCRIPT), BASE_IMAGE, recipe], env=self.env,
                                  capture_output=True, text=True, timeout=1200)
            if proc.returncode != 0:
                raise EngineUnavailable(f"making the base image with {BASE_SCRIPT.relative_to(ROOT)} failed "
                                        f"(exit {proc.returncode}):\n{proc.stderr[-3000:]}")
        self.base_state = ("made", time.monotonic() - started)
        return self.base_state

    # --- the image -----------------------------------------------------------------------------

    def build(self, tag: str, *extra: str, dockerfile: Path = ROOT / "Dockerfile",
              context: Path = ROOT, timeout: float = 1500) -> tuple[str, float]:
        """`podman build` of the Dockerfile on the local base: (image id, seconds).

        The host's CA bundle is mounted where Debian's tools (apt, Debian's pip) read it, so the
        build reaches the package registries as this machine does; it stays out of the image."""
        iidfile = self.cache / f"iid-{uuid.uuid4().hex}"
        args = ["build", "--pull=never", "--network=host", "--layers", "--iidfile", str(iidfile),
                "--tag", tag, "--file", str(dockerfile), *extra]
        if HOST_CA.is_file():
            args += ["--volume", f"{HOST_CA}:{HOST_CA}:ro"]
        started = time.monotonic()
        with self.lock("build"):
            self(*args, str(context), timeout=timeout)
        seconds = time.monotonic() - started
        image_id = iidfile.read_text().strip()
        iidfile.unlink()
        return image_id, seconds

    def prune_own_leftovers(self, older_than: str = "1h") -> None:
        """Untagged images of the tests' own storage older than `older_than`: earlier builds, each
        some hundred MB; the newest is tagged `latest` and kept with its layers (the build cache).
        Never an image of anyone else: this storage is the tests' own."""
        self("image", "prune", "--force", "--filter", f"until={older_than}", check=False, timeout=600)

    def image_size(self, image: str) -> int:
        return int(self("image", "inspect", "--format", "{{.Size}}", image).stdout.strip())


def engine_problem(podman: Podman) -> str | None:
    """Why podman cannot run the container tests here, or None when it can (the base is made first)."""
    missing = [tool for tool in ("podman", "runc", "debootstrap") if shutil.which(tool) is None]
    if missing:
        return (f"{', '.join(missing)} not found: scripts/install.sh --with-tests installs them from Debian's "
                "packages (apt-get install podman runc debootstrap)")
    if os.geteuid() != 0:
        return "the container tests run podman as root (debootstrap and the overlay storage need it)"
    try:
        podman.ensure_base()
    except (EngineUnavailable, subprocess.TimeoutExpired) as exc:
        return str(exc)
    proc = podman("run", "--rm", "--network=host", BASE_IMAGE, "true", check=False, timeout=120)
    if proc.returncode != 0:
        return f"podman cannot run a container here (exit {proc.returncode}): {proc.stderr.strip()[-1500:]}"
    return None


def runner_env_args(env: Mapping[str, str]) -> list[str]:
    """`-e NAME=VALUE` for each variable, as the runner passes a Docker action's environment."""
    out: list[str] = []
    for name, value in env.items():
        out += ["-e", f"{name}={value}"]
    return out


def mounts(pairs: Sequence[tuple[Path, str]]) -> list[str]:
    out: list[str] = []
    for host, container in pairs:
        out += ["-v", f"{host}:{container}"]
    return out
