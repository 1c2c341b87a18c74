"""The input file formats, one row each: the suffixes that name a file of it, its kind, how it is
loaded, how an authoring tree of it is written, and the JSON Schema editors check it with.

The loader finds files (`loader.discover`) and loads them by this table (`format_of`), heal's
refactor renames find the spec files by it, and the writer (spec/writer.py, which `flowwalk
discover` writes through) renders a tree by the row of the path it goes to. A new format is a row.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Literal, Optional

from pydantic import BaseModel

from flowwalk.spec.models import STEPS_SUFFIXES, FlowSpecModel, RulesFileModel, StepsFileModel

if TYPE_CHECKING:
    from flowwalk.errors import Problem
    from flowwalk.model import Suite
    from flowwalk.settings import Settings
    from flowwalk.spec.calls import StepsLibrary
    from flowwalk.spec.source import Source

Kind = Literal["flow", "rules", "steps", "robot"]
#: what loading one file gives: its suite (None for a steps file or on a problem), its problems,
#: and the parsed source of a flow spec or rule file
Loaded = tuple[Optional["Suite"], list["Problem"], Optional["Source"]]
Loader = Callable[[Path, str, "Settings", "StepsLibrary"], Loaded]


@dataclass(frozen=True)
class FileFormat:
    kind: Kind
    suffixes: tuple[str, ...]
    #: loads a file of this format: (path, its display name, settings, the steps files read so far)
    load: Loader
    #: the authoring tree's model (None: the format has no tree flowwalk writes)
    model: Optional[type[BaseModel]] = None
    #: the text a tree is written as: "yaml" or "json" (empty: flowwalk does not write the format)
    syntax: str = ""
    #: the JSON Schema of schemas/ that checks the format
    schema: str = ""
    #: whether a name is matched in any letter case; a steps file's suffix is matched as written,
    #: as a `use:` path must spell it
    any_case: bool = True
    #: whether a file found in a folder is one (a .robot file is one only when it is an aitester-bdd suite)
    claims: Optional[Callable[[Path], bool]] = None

    def names(self, name: str) -> bool:
        """Whether the file name has one of the format's suffixes."""
        return (name.lower() if self.any_case else name).endswith(self.suffixes)


def _robot_module() -> Any:
    # imported lazily: a build without the robot loader (or without Robot Framework) still loads flows
    try:
        from flowwalk.spec import robot
    except ImportError:
        return None
    return robot


def load_parsed(source: "Source", kind: Kind, settings: "Settings", library: "StepsLibrary") -> Loaded:
    """A parsed flow spec or rule file (`kind`), loaded."""
    from flowwalk.spec.flow import load_flow
    from flowwalk.spec.rules import load_rules

    return (*(load_rules if kind == "rules" else load_flow)(source, settings, library), source)


def _load_yaml_or_json(kind: Kind) -> Loader:
    def load(path: Path, display: str, settings: "Settings", library: "StepsLibrary") -> Loaded:
        from flowwalk.spec.source import SourceError, load_source

        try:
            source = load_source(path, display)
        except SourceError as exc:
            return None, [exc.problem], None
        return load_parsed(source, kind, settings, library)
    return load


def _load_steps(path: Path, display: str, settings: "Settings", library: "StepsLibrary") -> Loaded:
    from flowwalk.spec.lower import check_steps_file

    return None, check_steps_file(display, settings, library), None


def _load_robot(path: Path, display: str, settings: "Settings", library: "StepsLibrary") -> Loaded:
    from flowwalk.errors import Location, Problem

    robot = _robot_module()
    if robot is None:
        return None, [Problem(Location(display, 1, 1), "aitester-bdd suites cannot be loaded in this build",
                              "install flowwalk with Robot Framework, or leave .robot files out of the paths")], None
    suite, problems = robot.load_robot_suite(path, display, settings)
    return suite, problems, None


def _robot_suite(path: Path) -> bool:
    robot = _robot_module()
    return robot is not None and bool(robot.is_aitester_suite(path))


_STEPS_YAML = tuple(s for s in STEPS_SUFFIXES if not s.endswith(".json"))
_STEPS_JSON = tuple(s for s in STEPS_SUFFIXES if s.endswith(".json"))

FORMATS: tuple[FileFormat, ...] = (
    FileFormat("flow", (".flow.yaml", ".flow.yml"), _load_yaml_or_json("flow"), FlowSpecModel, "yaml",
               "flow-spec.v1.schema.json"),
    FileFormat("flow", (".flow.json",), _load_yaml_or_json("flow"), FlowSpecModel, "json", "flow-spec.v1.schema.json"),
    FileFormat("rules", (".rules.yaml", ".rules.yml"), _load_yaml_or_json("rules"), RulesFileModel, "yaml",
               "rules.v1.schema.json"),
    FileFormat("steps", _STEPS_YAML, _load_steps, StepsFileModel, "yaml", "steps.v1.schema.json", any_case=False),
    FileFormat("steps", _STEPS_JSON, _load_steps, StepsFileModel, "json", "steps.v1.schema.json", any_case=False),
    FileFormat("robot", (".robot",), _load_robot, claims=_robot_suite),
)


def format_of(name: str) -> FileFormat | None:
    """The format a file name says; None when it says none."""
    return next((f for f in FORMATS if f.names(name)), None)
