"""`flowwalk.yaml`: run defaults read from the repository root, validated like every other input.

The model (`models.ConfigModel`) names its keys after `Settings` fields, so the settings builder
takes `load_config(path).model_dump(exclude_unset=True)` as its `config` layer unchanged; only
`secrets` (names of environment variables) differs from `Settings.secret_names`. The keys are
documented in `docs/config.md`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from flowwalk.errors import Problem, SpecError, UsageError
from flowwalk.settings import Overrides, Settings, build_settings, find_config

if TYPE_CHECKING:
    from flowwalk.spec.models import ConfigModel

__all__ = ["load_config", "read_config", "settings_for"]


def load_config(path: str | Path) -> ConfigModel:
    """The validated config file; SpecError with every problem, located, when it is invalid."""
    # the models (pydantic, ~0.2 s to import) only when there is a file: a run without one reads
    # its settings, and starts its browser, before the spec layer is imported (walk/prelaunch.py)
    from pydantic import ValidationError

    from flowwalk.spec.loader import display_path
    from flowwalk.spec.models import ConfigModel
    from flowwalk.spec.problems import errors_to_problems, merged, repeats
    from flowwalk.spec.source import SourceError, escape, load_source, quote

    path = Path(path)
    display = escape(display_path(path))   # a line break in the name must not split a problem
    try:
        source = load_source(path, display)
    except SourceError as exc:
        raise SpecError([exc.problem]) from None
    # what spans entries, and the file it names, found whatever else is wrong with the file
    found = [Problem(source.loc(("projects", i, "name")), f"project {quote(name)} is named twice",
                     "give each project its own name") for i, _, name in repeats(source.get(("projects",)), "name")]
    quarantine = source.get(("quarantine_file",))
    if isinstance(quarantine, str) and quarantine and not Path(quarantine).is_file():
        found.append(Problem(source.loc(("quarantine_file",)), f"quarantine_file {quote(quarantine)} does not exist",
                             "name the quarantine file relative to the folder flowwalk runs in, e.g. "
                             "flowwalk-quarantine.yaml (docs/quarantine.md)"))
    try:
        config = ConfigModel.model_validate(source.data)
    except ValidationError as exc:
        raise SpecError(merged(errors_to_problems(exc, source, ConfigModel), found)) from None
    if found:
        raise SpecError(found)
    return config


def read_config(config_path: str | Path | None) -> dict[str, Any]:
    """The values flowwalk.yaml sets: `config_path` (--config, which must exist), else the one in
    the working folder, else none. A bad file raises SpecError with every problem."""
    if config_path and not Path(config_path).is_file():
        from flowwalk.spec.source import escape

        raise UsageError(f"--config '{escape(str(config_path))}' does not exist")
    found = config_path or find_config(".")
    if not found:
        return {}
    loaded = load_config(Path(found))
    return loaded.model_dump(exclude_unset=True) if hasattr(loaded, "model_dump") else dict(loaded)


def settings_for(overrides: Overrides, env: Mapping[str, str], config_path: str | Path | None) -> Settings:
    """The one way a command builds its Settings: flowwalk.yaml (`config_path`, else the working
    folder's), then the environment, then what the command was told (`run`, `plan`, `discover`...)."""
    return build_settings(overrides, env, read_config(config_path))
