"""Pydantic models of every input format (flow-spec v1/v1.1, rule files, steps files,
flowwalk.yaml, the quarantine file): the authoring tree.

These models are the single definition of the formats: `spec/schemas.py` generates the JSON
Schemas from them; `spec/lower.py` (steps), `spec/flow.py` / `spec/rules.py` / `spec/config.py`
convert validated models into the frozen `model.py` objects. Every model refuses unknown keys and
validates strictly (a quoted "500" is not an integer), so that the models and the generated schemas
accept the same documents. Rules that JSON Schema cannot express (cross-field rules, regex
validity, trimmed lengths) are model-only and listed in `docs/flow-spec.md`.

Errors raised by our own validators (`fail`) are `PydanticCustomError("flowwalk", ...)` whose
context carries a ready message and hint; `spec/problems.py` turns every validation error into
located problems worded for people.

The models live in modules that import one way, each only those before it:

- `fields.py`: limits, patterns, `fail`, the constrained strings, `Strict`, `StabilizeModel`, `node`;
- `environment.py`: the keys of a browser environment (`EnvironmentKeys`);
- `checks.py`: the expect kinds (`ExpectStep`, `expect_model`) and a flow's assertions;
- `verifiers.py`: what `verify:` takes;
- `steps.py`: the other steps, the blocks, `Step` (the union of every step), a steps file's parameters;
- `documents.py`: a flow spec, a rule file, a steps file;
- `config.py`: flowwalk.yaml and the quarantine file.

Every public name of them is a name of this package: `from flowwalk.spec.models import X`.
"""

from __future__ import annotations

from flowwalk.spec.models.fields import *  # noqa: F403
from flowwalk.spec.models.environment import *  # noqa: F403
from flowwalk.spec.models.checks import *  # noqa: F403
from flowwalk.spec.models.verifiers import *  # noqa: F403
from flowwalk.spec.models.steps import *  # noqa: F403
from flowwalk.spec.models.documents import *  # noqa: F403
from flowwalk.spec.models.config import *  # noqa: F403
