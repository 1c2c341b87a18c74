"""`flowwalk.yaml`: run defaults read from the project root, validated like every other input.

Paths the file names (`paths`, `out_dir`, `quarantine_file`, ...) are relative to the file's own
folder, whatever folder flowwalk runs in (`PATH_KEYS`).

The model (`models.ConfigModel`) names its keys after `Settings` fields, so the settings builder
takes `load_config(path).model_dump(exclude_unset=True)` as its `config` layer unchanged; only
`secrets` (names of environment variables) differs from `Settings.secret_names`. The keys are
documented in `docs/config.md`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from flowwalk.errors import Problem, SpecError, UsageError
from flowwalk.settings import Overrides, Settings, build_settings, find_config, root_of

if TYPE_CHECKING:
    from flowwalk.spec.models import ConfigModel

__all__ = ["PATH_KEYS", "load_config", "read_config", "settings_for"]

#: the keys of flowwalk.yaml that name files or folders, relative to the file's folder
PATH_KEYS = ("paths", "out_dir", "verifiers_dir", "durations_file", "fingerprints_file", "quarantine_file")


def _beside(config: Path, written: str) -> str:
    """A path flowwalk.yaml names, as a path from the working folder (absolute when written so)."""
    return os.path.relpath(os.path.join(os.path.abspath(config.parent), written))


def load_config(path: str | Path, root: str | Path = ".") -> ConfigModel:
    """The validated config file; SpecError with every problem, located, when it is invalid."""
    # the models (pydantic, ~0.2 s to import) only when there is a file: a run without one reads
    # its settings, and starts its browser, before the spec layer is imported (walk/prelaunch.py)
    from pydantic import ValidationError

    from flowwalk.spec.loader import display_path
    from flowwalk.spec.models import ConfigModel
    from flowwalk.spec.problems import errors_to_problems, merged, repeats
    from flowwalk.spec.source import SourceError, escape, load_source, quote

    path = Path(path)
    display = escape(display_path(path, root))   # a line break in the name must not split a problem
    try:
        source = load_source(path, display)
    except SourceError as exc:
        raise SpecError([exc.problem]) from None
    # what spans entries, and the file it names, found whatever else is wrong with the file
    found = [Problem(source.loc(("projects", i, "name")), f"project {quote(name)} is named twice",
                     "give each project its own name") for i, _, name in repeats(source.get(("projects",)), "name")]
    quarantine = source.get(("quarantine_file",))
    if isinstance(quarantine, str) and quarantine and not Path(_beside(path, quarantine)).is_file():
        found.append(Problem(source.loc(("quarantine_file",)), f"quarantine_file {quote(quarantine)} does not exist",
                             "name the quarantine file relative to this file's folder, e.g. "
                             "flowwalk-quarantine.yaml (docs/quarantine.md)"))
    try:
        config = ConfigModel.model_validate(source.data)
    except ValidationError as exc:
        raise SpecError(merged(errors_to_problems(exc, source, ConfigModel), found)) from None
    if found:
        raise SpecError(found)
    return config


def read_config(config_path: str | Path | None, root: str | Path = ".") -> dict[str, Any]:
    """The values flowwalk.yaml sets, its paths made paths from the working folder: `config_path`
    (--config, which must exist), else the one in the project root, else none. A bad file raises
    SpecError with every problem."""
    if config_path and not Path(config_path).is_file():
        from flowwalk.spec.source import escape

        raise UsageError(f"--config '{escape(str(config_path))}' does not exist")
    found = Path(config_path) if config_path else find_config(root)
    if not found:
        return {}
    loaded = load_config(found, root)
    values = loaded.model_dump(exclude_unset=True) if hasattr(loaded, "model_dump") else dict(loaded)
    for key in PATH_KEYS:
        if isinstance(values.get(key), str):
            values[key] = _beside(found, values[key])
        elif isinstance(values.get(key), list):
            values[key] = [_beside(found, p) for p in values[key]]
    return values


def settings_for(overrides: Overrides, env: Mapping[str, str], config_path: str | Path | None) -> Settings:
    """The one way a command builds its Settings: the project root (`--root`, else found from the
    paths named), flowwalk.yaml (`config_path`, else the root's), then the environment, then what the
    command was told (`run`, `plan`, `discover`...)."""
    root, _ = root_of(overrides, env)
    return build_settings(overrides, env, read_config(config_path, root), root=root)
