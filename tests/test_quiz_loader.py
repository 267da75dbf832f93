"""Quiz files: every bundled quiz loads, and every kind of mistake is reported as file:line."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from bot.catalog import QuizCatalog
from bot.quiz_loader import MAX_FILE_BYTES, load_quiz_file, load_quiz_text, load_quizzes
from tests.conftest import QUIZ_DIR, SEED_QUIZ

GOOD = textwrap.dedent(
    """\
    title:
      en: Tiny quiz
      ru: Маленький тест
    languages: [en, ru]
    questions:
      - id: q1
        correct: b
        text:
          en: "Which is 2 + 2?"
          ru: "Сколько будет 2 + 2?"
        options:
          - id: a
            text: {en: "3", ru: "3"}
            note: {en: "One short.", ru: "На один меньше."}
          - id: b
            text: {en: "4", ru: "4"}
        explanation:
          en: Two and two make four.
          ru: Два и два — четыре.
    """
)


def errors_of(text: str, name: str = "quizzes/x.yaml") -> list[str]:
    return [str(e) for e in load_quiz_text(text, name, "x").errors]


def test_every_bundled_quiz_loads_without_errors_or_missing_translations() -> None:
    report = load_quizzes([QUIZ_DIR])
    assert report.errors == []
    assert report.warnings == []
    assert SEED_QUIZ in {q.id for q in report.quizzes}


def test_seed_quiz_has_the_answer_key_and_fixed_translations() -> None:
    report = load_quiz_file(QUIZ_DIR / f"{SEED_QUIZ}.yaml")
    (quiz,) = report.quizzes
    assert quiz.languages == ("en", "bn", "ur", "ru")
    assert quiz.level == "intermediate"
    assert len(quiz.questions) == 8
    assert all(len(q.options) == 4 for q in quiz.questions)
    key = [q.correct_option_id for q in quiz.questions]
    assert key == ["d", "b", "c", "a", "b", "c", "a", "d"]  # the seeds' README, in source order
    safe_format = quiz.questions[5]
    for language in quiz.languages:
        option = safe_format.option("c")
        assert option is not None and option.text.get(language) == "safetensors"
        for question in quiz.questions:
            assert question.text.has(language) and question.explanation.has(language)
            assert all(o.text.has(language) for o in question.options)
            assert all(len(o.text.get(language)) <= 100 for o in question.options)
    everything = (QUIZ_DIR / f"{SEED_QUIZ}.yaml").read_text(encoding="utf-8")
    for defect in ("চাকরি", "ملازمت", "ট্রেনটি", "چوکی", "предохранител", "МП3"):
        assert defect not in everything


def test_a_valid_minimal_quiz_loads_with_defaults() -> None:
    report = load_quiz_text(GOOD, "quizzes/tiny.yaml", "tiny")
    assert report.errors == []
    (quiz,) = report.quizzes
    assert quiz.id == "tiny"  # from the file stem
    assert quiz.default_language == "en"
    option = quiz.questions[0].option("a")
    assert option is not None and option.note is not None
    assert option.note.get("ru") == "На один меньше."


def test_wrong_answer_key_names_file_line_and_options() -> None:
    text = GOOD.replace("correct: b", "correct: e")
    assert errors_of(text) == [
        'quizzes/x.yaml:7: question "q1": correct option "e" is not one of a, b'
    ]


def test_duplicate_question_id_points_at_both_lines() -> None:
    second = GOOD.split("questions:\n", 1)[1]
    text = GOOD + second
    errors = errors_of(text)
    assert errors == ['quizzes/x.yaml:20: duplicate question id "q1" (first used on line 6)']


def test_duplicate_option_id_and_duplicate_key() -> None:
    text = GOOD.replace("- id: b", "- id: a")
    assert 'quizzes/x.yaml:15: question "q1": duplicate option id "a"' in errors_of(text)
    text = GOOD.replace("languages: [en, ru]", "languages: [en, ru]\nlanguages: [en]")
    assert errors_of(text) == ['quizzes/x.yaml:5: duplicate key "languages"']


@pytest.mark.parametrize("separator", ["\x85", "\u2028", "\u2029"])
def test_lines_are_counted_as_an_editor_shows_them(separator: str) -> None:
    """YAML breaks lines at U+0085, U+2028 and U+2029 too; an editor shows them in the line."""
    text = GOOD.replace("en: Tiny quiz", f'en: "Tiny{separator}quiz{separator}"')
    text = text.replace("correct: b", "correct: e")
    assert errors_of(text) == [
        'quizzes/x.yaml:7: question "q1": correct option "e" is not one of a, b'
    ]
    broken = text.replace("      - id: b\n", "      - id: b\n   wrong: [\n")
    (error,) = errors_of(broken)
    assert error.startswith("quizzes/x.yaml:16: invalid YAML"), error


def test_bad_yaml_reports_the_line() -> None:
    text = GOOD.replace('      en: "Which is 2 + 2?"', '      en: "Which is 2 + 2?')
    (error,) = errors_of(text)
    assert error.startswith("quizzes/x.yaml:10: invalid YAML")


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda s: s.replace('      - id: b\n        text: {en: "4", ru: "4"}\n', ""),
            'quizzes/x.yaml:11: question "q1": has 1 options; a question needs 2 to 10',
        ),
        (
            lambda s: s.replace("  en: Tiny quiz\n", ""),
            "quizzes/x.yaml:1: title has no en text (the default)",
        ),
        (
            lambda s: s.replace('ru: "Сколько будет 2 + 2?"', 'ru: "  "'),
            'quizzes/x.yaml:10: question "q1": text (ru) is empty',
        ),
        (
            lambda s: s.replace("    correct: b\n", "    correct: b\n    hint: nope\n"),
            'quizzes/x.yaml:8: question "q1": unknown key "hint" (expected one of: correct, '
            "explanation, explanation_image, id, image, kind, options, tags, text)",
        ),
        (
            lambda s: s.replace("ru: Маленький тест", "de: Kleines Quiz"),
            'quizzes/x.yaml:3: title: language "de" is not in languages (en, ru)',
        ),
        (
            lambda s: s.replace('text: {en: "3", ru: "3"}', "text: {en: 3, ru: 3}"),
            'quizzes/x.yaml:13: question "q1": option "a" text (en) must be text, not int'
            " (put it in quotes)",
        ),
        (
            lambda s: s.replace("  - id: q1", "  - id: Q 1"),
            'quizzes/x.yaml:6: question 1: id "Q 1" must be 1-40 lowercase letters, digits, '
            '"-" or "_"',
        ),
        (
            lambda s: s.replace(
                '{en: "4", ru: "4"}', '{en: "4", ru: "4"}\n        note: {en: "Right."}'
            ),
            'quizzes/x.yaml:7: question "q1": the correct option "b" has a note; notes explain '
            "wrong options, put this in the explanation",
        ),
        (
            lambda s: "- just\n- a list\n",
            "quizzes/x.yaml:1: a quiz file must be a mapping (key: value)",
        ),
    ],
)
def test_each_kind_of_error_has_a_clear_message(change, expected: str) -> None:
    assert expected in errors_of(change(GOOD))


def test_every_problem_is_reported_not_only_the_first() -> None:
    text = GOOD.replace("correct: b", "correct: z").replace("ru: Маленький тест", "ru: ''")
    assert len(errors_of(text)) == 2


def test_aliases_are_refused_so_yaml_bombs_cannot_explode() -> None:
    bomb = 'a: &a ["x","x"]\nb: &b [*a,*a]\nc: &c [*b,*b]\ntitle: *c\n'
    (error,) = errors_of(bomb)
    assert error == (
        "quizzes/x.yaml:2: YAML aliases (*name) are not allowed in quiz files; write the text out"
    )


def test_python_object_tags_are_not_constructed() -> None:
    (error,) = errors_of("title: !!python/object/apply:os.system ['echo hacked']\n")
    assert error.startswith("quizzes/x.yaml:1: invalid YAML")


def test_missing_translation_is_a_warning_and_falls_back_to_the_default() -> None:
    text = GOOD.replace('      ru: "Сколько будет 2 + 2?"\n', "")
    report = load_quiz_text(text, "quizzes/x.yaml", "x")
    assert report.errors == []
    assert [str(w) for w in report.warnings] == [
        'quizzes/x.yaml:8: question "q1": text has no "ru" translation (shown in en)'
    ]
    assert report.quizzes[0].questions[0].text.get("ru") == "Which is 2 + 2?"


def test_oversized_file_is_refused_before_parsing(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("title: x\n" + "#" * MAX_FILE_BYTES, encoding="utf-8")
    (error,) = load_quiz_file(big).errors
    assert error.line == 1 and "the limit is" in error.message


def test_a_broken_file_does_not_take_the_others_down(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "broken.yaml").write_text(GOOD.replace("correct: b", "correct: q"), "utf-8")
    (tmp_path / "notes.txt").write_text("not a quiz", encoding="utf-8")
    catalog, report = QuizCatalog.from_paths([tmp_path])
    assert [q.id for q in catalog.all()] == ["good"]
    assert [e.path for e in report.errors] == [str(tmp_path / "broken.yaml")]


def test_reload_keeps_the_previous_version_of_a_file_that_broke(tmp_path: Path) -> None:
    path = tmp_path / "tiny.yaml"
    path.write_text(GOOD, encoding="utf-8")
    catalog, _ = QuizCatalog.from_paths([tmp_path])
    path.write_text(GOOD.replace("correct: b", "correct: q"), encoding="utf-8")
    report = catalog.reload()
    assert report.errors and catalog.get("tiny") is not None
    path.write_text(GOOD.replace("Tiny quiz", "Tiny quiz v2"), encoding="utf-8")
    assert not catalog.reload().errors
    reloaded = catalog.get("tiny")
    assert reloaded is not None and reloaded.title.get("en") == "Tiny quiz v2"


def test_the_same_quiz_id_in_two_files_is_reported(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("id: same\n" + GOOD, encoding="utf-8")
    (tmp_path / "b.yaml").write_text("id: same\n" + GOOD, encoding="utf-8")
    report = load_quizzes([tmp_path])
    assert [q.source for q in report.quizzes] == [str(tmp_path / "a.yaml")]
    assert [str(e) for e in report.errors] == [
        f'{tmp_path / "b.yaml"}:1: quiz id "same" is already used by {tmp_path / "a.yaml"}'
    ]


def test_a_correct_option_that_reads_like_a_wrong_one_is_refused() -> None:
    # The same text in one language is enough: those players cannot tell which is right.
    text = GOOD.replace('text: {en: "3", ru: "3"}', 'text: {en: "3", ru: " 4 "}')
    assert errors_of(text) == [
        'quizzes/x.yaml:7: question "q1": the correct option "b" reads the same as option "a" '
        '(ru: "4"); players cannot tell which is right'
    ]
    same_case = GOOD.replace('text: {en: "4", ru: "4"}', 'text: {en: "Four", ru: "4"}')
    assert errors_of(same_case.replace('{en: "3", ru: "3"}', '{en: "four", ru: "3"}')) == [
        'quizzes/x.yaml:7: question "q1": the correct option "b" reads the same as option "a" '
        '(en: "Four"); players cannot tell which is right'
    ]
    # two wrong options alike do not stop anyone from finding the right one
    three = GOOD.replace(
        "          - id: b\n",
        '          - id: c\n            text: {en: "3", ru: "3"}\n          - id: b\n',
    )
    assert errors_of(three) == []


def test_user_values_in_messages_are_quoted_on_one_line() -> None:
    text = 'languages: [en, "\\n"]\ntitle: {en: T, "ru\\u2028": x}\nquestions: []\nlevel: "a\\"b"\n'
    assert sorted(errors_of(text, "quizzes/new\nline.yaml")) == [
        'quizzes/new\\nline.yaml:1: "\\n" is not a language code such as "en"',
        'quizzes/new\\nline.yaml:2: title: language "ru\\u2028" is not in languages (en)',
        "quizzes/new\\nline.yaml:3: questions must be a non-empty list",
        'quizzes/new\\nline.yaml:4: level "a\\"b" is not one of beginner, intermediate, advanced',
    ]
