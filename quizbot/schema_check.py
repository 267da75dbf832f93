"""Checking quiz files against the JSON Schema in ``schema/quiz.schema.json``.

The schema is what editors use to validate quiz YAML as people type; ``quizbot validate`` applies
it too, reporting each problem at its line.
"""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from bot.quiz_loader import QuizProblem, line_at, parse_yaml

# In a checkout (or an editable install) the schema lies beside the packages; a wheel installs
# it as a data file under the environment's prefix (pyproject.toml's data-files).
SCHEMA_PATHS = (
    Path(__file__).resolve().parent.parent / "schema" / "quiz.schema.json",
    Path(sys.prefix) / "share" / "quizbot" / "quiz.schema.json",
)


def schema_path() -> Path | None:
    """The schema file of this install, or None when it has none."""
    return next((path for path in SCHEMA_PATHS if path.is_file()), None)


@cache
def _validator() -> Any:
    path = schema_path()
    assert path is not None, "schema_available() is checked first"
    schema = json.loads(path.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def schema_available() -> bool:
    """Whether the schema file is there to check against."""
    return schema_path() is not None


def schema_problems(path: Path, shown: str | None = None) -> list[QuizProblem]:
    """Where the file breaks the schema, as ``path:line`` problems (YAML errors are left to
    the loader, which reports them)."""
    try:
        doc = parse_yaml(path.read_text(encoding="utf-8"))
    except Exception:  # unreadable or invalid YAML: the loader reports it with its line
        return []
    problems = []
    for error in _validator().iter_errors(doc):
        where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        line = line_at(doc, error.absolute_path)
        problems.append(QuizProblem(shown or str(path), line, f"schema: {where}: {error.message}"))
    return sorted(problems)
