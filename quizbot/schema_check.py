"""Checking quiz files against the JSON Schema in ``schema/quiz.schema.json``.

The schema is what editors use to validate quiz YAML as people type; ``quizbot validate`` applies
it too (when the ``jsonschema`` package is installed), reporting each problem at its line.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from bot.quiz_loader import QuizProblem, line_at, parse_yaml

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schema" / "quiz.schema.json"


@cache
def _validator() -> Any:
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def schema_available() -> bool:
    """Whether the schema check can run (jsonschema installed, schema file present)."""
    try:
        import jsonschema  # noqa: F401
    except ImportError:
        return False
    return SCHEMA_PATH.is_file()


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
