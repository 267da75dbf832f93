"""What all importers share: dispatch, arguments, file reading, ids, limits and the YAML dump."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.importers import (
    FORMATS,
    SCHEMA_COMMENT,
    QuizImportError,
    dump_quiz_yaml,
    import_quiz,
    import_text,
    quiz_parts,
)
from bot.quiz_loader import MAX_FILE_BYTES, MAX_QUESTIONS, MAX_TEXT_CHARS, load_quiz_text
from tests.conftest import ROOT
from tests.importers.support import SAMPLES, reload, round_trip

VALID_SAMPLES = [("networking.gift", "gift"), ("http.txt", "aiken"), ("computers.json", "opentdb")]
AIKEN = "Is this a question?\nA. Yes\nB. No\nANSWER: A\n"


def test_the_formats_are_the_four_promised() -> None:
    assert FORMATS == ("gift", "aiken", "opentdb", "red")


def test_the_dump_starts_with_the_schema_comment_and_loads_back_to_the_same_dict() -> None:
    result = import_quiz(SAMPLES / "networking.gift", "gift")
    text = dump_quiz_yaml(result.quiz)
    assert (
        text.split("\n")[0]
        == SCHEMA_COMMENT
        == ("# yaml-language-server: $schema=../schema/quiz.schema.json")
    )
    assert (Path(ROOT / "quizzes") / "../schema/quiz.schema.json").resolve().is_file()
    assert yaml.safe_load(text) == result.quiz
    assert "\nlanguages: [en]\n" in text
    assert "\n  - id: tcp-handshake\n    correct: a\n" in text  # the layout of quizzes/
    assert dump_quiz_yaml(result.quiz, schema_comment="").startswith("id: networking\n")


def test_multi_line_texts_are_written_as_blocks_and_read_back_unchanged() -> None:
    gift = "Line one\\nline two? {=a#First.\\n\\nSecond paragraph. ~b}"
    result = import_text(gift, "gift")
    assert "en: |-\n" in dump_quiz_yaml(result.quiz)
    (question,) = round_trip(result).questions
    assert question.text.get("en") == "Line one\nline two?"
    assert question.explanation.get("en") == "First.\n\nSecond paragraph."


@pytest.mark.parametrize("language", ["ru", "pt-br", "no", "on"])  # "no"/"on" are YAML 1.1 bools
def test_the_language_argument_names_the_only_language(language: str) -> None:
    quiz = round_trip(import_text(AIKEN, "aiken", language=language))
    assert (quiz.default_language, quiz.languages) == (language, (language,))
    assert quiz.questions[0].text.by_language == {language: "Is this a question?"}


@pytest.mark.parametrize(
    ("name", "quiz_id", "expected_id", "expected_title"),
    [
        ("world_capitals-2024", None, "world_capitals-2024", "World capitals 2024"),
        ("My Quiz (Final)", None, "my-quiz-final", "My Quiz (Final)"),
        ("Тест", None, "imported", "Тест"),
        ("export", "capitals", "capitals", "Capitals"),
    ],
)
def test_quiz_id_and_title_come_from_the_argument_or_the_file_stem(
    tmp_path: Path, name: str, quiz_id: str | None, expected_id: str, expected_title: str
) -> None:
    path = tmp_path / f"{name}.txt"
    path.write_text(AIKEN, encoding="utf-8")
    quiz = round_trip(import_quiz(path, "aiken", quiz_id=quiz_id))
    assert (quiz.id, quiz.title.get("en")) == (expected_id, expected_title)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"fmt": "csv"}, 'unknown format "csv"'),
        ({"fmt": "aiken", "quiz_id": "Bad Id"}, 'quiz id "Bad Id" must be'),
        ({"fmt": "aiken", "language": "English"}, '"English" is not a language code'),
    ],
)
def test_bad_arguments_raise_value_error_not_import_error(
    kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        import_text(AIKEN, **kwargs)
    assert not isinstance(caught.value, QuizImportError)


def test_an_unknown_format_is_refused_before_the_file_is_read(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown format"):
        import_quiz(tmp_path / "missing.txt", "moodle-xml")


def test_unreadable_files_raise_quiz_import_error_with_a_line(tmp_path: Path) -> None:
    with pytest.raises(QuizImportError, match=r"line 1: cannot read .*missing\.gift"):
        import_quiz(tmp_path / "missing.gift", "gift")
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes(b"Q?\nA. yes\nB. caf\xe9\nANSWER: A\n")
    with pytest.raises(QuizImportError) as caught:
        import_quiz(latin1, "aiken")
    assert caught.value.line == 3
    assert "not UTF-8" in caught.value.message


def test_a_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    item = {"type": "boolean", "question": "Q?", "correct_answer": "True"}
    path.write_text(json.dumps({"results": [item]}), encoding="utf-8-sig")
    assert round_trip(import_quiz(path, "opentdb")).questions[0].correct_option_id == "a"


def test_over_500_questions_are_split_into_quizzes_that_each_validate() -> None:
    aiken = "\n".join(f"Question {n}?\nA. x\nB. y\nANSWER: B\n" for n in range(MAX_QUESTIONS + 2))
    result = import_text(aiken, "aiken", name="big")
    parts = [part for part, _ in quiz_parts(result.quiz)]
    assert [(p["id"], p["title"]["en"], len(p["questions"])) for p in parts] == [
        ("big", "Big (1/2)", MAX_QUESTIONS),
        ("big-2", "Big (2/2)", 2),
    ]
    for part, text in quiz_parts(result.quiz):  # written with libyaml's emitter
        assert yaml.safe_load(text) == part
        report = load_quiz_text(text, "quizzes/big.yaml", "big")
        assert report.errors == []
    assert parts[1]["questions"][1]["text"]["en"] == f"Question {MAX_QUESTIONS + 1}?"


def test_a_quiz_over_the_file_size_limit_is_split_by_size() -> None:
    long = "w" * (MAX_TEXT_CHARS - 20)
    aiken = "\n".join(f"{long} {n}?\nA. x\nB. y\nANSWER: B\n" for n in range(150))
    parts = [part for part, _ in quiz_parts(import_text(aiken, "aiken").quiz)]
    assert len(parts) == 2
    assert sum(len(p["questions"]) for p in parts) == 150
    assert all(len(dump_quiz_yaml(p).encode()) <= MAX_FILE_BYTES for p in parts)


def test_texts_over_the_loaders_limit_are_reported_not_written() -> None:
    long = "x" * (MAX_TEXT_CHARS + 1)
    result = import_text(f"{long}?\nA. a\nB. b\nANSWER: A\n\n{AIKEN}", "aiken")
    assert result.problems[0].message == (
        f"question text is {MAX_TEXT_CHARS + 2} characters; the limit is {MAX_TEXT_CHARS}; skipped"
    )
    assert len(result.quiz["questions"]) == 1


def test_a_right_answer_too_long_to_restate_gets_a_shorter_stand_in() -> None:
    long = "y" * MAX_TEXT_CHARS
    result = import_text(f"Q?\nA. {long}\nB. b\nANSWER: A", "aiken")
    explanation = result.quiz["questions"][0]["explanation"]["en"]
    assert explanation == "The answer is the correct option."
    assert reload(result).errors == []


@pytest.mark.parametrize(("name", "fmt"), VALID_SAMPLES)
def test_imports_satisfy_the_schema(name: str, fmt: str) -> None:
    jsonschema = pytest.importorskip(
        "jsonschema", reason="jsonschema is not installed (it belongs in the dev extra)"
    )
    schema = json.loads((ROOT / "schema" / "quiz.schema.json").read_text(encoding="utf-8"))
    dumped = dump_quiz_yaml(import_quiz(SAMPLES / name, fmt).quiz)
    jsonschema.Draft202012Validator(schema).validate(yaml.safe_load(dumped))


def test_texts_the_importer_writes_are_in_the_quiz_language() -> None:
    gift = import_text("Земля круглая. {T}", "gift", language="ru")
    (question,) = round_trip(gift).questions
    assert [o.text.get("ru") for o in question.options] == ["Верно", "Неверно"]
    assert question.explanation.get("ru") == "Ответ: Верно."
    assert gift.problems[0].message.startswith('question "q1" has no explanation; it says "Ответ')
    boolean = {"type": "boolean", "question": "Q?", "correct_answer": "False"}
    opentdb = import_text(json.dumps({"results": [boolean]}), "opentdb", language="bn")
    (question,) = round_trip(opentdb).questions
    assert [o.text.get("bn") for o in question.options] == ["সত্য", "মিথ্যা"]
    assert question.explanation.get("bn") == "উত্তর: মিথ্যা।"
    red = "One?: [uno, one]\nTwo?: [dos]\nThree?: [tres]\n"
    (first, *_) = round_trip(import_text(red, "red", language="ur", choices=3)).questions
    assert first.explanation.get("ur") == "جواب: uno (دوسرے ہجے: one)۔"


def test_a_language_without_generated_texts_gets_english_ones_and_says_so() -> None:
    result = import_text("Die Erde ist rund. {T}\n\nZwei? {=2#Ja. ~3}", "gift", language="de")
    quiz = round_trip(result)
    assert [o.text.get("de") for o in quiz.questions[0].options] == ["True", "False"]
    assert [str(p) for p in result.problems][-1] == (
        'line 1: texts the importer wrote (True, False, "The answer is: ...") are in English: '
        'there are none in "de" yet; translate them'
    )
    assert not any("English" in p.message for p in import_text("Q? {=a#. ~b}", "gift").problems)
