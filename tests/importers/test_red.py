"""Red-DiscordBot trivia: right answers only, so every question is flagged for wrong options."""

from __future__ import annotations

import re

import pytest

from bot.importers import QuizImportError, dump_quiz_yaml, import_quiz, import_text
from tests.importers.support import SAMPLES, line_of, problems_by_line, reload

SAMPLE = SAMPLES / "red_trivia.yaml"
QUESTIONS = [
    ("What is the capital of Australia?", "Canberra"),
    ("Who painted the Mona Lisa?", "Leonardo da Vinci"),
    ("In what year did World War II end?", "1945"),
    ("How many legs does a spider have?", "eight"),
    ("Is the Sun a star? (yes or no)", "yes"),  # as written: not YAML's True
]


def test_each_question_gets_its_first_answer_as_the_only_option() -> None:
    quiz = import_quiz(SAMPLE, "red").quiz
    assert quiz["id"] == "red_trivia"
    assert quiz["description"] == {"en": "Red trivia list by Example Trivia Team."}
    assert [
        (q["text"]["en"], [o["text"]["en"] for o in q["options"]], q["correct"])
        for q in quiz["questions"]
    ] == [(text, [answer], "a") for text, answer in QUESTIONS]
    assert [q["explanation"]["en"] for q in quiz["questions"]] == [
        f"The answer is: {answer}." for _, answer in QUESTIONS
    ]


def test_every_question_is_reported_as_needing_wrong_options_with_its_line() -> None:
    problems = problems_by_line(import_quiz(SAMPLE, "red"))
    for number, (text, answer) in enumerate(QUESTIONS, start=1):
        messages = problems[line_of(SAMPLE, text)]
        assert messages[0].startswith(f'question "q{number}" has no explanation')
        assert messages[1].startswith(
            f'question "q{number}" needs wrong options: Red lists only the right answer, "{answer}"'
        )
    assert problems[line_of(SAMPLE, "Mona Lisa")][1].endswith(
        '"Leonardo da Vinci" ("da Vinci", "Leonardo": other spellings of it); '
        "add 1 to 9 wrong options"
    )
    assert problems[line_of(SAMPLE, "red planet")] == ["question has no answers; skipped"]
    assert problems[line_of(SAMPLE, 'symbol "O"')] == [
        "the answers must be a list of texts, as in [Paris]; skipped"
    ]
    assert len(problems) == len(QUESTIONS) + 2  # AUTHOR and CONFIG are no questions


def test_the_validator_lists_each_question_needing_wrong_options_with_file_and_line() -> None:
    result = import_quiz(SAMPLE, "red")
    dumped = dump_quiz_yaml(result.quiz).split("\n")
    report = reload(result, "quizzes/red_trivia.yaml")
    assert report.quizzes == []
    assert [str(e) for e in report.errors] == [
        f'quizzes/red_trivia.yaml:{line}: question "q{n}": has 1 options; a question needs 2 to 10'
        for n, line in enumerate(
            (i for i, text in enumerate(dumped, start=1) if text.strip() == "options:"),
            start=1,
        )
    ]
    assert len(report.errors) == len(QUESTIONS)


def test_adding_wrong_options_makes_the_import_valid() -> None:
    result = import_quiz(SAMPLE, "red")
    for question in result.quiz["questions"]:
        question["options"].append({"id": "b", "text": {"en": "Something else"}})
    assert reload(result).errors == []


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("AUTHOR: me\nQ?: [a\n", 3, "not valid YAML"),
        ("- just\n- a list\n", 1, "a mapping of question: [answers]"),
        ("", 1, "a mapping of question: [answers]"),
        ("AUTHOR: me\nCONFIG: {delay: 10}\n", 1, "no question could be imported"),
        ("a: 1\n---\nb: 2\n", 2, "not valid YAML"),
        ("Q?: [a]\nR?: [\x07]\n", 2, "character U+0007 is not allowed"),
    ],
)
def test_unreadable_lists_raise_with_their_line(text: str, line: int, message: str) -> None:
    with pytest.raises(QuizImportError) as caught:
        import_text(text, "red")
    assert caught.value.line == line
    assert message in caught.value.message


def test_anchors_and_aliases_cost_nothing_and_scalars_keep_their_spelling() -> None:
    text = "x: &a [one, two]\ny: *a\n1.50: [0x1F]\n"
    quiz = import_text(text, "red").quiz
    assert [(q["text"]["en"], q["options"][0]["text"]["en"]) for q in quiz["questions"]] == [
        ("x", "one"),
        ("y", "one"),
        ("1.50", "0x1F"),
    ]
    assert re.search(r"\n  - id: q3\n", dump_quiz_yaml(quiz))
