"""The exception tree. A SpecError carries the Location of the bad input and a hint for the user."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Location:
    """A position in an input file: 1-based line and column. `path` is as the user named it."""

    path: str
    line: int = 1
    col: int = 1

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input, rendered as `path:line:col: error: what` plus `  hint: how`."""

    loc: Location
    message: str
    hint: str = ""

    def render(self) -> str:
        text = f"{self.loc}: error: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text

    def annotation(self) -> str:
        """The GitHub Actions workflow command that puts this problem on the PR diff."""
        msg = self.message + (f" (hint: {self.hint})" if self.hint else "")
        msg = msg.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        return f"::error file={self.loc.path},line={self.loc.line},col={self.loc.col}::{msg}"


class FlowwalkError(Exception):
    """Base of every error flowwalk raises on purpose."""


class SpecError(FlowwalkError):
    """Input was refused. Carries every problem found in one pass, across all files."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems, key=lambda p: (p.loc.path, p.loc.line, p.loc.col, p.message))
        super().__init__("\n".join(p.render() for p in self.problems))


class UsageError(FlowwalkError):
    """A command-line option or setting is wrong (not a spec file)."""


class BrowserLaunchError(FlowwalkError):
    """Chromium could not be started at all."""


class PublishError(FlowwalkError):
    """Publishing to GitHub failed; never changes the verdict's exit code."""
