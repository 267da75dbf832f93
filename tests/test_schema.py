"""schema/quiz.schema.json: in step with the loader, and every bundled quiz satisfies it."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.quiz import LEVELS
from bot.quiz_loader import (
    ID_PATTERN,
    IMAGE_KEYS,
    LANGUAGE_PATTERN,
    MAX_ALT_CHARS,
    MAX_OPTIONS,
    MAX_QUESTIONS,
    MAX_TEXT_CHARS,
    MIN_OPTIONS,
    OPTION_KEYS,
    QUESTION_KEYS,
    QUIZ_KEYS,
    SHUFFLE_KEYS,
    load_quiz_text,
)
from tests.conftest import QUIZ_DIR, ROOT

SCHEMA_PATH = ROOT / "schema" / "quiz.schema.json"
SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
DEFS = SCHEMA["$defs"]
BUNDLED = sorted(QUIZ_DIR.glob("*.yaml"))

GOOD = textwrap.dedent(
    """\
    default_language: en
    languages: [en, ru]
    title: {en: Tiny quiz, ru: Маленький тест}
    questions:
      - id: q1
        correct: b
        text: {en: "Which is 2 + 2?", ru: "Сколько будет 2 + 2?"}
        options:
          - id: a
            text: {en: "3", ru: "3"}
            note: {en: One short., ru: На один меньше.}
          - id: b
            text: {en: "4", ru: "4"}
        explanation: {en: Two and two make four., ru: Два и два — четыре.}
    """
)


@pytest.fixture(scope="module")
def validator() -> Any:
    jsonschema = pytest.importorskip(
        "jsonschema", reason="jsonschema is not installed (it belongs in the dev extra)"
    )
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    return jsonschema.Draft202012Validator(SCHEMA)


def schema_errors(validator: Any, text: str) -> list[str]:
    return [error.message for error in validator.iter_errors(yaml.safe_load(text))]


def edit(change: str) -> str:
    """GOOD with one line replaced: ``"old => new"``."""
    old, new = change.split(" => ")
    assert old in GOOD, old
    return GOOD.replace(old, new, 1)


# The schema restates the loader's rules; these fail when one side changes without the other.


def test_the_schema_allows_exactly_the_keys_the_loader_allows() -> None:
    assert set(SCHEMA["properties"]) == QUIZ_KEYS
    assert set(DEFS["question"]["properties"]) == QUESTION_KEYS
    assert set(DEFS["option"]["properties"]) == OPTION_KEYS
    shuffle_object = SCHEMA["properties"]["shuffle"]["anyOf"][2]
    assert set(shuffle_object["properties"]) == SHUFFLE_KEYS
    image_object = DEFS["image"]["anyOf"][1]
    assert set(image_object["properties"]) == IMAGE_KEYS
    for strict in (SCHEMA, DEFS["question"], DEFS["option"], shuffle_object, image_object):
        assert strict["additionalProperties"] is False


def test_the_schema_uses_the_loader_limits_and_patterns() -> None:
    assert DEFS["id"]["anyOf"][0]["pattern"] == ID_PATTERN.pattern
    assert DEFS["language"]["pattern"] == LANGUAGE_PATTERN.pattern
    options = DEFS["question"]["properties"]["options"]
    assert (options["minItems"], options["maxItems"]) == (MIN_OPTIONS, MAX_OPTIONS)
    assert SCHEMA["properties"]["questions"]["maxItems"] == MAX_QUESTIONS
    assert DEFS["plainText"]["maxLength"] == MAX_TEXT_CHARS
    assert DEFS["altPlainText"]["maxLength"] == MAX_ALT_CHARS
    assert [v for v in SCHEMA["properties"]["level"]["enum"] if v is not None] == list(LEVELS)


def test_the_schema_describes_every_property_for_editors() -> None:
    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            for name, child in node.get("properties", {}).items():
                assert "description" in child, f"{path}.{name} has no description"
            for key, child in node.items():
                walk(child, f"{path}.{key}")
        elif isinstance(node, list):
            for index, child in enumerate(node):
                walk(child, f"{path}[{index}]")

    walk(SCHEMA, "schema")


# Validation proper needs jsonschema.


@pytest.mark.parametrize("path", BUNDLED, ids=[p.name for p in BUNDLED])
def test_every_bundled_quiz_satisfies_the_schema(validator: Any, path: Path) -> None:
    assert schema_errors(validator, path.read_text(encoding="utf-8")) == []


def test_there_are_bundled_quizzes_to_check() -> None:
    assert BUNDLED


def test_a_good_quiz_and_the_loaders_lenient_forms_satisfy_the_schema(validator: Any) -> None:
    lenient = [
        GOOD,
        edit("default_language: en => default_language: en\nshuffle: true"),
        edit("default_language: en => shuffle: {options: true}\nlevel: beginner"),
        edit("default_language: en => description:\nguide: http://example.org/"),
        edit('text: {en: "Which is 2 + 2?", ru: "Сколько будет 2 + 2?"} => text: Which?'),
        edit("- id: q1 => - id: 7"),
        edit("        note: {en: One short., ru: На один меньше.}\n => "),
    ]
    for text in lenient:
        assert load_quiz_text(text, "x.yaml", "x").errors == [], text
        assert schema_errors(validator, text) == [], text


@pytest.mark.parametrize(
    "change",
    [
        "default_language: en => default_language: english",
        "languages: [en, ru] => languages: []",
        "languages: [en, ru] => languages: [en, en]",
        "title: {en: Tiny quiz, ru: Маленький тест} => title: '   '",
        "title: {en: Tiny quiz, ru: Маленький тест} => title: {English: Tiny quiz}",
        "title: {en: Tiny quiz, ru: Маленький тест} => title: {en: 42}",
        "title: {en: Tiny quiz, ru: Маленький тест} => titel: {en: Tiny quiz}",
        "default_language: en => level: expert",
        "default_language: en => guide: example.org",
        "default_language: en => shuffle: {answers: true}",
        "- id: q1 => - id: Q1",
        "- id: q1 => - id: q1\n    hint: Think.",
        "    correct: b\n => ",
        "- id: a => - id: a\n        feedback: wrong",
        '      - id: b\n        text: {en: "4", ru: "4"}\n => ',
        "explanation: {en: Two and two make four., ru: Два и два — четыре.} => explanation:",
    ],
)
def test_broken_documents_fail_the_schema_as_they_fail_the_loader(
    validator: Any, change: str
) -> None:
    text = edit(change)
    assert load_quiz_text(text, "x.yaml", "x").errors, "the loader accepts it: fix the case"
    assert schema_errors(validator, text)


def test_languages_must_include_english_when_no_default_is_named(validator: Any) -> None:
    text = edit("default_language: en\nlanguages: [en, ru] => languages: [ru]")
    assert load_quiz_text(text, "x.yaml", "x").errors
    assert schema_errors(validator, text)


@pytest.mark.parametrize("key", ["image", "explanation_image"])
def test_image_entries_pass_and_fail_the_schema_as_they_do_the_loader(
    validator: Any, tmp_path: Path, key: str
) -> None:
    from bot.quiz_loader import load_quiz_file
    from tests.images import picture

    (tmp_path / "pics").mkdir()
    (tmp_path / "pics" / "a.png").write_bytes(picture())

    def both(image: str) -> tuple[bool, bool]:
        text = edit(f"- id: q1 => - id: q1\n    {key}: {image}")
        path = tmp_path / "quiz.yaml"
        path.write_text(text, encoding="utf-8")
        return not load_quiz_file(path).errors, not schema_errors(validator, text)

    for good in ("pics/a.png", "{file: pics/a.png}", "{file: pics/a.png, alt: {en: A, ru: Б}}"):
        assert both(good) == (True, True), good
    for bad in (
        "../a.png",
        "/pics/a.png",
        "pics/../../a.png",
        "{alt: Words}",
        "{file: pics/a.png, caption: x}",
        f"{{file: pics/a.png, alt: {'x' * (MAX_ALT_CHARS + 1)}}}",
        "[pics/a.png]",
    ):
        assert both(bad) == (False, False), bad
