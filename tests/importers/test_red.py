"""Red-DiscordBot trivia: metadata keys, typed answers as Red accepts them, generated options."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.importers import QuizImportError, dump_quiz_yaml, import_quiz, import_text
from tests.importers.support import (
    SAMPLES,
    line_of,
    problems_by_line,
    round_trip,
)

SAMPLE = SAMPLES / "red_trivia.yaml"
QUESTIONS = [
    ("What is the capital of Australia?", ["Canberra"]),
    ("Who painted the Mona Lisa?", ["Leonardo da Vinci", "da Vinci", "Leonardo"]),
    ("In what year did World War II end?", ["1945"]),
    ("How many legs does a spider have?", ["eight", "8"]),
    ("Is the Sun a star? (yes or no)", ["yes", "True", "On"]),  # Red's family of YAML's yes
    ("What is the smallest prime number?", ["2", "two"]),
    ("What is the largest ocean?", ["Pacific", "the Pacific"]),  # the later one, as Red
]


def typed(quiz: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    return [(q["kind"], q["text"]["en"], q["answers"]["en"]) for q in quiz["questions"]]


def test_each_question_accepts_every_spelling_red_accepts() -> None:
    quiz = import_quiz(SAMPLE, "red").quiz
    assert typed(quiz) == [("typed", text, answers) for text, answers in QUESTIONS]
    assert all("options" not in q and "explanation" not in q for q in quiz["questions"])


def test_description_becomes_the_quiz_description_and_no_metadata_becomes_a_question() -> None:
    quiz = import_quiz(SAMPLE, "red").quiz
    assert quiz["id"] == "red_trivia"
    assert quiz["description"] == {
        "en": "General knowledge for a friendly server: capitals, painters and planets."
    }
    texts = [q["text"]["en"] for q in quiz["questions"]]
    assert not {"AUTHOR", "DESCRIPTION", "CONFIG", "$schema"} & set(texts)


def test_without_a_description_the_author_is_credited() -> None:
    quiz = import_text("AUTHOR: Jo\nQ?: [A]\n", "red").quiz
    assert quiz["description"] == {"en": "Red trivia list by Jo."}


def test_skipped_items_repeats_and_dropped_answers_are_reported_with_their_lines() -> None:
    problems = problems_by_line(import_quiz(SAMPLE, "red"))
    first_ocean = line_of(SAMPLE, "largest ocean")
    assert problems == {
        line_of(SAMPLE, "red planet"): ["question has no answers; skipped"],
        line_of(SAMPLE, 'symbol "O"') + 1: [
            "an answer is a list or mapping, not text; it was left out"
        ],
        line_of(SAMPLE, 'symbol "O"'): ["question has no answers; skipped"],
        line_of(SAMPLE, "- two") - 1: ["an answer is empty, not text; it was left out"],
        first_ocean: [
            'question "What is the largest ocean?" is asked again on line '
            f"{line_of(SAMPLE, 'largest ocean', 2)}; the answers there are kept, as Red does"
        ],
    }


def test_the_typed_import_validates() -> None:
    quiz = round_trip(import_quiz(SAMPLE, "red"))
    assert len(quiz.questions) == len(QUESTIONS)


def test_choices_make_multiple_choice_questions_from_sibling_answers() -> None:
    result = import_quiz(SAMPLE, "red", choices=4)
    quiz = round_trip(result)
    firsts = {answers[0] for _, answers in QUESTIONS}
    for question, (text, answers) in zip(quiz.questions, QUESTIONS, strict=True):
        options = [o.text.get("en") for o in question.options]
        right = question.option(question.correct_option_id)
        assert right is not None
        assert (question.text.get("en"), right.text.get("en"), len(options)) == (
            text,
            answers[0],
            4,
        )
        assert set(options) <= firsts  # wrong options are other questions' answers
        assert len(set(options)) == 4
    assert import_quiz(SAMPLE, "red", choices=4).quiz == result.quiz  # repeatable
    explanation = quiz.questions[1].explanation.get("en")
    assert explanation == "The answer is: Leonardo da Vinci (also written: da Vinci, Leonardo)."


def test_a_wrong_option_is_never_an_accepted_spelling_and_numbers_get_numbers() -> None:
    text = "\n".join(
        [
            "Year the war ended?: [1945, nineteen forty-five]",
            "Year of the moon landing?: [1969]",
            "Year of the fall of the wall?: [1989]",
            "Year of the first flight?: [1903]",
            "Capital of France?: [Paris]",
            "Capital of Italy?: [Rome]",
            "Capital of Spain?: [Madrid]",
            "Spelled with an accent?: [Pokémon]",
            "Spelled without one?: [POKEMON, Pikachu]",
        ]
    )
    questions = import_text(text, "red", choices=3).quiz["questions"]
    for question in questions[:4]:
        options = [o["text"]["en"] for o in question["options"]]
        assert all(o.isdigit() for o in options), options
    for question in questions[7:]:
        options = [o["text"]["en"].lower() for o in question["options"]]
        assert options.count("pokémon") + options.count("pokemon") == 1, options


def test_too_few_distinct_answers_keep_the_questions_typed_and_say_so() -> None:
    result = import_text("A?: [yes]\nB?: [Yes]\nC?: [no]\n", "red", choices=4)
    assert {q["kind"] for q in result.quiz["questions"]} == {"typed"}
    assert [str(p) for p in result.problems] == [
        "line 1: the list has 2 different answers, too few for 4 options; its questions are "
        "typed-answer questions"
    ]


@pytest.mark.parametrize(("fmt", "choices"), [("gift", 4), ("red", 1), ("red", 11)])
def test_bad_choices_are_refused_as_arguments(fmt: str, choices: int) -> None:
    with pytest.raises(ValueError, match="--choices") as caught:
        import_text("Q?: [a]\n", fmt, choices=choices)
    assert not isinstance(caught.value, QuizImportError)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("AUTHOR: me\nQ?: [a\n", 3, "not valid YAML"),
        ("- just\n- a list\n", 1, "a mapping of question: [answers]"),
        ("", 1, "a mapping of question: [answers]"),
        ("AUTHOR: me\nDESCRIPTION: x\nCONFIG: {delay: 10}\n", 1, "no question could be imported"),
        ("a: [1]\n---\nb: [2]\n", 2, "not valid YAML"),
        ("Q?: [a]\nR?: [\x07]\n", 2, "character U+0007 is not allowed"),
    ],
)
def test_unreadable_lists_raise_with_their_line(text: str, line: int, message: str) -> None:
    with pytest.raises(QuizImportError) as caught:
        import_text(text, "red")
    assert caught.value.line == line
    assert message in caught.value.message


def test_anchors_and_aliases_cost_nothing_and_scalars_keep_their_spelling() -> None:
    text = "x: &a [one, two]\ny: *a\n1.50: [0x1F, 007]\nOn?: [off]\n"
    assert typed(import_text(text, "red").quiz) == [
        ("typed", "x", ["one", "two"]),
        ("typed", "y", ["one", "two"]),
        ("typed", "1.50", ["0x1F", "007"]),
        ("typed", "On?", ["off", "False", "No"]),
    ]
    assert re.search(r"\n  - id: q3\n", dump_quiz_yaml(import_text(text, "red").quiz))


def test_answers_without_letters_or_over_the_limit_are_left_out_and_reported() -> None:
    long = "z" * 201
    result = import_text(f"Q?: ['?!', {long}, fine]\nR?: ['...']\n", "red")
    assert typed(result.quiz) == [("typed", "Q?", ["fine"])]
    assert [str(p) for p in result.problems] == [
        'line 1: answer "?!" has no letters or digits; left out',
        "line 1: an answer is 201 characters; the limit is 200; left out",
        'line 2: answer "..." has no letters or digits; left out',
        "line 2: question has no usable answer; skipped",
    ]


def test_a_large_list_is_read_with_libyaml_and_keeps_its_lines() -> None:
    text = "".join(f"Question {n}?:\n- answer {n}\n" for n in range(20_000)) + "Bad?: {x: 1}\n"
    result = import_text(text, "red")
    assert len(result.quiz["questions"]) == 20_000
    assert [str(p) for p in result.problems] == [
        'line 40001: "Bad?" holds settings, not answers; skipped'
    ]


def test_a_repeated_multi_line_question_is_reported_on_one_line() -> None:
    text = '"Two\\nlines?":\n  - one\n"Two\\nlines?":\n  - two\nOther?:\n  - x\n'
    problems = [str(p) for p in import_text(text, "red").problems]
    assert problems[0] == (
        'line 1: question "Two\\nlines?" is asked again on line 3; the answers there are '
        "kept, as Red does"
    )
    assert all(len(p.splitlines()) == 1 for p in problems)


def test_questions_that_differ_only_in_case_are_both_asked_as_red_does_and_reported() -> None:
    # As in Red's own overwatch list: "D.VA's real name" and "D.Va's real name".
    text = "What is D.VA's real name?:\n- Hana Song\nWhat is D.Va's real name?:\n- Hana Song\n"
    result = import_text(text, "red")
    assert len(result.quiz["questions"]) == 2
    assert [str(p) for p in result.problems] == [
        "line 3: the same question as on line 1; kept, as Red does"
    ]
