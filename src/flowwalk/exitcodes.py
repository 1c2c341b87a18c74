"""The process exit codes of every flowwalk command, as one documented enum."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    #: Every scenario passed (flaky ones too, unless the fail policy says otherwise).
    OK = 0
    #: The site verifiably misbehaved: at least one `assertion_failed`. The only code that should alert.
    SITE_MISBEHAVED = 1
    #: No assertion failed, but a spec needs review: `spec_step_unresolvable`, `credential_rejected`,
    #: `agent_uncertain` or `quota_exceeded`, or a run timeout cut scenarios short.
    SPEC_NEEDS_REVIEW = 2
    #: Input was refused before any browser started: a spec, rule file, suite or option is invalid.
    INPUT_REFUSED = 3
    #: flowwalk itself broke: a bug. The traceback goes to a file named on stderr.
    INTERNAL_ERROR = 4
    #: The run was cancelled by SIGINT or SIGTERM; the reports cover what ran.
    CANCELLED = 5
    #: No assertion failed, but the infrastructure did: the browser could not be started or
    #: crashed, the run timeout cut scenarios short, or a shard is missing from a merge
    #: (`infrastructure_error`). Rerunning may pass; the spec is not at fault.
    INFRASTRUCTURE_FAILED = 6
